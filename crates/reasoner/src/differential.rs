//! Differential tests of the tabled evaluator against a deliberately naive one.
//!
//! The naive evaluator computes the whole model bottom-up: it splits the relations into strata
//! by the dependency graph and, stratum by stratum, joins every rule body by brute force over
//! the facts known so far until nothing new appears. It shares nothing with [`crate::engine`]
//! but the normalised bodies of `gdl::normal_bodies`, so an agreement between the two is
//! evidence that the tabling and its recursion handling are right.
//!
//! The property test generates small safe, stratified programs (self and mutual recursion,
//! recursion through function terms, stratified negation, `distinct`, `or`, `true`, `does`),
//! then asks the engine every relation under many call patterns, in two orders on long-lived
//! engines (tables are reused across queries and across states) and once more on a fresh engine
//! per query, and compares each answer set with the naive model filtered by the bound arguments.

use crate::engine::Engine;
use crate::program::Program;
use gdl::{normal_bodies, Atom, Description, Lit, Literal, Rule, Severity, Sym, Term};
use gdl::{TermId, TermPool};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

// ---------------------------------------------------------------------------------------------
// The naive evaluator.

type Tuple = Vec<Term>;
type Facts = HashMap<Sym, HashSet<Tuple>>;
type Subst = HashMap<Sym, Term>;

