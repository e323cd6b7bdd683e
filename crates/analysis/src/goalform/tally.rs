//! Numbers read off a state that a goal may be computed from: how many of a group of base
//! propositions hold (discs of a colour), or the value of a counter kept in the state as one
//! true proposition among several that name numbers (`(box_count xplayer 7)`).
//!
//! Candidates come from the propositions' names, grouped by their argument structure: per
//! relation, the whole relation and its propositions with a given constant at a given position
//! are counts; a position whose arguments are all numbers makes a counter of each group of
//! propositions that agree everywhere else. Tallies of one *family* (one relation split at one
//! position) differ only in a constant, which is how one role's tally pairs with another's.

use crate::{invariant, Pair};
use propnet::net::Net;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Instant;
use structures::Bits;

/// The most candidate tallies formed (relations are taken in name order).
const MAX_TALLIES: usize = 4096;

/// How a tally reads a state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TallyKind {
    /// The number of its propositions that hold.
    Count,
    /// The number named by the one of its propositions that holds.
    Counter,
}

/// Which way a counter can move in play, as proved by induction (see [`crate::invariant`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Trend {
    /// Not proved either way (or not asked: counts, and counters outside confirmed forms).
    #[default]
    Unknown,
    /// Never lower after a step than before it.
    Rises,
    /// Never higher after a step than before it.
    Falls,
}

/// A number read off a state.
#[derive(Debug, Clone, Serialize)]
pub struct Tally {
    /// How it reads: `(cell ? ? black)` counts, `(box_count xplayer #)` is a counter.
    pub name: String,
    /// Count or counter.
    pub kind: TallyKind,
    /// Its base propositions, ascending.
    pub bases: Vec<usize>,
    /// For a counter, the number each base names (same order as `bases`); empty for a count.
    pub values: Vec<u32>,
    /// For a counter of a confirmed form, which way play can move it.
    pub trend: Trend,
    /// `bases` as a bitset over the net's bases.
    #[serde(skip)]
    pub(crate) mask: Vec<u64>,
    /// Tallies of one family share this (their relation and the position they differ at).
    #[serde(skip)]
    pub(crate) family: usize,
    /// For a count of the propositions with one constant at one position, that position: the
    /// other arguments say where (which cell) a proposition is.
    #[serde(skip)]
    pub(crate) split: Option<usize>,
}

impl Tally {
    fn new(
        name: String,
        kind: TallyKind,
        mut members: Vec<(usize, u32)>,
        words: usize,
        family: usize,
        split: Option<usize>,
    ) -> Tally {
        members.sort_unstable();
        let mut mask = vec![0u64; words];
        for &(b, _) in &members {
            mask.set_bit(b);
        }
        let values = if kind == TallyKind::Counter { members.iter().map(|&(_, v)| v).collect() } else { Vec::new() };
        let bases = members.into_iter().map(|(b, _)| b).collect();
        Tally { name, kind, bases, values, trend: Trend::Unknown, mask, family, split }
    }

    /// Its value in `state` (the words of a propnet state); a counter with no proposition or
    /// several holding has none.
    pub fn read(&self, state: &[u64]) -> Option<u32> {
        match self.kind {
            TallyKind::Count => Some(self.mask.iter().zip(state).map(|(m, s)| (m & s).count_ones()).sum()),
            TallyKind::Counter => {
                let mut held = self.bases.iter().zip(&self.values).filter(|(&b, _)| super::holds(state, b));
                let (_, &v) = held.next()?;
                held.next().is_none().then_some(v)
            }
        }
    }

    /// Whether the goal net reads every one of its bases.
    pub(crate) fn read_by(&self, read: &[bool]) -> bool {
        self.bases.iter().all(|&b| read[b])
    }

