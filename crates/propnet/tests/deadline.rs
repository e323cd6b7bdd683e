//! A grounding given a deadline it cannot meet stops soon after it, its memory freed: the
//! player that abandoned it must not share a core with it for long. Timed generously (the target
//! is 100 ms, measured in BENCHMARKS.md); these games took 0.6–0.9 s past a 2 s deadline when
//! dropping the grounder's indexes and terms cost an allocation each.

use std::time::{Duration, Instant};

#[test]
fn groundings_that_run_out_of_time_stop_soon_after_their_deadline() {
    let Some(shared) = testkit::shared::locate(env!("CARGO_MANIFEST_DIR"), "grounding deadlines") else { return };
    for (dir, game) in [("games", "amazons"), ("more/games", "merrills")] {
        let path = shared.join(dir).join(format!("{game}.kif"));
        let desc = testkit::load(game, &testkit::shared::read_text(&path).expect("readable"));
        // Late enough that the model holds most of a million atoms.
        let window = 2.0;
        let deadline = Instant::now() + Duration::from_secs_f64(window);
        let limits = propnet::Limits { deadline: Some(deadline), ..propnet::Limits::default() };
        let result = propnet::ground::ground(&desc, &limits);
        let late = deadline.elapsed();
        assert!(
            matches!(result, Err(propnet::GroundError::Timeout)),
            "{game} was expected to need more than {window} s"
        );
        assert!(late < Duration::from_millis(300), "{game}, {window} s: stopped {late:?} past its deadline");
    }
}
