//! Groups of base propositions of which at most one, or exactly one, is true in every reachable
//! state: a cell's contents, whose turn it is, a counter's value (chapter 12's state invariants).
//!
//! Candidates come from the propositions' own shape: those of one relation that agree on every
//! argument but one or two (`(cell 1 1 x)`, `(cell 1 1 o)`, `(cell 1 1 b)`), or all of a relation
//! (`(control white)`, `(control black)`). Random play keeps the groups no sampled state holds two
//! of, noting those every sampled state holds one of; the proof then keeps what one step of legal
//! play preserves from any state where all of them hold, by induction ([`crate::invariants`]):
//! true initially and preserved, a group holds in every reachable state, whatever random play
//! happened to show. The exactly-one candidates are proved first, together, and the rest then in
//! the states they allow.
//!
//! Pairs of propositions of any relations that random play never saw true together, though
//! each was true often enough that chance would hardly keep them apart (a turn counter's odd
//! values and the first player's turn, a step counter and the cells not yet reached), and
//! implications that it never saw broken (a piece that is only ever where another stands
//! below it, a flag set only while a phase lasts), are proved the same way afterwards, in the
//! states that satisfy the groups proved.
//!
//! A group also gives composite latches larger than pairs (chapter 12: a group of propositions
//! that latches as a whole): the members that random play led on to from one member (a
//! counter's higher values, a piece's squares ahead of it) are a candidate set, and the same
//! proof checks that from every reachable state where one of them holds, one of them holds
//! next. With the group proved, one member of such a set holding means none outside it does,
//! for good.

use crate::consequences::Consequences;
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
/// The most pairs of propositions of any relations tried as never true together.
const MOST_PAIRS: usize = 2_000;
/// How many screened states would hold both of a pair, were they independent, for the pair to
/// be tried: with none seen, chance alone explains that less than once in a hundred (e^-5).
const LEAST_EXPECTED: f64 = 5.0;
/// The most sampled states screened for pairs.
const PAIR_SAMPLES: usize = 4_096;
/// The most propositions screened for pairs, the most often true first.
const MOST_OFTEN: usize = 1_024;

/// A group of base propositions proved never to hold two at once; or, where it is an
/// implication, a pair of which the first never holds without the second.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Group {
    /// The bases (indices into the net's), in order; an implication's in its own order.
    pub bases: Vec<usize>,
    /// Whether one of them always holds: exactly one, not only at most one.
    pub exactly_one: bool,
    /// Whether it is a pair of propositions of any relations that random play never saw true
    /// together (a turn counter's odd value and the first player's turn), not one relation's
    /// values in one place.
    pub pair: bool,
    /// Whether it is a pair `[p, q]` where `p` implies `q` (`p` true and `q` false never
    /// together): a proposition that holds only while another does, of any relations.
    pub implies: bool,
}

