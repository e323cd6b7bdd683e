//! An admissible lower bound on the moves a single-player game still needs to end with a given
//! score, built from projections of the propnet (pattern databases found without knowing the
//! game).
//!
//! The base propositions are split into groups: per relation, the split by some argument
//! positions under which every group held exactly one true proposition in random play (a
//! variable of the game, such as where one tile is), else singletons. A group's *projection*
//! keeps its propositions and those its transitions read (its support) and forgets the rest.
//! An abstract state is the values of the kept propositions; a move leads from it wherever
//! three-valued propagation on the net, with everything else unknown, allows. Every real
//! transition has its abstract image, so the abstract distance to a state where the target is
//! still possible never exceeds the real one: each projection's distance, and their maximum,
//! is admissible whatever the groups are (they only decide how strong it is).
//!
//! Sums need more: the number of moves that change a group's own propositions is a lower bound
//! per group, and these add up over groups of which no move ever changes two. That is checked
//! per pair, by searching the product of the two projections from the root.

use analysis::Implication;
use propnet::{Net, NodeId, PropnetMachine, PropnetState};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;
use std::time::Instant;

/// The distance of a state from which the target cannot be reached.
pub const UNREACHABLE: u32 = u32::MAX;

/// Abstract states are kept as 128-bit keys, so a projection keeps at most this many bases.
const MAX_BASES: usize = 128;
/// A projection is given up once exploring it has taken this many propagations (abstract
/// states times moves tried), so that no single projection eats the search's time.
const MAX_QUERIES: usize = 20_000;
/// Next values the propagation leaves open per abstract move; each doubles the successors.
const MAX_OPEN: u32 = 3;
/// Product states searched to show two groups never change together before giving up.
const MAX_PRODUCT: usize = 200_000;
/// Random play that looks for the groups: playouts, and moves per playout.
const PLAYOUTS: u64 = 256;
const PLAY_DEPTH: u32 = 200;

/// One abstract move.
#[derive(Debug, Clone, Copy)]
struct Edge {
    mv: u32,
    to: u32,
    /// Whether it changes the group's own propositions.
    changed: bool,
}

/// The abstract state space of one group's projection, reachable from the root.
#[derive(Debug)]
struct Projection {
    /// The kept base propositions: the group's first, then its support.
    bases: Vec<usize>,
    /// The bits of a key that belong to the group.
    group_mask: u128,
    index: FxHashMap<u128, u32>,
    keys: Vec<u128>,
    /// Per abstract state, its moves in ascending move order.
    edges: Vec<Vec<Edge>>,
    /// Per abstract state, the goal values (by index) possible in it with the game over.
    ends: Vec<u64>,
    /// Per target: the least number of moves to an end with the target, and of moves that
    /// change the group on the way.
    unit: Vec<u32>,
    counted: Vec<u32>,
}

impl Projection {
    fn key(&self, state: &PropnetState) -> u128 {
        self.bases.iter().enumerate().fold(0, |k, (bit, &b)| k | u128::from(state.contains(b)) << bit)
    }

    /// Distances to the abstract states where goal value `k` may end the game, over reversed
    /// moves: every move counts (`unit`), or only those that change the group (`counted`).
    fn distances(&mut self, k: usize) {
        let n = self.keys.len();
        let mut back: Vec<Vec<(u32, bool)>> = vec![Vec::new(); n];
        for (from, edges) in self.edges.iter().enumerate() {
            for e in edges {
                back[e.to as usize].push((from as u32, e.changed));
            }
        }
        let ends: Vec<u32> = (0..n as u32).filter(|&s| self.ends[s as usize] >> k & 1 == 1).collect();
        self.unit = zero_one_bfs(&back, &ends, |_| 1);
        self.counted = zero_one_bfs(&back, &ends, u32::from);
    }
}