/// A state and a joint move to evaluate the rules in.
#[derive(Clone, Debug)]
struct Scenario {
    state: Vec<Term>,
    moves: Vec<(Term, Term)>,
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
fn naive(desc: &Description, sc: &Scenario) -> Facts {
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

// ---------------------------------------------------------------------------------------------
// Comparing the engine with the naive model.

fn to_term(pool: &TermPool, id: TermId) -> Term {
    if pool.is_constant(id) {
        Term::Const(pool.functor(id))
    } else {
        Term::Func(pool.functor(id), pool.args(id).iter().map(|&a| to_term(pool, a)).collect())
    }
}

fn to_id(pool: &mut TermPool, t: &Term) -> TermId {
    match t {
        Term::Const(c) => pool.constant(*c),
        Term::Func(f, args) => {
            let ids: Vec<TermId> = args.iter().map(|a| to_id(pool, a)).collect();
            pool.function(*f, &ids)
        }
        Term::Var(_) => panic!("not ground"),
    }
}

fn show(tuple: &[Term]) -> String {
    let parts: Vec<String> = tuple.iter().map(Term::to_string).collect();
    format!("[{}]", parts.join(" "))
}

fn show_key(key: &[Option<Term>]) -> String {
    let parts: Vec<String> = key.iter().map(|k| k.as_ref().map_or("_".to_owned(), Term::to_string)).collect();
    format!("[{}]", parts.join(" "))
}

/// A query: a relation and its arguments, `None` where free.
type Query = (Sym, Vec<Option<Term>>);

fn expected(facts: &Facts, (rel, key): &Query) -> BTreeSet<String> {
    let Some(f) = facts.get(rel) else { return BTreeSet::new() };
    f.iter().filter(|t| t.iter().zip(key).all(|(a, k)| k.as_ref().is_none_or(|k| k == a))).map(|t| show(t)).collect()
}

/// A compiled program and its term store, built the way `Reasoner::new` builds them.
fn compile(desc: &Description) -> (Arc<Program>, TermPool) {
    let mut pool = TermPool::default();
    let prog = Program::compile(desc, &mut pool);
    (Arc::new(prog), pool)
}

fn setup(engine: &mut Engine, sc: &Scenario) {
    let state: Vec<TermId> = sc.state.iter().map(|t| to_id(&mut engine.pool, t)).collect();
    let moves: Vec<(TermId, TermId)> =
        sc.moves.iter().map(|(r, m)| (to_id(&mut engine.pool, r), to_id(&mut engine.pool, m))).collect();
    engine.set_state(&state);
    engine.set_moves(&moves);
}

fn ask(engine: &mut Engine, (rel, key): &Query) -> Result<BTreeSet<String>, String> {
    let ids: Vec<TermId> =
        key.iter().map(|k| k.as_ref().map_or(TermId::NONE, |t| to_id(&mut engine.pool, t))).collect();
    let answers = engine.query(*rel, &ids);
    let arity = key.len();
    if answers.terms.len() != answers.count * arity {
        return Err(format!("{} terms for {} answers of arity {arity}", answers.terms.len(), answers.count));
    }
    let mut got = BTreeSet::new();
    for i in 0..answers.count {
        let tuple: Tuple =
            answers.terms[i * arity..(i + 1) * arity].iter().map(|&t| to_term(&engine.pool, t)).collect();
        if !got.insert(show(&tuple)) {
            return Err(format!("duplicate answer {}", show(&tuple)));
        }
    }
    Ok(got)
}

/// The relations to query, with their arities: every relation the rules mention.
fn relations(desc: &Description) -> Vec<(Sym, usize)> {
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

/// Call patterns for every relation: all arguments free, and for every non-empty set of bound
/// positions one key taken from a real answer and one from arbitrary terms of the model.
fn queries(rels: &[(Sym, usize)], facts: &Facts, rng: &mut SmallRng) -> Vec<Query> {
    let mut universe: Vec<Term> = ["0", "1", "2", "3", "zz"].iter().map(|c| Term::Const(Sym::new(c))).collect();
    let mut seen: HashSet<Term> = universe.iter().cloned().collect();
    let mut rel_names: Vec<&Sym> = facts.keys().collect();
    rel_names.sort_by_key(|r| r.as_str());
    for rel in rel_names {
        let mut tuples: Vec<&Tuple> = facts[rel].iter().collect();
        tuples.sort_by_key(|t| show(t));
        for t in tuples {
            for a in t {
                if seen.insert(a.clone()) {
                    universe.push(a.clone());
                }
            }
        }
    }
    let mut out = Vec::new();
    for &(rel, arity) in rels {
        out.push((rel, vec![None; arity]));
        let mut answers: Vec<&Tuple> = facts.get(&rel).map(|f| f.iter().collect()).unwrap_or_default();
        answers.sort_by_key(|t| show(t));
        for mask in 1u32..(1 << arity) {
            let bound = |i: usize| mask & (1 << i) != 0;
            if let Some(t) = answers.get(rng.random_range(0..answers.len().max(1))) {
                out.push((rel, (0..arity).map(|i| bound(i).then(|| t[i].clone())).collect()));
            }
            let key =
                (0..arity).map(|i| bound(i).then(|| universe[rng.random_range(0..universe.len())].clone())).collect();
            out.push((rel, key));
        }
    }
    out
}

/// Asks the engine every relation under many call patterns in every scenario, in order on one
/// engine, shuffled on another, and on a fresh engine per query; compares with the naive model.
fn check(desc: &Description, scenarios: &[Scenario], seed: u64) -> Result<(), String> {
    let rels = relations(desc);
    let models: Vec<Facts> = scenarios.iter().map(|sc| naive(desc, sc)).collect();
    let mut rng = SmallRng::seed_from_u64(seed);
    let (prog, pool) = compile(desc);
    let new_engine = || Engine::new(prog.clone(), pool.clone());
    let mut in_order = new_engine();
    let mut shuffled = new_engine();
    for (n, (sc, model)) in scenarios.iter().zip(&models).enumerate() {
        let qs = queries(&rels, model, &mut rng);
        let mut order: Vec<usize> = (0..qs.len()).collect();
        order.shuffle(&mut rng);
        let fail = |how: &str, step: usize, q: &Query, got: Result<BTreeSet<String>, String>| {
            let want = expected(model, q);
            match got {
                Ok(got) if got == want => Ok(()),
                got => {
                    let state: Vec<String> = sc.state.iter().map(Term::to_string).collect();
                    let moves: Vec<String> = sc.moves.iter().map(|(r, m)| format!("(does {r} {m})")).collect();
                    Err(format!(
                        "{how} engine, scenario {n}, query #{step}: ({} {})\nstate: {}\nmoves: {}\nnaive:  {want:?}\nengine: {got:?}\nprogram:\n{desc}",
                        q.0,
                        show_key(&q.1),
                        state.join(" "),
                        moves.join(" "),
                    ))
                }
            }
        };
        setup(&mut in_order, sc);
        for (step, q) in qs.iter().enumerate() {
            fail("in-order", step, q, ask(&mut in_order, q))?;
        }
        setup(&mut shuffled, sc);
        for (step, &i) in order.iter().enumerate() {
            fail("shuffled", step, &qs[i], ask(&mut shuffled, &qs[i]))?;
        }
        for q in &qs {
            let mut e = new_engine();
            setup(&mut e, sc);
            fail("fresh", 0, q, ask(&mut e, q))?;
        }
    }
    Ok(())
}

fn parse_valid(text: &str) -> Description {
    let desc = gdl::parse("test.kif", text).expect("parses");
    let errors: Vec<String> =
        gdl::validate(&desc).into_iter().filter(|p| p.severity == Severity::Error).map(|p| p.to_string()).collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    desc
}

fn terms(text: &str) -> Vec<Term> {
    gdl::parse("terms", &text.split_whitespace().map(|t| format!("(t {t})")).collect::<String>())
        .expect("terms parse")
        .rules
        .into_iter()
        .map(|r| r.head.args.into_iter().next().expect("one argument"))
        .collect()
}

fn scenario(state: &str, moves: &[(&str, &str)]) -> Scenario {
    let state =
        gdl::parse("state", state).expect("state parses").rules.into_iter().map(|r| atom_term(&r.head)).collect();
    let moves = moves.iter().map(|(r, m)| (terms(r).remove(0), terms(m).remove(0))).collect();
    Scenario { state, moves }
}

fn atom_term(a: &Atom) -> Term {
    if a.args.is_empty() {
        Term::Const(a.rel)
    } else {
        Term::Func(a.rel, a.args.clone())
    }
}

/// Checks a hand-written program in a few scenarios under several query orders.
fn check_text(text: &str, scenarios: &[Scenario]) {
    let desc = parse_valid(text);
    for seed in 0..8 {
        if let Err(e) = check(&desc, scenarios, seed) {
            panic!("{e}");
        }
    }
}

fn model_of(text: &str, sc: &Scenario, rel: &str) -> BTreeSet<String> {
    let facts = naive(&parse_valid(text), sc);
    facts.get(&Sym::new(rel)).map(|f| f.iter().map(|t| show(t)).collect()).unwrap_or_default()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

// ---------------------------------------------------------------------------------------------
// Regression tests for tricky recursion shapes.

const EDGES: &str = "(role r)\n(edge 1 2) (edge 2 3) (edge 3 1) (edge 3 4) (edge 5 5)\n";

#[test]
fn naive_evaluator_sanity() {
    let text = format!(
        "{EDGES}(<= (path ?x ?y) (edge ?x ?y))\n(<= (path ?x ?y) (path ?x ?z) (edge ?z ?y))\n\
         (<= (node ?x) (edge ?x ?y)) (<= (node ?y) (edge ?x ?y))\n\
         (<= (sink ?x) (node ?x) (not (out ?x)))\n(<= (out ?x) (edge ?x ?y))\n"
    );
    let sc = scenario("", &[]);
    assert_eq!(model_of(&text, &sc, "path").len(), 3 * 4 + 1);
    assert_eq!(model_of(&text, &sc, "sink"), set(&["[4]"]));
}

#[test]
fn left_recursion() {
    let text = format!("{EDGES}(<= (path ?x ?y) (edge ?x ?y))\n(<= (path ?x ?y) (path ?x ?z) (edge ?z ?y))\n");
    check_text(&text, &[scenario("", &[])]);
}

#[test]
fn right_and_double_recursion() {
    let text = format!(
        "{EDGES}(<= (node ?x) (edge ?x ?y)) (<= (node ?y) (edge ?x ?y))\n\
         (<= (rp ?x ?y) (edge ?x ?y))\n(<= (rp ?x ?y) (edge ?x ?z) (rp ?z ?y))\n\
         (<= (dp ?x ?y) (edge ?x ?y))\n(<= (dp ?x ?y) (dp ?x ?z) (dp ?z ?y) (node ?z))\n"
    );
    check_text(&text, &[scenario("", &[])]);
}

/// `odd` calls `even` with its argument bound while `even` calls `odd` with it free, so the
/// cycle runs through tables of different call patterns.
#[test]
fn mutual_recursion_with_different_binding_patterns() {
    let text = "(role r)\n(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)\n(even 0)\n\
                (<= (even ?y) (odd ?x) (succ ?x ?y))\n(<= (odd ?y) (succ ?x ?y) (even ?x))\n\
                (<= (both ?x ?y) (even ?x) (odd ?y) (succ ?x ?y))\n";
    let sc = scenario("", &[]);
    assert_eq!(model_of(text, &sc, "odd"), set(&["[1]", "[3]", "[5]"]));
    check_text(text, &[sc]);
}

/// The same cycle entered once through a call with the first argument bound and once through
/// a call with it free, within one evaluation.
#[test]
fn cycle_entered_from_two_call_patterns() {
    let text = format!(
        "{EDGES}(start 1)\n\
         (<= (reach ?x ?y) (edge ?x ?y))\n(<= (reach ?x ?y) (hop ?x ?z) (edge ?z ?y))\n\
         (<= (hop ?x ?y) (reach ?x ?y))\n\
         (<= (q ?y) (start ?x) (reach ?x ?y) (reach ?y ?w) (hop ?w ?y))\n\
         (<= (q2 ?x) (reach ?x ?y) (start ?y))\n"
    );
    check_text(&text, &[scenario("", &[])]);
}

/// A recursive relation in a lower stratum is read under negation by a higher stratum, which
/// must only ever see its complete table (also when the higher stratum is itself recursive).
#[test]
fn recursive_relation_under_negation() {
    let text = format!(
        "{EDGES}(<= (node ?x) (edge ?x ?y)) (<= (node ?y) (edge ?x ?y))\n\
         (<= (path ?x ?y) (edge ?x ?y))\n(<= (path ?x ?y) (path ?x ?z) (edge ?z ?y))\n\
         (<= (unreach ?x ?y) (node ?x) (node ?y) (not (path ?x ?y)))\n\
         (<= (far ?x ?y) (unreach ?x ?y))\n(<= (far ?x ?y) (far ?x ?z) (far ?z ?y) (node ?z))\n\
         (<= (island ?x) (node ?x) (not (path 1 ?x)) (not (path ?x 1)))\n"
    );
    let sc = scenario("", &[]);
    assert_eq!(model_of(&text, &sc, "island"), set(&["[5]"]));
    check_text(&text, &[sc]);
}

/// Recursion through a cycle that a later call reaches again after the table at the depth
/// where the cycle was first detected has returned: the depth is then reused by an unrelated
/// table, which must not take itself for the leader of the cycle.
#[test]
fn cycle_member_read_after_its_leader_depth_is_reused() {
    let text = "(role r)\n(b)\n(<= t2 t3)\n(<= t2 t3p)\n(<= t2 b)\n(<= t3 m)\n(<= t3 t2)\n(<= m t3)\n(<= t3p m)\n";
    let sc = scenario("", &[]);
    assert_eq!(model_of(text, &sc, "t3p"), set(&["[]"]));
    check_text(text, &[sc]);
}

/// Recursion through function terms, bounded by `succ`, with state- and move-dependent parts,
/// across a change of state (state and move tables are dropped, static ones kept).
#[test]
fn function_terms_and_lifetimes() {
    let text = "(role r1) (role r2)\n(succ 0 1) (succ 1 2) (succ 2 3)\n(cnt (f 0))\n\
                (ff 0 (f 0)) (ff 1 (f 1)) (ff 2 (f 2)) (ff 3 (f 3))\n\
                (<= (cnt ?fy) (cnt ?fx) (ff ?x ?fx) (succ ?x ?y) (ff ?y ?fy))\n\
                (<= (hit ?x) (cnt (f ?x)) (true (cell ?x)))\n\
                (<= (hit ?y) (hit ?x) (succ ?x ?y) (true (cell ?y)))\n\
                (<= (moved ?r ?x) (does ?r (mv ?x)) (or (hit ?x) (cnt (f ?x))))\n\
                (<= (still ?r) (role ?r) (not (does ?r noop)) (not (moved ?r 3)))\n";
    let a = scenario("(cell 0) (cell 1) (cell 3)", &[("r1", "(mv 1)"), ("r2", "noop")]);
    let b = scenario("(cell 0) (cell 1) (cell 3)", &[("r1", "(mv 3)"), ("r2", "(mv 0)")]);
    let c = scenario("(cell 1) (cell 2) (cell 3)", &[("r1", "noop"), ("r2", "(mv 2)")]);
    assert_eq!(model_of(text, &a, "hit"), set(&["[0]", "[1]", "[3]"]));
    check_text(text, &[a.clone(), b, c, a]);
}

// ---------------------------------------------------------------------------------------------
// The program generator.

const CONSTS: [&str; 4] = ["0", "1", "2", "3"];
const VARS: [&str; 3] = ["x", "y", "z"];

#[derive(Debug, Clone)]
enum ArgSpec {
    Var(u8),
    Const(u8),
    F(Box<ArgSpec>),
    G(Box<ArgSpec>, Box<ArgSpec>),
}

#[derive(Debug, Clone)]
enum LitSpec {
    Pos(u8, Vec<ArgSpec>),
    Neg(u8, Vec<ArgSpec>),
    True(bool, u8, Vec<ArgSpec>),
    Does(bool, u8, u8, ArgSpec),
    Distinct(bool, ArgSpec, ArgSpec),
    Or(Vec<LitSpec>),
}

#[derive(Debug, Clone)]
struct RuleSpec {
    head: u8,
    args: Vec<ArgSpec>,
    body: Vec<LitSpec>,
}

#[derive(Debug, Clone)]
enum Template {
    /// Transitive closure: shape 0 left, 1 right, 2 doubly recursive; over `edge`, the state's
    /// `on` or both.
    Closure { shape: u8, source: u8 },
    /// `even`/`odd` over `succ`, each calling the other with the argument bound or free.
    EvenOdd { even_bound: bool, odd_bound: bool },
    /// A counter inside a function term, bounded by `succ`.
    Count { bound: bool },
    /// A three-relation cycle seeded by the state.
    Cycle { variant: u8 },
    /// Random rules among five relations of arity 0 or 1 (head, first call, optional second
    /// call, shape) and a few facts: dense cycles of every shape.
    Graph { unary: bool, rules: Vec<(u8, u8, Option<u8>, u8)>, facts: Vec<(u8, u8)> },
}

#[derive(Debug, Clone)]
struct StateSpec {
    cells: Vec<bool>,
    on: Vec<(u8, u8)>,
    ctl: u8,
}

#[derive(Debug, Clone)]
struct ProgSpec {
    /// (arity, stratum) of each generated relation.
    preds: Vec<(usize, usize)>,
    templates: Vec<Template>,
    edges: Vec<(u8, u8)>,
    facts: Vec<(u8, Vec<ArgSpec>)>,
    rules: Vec<RuleSpec>,
    states: Vec<StateSpec>,
    moves: Vec<[(u8, u8); 2]>,
    seed: u64,
}

fn arg_leaf() -> impl Strategy<Value = ArgSpec> {
    prop_oneof![4 => (0u8..3).prop_map(ArgSpec::Var), 1 => (0u8..4).prop_map(ArgSpec::Const)]
}

fn arg() -> impl Strategy<Value = ArgSpec> {
    prop_oneof![
        12 => arg_leaf(),
        1 => arg_leaf().prop_map(|a| ArgSpec::F(Box::new(a))),
        1 => (arg_leaf(), arg_leaf()).prop_map(|(a, b)| ArgSpec::G(Box::new(a), Box::new(b))),
    ]
}

fn args() -> impl Strategy<Value = Vec<ArgSpec>> {
    proptest::collection::vec(arg(), 3)
}

fn simple_lit() -> impl Strategy<Value = LitSpec> {
    prop_oneof![
        8 => (any::<u8>(), args()).prop_map(|(p, a)| LitSpec::Pos(p, a)),
        2 => (any::<u8>(), args()).prop_map(|(p, a)| LitSpec::Neg(p, a)),
        3 => (any::<bool>(), 0u8..4, args()).prop_map(|(n, k, a)| LitSpec::True(n, k, a)),
        1 => (any::<bool>(), 0u8..4, 0u8..3, arg()).prop_map(|(n, r, k, a)| LitSpec::Does(n, r, k, a)),
        2 => (any::<bool>(), arg(), arg()).prop_map(|(n, a, b)| LitSpec::Distinct(n, a, b)),
    ]
}

fn lit() -> impl Strategy<Value = LitSpec> {
    prop_oneof![8 => simple_lit(), 1 => proptest::collection::vec(simple_lit(), 2..=3).prop_map(LitSpec::Or)]
}

fn template() -> impl Strategy<Value = Template> {
    prop_oneof![
        1 => (0u8..3, 0u8..3).prop_map(|(shape, source)| Template::Closure { shape, source }),
        1 => (any::<bool>(), any::<bool>()).prop_map(|(even_bound, odd_bound)| Template::EvenOdd { even_bound, odd_bound }),
        1 => any::<bool>().prop_map(|bound| Template::Count { bound }),
        1 => (0u8..3).prop_map(|variant| Template::Cycle { variant }),
        2 => graph(),
    ]
}

fn graph() -> impl Strategy<Value = Template> {
    (
        any::<bool>(),
        proptest::collection::vec((0u8..6, 0u8..6, proptest::option::of(0u8..6), 0u8..4), 2..=16),
        proptest::collection::vec((0u8..6, 0u8..4), 1..=3),
    )
        .prop_map(|(unary, rules, facts)| Template::Graph { unary, rules, facts })
}

fn state_spec() -> impl Strategy<Value = StateSpec> {
    (proptest::collection::vec(any::<bool>(), 4), proptest::collection::vec((0u8..4, 0u8..4), 0..6), 0u8..5)
        .prop_map(|(cells, on, ctl)| StateSpec { cells, on, ctl })
}

fn prog_spec() -> impl Strategy<Value = ProgSpec> {
    use proptest::collection::vec;
    (
        vec((prop_oneof![2 => Just(0usize), 3 => Just(1), 3 => Just(2), 1 => Just(3)], 0usize..3), 1..=6),
        // Every program has a dense random graph of rules, the best finder of recursion bugs.
        (graph(), vec(template(), 0..=2)).prop_map(|(g, mut t)| {
            t.insert(0, g);
            t
        }),
        vec((0u8..4, 0u8..4), 0..=6),
        vec((any::<u8>(), args()), 0..=5),
        vec(
            (any::<u8>(), args(), vec(lit(), 1..=4)).prop_map(|(head, args, body)| RuleSpec { head, args, body }),
            1..=12,
        ),
        vec(state_spec(), 2),
        vec([(0u8..3, 0u8..4), (0u8..3, 0u8..4)], 3),
        any::<u64>(),
    )
        .prop_map(|(preds, templates, edges, facts, rules, states, moves, seed)| ProgSpec {
            preds,
            templates,
            edges,
            facts,
            rules,
            states,
            moves,
            seed,
        })
}

fn c(name: &str) -> Term {
    Term::Const(Sym::new(name))
}

fn v(name: &str) -> Term {
    Term::Var(Sym::new(name))
}

fn func(name: &str, args: Vec<Term>) -> Term {
    Term::Func(Sym::new(name), args)
}

fn atom(rel: Sym, args: Vec<Term>) -> Atom {
    Atom { rel, args }
}

fn term(a: &ArgSpec, ground: bool, flat: bool) -> Term {
    match a {
        ArgSpec::Var(i) if ground => c(CONSTS[*i as usize % CONSTS.len()]),
        ArgSpec::Var(i) => v(VARS[*i as usize % VARS.len()]),
        ArgSpec::Const(i) => c(CONSTS[*i as usize % CONSTS.len()]),
        ArgSpec::F(x) | ArgSpec::G(x, _) if flat => term(x, ground, flat),
        ArgSpec::F(x) => func("f", vec![term(x, ground, flat)]),
        ArgSpec::G(x, y) => func("g", vec![term(x, ground, flat), term(y, ground, flat)]),
    }
}

/// The first `n` arguments of a spec, padded with variables.
fn arg_terms(spec: &[ArgSpec], n: usize, ground: bool, flat: bool) -> Vec<Term> {
    (0..n)
        .map(|i| spec.get(i).map_or_else(|| term(&ArgSpec::Var(i as u8), ground, flat), |a| term(a, ground, flat)))
        .collect()
}

/// A relation of the generated program.
#[derive(Clone, Copy)]
struct RelInfo {
    rel: Sym,
    arity: usize,
    /// `None` for the fact-only (EDB) relations, which are below every stratum.
    stratum: Option<usize>,
}

fn true_atom(kind: u8, a: &[ArgSpec]) -> Atom {
    let arg = match kind {
        0 => func("cell", arg_terms(a, 1, false, false)),
        1 => func("on", arg_terms(a, 2, false, false)),
        2 => func("ctl", arg_terms(a, 1, false, false)),
        _ => arg_terms(a, 1, false, true).remove(0),
    };
    atom(Sym::TRUE, vec![arg])
}

fn does_atom(role: u8, kind: u8, a: &ArgSpec) -> Atom {
    let role = match role {
        0 => c("r1"),
        1 => c("r2"),
        r => v(VARS[r as usize % VARS.len()]),
    };
    let mv = match kind {
        0 => func("mv", vec![term(a, false, true)]),
        1 => c("noop"),
        _ => term(a, false, true),
    };
    atom(Sym::DOES, vec![role, mv])
}

fn literal(spec: &LitSpec, head: &RelInfo, rels: &[RelInfo]) -> Literal {
    let level = head.stratum.expect("heads are generated relations");
    let pick = |p: u8, strict: bool| {
        let allowed: Vec<&RelInfo> =
            rels.iter().filter(|r| r.stratum.is_none_or(|s| if strict { s < level } else { s <= level })).collect();
        *allowed[p as usize % allowed.len()]
    };
    match spec {
        LitSpec::Pos(p, a) => {
            // Half the calls go to the head's own stratum, where the cycles are.
            let same: Vec<&RelInfo> = rels.iter().filter(|r| r.stratum == Some(level)).collect();
            let r =
                if p % 2 == 0 && !same.is_empty() { *same[(p / 2) as usize % same.len()] } else { pick(p / 2, false) };
            // The recursion restriction allows no function term with variables in a call that
            // may be recursive.
            let flat = r.stratum == Some(level);
            Literal::Atom(atom(r.rel, arg_terms(a, r.arity, false, flat)))
        }
        LitSpec::Neg(p, a) => {
            let r = pick(*p, true);
            Literal::Not(Box::new(Literal::Atom(atom(r.rel, arg_terms(a, r.arity, false, false)))))
        }
        LitSpec::True(neg, kind, a) => {
            let l = Literal::Atom(true_atom(*kind, a));
            if *neg {
                Literal::Not(Box::new(l))
            } else {
                l
            }
        }
        LitSpec::Does(neg, role, kind, a) => {
            let l = Literal::Atom(does_atom(*role, *kind, a));
            if *neg {
                Literal::Not(Box::new(l))
            } else {
                l
            }
        }
        LitSpec::Distinct(neg, a, b) => {
            let l = Literal::Distinct(term(a, false, false), term(b, false, false));
            if *neg {
                Literal::Not(Box::new(l))
            } else {
                l
            }
        }
        LitSpec::Or(ls) => Literal::Or(ls.iter().map(|l| literal(l, head, rels)).collect()),
    }
}

fn rule(head: Atom, body: Vec<Literal>) -> Rule {
    let body_pos = vec![Default::default(); body.len()];
    Rule { head, body, pos: Default::default(), body_pos }
}

/// Makes a generated rule safe and recursion-restricted by adding `(dom ?v)` for every variable
/// that needs a binding it lacks; `recursive` holds the relations that may be recursive with the
/// head (those of its stratum).
fn make_safe(mut r: Rule, recursive: &HashSet<Sym>) -> Rule {
    let mut extra = BTreeSet::new();
    for body in normal_bodies(&r) {
        let mut bound = HashSet::new();
        for l in &body {
            if let Lit::Pos(a) = l {
                a.for_each_var(&mut |v| {
                    bound.insert(v);
                });
            }
        }
        let mut need = |v: Sym| {
            if !bound.contains(&v) {
                extra.insert(v.as_str());
            }
        };
        r.head.for_each_var(&mut need);
        for l in &body {
            if !matches!(l, Lit::Pos(_)) {
                l.for_each_var(&mut need);
            }
        }
    }
    let mut grounded = HashSet::new();
    r.head.for_each_var(&mut |v| {
        grounded.insert(v);
    });
    for l in &r.body {
        if let Literal::Atom(a) = l {
            if !recursive.contains(&a.rel) {
                a.for_each_var(&mut |v| {
                    grounded.insert(v);
                });
            }
        }
    }
    for l in &r.body {
        l.for_each_atom(true, &mut |a, positive| {
            if positive && recursive.contains(&a.rel) {
                a.for_each_var(&mut |v| {
                    if !grounded.contains(&v) {
                        extra.insert(v.as_str());
                    }
                });
            }
        });
    }
    for name in extra {
        r.body.push(Literal::Atom(atom(Sym::new("dom"), vec![v(name)])));
    }
    rule(r.head, r.body)
}

fn has_var(t: &Term, vars: &HashSet<Sym>) -> bool {
    let mut found = false;
    t.for_each_var(&mut |v| found |= vars.contains(&v));
    found
}

fn leaf(t: Term) -> Term {
    match t {
        Term::Func(_, args) => leaf(args.into_iter().next().expect("generated functions have arguments")),
        t => t,
    }
}

/// Replaces function terms holding a head variable in recursive calls by their first leaf.
fn no_growth(l: Literal, recursive: &HashSet<Sym>, head_vars: &HashSet<Sym>) -> Literal {
    match l {
        Literal::Atom(mut a) if recursive.contains(&a.rel) => {
            for t in &mut a.args {
                if matches!(t, Term::Func(..)) && has_var(t, head_vars) {
                    *t = leaf(t.clone());
                }
            }
            Literal::Atom(a)
        }
        Literal::Or(ls) => Literal::Or(ls.into_iter().map(|l| no_growth(l, recursive, head_vars)).collect()),
        l => l,
    }
}

/// The rules of a [`Template::Graph`].
fn graph_rules(
    k: usize,
    unary: bool,
    rules: &[(u8, u8, Option<u8>, u8)],
    facts: &[(u8, u8)],
    out: &mut Vec<Rule>,
    rels: &mut Vec<RelInfo>,
) {
    let name = |i: &u8| format!("g{k}x{i}");
    let mut text = String::new();
    for (h, j, second, shape) in rules {
        let (h, j) = (name(h), name(j));
        text += &if unary {
            let (body, var) = match shape {
                0 => (format!("({j} ?y)"), "?y"),
                1 => (format!("({j} ?x) (edge ?x ?y)"), "?x"),
                2 => (format!("(edge ?x ?y) ({j} ?x)"), "?y"),
                _ => (format!("(dom ?y) ({j} 1)"), "?y"),
            };
            let extra = second.map(|k| format!(" ({} {var})", name(&k))).unwrap_or_default();
            format!("(<= ({h} ?y) {body}{extra})\n")
        } else {
            let extra = second.map(|k| format!(" {}", name(&k))).unwrap_or_default();
            format!("(<= {h} {j}{extra})\n")
        };
    }
    // Facts last: base cases that arrive late keep cycles incomplete for longer.
    for (i, n) in facts {
        text += &if unary { format!("({} {n})\n", name(i)) } else { format!("{}\n", name(i)) };
    }
    for i in 0..6u8 {
        rels.push(RelInfo { rel: Sym::new(&name(&i)), arity: usize::from(unary), stratum: Some(0) });
    }
    out.extend(gdl::parse("template", &text).expect("template parses").rules);
}

fn template_rules(k: usize, t: &Template, out: &mut Vec<Rule>, rels: &mut Vec<RelInfo>) {
    let text = match t {
        Template::Closure { shape, source } => {
            let mut s = String::new();
            if *source != 1 {
                s += "(<= (tc ?x ?y) (edge ?x ?y))\n";
            }
            if *source != 0 {
                s += "(<= (tc ?x ?y) (true (on ?x ?y)))\n";
            }
            s += match shape {
                0 => "(<= (tc ?x ?y) (tc ?x ?z) (edge ?z ?y))\n",
                1 => "(<= (tc ?x ?y) (edge ?x ?z) (tc ?z ?y))\n",
                _ => "(<= (tc ?x ?y) (tc ?x ?z) (tc ?z ?y) (dom ?z))\n",
            };
            s
        }
        Template::EvenOdd { even_bound, odd_bound } => format!(
            "(ev 0)\n(<= (ev ?y) {})\n(<= (od ?y) {})\n",
            if *even_bound { "(succ ?x ?y) (od ?x)" } else { "(od ?x) (succ ?x ?y)" },
            if *odd_bound { "(succ ?x ?y) (ev ?x)" } else { "(ev ?x) (succ ?x ?y)" },
        ),
        // The recursion restriction forbids `(cnt (f ?x))` in a recursive call, so the function
        // terms are looked up in the non-recursive `ff` instead.
        Template::Count { bound } => format!(
            "(ff 0 (f 0))\n(ff 1 (f 1))\n(ff 2 (f 2))\n(ff 3 (f 3))\n(cnt (f 0))\n(<= (cnt ?fy) {})\n(<= (cnt (g ?x ?x)) (cnt ?fx) (ff ?x ?fx) (true (cell ?x)))\n",
            if *bound {
                "(ff ?y ?fy) (succ ?x ?y) (ff ?x ?fx) (cnt ?fx)"
            } else {
                "(cnt ?fx) (ff ?x ?fx) (succ ?x ?y) (ff ?y ?fy)"
            }
        ),
        Template::Graph { unary, rules, facts } => return graph_rules(k, *unary, rules, facts, out, rels),
        Template::Cycle { variant } => {
            let mut s = "(<= (ca ?x) (true (cell ?x)))\n(<= (cb ?x) (ca ?x))\n".to_owned();
            s += match variant {
                0 => "(<= (cc ?y) (cb ?x) (edge ?x ?y))\n(<= (ca ?x) (cc ?x))\n",
                1 => "(<= (cc ?y) (edge ?x ?y) (cb ?x))\n(<= (ca ?x) (cc ?x) (not (true (ctl ?x))))\n",
                _ => "(<= (cc ?y) (cb ?x) (succ ?x ?y))\n(<= (ca ?y) (cc ?x) (cb ?y) (edge ?x ?y))\n(<= (cb ?x) (cc ?x) (distinct ?x 3))\n",
            };
            s
        }
    };
    // Give every relation of the template a name of its own.
    let mut text = text;
    for (name, arity) in [("tc", 2), ("ev", 1), ("od", 1), ("cnt", 1), ("ca", 1), ("cb", 1), ("cc", 1)] {
        if text.contains(&format!("({name} ")) {
            let fresh = format!("{name}{k}");
            text = text.replace(&format!("({name} "), &format!("({fresh} "));
            rels.push(RelInfo { rel: Sym::new(&fresh), arity, stratum: Some(0) });
        }
    }
    out.extend(gdl::parse("template", &text).expect("template parses").rules);
}

/// The program and scenarios a spec stands for.
fn build(spec: &ProgSpec) -> (Description, Vec<Scenario>) {
    let mut rules = Vec::new();
    let fact = |rel: &str, args: Vec<Term>| rule(atom(Sym::new(rel), args), Vec::new());
    rules.push(fact("role", vec![c("r1")]));
    rules.push(fact("role", vec![c("r2")]));
    for k in CONSTS {
        rules.push(fact("dom", vec![c(k)]));
    }
    for w in CONSTS.windows(2) {
        rules.push(fact("succ", vec![c(w[0]), c(w[1])]));
    }
    for &(a, b) in &spec.edges {
        rules.push(fact("edge", vec![c(CONSTS[a as usize]), c(CONSTS[b as usize])]));
    }
    let mut rels = vec![
        RelInfo { rel: Sym::new("dom"), arity: 1, stratum: None },
        RelInfo { rel: Sym::new("succ"), arity: 2, stratum: None },
        RelInfo { rel: Sym::new("edge"), arity: 2, stratum: None },
    ];
    if spec.edges.is_empty() {
        // Keep `edge` defined so the templates read it as an EDB relation.
        rules.push(fact("edge", vec![c("3"), c("3")]));
    }
    for (k, t) in spec.templates.iter().enumerate() {
        template_rules(k, t, &mut rules, &mut rels);
    }
    let mut generated: Vec<RelInfo> = spec
        .preds
        .iter()
        .enumerate()
        .map(|(i, &(arity, stratum))| RelInfo { rel: Sym::new(&format!("p{i}")), arity, stratum: Some(stratum) })
        .collect();
    rels.append(&mut generated);
    let heads: Vec<RelInfo> = rels.iter().copied().filter(|r| r.stratum.is_some()).collect();
    for (p, a) in &spec.facts {
        let r = heads[*p as usize % heads.len()];
        rules.push(rule(atom(r.rel, arg_terms(a, r.arity, true, false)), Vec::new()));
    }
    for rs in &spec.rules {
        let h = heads[rs.head as usize % heads.len()];
        let level = h.stratum.expect("generated");
        let recursive: HashSet<Sym> = rels.iter().filter(|r| r.stratum == Some(level)).map(|r| r.rel).collect();
        let body: Vec<Literal> = rs.body.iter().map(|l| literal(l, &h, &rels)).collect();
        // Only rules outside every cycle may build function terms, so the model stays finite.
        let mut in_cycle = false;
        for l in &body {
            l.for_each_atom(true, &mut |a, _| in_cycle |= recursive.contains(&a.rel));
        }
        let head = atom(h.rel, arg_terms(&rs.args, h.arity, false, in_cycle));
        // GDL's recursion restriction (on argument terms, stricter than `gdl::validate`'s check
        // of variables): a recursive call must not wrap a head variable in a function term, or
        // a top-down evaluator meets ever deeper calls (p 0), (p (f 0)), ...
        let mut head_vars = HashSet::new();
        head.for_each_var(&mut |v| {
            head_vars.insert(v);
        });
        let body = body.into_iter().map(|l| no_growth(l, &recursive, &head_vars)).collect();
        rules.push(make_safe(rule(head, body), &recursive));
    }
    let text: String = rules.iter().map(|r| format!("{r}\n")).collect();
    let desc = gdl::parse("generated.kif", &text).expect("generated text parses");
    let state = |s: &StateSpec| {
        let mut props = Vec::new();
        for (i, &on) in s.cells.iter().enumerate() {
            if on {
                props.push(func("cell", vec![c(CONSTS[i])]));
            }
        }
        for &(a, b) in &s.on {
            props.push(func("on", vec![c(CONSTS[a as usize]), c(CONSTS[b as usize])]));
        }
        if let Some(k) = CONSTS.get(s.ctl as usize) {
            props.push(func("ctl", vec![c(k)]));
        }
        props
    };
    let joint = |m: &[(u8, u8); 2]| {
        ["r1", "r2"]
            .iter()
            .zip(m)
            .map(|(r, &(kind, k))| {
                let k = CONSTS[k as usize];
                let mv = match kind {
                    0 => func("mv", vec![c(k)]),
                    1 => c("noop"),
                    _ => c(k),
                };
                (c(r), mv)
            })
            .collect::<Vec<_>>()
    };
    let (s0, s1) = (state(&spec.states[0]), state(&spec.states[1]));
    let scenarios = vec![
        Scenario { state: s0.clone(), moves: joint(&spec.moves[0]) },
        Scenario { state: s0.clone(), moves: joint(&spec.moves[1]) },
        Scenario { state: s1, moves: joint(&spec.moves[2]) },
        Scenario { state: s0, moves: joint(&spec.moves[0]) },
    ];
    (desc, scenarios)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn engine_agrees_with_naive_bottom_up(spec in prog_spec()) {
        let (desc, scenarios) = build(&spec);
        let errors: Vec<String> =
            gdl::validate(&desc).into_iter().filter(|p| p.severity == Severity::Error).map(|p| p.to_string()).collect();
        // Never taken when `generated_programs_are_valid` passes.
        prop_assume!(errors.is_empty());
        if let Err(e) = check(&desc, &scenarios, spec.seed) {
            prop_assert!(false, "{}", e);
        }
    }
}

/// The generator must produce valid programs by construction, not by luck.
#[test]
fn generated_programs_are_valid() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = prog_spec();
    let mut invalid = Vec::new();
    for _ in 0..300 {
        let spec = strategy.new_tree(&mut runner).expect("value").current();
        let (desc, _) = build(&spec);
        let errors: Vec<String> =
            gdl::validate(&desc).into_iter().filter(|p| p.severity == Severity::Error).map(|p| p.to_string()).collect();
        if !errors.is_empty() {
            invalid.push(format!("{errors:?}\n{desc}"));
        }
    }
    assert!(invalid.is_empty(), "{} invalid programs, e.g.\n{}", invalid.len(), invalid[0]);
}
