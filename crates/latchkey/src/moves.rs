//! Joint moves given on the command line (`--moves`) or read from a record of a match, played
//! from the initial state.

use anyhow::{bail, Result};
use machine::StateMachine;

/// Plays `moves` from the initial state of `m`, one move per role in each joint move (in the
/// order of the roles), and returns the state reached with a line saying how it was reached.
pub fn play<M: StateMachine>(m: &mut M, moves: &[String]) -> Result<(M::State, String)> {
    let roles = m.roles().to_vec();
    let per_step = roles.len().max(1);
    if moves.len() / per_step * per_step != moves.len() {
        bail!(
            "--moves takes one move per role for each joint move ({} roles: {}), but {} {} given",
            roles.len(),
            roles.join(", "),
            moves.len(),
            if moves.len() == 1 { "move was" } else { "moves were" }
        );
    }
    let state = walk(m, moves.chunks(per_step), |_, _| {})?;
    let steps = moves.len() / per_step;
    let how = match steps {
        0 => "initial state".to_owned(),
        _ => {
            let played: Vec<String> = moves.iter().filter_map(|mv| gdl::canonical_term(mv)).collect();
            format!("after {steps} joint move{}: {}", if steps == 1 { "" } else { "s" }, played.join(" "))
        }
    };
    Ok((state, how))
}

/// Plays the joint moves `joints` (KIF, one move per role) from the initial state of `m`, showing
/// `visit` every state from the initial one on, and returns the last. A move that is not a
/// ground term, or not legal where it is played, is an error naming its joint move (from 1).
pub fn walk<'a, M: StateMachine>(
    m: &mut M,
    joints: impl IntoIterator<Item = &'a [String]>,
    mut visit: impl FnMut(&mut M, &M::State),
) -> Result<M::State> {
    let roles = m.roles().to_vec();
    let mut state = m.initial_state();
    visit(m, &state);
    for (step, joint) in joints.into_iter().enumerate() {
        if joint.len() != roles.len() {
            bail!("joint move {}: {} moves for {} roles", step + 1, joint.len(), roles.len());
        }
        if m.is_terminal(&state)? {
            bail!("joint move {}: the game is already over", step + 1);
        }
        let mut chosen = Vec::new();
        for (role, text) in joint.iter().enumerate() {
            let Some(name) = gdl::canonical_term(text) else {
                bail!("move {} of joint move {}: {text:?} is not a ground KIF term", role + 1, step + 1)
            };
            match m.legal_move(&state, role, &name)? {
                Some(mv) => chosen.push(mv),
                None => {
                    let legal = m.legal_moves(&state, role)?;
                    let options: Vec<String> = legal.iter().map(|mv| m.format_move(mv)).collect();
                    bail!(
                        "joint move {}: {name} is not a legal move of {} (legal: {})",
                        step + 1,
                        roles[role],
                        if options.is_empty() { "none".to_owned() } else { options.join(" ") }
                    );
                }
            }
        }
        state = m.next_state(&state, &chosen)?;
        visit(m, &state);
    }
    Ok(state)
}