/// Shortest distances to `sources` over `back` (edges into each node, with their flag), where
/// an edge costs `cost(flag)`, 0 or 1.
fn zero_one_bfs(back: &[Vec<(u32, bool)>], sources: &[u32], cost: impl Fn(bool) -> u32) -> Vec<u32> {
    let mut dist = vec![UNREACHABLE; back.len()];
    let mut queue: VecDeque<u32> = VecDeque::new();
    for &s in sources {
        dist[s as usize] = 0;
        queue.push_back(s);
    }
    while let Some(s) = queue.pop_front() {
        let d = dist[s as usize];
        for &(from, flag) in &back[s as usize] {
            let c = cost(flag);
            if d + c < dist[from as usize] {
                dist[from as usize] = d + c;
                if c == 0 {
                    queue.push_front(from);
                } else {
                    queue.push_back(from);
                }
            }
        }
    }
    dist
}

/// The lower bound for one game from one root state.
#[derive(Debug)]
pub struct Bound {
    projections: Vec<Projection>,
    /// The role's goal values; a projection's `ends` index them.
    values: Vec<u32>,
    /// Whether two projections (by index, smaller first) may change their groups in one move.
    conflicts: FxHashMap<(usize, usize), bool>,
    /// For the current target: the projections whose distance is not zero everywhere, and those
    /// of them whose counted distances are added up.
    informative: Vec<usize>,
    additive: Vec<usize>,
}

impl Bound {
    /// Builds the projections of `net`'s single role from `root`, stopping at `deadline` (fewer
    /// projections give a weaker bound, never a wrong one).
    pub fn new(net: &Net, root: &PropnetState, deadline: Option<Instant>) -> Bound {
        let values = goal_values(net);
        let mut bound = Bound {
            projections: Vec::new(),
            values,
            conflicts: FxHashMap::default(),
            informative: Vec::new(),
            additive: Vec::new(),
        };
        if net.roles.len() != 1 || bound.values.len() > 64 {
            return bound;
        }
        let groups = groups(net, root, deadline);
        let mut group_of = vec![0; net.bases.len()];
        for (g, members) in groups.iter().enumerate() {
            members.iter().for_each(|&b| group_of[b] = g);
        }
        let mut imp = Implication::new(net);
        let builder = Builder::new(net, &bound.values);
        for members in &groups {
            if deadline.is_some_and(|d| Instant::now() > d) {
                break;
            }
            let mut kept = members.clone();
            let mut support: Vec<usize> = support(net, members).into_iter().map(|b| group_of[b]).collect();
            support.sort_unstable();
            support.dedup();
            for g in support {
                kept.extend(groups[g].iter().filter(|b| !members.contains(b)));
            }
            if let Some(p) = builder.project(&mut imp, kept, members.len(), root, deadline) {
                bound.projections.push(p);
            }
        }
        bound
    }

    /// Prepares the bound for ending the game with `value` (one of the role's goal values).
    pub fn target(&mut self, value: u32) {
        self.informative.clear();
        self.additive.clear();
        let Some(k) = self.values.iter().position(|&v| v == value) else { return };
        for (i, p) in self.projections.iter_mut().enumerate() {
            p.distances(k);
            if p.unit.iter().any(|&d| d != 0) {
                self.informative.push(i);
            }
        }
        // The groups that say most at the root go first; each joins the sum if it never changes
        // together with one already in it.
        let root_counted = |p: &Projection| p.counted[0];
        let mut candidates: Vec<usize> = self
            .informative
            .iter()
            .copied()
            .filter(|&i| (1..UNREACHABLE).contains(&root_counted(&self.projections[i])))
            .collect();
        candidates.sort_by_key(|&i| std::cmp::Reverse(root_counted(&self.projections[i])));
        for c in candidates {
            if self.additive.clone().into_iter().all(|a| !self.conflict(a, c)) {
                self.additive.push(c);
            }
        }
    }

    /// A lower bound on the moves from `state` (reachable from the root) to a terminal state with
    /// the target value; [`UNREACHABLE`] if there is none.
    pub fn estimate(&self, state: &PropnetState) -> u32 {
        let mut most = 0;
        let mut sum = 0u32;
        for &i in &self.informative {
            let p = &self.projections[i];
            // Every reachable state's key is in the table; a missing one would only mean "no
            // information".
            let Some(&s) = p.index.get(&p.key(state)) else { continue };
            let d = p.unit[s as usize];
            if d == UNREACHABLE {
                return UNREACHABLE;
            }
            most = most.max(d);
            if self.additive.contains(&i) {
                sum += p.counted[s as usize];
            }
        }
        most.max(sum)
    }

