//! Every corpus game whose propnet builds gets fuzzy goals (but those `TOO_LARGE` names): the instantiated formulas mean
//! exactly what the rules mean (crisply, on random reachable states, against the propnet), and
//! the compiled degrees stay in [0, 1] and agree with the plain evaluator.

use heuristic::{Formulas, FuzzyGoals, Params};
use machine::{random_trajectory, StateMachine};
use propnet::PropnetMachine;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use std::time::{Duration, Instant};

/// Games with a propnet whose goal formulas, instantiated as the rules write them, pass the gate
/// cap, with the figures. Players fall back to plain goal values there.
const TOO_LARGE: [(&str, &str); 1] = [(
    "gt_two_thirds_4p",
    "each role's goal compares its guess with two thirds of the mean of four guesses of 0..100: \
     the formulas join 101^4 guess tuples (1.0e8), past the 4M-gate cap after 20 s",
)];

fn too_large(game: &str) -> bool {
    TOO_LARGE.iter().any(|(g, _)| *g == game)
}

#[test]
fn every_corpus_game_with_a_propnet_gets_fuzzy_goals_that_mean_its_goals() {
    let Some(shared) = testkit::shared::locate(env!("CARGO_MANIFEST_DIR"), "fuzzy goals on the corpus") else {
        return;
    };
    let mut failures = Vec::new();
    let mut skipped = Vec::new();
    let mut games = 0;
    for file in testkit::shared::games_with_propnet(&shared) {
        let name = file.file_stem().unwrap_or_default().to_string_lossy().into_owned();
        let text = testkit::shared::read_text(&file).expect("readable game");
        let (desc, _) = gdl::load(&name, &text).expect("valid game");
        let limits = propnet::Limits { deadline: Some(Instant::now() + Duration::from_secs(30)), ..Default::default() };
        let Ok(net) = propnet::compile(&desc, &limits) else { continue };
        let formulas = match Formulas::new(&desc, &net, &limits) {
            Ok(f) => f,
            Err(heuristic::Error::TooLarge(_)) if too_large(&name) => {
                skipped.push(name);
                continue;
            }
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let params = Params::default();
        let mut goals = FuzzyGoals::compile(&formulas, &params).expect("valid parameters");
        games += 1;
        let mut m = PropnetMachine::new(&net);
        let mut rng = SmallRng::seed_from_u64(3);
        let initial = m.initial_state();
        let deadline = Instant::now() + Duration::from_millis(100);
        let mut states = 0;
        while Instant::now() < deadline && states < 100 {
            for state in random_trajectory(&mut m, &initial, &mut rng, 300).expect("random game") {
                if Instant::now() > deadline {
                    break;
                }
                states += 1;
                let crisp = formulas.crisp(&state);
                for (role, values) in formulas.goals().iter().enumerate() {
                    let holds: Vec<u32> = values.iter().filter(|&&(_, n)| crisp[n as usize]).map(|&(v, _)| v).collect();
                    let expected = m.goal_values(&state, role).expect("goal values");
                    if holds != expected {
                        failures.push(format!("{name}: role {role}: formulas give {holds:?}, the net {expected:?}"));
                    }
                }
                let degrees = goals.degrees(&state);
                // The plain evaluator is slow on the largest formulas: a few states suffice.
                let plain = (states <= 3).then(|| formulas.evaluate(&state, &params));
                for (role, values) in formulas.goals().iter().enumerate() {
                    for (k, &(_, node)) in values.iter().enumerate() {
                        let d = degrees[role][k].degree;
                        let reference = plain.as_ref().map_or(d, |p| p[node as usize]);
                        if !(0.0..=1.0).contains(&d) || (d - reference).abs() > 1e-9 {
                            failures.push(format!("{name}: degree {d} vs plain {reference}"));
                        }
                    }
                }
                for v in goals.values(&state) {
                    if !(0.0..=100.0).contains(&v) {
                        failures.push(format!("{name}: heuristic value {v}"));
                    }
                }
            }
        }
        failures.dedup();
    }
    assert!(games >= 50, "only {games} corpus games checked");
    let listed: Vec<&str> = TOO_LARGE.iter().map(|(g, _)| *g).collect();
    assert_eq!(skipped, listed, "exactly the games listed in TOO_LARGE have formulas past the cap");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
