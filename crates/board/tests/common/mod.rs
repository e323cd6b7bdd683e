//! What the board tests share: loading a game, the inference's budget, playing joint moves.

use board::{infer, Budget, Inference};
use gdl::Description;
use machine::StateMachine;
use propnet::{Net, PropnetMachine};
use std::time::{Duration, Instant};

/// A bundled game by its exact name, or a corpus game by its file stem (`None` where the corpus
/// is absent): the corpus's eightPuzzle is not the bundled eightpuzzle.
pub fn game(name: &str) -> Option<(Description, Net)> {
    if games::find(name).is_some_and(|g| g.name == name) {
        return Some(testkit::bundled(name));
    }
    testkit::shared::described(env!("CARGO_MANIFEST_DIR"), name, &format!("the board of {name}"))
}

/// The commands' budget with a deadline no test machine reaches, so that every run samples the
/// same states.
fn budget() -> Budget {
    Budget { deadline: Instant::now() + Duration::from_secs(60), ..Budget::standard() }
}

/// The inference of the game `desc` on `m`, on any engine.
pub fn inferred<M: StateMachine>(desc: &Description, m: &mut M) -> Inference {
    infer(desc, m, budget()).expect("the rules run")
}

/// The true propositions after `moves` (one printed move per role per joint move) from the
/// initial state of `m`.
pub fn after(m: &mut PropnetMachine, moves: &[&[&str]]) -> Vec<String> {
    let mut state = m.initial_state();
    for joint in moves {
        let joint: Vec<u32> =
            joint.iter().enumerate().map(|(r, mv)| m.find_move(r, mv).unwrap_or_else(|| panic!("{mv}"))).collect();
        state = m.next_state(&state, &joint).expect("legal");
    }
    m.state_props(&state)
}
