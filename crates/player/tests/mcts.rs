//! The MCTS players in matches: against random play on ticTacToe, (with the local search)
//! Breakthrough-small and (with a tree per factor or neighbourhood) Dual and Tally
//! Tic-Tac-Toe, on time and legal under short clocks in turn-taking, simultaneous and
//! three-player corpus games, solving a sliding puzzle, drawing its throws in a one-shot game
//! from the equilibrium, and staying usable after a joint move it cannot read.

use machine::StateMachine;
use player::{create, run_series, Clocks, Game, MatchInfo, SeriesOptions};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn game_of(name: &str, text: &str) -> Arc<Game> {
    let (desc, _) = gdl::load(name, text).expect("valid rules");
    let net = propnet::compile(&desc, &propnet::Limits::default()).expect("builds");
    Arc::new(Game::new(name.to_owned(), text.to_owned(), desc, net))
}

fn bundled(name: &str) -> Arc<Game> {
    let g = games::find(name).expect("bundled");
    game_of(g.name, g.text)
}

/// A match of `game` (ticTacToe) as its first player, with short clocks.
fn as_x(game: &Arc<Game>) -> MatchInfo {
    MatchInfo {
        id: "as x".into(),
        game: Arc::clone(game),
        role: "xplayer".into(),
        start_clock: Duration::from_millis(300),
        play_clock: Duration::from_millis(100),
    }
}

fn clocks(start_ms: u64, play_ms: u64) -> Clocks {
    Clocks { start: Duration::from_millis(start_ms), play: Duration::from_millis(play_ms) }
}

/// Plays `mcts` against random on `game` as `options` say and checks that it lost none, won at
/// least `wins` and had no fault.
fn never_loses_to_random(game: &Arc<Game>, options: SeriesOptions, wins: usize) {
    let mut players = vec![create("mcts", 1).unwrap(), create("random", 2).unwrap()];
    let series = run_series(game, &mut players, options, &mut |_| {}).expect("plays");
    let mcts = &series.standings[0];
    assert_eq!(mcts.losses, Some(0), "{mcts:?}");
    assert!(mcts.wins.unwrap() >= wins, "random play loses too few games of {}: {mcts:?}", game.name);
    let faults: Vec<_> = series.matches.iter().flat_map(|m| &m.faults).collect();
    assert!(faults.is_empty(), "{faults:?}");
}

#[test]
fn mcts_never_loses_twenty_tictactoe_games_to_random() {
    never_loses_to_random(&bundled("tictactoe"), SeriesOptions { games: 20, clocks: clocks(500, 200), seed: 5 }, 10);
}

#[test]
fn without_a_propnet_mcts_searches_on_the_reasoner() {
    let g = games::find("tictactoe").expect("bundled");
    let (desc, _) = gdl::load(g.name, g.text).expect("valid rules");
    let game = Arc::new(Game::on_reasoner(g.name.into(), g.text.into(), desc));
    // Both seats: the referee, the random player and the search all run on reasoners.
    never_loses_to_random(&game, SeriesOptions { games: 6, clocks: clocks(300, 200), seed: 9 }, 3);
}

#[test]
fn mcts_with_its_local_search_is_on_time_and_beats_random_play_at_breakthrough() {
    // The analysis switches the local search on here: its thread starts, marks the tree and
    // stops with the match.
    let game = bundled("breakthroughsmall");
    let mut players = vec![create("mcts", 1).unwrap(), create("random", 2).unwrap()];
    let options = SeriesOptions { games: 2, clocks: clocks(1000, 150), seed: 3 };
    let series = run_series(&game, &mut players, options, &mut |_| {}).expect("plays");
    assert_eq!(series.standings[0].wins, Some(2), "{:?}", series.standings[0]);
    let faults: Vec<_> = series.matches.iter().flat_map(|m| &m.faults).collect();
    assert!(faults.is_empty(), "{faults:?}");
}

