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

/// The disjunctive normal form of a rule's body: the rule holds when any of the returned
/// conjunctions holds. A body without `or` gives exactly one conjunction.
pub fn normal_bodies(rule: &Rule) -> Vec<Vec<Lit>> {
    let mut bodies = vec![Vec::new()];
    for lit in &rule.body {
        let alternatives = dnf(lit, true);
        bodies = bodies
            .iter()
            .flat_map(|body| {
                alternatives.iter().map(move |alt| {
                    let mut b = body.clone();
                    b.extend(alt.iter().cloned());
                    b
                })
            })
            .collect();
    }
    bodies
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
        (Literal::Or(ls), false) => {
            let mut acc = vec![Vec::new()];
            for l in ls {
                let alts = dnf(l, false);
                acc = acc
                    .iter()
                    .flat_map(|c: &Vec<Lit>| {
                        alts.iter().map(move |a| {
                            let mut c = c.clone();
                            c.extend(a.iter().cloned());
                            c
                        })
                    })
                    .collect();
            }
            acc
        }
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
