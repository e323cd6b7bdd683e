//! Locality of effect (the Sancho blog, July 2015): which base propositions each move can change
//! and which it reads, the static distance between moves (the least number of moves that must
//! be played before the effects of one can reach what another reads), the distance from each
//! move to the conditions that end the game or give a role its best score, and whether those
//! conditions are coupled (need several moves' contributions at once).
//!
//! Everything here over-approximates what play can do: a move's footprint holds every base it
//! may change in any state, its reads every base its legality or its effects may depend on. The
//! local search relies on that to treat moves far from where it looks as interchangeable.

mod apart;
pub(crate) mod dnf;
mod footprint;

pub use dnf::Conjunction;

use propnet::net::Net;
use propnet::PropnetState;
use serde::Serialize;
use std::collections::VecDeque;
use std::time::Instant;
use structures::Bits;

/// A distance too large to matter, or no path at all.
pub const FAR: u8 = u8::MAX;

/// Distances are computed up to this many moves; anything further is [`FAR`].
pub const MAX_DISTANCE: u8 = 24;

/// A coupled winning condition closer than this many moves to the initial state means moves
/// combine too freely for the local search (connect four's lines).
pub const COUPLED_NEAR: u32 = 4;

/// The average move distance below which moves reach each other too quickly for regions to prune.
pub const LOCAL_ENOUGH: f64 = 2.5;

/// What a condition decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Outcome {
    /// The game ends.
    Terminal,
    /// The role gets its best goal value.
    Best {
        /// Index into the net's roles.
        role: usize,
        /// The value.
        value: u32,
    },
}

/// One disjunct of a condition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Disjunct {
    /// The base literals it needs, sorted by base.
    pub literals: Conjunction,
    /// The most of its literals one joint move can make true (counting only literals on bases
    /// that keep their value unless a move changes them).
    pub cover: u32,
    /// Whether no single joint move can make all of those literals true: it needs several moves.
    pub coupled: bool,
    /// A lower bound on the moves needed to make it hold from the initial state.
    pub initial_moves: u32,
}

/// A condition the local search watches: its disjuncts, or `None` if it could not be expanded
/// (it reads moves, is recursive, or is too large).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Condition {
    /// What it decides.
    pub outcome: Outcome,
    /// Its disjunctive normal form over base literals.
    pub disjuncts: Option<Vec<Disjunct>>,
}

/// Whether the local search should run, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LocalVerdict {
    /// The local search is worth running.
    pub enabled: bool,
    /// The reason, in a sentence.
    pub reason: String,
}

/// The locality of one game's moves.
#[derive(Debug, Clone, Serialize)]
pub struct Locality {
    /// Per move (input index), every base it may change, directly or by what that change spreads
    /// to on later moves.
    pub footprint: Vec<Vec<u32>>,
    /// Per move, every base its legality reads, and every base its effect on another base reads.
    pub reads: Vec<Vec<u32>>,
    /// Per base, whether some move can change it (the others evolve the same in every line).
    pub changeable: Vec<bool>,
    /// Per base, whether it keeps its value unless some move changes it (false for bases that
    /// move by themselves, such as counters, or follow other bases).
    pub stays: Vec<bool>,
    /// Per move, the moves whose reads meet its footprint: what it can affect when played next.
    pub successors: Vec<Vec<u32>>,
    /// Per move, the moves whose footprint meets its reads (the successor relation reversed).
    pub predecessors: Vec<Vec<u32>>,
    /// Distances between moves, row-major (`from × to`), capped at [`MAX_DISTANCE`]: the fewest
    /// moves played after `from`, `to` included, through which its effects can reach what `to`
    /// reads (a chain of successors).
    #[serde(skip)]
    pub distance: Vec<u8>,
    /// The terminal condition and each role's best score.
    pub conditions: Vec<Condition>,
    /// Per move, the distance along its own role's moves to a move that can complete a
    /// single-move disjunct of the role's best score (0 when it can itself): the fewest further
    /// moves of its own before it can win.
    pub goal_distance: Vec<u8>,
    /// Pairs of distinct moves of one role that other moves can affect, by distance the nearer
    /// way round: entry `d - 1` counts those at distance `d`, the last those out of reach.
    pub pair_distances: Vec<u64>,
    /// The mean distance between two moves of the same role, the nearer way round (pairs out of
    /// reach count as [`MAX_DISTANCE`]); moves no other move can affect are left out.
    pub average_distance: f64,
    /// Whether the local search is worth running.
    pub verdict: LocalVerdict,
}

