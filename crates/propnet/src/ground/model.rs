//! The relaxed model: the atoms that can ever hold, computed by saturating the rules. Relations
//! fixed in every state are computed exactly, stratum by stratum, negation included; the rest
//! (everything a rule chain links to `true` or `does`) with negative literals dropped, an
//! over-approximation.

use super::relation::TupleSet;
use super::{check_deadline, Emit, GroundError, Grounder};
use gdl::{Bindings, Lookup, Pat, Sym};
use std::rc::Rc;

impl Grounder {
    /// Which relations are computed exactly, and in which stratum (see the module header): those
    /// no rule chain links to `true` or `does`, whose negative literals read lower strata only.
    pub(super) fn stratify(&mut self) -> Vec<Option<u32>> {
        let n = self.relations.len();
        let dynamic = self.dynamic();
        // A stratum past the number of relations can only come from negation through recursion.
        let mut strata: Vec<Option<u32>> = dynamic.iter().map(|&d| (!d).then_some(0)).collect();
        let mut changed = true;
        while changed {
            changed = false;
            for rule in &self.rules {
                let head = rule.head_rel as usize;
                let Some(now) = strata[head] else { continue };
                let pos = rule.pos.iter().map(|l| strata[l.rel as usize]);
                let neg = rule.neg.iter().map(|l| strata[l.rel as usize].map(|s| s + 1));
                let needed = pos.chain(neg).try_fold(0, |m, s| s.map(|s| m.max(s)));
                let next = needed.filter(|&s| s <= n as u32).map(|s| s.max(now));
                if next != Some(now) {
                    strata[head] = next;
                    changed = true;
                }
            }
        }
        strata
    }

    /// Per relation, whether some chain of rules links it to `true` or `does`.
    pub(super) fn dynamic(&self) -> Vec<bool> {
        let mut dynamic = vec![false; self.relations.len()];
        for name in [Sym::TRUE, Sym::DOES] {
            if let Some(&rel) = self.by_name.get(&name) {
                dynamic[rel as usize] = true;
            }
        }
        let mut changed = true;
        while changed {
            changed = false;
            for rule in &self.rules {
                let mut body = rule.pos.iter().chain(&rule.neg);
                if !dynamic[rule.head_rel as usize] && body.any(|l| dynamic[l.rel as usize]) {
                    dynamic[rule.head_rel as usize] = true;
                    changed = true;
                }
            }
        }
        dynamic
    }

    /// Computes the model: the exact relations stratum by stratum, then everything else.
    pub(super) fn model(&mut self) -> Result<(), GroundError> {
        self.fixed()?;
        let rest = (0..self.rules.len()).filter(|&r| {
            let head = self.rules[r].head_rel;
            self.strata[head as usize].is_none() && !self.is_left_out(head)
        });
        self.saturate(&rest.collect::<Vec<_>>())
    }

    /// Computes the exact relations, stratum by stratum, leaving the others empty.
    pub(super) fn fixed(&mut self) -> Result<(), GroundError> {
        self.strata = self.stratify();
        let top = self.strata.iter().flatten().copied().max();
        for stratum in (0..=top.unwrap_or(0)).filter(|_| top.is_some()) {
            let rules = (0..self.rules.len()).filter(|&r| {
                let head = self.rules[r].head_rel;
                self.strata[head as usize] == Some(stratum) && !self.is_left_out(head)
            });
            self.saturate(&rules.collect::<Vec<_>>())?;
        }
        Ok(())
    }

    /// Whether every negative literal of `rule` over an exact relation holds under `b`.
    pub(super) fn negations_hold(&mut self, rule: usize, b: &Bindings) -> bool {
        let rule = Rc::clone(&self.rules[rule]);
        rule.neg.iter().all(|lit| {
            self.strata[lit.rel as usize].is_none()
                || !self.scratch_args(&lit.args, b)
                || self.relations[lit.rel as usize].find(&self.scratch).is_none()
        })
    }

