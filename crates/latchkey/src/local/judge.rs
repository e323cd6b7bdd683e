//! `latchkey local --from REPORT --judge`: the local search as a judge of moves made in real
//! matches. At each position where one player alone chose, it searches for the other player's
//! forced win (did the move played lose by force while another move did not?) and for the
//! mover's own (was a forced win there, and did the move played keep it?). Over the matches of
//! a player without the local search, what it flags is what the search would have added to the
//! tree in the same time; over a player with it, what the search did not get in or did not
//! persuade the tree of.

use super::{read_report, Replayed};
use anyhow::Result;
use machine::StateMachine;
use propnet::{PropnetMachine, PropnetState};
use search::LocalSearch;
use serde::Serialize;
use std::time::{Duration, Instant};

/// The shape of `latchkey local --judge --json`.
#[derive(Serialize)]
pub(super) struct Report {
    pub game: String,
    pub local_search: bool,
    pub reason: String,
    /// Seconds of search per position and role.
    pub seconds: f64,
    pub players: Vec<Judged>,
}

/// What the search says of one player's moves.
#[derive(Serialize, Default)]
pub(super) struct Judged {
    player: String,
    /// Positions where it alone chose a move.
    moves: usize,
    /// Positions where every move it had was proved to lose.
    lost: usize,
    /// Moves it played that were proved to lose while some other move was not.
    blunders: Vec<Flagged>,
    /// Positions where it was proved to have a forced win.
    wins: usize,
    /// Of those, the positions where the move it played was not proved to keep the win.
    let_go: Vec<Flagged>,
}

/// One move the search flags.
#[derive(Serialize)]
struct Flagged {
    /// The match (from 1) and the joint move's index in it (from 1).
    game: usize,
    step: usize,
    /// The move played, and the joint moves from it to the end of the match.
    played: String,
    to_end: usize,
    /// The own moves of the winning side within which the search proved the win.
    within: u32,
}

/// Judges the moves of the last `before` joint moves of each match in the report at `path`,
/// searching each position `time` per role, `depth` own moves at most.
pub(super) fn run(
    m: &mut PropnetMachine,
    search: &mut LocalSearch,
    path: &std::path::Path,
    before: usize,
    depth: u32,
    time: Duration,
) -> Result<Vec<Judged>> {
    let (names, matches) = read_report(m, path)?;
    let mut judged: Vec<Judged> = names.iter().map(|n| Judged { player: n.clone(), ..Judged::default() }).collect();
    for (g, record) in matches.iter().enumerate() {
        let Replayed { steps, last, seats } = record;
        for k in steps.len().saturating_sub(before)..steps.len() {
            let (state, joint) = &steps[k];
            let Some(mover) = sole_mover(m, state)? else { continue };
            let Some(player) = seats.get(mover).and_then(|&p| judged.get_mut(p)) else { continue };
            player.moves += 1;
            let played = m.format_move(&joint[mover]);
            let flag =
                |within| Flagged { game: g + 1, step: k + 1, played: played.clone(), to_end: steps.len() - k, within };
            let against = search.search(state, 1 - mover, None, depth, Instant::now() + time)?;
            if against.win.is_some() {
                // Then the mover has no forced win either.
                player.lost += 1;
                continue;
            }
            if let Some(&(_, n)) = against.decided.iter().find(|(mv, _)| *mv == joint[mover]) {
                player.blunders.push(flag(n));
            }
            let own = search.search(state, mover, None, depth, Instant::now() + time)?;
            let Some(n) = own.win else { continue };
            player.wins += 1;
            let next = steps.get(k + 1).map_or(last, |(s, _)| s);
            if !keeps_win(m, search, next, mover, n, time)? {
                player.let_go.push(flag(n));
            }
        }
    }
    Ok(judged)
}

/// The role that alone chooses in `state` (two roles, the other with one legal move), if one
/// does.
fn sole_mover(m: &mut PropnetMachine, state: &PropnetState) -> Result<Option<usize>> {
    if m.roles().len() != 2 || m.is_terminal(state)? {
        return Ok(None);
    }
    let counts = [m.legal_moves(state, 0)?.len(), m.legal_moves(state, 1)?.len()];
    Ok(match counts {
        [a, 1] if a > 1 => Some(0),
        [1, b] if b > 1 => Some(1),
        _ => None,
    })
}

/// Whether `role`, which had a forced win within `own` of its moves, still has one in `next`
/// (the state after its move): the game ended there with it ahead, or the search proves a win
/// within as many moves again.
fn keeps_win(
    m: &mut PropnetMachine,
    search: &mut LocalSearch,
    next: &PropnetState,
    role: usize,
    own: u32,
    time: Duration,
) -> Result<bool> {
    if m.is_terminal(next)? {
        return Ok(m.goal(next, role)? > m.goal(next, 1 - role)?);
    }
    Ok(search.search(next, role, None, own, Instant::now() + time)?.win.is_some())
}

/// The report for people: per player, the counts and the flagged moves.
pub(super) fn print(r: &Report) {
    let verdict = if r.local_search { "on" } else { "off" };
    println!("game     {}", r.game);
    println!("verdict  the player would run the local search: {verdict} ({})", r.reason);
    println!("search   {} s per position and role", r.seconds);
    for p in &r.players {
        println!(
            "\n{}: {} moves judged; {} in positions already lost; {} proved to lose while another move \
             did not; forced wins in {} positions, let go in {}",
            p.player,
            p.moves,
            p.lost,
            p.blunders.len(),
            p.wins,
            p.let_go.len()
        );
        for (what, flagged) in [("loses", &p.blunders), ("lets a win go", &p.let_go)] {
            for f in flagged {
                println!(
                    "  match {} move {} ({} before the end): {} {what} (within {} own moves)",
                    f.game, f.step, f.to_end, f.played, f.within
                );
            }
        }
    }
}