impl Locality {
    /// Analyses `net`, or `None` if `deadline` passes first. Games the local search cannot
    /// serve (not two roles, conditions that do not expand) get their moves' effects but are
    /// judged without the distances.
    pub fn analyse(net: &Net, deadline: Option<Instant>) -> Option<Locality> {
        let (nb, nm) = (net.bases.len(), net.moves.len());
        let mut locality = Locality {
            footprint: vec![Vec::new(); nm],
            reads: vec![Vec::new(); nm],
            changeable: vec![false; nb],
            stays: vec![false; nb],
            successors: vec![Vec::new(); nm],
            predecessors: vec![Vec::new(); nm],
            distance: Vec::new(),
            conditions: Vec::new(),
            goal_distance: vec![FAR; nm],
            pair_distances: Vec::new(),
            average_distance: 0.0,
            verdict: LocalVerdict { enabled: false, reason: String::new() },
        };
        // The effects come first: factorisation reads them whether or not the search can run.
        let Effects { footprint, reads, changeable, fp } = effects(net, deadline)?;
        (locality.footprint, locality.reads, locality.changeable) = (footprint, reads, changeable);
        locality.stays = fp.stays.clone();
        let expanded = expand(net);
        if let Some(reason) = unsuitable(net, &expanded) {
            locality.verdict = LocalVerdict { enabled: false, reason };
            return Some(locality);
        }
        locality.successors = successors(nb, &locality.footprint, &locality.reads);
        locality.predecessors = reverse(&locality.successors);
        locality.distance = distances(&locality.successors, deadline)?;
        let counted: Vec<bool> = (0..nb).map(|b| locality.changeable[b] && fp.stays[b]).collect();
        let apart = passes_apart(net, &fp);
        locality.conditions = classify(net, &fp, &counted, &apart, expanded);
        locality.goal_distance = own_goal_distance(net, &locality);
        locality.pair_distances = pair_distances(net, &locality.predecessors, &locality.distance);
        locality.average_distance = average(&locality.pair_distances);
        locality.verdict = locality.judge(net);
        Some(locality)
    }

    /// Per move, its predecessors among `role`'s own moves (empty for other roles' moves): the
    /// graph along which a role's own chains of moves run.
    pub fn own_predecessors(&self, net: &Net, role: usize) -> Vec<Vec<u32>> {
        let of_role = |j: usize| net.moves[j].role == role;
        (0..net.moves.len())
            .map(|j| match of_role(j) {
                true => self.predecessors[j].iter().copied().filter(|&p| of_role(p as usize)).collect(),
                false => Vec::new(),
            })
            .collect()
    }

    /// The distance from move `a` to move `b`.
    pub fn distance(&self, a: u32, b: u32) -> u8 {
        self.distance[a as usize * self.footprint.len() + b as usize]
    }

    /// A lower bound on the moves needed before `d` holds in the state with base words `state`.
    /// A false literal on a base that changes by itself, or that no move changes, costs nothing.
    pub fn moves_needed(&self, d: &Disjunct, state: &[u64]) -> u32 {
        let counted = |b: u32| self.changeable[b as usize] && self.stays[b as usize];
        moves_needed(&d.literals, d.cover, &counted, state)
    }

    fn judge(&self, net: &Net) -> LocalVerdict {
        let no = |reason: String| LocalVerdict { enabled: false, reason };
        let near = self.conditions.iter().find_map(|c| {
            let ds = c.disjuncts.as_ref()?;
            ds.iter().find(|d| d.coupled && d.initial_moves <= COUPLED_NEAR).map(|d| (c.outcome, d))
        });
        if let Some((outcome, d)) = near {
            return no(format!(
                "{} is coupled: one of its disjuncts needs {} moves' effects together, {} moves from the start",
                describe(net, outcome),
                d.literals.len(),
                d.initial_moves
            ));
        }
        if self.average_distance < LOCAL_ENOUGH {
            return no(format!(
                "moves are {:.2} apart on average, under the {LOCAL_ENOUGH:.1} that makes regions worth searching",
                self.average_distance
            ));
        }
        LocalVerdict {
            enabled: true,
            reason: format!("no near coupled condition, and moves are {:.2} apart on average", self.average_distance),
        }
    }
}

