//! Demand guards read in place.
//!
//! A demand relation (see `restrict_to_demand`) or its projection (see `guarded`) defined by one
//! rule is a join of what its readers had bound. Where those parts are independent its table is
//! their product: chess's "is the king attacked once this move is made" is asked for every owner,
//! capture square, king square and vacated square the parts allow, 2 × 64³ tuples per guard (4.7M
//! of the model's 6.2M atoms in all), and each guarded rule then walks the whole product. Here
//! every reader of a guard whose rule binds nothing of its own reads that rule's body instead, its
//! literals over relations that only restrict (model-only copies where they are not already), so
//! the join planner can begin with the guarded rule's smallest literal (a piece's 5,376 attack
//! lines) and probe the guard's parts, and the product is never built. Exact: a reader's bindings
//! satisfy the guard exactly when they satisfy its rule's body.

use super::rewrite::vars_of;
use super::{Grounder, JoinRule, Literal, RelId};
use gdl::Pat;
use rustc_hash::{FxHashMap, FxHashSet};
use std::rc::Rc;

impl Grounder {
    /// Replaces every read of a guard defined by one rule by that rule's body (see the module
    /// header), and drops the guard's rule once nothing reads it.
    pub(super) fn read_guards_in_place(&mut self) {
        let mut defs: FxHashMap<RelId, Vec<usize>> = FxHashMap::default();
        for (r, rule) in self.rules.iter().enumerate() {
            defs.entry(rule.head_rel).or_default().push(r);
        }
        let mut candidates: Vec<(RelId, usize)> = defs
            .iter()
            .filter(|&(&rel, rules)| rules.len() == 1 && self.is_model_only(rel))
            .map(|(&rel, rules)| (rel, rules[0]))
            .filter(|&(_, r)| self.inlinable(r))
            .collect();
        candidates.sort_unstable();
        let mut copies: FxHashMap<RelId, RelId> = FxHashMap::default();
        let mut dropped: FxHashSet<usize> = FxHashSet::default();
        for (guard, def) in candidates {
            // Unfolding a rule into its readers keeps the least model whatever recursion runs
            // through them (every relation depends on `true`, and it on every other), but a
            // rule that reads its own head would keep what it should replace.
            if self.rules[def].pos.iter().any(|l| l.rel == guard) {
                continue;
            }
            let body = self.restricting(def, &mut copies);
            for r in (0..self.rules.len()).filter(|&r| r != def && !dropped.contains(&r)) {
                let mut rule = Rc::clone(&self.rules[r]);
                while let Some(i) = rule.pos.iter().position(|l| l.rel == guard) {
                    rule = Rc::new(self.inline(&rule, i, &body));
                }
                self.rules[r] = rule;
            }
            let read = self.rules.iter().enumerate().any(|(r, rule)| {
                r != def && !dropped.contains(&r) && rule.pos.iter().chain(&rule.neg).any(|l| l.rel == guard)
            });
            if !read {
                dropped.insert(def);
            }
        }
        let mut r = 0;
        self.rules.retain(|_| {
            r += 1;
            !dropped.contains(&(r - 1))
        });
    }

    /// Whether rule `r` can be read in place: it only restricts, has no negation, its head is
    /// distinct variables and its body has no others (a variable of the body alone would make
    /// every reader match once per value of it, each match a copy of the same ground rule).
    fn inlinable(&self, r: usize) -> bool {
        let rule = &self.rules[r];
        let mut seen = FxHashSet::default();
        !rule.emit
            && rule.neg.is_empty()
            && !rule.pos.is_empty()
            && rule.head.iter().all(|p| matches!(p, Pat::Var(v) if seen.insert(*v)))
            && vars_of(rule.pos.iter().flat_map(|l| l.args.iter())).is_subset(&seen)
    }

    /// Rule `def` with each body literal over a relation that is not model-only read through a
    /// model-only copy of it (made once per relation), so that it restricts without entering the
    /// ground rules.
    fn restricting(&mut self, def: usize, copies: &mut FxHashMap<RelId, RelId>) -> JoinRule {
        let mut rule = (*self.rules[def]).clone();
        for l in &mut rule.pos {
            if self.is_model_only(l.rel) {
                continue;
            }
            l.rel = match copies.get(&l.rel) {
                Some(&c) => c,
                None => {
                    let arity = l.args.len();
                    let c = self.fresh_model_only_rel(arity);
                    let args: Box<[Pat]> = (0..arity as u16).map(Pat::Var).collect();
                    let source = Literal { rel: l.rel, args: args.clone() };
                    let mut copy = JoinRule::plain(c, args, vec![source], arity);
                    copy.emit = false;
                    self.rules.push(Rc::new(copy));
                    copies.insert(l.rel, c);
                    c
                }
            };
        }
        rule
    }
}

#[cfg(test)]
mod tests {
    use super::super::{ground, Limits};
    use crate::runtime::PropnetMachine;
    use machine::StateMachine;

    /// A piece that may go to any square but a wall's: the negated `hit` is asked for every
    /// square the piece stands on and every target, independent choices.
    const WALLS: &str = "
        (role p)
        (coord 1) (coord 2) (coord 3) (coord 4) (coord 5) (coord 6) (coord 7) (coord 8)
        (init (at 1 1)) (init (wall 2 2)) (init (step 1))
        (succ 1 2) (succ 2 3) (succ 3 4)
        (<= (legal p (go ?x ?y ?u ?v)) (true (at ?x ?y)) (coord ?u) (coord ?v) (not (hit ?x ?y ?u ?v)))
        (<= (hit ?x ?y ?u ?v) (true (wall ?u ?v)) (true (at ?x ?y)))
        (<= (next (at ?u ?v)) (does p (go ?x ?y ?u ?v)))
        (<= (next (wall ?u ?v)) (true (wall ?u ?v)))
        (<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
        (<= terminal (true (step 4)))
        (<= (goal p 100) (true (at 8 8)))
        (<= (goal p 0) (not (true (at 8 8))))";

    #[test]
    fn a_demand_that_is_a_product_is_read_in_place_not_built() {
        let (desc, _) = gdl::load("walls", WALLS).expect("valid");
        let g = ground(&desc, &Limits::default()).expect("grounds");
        // `legal` and `does` hold 4,096 atoms each (every square by every target); the demand
        // of `hit` as a table would be 4,096 more.
        assert!(g.atom_count() < 2 * 4096 + 1000, "{} atoms", g.atom_count());
        // And the demand still does its work: every target but the wall is legal.
        let net = crate::compile(&desc, &Limits::default()).expect("builds");
        let mut m = PropnetMachine::new(&net);
        let s = m.initial_state();
        assert_eq!(m.legal_moves(&s, 0).expect("moves").len(), 63);
    }
}
