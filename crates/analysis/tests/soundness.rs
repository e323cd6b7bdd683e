//! Soundness: no latch reported on any corpus game is ever violated along random trajectories.

use machine::{random_trajectory, StateMachine};
use propnet::PropnetMachine;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use std::time::{Duration, Instant};

#[test]
fn reported_latches_hold_on_random_trajectories_of_every_corpus_game() {
    let Some(shared) = testkit::shared::locate(env!("CARGO_MANIFEST_DIR"), "latch soundness") else { return };
    let mut violations = Vec::new();
    let mut checked = 0;
    for file in testkit::shared::games_with_propnet(&shared) {
        let text = testkit::shared::read_text(&file).expect("readable game");
        let (desc, _) = gdl::load(&file.display().to_string(), &text).expect("valid game");
        let limits = propnet::Limits { deadline: Some(Instant::now() + Duration::from_secs(30)), ..Default::default() };
        let Ok(net) = propnet::compile(&desc, &limits) else { continue };
        let mut latches = analysis::structural_latches(&net);
        latches.extend(analysis::exact_latches(&net, 16));
        let mut m = PropnetMachine::new(&net);
        let mut rng = SmallRng::seed_from_u64(7);
        let initial = m.initial_state();
        let deadline = Instant::now() + Duration::from_millis(300);
        while Instant::now() < deadline {
            for pair in random_trajectory(&mut m, &initial, &mut rng, 500).expect("random game").windows(2) {
                let (before, after) = (&pair[0], &pair[1]);
                for l in &latches {
                    let broken = match l.kind {
                        analysis::LatchKind::Positive => before.contains(l.base) && !after.contains(l.base),
                        analysis::LatchKind::Negative => !before.contains(l.base) && after.contains(l.base),
                    };
                    if broken {
                        violations.push(format!("{}: {l:?}", file.display()));
                    }
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "too few transitions checked: {checked}");
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}