    /// Puts the terms `args` stand for under `b` in `scratch`, building none: false if one was
    /// never built (or is unbound), so that no atom has it. Called for every candidate of a
    /// saturating join.
    pub(super) fn scratch_args(&mut self, args: &[Pat], b: &Bindings) -> bool {
        self.scratch.clear();
        for p in args {
            match b.lookup(&self.pool, p) {
                Lookup::Found(t) => self.scratch.push(t),
                Lookup::Absent | Lookup::Unbound => return false,
            }
        }
        true
    }

    /// Saturates the model under `rules` to a fixpoint.
    pub(super) fn saturate(&mut self, rules: &[usize]) -> Result<(), GroundError> {
        let mut delta: Vec<(u32, u32)> = vec![(0, 0); self.relations.len()];
        let mut first = true;
        self.saturating = true;
        let emit: &mut Emit = &mut |g, rule, b, _| {
            if g.negations_hold(rule, b) {
                g.push_head(rule, b);
            }
        };
        loop {
            check_deadline(&self.limits)?;
            for &r in rules {
                if first {
                    self.join(r, None, emit)?;
                    continue;
                }
                for lit in 0..self.rules[r].pos.len() {
                    let (lo, hi) = delta[self.rules[r].pos[lit].rel as usize];
                    if lo < hi {
                        self.join(r, Some((lit, lo, hi)), emit)?;
                    }
                }
            }
            first = false;
            let before: Vec<u32> = self.relations.iter().map(|r| r.count).collect();
            for (rel, new) in self.pending.iter_mut().enumerate().filter(|(_, new)| new.len() > 0) {
                let relation = Rc::make_mut(&mut self.relations[rel]);
                for idx in 0..new.len() as u32 {
                    relation.insert(new.get(idx), &self.pool);
                    // A round can bring millions of atoms, each filed in every index.
                    if idx % (1 << 16) == 0 {
                        check_deadline(&self.limits)?;
                    }
                }
                new.clear();
            }
            self.pending_count = 0;
            let total: usize = self.relations.iter().map(|r| r.count as usize).sum();
            if total > self.limits.max_atoms {
                return Err(GroundError::TooManyAtoms(self.limits.max_atoms));
            }
            delta = self.relations.iter().zip(&before).map(|(r, &b)| (b, r.count)).collect();
            if delta.iter().all(|(lo, hi)| lo == hi) {
                self.saturating = false;
                return Ok(());
            }
        }
    }

    /// Whether the model or this round's new atoms already hold the head of `rule` under `b` (a
    /// head with a term never built is new).
    pub(super) fn head_known(&mut self, rule: usize, b: &Bindings) -> bool {
        let r = Rc::clone(&self.rules[rule]);
        if !self.scratch_args(&r.head, b) {
            return false;
        }
        let rel = r.head_rel as usize;
        self.relations[rel].find(&self.scratch).is_some()
            || self.pending.get(rel).is_some_and(|set| set.find(&self.scratch).is_some())
    }

    /// Adds the head of `rule` under `b` to this round's new atoms, unless it is known.
    pub(super) fn push_head(&mut self, rule: usize, b: &Bindings) {
        if self.head_known(rule, b) {
            return;
        }
        // `head_known` left the head's terms in `scratch` unless one was never built.
        let r = Rc::clone(&self.rules[rule]);
        self.scratch.clear();
        for p in r.head.iter() {
            let Some(t) = b.instantiate(&mut self.pool, p) else { return };
            self.scratch.push(t);
        }
        let rel = r.head_rel as usize;
        if self.pending.len() <= rel {
            let arities: Vec<usize> = self.relations.iter().map(|r| r.arity).collect();
            self.pending.extend(arities[self.pending.len()..].iter().map(|&a| TupleSet::new(a)));
        }
        if self.pending[rel].insert(&self.scratch) {
            self.pending_count += 1;
            if self.pending_count > self.limits.max_atoms {
                self.abort = Some(GroundError::TooManyAtoms(self.limits.max_atoms));
            }
        }
    }
}
