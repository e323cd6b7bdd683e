//! Pieces: per role, a counted group of base propositions (its pieces) whose count at the end
//! of random games goes with the role's score, and the material balance they give a state
//! relative to the current root — the tree's prior for moves that win or lose material, and the
//! score of a playout cut off early.
//!
//! In games such as Breakthrough a uniformly random playout says little about a capture: the
//! first pawn to wander through decides it, whatever the material. The count of a role's pieces
//! at the end of random games still goes with its score (about 0.17 in Breakthrough over
//! thousands of games), which is enough to tell the tree which side of an exchange a move is
//! on. The candidates are [`material`](crate::material)'s groups. A group is a role's pieces if
//! it has at least six propositions, its count stays the same on at least half the joint moves,
//! every group fixing the same argument position of its relation keeps its count on nine in
//! ten of the joint moves that keep the whole relation's count (a piece that moves stays a
//! piece of its kind; a row of the board gains and loses what moves through it, so rows are
//! not kinds), its final count correlates with the role's score on half the games beyond three
//! standard errors of no correlation (and at least 0.1), and the other half confirms it beyond
//! two standard errors. Every role must have one, and not all the same one (the balance is a difference).
//!
//! The score correlated with is the role's score against the others': half the difference
//! between its goal and the others' mean, plus a half. Where goals have a constant sum this is
//! the score up to a linear change; where each role scores on its own (in Skirmish, by the
//! pieces it has captured) a role's own pieces say nothing of its score, but much of its lead.
//!
//! Where each kind of piece has a group of its own (`(location ? ? whitePawn)`,
//! `(location ? ? whiteKnight)`, ...), no one group is a side's pieces. A group is a role's
//! when that role made nine in ten of the moves of its pieces on the joint moves where one role
//! alone had a choice (a blank square "moves" on every role's turn); the two to twelve groups of
//! a role that fix the same argument position and pass the first two rules above are then also a
//! candidate together. Whichever goes best with the score, a group or such a set, is the role's
//! pieces; a set's groups are its kinds.
//!
//! A role's pieces may be of several kinds worth different amounts (a queen against a pawn).
//! Where another argument position of the group's relation names kinds (every group fixing it
//! keeps its count as pieces do, and two to twelve values there cover the role's pieces), or
//! the pieces are a set of groups, each kind is worth its mobility in the same random games:
//! how often a piece of that kind was the one moved, per piece present, which in uniformly
//! random play follows the moves it has. The least mobile kind is worth one. The kinds are kept
//! only where the worth at the end of the games correlates with the role's score better than
//! the plain count did on the half the group was chosen on, and the other half confirms it. A
//! role's *material* is its pieces' worth.
//!
//! A state's value for a role (the "simple" piece heuristic the Sancho player describes) is the
//! share of the change in material since the root that the role gained, through a logistic:
//! 0.5 where nobody's count changed, towards 1 where the role gained against the others. The
//! same random games fit where the pieces are better placed ([`Placement`]); with a weight, the
//! change in placement since the root moves the value too.

use crate::material::Group;
use crate::placement::Placement;
use serde::Serialize;
use structures::bits::count;

/// How sharply the value follows the share of material gained: a role that comes out of the
/// change a tenth of the average holding better than the average role is valued about 0.73
/// (Breakthrough: three pawns taken for none).
const STEEPNESS: f64 = 10.0;

/// What an exchange that has just been answered counts for, in pieces: a side that is back to
/// its root count after being down is a little better than one that never was (the first
/// capture of an exchange should not look like a gain).
const RECAPTURE: f64 = 0.1;

/// A role's pieces.
#[derive(Debug, Clone, Serialize)]
pub struct PieceSet {
    /// The group counted.
    pub group: Group,
    /// Its pieces by kind and what each is worth, where kinds were told apart and valuing them
    /// predicted the score better than counting every piece alike; otherwise empty (each piece
    /// is worth one).
    pub kinds: Vec<PieceKind>,
    /// Correlation of its final value (count, or worth by kind) with the role's score in the
    /// games it was chosen on.
    pub correlation: f64,
    /// The same in the other half of the games.
    pub holdout_correlation: f64,
}

/// One kind of a role's pieces and its worth.
#[derive(Debug, Clone, Serialize)]
pub struct PieceKind {
    /// The pieces of the kind, e.g. `(cell ? ? white queen)`.
    pub group: Group,
    /// What one is worth, the least mobile kind's pieces being worth one.
    pub value: f64,
}

impl PieceSet {
    /// The role's material in `state` (propnet state words): its pieces, each worth its kind's
    /// value.
    pub fn worth(&self, state: &[u64]) -> f64 {
        match self.kinds.is_empty() {
            true => f64::from(count(&self.group.mask, state)),
            false => self.kinds.iter().map(|k| k.value * f64::from(count(&k.group.mask, state))).sum(),
        }
    }
}

/// Every role's pieces, where random games found them.
#[derive(Debug, Clone, Serialize)]
pub struct Pieces {
    /// Per role, its pieces.
    pub sets: Vec<PieceSet>,
    /// Random games sampled.
    pub games: usize,
    /// Where pieces stand better, if the random games confirmed it.
    pub placement: Option<Placement>,
}

impl Pieces {
    /// Every role's material in `state` (propnet state words).
    fn counts(&self, state: &[u64]) -> Vec<f64> {
        self.sets.iter().map(|s| s.worth(state)).collect()
    }

