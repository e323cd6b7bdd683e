//! The MCTS players leave no thread behind: a match's search thread ends when the match stops,
//! when the next one starts, and when the player is dropped. Alone in its file, so that no
//! other test's threads come and go while it counts.

use player::{create, run_series, Clocks, Game, MatchInfo, SeriesOptions};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The threads of this process (Linux), or `None` elsewhere.
fn threads() -> Option<usize> {
    Some(std::fs::read_dir("/proc/self/task").ok()?.count())
}

/// The threads of this process once they number `want`, or after a second if they never do.
/// A joined thread has finished its work, but the kernel can list it among the process' tasks
/// for a moment after the join returns (the join wakes when the thread lets go of its memory,
/// before the kernel reaps it), so a count taken at once can be one too many.
fn threads_settled(want: usize) -> Option<usize> {
    let give_up = Instant::now() + Duration::from_secs(1);
    loop {
        let now = threads();
        if now == Some(want) || Instant::now() >= give_up {
            return now;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn search_threads_end_with_their_matches() {
    let Some(before) = threads() else { return };
    let g = games::find("tictactoe").expect("bundled");
    let (desc, net) = testkit::bundled(g.name);
    let game = Arc::new(Game::new(g.name.to_owned(), g.text.to_owned(), desc, net));
    let clocks = Clocks { start: Duration::from_millis(200), play: Duration::from_millis(50) };
    let mut players = vec![create("mcts", 1).unwrap(), create("mcts-plain", 2).unwrap()];
    run_series(&game, &mut players, SeriesOptions { games: 6, clocks, seed: 1 }, &mut |_| {}).expect("plays");
    assert_eq!(threads_settled(before), Some(before), "after matches that stopped");

    let info = |role: &str| MatchInfo {
        id: "abandoned".into(),
        game: Arc::clone(&game),
        role: role.into(),
        start_clock: clocks.start,
        play_clock: clocks.play,
    };
    for player in &mut players {
        // A match that never stops, replaced by another that never stops either.
        for role in ["xplayer", "oplayer"] {
            player.start(&info(role), Instant::now() + clocks.start).expect("starts");
            player.play(None, Instant::now() + clocks.play).expect("plays");
            assert!(threads() > Some(before), "a match under way has its search thread");
        }
    }
    drop(players);
    assert_eq!(threads_settled(before), Some(before), "after the players were dropped mid-match");
}
