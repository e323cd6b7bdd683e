//! How [`Pieces`] are found: uniformly random games, and the groups whose final counts go with
//! the roles' scores (the rules are in the `pieces` module's header).

use crate::material::{candidates, Group, Kind};
use crate::placement::{Placement, Positions};
use crate::playout;
use crate::{PieceKind, PieceSet, Pieces, Rejected};
use machine::StateMachine;
use propnet::{Net, PropnetMachine, PropnetState};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use stats::{confirmation_threshold, correlation, correlation_threshold, halves};
use std::collections::BTreeMap;
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

/// The least share of the moves of a group's pieces (where one role alone had a choice) that
/// one role made for the group to be that role's: a blank square "moves" on every role's turn.
const MIN_OWNED: f64 = 0.9;

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
        // The correlation of a set of groups' summed final count with role `r`'s score.
        let corr = |set: &[&Game], members: &[usize], r: usize| {
            let x: Vec<f64> = set.iter().map(|s| members.iter().map(|&g| s.counts[g]).sum()).collect();
            let y: Vec<f64> = set.iter().map(|s| s.scores[r]).collect();
            correlation(&x, &y)
        };
        let mut sets = Vec::with_capacity(roles);
        for r in 0..roles {
            let threshold = correlation_threshold(fit.len());
            let singles = (0..candidates.len()).filter(|&g| steady[g]).map(|g| vec![g]);
            let best = singles
                .chain(unions(&kinds, &steady, &samples, r))
                .map(|members| {
                    let c = corr(&fit, &members, r);
                    (members, c)
                })
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .ok_or(Rejected::NoCandidates)?;
            if best.1 < threshold {
                return Err(Rejected::Uncounted { role: r, correlation: best.1, threshold });
            }
            let holdout = corr(&check, &best.0, r);
            let threshold = confirmation_threshold(check.len());
            if holdout < threshold {
                return Err(Rejected::NotHeldOut { role: r, correlation: holdout, threshold });
            }
            let alike = PieceSet {
                group: union_of(&best.0, &candidates),
                kinds: Vec::new(),
                correlation: best.1,
                holdout_correlation: holdout,
            };
            let told_apart = match &best.0[..] {
                &[g] => kinds_of(g, &candidates, &kinds, &kept, &samples),
                members => members_as_kinds(members, &candidates, &samples),
            };
            let valued = told_apart.and_then(|kinds| {
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
/// score against the others' (0..1, [`relative`]).
struct Game {
    counts: Vec<f64>,
    end: Vec<u64>,
    scores: Vec<f64>,
}

/// Sampled games and positions from them, and per candidate the joint moves that left its
/// count unchanged, (of those that left its whole relation's count unchanged) how many kept
/// its own count and how many there were, its count summed over the states moved from, the
/// joint moves that moved one of its pieces (its count kept, its propositions changed), and of
/// those the ones where a role alone had a choice, by that role.
struct Samples {
    games: Vec<Game>,
    positions: Positions,
    unchanged: Vec<u64>,
    kept: Vec<(u64, u64)>,
    present: Vec<u64>,
    moved: Vec<u64>,
    moved_by: Vec<Vec<u64>>,
    steps: u64,
}

impl Samples {
    /// The role that moves candidate `g`'s pieces: the one that alone had a choice on at least
    /// [`MIN_OWNED`] of the joint moves that moved one of them where a role alone had a choice.
    fn owner(&self, g: usize) -> Option<usize> {
        let alone: u64 = self.moved_by[g].iter().sum();
        let (role, most) = self.moved_by[g].iter().enumerate().max_by_key(|&(_, &n)| n)?;
        (alone > 0 && *most as f64 >= MIN_OWNED * alone as f64).then_some(role)
    }

    /// Candidate `g`'s mobility: the share of joint moves that moved one of its pieces, per
    /// piece present; none where it never moved.
    fn mobility(&self, g: usize) -> Option<f64> {
        (self.moved[g] > 0 && self.present[g] > 0).then(|| self.moved[g] as f64 / self.present[g] as f64)
    }
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
            let Some(mobility) = samples.mobility(h) else { continue 'position };
            for (c, m) in covered.iter_mut().zip(&mask) {
                *c |= m;
            }
            let value = propnet::net::name_parts(&candidates[h].name)[p + 1];
            let named: Vec<&str> = parts.iter().enumerate().map(|(i, &a)| if i == p + 1 { value } else { a }).collect();
            out.push(PieceKind { group: Group { name: format!("({})", named.join(" ")), mask }, value: mobility });
        }
        if out.len() < 2 || covered != candidates[g].mask {
            continue;
        }
        return Some(least_is_one(out));
    }
    None
}

/// A set of several groups' pieces told apart by group, each worth its mobility as in
/// [`kinds_of`]; none where one of them never moved.
fn members_as_kinds(members: &[usize], candidates: &[Group], samples: &Samples) -> Option<Vec<PieceKind>> {
    let out = members
        .iter()
        .map(|&h| Some(PieceKind { group: candidates[h].clone(), value: samples.mobility(h)? }))
        .collect::<Option<Vec<_>>>()?;
    Some(least_is_one(out))
}

/// `kinds` with their values scaled so that the least is one.
fn least_is_one(mut kinds: Vec<PieceKind>) -> Vec<PieceKind> {
    let least = kinds.iter().map(|k| k.value).fold(f64::INFINITY, f64::min);
    for k in &mut kinds {
        k.value /= least;
    }
    kinds
}

/// Sets of several groups that may be `role`'s pieces where each kind of piece has a group of
/// its own (`(location ? ? whitePawn)`, `(location ? ? whiteKnight)`, ...): per argument position
/// of a relation, the steady groups fixing it that are the role's ([`Samples::owner`]), where
/// there are two to [`MAX_KINDS`] of them.
fn unions(kinds: &[Kind], steady: &[bool], samples: &Samples, role: usize) -> Vec<Vec<usize>> {
    let mut by_position: BTreeMap<(&str, usize, usize), Vec<usize>> = BTreeMap::new();
    for (g, k) in kinds.iter().enumerate().filter(|&(g, _)| steady[g] && samples.owner(g) == Some(role)) {
        if let Some(p) = k.fixed {
            by_position.entry((k.relation.as_str(), k.arity, p)).or_default().push(g);
        }
    }
    by_position.into_values().filter(|g| (2..=MAX_KINDS).contains(&g.len())).collect()
}

/// The group of `members`' propositions: a candidate as it is, or several fixing the same
/// argument position, named with their values there joined by `|`.
fn union_of(members: &[usize], candidates: &[Group]) -> Group {
    if let &[g] = members {
        return candidates[g].clone();
    }
    let mut parts = propnet::net::name_parts(&candidates[members[0]].name);
    // The fixed argument's place among the name's parts, after the relation.
    let p = candidates[members[0]].kind().fixed.map_or(0, |p| p + 1);
    let values: Vec<&str> = members.iter().map(|&h| propnet::net::name_parts(&candidates[h].name)[p]).collect();
    let joined = values.join("|");
    parts[p] = &joined;
    let mut mask = vec![0u64; candidates[members[0]].mask.len()];
    for &h in members {
        for (m, w) in mask.iter_mut().zip(&candidates[h].mask) {
            *m |= w;
        }
    }
    Group { name: format!("({})", parts.join(" ")), mask }
}

/// Every role's score (0..1) against the others': half the difference between its score and
/// the mean of the others', plus a half. Where the goals have a constant sum this is a linear
/// function of the score (in a two-role game, the score itself), so the correlations are the
/// score's; where each role scores on its own (Skirmish: the pieces it has captured) it is what
/// a balance of material between the roles can predict.
fn relative(scores: &[u8]) -> Vec<f64> {
    let total: f64 = scores.iter().map(|&s| f64::from(s) / 100.0).sum();
    let others = (scores.len() - 1).max(1) as f64;
    scores
        .iter()
        .map(|&s| {
            let own = f64::from(s) / 100.0;
            (own - (total - own) / others + 1.0) / 2.0
        })
        .collect()
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
    let mut out = Samples {
        games: Vec::new(),
        positions: Positions::new(initial.words().len()),
        unchanged: vec![0; candidates.len()],
        kept: vec![(0, 0); candidates.len()],
        present: vec![0; candidates.len()],
        moved: vec![0; candidates.len()],
        moved_by: vec![vec![0; roles]; candidates.len()],
        steps: 0,
    };
    let counts = |words: &[u64]| -> Vec<u32> { candidates.iter().map(|g| count(&g.mask, words)).collect() };
    while out.games.len() < MAX_GAMES && Instant::now() < deadline {
        let game = match random_game(&mut m, &initial, &mut rng, deadline) {
            Played::Ended(game) if !game.choosers.is_empty() => game,
            Played::Ended(_) | Played::Unended => continue,
            Played::Stopped => break,
        };
        let index = out.games.len() as u32;
        let length = game.choosers.len();
        let half = length / 2;
        let mut last = counts(game.states[0].words());
        for (step, pair) in game.states.windows(2).enumerate() {
            let (before, state) = (&pair[0], &pair[1]);
            let room = out.positions.words.len() + state.words().len() <= MAX_POSITION_WORDS;
            // The ended state is left out: search never values it by its pieces.
            if step >= half && step + 1 < length && step % POSITION_STRIDE == 0 && room {
                out.positions.words.extend_from_slice(state.words());
                out.positions.game.push(index);
            }
            let now = counts(state.words());
            let changed: Vec<u64> = before.words().iter().zip(state.words()).map(|(a, b)| a ^ b).collect();
            for (g, (a, b)) in last.iter().zip(&now).enumerate() {
                out.unchanged[g] += u64::from(a == b);
                out.present[g] += u64::from(*a);
                let touched = candidates[g].mask.iter().zip(&changed).any(|(m, c)| m & c != 0);
                let moved = a == b && touched;
                out.moved[g] += u64::from(moved);
                if let (true, Some(r)) = (moved, game.choosers[step]) {
                    out.moved_by[g][r] += 1;
                }
                if last[wholes[g]] == now[wholes[g]] {
                    out.kept[g].0 += u64::from(a == b);
                    out.kept[g].1 += 1;
                }
            }
            out.steps += 1;
            last = now;
        }
        let scores = relative(&game.scores);
        let end = game.states[length].words().to_vec();
        out.games.push(Game { counts: last.into_iter().map(f64::from).collect(), end, scores });
    }
    out
}

/// A random game of [`random_game`].
struct Trajectory {
    /// The states from the initial one to the ended one.
    states: Vec<PropnetState>,
    /// Per joint move, the role that alone had a choice, if one did.
    choosers: Vec<Option<usize>>,
    /// Every role's goal at the end.
    scores: Vec<u8>,
}

/// How a random game went.
enum Played {
    Ended(Trajectory),
    /// It ran past [`MAX_STEPS`] or a role had no legal move.
    Unended,
    /// The deadline passed or the machine failed.
    Stopped,
}

/// A uniformly random game of `m` from `initial` (every role's move drawn from its legal
/// moves, as [`playout::random`] draws it).
fn random_game(m: &mut PropnetMachine, initial: &PropnetState, rng: &mut SmallRng, deadline: Instant) -> Played {
    let roles = m.roles().len();
    let mut states = vec![initial.clone()];
    let mut choosers = Vec::new();
    let mut joint = Vec::with_capacity(roles);
    loop {
        let state = states.last().expect("the initial state");
        match m.is_terminal(state) {
            Ok(true) => {
                let scores = playout::scores(m, state);
                return Played::Ended(Trajectory { states, choosers, scores });
            }
            Ok(false) => {}
            Err(_) => return Played::Stopped,
        }
        if choosers.len() >= MAX_STEPS as usize {
            return Played::Unended;
        }
        if Instant::now() >= deadline {
            return Played::Stopped;
        }
        joint.clear();
        let mut chooser = None;
        let mut several = false;
        for r in 0..roles {
            let Ok(mut legal) = m.legal_moves(state, r) else { return Played::Stopped };
            if legal.is_empty() {
                return Played::Unended;
            }
            if legal.len() > 1 {
                several |= chooser.is_some();
                chooser = Some(r);
            }
            joint.push(legal.swap_remove(rng.random_range(0..legal.len())));
        }
        let Ok(next) = m.next_state(state, &joint) else { return Played::Stopped };
        states.push(next);
        choosers.push(chooser.filter(|_| !several));
    }
}

#[cfg(test)]
mod tests {
    use super::relative;

    #[test]
    fn a_score_against_the_others_is_the_score_where_goals_sum_to_a_constant() {
        let near = |goals: &[u8], want: &[f64]| {
            let got = relative(goals);
            assert!(got.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-12), "{goals:?}: {got:?}");
        };
        near(&[100, 0], &[1.0, 0.0]);
        near(&[70, 30], &[0.7, 0.3]);
        // Each side scoring on its own: the lead is what counts.
        near(&[100, 100], &[0.5, 0.5]);
        near(&[80, 60], &[0.6, 0.4]);
        // Three roles: against the mean of the other two.
        near(&[100, 0, 0], &[1.0, 0.25, 0.25]);
    }
}
