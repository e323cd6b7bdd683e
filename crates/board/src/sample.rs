//! The states a board is inferred from: the initial state and random games from it, each
//! state's true propositions, and which roles chose the joint move that led to it.

use machine::{MachineError, StateMachine};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// How much to sample.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Random games played from the initial state.
    pub games: usize,
    /// Joint moves per game at most.
    pub steps: usize,
    /// Legal moves listed, all roles and games together, after which no more is sampled: a
    /// game with thousands of moves a turn (amazons) is read from fewer states, the same ones
    /// on any machine.
    pub moves: usize,
    /// When to stop, whatever is left.
    pub deadline: Instant,
}

impl Budget {
    /// What the commands spend: eight games of 200 joint moves at most, 60,000 legal moves
    /// listed at most, for two seconds at most from now.
    pub fn standard() -> Budget {
        Budget { games: 8, steps: 200, moves: 60_000, deadline: Instant::now() + Duration::from_secs(2) }
    }
}

/// One joint move between two sampled states.
#[derive(Debug, Clone)]
pub struct Step {
    /// The state it was played in (an index into [`Samples::states`]).
    pub from: usize,
    /// The state it led to.
    pub to: usize,
    /// The roles that had more than one legal move.
    pub choosers: Vec<usize>,
}

/// Sampled states, their propositions numbered.
#[derive(Debug, Clone, Default)]
pub struct Samples {
    /// Every proposition seen, in canonical KIF; a proposition's id is its index.
    pub props: Vec<String>,
    /// Per state, the ids of its true propositions, ascending.
    pub states: Vec<Vec<u32>>,
    /// The joint moves between consecutive states of a game.
    pub steps: Vec<Step>,
    /// Whether the deadline came before the budget was spent (not the budget of moves listed,
    /// which is spent the same way on any machine).
    pub cut: bool,
}

impl Samples {
    /// The initial state and `budget.games` random games from it on `m`, moves drawn by a
    /// generator seeded with `seed` (so the same budget gives the same samples).
    pub fn collect<M: StateMachine>(m: &mut M, budget: Budget, seed: u64) -> Result<Samples, MachineError> {
        let mut samples = Samples::default();
        let mut ids: HashMap<String, u32> = HashMap::new();
        let mut rng = SmallRng::seed_from_u64(seed);
        let roles = m.roles().len();
        let start = m.initial_state();
        let mut listed = 0;
        'game: for _ in 0..budget.games.max(1) {
            let mut state = start.clone();
            let mut from = samples.add(m, &state, &mut ids);
            for _ in 0..budget.steps {
                if Instant::now() >= budget.deadline {
                    samples.cut = true;
                    return Ok(samples);
                }
                if listed >= budget.moves {
                    break 'game;
                }
                if m.is_terminal(&state)? {
                    break;
                }
                let mut joint = Vec::with_capacity(roles);
                let mut choosers = Vec::new();
                for r in 0..roles {
                    let mut legal = m.legal_moves(&state, r)?;
                    listed += legal.len();
                    // A role without a legal move ends the game there.
                    if legal.is_empty() {
                        continue 'game;
                    }
                    if legal.len() > 1 {
                        choosers.push(r);
                    }
                    joint.push(legal.swap_remove(rng.random_range(0..legal.len())));
                }
                state = m.next_state(&state, &joint)?;
                let to = samples.add(m, &state, &mut ids);
                samples.steps.push(Step { from, to, choosers });
                from = to;
            }
        }
        Ok(samples)
    }

    /// Records `state`'s propositions and returns its index.
    fn add<M: StateMachine>(&mut self, m: &M, state: &M::State, ids: &mut HashMap<String, u32>) -> usize {
        let mut props: Vec<u32> = m
            .state_props(state)
            .into_iter()
            .map(|p| {
                let next = self.props.len() as u32;
                *ids.entry(p).or_insert_with_key(|p| {
                    self.props.push(p.clone());
                    next
                })
            })
            .collect();
        props.sort_unstable();
        self.states.push(props);
        self.states.len() - 1
    }
}
