//! Domain estimates for the decompositions: per relation and argument position, the ground terms
//! that can stand there, in a non-relational over-approximation of the relaxed model. Each
//! variable of a rule ranges over what all its positive occurrences allow, independently of the
//! other variables, and a head position gets every instance its variables' ranges make. Negation
//! and `distinct` are ignored.
//!
//! Only [`Grounder::eliminate`] reads the estimates, to choose the variable whose elimination
//! makes the smallest relations: a wrong estimate costs gates, never meaning. A position that
//! would hold more than [`CAP`] terms holds "anything", and an analysis that runs past its
//! budget of rule evaluations (terms built by recursion without bound) is dropped whole.

use super::rewrite::vars_of;
use super::{check_deadline, Grounder, JoinRule};
use gdl::{Bindings, Pat, Sym, TermId, TermPool};
use rustc_hash::{FxHashMap, FxHashSet};
use std::rc::Rc;
use structures::Components;

/// The most terms a position's domain lists before it becomes "anything".
const CAP: usize = 1 << 16;

/// Rule evaluations allowed per rule before the analysis is given up.
const EVALUATIONS_PER_RULE: usize = 64;

/// The terms that can stand at one argument position.
#[derive(Debug, Clone, Default)]
struct Position {
    /// More than [`CAP`] terms, or terms made from variables whose range is unknown.
    any: bool,
    terms: FxHashSet<TermId>,
    /// The terms by functor and arity (`u32::MAX` for a constant), for matching patterns.
    by_kind: FxHashMap<(Sym, u32), Vec<TermId>>,
}

impl Position {
    /// Adds `t`; whether the position changed.
    fn insert(&mut self, t: TermId, pool: &TermPool) -> bool {
        if self.any || !self.terms.insert(t) {
            return false;
        }
        if self.terms.len() > CAP {
            return self.make_any();
        }
        self.by_kind.entry(kind(t, pool)).or_default().push(t);
        true
    }

    /// Makes the position hold anything; whether it changed.
    fn make_any(&mut self) -> bool {
        if self.any {
            return false;
        }
        *self = Position { any: true, ..Position::default() };
        true
    }
}

fn kind(t: TermId, pool: &TermPool) -> (Sym, u32) {
    let arity = if pool.is_constant(t) { u32::MAX } else { pool.args(t).len() as u32 };
    (pool.functor(t), arity)
}

/// What a rule's variable can be.
#[derive(Debug, Clone)]
pub(super) enum Range {
    /// No positive literal mentions it.
    Unknown,
    /// Too many terms to list.
    Any,
    Terms(FxHashSet<TermId>),
}

impl Range {
    /// The number of values, with [`CAP`] for a range too large or unknown.
    pub(super) fn size(&self) -> f64 {
        match self {
            Range::Terms(t) => t.len() as f64,
            Range::Unknown | Range::Any => CAP as f64,
        }
    }

    /// Narrows the range to the terms of `theirs`, or to "too many to list" where that is
    /// `None` (which narrows only an unknown range); false if nothing is left.
    fn narrow(&mut self, theirs: Option<&FxHashSet<TermId>>) -> bool {
        match (&mut *self, theirs) {
            (Range::Terms(mine), Some(theirs)) => mine.retain(|t| theirs.contains(t)),
            (this, Some(theirs)) => *this = Range::Terms(theirs.clone()),
            (this @ Range::Unknown, None) => *this = Range::Any,
            (_, None) => {}
        }
        !matches!(self, Range::Terms(t) if t.is_empty())
    }
}

/// Per relation and argument position, the terms that can stand there; `None` for a relation
/// no rule has derived anything of yet.
#[derive(Debug, Default)]
pub(super) struct Domains {
    rels: Vec<Option<Vec<Position>>>,
}