impl Group {
    /// The members, each with the value at which it counts: at most one member has its value
    /// in any reachable state (exactly one where the group says so). A member counts when true,
    /// but for an implication's second, which counts when false.
    pub fn literals(&self) -> impl Iterator<Item = (usize, bool)> + '_ {
        self.bases.iter().enumerate().map(|(k, &b)| (b, !(self.implies && k == 1)))
    }
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
        // The exactly-one candidates first, alone: those that hold only together (a sliding
        // puzzle's one tile per cell and one cell per tile) are a small question before the
        // many at-most-one candidates crowd it. The rest are proved with them assumed, in the
        // time they leave. The sets inside a group are checked with it.
        let sets = latching_sets(&groups, &samples, &steps);
        let (strong_sets, weak_sets): (Vec<_>, Vec<_>) = sets.into_iter().partition(|(g, _)| groups[*g].exactly_one);
        let stays = |sets: &[(usize, Vec<usize>)]| -> Vec<Step> {
            sets.iter().map(|(_, set)| Step::Stays(set.clone())).collect()
        };
        let strong: Vec<&Group> = groups.iter().filter(|g| g.exactly_one).collect();
        let (first, strong_stayed) = prove_groups(net, &strong, &stays(&strong_sets), &[], deadline);
        let assumed: Vec<Group> = first.iter().flatten().cloned().collect();
        let settled: BTreeSet<&[usize]> = assumed.iter().filter(|a| a.exactly_one).map(|a| &a.bases[..]).collect();
        let rest: Vec<&Group> = groups.iter().filter(|g| !settled.contains(&g.bases[..])).collect();
        let (second, weak_stayed) = prove_groups(net, &rest, &stays(&weak_sets), &assumed, deadline);
        // Cut short, the proof answers with what it proved so far; the rest is open.
        let cut = deadline.is_some_and(|d| Instant::now() >= d);
        found.groups = assumed;
        for proved in second {
            match proved {
                Some(g) => found.groups.push(g),
                None if cut => found.open += 1,
                None => found.refuted += 1,
            }
        }
        let proved: BTreeSet<&[usize]> = found.groups.iter().map(|f| &f.bases[..]).collect();
        let kept: Vec<bool> = groups.iter().map(|g| proved.contains(&g.bases[..])).collect();
        found.groups = maximal(found.groups);
        let sets = strong_sets.into_iter().zip(strong_stayed).chain(weak_sets.into_iter().zip(weak_stayed));
        for ((g, set), stays) in sets {
            if stays && kept[g] {
                found.latches.push(set);
            }
        }
        found.prove_pairs(net, &samples, &groups, deadline);
        found
    }

    /// Adds the [`pairs`] of propositions (not both in one of the candidate `groups`) proved
    /// never true together and the [`implications`] proved, in every state that satisfies the
    /// groups proved, with half the time the groups left before `deadline`: the phases after
    /// need time too.
    fn prove_pairs(&mut self, net: &Net, samples: &[Vec<bool>], groups: &[Group], deadline: Option<Instant>) {
        let screen = Screen::new(net.bases.len(), samples);
        let mut pairs = pairs(&screen, samples, groups);
        pairs.extend(implications(&screen, samples, &self.groups));
        // At most one of the literals, both of them in a pair: the clause of their negations.
        let claims: Vec<Candidate> =
            pairs.iter().map(|p| Candidate::AnyOf(p.literals().map(|(b, v)| (b, !v)).collect())).collect();
        let half = deadline.map(|d| Instant::now() + d.saturating_duration_since(Instant::now()) / 2);
        let (proved, _) = crate::invariants(net, &claims, &[], &self.groups, true, half);
        let cut = half.is_some_and(|d| Instant::now() >= d);
        self.candidates += pairs.len();
        for (pair, proved) in pairs.into_iter().zip(proved) {
            match proved {
                true => self.groups.push(pair),
                false if cut => self.open += 1,
                false => self.refuted += 1,
            }
        }
    }
}