/// What every move may change and read, from the next-value and legality gates.
pub(crate) struct Effects {
    /// Per move, every base it may change, directly or by what that change spreads to.
    pub footprint: Vec<Vec<u32>>,
    /// Per move, every base its legality or its effects read.
    pub reads: Vec<Vec<u32>>,
    /// Per base, whether some move can change it.
    pub changeable: Vec<bool>,
    /// The footprints these were closed from.
    pub fp: footprint::Footprints,
}

/// The effects of every move of `net`, or `None` if `deadline` passes first.
pub(crate) fn effects(net: &Net, deadline: Option<Instant>) -> Option<Effects> {
    let nb = net.bases.len();
    let fp = footprint::footprints(net, deadline)?;
    let mut spread_to = vec![Vec::new(); nb];
    for (to, from) in fp.spread.iter().enumerate() {
        for &f in from.iter().filter(|&&f| f as usize != to) {
            spread_to[f as usize].push(to as u32);
        }
    }
    let mut out =
        Effects { footprint: Vec::new(), reads: Vec::new(), changeable: vec![false; nb], fp: Default::default() };
    for (j, mv) in net.moves.iter().enumerate() {
        let closed = closure(&fp.writes[j], &spread_to);
        closed.iter().for_each(|&b| out.changeable[b as usize] = true);
        out.footprint.push(closed);
        let mut read: Vec<u32> = net.bases_read([mv.legal]).into_iter().map(|b| b as u32).collect();
        read.extend_from_slice(&fp.effect_reads[j]);
        read.sort_unstable();
        read.dedup();
        out.reads.push(read);
        if deadline.is_some_and(|d| Instant::now() > d) {
            return None;
        }
    }
    out.fp = fp;
    Some(out)
}

/// A condition's name for reports.
pub fn describe(net: &Net, outcome: Outcome) -> String {
    match outcome {
        Outcome::Terminal => "terminal".to_owned(),
        Outcome::Best { role, value } => format!("(goal {} {value})", net.roles[role]),
    }
}

/// `start` and everything reachable from it along `successors`, sorted.
fn closure(start: &[u32], successors: &[Vec<u32>]) -> Vec<u32> {
    let mut seen: Vec<u32> = start.to_vec();
    let mut queue: Vec<u32> = start.to_vec();
    let mut mark = rustc_hash::FxHashSet::from_iter(start.iter().copied());
    while let Some(b) = queue.pop() {
        for &s in &successors[b as usize] {
            if mark.insert(s) {
                seen.push(s);
                queue.push(s);
            }
        }
    }
    seen.sort_unstable();
    seen
}

/// Per move, the moves whose reads meet its footprint.
fn successors(bases: usize, footprint: &[Vec<u32>], reads: &[Vec<u32>]) -> Vec<Vec<u32>> {
    let mut readers = vec![Vec::new(); bases];
    for (j, rd) in reads.iter().enumerate() {
        rd.iter().for_each(|&b| readers[b as usize].push(j as u32));
    }
    let mut out: Vec<Vec<u32>> = vec![Vec::new(); footprint.len()];
    for (j, fp) in footprint.iter().enumerate() {
        for &b in fp {
            out[j].extend(readers[b as usize].iter().copied().filter(|&r| r as usize != j));
        }
        out[j].sort_unstable();
        out[j].dedup();
    }
    out
}

/// The edges of a directed graph turned round.
fn reverse(edges: &[Vec<u32>]) -> Vec<Vec<u32>> {
    let mut out = vec![Vec::new(); edges.len()];
    for (from, to) in edges.iter().enumerate() {
        to.iter().for_each(|&t| out[t as usize].push(from as u32));
    }
    out
}

/// Breadth-first distances from `sources` to every move along `edges`, capped at
/// [`MAX_DISTANCE`]. Along [`Locality::predecessors`] they are distances *to* the sources.
pub fn multi_source(edges: &[Vec<u32>], sources: &[u32]) -> Vec<u8> {
    let mut dist = vec![FAR; edges.len()];
    let mut queue = VecDeque::new();
    for &s in sources {
        if dist[s as usize] != 0 {
            dist[s as usize] = 0;
            queue.push_back(s);
        }
    }
    while let Some(v) = queue.pop_front() {
        let d = dist[v as usize];
        if d >= MAX_DISTANCE {
            continue;
        }
        for &w in &edges[v as usize] {
            if dist[w as usize] == FAR {
                dist[w as usize] = d + 1;
                queue.push_back(w);
            }
        }
    }
    dist
}

