//! What the corpus soundness tests share: random trajectories on the propnet machine.

use machine::StateMachine;
use propnet::{PropnetMachine, PropnetState};
use rand::Rng;

/// The states of one random game from the initial state: it ends at a terminal state, at a state
/// where some role has no legal move, or after `max_steps` moves.
pub fn random_trajectory(m: &mut PropnetMachine, rng: &mut impl Rng, max_steps: usize) -> Vec<PropnetState> {
    let mut trajectory = vec![m.initial_state()];
    for _ in 0..max_steps {
        let state = trajectory.last().expect("never empty");
        if m.is_terminal(state).expect("terminal") {
            break;
        }
        let mut joint = Vec::new();
        for role in 0..m.roles().len() {
            let legal = m.legal_moves(state, role).expect("legal");
            if legal.is_empty() {
                return trajectory;
            }
            joint.push(legal[rng.random_range(0..legal.len())]);
        }
        let next = m.next_state(state, &joint).expect("next");
        trajectory.push(next);
    }
    trajectory
}
