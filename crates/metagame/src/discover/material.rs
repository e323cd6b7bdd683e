//! How [`Material`] is found: games played as the playouts play them, and per role the groups
//! whose counts predict its score, combined by least squares and checked on the games held out
//! (the rules are in the `material` module's header).

use crate::material::{candidates, Fit, FitTerm, Group};
use crate::playout::{self, Lookahead, Settings};
use crate::{Knowledge, Material};
use machine::StateMachine;
use propnet::{Net, PropnetMachine, PropnetState};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use stats::linear::solve;
use stats::{correlation, correlation_threshold, halves, moments};
use std::collections::BTreeMap;
use std::time::Instant;
use structures::bits::count;

/// The most groups one role's estimate combines.
const MAX_TERMS: usize = 4;

/// Groups more correlated than this with one already chosen add nothing.
const MAX_COLLINEARITY: f64 = 0.9;

/// Random games sampled, at most.
const MAX_GAMES: usize = 1000;

/// Joint moves after which a sampled game is abandoned.
const MAX_STEPS: usize = 1000;

impl Material {
    /// Plays games of `net` until `deadline` (at most [`MAX_GAMES`]), as the search's playouts
    /// play them with `knowledge` (uniformly random where it has none or it does not steer them),
    /// and fits each role's estimate, as the `material` module's header describes.
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
