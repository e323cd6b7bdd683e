//! A deliberately naive GDL evaluator, the oracle for differential tests of every engine.
//!
//! It computes the whole model bottom-up: it splits the relations into strata by the dependency
//! graph and, stratum by stratum, joins every rule body by brute force over the facts known so
//! far until nothing new appears. It shares nothing with the engines but the normalised bodies of
//! `gdl::normal_bodies`, so an agreement with it is evidence that an engine's own evaluation
//! (tabling and recursion in the reasoner, grounding and gates in the propnet) is right.

use gdl::{normal_bodies, Atom, Description, Lit, Sym, Term};
use std::collections::{HashMap, HashSet};

/// A ground tuple of a relation.
pub type Tuple = Vec<Term>;
/// A model: every relation's true tuples.
pub type Facts = HashMap<Sym, HashSet<Tuple>>;
type Subst = HashMap<Sym, Term>;

/// A state and a joint move to evaluate the rules in.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// The true base propositions (the arguments of `true`).
    pub state: Vec<Term>,
    /// The joint move: (role, move) pairs (the arguments of `does`).
    pub moves: Vec<(Term, Term)>,
}

fn subst(t: &Term, s: &Subst) -> Option<Term> {
    match t {
        Term::Const(_) => Some(t.clone()),
        Term::Var(v) => s.get(v).cloned(),
        Term::Func(f, args) => Some(Term::Func(*f, args.iter().map(|a| subst(a, s)).collect::<Option<_>>()?)),
    }
}

/// Matches a pattern against a ground term, extending `s` (which is garbage on failure).
fn matches(p: &Term, t: &Term, s: &mut Subst) -> bool {
    match (p, t) {
        (Term::Var(v), _) => match s.get(v) {
            Some(b) => b == t,
            None => {
                s.insert(*v, t.clone());
                true
            }
        },
        (Term::Const(a), Term::Const(b)) => a == b,
        (Term::Func(f, ps), Term::Func(g, ts)) => {
            f == g && ps.len() == ts.len() && ps.iter().zip(ts).all(|(p, t)| matches(p, t, s))
        }
        _ => false,
    }
}

/// The ground tuples a positive atom can match: the state for `true`, the moves for `does`,
/// else the facts derived so far.
fn candidates(atom: &Atom, facts: &Facts, sc: &Scenario) -> Vec<Tuple> {
    match atom.rel {
        Sym::TRUE => sc.state.iter().map(|t| vec![t.clone()]).collect(),
        Sym::DOES => sc.moves.iter().map(|(r, m)| vec![r.clone(), m.clone()]).collect(),
        rel => facts.get(&rel).map(|f| f.iter().cloned().collect()).unwrap_or_default(),
    }
}

fn holds(atom: &Atom, s: &Subst, facts: &Facts, sc: &Scenario) -> bool {
    let tuple: Tuple = atom.args.iter().map(|a| subst(a, s).expect("safe rule: negation is ground")).collect();
    match atom.rel {
        Sym::TRUE => sc.state.contains(&tuple[0]),
        Sym::DOES => sc.moves.iter().any(|(r, m)| *r == tuple[0] && *m == tuple[1]),
        rel => facts.get(&rel).is_some_and(|f| f.contains(&tuple)),
    }
}

/// Every substitution that satisfies the positive atoms `atoms`, by brute force.
fn join(atoms: &[&Atom], s: Subst, facts: &Facts, sc: &Scenario, out: &mut Vec<Subst>) {
    let Some((first, rest)) = atoms.split_first() else {
        out.push(s);
        return;
    };
    for tuple in candidates(first, facts, sc) {
        let mut s2 = s.clone();
        if first.args.len() == tuple.len() && first.args.iter().zip(&tuple).all(|(p, t)| matches(p, t, &mut s2)) {
            join(rest, s2, facts, sc, out);
        }
    }
}

