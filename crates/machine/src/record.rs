//! Recording reference data from one of our own engines, the way the GGP-Base data was recorded:
//! for seed `s`, one [`JavaRandom`] `new Random(s)` picks, at every step and for each role in
//! role order, `legal[rng.nextInt(legal.len())]` from the sorted printed legal moves.
//!
//! With the same rules and a correct engine, the result equals the prover's trajectories, so it
//! can be diffed against a reference file, or used to compare two of our engines with
//! [`conform`](crate::conform::conform).

use std::collections::BTreeMap;

use crate::conform::{printed_legal, printed_state};
use crate::java_random::JavaRandom;
use crate::reference::{Final, Header, Reference, Step, Trajectory, NO_LEGAL_MOVE_PREFIX};
use crate::{MachineError, StateMachine};

/// Records one trajectory per seed (at most `max_steps` joint moves each); perft is left empty
/// (fill `header.perft` from [`perft`](crate::perft::perft) if wanted).
pub fn record<M: StateMachine>(
    m: &mut M,
    game: &str,
    seeds: impl IntoIterator<Item = i64>,
    max_steps: usize,
) -> Result<Reference, MachineError> {
    let roles: Vec<String> = m.roles().iter().map(|r| r.to_lowercase()).collect();
    let trajectories =
        seeds.into_iter().map(|seed| record_trajectory(m, &roles, seed, max_steps)).collect::<Result<_, _>>()?;
    let header =
        Header { game: game.to_owned(), source: "latchkey".to_owned(), roles, perft: Vec::new(), notes: Vec::new() };
    Ok(Reference { header, trajectories })
}

/// Records the trajectory of `seed`.
fn record_trajectory<M: StateMachine>(
    m: &mut M,
    roles: &[String],
    seed: i64,
    max_steps: usize,
) -> Result<Trajectory, MachineError> {
    let mut rng = JavaRandom::new(seed);
    let mut state = m.initial_state();
    let mut steps = Vec::new();
    let end = loop {
        let props = printed_state(m, &state);
        if m.is_terminal(&state)? {
            break terminal_final(m, &state, roles, props);
        }
        if steps.len() >= max_steps {
            break cut_final(props, None);
        }
        let legal = (0..roles.len()).map(|r| printed_legal(m, &state, r)).collect::<Result<Vec<_>, _>>()?;
        if let Some(r) = legal.iter().position(Vec::is_empty) {
            break cut_final(props, Some(format!("{NO_LEGAL_MOVE_PREFIX}{}", roles[r])));
        }
        let (step, joint) = choose(&mut rng, roles, props, legal)?;
        state = m.next_state(&state, &joint)?;
        steps.push(step);
    };
    Ok(Trajectory { seed, steps, end })
}

/// Picks each role's move with `rng` and builds the step record; also returns the joint move.
fn choose<Mv: Clone>(
    rng: &mut JavaRandom,
    roles: &[String],
    state: Vec<String>,
    legal: Vec<Vec<(String, Mv)>>,
) -> Result<(Step, Vec<Mv>), MachineError> {
    let mut moves = Vec::with_capacity(roles.len());
    let mut joint = Vec::with_capacity(roles.len());
    for options in &legal {
        let i = rng.next_index(options.len()).ok_or_else(|| MachineError::Rules("too many legal moves".into()))?;
        let (text, mv) = &options[i];
        moves.push(text.clone());
        joint.push(mv.clone());
    }
    let legal = roles.iter().cloned().zip(legal.into_iter().map(|l| l.into_iter().map(|(t, _)| t).collect())).collect();
    Ok((Step { state, legal, moves, terminal: false }, joint))
}

/// The final record of a terminal state: goals, with `null` and all values where not unique.
fn terminal_final<M: StateMachine>(m: &mut M, state: &M::State, roles: &[String], props: Vec<String>) -> Final {
    let mut goals = BTreeMap::new();
    let mut goal_values = BTreeMap::new();
    for (r, role) in roles.iter().enumerate() {
        let goal = m.goal(state, r).ok();
        if goal.is_none() {
            goal_values.insert(role.clone(), m.goal_values(state, r).unwrap_or_default());
        }
        goals.insert(role.clone(), goal);
    }
    Final { state: props, terminal: Some(true), truncated: false, reason: None, goals: Some(goals), goal_values }
}

/// The final record of a trajectory cut off in a non-terminal state.
fn cut_final(props: Vec<String>, reason: Option<String>) -> Final {
    Final { state: props, terminal: Some(false), truncated: true, reason, goals: None, goal_values: BTreeMap::new() }
}
