//! Soundness of the locality analysis on random play: swapping one role's move for another
//! changes the next state only inside the two moves' footprints, and no disjunct of a watched
//! condition comes true sooner than its bound on the moves it needs.

use analysis::Locality;
use machine::{random_trajectory, StateMachine};
use propnet::{Net, PropnetMachine, PropnetState};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::time::{Duration, Instant};

fn check(name: &str, net: &Net, budget: Duration, violations: &mut Vec<String>) {
    let Some(l) = Locality::analyse(net, Some(Instant::now() + Duration::from_secs(5))) else { return };
    if l.conditions.is_empty() {
        return;
    }
    let mut m = PropnetMachine::new(net);
    let mut rng = SmallRng::seed_from_u64(5);
    let initial = m.initial_state();
    let deadline = Instant::now() + budget;
    while Instant::now() < deadline && violations.len() < 10 {
        let states: Vec<PropnetState> = random_trajectory(&mut m, &initial, &mut rng, 300).expect("random game");
        for s in &states {
            if m.is_terminal(s).expect("terminal") {
                continue;
            }
            let legal: Vec<Vec<u32>> = (0..net.roles.len()).map(|r| m.legal_moves(s, r).expect("legal")).collect();
            let joint: Vec<u32> = legal.iter().map(|ms| ms[rng.random_range(0..ms.len())]).collect();
            let next = m.next_state(s, &joint).expect("next");
            for (r, moves) in legal.iter().enumerate() {
                for &other in moves.iter().filter(|&&o| o != joint[r]) {
                    let mut swapped = joint.clone();
                    swapped[r] = other;
                    let alt = m.next_state(s, &swapped).expect("next");
                    for b in 0..net.bases.len() {
                        let inside = [joint[r], other]
                            .iter()
                            .any(|&j| l.footprint[j as usize].binary_search(&(b as u32)).is_ok());
                        if next.contains(b) != alt.contains(b) && !inside {
                            violations.push(format!(
                                "{name}: {} instead of {} changes {} outside both footprints",
                                net.moves[other as usize].name, net.moves[joint[r] as usize].name, net.bases[b].name
                            ));
                        }
                    }
                }
            }
        }
        for c in &l.conditions {
            for d in c.disjuncts.iter().flatten() {
                let holds = |s: &PropnetState| d.literals.iter().all(|&(b, v)| s.contains(b as usize) == v);
                for (t, s) in states.iter().enumerate() {
                    let bound = l.moves_needed(d, s.words());
                    if let Some(when) = states[t..].iter().position(holds) {
                        if (when as u32) < bound {
                            violations.push(format!(
                                "{name}: a disjunct of {} held {when} moves on, sooner than the bound {bound}",
                                analysis::describe(net, c.outcome)
                            ));
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn footprints_and_move_bounds_hold_on_random_play_of_bundled_games() {
    let mut violations = Vec::new();
    for game in ["breakthrough", "breakthroughsmall", "connectfour", "tictactoe"] {
        check(game, &testkit::bundled(game).1, Duration::from_millis(400), &mut violations);
    }
    assert!(violations.is_empty(), "{violations:#?}");
}

#[test]
fn footprints_and_move_bounds_hold_on_random_play_of_corpus_games() {
    let Some(shared) = testkit::shared::locate(env!("CARGO_MANIFEST_DIR"), "locality soundness") else { return };
    let mut violations = Vec::new();
    for file in testkit::shared::games_with_propnet(&shared) {
        let text = testkit::shared::read_text(&file).expect("readable game");
        let (desc, _) = gdl::load(&file.display().to_string(), &text).expect("valid game");
        let limits = propnet::Limits { deadline: Some(Instant::now() + Duration::from_secs(30)), ..Default::default() };
        let Ok(net) = propnet::compile(&desc, &limits) else { continue };
        if net.roles.len() != 2 {
            continue;
        }
        check(&testkit::shared::stem(&file), &net, Duration::from_millis(200), &mut violations);
    }
    assert!(violations.is_empty(), "{violations:#?}");
}