    /// How many projections the bound has, and how many it adds up for the current target.
    pub fn sizes(&self) -> (usize, usize) {
        (self.projections.len(), self.additive.len())
    }

    /// Whether some move reachable from the root may change the groups of projections `a` and `b`
    /// at once (also when the product is too large to tell).
    fn conflict(&mut self, a: usize, b: usize) -> bool {
        let key = (a.min(b), a.max(b));
        if let Some(&c) = self.conflicts.get(&key) {
            return c;
        }
        let c = product_conflict(&self.projections[key.0], &self.projections[key.1]);
        self.conflicts.insert(key, c);
        c
    }
}

/// Searches the product of two projections from their roots (abstract state 0), pairing moves
/// by name and keeping pairs that agree on the propositions both keep; true if some pair of
/// moves changes both groups, or the product is too large.
fn product_conflict(p: &Projection, q: &Projection) -> bool {
    let shared: Vec<(usize, usize)> =
        p.bases.iter().enumerate().filter_map(|(i, b)| q.bases.iter().position(|c| c == b).map(|j| (i, j))).collect();
    let agree = |x: u128, y: u128| shared.iter().all(|&(i, j)| (x >> i & 1) == (y >> j & 1));
    let mut seen: FxHashSet<(u32, u32)> = FxHashSet::default();
    seen.insert((0, 0));
    let mut stack = vec![(0u32, 0u32)];
    while let Some((s, t)) = stack.pop() {
        for e in &p.edges[s as usize] {
            for f in q.edges[t as usize].iter().filter(|f| f.mv == e.mv) {
                if !agree(p.keys[e.to as usize], q.keys[f.to as usize]) {
                    continue;
                }
                if e.changed && f.changed {
                    return true;
                }
                if seen.insert((e.to, f.to)) {
                    if seen.len() > MAX_PRODUCT {
                        return true;
                    }
                    stack.push((e.to, f.to));
                }
            }
        }
    }
    false
}

/// The single role's goal values, ascending.
fn goal_values(net: &Net) -> Vec<u32> {
    let mut values: Vec<u32> = net.goals.first().map(|g| g.iter().map(|&(v, _)| v).collect()).unwrap_or_default();
    values.sort_unstable();
    values.dedup();
    values
}

/// What every projection needs from the net.
struct Builder<'a> {
    net: &'a Net,
    /// Per goal value (by index), the nodes that give it.
    goals: Vec<Vec<NodeId>>,
    /// The role's input nodes, in move order, with each move's legal node.
    moves: Vec<(u32, NodeId, NodeId)>,
}

