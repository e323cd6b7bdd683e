//! Guided playouts stepped 64 candidates a pass (a `Stepper` over the game's net, several
//! playouts side by side in its lanes) are the playouts stepped one state at a time: the same
//! moves, scores and ends for the same seeds, tactics, goal latches, captures and cut-offs
//! included.

use analysis::GoalLatches;
use machine::StateMachine;
use metagame::playout::{self, Cutoff, Lookahead, Settings};
use metagame::{Knowledge, Pieces};
use propnet::{Net, PropnetMachine, PropnetState};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `net`'s goal latches from its structural and exact latches.
fn goal_latches(net: &Net) -> GoalLatches {
    let mut latches = analysis::structural_latches(net);
    latches.extend(analysis::exact_latches(net, 16, &[]));
    GoalLatches::new(net, &latches, None)
}

/// Random states of `net`'s game to start playouts from: the initial state and states along
/// random games.
fn starts(m: &mut PropnetMachine, count: usize) -> Vec<PropnetState> {
    let initial = m.initial_state();
    let mut rng = SmallRng::seed_from_u64(11);
    let mut out = vec![initial.clone()];
    while out.len() < count {
        let mut state = initial.clone();
        for _ in 0..rng.random_range(1..40) {
            if m.is_terminal(&state).expect("a state") {
                break;
            }
            let joint: Option<Vec<u32>> = (0..m.roles().len())
                .map(|r| {
                    let legal = m.legal_moves(&state, r).expect("a state");
                    (!legal.is_empty()).then(|| legal[rng.random_range(0..legal.len())])
                })
                .collect();
            let Some(joint) = joint else { break };
            state = m.next_state(&state, &joint).expect("legal moves");
        }
        out.push(state);
    }
    out
}

#[test]
fn stepped_guided_playouts_are_the_one_state_ones() {
    let games = [
        "ticTacToe",
        "connectFour",
        "breakthrough",
        "knightThrough",
        "escortLatch",
        "alquerque",
        "skirmish",
        "checkers",
        "pentago",
        "dotsAndBoxes",
        "biddingTicTacToe",
        "sheepAndWolf",
    ];
    let mut played = 0;
    for stem in games {
        let Some(net) = testkit::shared::net(env!("CARGO_MANIFEST_DIR"), stem) else { continue };
        let mut m = PropnetMachine::new(&net);
        let pieces = Pieces::discover(&net, Instant::now() + Duration::from_secs(5), 1).ok();
        let root = m.initial_state();
        let starts = starts(&mut m, 8);
        for tactics in [true, false] {
            let mut knowledge = Knowledge::new(&net, goal_latches(&net), tactics);
            if let Some(p) = pieces.clone() {
                knowledge = knowledge.with_pieces(&net, p);
            }
            let cutoffs = [None, Some(Cutoff { steps: 6, root: Arc::from(root.words()), placement: 1.0 })];
            for (c, cutoff) in cutoffs.into_iter().enumerate() {
                let settings = Settings {
                    max_steps: 300,
                    trace: true,
                    knowledge: None,
                    deadline: None,
                    mast: None,
                    cutoff,
                    captures: if c == 1 { 0.5 } else { 0.0 },
                };
                let (mut stepped, mut one) = (Lookahead::stepped(), Lookahead::one_state_at_a_time());
                let mut single = PropnetMachine::from_program(Arc::clone(m.program()));
                // Batches of playouts, the first stepped one at a time (no mover seen yet), the
                // others side by side in groups of lanes.
                for seed in 0..4u64 {
                    let mut rng = SmallRng::seed_from_u64(seed);
                    let a = playout::guided_each(&mut m, &mut stepped, &starts, &knowledge, &mut rng, &settings)
                        .expect("plays");
                    let mut rng = SmallRng::seed_from_u64(seed);
                    let b = playout::guided_each(&mut single, &mut one, &starts, &knowledge, &mut rng, &settings)
                        .expect("plays");
                    for (i, (a, b)) in a.into_iter().zip(b).enumerate() {
                        let (a, b) = (a.expect("no deadline"), b.expect("no deadline"));
                        let what = format!("{stem}, tactics {tactics}, variant {c}, start {i}, seed {seed}");
                        assert_eq!(a.moves, b.moves, "{what}: the moves differ");
                        assert_eq!((a.scores, a.complete), (b.scores, b.complete), "{what}");
                        played += 1;
                    }
                }
                assert_eq!(stepped.counts(), one.counts(), "{stem}: the tactics fired as often");
            }
        }
    }
    if testkit::shared::net(env!("CARGO_MANIFEST_DIR"), "breakthrough").is_some() {
        assert!(played >= 1000, "only {played} playouts compared");
    }
}
