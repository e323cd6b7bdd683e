//! What a few known base values force elsewhere in the net, everything else unknown.
//!
//! Three-valued (Kleene) propagation downstream of the assumed nodes: an and-gate is false as
//! soon as one input is false, true when all are; dually for or; not flips. Values only ever go
//! from unknown to known, and only from the assumptions and constants, so every derived value
//! holds in every marking that agrees with the assumptions, cycles (least fixpoints) included.
//! Work is proportional to the part of the net the assumptions reach, which keeps one query per
//! base proposition affordable on large nets.

use propnet::kleene::Tri;
use propnet::net::{Kind, Net, NodeId};

/// A three-valued evaluator with undo, for many small queries on one net.
pub struct Implication<'a> {
    net: &'a Net,
    readers: Vec<Vec<NodeId>>,
    /// The value with nothing assumed (only constants known).
    baseline: Vec<Option<bool>>,
    value: Vec<Option<bool>>,
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
        for n in self.touched.drain(..) {
            self.value[n as usize] = self.baseline[n as usize];
        }
    }

    /// A point to return to with [`undo`](Self::undo), keeping the assumptions made so far.
    pub fn mark(&self) -> usize {
        self.touched.len()
    }

    /// Forgets the assumptions made since `mark` (and what they forced), keeping earlier ones.
    pub fn undo(&mut self, mark: usize) {
        for n in self.touched.drain(mark..) {
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
            for k in 0..self.readers[n as usize].len() {
                let r = self.readers[n as usize][k];
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

    fn eval(&self, n: NodeId) -> Option<bool> {
        // Only assumptions give bases and inputs a value.
        let ins = &self.net.inputs[n as usize];
        Tri::gate(self.net.kinds[n as usize], ins, |i| Tri::from(self.value[i as usize])).known()
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

    #[test]
    fn and_or_not_and_cycles_propagate_soundly() {
        let mut net = Net {
            kinds: vec![],
            inputs: vec![],
            labels: vec![],
            roles: vec![],
            bases: vec![],
            moves: vec![],
            goals: vec![],
            terminal: 0,
        };
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
