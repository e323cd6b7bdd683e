//! Placement: where the roles' pieces stand, valued by a linear fit of random games' scores on
//! how many of each role's pieces stand at each value of each free argument of their relation
//! (Breakthrough: white pawns per rank and per file), with each set's average piece value taken
//! out so that it says where pieces are better, not how many there should be — the material
//! balance says that.
//!
//! Material alone leaves a search blind between quiet moves: in Breakthrough a side two pawns
//! up shuffles pawns on the far wing and empties its home row while the other side's pawns walk
//! in. Over uniformly random games, though, an enemy pawn near one's own home row goes with
//! losing, rank by rank. The fit is ridge least squares over positions from the second half of
//! half the games against the game's final score: counts per argument value, not one weight
//! per proposition, since a few seconds of random games cannot tell 128 squares apart. It is kept
//! only if its predictions go with the score in the other half's positions beyond two standard
//! errors of no correlation (counting games, not positions), for every role.

use crate::material::Group;
use serde::Serialize;
use stats::linear::solve;
use stats::{confirmation_threshold, correlation};
use structures::Bits;

/// The most counts a fit reads (the system it solves has this many unknowns).
const MAX_FEATURES: usize = 256;

/// Ridge added to each count's variance, as a share of their mean variance: the counts of one
/// set along two arguments sum to the same total, so the plain system is singular.
const RIDGE: f64 = 0.05;

/// Positions sampled from random games, every one a state's words at the same width.
pub(crate) struct Positions {
    /// The states' words, `width` per position.
    pub words: Vec<u64>,
    /// Words per position.
    pub width: usize,
    /// Per position, the index of its game.
    pub game: Vec<u32>,
}

impl Positions {
    /// Room for positions of states `width` words wide.
    pub fn new(width: usize) -> Positions {
        Positions { words: Vec::new(), width, game: Vec::new() }
    }

    /// The `k`th position's words.
    fn get(&self, k: usize) -> &[u64] {
        &self.words[k * self.width..(k + 1) * self.width]
    }
}

/// Every role's placement values, where random games confirmed them.
#[derive(Debug, Clone, Serialize)]
pub struct Placement {
    /// The piece propositions read (indices into the net's bases), ascending.
    #[serde(skip)]
    bases: Vec<usize>,
    /// Per role, the score (0..1) a piece on each of `bases` adds, less the mean of its set.
    #[serde(skip)]
    weights: Vec<Vec<f64>>,
    /// Per role, the correlation of its placement value with its final score in the games not
    /// fitted on.
    pub holdout_correlation: Vec<f64>,
    /// Positions the fit read.
    pub positions: usize,
}

