//! `latchkey check --play`: random games that find broken rules, one small broken game per kind
//! of fault, and the known faults of the public corpus.

mod common;
use common::*;

use serde_json::Value;
use std::path::{Path, PathBuf};

/// A sound game: two roles take turns adding 1 or 2 to a count from 0; whoever brings it to 4 or
/// 5 wins.
const COUNT: &str = "
(role a) (role b)
(num 0) (num 1) (num 2) (num 3) (num 4) (num 5)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)
(init (count 0))
(init (control a))
(<= (legal ?r (add 1)) (true (control ?r)))
(<= (legal ?r (add 2)) (true (control ?r)))
(<= (legal ?r noop) (role ?r) (not (true (control ?r))))
(<= (next (count ?n)) (true (count ?m)) (does ?r (add 1)) (succ ?m ?n))
(<= (next (count ?n)) (true (count ?m)) (does ?r (add 2)) (succ ?m ?k) (succ ?k ?n))
(<= (next (control b)) (true (control a)))
(<= (next (control a)) (true (control b)))
(<= (next (last ?r)) (does ?r (add ?x)))
(<= done (true (count 4)))
(<= done (true (count 5)))
(<= terminal done)
(<= (goal ?r 100) (true (last ?r)))
(<= (goal ?r 0) (role ?r) (not (true (last ?r))))
";

/// `COUNT` with `from` replaced by `to`, written to a file of its own in `scratch`.
fn variant(scratch: &Scratch, name: &str, from: &str, to: &str) -> PathBuf {
    assert!(from.is_empty() || COUNT.contains(from), "{from}");
    let text = if from.is_empty() { format!("{COUNT}{to}") } else { COUNT.replace(from, to) };
    scratch.file(&format!("{name}.kif"), &text)
}

/// `check --play` on `path` with `extra` arguments: whether it succeeded, and its JSON.
fn check(path: &Path, extra: &[&str]) -> (bool, Value) {
    let mut args = vec!["check", path.to_str().expect("a path"), "--play", "100", "--json"];
    args.extend(extra);
    let o = latchkey(&args);
    let report: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&o)));
    (o.status.success(), report)
}

/// The kinds of fault found, each with its role (or proposition, or move) where it names one.
fn faults(report: &Value) -> Vec<String> {
    let findings = report["play"]["findings"].as_array().expect("findings");
    findings
        .iter()
        .map(|f| {
            let fault = &f["fault"];
            let what = ["role", "proposition", "move"].iter().filter_map(|k| fault[k].as_str()).collect::<Vec<_>>();
            format!("{} {}", fault["kind"].as_str().expect("kind"), what.join(" ")).trim().to_owned()
        })
        .collect()
}