impl Domains {
    /// The ranges of `rule`'s variables; `None` if some positive literal can match nothing.
    pub(super) fn ranges(&self, rule: &JoinRule, pool: &TermPool) -> Option<Vec<Range>> {
        let mut ranges = vec![Range::Unknown; rule.vars];
        let mut bindings = Bindings::default();
        for lit in &rule.pos {
            let Some(Some(positions)) = self.rels.get(lit.rel as usize) else { return None };
            for (pat, position) in lit.args.iter().zip(positions) {
                if position.any {
                    pat.for_each_var(&mut |v| {
                        ranges[v as usize].narrow(None);
                    });
                    continue;
                }
                let candidates: &[TermId] = match pat {
                    Pat::Ground(t) if position.terms.contains(t) => continue,
                    Pat::Ground(_) => return None,
                    Pat::Var(v) => {
                        if !ranges[*v as usize].narrow(Some(&position.terms)) {
                            return None;
                        }
                        continue;
                    }
                    Pat::Func(f, args) => {
                        position.by_kind.get(&(*f, args.len() as u32)).map(Vec::as_slice).unwrap_or(&[])
                    }
                };
                // The values each variable of the pattern takes in the terms it matches.
                let mut seen: FxHashMap<u16, FxHashSet<TermId>> = FxHashMap::default();
                pat.for_each_var(&mut |v| {
                    seen.entry(v).or_default();
                });
                for &t in candidates {
                    bindings.reset(rule.vars);
                    if bindings.unify(pool, pat, t) {
                        for (v, values) in seen.iter_mut() {
                            values.extend(bindings.get(*v));
                        }
                    }
                }
                for (v, values) in seen {
                    if !ranges[v as usize].narrow(Some(&values)) {
                        return None;
                    }
                }
            }
        }
        Some(ranges)
    }

    /// Adds to the domains of `rule`'s head what its instances can put there; whether they
    /// changed.
    fn apply(&mut self, rule: &JoinRule, pool: &mut TermPool) -> bool {
        let Some(ranges) = self.ranges(rule, pool) else { return false };
        let rel = rule.head_rel as usize;
        if self.rels.len() <= rel {
            self.rels.resize_with(rel + 1, || None);
        }
        let mut changed = self.rels[rel].is_none();
        let positions = self.rels[rel].get_or_insert_with(|| vec![Position::default(); rule.head.len()]);
        for (i, pat) in rule.head.iter().enumerate() {
            let vars: Vec<u16> = vars_of([pat]).into_iter().collect();
            let lists: Option<Vec<Vec<TermId>>> = vars
                .iter()
                .map(|&v| match &ranges[v as usize] {
                    Range::Terms(t) => Some(t.iter().copied().collect()),
                    Range::Unknown | Range::Any => None,
                })
                .collect();
            let product = lists.as_ref().map(|l| l.iter().map(|l| l.len() as f64).product::<f64>());
            let Some(lists) = lists.filter(|_| product.is_some_and(|p| p <= CAP as f64)) else {
                changed |= positions[i].make_any();
                continue;
            };
            if lists.iter().any(Vec::is_empty) {
                continue;
            }
            let mut bindings = Bindings::default();
            let mut choice = vec![0usize; lists.len()];
            loop {
                bindings.reset(rule.vars);
                for ((&v, list), &c) in vars.iter().zip(&lists).zip(&choice) {
                    bindings.unify(pool, &Pat::Var(v), list[c]);
                }
                let t = bindings.instantiate(pool, pat).expect("every variable of the pattern is bound");
                changed |= positions[i].insert(t, pool);
                // The next combination, the last variable fastest.
                let Some(k) = (0..choice.len()).rev().find(|&k| choice[k] + 1 < lists[k].len()) else { break };
                choice[k] += 1;
                choice[k + 1..].fill(0);
            }
        }
        changed
    }
}

