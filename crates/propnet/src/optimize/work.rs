//! The net under optimisation and the rewrites that merge, splice and drop its gates: a
//! union-find of nodes that compute the same value, with the local rules of passes collapse,
//! merge, flatten and prune, and the compaction that renumbers the result.

use crate::net::{Kind, Net, NodeId};
use rustc_hash::{FxHashMap, FxHasher};
use std::borrow::Cow;
use std::hash::{Hash, Hasher};
use std::time::Instant;
use structures::Components;

/// The net being optimised: the original nodes plus two canonical constants, where a node is
/// either live, forwarded to a node that computes the same value (`fwd`), or dead (read by
/// nothing needed).
pub(super) struct Work {
    /// The net: kinds, inputs and interface (its `labels` are unused: see `label`).
    pub(super) net: Net,
    /// Each node's label, as an index into the labels of the net given to [`optimize_with`]
    /// (`NO_LABEL` for none): strings are only copied into the result.
    pub(super) label: Vec<u32>,
    pub(super) fwd: Vec<NodeId>,
    pub(super) dead: Vec<bool>,
    pub(super) ff: NodeId,
    pub(super) tt: NodeId,
    /// The needed nodes' strongly connected components in evaluation order, constants first.
    /// Every rewrite keeps this a valid order (an edge only goes forward or stays inside a
    /// component), so it is computed only when the work is built.
    pub(super) comps: Components,
    /// Live nodes (base and input nodes always count).
    pub(super) live_nodes: usize,
    /// Inputs of live gates.
    pub(super) live_edges: usize,
    /// When the passes stop, each where it stands (see [`Work::late`]).
    pub(super) deadline: Option<Instant>,
}

/// No label.
pub(super) const NO_LABEL: u32 = u32::MAX;