#[test]
fn mcts_searching_each_board_in_a_tree_of_its_own_is_on_time_and_never_loses_to_random_play() {
    // The analysis splits Dual Tic-Tac-Toe into its two boards, each able to end the game, so
    // the player searches a tree per board; Tally Tic-Tac-Toe's boards are neighbourhoods
    // joined by the tally, searched the same way.
    // On the tally, a random first player that happens on a fork wins a board the search cannot
    // save, so a third of those matches end drawn one point each: fewer wins are asked there.
    // The trees share each move's time. On a busy machine 150 ms a move left a tree too few
    // playouts to see that leaving its board to the opponent for a move loses it, and a random
    // player happened on the fork (in one run of sixteen, with two other busy processes), so
    // they get 300.
    for (game, games, wins) in [("dualtictactoe", 6, 4), ("tallytictactoe", 8, 2)] {
        let options = SeriesOptions { games, clocks: clocks(1000, 300), seed: 4 };
        never_loses_to_random(&bundled(game), options, wins);
    }
}

/// Rock, paper, scissors in one round: every joint move ends the game.
const THROWS: &str = "
    (role left) (role right)
    (init ready)
    (throw rock) (throw paper) (throw scissors)
    (beats rock scissors) (beats paper rock) (beats scissors paper)
    (<= (legal ?r (show ?t)) (role ?r) (throw ?t))
    (<= (next (shown ?r ?t)) (does ?r (show ?t)))
    (<= terminal (true (shown left ?t)))
    (<= (other left right)) (<= (other right left))
    (<= (wins ?r) (true (shown ?r ?a)) (other ?r ?s) (true (shown ?s ?b)) (beats ?a ?b))
    (<= (goal ?r 100) (wins ?r))
    (<= (goal ?r 0) (other ?r ?s) (wins ?s))
    (<= (goal ?r 50) (role ?r) (not (wins ?r)) (other ?r ?s) (not (wins ?s)))";

#[test]
fn in_a_one_shot_game_mcts_draws_its_throws_from_the_equilibrium() {
    let game = game_of("throws", THROWS);
    let mut players = vec![create("mcts", 1).unwrap(), create("mcts:no-matrix", 2).unwrap()];
    let options = SeriesOptions { games: 12, clocks: clocks(300, 300), seed: 1 };
    let series = run_series(&game, &mut players, options, &mut |_| {}).expect("plays");
    let faults: Vec<_> = series.matches.iter().flat_map(|m| &m.faults).collect();
    assert!(faults.is_empty(), "{faults:?}");
    // The equilibrium throws each a third of the time, so twelve matches all alike would
    // happen once in 177,147 series: a player that keeps one pick, however it came to it, does.
    let ours: BTreeSet<&str> = series
        .matches
        .iter()
        .map(|m| m.moves[0][m.seats.iter().position(|&p| p == 0).expect("seated")].as_str())
        .collect();
    assert!(ours.len() >= 2, "always {ours:?}");
}

#[test]
fn mcts_is_never_late_nor_illegal_under_short_clocks() {
    let Some(shared) = testkit::shared::locate(env!("CARGO_MANIFEST_DIR"), "MCTS on corpus games") else {
        return;
    };
    // Turn-taking with goal latches (escortLatch), simultaneous moves (the other three but
    // one), and three players.
    let games: [(&str, &[&str], usize); 5] = [
        ("escortLatch", &["mcts", "mcts-plain"], 1),
        ("biddingTicTacToe", &["mcts", "mcts-plain"], 2),
        ("gt_prisoner", &["mcts", "random"], 2),
        ("ticTacToeParallel", &["mcts-plain", "mcts"], 2),
        ("tictactoe_3player", &["mcts", "mcts-plain", "random"], 3),
    ];
    for (name, specs, games) in games {
        let path = shared.join("games").join(format!("{name}.kif"));
        let game = game_of(name, &testkit::shared::read_text(&path).expect("corpus game"));
        let mut players: Vec<_> = specs.iter().enumerate().map(|(i, s)| create(s, i as u64).unwrap()).collect();
        let options = SeriesOptions { games, clocks: clocks(500, 100), seed: 9 };
        let series = run_series(&game, &mut players, options, &mut |_| {}).expect("plays");
        for record in &series.matches {
            let theirs: Vec<_> = record.faults.iter().filter(|f| specs[record.seats[f.role]] != "random").collect();
            assert!(theirs.is_empty(), "{name}: {theirs:?}");
        }
    }
}