/// Which of `groups` hold at most one (`Some`, exactly one where that is proved too) in every
/// reachable state, and which of `steps` hold of every step from one, every state also
/// satisfying the groups proved in `within`.
fn prove_groups(
    net: &Net,
    groups: &[&Group],
    steps: &[Step],
    within: &[Group],
    deadline: Option<Instant>,
) -> (Vec<Option<Group>>, Vec<bool>) {
    let mut claims = Vec::new();
    for g in groups {
        claims.push(Candidate::AtMostOne(g.bases.clone()));
        if g.exactly_one {
            claims.push(Candidate::AnyOf(g.bases.iter().map(|&b| (b, true)).collect()));
        }
    }
    let (proved, stayed) = crate::invariants(net, &claims, steps, within, true, deadline);
    let mut k = 0;
    let mut out = Vec::new();
    for g in groups {
        let at_most_one = proved[k];
        let exactly_one = g.exactly_one && proved[k + 1];
        k += 1 + usize::from(g.exactly_one);
        out.push(at_most_one.then(|| Group { bases: g.bases.clone(), exactly_one, ..Default::default() }));
    }
    (out, stayed)
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

/// The states of random games from the initial state (each game's, so the initial one once per
/// game, and at least once), as bits per base, until `until`, and the steps between them
/// (pairs of indices).
fn sample(net: &Net, until: Option<Instant>, seed: u64) -> (Vec<Vec<bool>>, Vec<(usize, usize)>) {
    let mut m = PropnetMachine::new(net);
    let mut rng = SmallRng::seed_from_u64(seed);
    let initial = m.initial_state();
    let mut out = Vec::new();
    let mut steps = Vec::new();
    let until = until.unwrap_or_else(|| Instant::now() + Duration::from_secs(1));
    for _ in 0..GAMES {
        if Instant::now() >= until {
            break;
        }
        let Ok(states) = random_trajectory(&mut m, &initial, &mut rng, DEPTH) else { break };
        // Every game's states, its initial one included: each game passes through it, and a
        // proposition true only there is as common as the games.
        for (k, s) in states.iter().enumerate() {
            if k > 0 {
                steps.push((out.len() - 1, out.len()));
            }
            out.push((0..net.bases.len()).map(|b| s.contains(b)).collect());
        }
    }
    if out.is_empty() {
        out.push((0..net.bases.len()).map(|b| net.bases[b].init).collect());
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
            (seen.iter().filter(|&&x| x).count() >= 2).then_some(Group {
                bases,
                exactly_one: always_one,
                ..Default::default()
            })
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

/// The sampled states screened for pairs and implications: an even spread of at most
/// [`PAIR_SAMPLES`], as a bitset per base, how many hold each, and the propositions true often
/// enough to be tried.
struct Screen {
    states: usize,
    columns: Vec<Vec<u64>>,
    count: Vec<usize>,
    /// The propositions true in at least as many screened states as evidence needs (no pair
    /// with a rarer one could give enough) and not in every one: at most [`MOST_OFTEN`], the
    /// most often true first.
    often: Vec<usize>,
}

impl Screen {
    fn new(bases: usize, samples: &[Vec<bool>]) -> Screen {
        let stride = samples.len().div_ceil(PAIR_SAMPLES).max(1);
        let screen: Vec<&Vec<bool>> = samples.iter().step_by(stride).collect();
        let words = screen.len().div_ceil(64);
        let mut columns = vec![vec![0u64; words]; bases];
        let mut count = vec![0usize; bases];
        for (k, s) in screen.iter().enumerate() {
            for (b, column) in columns.iter_mut().enumerate() {
                if s[b] {
                    column[k / 64] |= 1 << (k % 64);
                    count[b] += 1;
                }
            }
        }
        let least = LEAST_EXPECTED.ceil() as usize;
        let mut often: Vec<usize> = (0..bases).filter(|&b| count[b] >= least && count[b] < screen.len()).collect();
        often.sort_by_key(|&b| std::cmp::Reverse(count[b]));
        often.truncate(MOST_OFTEN);
        Screen { states: screen.len(), columns, count, often }
    }

    /// Whether no screened state holds `a` with `b` at `value`.
    fn never(&self, a: usize, b: usize, value: bool) -> bool {
        let flip = if value { 0 } else { u64::MAX };
        self.columns[a].iter().zip(&self.columns[b]).all(|(x, y)| x & (y ^ flip) == 0)
    }
}

/// Pairs of propositions of any relations, not both members of one candidate group, that no
/// sampled state holds together though each is true often enough that, were they independent,
/// [`LEAST_EXPECTED`] states or more would: at most [`MOST_PAIRS`], the strongest evidence
/// first (the most states expected).
fn pairs(screen: &Screen, samples: &[Vec<bool>], groups: &[Group]) -> Vec<Group> {
    let (often, count) = (&screen.often, &screen.count);
    let partners = Consequences::new(count.len(), groups);
    let grouped = |a: usize, b: usize| partners.partners(a).any(|p| p == b);
    let expected = |a: usize, b: usize| (count[a] * count[b]) as f64 / screen.states as f64;
    let mut found: Vec<(usize, usize, usize)> = Vec::new();
    for (i, &a) in often.iter().enumerate() {
        // Sorted by count, so the pairs with `a` further on are expected in ever fewer states.
        for &b in often[i + 1..].iter().take_while(|&&b| expected(a, b) >= LEAST_EXPECTED) {
            if screen.never(a, b, true) && !grouped(a, b) {
                found.push((count[a] * count[b], a.min(b), a.max(b)));
            }
        }
    }
    found.sort_unstable_by_key(|&(strength, a, b)| (std::cmp::Reverse(strength), a, b));
    found
        .into_iter()
        .filter(|&(_, a, b)| !samples.iter().any(|s| s[a] && s[b]))
        .take(MOST_PAIRS)
        .map(|(_, a, b)| Group { bases: vec![a, b], pair: true, ..Default::default() })
        .collect()
}

/// Implications `p → q` between propositions of any relations: no sampled state holds `p`
/// without `q`, though `p` is true often enough and `q` false often enough that, were they
/// independent, [`LEAST_EXPECTED`] states or more would. `q` is in no exactly-one group of
/// `proved` (there `p → q` is the pairs of `p` with `q`'s partners). Two propositions always
/// equal in play are tried both ways. At most [`MOST_PAIRS`], the strongest evidence first.
fn implications(screen: &Screen, samples: &[Vec<bool>], proved: &[Group]) -> Vec<Group> {
    let (often, count) = (&screen.often, &screen.count);
    let mut exclusive = vec![false; count.len()];
    for g in proved.iter().filter(|g| g.exactly_one) {
        g.bases.iter().for_each(|&b| exclusive[b] = true);
    }
    let n = screen.states as f64;
    let expected = |p: usize, q: usize| count[p] as f64 * (screen.states - count[q]) as f64 / n;
    let mut found: Vec<(usize, usize, usize)> = Vec::new();
    for &p in often {
        // `q` holds wherever `p` does, so at least as often.
        for &q in often.iter().take_while(|&&q| count[q] >= count[p]) {
            if q != p && !exclusive[q] && expected(p, q) >= LEAST_EXPECTED && screen.never(p, q, false) {
                found.push((count[p] * (screen.states - count[q]), p, q));
            }
        }
    }
    found.sort_unstable_by_key(|&(strength, p, q)| (std::cmp::Reverse(strength), p, q));
    found
        .into_iter()
        .filter(|&(_, p, q)| !samples.iter().any(|s| s[p] && !s[q]))
        .take(MOST_PAIRS)
        .map(|(_, p, q)| Group { bases: vec![p, q], implies: true, ..Default::default() })
        .collect()
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
        let (proved, _) = crate::invariants(&net, &[Candidate::AtMostOne(vec![p, q])], &[], &[], false, None);
        assert_eq!(proved, [false]);
        let counter: Vec<usize> = ["(c 1)", "(c 2)", "(c 3)"].iter().map(|n| base(&net, n)).collect();
        let (proved, _) = crate::invariants(
            &net,
            &[Candidate::AtMostOne(counter.clone()), Candidate::AnyOf(counter.iter().map(|&b| (b, true)).collect())],
            &[],
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
            let (proved, stepped) = crate::invariants(&net, &group, &[Step::Stays(set.to_vec())], &[], false, None);
            assert_eq!(proved, [true]);
            stepped.iter().all(|&s| s)
        };
        assert!(holds(&[c[1], c[2]]));
        // One of 1 and 2 holding does not keep one of them: 2 goes on to 3.
        assert!(!holds(&[c[0], c[1]]));
    }

    #[test]
    fn a_counter_and_the_turn_are_never_out_of_step() {
        // Two roles take turns for ten moves: on an odd count it is b's turn. No relation's
        // shape says so; the pairs random play never saw together do, proved with the groups.
        let net = crate::testing::compiled(
            "(role a) (role b) (init (count 0)) (init (control a))
             (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7) (succ 7 8)
             (succ 8 9) (succ 9 10)
             (<= (legal ?r (mark ?n)) (true (control ?r)) (true (count ?c)) (succ ?c ?n))
             (<= (legal ?r noop) (role ?r) (not (true (control ?r))))
             (<= (next (count ?n)) (does ?r (mark ?n)))
             (<= (next (control a)) (true (control b))) (<= (next (control b)) (true (control a)))
             (<= terminal (true (count 10))) (<= (goal ?r 50) (role ?r))",
        );
        let found = Exclusive::discover(&net, None, 1);
        let pairs: Vec<Vec<String>> = found.groups.iter().filter(|g| g.pair).map(|g| named(&net, g)).collect();
        for n in 0..=10 {
            let wrong = if n % 2 == 0 { "(control b)" } else { "(control a)" };
            let mut pair = vec![format!("(count {n})"), wrong.to_owned()];
            pair.sort_by_key(|name| base(&net, name));
            assert!(
                pairs.contains(&pair),
                "{pair:?} not in {pairs:?}; {} {} {}",
                found.candidates,
                found.refuted,
                found.open
            );
        }
        assert_eq!(pairs.len(), 11, "{pairs:?}");
        assert!(found.groups.iter().filter(|g| !g.pair).all(|g| g.exactly_one));
    }

    #[test]
    fn a_light_that_only_a_started_game_can_turn_on_implies_it() {
        // The light can be toggled once the game has started, and the start stays: the light
        // on implies started, though no relation's shape ties them and neither is a group.
        let net = crate::testing::compiled(
            "(role r) (init (count 0)) (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
             (succ 6 7) (succ 7 8) (<= (legal r wait)) (<= (legal r start) (not (true started)))
             (<= (legal r toggle) (true started))
             (<= (next started) (does r start)) (<= (next started) (true started))
             (<= (next lit) (true lit) (not (does r toggle))) (<= (next lit) (not (true lit)) (does r toggle))
             (<= (next (count ?n)) (true (count ?c)) (succ ?c ?n))
             (<= terminal (true (count 8))) (<= (goal r 100) (true lit)) (<= (goal r 0) (not (true lit)))",
        );
        let found = Exclusive::discover(&net, None, 1);
        let (lit, started) = (base(&net, "lit"), base(&net, "started"));
        let implies = |p, q| found.groups.iter().any(|g| g.implies && g.bases == [p, q]);
        assert!(implies(lit, started), "{:?}", found.groups.iter().map(|g| named(&net, g)).collect::<Vec<_>>());
        assert!(!implies(started, lit));
        let sure = found.groups.iter().find(|g| g.implies && g.bases == [lit, started]).unwrap();
        assert_eq!(sure.literals().collect::<Vec<_>>(), [(lit, true), (started, false)]);
    }

    #[test]
    fn groups_inside_stronger_ones_are_left_out() {
        let g = |bases: &[usize], exactly_one| Group { bases: bases.to_vec(), exactly_one, ..Default::default() };
        let kept = maximal(vec![g(&[1, 2], true), g(&[1, 2, 3], false), g(&[1, 2, 3, 4], false), g(&[5, 6], true)]);
        assert_eq!(kept, vec![g(&[1, 2, 3, 4], false), g(&[1, 2], true), g(&[5, 6], true)]);
    }
}