    /// The balance of states reached from `previous`, relative to `root` (propnet state
    /// words): their counts taken once for every state valued against them. With a
    /// `placement` weight above 0 (and a placement found), the change in every role's
    /// placement since the root counts too, that many times the score it predicts.
    pub fn balance(&self, previous: &[u64], root: &[u64], placement: f64) -> Balance<'_> {
        let placed = self
            .placement
            .as_ref()
            .filter(|_| placement > 0.0)
            .map(|p| (p, placement, (0..self.sets.len()).map(|r| p.value(root, r)).collect()));
        Balance { pieces: self, before: self.counts(previous), then: self.counts(root), placed }
    }

    /// How much the prior should weigh at `root` (0.3..=1): fully while the roles' counts are
    /// even, less as one side leads, when position matters more than further material.
    pub fn weight(&self, root: &[u64]) -> f64 {
        let counts = self.counts(root);
        let mean = counts.iter().sum::<f64>() / counts.len() as f64;
        if mean <= 0.0 {
            return 1.0;
        }
        let lead = counts.iter().map(|c| (c - mean).abs()).fold(0.0, f64::max);
        (1.0 - 7.0 * lead / mean).max(0.3)
    }
}

/// The material balance of states reached from one state, relative to the root.
pub struct Balance<'a> {
    pieces: &'a Pieces,
    /// Every role's count in the state moved from.
    before: Vec<f64>,
    /// Every role's count at the root.
    then: Vec<f64>,
    /// The placement, its weight and every role's placement value at the root, where it
    /// counts.
    placed: Option<(&'a Placement, f64, Vec<f64>)>,
}

impl Balance<'_> {
    /// `role`'s value (0..1) of `state` (propnet state words): the share of the material change
    /// since the root that it gained, 0.5 where the total is unchanged, moved by the change in
    /// its placement where that counts.
    pub fn value(&self, state: &[u64], role: usize) -> f64 {
        // Near even, the logistic's slope is a quarter: four times the placement's predicted
        // change in score moves the value by that change.
        let placed =
            self.placed.as_ref().map_or(0.0, |(p, weight, then)| 4.0 * weight * (p.value(state, role) - then[role]));
        1.0 / (1.0 + (-(self.material(state, role) + placed)).exp())
    }

    /// `role`'s material term of [`value`](Self::value), before the logistic: the share of
    /// the change since the root it gained, scaled by [`STEEPNESS`] (0 where the total is
    /// unchanged).
    fn material(&self, state: &[u64], role: usize) -> f64 {
        let (now, before, then) = (self.pieces.counts(state), &self.before, &self.then);
        let roles = now.len() as f64;
        let gains: Vec<f64> = (0..now.len())
            .map(|r| {
                let settled = now[r] == then[r];
                now[r] - then[r]
                    + match before[r].total_cmp(&then[r]) {
                        std::cmp::Ordering::Less if settled => RECAPTURE,
                        std::cmp::Ordering::Greater if settled => -RECAPTURE,
                        _ => 0.0,
                    }
            })
            .collect();
        let change: f64 = gains.iter().sum();
        let total = then.iter().sum::<f64>() + change;
        if change == 0.0 || total <= 0.0 {
            return 0.0;
        }
        STEEPNESS * (gains[role] - change / roles) / (total / roles)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use machine::StateMachine;
    use propnet::PropnetMachine;
    use std::time::{Duration, Instant};
    use structures::Bits;

    #[test]
    fn breakthroughs_pieces_are_each_sides_pawns_and_a_capture_is_worth_having() {
        let (_, net) = testkit::bundled("breakthrough");
        let pieces = Pieces::discover(&net, Instant::now() + Duration::from_secs(30), 1).expect("pieces found");
        let names: Vec<&str> = pieces.sets.iter().map(|s| s.group.name.as_str()).collect();
        assert_eq!(names, ["(cellholds ? ? white)", "(cellholds ? ? black)"], "{pieces:?}");
        assert!(pieces.sets.iter().all(|s| s.kinds.is_empty()), "one kind of pawn: {pieces:?}");
        let root = PropnetMachine::new(&net).initial_state();
        let base = |name: &str| net.bases.iter().position(|b| b.name == name).expect("a base");
        // White takes a black pawn: a gain for white, a loss for black, nothing from the root.
        let mut taken = root.words().to_vec();
        let gone = base("(cellholds 1 7 black)");
        taken.clear_bit(gone);
        let balance = pieces.balance(root.words(), root.words(), 0.0);
        let (w, b) = (balance.value(&taken, 0), balance.value(&taken, 1));
        assert!(w > 0.55 && b < 0.45 && (w + b - 1.0).abs() < 1e-9, "{w} {b}");
        assert_eq!(balance.value(root.words(), 0), 0.5);
        assert_eq!(pieces.weight(root.words()), 1.0);
        assert!(pieces.weight(&taken) < 1.0);
        // A black pawn walked to white's second rank: no material changed, but with the
        // placement counted it is bad for white and good for black.
        let mut walked = root.words().to_vec();
        let (from, to) = (base("(cellholds 4 7 black)"), base("(cellholds 4 2 black)"));
        walked.clear_bit(from);
        walked.set_bit(to);
        assert_eq!(balance.value(&walked, 0), 0.5);
        let placed = pieces.balance(root.words(), root.words(), 1.0);
        let (w, b) = (placed.value(&walked, 0), placed.value(&walked, 1));
        assert!(w < 0.45 && b > 0.55 && (w + b - 1.0).abs() < 1e-9, "{w} {b}");
        assert_eq!(placed.value(root.words(), 0), 0.5);
    }
}
