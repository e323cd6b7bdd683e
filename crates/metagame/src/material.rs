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

use propnet::Net;
use serde::Serialize;
use std::collections::BTreeMap;
use structures::bits::count;
use structures::Bits;

/// The most candidate groups counted (relations are taken in the net's order).
const MAX_CANDIDATES: usize = 512;

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