/// The whole model of `desc` in scenario `sc`, computed stratum by stratum, each to a fixpoint.
pub fn naive(desc: &Description, sc: &Scenario) -> Facts {
    let rules: Vec<(&Atom, Vec<Lit>)> =
        desc.rules.iter().flat_map(|r| normal_bodies(r).into_iter().map(move |b| (&r.head, b))).collect();
    let mut stratum: HashMap<Sym, usize> = rules.iter().map(|(h, _)| (h.rel, 0)).collect();
    let mut edges = Vec::new();
    for (h, body) in &rules {
        for lit in body {
            if let Lit::Pos(a) | Lit::Neg(a) = lit {
                if stratum.contains_key(&a.rel) {
                    edges.push((h.rel, a.rel, usize::from(matches!(lit, Lit::Neg(_)))));
                }
            }
        }
    }
    loop {
        let mut changed = false;
        for &(h, b, w) in &edges {
            let need = stratum[&b] + w;
            if stratum[&h] < need {
                stratum.insert(h, need);
                changed = true;
            }
        }
        assert!(stratum.values().all(|&s| s <= stratum.len()), "not stratified");
        if !changed {
            break;
        }
    }
    let top = stratum.values().copied().max().unwrap_or(0);
    let mut facts = Facts::new();
    for level in 0..=top {
        loop {
            let mut new = Vec::new();
            for (head, body) in rules.iter().filter(|(h, _)| stratum[&h.rel] == level) {
                let pos: Vec<&Atom> =
                    body.iter().filter_map(|l| if let Lit::Pos(a) = l { Some(a) } else { None }).collect();
                let mut subs = Vec::new();
                join(&pos, Subst::new(), &facts, sc, &mut subs);
                for s in subs {
                    let ok = body.iter().all(|l| match l {
                        Lit::Pos(_) => true,
                        Lit::Neg(a) => !holds(a, &s, &facts, sc),
                        Lit::Distinct(x, y) => subst(x, &s) != subst(y, &s),
                        Lit::Same(x, y) => subst(x, &s) == subst(y, &s),
                    });
                    if ok {
                        let tuple: Tuple = head.args.iter().map(|a| subst(a, &s).expect("safe head")).collect();
                        if !facts.get(&head.rel).is_some_and(|f| f.contains(&tuple)) {
                            new.push((head.rel, tuple));
                        }
                    }
                }
            }
            if new.is_empty() {
                break;
            }
            for (rel, tuple) in new {
                facts.entry(rel).or_default().insert(tuple);
            }
        }
    }
    facts
}

/// A tuple printed for comparing answer sets.
pub fn show(tuple: &[Term]) -> String {
    let parts: Vec<String> = tuple.iter().map(Term::to_string).collect();
    format!("[{}]", parts.join(" "))
}

/// Every relation the rules mention but `true` and `does`, with its arity, by name.
pub fn relations(desc: &Description) -> Vec<(Sym, usize)> {
    let mut rels: HashMap<Sym, usize> = HashMap::new();
    for rule in &desc.rules {
        rels.insert(rule.head.rel, rule.head.args.len());
        for lit in &rule.body {
            lit.for_each_atom(true, &mut |a, _| {
                if !matches!(a.rel, Sym::TRUE | Sym::DOES) {
                    rels.insert(a.rel, a.args.len());
                }
            });
        }
    }
    let mut rels: Vec<(Sym, usize)> = rels.into_iter().collect();
    rels.sort_by_key(|(r, _)| r.as_str());
    rels
}

fn terms(text: &str) -> Vec<Term> {
    gdl::parse("terms", &text.split_whitespace().map(|t| format!("(t {t})")).collect::<String>())
        .expect("terms parse")
        .rules
        .into_iter()
        .map(|r| r.head.args.into_iter().next().expect("one argument"))
        .collect()
}

/// A scenario from its state as facts (`(cell 1) (on 1 2)`) and its moves as (role, move) texts.
pub fn scenario(state: &str, moves: &[(&str, &str)]) -> Scenario {
    let state =
        gdl::parse("state", state).expect("state parses").rules.into_iter().map(|r| atom_term(&r.head)).collect();
    let moves = moves.iter().map(|(r, m)| (terms(r).remove(0), terms(m).remove(0))).collect();
    Scenario { state, moves }
}

/// The term an atom stands for as an argument of `true`.
pub fn atom_term(a: &Atom) -> Term {
    if a.args.is_empty() {
        Term::Const(a.rel)
    } else {
        Term::Func(a.rel, a.args.clone())
    }
}