impl Placement {
    /// Fits every role's placement over the propositions of `sets` (the roles' pieces, among
    /// [`candidates`](super::material::candidates)) on the even games of `positions` against
    /// `scores` (per game, every role's score 0..1), and keeps it if every role's holds on the
    /// odd games.
    pub(crate) fn fit(
        sets: &[&Group],
        candidates: &[Group],
        positions: &Positions,
        scores: &[Vec<f64>],
    ) -> Option<Placement> {
        let roles = scores.first()?.len();
        let features = features(sets, candidates);
        let k = features.len();
        if k == 0 || k > MAX_FEATURES {
            return None;
        }
        let counts = |words: &[u64]| -> Vec<f64> {
            features.iter().map(|f| f.iter().filter(|&&b| words.bit(b)).count() as f64).collect()
        };
        // Sums over the fitting half: counts, their products, scores, and scores times counts.
        let (mut m, mut sx, mut sxx, mut sy, mut sxy) =
            (0usize, vec![0.0; k], vec![0.0; k * k], vec![0.0; roles], vec![vec![0.0; k]; roles]);
        for i in (0..positions.game.len()).filter(|&i| positions.game[i].is_multiple_of(2)) {
            let x = counts(positions.get(i));
            let y = &scores[positions.game[i] as usize];
            m += 1;
            for a in 0..k {
                sx[a] += x[a];
                for b in a..k {
                    sxx[a * k + b] += x[a] * x[b];
                }
                for r in 0..roles {
                    sxy[r][a] += y[r] * x[a];
                }
            }
            for r in 0..roles {
                sy[r] += y[r];
            }
        }
        if m < 2 {
            return None;
        }
        let mf = m as f64;
        let mean: Vec<f64> = sx.iter().map(|s| s / mf).collect();
        let cov = |a: usize, b: usize| sxx[a.min(b) * k + a.max(b)] / mf - mean[a] * mean[b];
        let ridge = RIDGE * (0..k).map(|a| cov(a, a)).sum::<f64>() / k as f64;
        let mut bases: Vec<usize> = features.iter().flatten().copied().collect();
        bases.sort_unstable();
        bases.dedup();
        let mut weights = Vec::with_capacity(roles);
        for r in 0..roles {
            let my = sy[r] / mf;
            let rows: Vec<Vec<f64>> = (0..k)
                .map(|a| {
                    let mut row: Vec<f64> = (0..k).map(|b| cov(a, b) + if a == b { ridge } else { 0.0 }).collect();
                    row.push(sxy[r][a] / mf - mean[a] * my);
                    row
                })
                .collect();
            let w = solve(rows)?;
            // A proposition's weight is the sum of its counts' weights.
            let mut per_base = vec![0.0; bases.len()];
            for (f, &wf) in features.iter().zip(&w) {
                for b in f {
                    per_base[bases.binary_search(b).expect("listed")] += wf;
                }
            }
            // Each set's mean weight is what a piece of it is worth wherever it stands: the
            // material balance values that already.
            for set in sets {
                let members: Vec<usize> = (0..bases.len()).filter(|&i| set.mask.bit(bases[i])).collect();
                let avg = members.iter().map(|&i| per_base[i]).sum::<f64>() / members.len().max(1) as f64;
                members.iter().for_each(|&i| per_base[i] -= avg);
            }
            weights.push(per_base);
        }
        let mut placement = Placement { bases, weights, holdout_correlation: Vec::new(), positions: m };
        let check: Vec<usize> = (0..positions.game.len()).filter(|&i| !positions.game[i].is_multiple_of(2)).collect();
        let mut games: Vec<u32> = check.iter().map(|&i| positions.game[i]).collect();
        games.dedup();
        placement.holdout_correlation = (0..roles)
            .map(|r| {
                let predicted: Vec<f64> = check.iter().map(|&i| placement.value(positions.get(i), r)).collect();
                let actual: Vec<f64> = check.iter().map(|&i| scores[positions.game[i] as usize][r]).collect();
                correlation(&predicted, &actual)
            })
            .collect();
        let confirmed = placement.holdout_correlation.iter().all(|&c| c >= confirmation_threshold(games.len()));
        confirmed.then_some(placement)
    }

    /// `role`'s weight of each piece proposition read (index into the net's bases, score 0..1
    /// it adds), in the order of the bases.
    pub fn weights(&self, role: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        self.bases.iter().copied().zip(self.weights[role].iter().copied())
    }

    /// `role`'s placement value of `state` (propnet state words): the score its pieces'
    /// squares add, relative to pieces standing on average squares.
    pub fn value(&self, state: &[u64], role: usize) -> f64 {
        let w = &self.weights[role];
        self.bases.iter().zip(w).filter(|(&b, _)| state.bit(b)).map(|(_, &x)| x).sum()
    }
}

