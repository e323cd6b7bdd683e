//! Property tests on random markings of the base propositions (reachable or not) and random
//! parameters: the compiled circuit agrees with the plain recursive evaluation of the formulas
//! for every t-norm, degrees stay in [0, 1], the formulas mean what the rules mean, and with a
//! threshold θ a true formula is above one half and a false one below wherever chapter 16.4
//! guarantees it.

mod common;

use analysis::{Analysis, AnalysisConfig};
use common::Game;
use heuristic::{Formulas, FuzzyGoals, Norm, Params};
use propnet::net::Kind;
use propnet::PropnetState;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

fn games() -> Vec<(&'static str, Game)> {
    let mut out: Vec<(&'static str, Game)> = ["chapter16_tictactoe.kif", "chapter16_puzzle.kif", "rule_shapes.kif"]
        .into_iter()
        .map(|f| (f, common::fixture(f)))
        .collect();
    for name in ["tictactoe", "connectfour", "buttonsandlights", "untwistycorridor"] {
        out.push((name, common::bundled(name)));
    }
    out
}

/// τ, a threshold half the time, and the product or a Yager t-norm (its limits included).
fn params() -> impl Strategy<Value = Params> {
    let norm = prop_oneof![
        Just(Norm::Product),
        Just(Norm::Yager(0.0)),
        Just(Norm::Yager(1.0)),
        Just(Norm::Yager(f64::INFINITY)),
        (0.05f64..8.0).prop_map(Norm::Yager),
    ];
    (0.55f64..0.97, norm, proptest::option::of(0.0f64..=1.0)).prop_map(|(tau, norm, t)| Params {
        tau,
        norm,
        // θ anywhere in (0.5, τ].
        theta: t.map(|t| tau - t * (tau - 0.5 - 1e-9)),
    })
}

fn marking(bases: usize) -> impl Strategy<Value = PropnetState> {
    proptest::collection::vec(any::<bool>(), bases)
        .prop_map(move |bits| PropnetState::from_bases(bases, (0..bases).filter(|&i| bits[i])))
}

/// Per node, what chapter 16.4's threshold guarantees: (a true node is above 0.5, a false one
/// below). Constants and `true` atoms have both; negation swaps them; a conjunction has each
/// that all its conjuncts have (θ keeps two values above 0.5 above it, and a t-norm is at most
/// its smaller argument); a disjunction is above 0.5 when a true disjunct is (a t-conorm is at
/// least its larger argument) but two false disjuncts can add up past 0.5. A node on a cycle
/// reads a node still being visited, which counts as guaranteeing nothing, so recursion gets
/// no guarantee.
fn guarantees(f: &Formulas) -> Vec<(bool, bool)> {
    fn visit(f: &Formulas, n: u32, state: &mut [u8], out: &mut [(bool, bool)]) -> (bool, bool) {
        match state[n as usize] {
            2 => return out[n as usize],
            1 => return (false, false),
            _ => {}
        }
        state[n as usize] = 1;
        let ins: Vec<(bool, bool)> = f.inputs(n).iter().map(|&i| visit(f, i, state, out)).collect();
        let all = |pick: fn(&(bool, bool)) -> bool| ins.iter().all(pick);
        let g = match f.kind(n) {
            Kind::Const(_) | Kind::Base(_) => (true, true),
            Kind::Input(_) => (false, false),
            Kind::Not => (ins[0].1, ins[0].0),
            Kind::And => (all(|g| g.0), all(|g| g.1)),
            Kind::Or => (all(|g| g.0), ins.len() <= 1 && all(|g| g.1)),
        };
        state[n as usize] = 2;
        out[n as usize] = g;
        g
    }
    let mut state = vec![0u8; f.len()];
    let mut out = vec![(false, false); f.len()];
    for n in 0..f.len() as u32 {
        visit(f, n, &mut state, &mut out);
    }
    out
}

fn check(ok: bool, what: impl FnOnce() -> String) -> Result<(), TestCaseError> {
    if ok {
        Ok(())
    } else {
        Err(TestCaseError::fail(what()))
    }
}

#[test]
fn the_circuit_agrees_with_the_formulas_and_the_rules() {
    for (name, game) in games() {
        let formulas = Formulas::new(&game.desc, &game.net, &propnet::Limits::default()).expect("formulas");
        let guaranteed = guarantees(&formulas);
        let bases = game.net.bases.len();
        let mut runner = TestRunner::new(Config::with_cases(256));
        let result = runner.run(&(marking(bases), params()), |(state, params)| {
            let mut goals = FuzzyGoals::compile(&formulas, &params).expect("valid parameters");
            let plain = formulas.evaluate(&state, &params);
            check(plain.iter().all(|d| (0.0..=1.0).contains(d)), || format!("a degree outside [0, 1]: {plain:?}"))?;
            let degrees = goals.degrees(&state);
            for (role, values) in formulas.goals().iter().enumerate() {
                for (k, &(value, node)) in values.iter().enumerate() {
                    let (d, p) = (degrees[role][k].degree, plain[node as usize]);
                    check(degrees[role][k].value == value && (d - p).abs() < 1e-9, || {
                        format!("goal({role}, {value}): circuit {d}, formulas {p}")
                    })?;
                }
            }
            for v in goals.values(&state) {
                check((0.0..=100.0).contains(&v), || format!("heuristic value {v}"))?;
            }
            // Crisply, the formulas are the rules: the unoptimised net is exact on every marking.
            let crisp = formulas.crisp(&state);
            let marking: Vec<bool> = (0..bases).map(|i| state.contains(i)).collect();
            let net = game.raw.evaluate(&marking, &vec![false; game.raw.moves.len()]);
            for (role, values) in game.raw.goals.iter().enumerate() {
                let expected: Vec<u32> = values.iter().filter(|&&(_, n)| net[n as usize]).map(|&(v, _)| v).collect();
                let found: Vec<u32> =
                    formulas.goals()[role].iter().filter(|&&(_, n)| crisp[n as usize]).map(|&(v, _)| v).collect();
                check(found == expected, || format!("role {role}: formulas {found:?}, rules {expected:?}"))?;
            }
            if params.theta.is_some() {
                for (n, &(if_true, if_false)) in guaranteed.iter().enumerate() {
                    let (d, holds) = (plain[n], crisp[n]);
                    check(!if_true || !holds || d > 0.5, || format!("node {n} is true but has degree {d}"))?;
                    check(!if_false || holds || d < 0.5, || format!("node {n} is false but has degree {d}"))?;
                }
            }
            Ok(())
        });
        if let Err(e) = result {
            panic!("{name}: {e}");
        }
    }
}

#[test]
fn the_threshold_guarantee_covers_the_chapters_formulas() {
    // Not vacuous: the 15-puzzle goal (a long conjunction) has both guarantees; Tic-Tac-Toe's
    // line(x) is above 0.5 when true, but false lines can add up past 0.5 (τ = 0.8 and eight
    // lines of degree 0.8 · 0.8 · 0.2 give 0.67), and goal(white, 100) = line(x) ∧ ¬line(o)
    // inherits that through the negation.
    let puzzle = common::fixture("chapter16_puzzle.kif");
    let f = Formulas::new(&puzzle.desc, &puzzle.net, &propnet::Limits::default()).unwrap();
    let win = f.goals()[0].iter().find(|g| g.0 == 100).unwrap().1;
    assert_eq!(guarantees(&f)[win as usize], (true, true));
    let ttt = common::fixture("chapter16_tictactoe.kif");
    let f = Formulas::new(&ttt.desc, &ttt.net, &propnet::Limits::default()).unwrap();
    let line = f.node("(line x)").unwrap();
    assert_eq!(guarantees(&f)[line as usize], (true, false));
    let win = f.goals()[0].iter().find(|g| g.0 == 100).unwrap().1;
    assert_eq!(guarantees(&f)[win as usize], (false, false));
}

#[test]
fn latches_change_exactly_the_degrees_of_the_propositions_they_fix() {
    for (name, game) in games() {
        let analysis = Analysis::run(
            &game.net,
            &game.desc,
            &AnalysisConfig { proof: false, ..AnalysisConfig::default() },
            &mut |_| {},
        );
        let formulas = Formulas::new(&game.desc, &game.net, &propnet::Limits::default()).expect("formulas");
        let bases = game.net.bases.len();
        let mut runner = TestRunner::new(Config::with_cases(32));
        let result = runner.run(&(marking(bases), params()), |(state, params)| {
            let mut goals =
                FuzzyGoals::compile(&formulas, &params).expect("valid parameters").with_latches(&game.net, &analysis);
            let latched = goals.latched(&state);
            let tau = params.tau;
            let leaf = |i: usize| match (state.contains(i), latched.never.contains(&i), latched.always.contains(&i)) {
                (false, true, _) => 0.0,
                (true, _, true) => 1.0,
                (true, ..) => tau,
                (false, ..) => 1.0 - tau,
            };
            let plain = formulas.evaluate_with(&leaf, &params);
            let degrees = goals.degrees(&state);
            for (role, values) in formulas.goals().iter().enumerate() {
                for (k, &(value, node)) in values.iter().enumerate() {
                    let (d, p) = (degrees[role][k].degree, plain[node as usize]);
                    check((d - p).abs() < 1e-9, || format!("goal({role}, {value}): circuit {d}, formulas {p}"))?;
                }
            }
            Ok(())
        });
        if let Err(e) = result {
            panic!("{name}: {e}");
        }
    }
}
