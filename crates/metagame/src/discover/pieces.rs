//! How [`Pieces`] are found: uniformly random games, and the groups whose final counts go with
//! the roles' scores (the rules are in the `pieces` module's header).

use crate::material::{candidates, Group, Kind};
use crate::placement::{Placement, Positions};
use crate::playout::{self, Settings};
use crate::{PieceKind, PieceSet, Pieces, Rejected};
use machine::StateMachine;
use propnet::{Net, PropnetMachine};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use stats::{confirmation_threshold, correlation, correlation_threshold, halves};
use std::time::{Duration, Instant};
use structures::bits::count;

/// Random games sampled, at most.
const MAX_GAMES: usize = 4000;

/// Joint moves after which a sampled game is abandoned.
const MAX_STEPS: u32 = 1000;

/// The least share of joint moves that leave a group's count unchanged for it to count pieces.
const MIN_STEADY: f64 = 0.5;

/// The least share of the joint moves that keep the count of a group's whole relation that
/// must keep the group's count too: a piece that moves stays a piece of its side, while a row
/// or a column of the board gains and loses what moves through it.
const MIN_KEPT: f64 = 0.9;

/// The fewest propositions a group of pieces has (a board of pieces, not a score or a flag).
const MIN_PIECES: u32 = 6;

/// The most kinds a role's pieces are told apart into (chess has six; a board's rows or
/// columns, which also fix an argument, are not kinds).
const MAX_KINDS: usize = 12;

/// The most words of sampled positions kept for the placement's fit (16 MiB).
const MAX_POSITION_WORDS: usize = 1 << 21;

/// Every how many joint moves of a sampled game's second half a position is kept for the
/// placement's fit (the first half of a random game says little about its end).
const POSITION_STRIDE: usize = 2;

impl Pieces {
    /// The time to give [`discover`](Self::discover) where the clock allows: enough for its
    /// 4,000 games in Breakthrough (about two seconds), where a second's games are few enough
    /// for the pawns' weak correlation with the score to be missed now and then.
    pub const TIME: Duration = Duration::from_secs(3);

    /// Plays uniformly random games of `net` until `deadline` (at most [`MAX_GAMES`]) and keeps
    /// every role's pieces if there are two roles or more and each has some, as the `pieces`
    /// module's header describes; otherwise says why not.
    pub fn discover(net: &Net, deadline: Instant, seed: u64) -> Result<Pieces, Rejected> {
        let roles = net.roles.len();
        // The balance is a difference between roles: a single role's is always even.
        if roles < 2 {
            return Err(Rejected::OneRole);
        }
        let candidates = candidates(net);
        if candidates.is_empty() {
            return Err(Rejected::NoCandidates);
        }
        let kinds: Vec<Kind> = candidates.iter().map(Group::kind).collect();
        let samples = sample(net, &candidates, &wholes(&kinds), deadline, seed);
        let games = samples.games.len();
        let (fit, check) = halves(&samples.games);
        if fit.len() < 20 || check.len() < 20 {
            return Err(Rejected::FewGames(games));
        }
        let kept = |g: usize| samples.kept[g].0 as f64 >= MIN_KEPT * samples.kept[g].1.max(1) as f64;
        // An argument position names a piece's kind only if every group fixing it keeps its
        // count as pieces do (rows of a board fail in the middle of it).
        let steady: Vec<bool> = (0..candidates.len())
            .map(|g| {
                samples.unchanged[g] as f64 >= MIN_STEADY * samples.steps.max(1) as f64
                    && candidates[g].mask.iter().map(|w| w.count_ones()).sum::<u32>() >= MIN_PIECES
                    && (0..candidates.len()).filter(|&h| kinds[h] == kinds[g]).all(kept)
            })
            .collect();
        if !steady.contains(&true) {
            return Err(Rejected::NoCandidates);
        }
        let corr = |set: &[&Game], g: usize, r: usize| {
            let x: Vec<f64> = set.iter().map(|s| s.counts[g]).collect();
            let y: Vec<f64> = set.iter().map(|s| s.scores[r]).collect();
            correlation(&x, &y)
        };
        let mut sets = Vec::with_capacity(roles);
        for r in 0..roles {
            let threshold = correlation_threshold(fit.len());
            let best = (0..candidates.len())
                .filter(|&g| steady[g])
                .map(|g| (g, corr(&fit, g, r)))
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .ok_or(Rejected::NoCandidates)?;
            if best.1 < threshold {
                return Err(Rejected::Uncounted { role: r, correlation: best.1, threshold });
            }
            let holdout = corr(&check, best.0, r);
            let threshold = confirmation_threshold(check.len());
            if holdout < threshold {
                return Err(Rejected::NotHeldOut { role: r, correlation: holdout, threshold });
            }
            let alike = PieceSet {
                group: candidates[best.0].clone(),
                kinds: Vec::new(),
                correlation: best.1,
                holdout_correlation: holdout,
            };
            let valued = kinds_of(best.0, &candidates, &kinds, &kept, &samples).and_then(|kinds| {
                let set = PieceSet { kinds, ..alike.clone() };
                let worth = |set_of: &[&Game]| -> Vec<f64> { set_of.iter().map(|g| set.worth(&g.end)).collect() };
                let score = |set_of: &[&Game]| -> Vec<f64> { set_of.iter().map(|g| g.scores[r]).collect() };
                let (chosen, held) =
                    (correlation(&worth(&fit), &score(&fit)), correlation(&worth(&check), &score(&check)));
                (chosen > alike.correlation && held >= confirmation_threshold(check.len())).then_some(PieceSet {
                    correlation: chosen,
                    holdout_correlation: held,
                    ..set
                })
            });
            sets.push(valued.unwrap_or(alike));
        }
        if sets.iter().all(|s| s.group.mask == sets[0].group.mask) {
            return Err(Rejected::Alike);
        }
        let groups: Vec<&Group> = sets.iter().map(|s| &s.group).collect();
        let scores: Vec<Vec<f64>> = samples.games.iter().map(|g| g.scores.clone()).collect();
        let placement = Placement::fit(&groups, &candidates, &samples.positions, &scores);
        Ok(Pieces { sets, games, placement })
    }
}