impl<'a> Builder<'a> {
    fn new(net: &'a Net, values: &[u32]) -> Builder<'a> {
        let goals =
            values.iter().map(|&v| net.goals[0].iter().filter(|&&(w, _)| w == v).map(|&(_, n)| n).collect()).collect();
        let moves = (0..net.moves.len() as u32)
            .filter(|&m| net.moves[m as usize].role == 0)
            .map(|m| (m, net.moves[m as usize].node, net.moves[m as usize].legal))
            .collect();
        Builder { net, goals, moves }
    }

    /// The projection onto `bases` (the first `group` of them the group), explored from `root`;
    /// `None` if it is too large, the propagation leaves too much open, or `deadline` passes.
    fn project(
        &self,
        imp: &mut Implication,
        bases: Vec<usize>,
        group: usize,
        root: &PropnetState,
        deadline: Option<Instant>,
    ) -> Option<Projection> {
        if bases.len() > MAX_BASES {
            return None;
        }
        let net = self.net;
        let mut p = Projection {
            group_mask: if group >= MAX_BASES { u128::MAX } else { (1 << group) - 1 },
            bases,
            index: FxHashMap::default(),
            keys: Vec::new(),
            edges: Vec::new(),
            ends: Vec::new(),
            unit: Vec::new(),
            counted: Vec::new(),
        };
        let start = p.key(root);
        p.index.insert(start, 0);
        p.keys.push(start);
        let (mut next, mut queries) = (0, 0);
        while next < p.keys.len() {
            if deadline.is_some_and(|d| Instant::now() > d) {
                return None;
            }
            let key = p.keys[next];
            imp.reset();
            let facts: Vec<(NodeId, bool)> =
                p.bases.iter().enumerate().map(|(bit, &b)| (net.bases[b].node, key >> bit & 1 == 1)).collect();
            imp.assume(&facts);
            let terminal = imp.value(net.terminal);
            let mut ends = 0u64;
            if terminal != Some(false) {
                for (k, nodes) in self.goals.iter().enumerate() {
                    if nodes.iter().any(|&n| imp.value(n) != Some(false)) {
                        ends |= 1 << k;
                    }
                }
            }
            let mut edges = Vec::new();
            if terminal != Some(true) {
                for &(mv, _, legal) in &self.moves {
                    if imp.value(legal) == Some(false) {
                        continue;
                    }
                    queries += 1;
                    if queries > MAX_QUERIES {
                        return None;
                    }
                    let mark = imp.mark();
                    let played: Vec<(NodeId, bool)> = self.moves.iter().map(|&(m, node, _)| (node, m == mv)).collect();
                    imp.assume(&played);
                    let (mut known, mut open) = (0u128, Vec::new());
                    for (bit, &b) in p.bases.iter().enumerate() {
                        match imp.value(net.bases[b].next) {
                            Some(true) => known |= 1 << bit,
                            Some(false) => {}
                            None => open.push(bit),
                        }
                    }
                    imp.undo(mark);
                    if open.len() as u32 > MAX_OPEN {
                        return None;
                    }
                    for choice in 0..1u32 << open.len() {
                        let to_key =
                            open.iter().enumerate().fold(known, |k, (i, &bit)| k | u128::from(choice >> i & 1) << bit);
                        let to = *p.index.entry(to_key).or_insert_with(|| {
                            p.keys.push(to_key);
                            (p.keys.len() - 1) as u32
                        });
                        edges.push(Edge { mv, to, changed: (to_key ^ key) & p.group_mask != 0 });
                    }
                }
            }
            p.edges.push(edges);
            p.ends.push(ends);
            next += 1;
        }
        Some(p)
    }
}

/// The base propositions that the next values of `members` read, directly or through the
/// legality of the moves they read.
fn support(net: &Net, members: &[usize]) -> Vec<usize> {
    let mut seen = vec![false; net.kinds.len()];
    let mut stack: Vec<NodeId> = members.iter().map(|&b| net.bases[b].next).collect();
    let mut out = Vec::new();
    while let Some(n) = stack.pop() {
        if std::mem::replace(&mut seen[n as usize], true) {
            continue;
        }
        match net.kinds[n as usize] {
            propnet::Kind::Base(b) => out.push(b as usize),
            propnet::Kind::Input(m) => stack.push(net.moves[m as usize].legal),
            _ => stack.extend(net.inputs[n as usize].iter().copied()),
        }
    }
    out.sort_unstable();
    out
}

/// A base proposition's relation and top-level arguments, from its KIF name.
fn split(name: &str) -> (&str, Vec<&str>) {
    let Some(inner) = name.strip_prefix('(').and_then(|s| s.strip_suffix(')')) else { return (name, Vec::new()) };
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0usize, None);
    for (i, c) in inner.char_indices() {
        match c {
            '(' => {
                depth += 1;
                start.get_or_insert(i);
            }
            ')' => depth = depth.saturating_sub(1),
            c if c.is_whitespace() && depth == 0 => {
                if let Some(s) = start.take() {
                    parts.push(&inner[s..i]);
                }
            }
            _ => {
                start.get_or_insert(i);
            }
        }
    }
    if let Some(s) = start {
        parts.push(&inner[s..]);
    }
    if parts.is_empty() {
        return (name, parts);
    }
    let relation = parts.remove(0);
    (relation, parts)
}

