//! The grounder, the net builder and the optimiser against the naive bottom-up oracle, on random
//! programs (recursion, function terms, stratified negation, `or`, `distinct`, `true`, `does`).
//!
//! A generated program is not a game, so it is made one whose next state shows its whole model:
//! every state proposition of its scenarios is initially true (so each is a base proposition),
//! every move of its scenarios is always legal, and every relation `p` the rules mention gets a
//! rule `(<= (next (obs_p ?x ...)) (p ?x ...))`. A positive `(true ?x)` would read those
//! observations back and nest them without end (`(obs_p (obs_p ...))`, a game with infinitely
//! many states), so it reads `(st ?x)` instead, the state restricted to the scenarios'
//! propositions; the oracle evaluates the program so changed, which in the scenarios means the
//! same. Then, in each scenario, the net's next values of
//! the `obs_p` bases must be exactly the oracle's tuples of `p`: the raw net checks grounding and
//! building (the rewrites, demand restriction and decomposition included), the optimised one
//! the optimiser too (its reachability pass sees every base of the scenarios start true and
//! become unknown, so every scenario's marking is one it must keep exact).

use gdl::{Description, Sym, Term};
use propnet::Net;
use proptest::prelude::*;
use std::collections::BTreeSet;
use testkit::oracle::{naive, relations, Scenario};
use testkit::programs::{programs, Generated};

/// The game text that shows the model of `program` (its [`Generated::bounded_text`], `text`) in
/// the next state.
fn observed(program: &Generated, text: &str, rels: &[(Sym, usize)]) -> String {
    let mut text = format!("{text}{}", program.game_facts());
    for &(rel, arity) in rels {
        let vars: Vec<String> = (0..arity).map(|i| format!("?x{i}")).collect();
        let atom = |name: &str| if arity == 0 { name.to_owned() } else { format!("({name} {})", vars.join(" ")) };
        text.push_str(&format!("(<= (next {}) {})\n", atom(&format!("obs_{rel}")), atom(rel.as_str())));
    }
    text.push_str("(<= terminal (true never))\n(goal r1 0)\n(goal r2 0)\n");
    text
}

/// The `obs_` propositions the oracle says the next state holds in `sc`.
fn expected(desc: &Description, sc: &Scenario, rels: &[(Sym, usize)]) -> BTreeSet<String> {
    let model = naive(desc, sc);
    let mut out = BTreeSet::new();
    for &(rel, arity) in rels {
        for tuple in model.get(&rel).into_iter().flatten() {
            let args: Vec<String> = tuple.iter().map(Term::to_string).collect();
            out.insert(if arity == 0 { format!("obs_{rel}") } else { format!("(obs_{rel} {})", args.join(" ")) });
        }
    }
    out
}

/// The `obs_` propositions `net` computes for the next state in `sc`.
fn computed(net: &Net, sc: &Scenario) -> BTreeSet<String> {
    let state: BTreeSet<String> = sc.state.iter().map(Term::to_string).collect();
    let moves: BTreeSet<(String, String)> = sc.moves.iter().map(|(r, m)| (r.to_string(), m.to_string())).collect();
    let base: Vec<bool> = net.bases.iter().map(|b| state.contains(&b.name)).collect();
    let input: Vec<bool> =
        net.moves.iter().map(|m| moves.contains(&(net.roles[m.role].clone(), m.name.clone()))).collect();
    let value = net.evaluate(&base, &input);
    net.bases
        .iter()
        .filter(|b| b.name.starts_with("obs_") || b.name.starts_with("(obs_"))
        .filter(|b| value[b.next as usize])
        .map(|b| b.name.clone())
        .collect()
}

fn check(program: &Generated) -> Result<(), String> {
    let text = program.bounded_text();
    let bounded = testkit::load("test.kif", &text);
    let rels: Vec<(Sym, usize)> = relations(&bounded).into_iter().filter(|(r, _)| *r != Sym::ROLE).collect();
    let text = observed(program, &text, &rels);
    let (desc, _) = gdl::load("observed.kif", &text).map_err(|e| format!("{e}\n{text}"))?;
    let raw = propnet::build(&desc, &propnet::Limits::default()).map_err(|e| format!("{e}\n{text}"))?;
    let (optimised, _) = propnet::optimize::optimize(&raw);
    for (n, sc) in program.scenarios.iter().enumerate() {
        let want = expected(&bounded, sc, &rels);
        for (which, net) in [("raw", &raw), ("optimised", &optimised)] {
            let got = computed(net, sc);
            if got != want {
                let missing: Vec<&String> = want.difference(&got).collect();
                let extra: Vec<&String> = got.difference(&want).collect();
                let state: Vec<String> = sc.state.iter().map(Term::to_string).collect();
                let moves: Vec<String> = sc.moves.iter().map(|(r, m)| format!("(does {r} {m})")).collect();
                return Err(format!(
                    "{which} net, scenario {n}: missing {missing:?}, extra {extra:?}\nstate: {}\nmoves: {}\nprogram:\n{text}",
                    state.join(" "),
                    moves.join(" ")
                ));
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn the_net_computes_the_naive_model(program in programs()) {
        if let Err(e) = check(&program) {
            prop_assert!(false, "{}", e);
        }
    }
}
