//! Material: counts of base propositions grouped by their argument structure (pieces per side,
//! discs of a colour, cells of a kind), found in the net's proposition names and kept as an
//! estimate of each role's final score only where random games show that they predict it.
//!
//! Every relation of the base propositions gives candidate groups: its propositions with a given
//! constant at a given argument position (`(cell ?x ?y white)`: the white cells), and all of
//! them. Games from the initial state played as the search's playouts play them (with the
//! knowledge's tactics and latches where it has them: in Breakthrough material predicts nothing in
//! uniformly random games, where the first pawn to wander through wins, but a good deal once
//! runners are stopped) give, per game, one state from its second half and the final scores.
//! For each role, groups whose count correlates with the role's score in half of the games
//! (beyond three standard errors of a zero correlation) are combined by least squares into a
//! predicted score, and the prediction is kept only if it correlates with the score in the other
//! half as well. A counted set is read with a few word operations per group.

use crate::playout::{self, Lookahead, Settings};
use crate::Knowledge;
use machine::StateMachine;
use propnet::{Net, PropnetMachine, PropnetState};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;
use stats::linear::solve;
use stats::{correlation, correlation_threshold, halves, moments};
use std::collections::BTreeMap;
use std::time::Instant;
use structures::Bits;

/// The most candidate groups counted (relations are taken in the net's order).
const MAX_CANDIDATES: usize = 512;

/// The most groups one role's estimate combines.
const MAX_TERMS: usize = 4;

/// Groups more correlated than this with one already chosen add nothing.
const MAX_COLLINEARITY: f64 = 0.9;

/// Random games sampled, at most.
const MAX_GAMES: usize = 1000;

/// Joint moves after which a sampled game is abandoned.
const MAX_STEPS: usize = 1000;

/// A counted group of base propositions.
#[derive(Debug, Clone, Serialize)]
pub struct Group {
    /// How it reads: the relation with `?` at free positions and the constant at the fixed
    /// one, e.g. `(cell ? ? white)`; a whole relation reads `(cell ? ? ?)`.
    pub name: String,
    /// Its base propositions, as a bitset over the net's bases.
    #[serde(skip)]
    pub mask: Vec<u64>,
}

/// What a group counts, read from its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Kind {
    /// Its relation.
    pub relation: String,
    /// Its relation's arity.
    pub arity: usize,
    /// The argument position it fixes (none for a whole relation).
    pub fixed: Option<usize>,
}

impl Group {
    /// What it counts: its relation, arity and fixed argument position.
    pub(crate) fn kind(&self) -> Kind {
        let parts = propnet::net::name_parts(&self.name);
        Kind { relation: parts[0].to_owned(), arity: parts.len() - 1, fixed: parts[1..].iter().position(|p| *p != "?") }
    }
}

/// One group's part in a role's estimate.
#[derive(Debug, Clone, Serialize)]
pub struct FitTerm {
    /// Index into [`Material::groups`].
    pub group: usize,
    /// Its mean over the sampled states.
    pub mean: f64,
    /// Its standard deviation over the sampled states.
    pub sd: f64,
    /// Score (0..1) per standard deviation of the count.
    pub weight: f64,
}

/// A role's estimated score from material.
#[derive(Debug, Clone, Serialize)]
pub struct Fit {
    /// The mean score (0..1) over the sampled games.
    pub intercept: f64,
    /// The groups it reads and their weights.
    pub terms: Vec<FitTerm>,
    /// Correlation of the estimate with the final score in the games it was not fitted on.
    pub holdout_correlation: f64,
}

/// The material estimates found for a game.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Material {
    /// The groups the estimates use.
    pub groups: Vec<Group>,
    /// Per role, its estimate, if one held up.
    pub fits: Vec<Option<Fit>>,
    /// Random games sampled.
    pub games: usize,
}

