//! Joins: the order in which a rule's body literals are matched (bound arguments first, then
//! index keys inside terms), and the enumeration of every binding over the model's indexes.

use super::relation::{probe_count, Candidates, Pattern};
use super::{check_deadline, AtomRef, Emit, GroundError, Grounder, JoinRule, Step};
use gdl::{Bindings, Pat};
use std::rc::Rc;

impl Grounder {
    /// A join order (with the head's variables already bound if `head_bound`): the delta literal
    /// first, then greedily the literal with the most bound
    /// arguments (ties to the smaller relation).
    pub(super) fn plan(&self, rule: &JoinRule, first: Option<usize>, head_bound: bool) -> Vec<Step> {
        let mut bound = vec![false; rule.vars];
        if head_bound {
            for p in rule.head.iter() {
                p.for_each_var(&mut |v| bound[v as usize] = true);
            }
        }
        let mut done = vec![false; rule.pos.len()];
        let mut applied = vec![false; rule.filters.len()];
        let mut steps = Vec::new();
        let is_bound = |p: &Pat, bound: &[bool]| {
            let mut all = true;
            p.for_each_var(&mut |v| all &= bound[v as usize]);
            all
        };
        let ready_filters = |bound: &[bool], applied: &mut Vec<bool>| {
            let mut ready = Vec::new();
            for (i, (_, s, t)) in rule.filters.iter().enumerate() {
                if !applied[i] && is_bound(s, bound) && is_bound(t, bound) {
                    applied[i] = true;
                    ready.push(i);
                }
            }
            ready
        };
        let initial = ready_filters(&bound, &mut applied);
        let mut head_was_bound = rule.head.iter().all(|p| is_bound(p, &bound));
        if !initial.is_empty() {
            steps.push(Step { lit: usize::MAX, pattern: Pattern::none(), filters: initial, head_ready: false });
        }
        for k in 0..rule.pos.len() {
            let pick = match (k, first) {
                (0, Some(f)) => f,
                _ => (0..rule.pos.len())
                    .filter(|&i| !done[i])
                    .max_by_key(|&i| {
                        let lit = &rule.pos[i];
                        let n = lit.args.iter().filter(|p| is_bound(p, &bound)).count();
                        // Among literals with as many bound arguments, what an index can read
                        // inside them (a functor, a bound nested term) breaks the tie.
                        let inside = probe_count(&lit.args, &|v| bound[v as usize]);
                        (n, inside, std::cmp::Reverse(self.relations[lit.rel as usize].count))
                    })
                    .expect("an unplanned literal remains"),
            };
            done[pick] = true;
            let lit = &rule.pos[pick];
            let pattern = Pattern::new(&lit.args, &|v| bound[v as usize]);
            for p in lit.args.iter() {
                p.for_each_var(&mut |v| bound[v as usize] = true);
            }
            let filters = ready_filters(&bound, &mut applied);
            let head_bound = rule.head.iter().all(|p| is_bound(p, &bound));
            steps.push(Step { lit: pick, pattern, filters, head_ready: head_bound && !head_was_bound });
            head_was_bound = head_bound;
        }
        steps
    }

    /// Enumerates every binding of rule `r`'s positive body over the model (with the given
    /// literal restricted to tuples `lo..hi`), calling `emit` with the bindings and matched atoms.
    pub(super) fn join(
        &mut self,
        r: usize,
        delta: Option<(usize, u32, u32)>,
        emit: &mut Emit,
    ) -> Result<(), GroundError> {
        let rule = self.rules[r].clone();
        // Plans change with the relations' sizes only where those break ties, so a plan is
        // reused while no literal's relation has crossed a power of two: saturating recursion
        // through demand relations takes a round per step, and planning every join each round
        // cost more than the joins.
        let sizes = rule
            .pos
            .iter()
            .fold(0u64, |h, l| h.rotate_left(5) ^ u64::from(32 - self.relations[l.rel as usize].count.leading_zeros()));
        let key = (r, delta.map_or(usize::MAX, |d| d.0));
        let steps = match self.plans.get(&key) {
            Some((at, steps)) if *at == sizes => Rc::clone(steps),
            _ => {
                let steps = Rc::new(self.plan(&rule, delta.map(|d| d.0), false));
                self.plans.insert(key, (sizes, Rc::clone(&steps)));
                steps
            }
        };
        for s in steps.iter() {
            if s.lit != usize::MAX && Some(s.lit) != delta.map(|d| d.0) {
                Rc::make_mut(&mut self.relations[rule.pos[s.lit].rel as usize]).prepare(&s.pattern, &self.pool);
                // An index over a large relation is built at once, between two checks.
                check_deadline(&self.limits)?;
            }
        }
        let mut b = Bindings::default();
        b.reset(rule.vars);
        let mut matched = vec![AtomRef { rel: 0, idx: 0 }; rule.pos.len()];
        self.step(&rule, r, &steps, 0, delta, &mut b, &mut matched, emit);
        match self.abort.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn step(
        &mut self,
        rule: &JoinRule,
        r: usize,
        steps: &[Step],
        k: usize,
        delta: Option<(usize, u32, u32)>,
        b: &mut Bindings,
        matched: &mut Vec<AtomRef>,
        emit: &mut Emit,
    ) {
        if self.abort.is_some() {
            return;
        }
        let Some(step) = steps.get(k) else {
            // What a match makes (a ground rule, an atom) costs more than trying a candidate.
            self.work += 16;
            emit(self, r, b, matched);
            return;
        };
        if step.lit == usize::MAX {
            if self.filters_hold(rule, &step.filters, b) {
                self.step(rule, r, steps, k + 1, delta, b, matched, emit);
            }
            return;
        }
        let lit = &rule.pos[step.lit];
        let rel = lit.rel as usize;
        // The candidate tuples: a delta range, or what the literal's index finds.
        let relation = Rc::clone(&self.relations[rel]);
        let (range, found) = match delta.filter(|d| d.0 == step.lit) {
            Some((_, lo, hi)) => (lo..hi, Candidates::Some(&[])),
            None => match relation.candidates(&step.pattern, &lit.args, b, &self.pool) {
                Some(found) => (0..0, found),
                None => return,
            },
        };
        let candidates = range.chain(found.iter());
        self.work += candidates.size_hint().0 as u64;
        if self.work >= 1 << 16 {
            self.work = 0;
            if let Err(e) = check_deadline(&self.limits) {
                self.abort = Some(e);
                return;
            }
        }
        for idx in candidates {
            let mark = b.mark();
            let tuple = relation.tuple(idx);
            let ok = lit.args.iter().zip(tuple).all(|(p, &t)| b.unify(&self.pool, p, t));
            // While saturating, one derivation of a head is enough.
            let known = ok && step.head_ready && self.saturating && self.head_known(r, b);
            if ok && !known && self.filters_hold(rule, &step.filters, b) {
                matched[step.lit] = AtomRef { rel: lit.rel, idx };
                self.step(rule, r, steps, k + 1, delta, b, matched, emit);
            }
            b.undo(mark);
        }
    }

    pub(super) fn filters_hold(&mut self, rule: &JoinRule, filters: &[usize], b: &Bindings) -> bool {
        filters.iter().all(|&i| {
            let (distinct, s, t) = &rule.filters[i];
            let s = b.instantiate(&mut self.pool, s);
            let t = b.instantiate(&mut self.pool, t);
            (s != t) == *distinct
        })
    }
}