    /// Proves which way a counter moves (a count is left [`Trend::Unknown`]): it rises if a value
    /// held now excludes every lower one after any step of play, falls if it excludes every
    /// higher one; `samples` (reachable states) supply the support, until `deadline`.
    pub(crate) fn prove_trend(&mut self, net: &Net, samples: &[&[u64]], deadline: Option<Instant>) {
        if self.kind != TallyKind::Counter {
            return;
        }
        let members: Vec<(usize, u32)> = self.bases.iter().copied().zip(self.values.iter().copied()).collect();
        let steps = |lower: bool| -> Vec<Pair> {
            let mut out = Vec::new();
            for &(a, va) in &members {
                for &(b, vb) in &members {
                    if (lower && vb < va) || (!lower && vb > va) {
                        out.push(((a, false), (b, false)));
                    }
                }
            }
            out
        };
        let (rises, falls) = (steps(true), steps(false));
        let (_, held) = invariant::prove(net, &[], &[rises.clone(), falls].concat(), samples, deadline);
        self.trend = if held[..rises.len()].iter().all(|&h| h) {
            Trend::Rises
        } else if held[rises.len()..].iter().all(|&h| h) {
            Trend::Falls
        } else {
            Trend::Unknown
        };
    }
}

/// Every candidate tally of `net`'s bases, as the module header describes.
pub(crate) fn candidates(net: &Net) -> Vec<Tally> {
    let words = net.bases.len().div_ceil(64);
    let by_relation = net.relations();
    let mut out = Vec::new();
    let mut family = 0;
    for ((relation, arity), bases) in &by_relation {
        let pattern = |k: usize, at_k: &str, rest: Option<&[&str]>| {
            let args: Vec<&str> = (0..*arity)
                .map(|j| match rest {
                    _ if j == k => at_k,
                    Some(r) => r[j],
                    None => "?",
                })
                .collect();
            format!("({relation} {})", args.join(" "))
        };
        if bases.len() >= 2 {
            let all = bases.iter().map(|(i, _)| (*i, 0)).collect();
            out.push(Tally::new(pattern(usize::MAX, "", None), TallyKind::Count, all, words, family, None));
            family += 1;
        }
        for k in 0..*arity {
            let mut by_value: BTreeMap<&str, Vec<(usize, u32)>> = BTreeMap::new();
            for (i, args) in bases {
                by_value.entry(args[k]).or_default().push((*i, 0));
            }
            if by_value.len() >= 2 {
                for (value, members) in by_value {
                    out.push(Tally::new(pattern(k, value, None), TallyKind::Count, members, words, family, Some(k)));
                }
                family += 1;
            }
            // A counter position: every argument there a number.
            let numbers: Option<Vec<u32>> = bases.iter().map(|(_, args)| args[k].parse().ok()).collect();
            let Some(numbers) = numbers else { continue };
            let mut by_rest: BTreeMap<Vec<&str>, Vec<(usize, u32)>> = BTreeMap::new();
            for ((i, args), n) in bases.iter().zip(numbers) {
                let rest: Vec<&str> = args.iter().enumerate().map(|(j, a)| if j == k { "#" } else { *a }).collect();
                by_rest.entry(rest).or_default().push((*i, n));
            }
            for (rest, members) in by_rest {
                if members.len() >= 2 {
                    out.push(Tally::new(
                        pattern(k, "#", Some(&rest)),
                        TallyKind::Counter,
                        members,
                        words,
                        family,
                        None,
                    ));
                }
            }
            family += 1;
        }
    }
    out.truncate(MAX_TALLIES);
    out
}

/// Where base `b` is, for a tally split at position `split`: its relation and every argument
/// but that one.
pub(crate) fn place(net: &Net, b: usize, split: usize) -> String {
    let base = &net.bases[b];
    let args = base.args.iter().enumerate().filter(|&(j, _)| j != split).map(|(_, a)| a.as_str());
    std::iter::once(base.relation.as_str()).chain(args).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::net;

    #[test]
    fn tictactoe_marks_are_counted_per_player() {
        let net = net("tictactoe");
        let tallies = candidates(&net);
        let x = tallies.iter().find(|t| t.name == "(cell ? ? x)").expect("x's marks");
        assert_eq!((x.kind, x.bases.len()), (TallyKind::Count, 9));
        let o = tallies.iter().find(|t| t.name == "(cell ? ? o)").expect("o's marks");
        assert_eq!(x.family, o.family);
        let mut state = vec![0u64; net.bases.len().div_ceil(64)];
        for &b in &x.bases[..3] {
            state.set_bit(b);
        }
        assert_eq!((x.read(&state), o.read(&state)), (Some(3), Some(0)));
    }
}