#[test]
fn a_sound_game_passes_and_says_what_it_played() {
    let scratch = Scratch::new();
    let (ok, report) = check(&variant(&scratch, "count", "", ""), &[]);
    assert!(ok, "{report}");
    assert_eq!(faults(&report), Vec::<String>::new());
    let play = &report["play"];
    assert_eq!(
        (play["asked"].as_u64(), play["played"].as_u64(), play["ended"].as_u64()),
        (Some(100), Some(100), Some(100))
    );
    assert_eq!(play["engine"], "propnet");
    // Two to four joint moves, whoever plays.
    assert_eq!((play["length"][0].as_u64(), play["length"][1].as_u64()), (Some(2), Some(4)));
    let o = latchkey(&["check", "tictactoe", "--play", "50"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("play       50 random games on the propnet in "), "{}", stdout(&o));
    assert!(stdout(&o).contains("faults     none"), "{}", stdout(&o));
}

#[test]
fn a_role_without_a_legal_move_is_found_with_the_line_that_reaches_it() {
    let scratch = Scratch::new();
    // The waiting role has no noop once the count is 2: a, after it added 2; b, after each
    // added 1.
    let path =
        variant(&scratch, "stuck", "(not (true (control ?r))))", "(not (true (control ?r))) (not (true (count 2))))");
    let (ok, report) = check(&path, &[]);
    assert!(!ok);
    assert_eq!(faults(&report), ["no_legal_move a", "no_legal_move b"], "{report}");
    let findings = &report["play"]["findings"];
    assert_eq!(findings[0]["line"], serde_json::json!([["(add 2)", "noop"]]));
    assert_eq!(findings[1]["line"], serde_json::json!([["(add 1)", "noop"], ["noop", "(add 1)"]]));
    let o = latchkey(&["check", path.to_str().expect("path"), "--play", "100"]);
    let out = stdout(&o);
    assert!(out.contains("faults     2\n  a has no legal move in a state that has not ended (in "), "{out}");
    assert!(out.contains("    after 1. (add 2) noop\n"), "{out}");
    assert!(out.contains("    after 1. (add 1) noop  2. noop (add 1)\n"), "{out}");
    // The reasoner finds the same.
    let (_, report) = check(&path, &["--engine", "reasoner"]);
    assert_eq!(faults(&report), ["no_legal_move a", "no_legal_move b"]);
    assert_eq!(report["play"]["engine"], "reasoner");
}

#[test]
fn ended_states_without_one_goal_value_from_0_to_100_are_found() {
    let scratch = Scratch::new();
    let none = variant(&scratch, "nogoal", "(<= (goal ?r 0) (role ?r) (not (true (last ?r))))", "");
    let (ok, report) = check(&none, &[]);
    assert!(!ok);
    let mut found = faults(&report);
    found.sort();
    assert_eq!(found, ["no_goal a", "no_goal b"], "{report}");
    let several = variant(&scratch, "several", "(role ?r) (not (true (last ?r))))", "(role ?r))");
    let (_, report) = check(&several, &[]);
    let found = faults(&report);
    assert!(
        found.contains(&"several_goals a".to_owned()) && found.contains(&"several_goals b".to_owned()),
        "{found:?}"
    );
    assert_eq!(report["play"]["findings"][0]["fault"]["values"], serde_json::json!([0, 100]));
    let high = variant(&scratch, "high", "(goal ?r 100)", "(goal ?r 150)");
    let (_, report) = check(&high, &[]);
    let found = faults(&report);
    assert!(found.contains(&"goal_out_of_range a".to_owned()), "{found:?}");
    assert!(report["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .any(|p| p.as_str().expect("text").contains("'150'")));
}

#[test]
fn games_that_do_not_end_and_roles_that_never_choose_are_found() {
    let scratch = Scratch::new();
    // Past 5 the count is lost and nothing ends the game.
    let endless = variant(&scratch, "endless", "(<= done (true (count 5)))", "");
    let (ok, report) = check(&endless, &["--steps", "40"]);
    assert!(!ok);
    assert!(faults(&report).contains(&"no_end".to_owned()), "{report}");
    let finding =
        report["play"]["findings"].as_array().expect("findings").iter().find(|f| f["fault"]["kind"] == "no_end");
    assert_eq!(finding.expect("no_end")["line"].as_array().expect("line").len(), 40);
    // b may only add 1.
    let passive = variant(
        &scratch,
        "passive",
        "(<= (legal ?r (add 2)) (true (control ?r)))",
        "(<= (legal a (add 2)) (true (control a)))",
    );
    let (ok, report) = check(&passive, &[]);
    assert!(!ok);
    assert_eq!(faults(&report), ["never_chooses b"]);
}

#[test]
fn states_and_moves_the_declarations_leave_out_are_found() {
    let scratch = Scratch::new();
    let declared = "(<= (base (count ?n)) (num ?n)) (<= (base (control ?r)) (role ?r)) \
                    (<= (input ?r (add 1)) (role ?r)) (<= (input ?r (add 2)) (role ?r))";
    let (ok, report) = check(&variant(&scratch, "declared", "", declared), &[]);
    assert!(!ok);
    let mut found = faults(&report);
    found.sort();
    assert_eq!(
        found,
        ["undeclared_base (last a)", "undeclared_base (last b)", "undeclared_input a noop", "undeclared_input b noop"]
    );
    // Declared in full, nothing is found.
    let whole = format!("{declared} (<= (base (last ?r)) (role ?r)) (<= (input ?r noop) (role ?r))");
    let (ok, report) = check(&variant(&scratch, "whole", "", &whole), &[]);
    assert!(ok, "{report}");
}

#[test]
fn rules_without_terminal_are_not_a_game_and_are_not_played() {
    let scratch = Scratch::new();
    let path = variant(&scratch, "unending", "(<= terminal done)", "");
    let o = latchkey(&["check", path.to_str().expect("path")]);
    assert!(!o.status.success(), "an error: {}", stdout(&o));
    assert!(stdout(&o).contains("error: no rule defines 'terminal': no game ever ends"), "{}", stdout(&o));
    // Not a whole game, so no random game is played on it.
    let (ok, report) = check(&path, &["--steps", "30"]);
    assert!(!ok);
    assert_eq!(report["valid"], false, "{report}");
    assert!(report.get("play").is_none(), "{report}");
}

#[test]
fn the_known_faults_of_the_corpus_are_found() {
    let Some(shared) = testkit::shared::locate(env!("CARGO_MANIFEST_DIR"), "check --play on the corpus") else {
        return;
    };
    for (name, fault) in
        [("3pffa", "no_legal_move"), ("4pffa", "no_legal_move"), ("pentago", "several_goals"), ("sokoban", "no_end")]
    {
        let path = testkit::shared::game(&shared, name).unwrap_or_else(|| panic!("{name} in the corpus"));
        let o = latchkey(&["check", path.to_str().expect("path"), "--play", "--json"]);
        assert!(!o.status.success(), "{name}");
        let report: Value = serde_json::from_slice(&o.stdout).expect("JSON");
        assert!(faults(&report).iter().any(|f| f.starts_with(fault)), "{name}: {report}");
    }
    for name in ["ticTacToe", "connectFour", "breakthrough", "checkers"] {
        let path = testkit::shared::game(&shared, name).unwrap_or_else(|| panic!("{name} in the corpus"));
        let o = latchkey(&["check", path.to_str().expect("path"), "--play", "--json"]);
        assert!(o.status.success(), "{name}: {}", stdout(&o));
    }
}