#[test]
fn mcts_solves_the_eight_puzzle() {
    let game = bundled("eightpuzzle");
    for spec in ["mcts", "mcts-plain"] {
        let mut players = vec![create(spec, 3).unwrap()];
        // Not the shortest of clocks: this test is about the plan, and the other tests here run
        // beside it on the same cores.
        let options = SeriesOptions { games: 1, clocks: clocks(1000, 300), seed: 1 };
        let series = run_series(&game, &mut players, options, &mut |_| {}).expect("plays");
        let record = &series.matches[0];
        assert_eq!(record.goals, vec![100], "{spec}: {record:?}");
        assert!(record.faults.is_empty(), "{spec}: {:?}", record.faults);
        assert_eq!(record.moves.len(), 20, "{spec}: the solver's plan is the shortest");
    }
}

#[test]
fn a_joint_move_it_cannot_read_is_an_error_and_the_match_goes_on() {
    let game = bundled("tictactoe");
    let info = as_x(&game);
    let mut p = create("mcts", 4).unwrap();
    p.start(&info, Instant::now() + info.start_clock).expect("starts");
    let mut m = game.machine().expect("a propnet");
    let mut state = m.initial_state();
    let first = p.play(None, Instant::now() + info.play_clock).expect("plays");
    // Not a move of the game, not KIF, one move short, and a move that is not legal.
    let corrupt: [&[&str]; 4] = [&["(mark 9 9)", "noop"], &["(mark"], &[&first], &["noop", "noop"]];
    for joint in corrupt {
        let joint: Vec<String> = joint.iter().map(|s| s.to_string()).collect();
        let answer = p.play(Some(&joint), Instant::now() + info.play_clock);
        assert!(answer.is_err(), "{joint:?} was taken: {answer:?}");
    }
    // The correct joint moves from here on: the player follows them and plays legal moves.
    let mut mine = first;
    for turn in 0..4 {
        let x = m.find_move(0, &mine).expect("a move of x");
        let o_moves = m.legal_moves(&state, 1).unwrap();
        let o = if turn % 2 == 0 { o_moves[0] } else { o_moves[o_moves.len() - 1] };
        let joint = [x, o];
        state = m.next_state(&state, &joint).expect("legal");
        let names: Vec<String> = joint.iter().map(|mv| m.format_move(mv)).collect();
        mine = p.play(Some(&names), Instant::now() + info.play_clock).expect("plays on");
        if m.is_terminal(&state).unwrap() {
            break;
        }
        let id = m.find_move(0, &mine).unwrap_or_else(|| panic!("{mine} is no move"));
        assert!(m.legal_moves(&state, 0).unwrap().contains(&id), "{mine} is not legal");
    }
    p.stop(None).expect("stops");
}

#[test]
fn a_joint_move_it_cannot_read_is_worked_out_from_the_next_one() {
    let game = bundled("tictactoe");
    for spec in ["mcts", "alphabeta", "random"] {
        let info = as_x(&game);
        let mut p = create(spec, 4).unwrap();
        p.start(&info, Instant::now() + info.start_clock).expect("starts");
        let mut m = game.machine().expect("a propnet");
        let mut state = m.initial_state();
        let mut mine = p.play(None, Instant::now() + info.play_clock).expect("plays");
        for turn in 0..4 {
            let x = m.find_move(0, &mine).expect("a move of x");
            let o_moves = m.legal_moves(&state, 1).unwrap();
            let joint = [x, o_moves[o_moves.len() / 2]];
            state = m.next_state(&state, &joint).expect("legal");
            let names: Vec<String> = joint.iter().map(|mv| m.format_move(mv)).collect();
            // The server garbles the first joint move and goes on without sending it again.
            mine = if turn == 0 {
                let garbled = vec!["(mark 9 9)".to_owned(), names[1].clone()];
                assert!(p.play(Some(&garbled), Instant::now() + info.play_clock).is_err(), "{spec}");
                "noop".to_owned()
            } else {
                p.play(Some(&names), Instant::now() + info.play_clock).expect("plays on")
            };
            if m.is_terminal(&state).unwrap() {
                break;
            }
            let id = m.find_move(0, &mine).unwrap_or_else(|| panic!("{spec}: {mine} is no move"));
            assert!(m.legal_moves(&state, 0).unwrap().contains(&id), "{spec}: {mine} is not legal at turn {turn}");
        }
        p.stop(None).expect("stops");
    }
}
