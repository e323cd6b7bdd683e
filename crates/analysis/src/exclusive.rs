//! Groups of base propositions of which at most one, or exactly one, is true in every reachable
//! state: a cell's contents, whose turn it is, a counter's value (chapter 12's state invariants).
//!
//! Candidates come from the propositions' own shape: those of one relation that agree on every
//! argument but one or two (`(cell 1 1 x)`, `(cell 1 1 o)`, `(cell 1 1 b)`), or all of a relation
//! (`(control white)`, `(control black)`). Random play keeps the groups no sampled state holds two
//! of, noting those every sampled state holds one of; the proof then keeps what one step of legal
//! play preserves from any state where all of them hold, all the groups together, by induction
//! ([`crate::invariants`]): true initially and preserved, a group holds in every reachable state,
//! whatever random play happened to show.
//!
//! A group also gives composite latches larger than pairs (chapter 12: a group of propositions
//! that latches as a whole): the members that random play led on to from one member (a
//! counter's higher values, a piece's squares ahead of it) are a candidate set, and the same
//! proof checks that from every reachable state where one of them holds, one of them holds
//! next. With the group proved, one member of such a set holding means none outside it does,
//! for good.

use crate::{Candidate, Step};
use machine::{random_trajectory, StateMachine};
use propnet::net::Net;
use propnet::PropnetMachine;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

/// The most random games sampled, and the most joint moves each.
const GAMES: usize = 200;
const DEPTH: usize = 300;
/// The most propositions over all candidate groups given to the proof, and over all candidate
/// composite latches.
const MOST_MEMBERS: usize = 20_000;

/// A group of base propositions proved never to hold two at once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Group {
    /// The bases (indices into the net's), in order.
    pub bases: Vec<usize>,
    /// Whether one of them always holds: exactly one, not only at most one.
    pub exactly_one: bool,
}

/// What the search for groups found.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Exclusive {
    /// The groups proved, the largest first; none is part of another of the same strength.
    pub groups: Vec<Group>,
    /// Candidate groups random play never contradicted.
    pub candidates: usize,
    /// Of those, groups not proved: a step from a state where every candidate held broke them,
    /// or, where the proof grew a proved set, none of its questions about them came out true.
    pub refuted: usize,
    /// Groups not proved when the deadline cut the proof short.
    pub open: usize,
    /// Sets of members of one proved group that latch together: once one of them holds, one
    /// holds in every later state. Each has two members or more and is not the whole group.
    pub latches: Vec<Vec<usize>>,
    /// States sampled.
    pub samples: usize,
}

impl Exclusive {
    /// The groups of `net`, sampled for at most a fifth of the time to `deadline` and proved
    /// before it.
    pub fn discover(net: &Net, deadline: Option<Instant>, seed: u64) -> Exclusive {
        let sampling = deadline.map(|d| Instant::now() + d.saturating_duration_since(Instant::now()) / 5);
        let (samples, steps) = sample(net, sampling, seed);
        let mut found = Exclusive { samples: samples.len(), ..Exclusive::default() };
        let groups = candidates(net, &samples);
        found.candidates = groups.len();
        let mut claims = Vec::new();
        for g in &groups {
            claims.push(Candidate::AtMostOne(g.bases.clone()));
            if g.exactly_one {
                claims.push(Candidate::AnyOf(g.bases.iter().map(|&b| (b, true)).collect()));
            }
        }
        let sets = latching_sets(&groups, &samples, &steps);
        let stays: Vec<Step> = sets.iter().map(|(_, set)| Step::Stays(set.clone())).collect();
        let (proved, stayed) = crate::invariants(net, &claims, &stays, true, deadline);
        // Cut short, the proof answers with what it proved so far; the rest is open.
        let cut = deadline.is_some_and(|d| Instant::now() >= d);
        let mut k = 0;
        let mut kept = Vec::new();
        for g in groups {
            let at_most_one = proved[k];
            kept.push(at_most_one);
            let at_least_one = g.exactly_one && proved[k + 1];
            k += 1 + usize::from(g.exactly_one);
            match at_most_one {
                true => found.groups.push(Group { bases: g.bases, exactly_one: at_least_one }),
                false if cut => found.open += 1,
                false => found.refuted += 1,
            }
        }
        found.groups = maximal(found.groups);
        for ((g, set), stays) in sets.into_iter().zip(stayed) {
            if stays && kept[g] {
                found.latches.push(set);
            }
        }
        found
    }
}

