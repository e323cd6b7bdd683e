//! Chapter 16.4's refinement with latches: what it changes, and that it is sound on real play.

mod common;

use analysis::{Analysis, AnalysisConfig};
use common::Game;
use heuristic::{Formulas, FuzzyGoals, Params};
use machine::StateMachine;
use propnet::{PropnetMachine, PropnetState};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::time::{Duration, Instant};

fn analysis(game: &Game) -> Analysis {
    let options =
        AnalysisConfig { deadline: Some(Instant::now() + Duration::from_secs(10)), ..AnalysisConfig::default() };
    Analysis::run(&game.net, &game.desc, &options, &mut |_| {})
}

#[test]
fn a_line_blocked_for_good_counts_for_nothing() {
    // "Every row with exactly two of our markers has the same fuzzy truth value, no matter
    // whether the remaining third square is still free or already blocked": x x o and x x b
    // give row(1, x) the same 0.9 · 0.9 · 0.1 without latches. With them, the x marks are set
    // positive latches (1) and the o mark inhibits x on its cell for good (0).
    let game = common::fixture("chapter16_tictactoe.kif");
    let params = Params::default();
    let formulas = Formulas::new(&game.desc, &game.net, &propnet::Limits::default()).unwrap();
    let mut goals = FuzzyGoals::compile(&formulas, &params).unwrap().with_latches(&game.net, &analysis(&game));
    let row = formulas.node("(row 1 x)").unwrap() as usize;
    let mut row_degrees = Vec::new();
    for third in ["o", "b"] {
        let mut names = vec!["(control black)".to_owned(), "(cell 1 1 x)".into(), "(cell 1 2 x)".into()];
        names.push(format!("(cell 1 3 {third})"));
        names.extend((2..=3).flat_map(|m| (1..=3).map(move |n| format!("(cell {m} {n} b)"))));
        let state = common::state(&game.net, &names);
        let latched = goals.latched(&state);
        let leaf = |i: usize| match (state.contains(i), latched.never.contains(&i), latched.always.contains(&i)) {
            (false, true, _) => 0.0,
            (true, _, true) => 1.0,
            (holds, ..) => {
                if holds {
                    params.tau
                } else {
                    1.0 - params.tau
                }
            }
        };
        let without = formulas.evaluate(&state, &params)[row];
        assert_eq!(format!("{without:.6}"), "0.081000");
        row_degrees.push(formulas.evaluate_with(&leaf, &params)[row]);
    }
    // Blocked: 1 · 1 · 0. Free: 1 · 1 · (1 − τ), the blank cell may still get an x.
    assert_eq!(row_degrees[0], 0.0);
    assert_eq!(format!("{:.6}", row_degrees[1]), "0.100000");
}

/// Plays random games and checks that whatever the latches fix in a state stays fixed: a
/// proposition at degree 0 never holds again, one at degree 1 never stops holding. Returns how
/// many propositions were fixed along the way.
fn check_soundness(name: &str, game: &Game, seconds: f64) -> usize {
    let mut goals =
        FuzzyGoals::new(&game.desc, &game.net, &Params::default()).unwrap().with_latches(&game.net, &analysis(game));
    let mut m = PropnetMachine::new(&game.net);
    let mut rng = SmallRng::seed_from_u64(11);
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let mut fixed = 0;
    while Instant::now() < deadline {
        let (mut never, mut always) = (Vec::new(), Vec::new());
        let mut state: PropnetState = m.initial_state();
        for _ in 0..200 {
            for &i in &never {
                assert!(!state.contains(i), "{name}: {} was fixed false and came true", game.net.bases[i].name);
            }
            for &i in &always {
                assert!(state.contains(i), "{name}: {} was fixed true and went false", game.net.bases[i].name);
            }
            let latched = goals.latched(&state);
            fixed += latched.never.len() + latched.always.len();
            never.extend(latched.never);
            always.extend(latched.always);
            if m.is_terminal(&state).unwrap() {
                break;
            }
            let mut joint = Vec::new();
            for role in 0..m.roles().len() {
                let legal = m.legal_moves(&state, role).unwrap();
                joint.push(legal[rng.random_range(0..legal.len())]);
            }
            state = m.next_state(&state, &joint).unwrap();
        }
    }
    fixed
}

#[test]
fn what_latches_fix_stays_fixed_in_random_games() {
    let mut games: Vec<(String, Game)> =
        ["tictactoe", "connectfour", "untwistycorridor"].map(|n| (n.to_owned(), common::bundled(n))).into();
    games.push(("chapter16_tictactoe".into(), common::fixture("chapter16_tictactoe.kif")));
    if let Some(shared) = testkit::shared::locate(env!("CARGO_MANIFEST_DIR"), "latch soundness on corpus games") {
        for name in ["breakthrough", "connectFour", "escortLatch", "pilgrimage", "twisty-passages"] {
            let text = testkit::shared::read_text(&shared.join(format!("games/{name}.kif"))).unwrap();
            let (desc, _) = gdl::load(name, &text).unwrap();
            let raw = propnet::build(&desc, &propnet::Limits::default()).unwrap();
            let net = propnet::optimize::optimize(&raw).0;
            games.push((name.to_owned(), Game { desc, raw, net }));
        }
    }
    for (name, game) in &games {
        let fixed = check_soundness(name, game, 0.3);
        // Every one of these games has latches its goal formulas read.
        assert!(fixed > 0, "{name}: nothing was ever fixed, so nothing was checked");
    }
}
