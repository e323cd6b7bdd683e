//! Propnet optimisation: shrinks a net without changing what its outputs compute.
//!
//! Passes, run in rounds until neither flatten nor reach (the two that open new opportunities for
//! the others) finds anything:
//!
//! * **fold** — constant folding by three-valued evaluation (bases and inputs unknown). A cycle
//!   (ground recursion, meaning its least fixpoint) is evaluated twice, unknowns read as false and
//!   as true; a node with the same value both times is constant. Then constant inputs are dropped
//!   (true from AND, false from OR) and `x AND NOT x` / `x OR NOT x` fold.
//! * **prune** — everything no output (`next`, `legal`, `goal`, `terminal`) depends on goes; every
//!   base and input node stays, so the state and the moves remain addressable.
//! * **collapse** — single-input AND/OR gates become their input, `NOT (NOT x)` becomes `x`, and
//!   a gate reading itself is reduced by the least-fixpoint rules (`x = x OR r` is `r`,
//!   `x = x AND r` is false).
//! * **merge** — hash-consing: gates of one kind over the same input set become one node.
//! * **flatten** — an AND read only by an AND (or OR by an OR), not an output, is spliced into its
//!   reader (losing its label, if it had one, unless [`Options::flatten_labelled`] is off).
//! * **reach** — abstract interpretation of the game over three-valued states: bases start at their
//!   initial value and become unknown once their `next` may differ; an input is known false until
//!   its `legal` may hold. Every node constant in the resulting over-approximation of the reachable
//!   (state, legal joint move) pairs is replaced by that constant: this includes a base whose
//!   `next` is false (true) and whose `init` is false (true), and a move that is never legal.
//!   Such base and input nodes stay in the net (of kind `Base`/`Input`, so a runtime can still set
//!   them), but whatever read them reads the constant instead.
//!
//! Passes fold, prune, collapse, merge and flatten are equivalences: the optimised net computes the
//! same outputs for *every* base and input marking. Pass reach is only valid on reachable states
//! and legal moves (on those it is exact), so [`Options::reachability`] can turn it off.
//!
//! The rewrites assume a stratified net (no NOT inside a cycle), as every net [`crate::build()`]
//! makes from valid GDL is. Constant folding leaves a cycle through a NOT alone, but the other
//! rewrites rely on least-fixpoint semantics, which such a cycle does not have.
//!
//! Merged nodes keep one label (the representative's, else the first merged one's); constants carry
//! none. The result is compacted and renumbered: constants first, then every base node (in base
//! order), every input node (in move order), then the gates in evaluation order, so every edge
//! outside a cycle goes from a lower id to a higher one.
//!
//! Every pass is linear or nearly so in the size of the net (sorting each gate's inputs aside):
//! breakthrough (33k nodes, 121k edges) takes about 5 ms, amazons (1.5M nodes) under a second.

use crate::net::{Counts, Kind, Net, NodeId};
use rustc_hash::{FxHashMap, FxHasher};
use serde::Serialize;
use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::time::Instant;

/// Which passes [`optimize_with`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Options {
    /// Run pass reach (valid on reachable states only); off, the result is an exact equivalent.
    pub reachability: bool,
    /// Run pass flatten.
    pub flatten: bool,
    /// Let pass flatten splice gates that carry a GDL name (a view proposition such as
    /// `(line x)`), losing the name; off, only unnamed gates (rule bodies) are spliced.
    pub flatten_labelled: bool,
    /// The most rounds of flatten and reach, even if the last one still changed something.
    pub max_rounds: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options { reachability: true, flatten: true, flatten_labelled: true, max_rounds: 20 }
    }
}

/// An optimisation pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Pass {
    /// Constant folding, cycles included.
    Fold,
    /// Removal of what no output depends on.
    Prune,
    /// Single-input gates, double negations and self-reading gates.
    Collapse,
    /// Merging of duplicate gates (hash-consing).
    Merge,
    /// Splicing of single-reader AND-into-AND and OR-into-OR.
    Flatten,
    /// Constants over the reachable states.
    Reach,
}

impl Pass {
    const ALL: [Pass; 6] = [Pass::Fold, Pass::Prune, Pass::Collapse, Pass::Merge, Pass::Flatten, Pass::Reach];

    /// The pass's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Pass::Fold => "fold",
            Pass::Prune => "prune",
            Pass::Collapse => "collapse",
            Pass::Merge => "merge",
            Pass::Flatten => "flatten",
            Pass::Reach => "reach",
        }
    }
}

/// What one pass did, summed over its runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PassStats {
    /// The pass.
    pub pass: Pass,
    /// How many times it ran.
    pub runs: usize,
    /// Nodes it removed (net of any it added).
    pub nodes_removed: i64,
    /// Edges it removed (net of any it added).
    pub edges_removed: i64,
    /// Time spent in it, in microseconds.
    pub micros: u64,
}

/// What [`optimize`] did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OptimizeStats {
    /// The net given.
    pub before: Counts,
    /// The net returned.
    pub after: Counts,
    /// Per pass, in pipeline order.
    pub passes: Vec<PassStats>,
    /// Rounds of flatten and reach run (another follows one in which either changed something).
    pub rounds: usize,
    /// Whether pass reach ran (the result is then only equivalent on reachable states).
    pub reachability: bool,
    /// Total time, in microseconds.
    pub micros: u64,
}

impl fmt::Display for OptimizeStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "optimised in {:.1} ms, {} rounds{}: {} nodes, {} edges -> {} nodes, {} edges",
            self.micros as f64 / 1000.0,
            self.rounds,
            if self.reachability { "" } else { " (no reachability)" },
            self.before.nodes,
            self.before.edges,
            self.after.nodes,
            self.after.edges
        )?;
        for p in &self.passes {
            writeln!(
                f,
                "  {:9} {:>9} nodes {:>10} edges removed  ({} runs, {:.1} ms)",
                p.pass.name(),
                p.nodes_removed,
                p.edges_removed,
                p.runs,
                p.micros as f64 / 1000.0
            )?;
        }
        write!(f, "  after: {}", self.after)
    }
}

/// Optimises `net` with every pass (see the module documentation). The result agrees with `net` on
/// every reachable state and legal joint move; use [`optimize_with`] for an exact equivalent.
pub fn optimize(net: &Net) -> (Net, OptimizeStats) {
    optimize_with(net, &Options::default())
}

/// `net` cut down to what the next values of the bases `keep` read: every other output (legal,
/// goal, terminal, the other bases' next) is made false and whatever only they read is removed,
/// exactly (no reachability). Base and move indices are unchanged, so states and moves of `net`
/// fit it; for looking ahead at a few propositions without propagating the whole net.
pub fn cut_to_next(net: &Net, keep: &[usize]) -> Net {
    cut(net, keep, false)
}

/// `net` cut down to what its goals and terminal read (no legal move, no next value), exactly;
/// for judging states that differ from one another in a few bases at a small cost.
pub fn cut_to_outcome(net: &Net) -> Net {
    cut(net, &[], true)
}

/// `net` with only the next values of `keep` and, if `outcome`, the goals and terminal left.
fn cut(net: &Net, keep: &[usize], outcome: bool) -> Net {
    let mut cut = net.clone();
    let never = cut.add(Kind::Const(false), Vec::new(), None);
    for m in &mut cut.moves {
        m.legal = never;
    }
    if !outcome {
        for g in cut.goals.iter_mut().flatten() {
            g.1 = never;
        }
        cut.terminal = never;
    }
    for (i, b) in cut.bases.iter_mut().enumerate() {
        if !keep.contains(&i) {
            b.next = never;
        }
    }
    let options = Options { reachability: false, flatten: false, ..Options::default() };
    optimize_with(&cut, &options).0
}