/// The counted features of `sets`: for each set and each candidate of its relation that fixes
/// an argument the set leaves free (in Breakthrough, a rank or a file), the set's propositions
/// in the candidate; each a list of base indices, none repeated.
fn features(sets: &[&Group], candidates: &[Group]) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = Vec::new();
    for set in sets {
        let kind = set.kind();
        for c in candidates {
            let k = c.kind();
            if k.relation != kind.relation || k.arity != kind.arity || k.fixed.is_none() || k.fixed == kind.fixed {
                continue;
            }
            let members: Vec<usize> = (0..set.mask.len() * 64).filter(|&b| set.mask.bit(b) && c.mask.bit(b)).collect();
            if !members.is_empty() {
                out.push(members);
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::material::candidates;
    use machine::StateMachine;
    use propnet::PropnetMachine;
    use std::time::{Duration, Instant};
    use structures::Bits;

    /// Pieces `a` and `b` that each stand on square 1 or 2, the net's candidate groups, `a`'s
    /// group, and the propositions for `a` on each square.
    fn two_squares() -> (Vec<Group>, Group, u64, u64) {
        let desc = testkit::load(
            "two squares",
            "(role robot) (piece a) (piece b) (init (at a 1)) (init (at b 1)) \
             (<= (next (at ?p 2)) (does robot (go ?p))) (<= (next (at ?p 2)) (true (at ?p 2))) \
             (<= (next (at ?p 1)) (true (at ?p 1)) (not (does robot (go ?p)))) \
             (<= (legal robot (go ?p)) (piece ?p)) (<= terminal (true (at a 2))) \
             (<= (goal robot 100) (true (at a 2))) (<= (goal robot 0) (not (true (at a 2))))",
        );
        let net = testkit::compile(&desc);
        let bit = |name: &str| 1u64 << net.bases.iter().position(|b| b.name == name).expect("a base");
        let candidates = candidates(&net);
        let group = candidates.iter().find(|g| g.name == "(at a ?)").expect("a's group").clone();
        (candidates, group, bit("(at a 1)"), bit("(at a 2)"))
    }

    /// 400 games of one position each for the one-word net of [`two_squares`]: `game` gives
    /// each game's position and the robot's score.
    fn games(game: impl Fn(u32) -> (u64, f64)) -> (Positions, Vec<Vec<f64>>) {
        let mut positions = Positions::new(1);
        let mut scores = Vec::new();
        for g in 0..400u32 {
            let (word, score) = game(g);
            positions.words.push(word);
            positions.game.push(g);
            scores.push(vec![score]);
        }
        (positions, scores)
    }

    #[test]
    fn a_square_that_goes_with_winning_is_valued_and_the_set_mean_is_taken_out() {
        let (candidates, group, first, second) = two_squares();
        let (positions, scores) = games(|g| {
            let on_second = g % 3 == 0 || g % 3 == 1 && g % 2 == 0;
            if on_second {
                (second, 1.0)
            } else {
                (first, 0.0)
            }
        });
        let p = Placement::fit(&[&group], &candidates, &positions, &scores).expect("a placement");
        let (a, b) = (p.value(&[first], 0), p.value(&[second], 0));
        assert!(b > 0.3 && a < -0.3, "{a} {b}");
        assert!((a + b).abs() < 1e-9, "the set's mean is taken out: {a} {b}");
        assert!(p.holdout_correlation[0] > 0.9);
    }

    #[test]
    fn a_square_unrelated_to_the_score_is_not_kept() {
        let (candidates, group, first, second) = two_squares();
        let (positions, scores) = games(|g| (if g % 4 < 2 { second } else { first }, f64::from(g % 2)));
        assert!(Placement::fit(&[&group], &candidates, &positions, &scores).is_none());
    }

    /// Random Breakthrough games: a black pawn one step from white's home row is worse for
    /// white than one still on black's side of the board, and the reverse for black.
    #[test]
    fn in_breakthrough_an_enemy_pawn_near_home_is_bad() {
        let (_, net) = testkit::bundled("breakthrough");
        // Time enough for every game it plays (4,000 at most), so that a loaded machine sees the same games.
        let pieces = crate::Pieces::discover(&net, Instant::now() + Duration::from_secs(60), 1).expect("pieces");
        let placement = pieces.placement.as_ref().expect("a placement");
        let empty = vec![0u64; PropnetMachine::new(&net).initial_state().words().len()];
        let with = |name: &str| {
            let mut w = empty.clone();
            let b = net.bases.iter().position(|b| b.name == name).expect("a base");
            w.set_bit(b);
            w
        };
        let (near, far) = (with("(cellholds 4 2 black)"), with("(cellholds 4 6 black)"));
        assert!(placement.value(&near, 0) < placement.value(&far, 0), "{placement:?}");
        assert!(placement.value(&near, 1) > placement.value(&far, 1));
    }
}