/// One sampled game: every candidate's final count, the final state's words and every role's
/// score (0..1).
struct Game {
    counts: Vec<f64>,
    end: Vec<u64>,
    scores: Vec<f64>,
}

/// Sampled games and positions from them, and per candidate the joint moves that left its
/// count unchanged, (of those that left its whole relation's count unchanged) how many kept
/// its own count and how many there were, its count summed over the states moved from, and the
/// joint moves that moved one of its pieces (its count kept, its propositions changed).
struct Samples {
    games: Vec<Game>,
    positions: Positions,
    unchanged: Vec<u64>,
    kept: Vec<(u64, u64)>,
    present: Vec<u64>,
    moved: Vec<u64>,
    steps: u64,
}

/// Candidate `g`'s pieces told apart by kind, each worth its mobility: at the first argument
/// position other than the one `g` fixes where every group fixing it keeps its count as pieces
/// do (`kept`), and there are two to [`MAX_KINDS`] such groups covering `g` between them, the
/// kinds are `g`'s propositions with each value there. A kind's mobility is the share of joint
/// moves that moved a piece of its value (of either side: the group fixing that value alone)
/// per piece present; in uniformly random play a piece moves about as often as it has moves,
/// so this is how many moves a piece of the kind has, up to a factor common to all. Values are
/// scaled so that the least mobile kind's pieces are worth one. None where no position gives
/// kinds or a kind never moved.
fn kinds_of(
    g: usize,
    candidates: &[Group],
    kinds: &[Kind],
    kept: &impl Fn(usize) -> bool,
    samples: &Samples,
) -> Option<Vec<PieceKind>> {
    let own = &kinds[g];
    let parts = propnet::net::name_parts(&candidates[g].name);
    'position: for p in (0..own.arity).filter(|&p| Some(p) != own.fixed) {
        let fixing: Vec<usize> = (0..candidates.len())
            .filter(|&h| kinds[h].relation == own.relation && kinds[h].arity == own.arity && kinds[h].fixed == Some(p))
            .collect();
        if fixing.len() < 2 || fixing.len() > MAX_KINDS || !fixing.iter().all(|&h| kept(h)) {
            continue;
        }
        let mut out = Vec::new();
        let mut covered = vec![0u64; candidates[g].mask.len()];
        for &h in &fixing {
            let mask: Vec<u64> = candidates[g].mask.iter().zip(&candidates[h].mask).map(|(a, b)| a & b).collect();
            if mask.iter().all(|&w| w == 0) {
                continue;
            }
            if samples.moved[h] == 0 || samples.present[h] == 0 {
                continue 'position;
            }
            for (c, m) in covered.iter_mut().zip(&mask) {
                *c |= m;
            }
            let value = propnet::net::name_parts(&candidates[h].name)[p + 1];
            let named: Vec<&str> = parts.iter().enumerate().map(|(i, &a)| if i == p + 1 { value } else { a }).collect();
            let mobility = samples.moved[h] as f64 / samples.present[h] as f64;
            out.push(PieceKind { group: Group { name: format!("({})", named.join(" ")), mask }, value: mobility });
        }
        if out.len() < 2 || covered != candidates[g].mask {
            continue;
        }
        let least = out.iter().map(|k| k.value).fold(f64::INFINITY, f64::min);
        for k in &mut out {
            k.value /= least;
        }
        return Some(out);
    }
    None
}

