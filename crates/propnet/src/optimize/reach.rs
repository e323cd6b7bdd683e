//! Passes fold and reach: three-valued evaluation of the whole net, with bases and inputs
//! unknown (fold) or ranging over an over-approximation of the reachable states and legal moves
//! (reach), and cycles bounded by their least fixpoints read both ways.

use super::work::Work;
use crate::kleene::Tri;
use crate::net::{Kind, NodeId};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Something whose abstract value a node's value decides in pass reach.
#[derive(Debug, Clone, Copy)]
enum Watch {
    Base(u32),
    Input(u32),
}

impl Work {
    /// Pass fold (`reach` false: bases and inputs unknown) or pass reach (`reach` true: the
    /// reachability analysis): evaluates every node three-valued and replaces each constant one by
    /// its constant, then strips constant inputs.
    pub(super) fn fold(&mut self, reach: bool) -> bool {
        self.relink();
        let Some(val) = self.analyse(reach) else { return false };
        let mut changed = false;
        for n in 0..self.net.kinds.len() as NodeId {
            if self.late(n as usize) {
                break;
            }
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
    /// both become unknown when their `next` / `legal` node may take another value. Past the
    /// deadline the nodes not yet evaluated stay unknown without `reach`; with it, values known
    /// too early would be wrong (they only ever become unknown), so there are none.
    fn analyse(&mut self, reach: bool) -> Option<Vec<Tri>> {
        let n_nodes = self.net.kinds.len();
        let mut base_state: Vec<Tri> =
            self.net.bases.iter().map(|b| if reach { Tri::of(b.init) } else { Tri::X }).collect();
        let prune_inputs = reach && !self.legal_reads_input();
        let mut input_state = vec![if prune_inputs { Tri::F } else { Tri::X }; self.net.moves.len()];
        let mut val = vec![Tri::X; n_nodes];
        let groups = self.comps.cyclic.len();
        let mut scratch = GroupScratch { local: vec![u32::MAX; n_nodes], ..GroupScratch::default() };
        let mut changed_nodes = Vec::new();
        for g in 0..groups {
            if self.late(g) {
                if reach {
                    return None;
                }
                break;
            }
            self.eval_group(g, &mut val, &base_state, &input_state, &mut scratch, &mut changed_nodes);
        }
        changed_nodes.clear();
        if !reach {
            return Some(val);
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
        // The tables below are built without a look at the clock: one after each.
        if self.late(0) {
            return None;
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
        if self.late(0) {
            return None;
        }
        let mut heap: BinaryHeap<Reverse<u32>> = BinaryHeap::new();
        let mut queued = vec![false; groups];
        let mut steps = 0;
        loop {
            while let Some((u, old)) = pending.pop() {
                steps += 1;
                if self.late(steps) {
                    return None;
                }
                debug_assert!(old != Tri::X && val[u as usize] == Tri::X);
                for &r in &readers[offsets[u as usize] as usize..offsets[u as usize + 1] as usize] {
                    let g = self.comps.group_of[r as usize];
                    if self.comps.cyclic[g as usize] {
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
        Some(val)
    }

    /// Whether some `legal` node depends on an input node, in which case inputs cannot be assumed
    /// false until legal (the assumption would be circular).
    fn legal_reads_input(&mut self) -> bool {
        let mut reads = vec![false; self.net.kinds.len()];
        for k in 0..self.comps.order.len() {
            let n = self.comps.order[k] as usize;
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
        let range = self.comps.start[g] as usize..self.comps.start[g + 1] as usize;
        let mut set = |n: NodeId, v: Tri, val: &mut [Tri]| {
            if val[n as usize] != v {
                changed.push((n, val[n as usize]));
                val[n as usize] = v;
            }
        };
        if !self.comps.cyclic[g] {
            let n = self.comps.order[range.start];
            let v = match self.net.kinds[n as usize] {
                Kind::Const(c) => Tri::of(c),
                Kind::Base(i) => base_state[i as usize],
                Kind::Input(j) => input_state[j as usize],
                _ if !self.live_gate(n) => return,
                kind => Tri::gate(kind, &self.net.inputs[n as usize], |i| val[i as usize]),
            };
            set(n, v, val);
            return;
        }
        // A cycle: its least fixpoint is monotone in the values it reads from outside, so reading
        // unknowns as false gives a lower bound and as true an upper bound.
        s.members.clear();
        for &n in &self.comps.order[range] {
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