impl Grounder {
    /// The domains of the rules as they stand, or `None` if the analysis ran past its budget
    /// or the grounding's deadline.
    /// Relations are taken in dependency order, each group of mutually recursive ones until
    /// nothing changes, so a rule outside recursion is evaluated once.
    pub(super) fn estimate_domains(&mut self) -> Option<Domains> {
        let n = self.relations.len();
        let mut inputs: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut rules_of: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (r, rule) in self.rules.iter().enumerate() {
            inputs[rule.head_rel as usize].extend(rule.pos.iter().map(|l| l.rel));
            rules_of[rule.head_rel as usize].push(r);
        }
        let components = Components::of(&inputs, n, 0..n as u32);
        let mut domains = Domains::default();
        let mut budget = EVALUATIONS_PER_RULE * self.rules.len().max(1);
        for (c, group) in components.start.windows(2).enumerate() {
            let rels = &components.order[group[0] as usize..group[1] as usize];
            let rules: Vec<usize> = rels.iter().flat_map(|&rel| rules_of[rel as usize].iter().copied()).collect();
            // A rule is evaluated again only when a relation it reads changed in the last pass.
            let mut changed: Option<FxHashSet<u32>> = None;
            loop {
                let mut now = FxHashSet::default();
                for &r in &rules {
                    let rule = Rc::clone(&self.rules[r]);
                    if changed.as_ref().is_some_and(|c| !rule.pos.iter().any(|l| c.contains(&l.rel))) {
                        continue;
                    }
                    budget = budget.checked_sub(1)?;
                    check_deadline(&self.limits).ok()?;
                    if domains.apply(&rule, &mut self.pool) {
                        now.insert(rule.head_rel);
                    }
                }
                if now.is_empty() || !components.cyclic[c] {
                    break;
                }
                changed = Some(now);
            }
        }
        Some(domains)
    }

    /// Adds the domain of a relation the decompositions made, from its rule.
    pub(super) fn extend_domains(&mut self, rule: &JoinRule) {
        if let Some(domains) = self.domains.as_mut() {
            domains.apply(rule, &mut self.pool);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Grounder, Limits};
    use gdl::Sym;

    /// How many terms each argument position of `name` can hold, `None` for "anything".
    fn sizes(g: &Grounder, domains: &super::Domains, name: &str) -> Vec<Option<usize>> {
        let rel = g.by_name[&Sym::new(name)];
        let positions = domains.rels[rel as usize].as_ref().expect("derived");
        positions.iter().map(|p| (!p.any).then_some(p.terms.len())).collect()
    }

    #[test]
    fn positions_hold_what_the_rules_can_put_there() {
        let rules = "
            (role red) (role blue)
            (index 1) (index 2) (index 3)
            (succ 1 2) (succ 2 3) (succ 3 4)
            (init (step 1)) (init (control red))
            (<= (legal ?r (place ?m ?n)) (true (control ?r)) (index ?m) (index ?n))
            (<= (legal ?r noop) (role ?r) (not (true (control ?r))))
            (<= (next (cell ?m ?n ?r)) (does ?r (place ?m ?n)))
            (<= (next (cell ?m ?n ?r)) (true (cell ?m ?n ?r)))
            (<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
            (<= (next (control blue)) (true (control red)))
            (<= (next (control red)) (true (control blue)))
            (<= (owned ?k ?r) (true (step ?k)) (true (cell ?k ?k ?r)))
            (<= terminal (true (step 4)))
            (goal red 50) (goal blue 50)";
        let desc = gdl::parse("grid", rules).expect("parses");
        let mut g = Grounder::new(&desc, Limits::default(), true);
        let domains = g.estimate_domains().expect("within budget");
        // Nine places and the no-op; the roles, independently of which may place (the negation
        // is ignored).
        assert_eq!(sizes(&g, &domains, "legal"), [Some(2), Some(10)]);
        // Cells for each role, four steps, two controls.
        assert_eq!(sizes(&g, &domains, "true"), [Some(18 + 4 + 2)]);
        // Each variable ranges over what all its occurrences allow: steps that are also rows.
        assert_eq!(sizes(&g, &domains, "owned"), [Some(3), Some(2)]);
    }

    #[test]
    fn terms_built_without_bound_give_the_analysis_up() {
        let rules = "
            (role p) (num zero)
            (<= (num (s ?x)) (num ?x))
            (legal p wait)
            (<= terminal (num (s (s zero))))
            (goal p 100)";
        let desc = gdl::parse("peano", rules).expect("parses");
        let mut g = Grounder::new(&desc, Limits::default(), true);
        assert!(g.estimate_domains().is_none());
    }
}