/// Per candidate (by its kind), the index of the candidate that is its whole relation (itself,
/// for one).
fn wholes(kinds: &[Kind]) -> Vec<usize> {
    let index: std::collections::HashMap<(&str, usize), usize> = kinds
        .iter()
        .enumerate()
        .filter(|(_, k)| k.fixed.is_none())
        .map(|(i, k)| ((k.relation.as_str(), k.arity), i))
        .collect();
    kinds.iter().enumerate().map(|(i, k)| index.get(&(k.relation.as_str(), k.arity)).copied().unwrap_or(i)).collect()
}

/// Uniformly random games from the initial state until `deadline`.
fn sample(net: &Net, candidates: &[Group], wholes: &[usize], deadline: Instant, seed: u64) -> Samples {
    let mut m = PropnetMachine::new(net);
    let mut rng = SmallRng::seed_from_u64(seed);
    let roles = net.roles.len();
    let initial = m.initial_state();
    let settings = Settings::traced(MAX_STEPS, deadline);
    let mut out = Samples {
        games: Vec::new(),
        positions: Positions::new(initial.words().len()),
        unchanged: vec![0; candidates.len()],
        kept: vec![(0, 0); candidates.len()],
        present: vec![0; candidates.len()],
        moved: vec![0; candidates.len()],
        steps: 0,
    };
    let counts = |words: &[u64]| -> Vec<u32> { candidates.iter().map(|g| count(&g.mask, words)).collect() };
    while out.games.len() < MAX_GAMES && Instant::now() < deadline {
        let Ok(Some(outcome)) = playout::random(&mut m, &initial, &mut rng, &settings) else { break };
        if !outcome.complete || outcome.moves.is_empty() {
            continue;
        }
        let mut state = initial.clone();
        let mut last = counts(state.words());
        let game = out.games.len() as u32;
        let length = outcome.moves.len() / roles;
        let half = length / 2;
        for (step, joint) in outcome.moves.chunks(roles).enumerate() {
            let Ok(next) = m.next_state(&state, joint) else { break };
            let before = std::mem::replace(&mut state, next);
            let room = out.positions.words.len() + state.words().len() <= MAX_POSITION_WORDS;
            // The ended state is left out: search never values it by its pieces.
            if step >= half && step + 1 < length && step % POSITION_STRIDE == 0 && room {
                out.positions.words.extend_from_slice(state.words());
                out.positions.game.push(game);
            }
            let now = counts(state.words());
            let changed: Vec<u64> = before.words().iter().zip(state.words()).map(|(a, b)| a ^ b).collect();
            for (g, (a, b)) in last.iter().zip(&now).enumerate() {
                out.unchanged[g] += u64::from(a == b);
                out.present[g] += u64::from(*a);
                let touched = candidates[g].mask.iter().zip(&changed).any(|(m, c)| m & c != 0);
                out.moved[g] += u64::from(a == b && touched);
                if last[wholes[g]] == now[wholes[g]] {
                    out.kept[g].0 += u64::from(a == b);
                    out.kept[g].1 += 1;
                }
            }
            out.steps += 1;
            last = now;
        }
        let scores = outcome.scores.iter().map(|&s| f64::from(s) / 100.0).collect();
        let end = state.words().to_vec();
        out.games.push(Game { counts: last.into_iter().map(f64::from).collect(), end, scores });
    }
    out
}
