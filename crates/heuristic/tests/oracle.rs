//! The goal formulas' instantiator against the naive bottom-up oracle, on random programs
//! (recursion, function terms, stratified negation, `or`, `distinct`, `true`).
//!
//! Each relation of a generated program that does not depend on `does` gets a goal value of its
//! own, `(<= (goal r1 v) (p ?x ...))`, in a game whose base propositions are the scenarios' state
//! propositions (see [`testkit::programs::Generated::bounded_text`]). The formulas are
//! instantiated from the rules as written, not from the propnet's ground rules, so their crisp
//! meaning is a second reading of the rules: in every scenario, goal `v` must hold exactly when
//! the oracle's model has a tuple of its relation.

use gdl::{Description, Literal, Sym};
use heuristic::Formulas;
use propnet::PropnetState;
use proptest::prelude::*;
use std::collections::{BTreeSet, HashSet};
use testkit::oracle::{naive, relations};
use testkit::programs::{programs, Generated};

/// The relations whose rules read `does`, directly or through others.
fn reading_moves(desc: &Description) -> HashSet<Sym> {
    let mut found: HashSet<Sym> = HashSet::new();
    loop {
        let before = found.len();
        for rule in &desc.rules {
            let mut reads = false;
            let mut visit = |lit: &Literal| {
                lit.for_each_atom(true, &mut |a, _| reads |= a.rel == Sym::DOES || found.contains(&a.rel));
            };
            rule.body.iter().for_each(&mut visit);
            if reads {
                found.insert(rule.head.rel);
            }
        }
        if found.len() == before {
            return found;
        }
    }
}

fn check(program: &Generated) -> Result<(), String> {
    let text = program.bounded_text();
    let bounded = testkit::load("test.kif", &text);
    let moving = reading_moves(&bounded);
    let goals: Vec<(u32, Sym, usize)> = relations(&bounded)
        .into_iter()
        .filter(|(r, _)| *r != Sym::ROLE && !moving.contains(r))
        .enumerate()
        .map(|(v, (r, arity))| (v as u32, r, arity))
        .collect();
    let mut game = format!("{text}{}", program.game_facts());
    for &(v, rel, arity) in &goals {
        let vars: Vec<String> = (0..arity).map(|i| format!("?x{i}")).collect();
        let atom = if arity == 0 { rel.to_string() } else { format!("({rel} {})", vars.join(" ")) };
        game.push_str(&format!("(<= (goal r1 {v}) {atom})\n"));
    }
    game.push_str("(<= terminal (true never))\n(goal r2 0)\n");
    let (desc, _) = gdl::load("goals.kif", &game).map_err(|e| format!("{e}\n{game}"))?;
    let net = propnet::compile(&desc, &propnet::Limits::default()).map_err(|e| format!("{e}\n{game}"))?;
    let formulas = Formulas::new(&desc, &net, &propnet::Limits::default()).map_err(|e| format!("{e}\n{game}"))?;
    for (n, sc) in program.scenarios.iter().enumerate() {
        let model = naive(&bounded, sc);
        let want: BTreeSet<u32> =
            goals.iter().filter(|(_, rel, _)| model.get(rel).is_some_and(|t| !t.is_empty())).map(|g| g.0).collect();
        let state: BTreeSet<String> = sc.state.iter().map(ToString::to_string).collect();
        let held = (0..net.bases.len()).filter(|&i| state.contains(&net.bases[i].name));
        let crisp = formulas.crisp(&PropnetState::from_bases(net.bases.len(), held));
        let got: BTreeSet<u32> =
            formulas.goals()[0].iter().filter(|&&(_, node)| crisp[node as usize]).map(|g| g.0).collect();
        if got != want {
            let state: Vec<&String> = state.iter().collect();
            return Err(format!(
                "scenario {n}: goals {got:?}, the oracle says {want:?}\nstate: {state:?}\ngame:\n{game}"
            ));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn goal_formulas_mean_what_the_rules_mean(program in programs()) {
        if let Err(e) = check(&program) {
            prop_assert!(false, "{}", e);
        }
    }
}