/// The groups of base propositions (see the module header): per relation, among the splits by
/// a set of argument positions under which every group held exactly one true proposition in
/// random play from `root`, the one whose groups' transitions read the fewest propositions
/// outside the group; singletons for relations without such a split.
fn groups(net: &Net, root: &PropnetState, deadline: Option<Instant>) -> Vec<Vec<usize>> {
    // Per relation (name and arity), its base propositions with their arguments.
    type Members<'n> = Vec<(usize, Vec<&'n str>)>;
    let mut relations: FxHashMap<(&str, usize), Members> = FxHashMap::default();
    for (b, base) in net.bases.iter().enumerate() {
        let (relation, args) = split(&base.name);
        relations.entry((relation, args.len())).or_default().push((b, args));
    }
    let mut relations: Vec<_> = relations.into_iter().collect();
    relations.sort_by(|a, b| a.0.cmp(&b.0));
    // Candidate splits: by every proper subset of argument positions (all positions would give
    // singletons, the fallback anyway); at most 2^6 per relation.
    let mut candidates: Vec<(usize, Vec<Vec<usize>>)> = Vec::new();
    for (r, ((_, arity), members)) in relations.iter().enumerate() {
        if *arity > 6 {
            continue;
        }
        for fixed in 0u32..(1 << arity) - 1 {
            let mut split: FxHashMap<Vec<&str>, Vec<usize>> = FxHashMap::default();
            for (b, args) in members {
                let key = (0..*arity).filter(|i| fixed >> i & 1 == 1).map(|i| args[i]).collect();
                split.entry(key).or_default().push(*b);
            }
            let mut split: Vec<Vec<usize>> = split.into_values().collect();
            split.sort();
            candidates.push((r, split));
        }
    }
    let exactly_one = |state: &[u64], lanes: u64, group: &[usize]| {
        let (mut one, mut two) = (0u64, 0u64);
        for &b in group {
            two |= one & state[b];
            one |= state[b];
        }
        lanes & !(one & !two) == 0
    };
    let mut alive = vec![true; candidates.len()];
    let mut m = PropnetMachine::new(net);
    let mut rng = SmallRng::seed_from_u64(0x9e3_779b_97f4_a7c1);
    m.watch_transitions(root, PLAYOUTS, &mut rng, PLAY_DEPTH, &mut |step| {
        for (c, (_, split)) in candidates.iter().enumerate() {
            if alive[c] {
                alive[c] = split
                    .iter()
                    .all(|g| exactly_one(step.now, step.moving, g) && exactly_one(step.next, step.moving, g));
            }
        }
        deadline.is_none_or(|d| Instant::now() < d)
    });
    // Per relation, the best split so far and its cost.
    type Split<'c> = &'c Vec<Vec<usize>>;
    let mut chosen: Vec<Option<(usize, Split)>> = vec![None; relations.len()];
    for ((r, split), _) in candidates.iter().zip(&alive).filter(|(_, &a)| a) {
        let reads: usize = split.iter().map(|g| support(net, g).iter().filter(|b| !g.contains(b)).count()).sum();
        let cost = reads / split.len() + split.iter().map(Vec::len).sum::<usize>() / split.len();
        if chosen[*r].is_none_or(|(best, _)| cost < best) {
            chosen[*r] = Some((cost, split));
        }
    }
    let mut out = Vec::new();
    for (r, (_, members)) in relations.iter().enumerate() {
        match chosen[r] {
            Some((_, split)) => out.extend(split.iter().cloned()),
            None => out.extend(members.iter().map(|&(b, _)| vec![b])),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_into_relation_and_top_level_arguments() {
        assert_eq!(split("(cell 1 2 b)"), ("cell", vec!["1", "2", "b"]));
        assert_eq!(split("(at (pos 1 2) (piece x))"), ("at", vec!["(pos 1 2)", "(piece x)"]));
        assert_eq!(split("p"), ("p", vec![]));
        assert_eq!(split("()"), ("()", vec![]));
    }
}
