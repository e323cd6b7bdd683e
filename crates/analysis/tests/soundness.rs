//! Soundness: no latch reported on any corpus game is ever violated along random trajectories.

use machine::StateMachine;
use propnet::PropnetMachine;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::HashSet;
use std::time::{Duration, Instant};

#[test]
fn reported_latches_hold_on_random_trajectories_of_every_corpus_game() {
    let Some(shared) = machine::shared::locate(env!("CARGO_MANIFEST_DIR"), "latch soundness") else { return };
    let mut violations = Vec::new();
    let mut checked = 0;
    for file in machine::shared::files(&shared.join("games"), "kif") {
        let text = machine::shared::read_text(&file).expect("readable game");
        let (desc, _) = gdl::load(&file.display().to_string(), &text).expect("valid game");
        let limits =
            propnet::Limits { deadline: Some(Instant::now() + Duration::from_secs(120)), ..Default::default() };
        let Ok(net) = propnet::build(&desc, &limits) else { continue };
        let net = propnet::optimize::optimize(&net).0;
        let mut latches = analysis::structural_latches(&net);
        latches.extend(analysis::exact_latches(&net, 16));
        let mut m = PropnetMachine::new(&net);
        let mut rng = SmallRng::seed_from_u64(7);
        let deadline = Instant::now() + Duration::from_millis(300);
        while Instant::now() < deadline {
            let mut state = m.initial_state();
            for _ in 0..500 {
                if m.is_terminal(&state).expect("terminal") {
                    break;
                }
                let mut joint = Vec::new();
                for role in 0..m.roles().len() {
                    let legal = m.legal_moves(&state, role).expect("legal");
                    if legal.is_empty() {
                        break;
                    }
                    joint.push(legal[rng.random_range(0..legal.len())]);
                }
                if joint.len() < m.roles().len() {
                    break;
                }
                let next = m.next_state(&state, &joint).expect("next");
                let (before, after): (HashSet<String>, HashSet<String>) =
                    (m.state_props(&state).into_iter().collect(), m.state_props(&next).into_iter().collect());
                for l in &latches {
                    let broken = match l.kind {
                        analysis::LatchKind::Positive => before.contains(&l.name) && !after.contains(&l.name),
                        analysis::LatchKind::Negative => !before.contains(&l.name) && after.contains(&l.name),
                    };
                    if broken {
                        violations.push(format!("{}: {l:?}", file.display()));
                    }
                }
                checked += 1;
                state = next;
            }
        }
    }
    assert!(checked > 1000, "too few transitions checked: {checked}");
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}