impl Material {
    /// Plays games of `net` until `deadline` (at most [`MAX_GAMES`]), as the search's playouts
    /// play them with `knowledge` (uniformly random where it has none or it does not steer them),
    /// and fits each role's estimate, as the module header describes.
    pub fn discover(net: &Net, knowledge: Option<&Knowledge>, deadline: Instant, seed: u64) -> Material {
        let roles = net.roles.len();
        let candidates = candidates(net);
        if candidates.is_empty() {
            return Material { fits: vec![None; roles], ..Material::default() };
        }
        let samples = sample(net, knowledge, &candidates, deadline, seed);
        let mut used: BTreeMap<usize, usize> = BTreeMap::new();
        let mut groups = Vec::new();
        let fits = (0..roles)
            .map(|r| {
                let mut fit = fit(&samples, r)?;
                for t in &mut fit.terms {
                    t.group = *used.entry(t.group).or_insert_with(|| {
                        groups.push(candidates[t.group].clone());
                        groups.len() - 1
                    });
                }
                Some(fit)
            })
            .collect();
        Material { groups, fits, games: samples.len() }
    }

    /// Whether no role has an estimate.
    pub fn is_empty(&self) -> bool {
        self.fits.iter().all(Option::is_none)
    }

    /// `role`'s estimated score (0..1) in `state` (the words of a propnet state), if it has an
    /// estimate.
    pub fn value(&self, state: &[u64], role: usize) -> Option<f64> {
        let fit = self.fits.get(role)?.as_ref()?;
        let mut v = fit.intercept;
        for t in &fit.terms {
            let count = count(&self.groups[t.group].mask, state) as f64;
            v += t.weight * (count - t.mean) / t.sd;
        }
        Some(v.clamp(0.0, 1.0))
    }
}

/// How many of `mask`'s propositions hold in `state`.
pub(crate) fn count(mask: &[u64], state: &[u64]) -> u32 {
    mask.iter().zip(state).map(|(m, s)| (m & s).count_ones()).sum()
}

/// The candidate groups of `net`'s bases: per relation of arity at least one, the whole
/// relation and its propositions per constant at each argument position, each of at least two
/// propositions and fewer than the whole relation (but for the whole itself).
pub(crate) fn candidates(net: &Net) -> Vec<Group> {
    let words = net.bases.len().div_ceil(64);
    let by_relation = net.relations();
    let mut out = Vec::new();
    let mask = |members: &[usize]| {
        let mut m = vec![0u64; words];
        for &i in members {
            m.set_bit(i);
        }
        m
    };
    for ((relation, arity), bases) in &by_relation {
        if bases.len() < 2 {
            continue;
        }
        let all: Vec<usize> = bases.iter().map(|(i, _)| *i).collect();
        let free = vec!["?"; *arity].join(" ");
        out.push(Group { name: format!("({relation} {free})"), mask: mask(&all) });
        for k in 0..*arity {
            let mut by_value: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
            for (i, args) in bases {
                by_value.entry(args[k]).or_default().push(*i);
            }
            for (value, members) in by_value.into_iter().filter(|(_, m)| m.len() >= 2 && m.len() < all.len()) {
                let args: Vec<&str> = (0..*arity).map(|j| if j == k { value } else { "?" }).collect();
                out.push(Group { name: format!("({relation} {})", args.join(" ")), mask: mask(&members) });
            }
        }
    }
    out.truncate(MAX_CANDIDATES);
    out
}

/// One sampled game: every candidate's count in a state from its second half, and every role's
/// final score (0..1).
struct Sample {
    counts: Vec<f64>,
    scores: Vec<f64>,
}

/// Games from the initial state until `deadline`, one sample each: uniformly random, or played
/// as `knowledge`'s playouts.
fn sample(net: &Net, knowledge: Option<&Knowledge>, candidates: &[Group], deadline: Instant, seed: u64) -> Vec<Sample> {
    let mut out = Vec::new();
    play_games(net, knowledge, deadline, seed, MAX_GAMES, |_, trajectory, scores, rng| {
        let n = trajectory.len();
        let at = &trajectory[n / 2 + rng.random_range(0..(n - n / 2).max(1))];
        let counts = candidates.iter().map(|g| f64::from(count(&g.mask, at.words()))).collect();
        let scores = scores.iter().map(|&s| f64::from(s) / 100.0).collect();
        out.push(Sample { counts, scores });
    });
    out
}

