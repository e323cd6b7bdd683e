//! Every corpus game whose propnet builds gets fuzzy goals: the instantiated formulas mean
//! exactly what the rules mean (crisply, on random reachable states, against the propnet), and
//! the compiled degrees stay in [0, 1] and agree with the plain evaluator.

use heuristic::{Formulas, FuzzyGoals, Params};
use machine::StateMachine;
use propnet::{PropnetMachine, PropnetState};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::time::{Duration, Instant};

/// The states of one random game from the initial state (at most `max_steps` joint moves).
fn random_trajectory(m: &mut PropnetMachine, rng: &mut SmallRng, max_steps: usize) -> Vec<PropnetState> {
    let mut states = vec![m.initial_state()];
    for _ in 0..max_steps {
        let state = states.last().expect("never empty");
        if m.is_terminal(state).expect("terminal") {
            break;
        }
        let mut joint = Vec::new();
        for role in 0..m.roles().len() {
            let legal = m.legal_moves(state, role).expect("legal moves");
            if legal.is_empty() {
                return states;
            }
            joint.push(legal[rng.random_range(0..legal.len())]);
        }
        let next = m.next_state(state, &joint).expect("next state");
        states.push(next);
    }
    states
}

#[test]
fn every_corpus_game_with_a_propnet_gets_fuzzy_goals_that_mean_its_goals() {
    let Some(shared) = machine::shared::locate(env!("CARGO_MANIFEST_DIR"), "fuzzy goals on the corpus") else {
        return;
    };
    let mut failures = Vec::new();
    let mut games = 0;
    for file in machine::shared::files(&shared.join("games"), "kif") {
        let name = file.file_stem().unwrap_or_default().to_string_lossy().into_owned();
        let text = machine::shared::read_text(&file).expect("readable game");
        let (desc, _) = gdl::load(&name, &text).expect("valid game");
        let limits = propnet::Limits { deadline: Some(Instant::now() + Duration::from_secs(60)), ..Default::default() };
        // One grounding serves the net and the formulas (only its relaxed model is read).
        let Ok(grounded) = propnet::ground::ground(&desc, &limits) else { continue };
        let Ok(net) = propnet::build::build(&grounded) else { continue };
        let net = propnet::optimize::optimize(&net).0;
        let formulas = match Formulas::from_model(&desc, grounded, &net, &limits) {
            Ok(f) => f,
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
        let deadline = Instant::now() + Duration::from_millis(100);
        let mut states = 0;
        while Instant::now() < deadline && states < 100 {
            for state in random_trajectory(&mut m, &mut rng, 300) {
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
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
