//! Normal form of rule bodies: `or` distributed away and `not` pushed onto atoms, so that every
//! body is a plain conjunction of the four literal kinds an evaluator needs.

use crate::ast::{Atom, Literal, Rule, Term};

/// A literal of a normalised body.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Lit {
    /// A positive atom.
    Pos(Atom),
    /// A negated atom.
    Neg(Atom),
    /// `(distinct s t)`.
    Distinct(Term, Term),
    /// `(not (distinct s t))`: the two terms are equal.
    Same(Term, Term),
}

impl Lit {
    /// Calls `f` on every variable in the literal.
    pub fn for_each_var(&self, f: &mut impl FnMut(crate::Sym)) {
        match self {
            Lit::Pos(a) | Lit::Neg(a) => a.for_each_var(f),
            Lit::Distinct(s, t) | Lit::Same(s, t) => {
                s.for_each_var(f);
                t.for_each_var(f);
            }
        }
    }
}

/// The most or-free variants one rule may expand into; [`crate::validate`] rejects larger rules,
/// so that a few hundred bytes of nested `or` cannot demand gigabytes.
pub const MAX_VARIANTS: u128 = 4096;

/// The disjunctive normal form of a rule's body: the rule holds when any of the returned
/// conjunctions holds. A body without `or` gives exactly one conjunction.
pub fn normal_bodies(rule: &Rule) -> Vec<Vec<Lit>> {
    let mut bodies = vec![Vec::new()];
    for lit in &rule.body {
        let mut alternatives = dnf(lit, true);
        if alternatives.len() == 1 {
            let alt = alternatives.pop().unwrap_or_default();
            for body in &mut bodies {
                body.extend(alt.iter().cloned());
            }
        } else {
            bodies = product(&bodies, &alternatives);
        }
    }
    bodies
}

/// How many conjunctions [`normal_bodies`] would return, computed without expanding (saturating).
pub fn variant_count(rule: &Rule) -> u128 {
    rule.body.iter().fold(1u128, |n, lit| n.saturating_mul(size(lit, true)))
}

fn size(lit: &Literal, positive: bool) -> u128 {
    match (lit, positive) {
        (Literal::Atom(_) | Literal::Distinct(..), _) => 1,
        (Literal::Not(inner), p) => size(inner, !p),
        (Literal::Or(ls), true) => ls.iter().fold(0u128, |n, l| n.saturating_add(size(l, true))),
        (Literal::Or(ls), false) => ls.iter().fold(1u128, |n, l| n.saturating_mul(size(l, false))),
    }
}

/// Every conjunction of one of `left` followed by one of `right`.
fn product(left: &[Vec<Lit>], right: &[Vec<Lit>]) -> Vec<Vec<Lit>> {
    let mut out = Vec::with_capacity(left.len() * right.len());
    for l in left {
        for r in right {
            let mut c = l.clone();
            c.extend(r.iter().cloned());
            out.push(c);
        }
    }
    out
}

/// The DNF of `lit` (negated when `positive` is false), as a list of conjunctions.
fn dnf(lit: &Literal, positive: bool) -> Vec<Vec<Lit>> {
    match (lit, positive) {
        (Literal::Atom(a), true) => vec![vec![Lit::Pos(a.clone())]],
        (Literal::Atom(a), false) => vec![vec![Lit::Neg(a.clone())]],
        (Literal::Distinct(s, t), true) => vec![vec![Lit::Distinct(s.clone(), t.clone())]],
        (Literal::Distinct(s, t), false) => vec![vec![Lit::Same(s.clone(), t.clone())]],
        (Literal::Not(inner), p) => dnf(inner, !p),
        // A disjunction: the union of the alternatives of each branch.
        (Literal::Or(ls), true) => ls.iter().flat_map(|l| dnf(l, true)).collect(),
        // A negated disjunction is the conjunction of the negated branches.
        (Literal::Or(ls), false) => ls.iter().fold(vec![Vec::new()], |acc, l| product(&acc, &dnf(l, false))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    fn bodies(text: &str) -> Vec<String> {
        let d = parse("t", text).unwrap();
        normal_bodies(&d.rules[0])
            .iter()
            .map(|b| b.iter().map(|l| format!("{l:?}")).collect::<Vec<_>>().join(" & "))
            .collect()
    }

    #[test]
    fn or_is_distributed() {
        let b = bodies("(<= (p ?x) (s ?x) (or (q ?x) (r ?x)) (or (t ?x) (u ?x)))");
        assert_eq!(b.len(), 4);
        let d =
            parse("t", "(<= (p ?x) (s ?x) (or (q ?x) (r ?x)) (or (t ?x) (u ?x) (not (or (v ?x) (w ?x)))))").unwrap();
        assert_eq!(variant_count(&d.rules[0]), 6);
        assert_eq!(normal_bodies(&d.rules[0]).len(), 6);
        let b = bodies("(<= (p ?x) (s ?x) (not (or (q ?x) (r ?x))))");
        assert_eq!(b.len(), 1);
        assert!(b[0].contains("Neg") && b[0].matches("Neg").count() == 2);
    }

    #[test]
    fn double_negation_and_not_distinct() {
        let b = bodies("(<= (p ?x ?y) (s ?x ?y) (not (not (q ?x))) (not (distinct ?x ?y)))");
        assert_eq!(b.len(), 1);
        assert!(b[0].starts_with("Pos") && b[0].contains("& Pos") && b[0].contains("Same"));
    }
}