/// Per candidate group, by index, the sets of its members that random play led on to from one
/// of them (itself included: where it stays, or where play went from it, and on from there),
/// each set once, with two members or more and not the whole group; at most [`MOST_MEMBERS`]
/// members over all sets, the smallest sets first.
fn latching_sets(groups: &[Group], samples: &[Vec<bool>], steps: &[(usize, usize)]) -> Vec<(usize, Vec<usize>)> {
    let mut sets = BTreeSet::new();
    for (g, group) in groups.iter().enumerate() {
        let holding = |s: &Vec<bool>| group.bases.iter().position(|&b| s[b]);
        // Which member follows which, over the sampled steps.
        let mut follows = vec![BTreeSet::new(); group.bases.len()];
        for &(before, after) in steps {
            if let (Some(a), Some(b)) = (holding(&samples[before]), holding(&samples[after])) {
                follows[a].insert(b);
            }
        }
        for start in 0..group.bases.len() {
            let mut reached = BTreeSet::from([start]);
            let mut stack = vec![start];
            while let Some(a) = stack.pop() {
                stack.extend(follows[a].iter().copied().filter(|&b| reached.insert(b)));
            }
            if reached.len() >= 2 && reached.len() < group.bases.len() {
                sets.insert((reached.len(), g, reached.into_iter().map(|i| group.bases[i]).collect::<Vec<_>>()));
            }
        }
    }
    let mut total = 0;
    sets.into_iter()
        .take_while(|(size, _, _)| {
            total += size;
            total <= MOST_MEMBERS
        })
        .map(|(_, g, set)| (g, set))
        .collect()
}

/// The states of random games from the initial state, as bits per base, until `until`, and the
/// steps between them (pairs of indices).
fn sample(net: &Net, until: Option<Instant>, seed: u64) -> (Vec<Vec<bool>>, Vec<(usize, usize)>) {
    let mut m = PropnetMachine::new(net);
    let mut rng = SmallRng::seed_from_u64(seed);
    let initial = m.initial_state();
    let mut out = vec![(0..net.bases.len()).map(|b| net.bases[b].init).collect::<Vec<bool>>()];
    let mut steps = Vec::new();
    let until = until.unwrap_or_else(|| Instant::now() + Duration::from_secs(1));
    for _ in 0..GAMES {
        if Instant::now() >= until {
            break;
        }
        let Ok(states) = random_trajectory(&mut m, &initial, &mut rng, DEPTH) else { break };
        // The trajectory's first state is the initial one, the sample's first.
        let mut before = 0;
        for s in states.iter().skip(1) {
            steps.push((before, out.len()));
            before = out.len();
            out.push((0..net.bases.len()).map(|b| s.contains(b)).collect());
        }
    }
    (out, steps)
}

/// The candidate groups: the propositions of a relation that agree on all arguments but one or
/// two, or all of a relation; those no sample holds two of, where two of them were seen true,
/// marked exactly-one where every sample holds one; each set once, and at most
/// [`MOST_MEMBERS`] propositions in all, the smallest groups first.
fn candidates(net: &Net, samples: &[Vec<bool>]) -> Vec<Group> {
    let mut sets: BTreeSet<Vec<usize>> = BTreeSet::new();
    let mut keyed: BTreeMap<(String, Vec<usize>, Vec<String>), Vec<usize>> = BTreeMap::new();
    for (b, base) in net.bases.iter().enumerate() {
        let n = base.args.len();
        let mut varying: Vec<Vec<usize>> = (0..n).map(|i| vec![i]).collect();
        if n >= 3 {
            varying.extend((0..n).flat_map(|i| (i + 1..n).map(move |j| vec![i, j])));
        }
        if n >= 2 {
            varying.push((0..n).collect());
        }
        for v in varying {
            let fixed: Vec<String> = (0..n).filter(|i| !v.contains(i)).map(|i| base.args[i].clone()).collect();
            keyed.entry((base.relation.clone(), v, fixed)).or_default().push(b);
        }
    }
    for members in keyed.into_values() {
        if members.len() >= 2 {
            sets.insert(members);
        }
    }
    let mut groups: Vec<Group> = sets
        .into_iter()
        .filter_map(|bases| {
            let mut seen = vec![false; bases.len()];
            let mut always_one = true;
            for s in samples {
                let mut count = 0;
                for (k, &b) in bases.iter().enumerate() {
                    if s[b] {
                        count += 1;
                        seen[k] = true;
                    }
                }
                if count > 1 {
                    return None;
                }
                always_one &= count == 1;
            }
            (seen.iter().filter(|&&x| x).count() >= 2).then_some(Group { bases, exactly_one: always_one })
        })
        .collect();
    groups.sort_by_key(|g| g.bases.len());
    let mut total = 0;
    groups.retain(|g| {
        total += g.bases.len();
        total <= MOST_MEMBERS
    });
    groups
}

