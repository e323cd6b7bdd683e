//! `latchkey heuristic` as a user meets it: chapter 16's numbers through the command line,
//! parameters and states given in every supported way, and clear errors for bad input.

mod common;
use common::*;

use std::path::PathBuf;

/// The chapter's Tic-Tac-Toe fixture (roles white and black), shared with the heuristic crate.
fn chapter_game() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../heuristic/tests/fixtures/chapter16_tictactoe.kif");
    path.to_str().expect("UTF-8 path").to_owned()
}

#[test]
fn the_position_of_figure_16_3_gives_the_chapters_value() {
    // x on (1,1) and (3,3), o on (1,2): white's value is 49.589684.
    let game = chapter_game();
    let moves = ["(play 1 1)", "noop", "noop", "(play 1 2)", "(play 3 3)", "noop"];
    let mut args = vec!["heuristic", game.as_str(), "--moves"];
    args.extend(moves);
    let o = latchkey(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("after 3 joint moves: (play 1 1) noop noop (play 1 2) (play 3 3) noop"), "{out}");
    assert!(out.contains("white             49.589684   100: 0.113529  50: 0.862674"), "{out}");
    args.push("--json");
    let report = json(&args);
    assert_eq!(report["roles"][0]["role"], "white");
    assert_eq!(format!("{:.6}", report["roles"][0]["value"].as_f64().unwrap()), "49.589684");
}

#[test]
fn the_centre_is_the_best_opening_of_the_bundled_tictactoe() {
    let value = |cell: &str| {
        let report = json(&["heuristic", "tictactoe", "--moves", cell, "noop", "--json"]);
        report["roles"][0]["value"].as_f64().unwrap()
    };
    let (centre, corner, edge) = (value("(mark 2 2)"), value("(mark 1 1)"), value("(mark 1 2)"));
    assert!(centre > corner && corner > edge, "{centre} {corner} {edge}");
}

#[test]
fn parameters_choose_the_t_norm_and_threshold() {
    let report = json(&["heuristic", "tictactoe", "--tau", "0.8", "--theta", "0.7", "--yager-q", "inf", "--json"]);
    assert_eq!(report["params"]["tau"], 0.8);
    assert_eq!(report["params"]["theta"], 0.7);
    assert_eq!(report["params"]["norm"], "yager q=inf");
    // Under min/max every degree is one of the atoms' degrees: the initial board has no mark,
    // so every line has the degree 1 − τ.
    assert_eq!(format!("{:.6}", report["roles"][0]["goals"][2]["degree"].as_f64().unwrap()), "0.200000");
    let o = latchkey(&["heuristic", "tictactoe", "--yager-q", "2"]);
    assert!(stdout(&o).contains("params     yager q=2 t-norm, tau 0.9, no threshold"), "{}", stdout(&o));
}

#[test]
fn a_state_file_lists_base_propositions_with_or_without_true() {
    let scratch = Scratch::new();
    let state = scratch.file("state.kif", "; a position\n(true (cell 1 1 x))\n(cell 2 2 o) (control xplayer)\n");
    let report = json(&["heuristic", "tictactoe", "--state", state.to_str().unwrap(), "--json"]);
    let props: Vec<&str> = report["propositions"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
    assert_eq!(props, ["(cell 1 1 x)", "(cell 2 2 o)", "(control xplayer)"]);
    assert!(report["state"].as_str().unwrap().starts_with("read from "), "{report}");
}

#[test]
fn latches_zero_a_blocked_cell() {
    // Row 1 is x x o: the o cell will never hold an x again.
    let game = chapter_game();
    let args = ["heuristic", &game, "--moves", "(play 1 1)", "noop", "noop", "(play 1 3)", "(play 1 2)", "noop"];
    let mut with = args.to_vec();
    with.extend(["--latches", "--json"]);
    let report = json(&with);
    let fixed = |key: &str| -> Vec<String> {
        report["latches"][key].as_array().unwrap().iter().map(|p| p.as_str().unwrap().to_owned()).collect()
    };
    assert!(fixed("fixed_false").contains(&"(cell 1 3 x)".to_owned()), "{report}");
    assert!(fixed("fixed_true").contains(&"(cell 1 1 x)".to_owned()), "{report}");
    let mut without = args.to_vec();
    without.push("--json");
    let plain = json(&without);
    assert!(plain["latches"].is_null());
    // With the row blocked for good, white's winning degree drops.
    let win = |r: &serde_json::Value| r["roles"][0]["goals"][2]["degree"].as_f64().unwrap();
    assert!(win(&report) < win(&plain), "{} {}", win(&report), win(&plain));
    let o = latchkey(&with[..with.len() - 1]);
    assert!(stdout(&o).contains("latches    "), "{}", stdout(&o));
}

#[test]
fn bad_input_gets_a_clear_error() {
    let scratch = Scratch::new();
    let bad_state = scratch.file("bad.kif", "(cell 9 9 x)\n");
    let rule = scratch.file("rule.kif", "(<= p q)\n");
    let cases: &[(&[&str], &str)] = &[
        (&["--tau", "1"], "tau must be greater than 0.5 and less than 1, not 1"),
        (&["--tau", "0.8", "--theta", "0.85"], "theta must be greater than 0.5 and at most tau (0.8), not 0.85"),
        (&["--theta", "0.5"], "theta must be greater than 0.5"),
        (&["--yager-q", "-1"], "the Yager parameter q must be at least 0"),
        (
            &["--moves", "(mark 1 1)"],
            "one move per role for each joint move (2 roles: xplayer, oplayer), but 1 move was",
        ),
        (
            &["--moves", "(mark 4 4)", "noop"],
            "joint move 1: (mark 4 4) is not a legal move of xplayer (legal: (mark 1 1)",
        ),
        (&["--moves", "noop", "noop"], "joint move 1: noop is not a legal move of xplayer"),
        (&["--moves", "(mark 1", "noop"], "\"(mark 1\" is not a ground KIF term"),
        (&["--state", bad_state.to_str().unwrap()], "bad.kif:1:1: (cell 9 9 x) is not a base proposition of the game"),
        (&["--state", rule.to_str().unwrap()], "rule.kif:1:1: expected a base proposition, found a rule"),
        (&["--state", "/no/such/file"], "cannot read /no/such/file"),
    ];
    for (extra, message) in cases {
        let mut args = vec!["heuristic", "tictactoe"];
        args.extend(extra.iter());
        let o = latchkey(&args);
        assert!(!o.status.success(), "{args:?} succeeded");
        assert_eq!(stderr(&o).matches(message).count(), 1, "{args:?}: said once: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{args:?}: {}", stderr(&o));
    }
    let unclosed = scratch.file("unclosed.kif", "(role x)\n(init (a)\n");
    let o = latchkey(&["heuristic", unclosed.to_str().unwrap()]);
    let message = "unclosed.kif:2:1: syntax error: unclosed '('";
    assert_eq!(stderr(&o).matches(message).count(), 1, "said once: {}", stderr(&o));
}
