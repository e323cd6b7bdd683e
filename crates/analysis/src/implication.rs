//! What a few known base values force elsewhere in the net, everything else unknown.
//!
//! Three-valued (Kleene) propagation downstream of the assumed nodes: an and-gate is false as
//! soon as one input is false, true when all are; dually for or; not flips. Values only ever go
//! from unknown to known, and only from the assumptions and constants, so every derived value
//! holds in every marking that agrees with the assumptions, cycles (least fixpoints) included.
//! Work is proportional to the part of the net the assumptions reach (each gate counts its
//! known inputs rather than reading them all again as each arrives, so a gate of a thousand
//! inputs costs a thousand steps, not a million), which keeps one query per base proposition
//! affordable on large nets.

use propnet::net::{Kind, Net, NodeId};

/// A three-valued evaluator with undo, for many small queries on one net.
pub struct Implication<'a> {
    net: &'a Net,
    readers: Vec<Vec<NodeId>>,
    /// The value with nothing assumed (only constants known).
    baseline: Vec<Option<bool>>,
    value: Vec<Option<bool>>,
    /// Per node, how many of its inputs (counted per occurrence) are known true, and false.
    known: Vec<[u32; 2]>,
    touched: Vec<NodeId>,
    queue: Vec<NodeId>,
}