/// Per move, the distance along its role's own moves to one completing a single-move disjunct of
/// the role's best score.
fn own_goal_distance(net: &Net, l: &Locality) -> Vec<u8> {
    let mut out = vec![FAR; net.moves.len()];
    for c in &l.conditions {
        let Outcome::Best { role, .. } = c.outcome else { continue };
        let single: Vec<&Disjunct> = c.disjuncts.iter().flatten().filter(|d| !d.coupled).collect();
        let of_role = |j: usize| net.moves[j].role == role;
        let targets: Vec<u32> = (0..net.moves.len())
            .filter(|&j| of_role(j))
            .filter(|&j| single.iter().any(|d| d.literals.iter().any(|(b, _)| l.footprint[j].binary_search(b).is_ok())))
            .map(|j| j as u32)
            .collect();
        let own = l.own_predecessors(net, role);
        for (j, d) in multi_source(&own, &targets).into_iter().enumerate().filter(|&(j, _)| of_role(j)) {
            out[j] = d;
        }
    }
    out
}

/// Every pair's distance along `successors`, or `None` past the deadline.
fn distances(successors: &[Vec<u32>], deadline: Option<Instant>) -> Option<Vec<u8>> {
    let n = successors.len();
    let mut out = Vec::with_capacity(n * n);
    for s in 0..n as u32 {
        if s % 64 == 0 && deadline.is_some_and(|d| Instant::now() > d) {
            return None;
        }
        out.extend(multi_source(successors, &[s]));
    }
    Some(out)
}

/// Pairs of distinct moves of one role that other moves can affect, by distance the nearer way
/// round: entry `d - 1` counts pairs at distance `d` up to [`MAX_DISTANCE`], the last entry pairs
/// out of reach.
fn pair_distances(net: &Net, predecessors: &[Vec<u32>], distance: &[u8]) -> Vec<u64> {
    let n = predecessors.len();
    let cap = usize::from(MAX_DISTANCE);
    let mut counts = vec![0u64; cap + 1];
    let reached: Vec<usize> = (0..n).filter(|&a| !predecessors[a].is_empty()).collect();
    for &a in &reached {
        for &b in reached.iter().filter(|&&b| b > a && net.moves[b].role == net.moves[a].role) {
            let d = usize::from(distance[a * n + b].min(distance[b * n + a])).min(cap + 1);
            counts[d - 1] += 1;
        }
    }
    counts
}

/// The mean of `pair_distances`, pairs out of reach counting as [`MAX_DISTANCE`].
fn average(counts: &[u64]) -> f64 {
    let pairs: u64 = counts.iter().sum();
    let sum: u64 = counts.iter().enumerate().map(|(i, &c)| c * (i as u64 + 1).min(u64::from(MAX_DISTANCE))).sum();
    if pairs == 0 {
        0.0
    } else {
        sum as f64 / pairs as f64
    }
}

/// Why the local search cannot serve `net` at all, if it cannot.
fn unsuitable(net: &Net, expanded: &[(Outcome, Option<Vec<Conjunction>>)]) -> Option<String> {
    if net.roles.len() != 2 {
        return Some(format!("the search is for two-player games; this one has {}", net.roles.len()));
    }
    let (outcome, _) = expanded.iter().find(|(_, d)| d.is_none())?;
    Some(format!("{} could not be written as disjuncts of base literals", describe(net, *outcome)))
}

/// The terminal condition and each role's best score in disjunctive normal form.
fn expand(net: &Net) -> Vec<(Outcome, Option<Vec<Conjunction>>)> {
    let mut expander = dnf::Expander::new(net);
    let mut roots = vec![(Outcome::Terminal, net.terminal)];
    for (role, goals) in net.goals.iter().enumerate() {
        if let Some(&(value, node)) = goals.iter().max_by_key(|(v, _)| *v) {
            roots.push((Outcome::Best { role, value }, node));
        }
    }
    roots.into_iter().map(|(outcome, node)| (outcome, expander.dnf(node, true))).collect()
}