#[cfg(test)]
thread_local! {
    /// In the unit tests, when set: the deadline passes at this step of the passes (every step
    /// asks), whatever the clock says, so that a test can stop them at every point in turn.
    pub(super) static STEPS_LEFT: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

impl Work {
    /// Takes the part of `src` the outputs depend on (the rest starts dead) and adds the two
    /// canonical constants. Labels are indices into `src_labels`: `labels` if given, else the
    /// node's own index. `None` if `abandon` passes while the outputs' cone is searched (on a
    /// fresh net of a million gates, a tenth of a second).
    pub(super) fn new(
        src: Cow<'_, Net>,
        labels: Option<&[u32]>,
        src_labels: &[Option<String>],
        abandon: Option<Instant>,
    ) -> Option<Work> {
        let n = src.kinds.len() + 2;
        let (ff, tt) = (n as NodeId - 2, n as NodeId - 1);
        let roots: Vec<NodeId> = [ff, tt].into_iter().chain(src.outputs()).collect();
        let Some(comps) = Components::of_until(&src.inputs, n, roots, &mut |k| crate::past(abandon, k, 1 << 16)) else {
            if let Cow::Owned(net) = src {
                crate::drop_aside(net);
            }
            return None;
        };
        let group_of = &comps.group_of;
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
        let fwd = (0..n as NodeId).collect();
        let mut w = Work { net, label, fwd, dead, ff, tt, comps, live_nodes, live_edges, deadline: None };
        for x in 0..n as NodeId {
            if let Kind::Const(c) = w.net.kinds[x as usize] {
                if x != ff && x != tt && !w.dead[x as usize] {
                    w.forward(x, if c { tt } else { ff });
                }
            }
        }
        Some(w)
    }

    /// Whether the deadline has passed, looked at when `k` is a multiple of 1024 only (reading
    /// the clock costs more than most steps of a pass). A pass that is late stops where it stands:
    /// every rewrite it made keeps the net exact, and what it did not reach stays as it was.
    pub(super) fn late(&self, k: usize) -> bool {
        #[cfg(test)]
        if let Some(left) = STEPS_LEFT.get() {
            STEPS_LEFT.set(Some(left.saturating_sub(1)));
            return left == 0;
        }
        crate::past(self.deadline, k, 1024)
    }

    pub(super) fn is_gate(&self, n: NodeId) -> bool {
        matches!(self.net.kinds[n as usize], Kind::And | Kind::Or | Kind::Not)
    }

    pub(super) fn is_leaf_prop(&self, n: NodeId) -> bool {
        matches!(self.net.kinds[n as usize], Kind::Base(_) | Kind::Input(_))
    }

    /// A live gate: computes something, not forwarded, not dead.
    pub(super) fn live_gate(&self, n: NodeId) -> bool {
        self.fwd[n as usize] == n && !self.dead[n as usize] && self.is_gate(n)
    }

    /// Takes a node's inputs out (to be put back with [`Work::put_inputs`]).
    pub(super) fn take_inputs(&mut self, n: NodeId) -> Vec<NodeId> {
        let ins = std::mem::take(&mut self.net.inputs[n as usize]);
        self.live_edges -= ins.len();
        ins
    }

    /// Sets a node's inputs (taken out before).
    pub(super) fn put_inputs(&mut self, n: NodeId, ins: Vec<NodeId>) {
        debug_assert!(self.net.inputs[n as usize].is_empty());
        self.live_edges += ins.len();
        self.net.inputs[n as usize] = ins;
    }

    /// Marks a live gate dead.
    pub(super) fn kill(&mut self, n: NodeId) {
        self.take_inputs(n);
        self.dead[n as usize] = true;
        self.live_nodes -= 1;
    }

    /// The node that computes `n`'s value, with path compression.
    pub(super) fn find(&mut self, n: NodeId) -> NodeId {
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
    pub(super) fn forward(&mut self, n: NodeId, to: NodeId) {
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
    pub(super) fn outputs(&mut self) -> Vec<NodeId> {
        let outs: Vec<NodeId> = self.net.outputs().collect();
        outs.into_iter().map(|n| self.find(n)).collect()
    }

    /// Points every live gate's inputs at the nodes now computing them.
    pub(super) fn relink(&mut self) {
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
    pub(super) fn normalize(&mut self, n: NodeId) -> Option<NodeId> {
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
    pub(super) fn has_complement(&mut self, ins: &[NodeId]) -> bool {
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
    pub(super) fn normalize_all(&mut self) -> bool {
        let mut changed = false;
        for k in 0..self.comps.order.len() {
            if self.late(k) {
                break;
            }
            let n = self.comps.order[k];
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
    pub(super) fn prune(&mut self) -> bool {
        let mut needed = vec![false; self.net.kinds.len()];
        let mut stack = self.outputs();
        let mut k = 0;
        while let Some(n) = stack.pop() {
            k += 1;
            if self.late(k) {
                // What is needed is not known until the search ends: kill nothing.
                return false;
            }
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
    pub(super) fn collapse(&mut self) -> bool {
        self.normalize_all()
    }

    /// Pass merge: hash-consing sweeps. In evaluation order one sweep merges everything outside
    /// cycles; it repeats while merges inside cycles may have exposed more.
    pub(super) fn merge(&mut self) -> bool {
        let mut any = false;
        let mut table: FxHashMap<u64, NodeId> = FxHashMap::default();
        loop {
            let mut in_cycle = false;
            table.clear();
            for k in 0..self.comps.order.len() {
                if self.late(k) {
                    return any;
                }
                let n = self.comps.order[k];
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
                    in_cycle |= self.comps.cyclic[self.comps.group_of[n as usize] as usize];
                }
            }
            if !in_cycle {
                return any;
            }
        }
    }

    /// Pass flatten: splices single-reader, non-output AND gates into the AND reading them (and OR
    /// into OR); gates with a label only if `labelled`.
    pub(super) fn flatten(&mut self, labelled: bool) -> bool {
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
        for k in 0..self.comps.order.len() {
            if self.late(k) {
                break;
            }
            let n = self.comps.order[k];
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

    /// Builds the compact, renumbered result, its labels left out: returns them as indices, one
    /// per node (see `label`). `None` if `abandon` passes first.
    pub(super) fn compact(mut self, abandon: Option<Instant>) -> Option<(Net, Vec<u32>)> {
        self.relink();
        let n_nodes = self.net.kinds.len();
        let mut needed = vec![false; n_nodes];
        let mut stack = self.outputs();
        let mut steps = 0;
        while let Some(n) = stack.pop() {
            steps += 1;
            if crate::past(abandon, steps, 1 << 16) {
                crate::drop_aside(self);
                return None;
            }
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
        for &n in &self.comps.order {
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
        for (k, &n) in emit.iter().enumerate() {
            if crate::past(abandon, k, 1 << 16) {
                crate::drop_aside((self, out));
                return None;
            }
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
        Some((out, labels))
    }
}
