//! Differential tests of the tabled evaluator against the naive bottom-up oracle of
//! [`testkit::oracle`], which shares nothing with [`crate::engine`] but the normalised bodies of
//! `gdl::normal_bodies`, so an agreement between the two is evidence that the tabling and its
//! recursion handling are right.
//!
//! The property test takes random programs from [`testkit::programs`], then asks the engine every
//! relation under many call patterns, in two orders on long-lived engines (tables are reused
//! across queries and across states) and once more on a fresh engine per query, and compares
//! each answer set with the naive model filtered by the bound arguments.

use crate::engine::Engine;
use crate::program::CompiledRules;
use gdl::{Description, Sym, Term};
use gdl::{TermId, TermPool};
use proptest::prelude::*;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::collections::{BTreeSet, HashSet};
use std::sync::Arc;
use testkit::oracle::{naive, relations, scenario, show, Facts, Scenario, Tuple};

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
fn compile(desc: &Description) -> (Arc<CompiledRules>, TermPool) {
    let mut pool = TermPool::default();
    let prog = CompiledRules::compile(desc, &mut pool);
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

/// Checks a hand-written program in a few scenarios under several query orders.
fn check_text(text: &str, scenarios: &[Scenario]) {
    let desc = testkit::load("test.kif", text);
    for seed in 0..8 {
        if let Err(e) = check(&desc, scenarios, seed) {
            panic!("{e}");
        }
    }
}

fn model_of(text: &str, sc: &Scenario, rel: &str) -> BTreeSet<String> {
    let facts = naive(&testkit::load("test.kif", text), sc);
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

/// A state listed with repeats can have as many entries as the previous state while lacking
/// some of its propositions: the engine must still drop the tables computed from the old state.
#[test]
fn state_listed_with_repeats_replaces_a_state_of_the_same_length() {
    let text = "(role r)\n(edge 3 3)\n(<= (tc ?x ?y) (true (on ?x ?y)))\n\
                (<= (tc ?x ?y) (tc ?x ?z) (edge ?z ?y))\n";
    let first = scenario("(on 1 0) (on 0 2) (on 2 2) (on 0 0)", &[]);
    let repeats = scenario("(on 0 2) (on 2 2) (on 0 2) (on 0 2)", &[]);
    assert_eq!(model_of(text, &repeats, "tc"), set(&["[0 2]", "[2 2]"]));
    check_text(text, &[first, repeats]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn engine_agrees_with_naive_bottom_up(program in testkit::programs::programs()) {
        if let Err(e) = check(&program.desc, &program.scenarios, program.seed) {
            prop_assert!(false, "{}", e);
        }
    }
}