/// Optimises `net` with the passes `options` selects.
pub fn optimize_with(net: &Net, options: &Options) -> (Net, OptimizeStats) {
    let start = Instant::now();
    let before = net.counts();
    let mut w = Work::new(Cow::Borrowed(net), None, &net.labels);
    let mut passes: Vec<PassStats> = Pass::ALL
        .iter()
        .map(|&pass| PassStats { pass, runs: 0, nodes_removed: 0, edges_removed: 0, micros: 0 })
        .collect();
    // What the outputs cannot reach is left behind by the copy: that is pass prune's work.
    passes[1].nodes_removed = (before.nodes + 2) as i64 - w.live_nodes as i64;
    passes[1].edges_removed = before.edges as i64 - w.live_edges as i64;
    let mut run = |w: &mut Work, pass: Pass| -> bool {
        let t = Instant::now();
        let (n0, e0) = (w.live_nodes, w.live_edges);
        let changed = match pass {
            Pass::Fold => w.fold(false),
            Pass::Prune => w.prune(),
            Pass::Collapse => w.collapse(),
            Pass::Merge => w.merge(),
            Pass::Flatten => w.flatten(options.flatten_labelled),
            Pass::Reach => w.fold(true),
        };
        let (n1, e1) = (w.live_nodes, w.live_edges);
        let s = &mut passes[Pass::ALL.iter().position(|&p| p == pass).unwrap_or(0)];
        s.runs += 1;
        s.nodes_removed += n0 as i64 - n1 as i64;
        s.edges_removed += e0 as i64 - e1 as i64;
        s.micros += t.elapsed().as_micros() as u64;
        changed
    };
    // Fold, prune, collapse and merge each finish their job in one run (merge repeats itself
    // while merges inside cycles expose more). Then rounds of flatten and reach, the two that can
    // open new opportunities, each followed by what it may have enabled, until neither finds any.
    run(&mut w, Pass::Fold);
    run(&mut w, Pass::Prune);
    if w.live_nodes < w.net.kinds.len() / 2 {
        // Mostly garbage (typical of a fresh net): renumber so that later passes scan less.
        let (compact, labels) = w.compact();
        w = Work::new(Cow::Owned(compact), Some(&labels), &net.labels);
    }
    run(&mut w, Pass::Collapse);
    run(&mut w, Pass::Merge);
    let mut rounds = 0;
    let mut reach = options.reachability;
    while rounds < options.max_rounds.max(1) {
        rounds += 1;
        let mut changed = false;
        if options.flatten && run(&mut w, Pass::Flatten) {
            run(&mut w, Pass::Merge);
            changed = true;
        }
        if reach {
            // Reach folds its constants itself; what they cut loose goes, then new duplicates.
            reach = run(&mut w, Pass::Reach);
            if reach {
                run(&mut w, Pass::Prune);
                run(&mut w, Pass::Merge);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let (mut out, labels) = w.compact();
    out.labels = labels.into_iter().map(|l| net.labels.get(l as usize).cloned().flatten()).collect();
    let stats = OptimizeStats {
        before,
        after: out.counts(),
        passes: passes.into_iter().filter(|p| p.runs > 0).collect(),
        rounds,
        reachability: options.reachability,
        micros: start.elapsed().as_micros() as u64,
    };
    (out, stats)
}

/// A three-valued truth value: known false, known true, or unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tri {
    F,
    T,
    X,
}

impl Tri {
    fn of(b: bool) -> Tri {
        if b {
            Tri::T
        } else {
            Tri::F
        }
    }
}

/// Something whose abstract value a node's value decides in pass reach.
#[derive(Debug, Clone, Copy)]
enum Watch {
    Base(u32),
    Input(u32),
}

/// The net being optimised: the original nodes plus two canonical constants, where a node is
/// either live, forwarded to a node that computes the same value (`fwd`), or dead (read by
/// nothing needed).
struct Work {
    /// The net: kinds, inputs and interface (its `labels` are unused: see `label`).
    net: Net,
    /// Each node's label, as an index into the labels of the net given to [`optimize_with`]
    /// (`NO_LABEL` for none): strings are only copied into the result.
    label: Vec<u32>,
    fwd: Vec<NodeId>,
    dead: Vec<bool>,
    ff: NodeId,
    tt: NodeId,
    /// The needed nodes in evaluation order: the strongly connected components of the net this
    /// work was built from, constants first. Every rewrite keeps this a valid order (an edge only
    /// goes forward or stays inside a component), so it is computed only when the work is built.
    order: Vec<NodeId>,
    /// Start of each component in `order` (one extra entry at the end).
    group_start: Vec<u32>,
    /// Each node's component.
    group_of: Vec<u32>,
    /// Whether a component may be a cycle.
    cyclic: Vec<bool>,
    /// Live nodes (base and input nodes always count).
    live_nodes: usize,
    /// Inputs of live gates.
    live_edges: usize,
}

/// No label.
const NO_LABEL: u32 = u32::MAX;

impl Work {
    /// Takes the part of `src` the outputs depend on (the rest starts dead) and adds the two
    /// canonical constants. Labels are indices into `src_labels`: `labels` if given, else the
    /// node's own index.
    fn new(src: Cow<'_, Net>, labels: Option<&[u32]>, src_labels: &[Option<String>]) -> Work {
        let n = src.kinds.len() + 2;
        let (ff, tt) = (n as NodeId - 2, n as NodeId - 1);
        let roots: Vec<NodeId> = [ff, tt].into_iter().chain(src.outputs()).collect();
        let (order, group_start, group_of, cyclic) = components(&src.inputs, n, &roots);
        let (mut kinds, mut inputs, roles, bases, moves, goals, terminal) = match src {
            Cow::Owned(net) => (net.kinds, net.inputs, net.roles, net.bases, net.moves, net.goals, net.terminal),
            Cow::Borrowed(net) => {
                let ins = (0..net.kinds.len())
                    .map(|x| if group_of[x] != u32::MAX { net.inputs[x].clone() } else { Vec::new() })
                    .collect();
                let (roles, bases, moves, goals) =
                    (net.roles.clone(), net.bases.clone(), net.moves.clone(), net.goals.clone());
                (net.kinds.clone(), ins, roles, bases, moves, goals, net.terminal)
            }
        };
        kinds.extend([Kind::Const(false), Kind::Const(true)]);
        inputs.extend([Vec::new(), Vec::new()]);
        let mut dead = vec![false; n];
        let mut label = vec![NO_LABEL; n];
        let (mut live_nodes, mut live_edges) = (0, 0);
        for x in 0..n {
            if group_of[x] == u32::MAX {
                dead[x] = true;
                inputs[x] = Vec::new();
            } else {
                live_nodes += 1;
                live_edges += inputs[x].len();
                label[x] = match labels {
                    Some(l) => l.get(x).copied().unwrap_or(NO_LABEL),
                    None if src_labels.get(x).is_some_and(Option::is_some) => x as u32,
                    None => NO_LABEL,
                };
            }
        }
        let net = Net { kinds, inputs, labels: Vec::new(), roles, bases, moves, goals, terminal };
        let mut w = Work {
            net,
            label,
            fwd: (0..n as NodeId).collect(),
            dead,
            ff,
            tt,
            order,
            group_start,
            group_of,
            cyclic,
            live_nodes,
            live_edges,
        };
        for x in 0..n as NodeId {
            if let Kind::Const(c) = w.net.kinds[x as usize] {
                if x != ff && x != tt && !w.dead[x as usize] {
                    w.forward(x, if c { tt } else { ff });
                }
            }
        }
        w
    }

    fn is_gate(&self, n: NodeId) -> bool {
        matches!(self.net.kinds[n as usize], Kind::And | Kind::Or | Kind::Not)
    }

    fn is_leaf_prop(&self, n: NodeId) -> bool {
        matches!(self.net.kinds[n as usize], Kind::Base(_) | Kind::Input(_))
    }

    /// A live gate: computes something, not forwarded, not dead.
    fn live_gate(&self, n: NodeId) -> bool {
        self.fwd[n as usize] == n && !self.dead[n as usize] && self.is_gate(n)
    }

    /// Takes a node's inputs out (to be put back with [`Work::put_inputs`]).
    fn take_inputs(&mut self, n: NodeId) -> Vec<NodeId> {
        let ins = std::mem::take(&mut self.net.inputs[n as usize]);
        self.live_edges -= ins.len();
        ins
    }

    /// Sets a node's inputs (taken out before).
    fn put_inputs(&mut self, n: NodeId, ins: Vec<NodeId>) {
        debug_assert!(self.net.inputs[n as usize].is_empty());
        self.live_edges += ins.len();
        self.net.inputs[n as usize] = ins;
    }

    /// Marks a live gate dead.
    fn kill(&mut self, n: NodeId) {
        self.take_inputs(n);
        self.dead[n as usize] = true;
        self.live_nodes -= 1;
    }

    /// The node that computes `n`'s value, with path compression.
    fn find(&mut self, n: NodeId) -> NodeId {
        let mut root = n;
        while self.fwd[root as usize] != root {
            root = self.fwd[root as usize];
        }
        let mut x = n;
        while self.fwd[x as usize] != root {
            let next = self.fwd[x as usize];
            self.fwd[x as usize] = root;
            x = next;
        }
        root
    }

    /// Makes `n` read as `to` from now on. A label moves along unless `to` has one or is a constant.
    fn forward(&mut self, n: NodeId, to: NodeId) {
        debug_assert!(n != to && self.fwd[to as usize] == to);
        self.fwd[n as usize] = to;
        if to != self.ff && to != self.tt && self.label[to as usize] == NO_LABEL {
            self.label[to as usize] = std::mem::replace(&mut self.label[n as usize], NO_LABEL);
        }
        if !self.is_leaf_prop(n) {
            self.take_inputs(n);
            self.live_nodes -= 1;
        }
    }

    /// The output nodes as they now read.
    fn outputs(&mut self) -> Vec<NodeId> {
        let outs: Vec<NodeId> = self.net.outputs().collect();
        outs.into_iter().map(|n| self.find(n)).collect()
    }

    /// Points every live gate's inputs at the nodes now computing them.
    fn relink(&mut self) {
        for n in 0..self.net.kinds.len() as NodeId {
            if self.live_gate(n) {
                let mut ins = std::mem::take(&mut self.net.inputs[n as usize]);
                for i in &mut ins {
                    *i = self.find(*i);
                }
                self.net.inputs[n as usize] = ins;
            }
        }
    }

    /// Local rewriting of one live gate: relinks, sorts and deduplicates its inputs and applies
    /// the constant, self-reading, complement and arity rules. Returns the node to forward `n` to,
    /// if it no longer needs to exist (the caller forwards it).
    fn normalize(&mut self, n: NodeId) -> Option<NodeId> {
        let kind = self.net.kinds[n as usize];
        let mut ins = self.take_inputs(n);
        for i in &mut ins {
            *i = self.find(*i);
        }
        let result = match kind {
            Kind::Not => {
                let i = ins[0];
                if i == self.ff {
                    Some(self.tt)
                } else if i == self.tt {
                    Some(self.ff)
                } else if self.net.kinds[i as usize] == Kind::Not && i != n {
                    let x = self.net.inputs[i as usize][0];
                    Some(self.find(x)).filter(|&x| x != n)
                } else {
                    None
                }
            }
            Kind::And | Kind::Or => {
                let and = kind == Kind::And;
                let (unit, zero) = if and { (self.tt, self.ff) } else { (self.ff, self.tt) };
                if ins.contains(&zero) {
                    Some(zero)
                } else if and && ins.contains(&n) {
                    // x = x AND r: the least fixpoint never makes x true.
                    Some(self.ff)
                } else {
                    // x = x OR r has least fixpoint x = r.
                    ins.retain(|&i| i != unit && i != n);
                    ins.sort_unstable();
                    ins.dedup();
                    if self.has_complement(&ins) {
                        Some(zero)
                    } else {
                        match ins.len() {
                            0 => Some(unit),
                            1 => Some(ins[0]),
                            _ => None,
                        }
                    }
                }
            }
            _ => None,
        };
        self.put_inputs(n, ins);
        result
    }

    /// Whether a sorted input set holds both some `x` and `NOT x`.
    fn has_complement(&mut self, ins: &[NodeId]) -> bool {
        for &i in ins {
            if self.net.kinds[i as usize] == Kind::Not {
                let x = self.net.inputs[i as usize][0];
                let x = self.find(x);
                if ins.binary_search(&x).is_ok() {
                    return true;
                }
            }
        }
        false
    }

    /// Normalizes every live gate in evaluation order, forwarding the ones that go. Whether any did.
    fn normalize_all(&mut self) -> bool {
        let mut changed = false;
        for k in 0..self.order.len() {
            let n = self.order[k];
            if self.live_gate(n) {
                let before = self.net.inputs[n as usize].len();
                if let Some(to) = self.normalize(n) {
                    self.forward(n, to);
                    changed = true;
                } else {
                    changed |= self.net.inputs[n as usize].len() != before;
                }
            }
        }
        changed
    }

    /// Pass prune: kills every gate no output depends on.
    fn prune(&mut self) -> bool {
        let mut needed = vec![false; self.net.kinds.len()];
        let mut stack = self.outputs();
        while let Some(n) = stack.pop() {
            if !std::mem::replace(&mut needed[n as usize], true) {
                for k in 0..self.net.inputs[n as usize].len() {
                    let i = self.net.inputs[n as usize][k];
                    stack.push(self.find(i));
                }
            }
        }
        let mut changed = false;
        for n in 0..self.net.kinds.len() as NodeId {
            if !needed[n as usize] && self.live_gate(n) {
                self.kill(n);
                changed = true;
            }
        }
        changed
    }

    /// Pass collapse: one sweep of the local rules.
    fn collapse(&mut self) -> bool {
        self.normalize_all()
    }

    /// Pass merge: hash-consing sweeps. In evaluation order one sweep merges everything outside
    /// cycles; it repeats while merges inside cycles may have exposed more.
    fn merge(&mut self) -> bool {
        let mut any = false;
        let mut table: FxHashMap<u64, NodeId> = FxHashMap::default();
        loop {
            let mut in_cycle = false;
            table.clear();
            for k in 0..self.order.len() {
                let n = self.order[k];
                if !self.live_gate(n) {
                    continue;
                }
                let to = match self.normalize(n) {
                    Some(to) => Some(to),
                    None => {
                        let mut h = FxHasher::default();
                        self.net.kinds[n as usize].hash(&mut h);
                        self.net.inputs[n as usize].hash(&mut h);
                        let m = *table.entry(h.finish()).or_insert(n);
                        let same = m != n
                            && self.live_gate(m)
                            && self.net.kinds[m as usize] == self.net.kinds[n as usize]
                            && self.net.inputs[m as usize] == self.net.inputs[n as usize];
                        Some(m).filter(|_| same)
                    }
                };
                if let Some(to) = to {
                    self.forward(n, to);
                    any = true;
                    in_cycle |= self.cyclic[self.group_of[n as usize] as usize];
                }
            }
            if !in_cycle {
                return any;
            }
        }
    }

    /// Pass flatten: splices single-reader, non-output AND gates into the AND reading them (and OR
    /// into OR); gates with a label only if `labelled`.
    fn flatten(&mut self, labelled: bool) -> bool {
        self.relink();
        let n_nodes = self.net.kinds.len();
        let mut readers = vec![0u32; n_nodes];
        for n in 0..n_nodes {
            for &i in &self.net.inputs[n] {
                readers[i as usize] += 1;
            }
        }
        for o in self.outputs() {
            readers[o as usize] = u32::MAX;
        }
        let mut changed = false;
        for k in 0..self.order.len() {
            let n = self.order[k];
            if !self.live_gate(n) {
                continue;
            }
            let kind = self.net.kinds[n as usize];
            if kind == Kind::Not {
                continue;
            }
            let ins = self.take_inputs(n);
            let mut out = Vec::with_capacity(ins.len());
            let mut spliced = false;
            for i in ins {
                let i = self.find(i);
                if i != n
                    && readers[i as usize] == 1
                    && self.net.kinds[i as usize] == kind
                    && self.live_gate(i)
                    && (labelled || self.label[i as usize] == NO_LABEL)
                {
                    // `i`'s only reader is `n`, which no longer reads it: it is dead.
                    out.extend(self.net.inputs[i as usize].iter().copied());
                    self.kill(i);
                    spliced = true;
                } else {
                    out.push(i);
                }
            }
            self.put_inputs(n, out);
            if spliced {
                changed = true;
                if let Some(to) = self.normalize(n) {
                    // `to` inherits `n`'s readers, which its count does not know: never splice it.
                    readers[to as usize] = u32::MAX;
                    self.forward(n, to);
                }
            }
        }
        changed
    }

    /// Pass fold (`reach` false: bases and inputs unknown) or pass reach (`reach` true: the
    /// reachability analysis): evaluates every node three-valued and replaces each constant one by
    /// its constant, then strips constant inputs.
    fn fold(&mut self, reach: bool) -> bool {
        self.relink();
        let val = self.analyse(reach);
        let mut changed = false;
        for n in 0..self.net.kinds.len() as NodeId {
            if n == self.ff || n == self.tt || self.fwd[n as usize] != n || self.dead[n as usize] {
                continue;
            }
            if !matches!(self.net.kinds[n as usize], Kind::And | Kind::Or | Kind::Not | Kind::Base(_) | Kind::Input(_))
            {
                continue;
            }
            match val[n as usize] {
                Tri::F => self.forward(n, self.ff),
                Tri::T => self.forward(n, self.tt),
                Tri::X => continue,
            }
            changed = true;
        }
        if changed {
            self.normalize_all();
        }
        changed
    }

    /// Three-valued values of every node. Without `reach`, bases and inputs are unknown. With it,
    /// the abstract reachable states: bases start at their initial value and inputs false, and
    /// both become unknown when their `next` / `legal` node may take another value.
    fn analyse(&mut self, reach: bool) -> Vec<Tri> {
        let n_nodes = self.net.kinds.len();
        let mut base_state: Vec<Tri> =
            self.net.bases.iter().map(|b| if reach { Tri::of(b.init) } else { Tri::X }).collect();
        let prune_inputs = reach && !self.legal_reads_input();
        let mut input_state = vec![if prune_inputs { Tri::F } else { Tri::X }; self.net.moves.len()];
        let mut val = vec![Tri::X; n_nodes];
        let groups = self.cyclic.len();
        let mut scratch = GroupScratch { local: vec![u32::MAX; n_nodes], ..GroupScratch::default() };
        let mut changed_nodes = Vec::new();
        for g in 0..groups {
            self.eval_group(g, &mut val, &base_state, &input_state, &mut scratch, &mut changed_nodes);
        }
        changed_nodes.clear();
        if !reach {
            return val;
        }

        // Readers (live gates) of every node, and which bases and inputs each node decides.
        let mut offsets = vec![0u32; n_nodes + 1];
        for n in 0..n_nodes as NodeId {
            if self.live_gate(n) {
                for &i in &self.net.inputs[n as usize] {
                    offsets[i as usize + 1] += 1;
                }
            }
        }
        for k in 0..n_nodes {
            offsets[k + 1] += offsets[k];
        }
        let mut fill = offsets.clone();
        let mut readers = vec![0 as NodeId; offsets[n_nodes] as usize];
        for n in 0..n_nodes as NodeId {
            if self.live_gate(n) {
                for &i in &self.net.inputs[n as usize] {
                    readers[fill[i as usize] as usize] = n;
                    fill[i as usize] += 1;
                }
            }
        }
        let mut watch = Watchers { head: vec![u32::MAX; n_nodes], next: Vec::new(), what: Vec::new() };
        for b in 0..self.net.bases.len() {
            let next = self.find(self.net.bases[b].next);
            watch.add(next, Watch::Base(b as u32));
        }
        if prune_inputs {
            for j in 0..self.net.moves.len() {
                let legal = self.find(self.net.moves[j].legal);
                watch.add(legal, Watch::Input(j as u32));
            }
        }

        // Chaotic iteration: values only ever go from known to unknown, so this terminates, and
        // each component is re-evaluated only when something it reads changed.
        let bases: Vec<NodeId> = self.net.bases.iter().map(|b| b.node).collect();
        let moves: Vec<NodeId> = self.net.moves.iter().map(|m| m.node).collect();
        let mut states = States { bases: &bases, moves: &moves, base: &mut base_state, input: &mut input_state };
        // Acyclic gates are updated in constant time per changed input from counts of their known
        // inputs; cycles are re-evaluated whole, in evaluation order.
        let mut count_f = vec![0u32; n_nodes];
        let mut count_t = vec![0u32; n_nodes];
        for n in 0..n_nodes as NodeId {
            if self.live_gate(n) {
                for &i in &self.net.inputs[n as usize] {
                    match val[i as usize] {
                        Tri::F => count_f[n as usize] += 1,
                        Tri::T => count_t[n as usize] += 1,
                        Tri::X => {}
                    }
                }
            }
        }
        let mut pending: Vec<(NodeId, Tri)> = Vec::new();
        for u in 0..n_nodes as NodeId {
            states.check(&watch, u, &mut val, &mut pending);
        }
        let mut heap: BinaryHeap<Reverse<u32>> = BinaryHeap::new();
        let mut queued = vec![false; groups];
        loop {
            while let Some((u, old)) = pending.pop() {
                debug_assert!(old != Tri::X && val[u as usize] == Tri::X);
                for &r in &readers[offsets[u as usize] as usize..offsets[u as usize + 1] as usize] {
                    let g = self.group_of[r as usize];
                    if self.cyclic[g as usize] {
                        if !std::mem::replace(&mut queued[g as usize], true) {
                            heap.push(Reverse(g));
                        }
                        continue;
                    }
                    let r = r as usize;
                    match old {
                        Tri::F => count_f[r] -= 1,
                        Tri::T => count_t[r] -= 1,
                        Tri::X => {}
                    }
                    let len = self.net.inputs[r].len() as u32;
                    let v = match self.net.kinds[r] {
                        Kind::And if count_f[r] > 0 => Tri::F,
                        Kind::And if count_t[r] == len => Tri::T,
                        Kind::Or if count_t[r] > 0 => Tri::T,
                        Kind::Or if count_f[r] == len => Tri::F,
                        _ => Tri::X,
                    };
                    if v != val[r] {
                        pending.push((r as NodeId, val[r]));
                        val[r] = v;
                    }
                }
                states.check(&watch, u, &mut val, &mut pending);
            }
            let Some(Reverse(g)) = heap.pop() else { break };
            queued[g as usize] = false;
            self.eval_group(g as usize, &mut val, states.base, states.input, &mut scratch, &mut pending);
        }
        val
    }

    /// Whether some `legal` node depends on an input node, in which case inputs cannot be assumed
    /// false until legal (the assumption would be circular).
    fn legal_reads_input(&mut self) -> bool {
        let mut reads = vec![false; self.net.kinds.len()];
        for k in 0..self.order.len() {
            let n = self.order[k] as usize;
            reads[n] = matches!(self.net.kinds[n], Kind::Input(_))
                || (!self.dead[n] && self.net.inputs[n].iter().any(|&i| reads[i as usize]));
        }
        // Cycles: propagate until stable (cheap, cycles reading inputs are rare).
        loop {
            let mut changed = false;
            for n in 0..self.net.kinds.len() {
                if !reads[n] && !self.dead[n] && self.net.inputs[n].iter().any(|&i| reads[i as usize]) {
                    reads[n] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let legal: Vec<NodeId> = self.net.moves.iter().map(|m| m.legal).collect();
        legal.into_iter().any(|l| {
            let l = self.find(l);
            reads[l as usize]
        })
    }

    /// Evaluates component `g` three-valued from its inputs' values, pushing every node whose
    /// value changed onto `changed` with its old value.
    fn eval_group(
        &self,
        g: usize,
        val: &mut [Tri],
        base_state: &[Tri],
        input_state: &[Tri],
        s: &mut GroupScratch,
        changed: &mut Vec<(NodeId, Tri)>,
    ) {
        let range = self.group_start[g] as usize..self.group_start[g + 1] as usize;
        let mut set = |n: NodeId, v: Tri, val: &mut [Tri]| {
            if val[n as usize] != v {
                changed.push((n, val[n as usize]));
                val[n as usize] = v;
            }
        };
        if !self.cyclic[g] {
            let n = self.order[range.start];
            let v = match self.net.kinds[n as usize] {
                Kind::Const(c) => Tri::of(c),
                Kind::Base(i) => base_state[i as usize],
                Kind::Input(j) => input_state[j as usize],
                _ if !self.live_gate(n) => return,
                kind => gate_tri(kind, &self.net.inputs[n as usize], val),
            };
            set(n, v, val);
            return;
        }
        // A cycle: its least fixpoint is monotone in the values it reads from outside, so reading
        // unknowns as false gives a lower bound and as true an upper bound.
        s.members.clear();
        for &n in &self.order[range] {
            if self.live_gate(n) {
                s.local[n as usize] = s.members.len() as u32;
                s.members.push(n);
            }
        }
        // A cycle through a NOT is not stratified: nothing is known about it.
        let monotone = s.members.iter().all(|&n| self.net.kinds[n as usize] != Kind::Not);
        let (lo, hi) = if monotone {
            (self.cycle_lfp(false, val, s), self.cycle_lfp(true, val, s))
        } else {
            (vec![false; s.members.len()], vec![true; s.members.len()])
        };
        for (k, &n) in s.members.iter().enumerate() {
            let v = match (lo[k], hi[k]) {
                (true, true) => Tri::T,
                (false, false) => Tri::F,
                _ => Tri::X,
            };
            set(n, v, val);
        }
        for &n in &s.members {
            s.local[n as usize] = u32::MAX;
        }
    }

    /// The least fixpoint of the cycle in `s.members`, reading unknown outside values as `unknown`.
    /// Linear time: counts each gate's true inputs and propagates through the cycle's own edges.
    fn cycle_lfp(&self, unknown: bool, val: &[Tri], s: &mut GroupScratch) -> Vec<bool> {
        let m = s.members.len();
        let mut value = vec![false; m];
        let mut count = vec![0usize; m];
        let mut need = vec![0usize; m];
        s.inner_offsets.clear();
        s.inner_offsets.resize(m + 1, 0);
        s.inner.clear();
        // Inner edges as reader lists (local indices), built by counting.
        for k in 0..m {
            let n = s.members[k];
            for &i in &self.net.inputs[n as usize] {
                let li = s.local[i as usize];
                if li != u32::MAX {
                    s.inner_offsets[li as usize + 1] += 1;
                }
            }
        }
        for k in 0..m {
            s.inner_offsets[k + 1] += s.inner_offsets[k];
        }
        s.inner.resize(s.inner_offsets[m], 0);
        let mut fill: Vec<usize> = s.inner_offsets[..m].to_vec();
        let mut stack = Vec::new();
        for k in 0..m {
            let n = s.members[k];
            let ins = &self.net.inputs[n as usize];
            need[k] = if self.net.kinds[n as usize] == Kind::And { ins.len() } else { 1 };
            for &i in ins {
                let li = s.local[i as usize];
                if li != u32::MAX {
                    s.inner[fill[li as usize]] = k as u32;
                    fill[li as usize] += 1;
                } else {
                    let t = match val[i as usize] {
                        Tri::T => true,
                        Tri::F => false,
                        Tri::X => unknown,
                    };
                    count[k] += t as usize;
                }
            }
            if count[k] >= need[k] {
                value[k] = true;
                stack.push(k);
            }
        }
        while let Some(k) = stack.pop() {
            for e in s.inner_offsets[k]..s.inner_offsets[k + 1] {
                let r = s.inner[e] as usize;
                count[r] += 1;
                if !value[r] && count[r] >= need[r] {
                    value[r] = true;
                    stack.push(r);
                }
            }
        }
        value
    }

    /// Builds the compact, renumbered result, its labels left out: returns them as indices, one
    /// per node (see `label`).
    fn compact(mut self) -> (Net, Vec<u32>) {
        self.relink();
        let n_nodes = self.net.kinds.len();
        let mut needed = vec![false; n_nodes];
        let mut stack = self.outputs();
        while let Some(n) = stack.pop() {
            if !std::mem::replace(&mut needed[n as usize], true) {
                stack.extend(self.net.inputs[n as usize].iter().copied());
            }
        }
        let mut new_id = vec![NodeId::MAX; n_nodes];
        let mut emit: Vec<NodeId> = Vec::new();
        for c in [self.ff, self.tt] {
            if needed[c as usize] {
                emit.push(c);
            }
        }
        emit.extend(self.net.bases.iter().map(|b| b.node));
        emit.extend(self.net.moves.iter().map(|m| m.node));
        for &n in &self.order {
            if needed[n as usize] && self.is_gate(n) {
                debug_assert!(self.live_gate(n));
                emit.push(n);
            }
        }
        for (k, &n) in emit.iter().enumerate() {
            new_id[n as usize] = k as NodeId;
        }
        let mut out = Net {
            kinds: Vec::with_capacity(emit.len()),
            inputs: Vec::with_capacity(emit.len()),
            labels: Vec::with_capacity(emit.len()),
            roles: std::mem::take(&mut self.net.roles),
            bases: Vec::with_capacity(self.net.bases.len()),
            moves: Vec::with_capacity(self.net.moves.len()),
            goals: Vec::with_capacity(self.net.goals.len()),
            terminal: 0,
        };
        let mut labels = Vec::with_capacity(emit.len());
        for &n in &emit {
            let ins = self.net.inputs[n as usize].iter().map(|&i| new_id[i as usize]).collect();
            out.add(self.net.kinds[n as usize], ins, None);
            labels.push(self.label[n as usize]);
        }
        for b in std::mem::take(&mut self.net.bases) {
            let next = new_id[self.find(b.next) as usize];
            out.bases.push(crate::net::BaseProp { node: new_id[b.node as usize], next, ..b });
        }
        for m in std::mem::take(&mut self.net.moves) {
            let legal = new_id[self.find(m.legal) as usize];
            out.moves.push(crate::net::MoveProp { node: new_id[m.node as usize], legal, ..m });
        }
        for goals in std::mem::take(&mut self.net.goals) {
            let mapped = goals.into_iter().map(|(v, g)| (v, new_id[self.find(g) as usize])).collect();
            out.goals.push(mapped);
        }
        out.terminal = new_id[self.find(self.net.terminal) as usize];
        (out, labels)
    }
}

/// The strongly connected components of the `n`-node graph with these inputs (nodes past the end
/// of `inputs` have none), restricted to what `roots` reach, in evaluation order (each after every
/// component it reads): (nodes in order, start of each component in that list plus a final end,
/// each node's component or `u32::MAX` if unreached, whether each component may be a cycle).
/// Iterative Tarjan, as [`Net::schedule`] but into flat arrays.
#[allow(clippy::type_complexity)]
fn components(inputs: &[Vec<NodeId>], n: usize, roots: &[NodeId]) -> (Vec<NodeId>, Vec<u32>, Vec<u32>, Vec<bool>) {
    let none: &[NodeId] = &[];
    let ins_of = |v: NodeId| inputs.get(v as usize).map_or(none, Vec::as_slice);
    let mut t = Tarjan {
        low: vec![u32::MAX; n],
        group_of: vec![u32::MAX; n],
        stack: Vec::new(),
        call: Vec::new(),
        order: Vec::with_capacity(n),
        start: Vec::new(),
        cyclic: Vec::new(),
        counter: 0,
    };
    for &root in roots {
        if t.low[root as usize] != u32::MAX {
            continue;
        }
        t.visit(root, ins_of(root).is_empty());
        while let Some(&mut (v, ref mut next, index)) = t.call.last_mut() {
            let ins = ins_of(v);
            if (*next as usize) < ins.len() {
                let w = ins[*next as usize];
                *next += 1;
                if t.low[w as usize] == u32::MAX {
                    t.visit(w, ins_of(w).is_empty());
                } else if t.group_of[w as usize] == u32::MAX {
                    t.low[v as usize] = t.low[v as usize].min(t.low[w as usize]);
                }
                continue;
            }
            t.call.pop();
            if let Some(&(parent, _, _)) = t.call.last() {
                t.low[parent as usize] = t.low[parent as usize].min(t.low[v as usize]);
            }
            if t.low[v as usize] == index {
                let g = t.start.len() as u32;
                t.start.push(t.order.len() as u32);
                let size = t.order.len();
                while let Some(w) = t.stack.pop() {
                    t.group_of[w as usize] = g;
                    t.order.push(w);
                    if w == v {
                        break;
                    }
                }
                let cyclic = t.order.len() - size > 1 || ins.contains(&v);
                t.cyclic.push(cyclic);
            }
        }
    }
    t.start.push(t.order.len() as u32);
    (t.order, t.start, t.group_of, t.cyclic)
}

/// State of [`components`]. `low` is `u32::MAX` until a node is visited; a visited node is on the
/// stack until it has a component; a node's own index lives in its call frame.
struct Tarjan {
    low: Vec<u32>,
    group_of: Vec<u32>,
    stack: Vec<NodeId>,
    call: Vec<(NodeId, u32, u32)>,
    order: Vec<NodeId>,
    start: Vec<u32>,
    cyclic: Vec<bool>,
    counter: u32,
}

impl Tarjan {
    fn visit(&mut self, w: NodeId, leaf: bool) {
        self.low[w as usize] = self.counter;
        if leaf {
            // A node without inputs is a component of its own at once.
            self.group_of[w as usize] = self.start.len() as u32;
            self.start.push(self.order.len() as u32);
            self.order.push(w);
            self.cyclic.push(false);
        } else {
            self.stack.push(w);
            self.call.push((w, 0, self.counter));
        }
        self.counter += 1;
    }
}

/// The abstract state of pass reach: each base's and input's three-valued value.
struct States<'a> {
    bases: &'a [NodeId],
    moves: &'a [NodeId],
    base: &'a mut [Tri],
    input: &'a mut [Tri],
}

impl States<'_> {
    /// Widens every base and input that node `u`'s value may now contradict, marking its node
    /// unknown and queueing it in `pending`.
    fn check(&mut self, watch: &Watchers, u: NodeId, val: &mut [Tri], pending: &mut Vec<(NodeId, Tri)>) {
        let v = val[u as usize];
        let mut k = watch.head[u as usize];
        while k != u32::MAX {
            let wt = watch.what[k as usize];
            k = watch.next[k as usize];
            let (node, state, widen) = match wt {
                Watch::Base(b) => {
                    let st = &mut self.base[b as usize];
                    let widen = *st != Tri::X && v != *st;
                    (self.bases[b as usize], st, widen)
                }
                Watch::Input(j) => {
                    let st = &mut self.input[j as usize];
                    let widen = *st == Tri::F && v != Tri::F;
                    (self.moves[j as usize], st, widen)
                }
            };
            if widen {
                *state = Tri::X;
                if val[node as usize] != Tri::X {
                    pending.push((node, val[node as usize]));
                    val[node as usize] = Tri::X;
                }
            }
        }
    }
}

/// Which bases and inputs each node decides, as linked lists.
struct Watchers {
    head: Vec<u32>,
    next: Vec<u32>,
    what: Vec<Watch>,
}

impl Watchers {
    fn add(&mut self, node: NodeId, w: Watch) {
        self.next.push(self.head[node as usize]);
        self.what.push(w);
        self.head[node as usize] = self.what.len() as u32 - 1;
    }
}

/// Reusable buffers for evaluating cycles.
#[derive(Default)]
struct GroupScratch {
    /// Each node's index among the current cycle's members, or `u32::MAX`.
    local: Vec<u32>,
    members: Vec<NodeId>,
    inner_offsets: Vec<usize>,
    inner: Vec<u32>,
}

/// A gate's three-valued value from its inputs' values.
fn gate_tri(kind: Kind, ins: &[NodeId], val: &[Tri]) -> Tri {
    match kind {
        Kind::And | Kind::Or => {
            let (zero, unit) = if kind == Kind::And { (Tri::F, Tri::T) } else { (Tri::T, Tri::F) };
            let mut all_unit = true;
            for &i in ins {
                let v = val[i as usize];
                if v == zero {
                    return zero;
                }
                all_unit &= v == unit;
            }
            if all_unit {
                unit
            } else {
                Tri::X
            }
        }
        Kind::Not => match val[ins[0] as usize] {
            Tri::F => Tri::T,
            Tri::T => Tri::F,
            Tri::X => Tri::X,
        },
        Kind::Const(c) => Tri::of(c),
        Kind::Base(_) | Kind::Input(_) => Tri::X,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{BaseProp, MoveProp};
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    /// A net with `bases` base propositions (nodes 0..bases, `next` unset) and one input per entry
    /// of `moves` (the role playing it), two roles, no goals.
    fn skeleton(bases: usize, moves: &[usize]) -> Net {
        let mut net = Net {
            kinds: Vec::new(),
            inputs: Vec::new(),
            labels: Vec::new(),
            roles: vec!["a".into(), "b".into()],
            bases: Vec::new(),
            moves: Vec::new(),
            goals: vec![Vec::new(), Vec::new()],
            terminal: 0,
        };
        for i in 0..bases {
            let node = net.add(Kind::Base(i as u32), Vec::new(), Some(format!("(true (p{i}))")));
            net.bases.push(BaseProp { name: format!("(p{i})"), node, next: node, init: false });
        }
        for (j, &role) in moves.iter().enumerate() {
            let node = net.add(Kind::Input(j as u32), Vec::new(), Some(format!("(does r{role} m{j})")));
            net.moves.push(MoveProp { role, name: format!("m{j}"), node, legal: node });
        }
        net
    }

    fn all_markings(n: usize) -> impl Iterator<Item = Vec<bool>> {
        (0..1u32 << n).map(move |m| (0..n).map(|i| m >> i & 1 == 1).collect())
    }

    /// Every output and init, for one marking.
    fn outputs(net: &Net, base: &[bool], input: &[bool]) -> Vec<bool> {
        let v = net.evaluate(base, input);
        let mut out: Vec<bool> = net.bases.iter().flat_map(|b| [v[b.next as usize], b.init]).collect();
        out.extend(net.moves.iter().map(|m| v[m.legal as usize]));
        out.extend(net.goals.iter().flatten().map(|&(_, g)| v[g as usize]));
        out.push(v[net.terminal as usize]);
        out
    }

    /// The interface must survive: same bases, moves and goals, base/input nodes of their kind.
    fn check_interface(a: &Net, b: &Net) {
        assert_eq!(a.bases.len(), b.bases.len());
        for (i, (x, y)) in a.bases.iter().zip(&b.bases).enumerate() {
            assert_eq!((&x.name, x.init), (&y.name, y.init));
            assert_eq!(b.kinds[y.node as usize], Kind::Base(i as u32));
        }
        for (j, (x, y)) in a.moves.iter().zip(&b.moves).enumerate() {
            assert_eq!((&x.name, x.role), (&y.name, y.role));
            assert_eq!(b.kinds[y.node as usize], Kind::Input(j as u32));
        }
        let values = |n: &Net| n.goals.iter().map(|g| g.iter().map(|x| x.0).collect::<Vec<_>>()).collect::<Vec<_>>();
        assert_eq!(values(a), values(b));
        for (k, ins) in b.kinds.iter().zip(&b.inputs) {
            match k {
                Kind::Not => assert_eq!(ins.len(), 1),
                Kind::And | Kind::Or => {}
                _ => assert!(ins.is_empty()),
            }
        }
    }

    /// Exhaustive equivalence on every base and input marking.
    fn check_exact(a: &Net, b: &Net) {
        check_interface(a, b);
        for base in all_markings(a.bases.len()) {
            for input in all_markings(a.moves.len()) {
                assert_eq!(outputs(a, &base, &input), outputs(b, &base, &input), "base {base:?} input {input:?}");
            }
        }
    }

    /// Every reachable state, and with it every legal joint move (one move per role that has any),
    /// found by exhaustive search in `a`.
    fn reachable(a: &Net) -> Vec<(Vec<bool>, Vec<bool>)> {
        let zeros = vec![false; a.moves.len()];
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![a.bases.iter().map(|b| b.init).collect::<Vec<bool>>()];
        let mut out = Vec::new();
        while let Some(s) = stack.pop() {
            if !seen.insert(s.clone()) {
                continue;
            }
            out.push((s.clone(), zeros.clone()));
            let v = a.evaluate(&s, &zeros);
            let legal: Vec<Vec<usize>> = (0..a.roles.len())
                .map(|r| (0..a.moves.len()).filter(|&j| a.moves[j].role == r && v[a.moves[j].legal as usize]).collect())
                .collect();
            let mut joint = vec![zeros.clone()];
            for ms in legal.iter().filter(|ms| !ms.is_empty()) {
                joint = joint
                    .iter()
                    .flat_map(|input| {
                        ms.iter().map(move |&j| {
                            let mut i = input.clone();
                            i[j] = true;
                            i
                        })
                    })
                    .collect();
            }
            for input in joint {
                let v = a.evaluate(&s, &input);
                stack.push(a.bases.iter().map(|b| v[b.next as usize]).collect());
                out.push((s.clone(), input));
            }
        }
        out
    }

    fn check_reachable(a: &Net, b: &Net) {
        check_interface(a, b);
        for (s, input) in reachable(a) {
            assert_eq!(outputs(a, &s, &input), outputs(b, &s, &input), "state {s:?} input {input:?}");
        }
    }

    fn exact() -> Options {
        Options { reachability: false, ..Options::default() }
    }

    #[test]
    fn constants_fold_away() {
        let mut net = skeleton(2, &[0]);
        let f = net.add(Kind::Const(false), vec![], None);
        let t = net.add(Kind::Const(true), vec![], None);
        let and_f = net.add(Kind::And, vec![0, f], Some("(dead)".into()));
        let and_t = net.add(Kind::And, vec![0, t], None);
        let or_t = net.add(Kind::Or, vec![and_f, t], None);
        let not_f = net.add(Kind::Not, vec![f], None);
        let empty_and = net.add(Kind::And, vec![], None);
        let empty_or = net.add(Kind::Or, vec![], None);
        net.bases[0].next = and_t;
        net.bases[1].next = and_f;
        net.moves[0].legal = or_t;
        net.goals[0] = vec![(0, not_f), (50, empty_or), (100, empty_and)];
        net.terminal = empty_or;
        let (opt, stats) = optimize_with(&net, &exact());
        check_exact(&net, &opt);
        // AND(p0, true) is p0; everything else is a constant.
        assert_eq!(opt.bases[0].next, opt.bases[0].node);
        assert_eq!(opt.kinds[opt.bases[1].next as usize], Kind::Const(false));
        assert_eq!(opt.kinds[opt.moves[0].legal as usize], Kind::Const(true));
        assert_eq!(opt.kinds[opt.terminal as usize], Kind::Const(false));
        assert_eq!(opt.kinds.len(), 2 + 2 + 1, "two constants, two bases, one input: {opt:?}");
        assert!(stats.to_string().contains("fold"));
    }

    #[test]
    fn cycles_fold_to_their_least_fixpoint() {
        let mut net = skeleton(2, &[0]);
        let f = net.add(Kind::Const(false), vec![], None);
        // x = OR(y, false), y = AND(x, x'), x' = OR(x, y): a cycle with only constant outside inputs.
        let x = net.add(Kind::Or, vec![], Some("(x)".into()));
        let y = net.add(Kind::And, vec![], Some("(y)".into()));
        let x2 = net.add(Kind::Or, vec![x, y], None);
        net.inputs[x as usize] = vec![y, f];
        net.inputs[y as usize] = vec![x, x2];
        // r = OR(r, p0): a self-loop whose least fixpoint is p0. s = AND(s, p1): always false.
        let r = net.add(Kind::Or, vec![], Some("(r)".into()));
        net.inputs[r as usize] = vec![r, 0];
        let s = net.add(Kind::And, vec![], None);
        net.inputs[s as usize] = vec![s, 1];
        // u = OR(v, p1), v = OR(u, input): a cycle that depends on its outside.
        let u = net.add(Kind::Or, vec![], Some("(u)".into()));
        let v = net.add(Kind::Or, vec![u, 2], None);
        net.inputs[u as usize] = vec![v, 1];
        net.bases[0].next = x;
        net.bases[1].next = r;
        net.moves[0].legal = s;
        net.goals[0] = vec![(100, u)];
        net.goals[1] = vec![(100, y)];
        net.terminal = x2;
        let (opt, _) = optimize_with(&net, &exact());
        check_exact(&net, &opt);
        assert_eq!(opt.kinds[opt.bases[0].next as usize], Kind::Const(false));
        assert_eq!(opt.kinds[opt.terminal as usize], Kind::Const(false));
        assert_eq!(opt.bases[1].next, opt.bases[0].node, "r = OR(r, p0) is p0");
        assert_eq!(opt.kinds[opt.moves[0].legal as usize], Kind::Const(false));
        // u = OR(u, p1, input) after collapsing v; the cycle is now a self-loop that drops away.
        let g = opt.goals[0][0].1 as usize;
        assert_eq!(opt.kinds[g], Kind::Or);
        assert_eq!(opt.inputs[g].len(), 2);
        assert_eq!(opt.labels[g].as_deref(), Some("(u)"));
    }

    #[test]
    fn duplicates_merge_and_single_inputs_collapse() {
        let mut net = skeleton(3, &[0, 1]);
        let a1 = net.add(Kind::And, vec![0, 1, 2], None);
        let a2 = net.add(Kind::And, vec![2, 1, 0, 1], Some("(a)".into()));
        let n1 = net.add(Kind::Not, vec![a1], None);
        let n2 = net.add(Kind::Not, vec![a2], None);
        let nn = net.add(Kind::Not, vec![n1], Some("(nn)".into()));
        let o1 = net.add(Kind::Or, vec![n1, 3], None);
        let o2 = net.add(Kind::Or, vec![4, n2, 3], None);
        let o3 = net.add(Kind::Or, vec![3, n1], Some("(o3)".into()));
        let single = net.add(Kind::Or, vec![o3], Some("(single)".into()));
        net.bases[0].next = o1;
        net.bases[1].next = o2;
        net.bases[2].next = nn;
        net.moves[0].legal = single;
        net.moves[1].legal = a1;
        let (opt, stats) = optimize_with(&net, &exact());
        check_exact(&net, &opt);
        // a1 and a2 merged (label kept), NOT NOT a1 is a1, o1 and o3 merged, single collapsed.
        assert_eq!(opt.bases[2].next, opt.moves[1].legal);
        assert!(opt.labels[opt.moves[1].legal as usize].is_some(), "a name is kept");
        assert_eq!(opt.bases[0].next, opt.moves[0].legal);
        assert_ne!(opt.bases[0].next, opt.bases[1].next);
        // 3 bases, 2 inputs, AND, NOT, two ORs.
        assert_eq!(opt.kinds.len(), 9, "{opt:?}");
        let merge = stats.passes.iter().find(|p| p.pass == Pass::Merge).unwrap();
        assert!(merge.nodes_removed >= 3, "{stats}");
    }

    #[test]
    fn complements_and_flattening() {
        let mut net = skeleton(3, &[0]);
        let not0 = net.add(Kind::Not, vec![0], None);
        let contradiction = net.add(Kind::And, vec![0, 1, not0], None);
        let tautology = net.add(Kind::Or, vec![not0, 2, 0], None);
        let inner = net.add(Kind::And, vec![1, 2], Some("(inner)".into()));
        let outer = net.add(Kind::And, vec![inner, 0], None);
        net.bases[0].next = contradiction;
        net.bases[1].next = tautology;
        net.bases[2].next = outer;
        net.moves[0].legal = tautology;
        let (opt, _) = optimize_with(&net, &exact());
        check_exact(&net, &opt);
        assert_eq!(opt.kinds[opt.bases[0].next as usize], Kind::Const(false));
        assert_eq!(opt.kinds[opt.bases[1].next as usize], Kind::Const(true));
        assert_eq!(opt.inputs[opt.bases[2].next as usize].len(), 3, "inner spliced into outer");
        let keep = Options { flatten_labelled: false, ..exact() };
        let (opt, _) = optimize_with(&net, &keep);
        check_exact(&net, &opt);
        assert_eq!(opt.inputs[opt.bases[2].next as usize].len(), 2, "named inner kept");
    }

    #[test]
    fn reachability_finds_constant_bases_and_unplayable_moves() {
        // p0 keeps its value (next is itself) and starts true; p1 and p2 feed each other and start
        // false; p3 is set by move m0, which is legal when p2 holds (never); p4 toggles.
        let mut net = skeleton(5, &[0, 1]);
        net.bases[0].init = true;
        net.bases[0].next = 0;
        net.bases[1].next = 2;
        net.bases[2].next = 1;
        let set = net.add(Kind::Or, vec![5, 3], Some("(set)".into()));
        net.bases[3].next = set;
        let toggle = net.add(Kind::Not, vec![4], None);
        net.bases[4].next = toggle;
        net.moves[0].legal = 2;
        let t = net.add(Kind::Const(true), vec![], None);
        net.moves[1].legal = t;
        let win = net.add(Kind::And, vec![0, 4], Some("(win)".into()));
        let lose = net.add(Kind::And, vec![3, 1], Some("(lose)".into()));
        net.goals[0] = vec![(0, lose), (100, win)];
        net.terminal = lose;
        let (opt, stats) = optimize(&net);
        check_reachable(&net, &opt);
        assert!(stats.reachability);
        let kind = |n: NodeId| opt.kinds[n as usize];
        assert_eq!(kind(opt.bases[0].next), Kind::Const(true));
        assert_eq!(kind(opt.bases[1].next), Kind::Const(false));
        assert_eq!(kind(opt.bases[3].next), Kind::Const(false));
        assert_eq!(kind(opt.moves[0].legal), Kind::Const(false));
        assert_eq!(kind(opt.terminal), Kind::Const(false));
        assert_eq!(opt.goals[0][1].1, opt.bases[4].node, "win = p0 AND p4 = p4");
        // Every base and input node is still there, of its kind.
        assert_eq!(opt.counts().bases, 5);
        assert_eq!(opt.counts().inputs, 2);
        // Without reachability the net is exactly equivalent and keeps the dynamics.
        let (eq, _) = optimize_with(&net, &exact());
        check_exact(&net, &eq);
        assert_ne!(eq.kinds[eq.terminal as usize], Kind::Const(false));
    }

    /// A random stratified net: blocks of AND/OR gates with arbitrary edges among themselves
    /// (cycles included) and into earlier blocks, NOT gates only reading earlier blocks.
    fn random_net(rng: &mut SmallRng) -> Net {
        let bases = rng.random_range(1..=4);
        let moves: Vec<usize> = (0..rng.random_range(1..=3)).map(|_| rng.random_range(0..2)).collect();
        let mut net = skeleton(bases, &moves);
        for b in &mut net.bases {
            b.init = rng.random_bool(0.4);
        }
        if rng.random_bool(0.5) {
            net.add(Kind::Const(rng.random_bool(0.5)), vec![], None);
        }
        for _block in 0..rng.random_range(1..=4) {
            let before = net.kinds.len() as NodeId;
            for _ in 0..rng.random_range(0..3) {
                let i = rng.random_range(0..before);
                net.add(Kind::Not, vec![i], None);
            }
            let start = net.kinds.len() as NodeId;
            let size = rng.random_range(1..=5);
            for _ in 0..size {
                let kind = if rng.random_bool(0.5) { Kind::And } else { Kind::Or };
                let label = rng.random_bool(0.3).then(|| format!("(v{})", net.kinds.len()));
                net.add(kind, vec![], label);
            }
            let end = net.kinds.len() as NodeId;
            for g in start..end {
                let k = rng.random_range(0..=4);
                let ins =
                    (0..k)
                        .map(|_| {
                            if rng.random_bool(0.3) {
                                rng.random_range(start..end)
                            } else {
                                rng.random_range(0..start)
                            }
                        })
                        .collect();
                net.inputs[g as usize] = ins;
            }
        }
        let n = net.kinds.len() as NodeId;
        for b in 0..bases {
            net.bases[b].next = rng.random_range(0..n);
        }
        for j in 0..moves.len() {
            // Legal never reads inputs in GDL; keep it so here half of the time.
            let lo = if rng.random_bool(0.5) { 0 } else { bases as NodeId + moves.len() as NodeId };
            net.moves[j].legal = rng.random_range(lo.min(n - 1)..n);
        }
        for r in 0..2 {
            net.goals[r] = (0..rng.random_range(0..3)).map(|v| (v * 50, rng.random_range(0..n))).collect();
        }
        net.terminal = rng.random_range(0..n);
        net
    }

    #[test]
    fn random_nets_exact() {
        let mut rng = SmallRng::seed_from_u64(1);
        for _ in 0..3000 {
            let net = random_net(&mut rng);
            let (opt, _) = optimize_with(&net, &exact());
            check_exact(&net, &opt);
            // Optimising again changes nothing.
            let (again, _) = optimize_with(&opt, &exact());
            assert_eq!(again.kinds.len(), opt.kinds.len());
        }
    }

    #[test]
    fn random_nets_reachable() {
        let mut rng = SmallRng::seed_from_u64(2);
        for _ in 0..3000 {
            let net = random_net(&mut rng);
            let (opt, _) = optimize(&net);
            check_reachable(&net, &opt);
        }
    }
}