/// The expanded conditions with each disjunct's cover and coupling worked out. `counted` says
/// which bases cost a move to change.
fn classify(
    net: &Net,
    fp: &footprint::Footprints,
    counted: &[bool],
    apart: &Apart,
    expanded: Vec<(Outcome, Option<Vec<Conjunction>>)>,
) -> Vec<Condition> {
    let initial = PropnetState::from_bases(net.bases.len(), (0..net.bases.len()).filter(|&i| net.bases[i].init));
    // Which moves change each base, alone or beside another role's move.
    let mut touching = vec![Vec::new(); net.bases.len()];
    for j in 0..net.moves.len() {
        for &b in fp.writes[j].iter().chain(&fp.own[j]) {
            touching[b as usize].push(j);
        }
    }
    expanded
        .into_iter()
        .map(|(outcome, conjunctions)| {
            let disjuncts = conjunctions.map(|conjunctions| {
                conjunctions
                    .into_iter()
                    .map(|literals| {
                        let cover = cover(net, fp, &touching, counted, apart, &literals);
                        let live = literals.iter().filter(|(b, _)| counted[*b as usize]).count() as u32;
                        let initial_moves = moves_needed(&literals, cover, &|b| counted[b as usize], initial.words());
                        Disjunct { literals, cover, coupled: cover < live, initial_moves }
                    })
                    .collect()
            });
            Condition { outcome, disjuncts }
        })
        .collect()
}

/// The most counted literals of `literals` one joint move can flip. With two roles playing `a`
/// and `c`, a base changes only where `a` differs from its role's default with `c` played
/// (`writes[a]`) or `c` does with the other at its default (`own[c]`), and the same the other
/// way round, so within `(own[a] ∪ writes[c]) ∩ (own[c] ∪ writes[a])`; pairs in `apart` never
/// meet. Other role counts get the trivial bound.
fn cover(
    net: &Net,
    fp: &footprint::Footprints,
    touching: &[Vec<usize>],
    counted: &[bool],
    apart: &Apart,
    literals: &Conjunction,
) -> u32 {
    let live: Vec<u32> = literals.iter().map(|&(b, _)| b).filter(|&b| counted[b as usize]).collect();
    if net.roles.len() != 2 || live.is_empty() {
        return live.len() as u32;
    }
    let words = live.len().div_ceil(64);
    // Per role, the (own, writes) masks over `live` of every move that touches it, and an empty
    // pair standing for the moves that do not.
    type Masks = (Option<usize>, Vec<u64>, Vec<u64>);
    let mut masks: Vec<Vec<Masks>> = vec![vec![(None, vec![0; words], vec![0; words])]; 2];
    let mut index: rustc_hash::FxHashMap<usize, usize> = rustc_hash::FxHashMap::default();
    for (k, &b) in live.iter().enumerate() {
        for &j in &touching[b as usize] {
            let role = net.moves[j].role;
            let slot = *index.entry(j).or_insert_with(|| {
                masks[role].push((Some(j), vec![0; words], vec![0; words]));
                masks[role].len() - 1
            });
            let (_, own, writes) = &mut masks[role][slot];
            if fp.own[j].binary_search(&b).is_ok() {
                own.set_bit(k);
            }
            if fp.writes[j].binary_search(&b).is_ok() {
                writes.set_bit(k);
            }
        }
    }
    if masks[0].len().saturating_mul(masks[1].len()) > 4_000_000 {
        return live.len() as u32;
    }
    let mut best = 0;
    for (a, own_a, writes_a) in &masks[0] {
        for (c, own_c, writes_c) in &masks[1] {
            if a.zip(*c).is_some_and(|pair| apart.contains(&pair)) {
                continue;
            }
            let n: u32 = (0..words).map(|w| ((own_a[w] | writes_c[w]) & (own_c[w] | writes_a[w])).count_ones()).sum();
            best = best.max(n);
        }
    }
    best
}

/// Pairs of moves (of the first role, of the second) never legal together.
type Apart = rustc_hash::FxHashSet<(usize, usize)>;

/// Among the moves of two roles that change nothing alone (passes), the pairs provably never
/// legal together: the impossible joint moves that the bound on one step's changes may skip.
fn passes_apart(net: &Net, fp: &footprint::Footprints) -> Apart {
    let mut apart = Apart::default();
    if net.roles.len() != 2 {
        return apart;
    }
    let passes = |role: usize| -> Vec<usize> {
        (0..net.moves.len())
            .filter(|&j| net.moves[j].role == role && fp.own[j].is_empty() && !fp.writes[j].is_empty())
            .collect()
    };
    let (first, second) = (passes(0), passes(1));
    if first.len() * second.len() > 64 {
        return apart;
    }
    let checker = crate::cone::Checker::new(net);
    for &a in &first {
        for &c in &second {
            if apart::never_together(net, &checker, a, c) {
                apart.insert((a, c));
            }
        }
    }
    apart
}