impl<'a> Implication<'a> {
    /// An evaluator for `net` with nothing assumed.
    pub fn new(net: &'a Net) -> Implication<'a> {
        let mut readers = vec![Vec::new(); net.kinds.len()];
        for (n, ins) in net.inputs.iter().enumerate() {
            for &i in ins {
                readers[i as usize].push(n as NodeId);
            }
        }
        let mut me = Implication {
            net,
            readers,
            baseline: vec![None; net.kinds.len()],
            value: vec![None; net.kinds.len()],
            known: vec![[0, 0]; net.kinds.len()],
            touched: Vec::new(),
            queue: Vec::new(),
        };
        let constants: Vec<(NodeId, bool)> = (0..net.kinds.len())
            .filter_map(|n| match net.kinds[n] {
                Kind::Const(c) => Some((n as NodeId, c)),
                _ => None,
            })
            .collect();
        me.assume(&constants);
        me.baseline.clone_from(&me.value);
        me.touched.clear();
        me
    }

    /// Forgets every assumption made since the last reset.
    pub fn reset(&mut self) {
        self.undo(0);
    }

    /// A point to return to with [`undo`](Self::undo), keeping the assumptions made so far.
    pub fn mark(&self) -> usize {
        self.touched.len()
    }

    /// Forgets the assumptions made since `mark` (and what they forced), keeping earlier ones.
    pub fn undo(&mut self, mark: usize) {
        for n in self.touched.drain(mark..) {
            // Every node set was propagated, so its readers counted it.
            if let Some(v) = self.value[n as usize] {
                for &r in &self.readers[n as usize] {
                    self.known[r as usize][usize::from(v)] -= 1;
                }
            }
            self.value[n as usize] = self.baseline[n as usize];
        }
    }

    /// The value of `node` under the current assumptions, if forced.
    pub fn value(&self, node: NodeId) -> Option<bool> {
        self.value[node as usize]
    }

    /// Adds assumptions (typically base or input nodes) and propagates them.
    /// An assumption contradicting a forced value is ignored: the caller's premise is then
    /// impossible and nothing it concludes is used.
    pub fn assume(&mut self, facts: &[(NodeId, bool)]) {
        for &(n, v) in facts {
            self.set(n, v);
        }
        while let Some(n) = self.queue.pop() {
            let v = self.value[n as usize].expect("a queued node has a value");
            for k in 0..self.readers[n as usize].len() {
                let r = self.readers[n as usize][k];
                self.known[r as usize][usize::from(v)] += 1;
                if self.value[r as usize].is_some() {
                    continue;
                }
                if let Some(v) = self.eval(r) {
                    self.set(r, v);
                }
            }
        }
    }

    /// Adds assumptions about base propositions, by index, and propagates them.
    pub fn assume_bases(&mut self, facts: &[(usize, bool)]) {
        let nodes: Vec<(NodeId, bool)> = facts.iter().map(|&(b, v)| (self.net.bases[b].node, v)).collect();
        self.assume(&nodes);
    }

    fn set(&mut self, n: NodeId, v: bool) {
        if self.value[n as usize].is_none() {
            self.value[n as usize] = Some(v);
            self.touched.push(n);
            self.queue.push(n);
        }
    }

    /// The value `n`'s known inputs force, from their counts.
    fn eval(&self, n: NodeId) -> Option<bool> {
        let [falses, trues] = self.known[n as usize];
        let all = self.net.inputs[n as usize].len() as u32;
        match self.net.kinds[n as usize] {
            Kind::And if falses > 0 => Some(false),
            Kind::And => (trues == all).then_some(true),
            Kind::Or if trues > 0 => Some(true),
            Kind::Or => (falses == all).then_some(false),
            Kind::Not => (falses + trues > 0).then_some(falses > 0),
            // Only assumptions give bases and inputs a value; constants have theirs.
            Kind::Base(_) | Kind::Input(_) | Kind::Const(_) => None,
        }
    }

    /// The base propositions whose next value the current assumptions force, with that value.
    pub fn forced_next(&self) -> Vec<(usize, bool)> {
        let net = self.net;
        (0..net.bases.len()).filter_map(|i| self.value(net.bases[i].next).map(|v| (i, v))).collect()
    }

    /// Whether `node` has a value with nothing assumed (a constant, whatever the state).
    pub fn is_constant(&self, node: NodeId) -> bool {
        self.baseline[node as usize].is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use propnet::kleene::Tri;
    use proptest::prelude::*;

    fn empty() -> Net {
        Net {
            kinds: vec![],
            inputs: vec![],
            labels: vec![],
            roles: vec![],
            bases: vec![],
            moves: vec![],
            goals: vec![],
            terminal: 0,
        }
    }

    /// The least fixpoint of three-valued evaluation with `facts` assumed, batch by batch (a
    /// batch's facts set before any is propagated, as [`Implication::assume`] does), every gate
    /// evaluated from all its inputs again until nothing changes.
    fn by_fixpoint(net: &Net, batches: &[Vec<(NodeId, bool)>]) -> Vec<Option<bool>> {
        let mut value: Vec<Option<bool>> =
            net.kinds.iter().map(|k| matches!(k, Kind::Const(c) if *c).then_some(true)).collect();
        for (n, k) in net.kinds.iter().enumerate() {
            if *k == Kind::Const(false) {
                value[n] = Some(false);
            }
        }
        let settle = |value: &mut Vec<Option<bool>>| loop {
            let mut changed = false;
            for n in 0..net.kinds.len() {
                if value[n].is_none() && matches!(net.kinds[n], Kind::And | Kind::Or | Kind::Not) {
                    let v = Tri::gate(net.kinds[n], &net.inputs[n], |i| Tri::from(value[i as usize])).known();
                    if v.is_some() {
                        value[n] = v;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        };
        settle(&mut value);
        for batch in batches {
            for &(n, v) in batch {
                value[n as usize].get_or_insert(v);
            }
            settle(&mut value);
        }
        value
    }

    proptest! {
        /// Counting known inputs gives what evaluating every gate again gives, through marks,
        /// undos and resets, on random nets with cycles and repeated inputs.
        #[test]
        fn counting_inputs_agrees_with_evaluating_them(
            gates in prop::collection::vec((0u8..3, prop::collection::vec(0usize..1000, 1..6)), 1..40),
            batches in prop::collection::vec(prop::collection::vec((0usize..6, any::<bool>()), 0..4), 1..5),
            undo_at in 0usize..5,
        ) {
            let mut net = empty();
            let bases: Vec<NodeId> = (0..6).map(|i| net.add(Kind::Base(i), vec![], None)).collect();
            net.add(Kind::Const(true), vec![], None);
            net.add(Kind::Const(false), vec![], None);
            let first = net.kinds.len();
            let total = first + gates.len();
            for (kind, ins) in &gates {
                let kind = [Kind::And, Kind::Or, Kind::Not][usize::from(*kind)];
                let ins: Vec<NodeId> = ins.iter().map(|&i| (i % total) as NodeId).collect();
                let ins = if kind == Kind::Not { ins[..1].to_vec() } else { ins };
                net.add(kind, ins, None);
            }
            let batches: Vec<Vec<(NodeId, bool)>> =
                batches.iter().map(|b| b.iter().map(|&(i, v)| (bases[i], v)).collect()).collect();
            let mut imp = Implication::new(&net);
            // Assumed, a batch undone to the mark before it, then everything again after a reset.
            let mut kept = Vec::new();
            for (k, batch) in batches.iter().enumerate() {
                let mark = imp.mark();
                imp.assume(batch);
                if k == undo_at {
                    imp.undo(mark);
                } else {
                    kept.push(batch.clone());
                }
                let expected = by_fixpoint(&net, &kept);
                prop_assert_eq!((0..total).map(|n| imp.value(n as NodeId)).collect::<Vec<_>>(), expected);
            }
            imp.reset();
            for batch in &batches {
                imp.assume(batch);
            }
            let expected = by_fixpoint(&net, &batches);
            prop_assert_eq!((0..total).map(|n| imp.value(n as NodeId)).collect::<Vec<_>>(), expected);
        }
    }

    #[test]
    fn and_or_not_and_cycles_propagate_soundly() {
        let mut net = empty();
        let p = net.add(Kind::Base(0), vec![], None);
        let q = net.add(Kind::Base(1), vec![], None);
        let not_p = net.add(Kind::Not, vec![p], None);
        let and = net.add(Kind::And, vec![not_p, q], None);
        let or = net.add(Kind::Or, vec![p, q], None);
        // A positive cycle: c = or(c, and) — its least fixpoint is `and`.
        let c = net.add(Kind::Or, vec![and], None);
        net.inputs[c as usize].push(c);
        let mut imp = Implication::new(&net);
        imp.assume(&[(p, true)]);
        assert_eq!(imp.value(and), Some(false));
        assert_eq!(imp.value(or), Some(true));
        // Unknown, not false: the cycle has no other support, but nothing forces it.
        assert_eq!(imp.value(c), None);
        // Undoing to a mark keeps what was assumed before it.
        let mark = imp.mark();
        imp.assume(&[(q, true)]);
        assert_eq!(imp.value(q), Some(true));
        imp.undo(mark);
        assert_eq!((imp.value(or), imp.value(q)), (Some(true), None));
        imp.reset();
        assert_eq!(imp.value(and), None);
        imp.assume(&[(p, false), (q, true)]);
        assert_eq!((imp.value(and), imp.value(c)), (Some(true), Some(true)));
    }
}