/// Plays at most `games` complete games of `net` from the initial state until `deadline`, as
/// the search's playouts play them with `knowledge` (uniformly random where it has none or it does
/// not steer them), and hands each to `each` with the machine, the states before each joint
/// move (at least one) and every role's final score.
pub(crate) fn play_games(
    net: &Net,
    knowledge: Option<&Knowledge>,
    deadline: Instant,
    seed: u64,
    games: usize,
    mut each: impl FnMut(&mut PropnetMachine, &[PropnetState], &[u8], &mut SmallRng),
) {
    let mut m = PropnetMachine::new(net);
    let mut rng = SmallRng::seed_from_u64(seed);
    let roles = net.roles.len();
    let initial = m.initial_state();
    let settings = Settings::traced(MAX_STEPS as u32, deadline);
    let mut look = Lookahead::default();
    let mut trajectory: Vec<PropnetState> = Vec::new();
    let mut played = 0;
    while played < games && Instant::now() < deadline {
        let outcome = match knowledge.filter(|g| g.steers_playouts()) {
            Some(g) => playout::guided(&mut m, &mut look, &initial, g, &mut rng, &settings),
            None => playout::random(&mut m, &initial, &mut rng, &settings),
        };
        let Ok(Some(outcome)) = outcome else { break };
        if !outcome.complete || outcome.moves.is_empty() {
            continue;
        }
        // The states along the way, replayed from the moves.
        trajectory.clear();
        let mut state = initial.clone();
        for joint in outcome.moves.chunks(roles) {
            let Ok(next) = m.next_state(&state, joint) else { break };
            trajectory.push(std::mem::replace(&mut state, next));
        }
        if trajectory.is_empty() {
            continue;
        }
        played += 1;
        each(&mut m, &trajectory, &outcome.scores, &mut rng);
    }
}

/// `role`'s estimate, fitted on the even samples and checked on the odd ones.
fn fit(samples: &[Sample], role: usize) -> Option<Fit> {
    let (train, test) = halves(samples);
    if train.len() < 20 || test.len() < 20 {
        return None;
    }
    let y: Vec<f64> = train.iter().map(|s| s.scores[role]).collect();
    let candidates = train[0].counts.len();
    let column = |set: &[&Sample], g: usize| -> Vec<f64> { set.iter().map(|s| s.counts[g]).collect() };
    let mut ranked: Vec<(usize, f64)> = (0..candidates)
        .map(|g| (g, correlation(&column(&train, g), &y)))
        .filter(|(_, r)| r.abs() >= correlation_threshold(y.len()))
        .collect();
    ranked.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()));
    let mut chosen: Vec<usize> = Vec::new();
    for (g, _) in ranked {
        let x = column(&train, g);
        if chosen.iter().all(|&c| correlation(&column(&train, c), &x).abs() <= MAX_COLLINEARITY) {
            chosen.push(g);
        }
        if chosen.len() == MAX_TERMS {
            break;
        }
    }
    if chosen.is_empty() {
        return None;
    }
    // Least squares on standardised counts (a little ridge keeps near-collinear groups tame).
    let stats: Vec<(f64, f64)> = chosen.iter().map(|&g| moments(column(&train, g).into_iter())).collect();
    let (my, _) = moments(y.iter().copied());
    let k = chosen.len();
    let z = |s: &Sample, j: usize| (s.counts[chosen[j]] - stats[j].0) / stats[j].1;
    let mut a = vec![vec![0.0; k + 1]; k];
    for (s, &yy) in train.iter().zip(&y) {
        let zs: Vec<f64> = (0..k).map(|j| z(s, j)).collect();
        for (row, &zi) in a.iter_mut().zip(&zs) {
            for (cell, &zj) in row.iter_mut().zip(&zs) {
                *cell += zi * zj;
            }
            row[k] += zi * (yy - my);
        }
    }
    for (i, row) in a.iter_mut().enumerate() {
        row[i] += 0.01 * train.len() as f64;
    }
    let weights = solve(a)?;
    let terms: Vec<FitTerm> =
        (0..k).map(|j| FitTerm { group: chosen[j], mean: stats[j].0, sd: stats[j].1, weight: weights[j] }).collect();
    let predict = |s: &Sample| my + (0..k).map(|j| weights[j] * z(s, j)).sum::<f64>();
    let predicted: Vec<f64> = test.iter().map(|s| predict(s)).collect();
    let actual: Vec<f64> = test.iter().map(|s| s.scores[role]).collect();
    let holdout_correlation = correlation(&predicted, &actual);
    (holdout_correlation >= correlation_threshold(test.len())).then_some(Fit {
        intercept: my,
        terms,
        holdout_correlation,
    })
}