/// Each false counted literal needs a joint move to flip it, and one flips at most `cover`.
fn moves_needed(literals: &[(u32, bool)], cover: u32, counted: &dyn Fn(u32) -> bool, state: &[u64]) -> u32 {
    let false_live = literals.iter().filter(|&&(b, v)| counted(b) && state.bit(b as usize) != v).count() as u32;
    match (false_live, cover) {
        (0, _) => 0,
        (_, 0) => u32::MAX,
        (f, c) => f.div_ceil(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{base, net};

    fn move_index(net: &Net, role: usize, name: &str) -> usize {
        (0..net.moves.len()).find(|&j| net.moves[j].role == role && net.moves[j].name == name).expect("a move")
    }

    #[test]
    fn a_breakthrough_move_changes_only_its_two_squares_and_passes_change_nothing_alone() {
        let net = net("breakthrough");
        let l = Locality::analyse(&net, None).expect("no deadline");
        let step = move_index(&net, 0, "(move 3 2 3 3)");
        let names: Vec<&str> = l.footprint[step].iter().map(|&b| net.bases[b as usize].name.as_str()).collect();
        assert!(names.contains(&"(cellholds 3 2 white)") && names.contains(&"(cellholds 3 3 white)"), "{names:?}");
        assert!(names.iter().all(|n| n.contains(" 3 2 ") || n.contains(" 3 3 ")), "{names:?}");
        // The pass differs from a real move everywhere, yet flips nothing: both passes are never
        // legal together, so no step clears the board.
        let terminal = &l.conditions[0];
        assert_eq!(terminal.outcome, Outcome::Terminal);
        let disjuncts = terminal.disjuncts.as_ref().expect("expanded");
        assert_eq!(disjuncts.iter().filter(|d| !d.coupled && d.literals.len() == 1).count(), 16);
        let wipeouts: Vec<&Disjunct> = disjuncts.iter().filter(|d| d.coupled).collect();
        assert_eq!(wipeouts.len(), 2);
        assert!(wipeouts.iter().all(|d| d.cover == 2 && d.initial_moves == 8), "{wipeouts:?}");
        assert!(l.verdict.enabled, "{}", l.verdict.reason);
    }

    #[test]
    fn distances_grow_with_the_board_and_goal_distance_with_the_ranks_to_go() {
        let net = net("breakthrough");
        let l = Locality::analyse(&net, None).expect("no deadline");
        let near = move_index(&net, 0, "(move 3 2 3 3)");
        let next = move_index(&net, 0, "(move 3 3 3 4)");
        let far = move_index(&net, 0, "(move 8 2 8 3)");
        assert_eq!(l.distance(near as u32, next as u32), 1);
        assert!(l.distance(near as u32, far as u32) > 3);
        let last = move_index(&net, 0, "(move 3 7 3 8)");
        assert_eq!(l.goal_distance[last], 0);
        assert!(l.goal_distance[near] > l.goal_distance[next]);
    }

    #[test]
    fn lines_of_four_are_coupled_and_switch_the_search_off() {
        let net = net("connectfour");
        let l = Locality::analyse(&net, None).expect("no deadline");
        assert!(!l.verdict.enabled);
        assert!(l.verdict.reason.contains("coupled"), "{}", l.verdict.reason);
        let state = PropnetState::from_bases(net.bases.len(), (0..net.bases.len()).filter(|&i| net.bases[i].init));
        let line = l.conditions[0].disjuncts.as_ref().expect("expanded").iter().find(|d| d.coupled).expect("a line");
        assert_eq!(l.moves_needed(line, state.words()), line.initial_moves);
        assert!(line.initial_moves >= 4);
        let _ = base(&net, "(control red)");
    }

    #[test]
    fn single_player_games_are_judged_without_distances() {
        let l = Locality::analyse(&net("eightpuzzle"), None).expect("no deadline");
        assert!(!l.verdict.enabled && l.conditions.is_empty() && l.distance.is_empty());
    }
}