/// `groups` without those inside another at least as strong, the largest first.
fn maximal(mut groups: Vec<Group>) -> Vec<Group> {
    groups.sort_by(|a, b| b.bases.len().cmp(&a.bases.len()).then_with(|| a.bases.cmp(&b.bases)));
    let mut kept: Vec<Group> = Vec::new();
    for g in groups {
        let inside = kept
            .iter()
            .any(|k| (k.exactly_one || !g.exactly_one) && g.bases.iter().all(|b| k.bases.binary_search(b).is_ok()));
        if !inside {
            kept.push(g);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{base, net};

    fn named(net: &Net, g: &Group) -> Vec<String> {
        g.bases.iter().map(|&b| net.bases[b].name.clone()).collect()
    }

    #[test]
    fn tictactoe_cells_and_turns_hold_exactly_one() {
        let net = net("tictactoe");
        let found = Exclusive::discover(&net, None, 1);
        assert_eq!(found.groups.len(), 10, "{:?}", found.groups.iter().map(|g| named(&net, g)).collect::<Vec<_>>());
        assert!(found.groups.iter().all(|g| g.exactly_one));
        let cell: Vec<usize> = ["(cell 2 3 b)", "(cell 2 3 o)", "(cell 2 3 x)"].iter().map(|n| base(&net, n)).collect();
        let mut sorted = cell.clone();
        sorted.sort_unstable();
        assert!(found.groups.iter().any(|g| g.bases == sorted));
        let control = [base(&net, "(control xplayer)"), base(&net, "(control oplayer)")];
        assert!(found.groups.iter().any(|g| g.bases.len() == 2 && control.iter().all(|b| g.bases.contains(b))));
        assert_eq!(found.refuted, 0);
    }

    #[test]
    fn a_group_random_play_never_broke_but_play_can_is_refuted() {
        // The counter runs 1, 2, 3 (and round again) and p comes true at 3: a short sample (one
        // state) sees p and q never together, yet a step takes the game to both.
        let net = crate::testing::compiled(
            "(role r) (init (c 1)) (init q) (succ 1 2) (succ 2 3) (succ 3 1)
             (<= (next (c ?y)) (true (c ?x)) (succ ?x ?y)) (<= (next q) (true q))
             (<= (next p) (true (c 2))) (<= (legal r go)) (<= terminal (true p)) (<= (goal r 100) (true p))",
        );
        let samples = vec![(0..net.bases.len()).map(|b| net.bases[b].init).collect::<Vec<bool>>()];
        let groups = candidates(&net, &samples);
        // With the initial state alone no group has two members seen true: ask the proof.
        assert!(groups.is_empty());
        let (p, q) = (base(&net, "p"), base(&net, "q"));
        let (proved, _) = crate::invariants(&net, &[Candidate::AtMostOne(vec![p, q])], &[], false, None);
        assert_eq!(proved, [false]);
        let counter: Vec<usize> = ["(c 1)", "(c 2)", "(c 3)"].iter().map(|n| base(&net, n)).collect();
        let (proved, _) = crate::invariants(
            &net,
            &[Candidate::AtMostOne(counter.clone()), Candidate::AnyOf(counter.iter().map(|&b| (b, true)).collect())],
            &[],
            false,
            None,
        );
        assert_eq!(proved, [true, true]);
    }

    #[test]
    fn a_set_latches_only_if_every_member_leads_into_it() {
        // The counter goes 1, 2, 3 and stays; the role may wait.
        let net = crate::testing::compiled(
            "(role r) (init (c 1)) (succ 1 2) (succ 2 3) (<= (legal r go)) (<= (legal r wait))
             (<= (next (c ?y)) (true (c ?x)) (does r go) (succ ?x ?y)) (<= (next (c 3)) (true (c 3)) (does r go))
             (<= (next (c ?x)) (true (c ?x)) (does r wait)) (<= terminal (true (c 3))) (<= (goal r 100))",
        );
        let c: Vec<usize> = ["(c 1)", "(c 2)", "(c 3)"].iter().map(|n| base(&net, n)).collect();
        let group = [Candidate::AtMostOne(c.clone())];
        let holds = |set: &[usize]| {
            let (proved, stepped) = crate::invariants(&net, &group, &[Step::Stays(set.to_vec())], false, None);
            assert_eq!(proved, [true]);
            stepped.iter().all(|&s| s)
        };
        assert!(holds(&[c[1], c[2]]));
        // One of 1 and 2 holding does not keep one of them: 2 goes on to 3.
        assert!(!holds(&[c[0], c[1]]));
    }

    #[test]
    fn groups_inside_stronger_ones_are_left_out() {
        let g = |bases: &[usize], exactly_one| Group { bases: bases.to_vec(), exactly_one };
        let kept = maximal(vec![g(&[1, 2], true), g(&[1, 2, 3], false), g(&[1, 2, 3, 4], false), g(&[5, 6], true)]);
        assert_eq!(kept, vec![g(&[1, 2, 3, 4], false), g(&[1, 2], true), g(&[5, 6], true)]);
    }
}
