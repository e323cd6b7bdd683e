//! `latchkey replay`: the page it writes from each kind of record, checked in a real headless
//! Chromium: it loads without errors, and stepping through it (buttons, keys, the slider, the
//! move list, the match chooser) shows on the board exactly the cells `latchkey board` finds after
//! the same moves.

mod browser;
mod common;
use browser::Browser;
use common::*;
use serde_json::Value;
use std::path::Path;

/// Runs `latchkey` with `args`, which must succeed; returns standard output.
fn run(args: &[&str]) -> String {
    let o = latchkey(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

/// The occupied cells after the joint moves `moves` of `game`, as `latchkey board --json`
/// finds them: (coordinates joined by spaces, content), sorted.
fn cells_after(game: &str, moves: &[Vec<String>]) -> Vec<(String, String)> {
    let mut args = vec!["board".to_owned(), game.to_owned(), "--json".to_owned()];
    if !moves.is_empty() {
        args.push("--moves".to_owned());
        args.extend(moves.iter().flatten().cloned());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let report: Value = serde_json::from_str(&run(&args)).expect("JSON");
    let mut cells: Vec<(String, String)> = report["view"]["cells"]
        .as_array()
        .expect("a board")
        .iter()
        .map(|c| {
            let at: Vec<&str> = c["at"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
            (at.join(" "), c["content"].as_str().unwrap().to_owned())
        })
        .collect();
    cells.sort();
    cells
}

/// The pieces on the page's board: (coordinates, content), sorted.
fn cells_shown(b: &mut Browser) -> Vec<(String, String)> {
    let found =
        b.eval("[...document.querySelectorAll('#board [data-content]')].map(e => [e.dataset.at, e.dataset.content])");
    let mut cells: Vec<(String, String)> = found
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_str().unwrap().to_owned(), p[1].as_str().unwrap().to_owned()))
        .collect();
    cells.sort();
    cells
}

fn step_shown(b: &mut Browser) -> usize {
    b.eval("Number(document.getElementById('step').value)").as_u64().unwrap() as usize
}

fn moves_of(record: &Value) -> Vec<Vec<String>> {
    serde_json::from_value(record["moves"].clone()).expect("moves")
}

#[test]
fn a_match_report_replays_step_by_step_in_a_browser() {
    let scratch = Scratch::new();
    let report_path = scratch.path("report.json");
    let report = run(&[
        "match",
        "tictactoe",
        "--players",
        "mcts,random",
        "--games",
        "2",
        "--startclock",
        "1",
        "--playclock",
        "0.2",
        "--json",
    ]);
    std::fs::write(&report_path, &report).unwrap();
    let page = scratch.path("report.html");
    let said = run(&["replay", report_path.to_str().unwrap(), "-o", page.to_str().unwrap()]);
    assert!(said.contains("2 matches"), "{said}");
    let report: Value = serde_json::from_str(&report).unwrap();
    let matches = report["matches"].as_array().unwrap();
    let first = moves_of(&matches[0]);
    let second = moves_of(&matches[1]);
    let expected: Vec<Vec<(String, String)>> =
        (0..=first.len()).map(|k| cells_after("tictactoe", &first[..k])).collect();

    let Some(mut b) = Browser::start() else { return };
    b.open(&page);
    assert_eq!(step_shown(&mut b), 0);
    assert_eq!(cells_shown(&mut b), expected[0]);
    // Forward by the button, then by the arrow key.
    b.click("#next");
    assert_eq!(step_shown(&mut b), 1);
    assert_eq!(cells_shown(&mut b), expected[1]);
    b.press("ArrowRight", 39);
    assert_eq!(step_shown(&mut b), 2);
    assert_eq!(cells_shown(&mut b), expected[2]);
    // To the end, and back by the slider.
    b.click("#last");
    assert_eq!(step_shown(&mut b), first.len());
    assert_eq!(cells_shown(&mut b), expected[first.len()]);
    b.eval(
        "(() => { const s = document.getElementById('step'); s.value = 3; s.dispatchEvent(new Event('input')); })()",
    );
    assert_eq!(cells_shown(&mut b), expected[3]);
    // A row of the move list.
    b.click("#moves tbody tr[data-step='1']");
    assert_eq!(cells_shown(&mut b), expected[1]);
    let row = b.eval("document.querySelector('#moves tr.current').textContent");
    assert!(row.as_str().unwrap().contains(&first[0][0]), "{row}");
    // The mcts player's expectations and the times are in the list.
    let list = b.eval("document.getElementById('moves').textContent").as_str().unwrap().to_owned();
    assert!(list.contains("expects "), "{list}");
    let result = b.eval("document.getElementById('result').textContent").as_str().unwrap().to_owned();
    let goals = &matches[0]["goals"];
    assert!(result.contains(&format!("(xplayer) {}", goals[0])), "{result} {goals}");
    // The second match, chosen from the list.
    b.eval(
        "(() => { const m = document.getElementById('match'); m.value = 1; m.dispatchEvent(new Event('change')); })()",
    );
    assert_eq!(step_shown(&mut b), 0);
    b.click("#last");
    assert_eq!(cells_shown(&mut b), cells_after("tictactoe", &second));
    b.click("#first");
    assert_eq!(cells_shown(&mut b), expected[0]);
    b.click("#last");
    assert!(b.errors.is_empty(), "{:?}", b.errors);

    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("replay.png");
    b.screenshot(&shot);
    let png = std::fs::read(&shot).unwrap();
    assert!(png.starts_with(b"\x89PNG") && png.len() > 10_000, "a screenshot of the page");
    eprintln!("screenshot: {}", shot.display());
}

#[test]
fn a_journal_and_a_ggp_base_match_replay_too() {
    let scratch = Scratch::new();
    let journal = scratch.path("t.jsonl");
    let _ = std::fs::remove_file(&journal);
    run(&[
        "tournament",
        "connectfour",
        "--player",
        "random",
        "--player",
        "legal",
        "--rounds",
        "1",
        "--journal",
        journal.to_str().unwrap(),
        "-q",
    ]);
    let page = scratch.path("t.html");
    let said = run(&["replay", journal.to_str().unwrap(), "-o", page.to_str().unwrap()]);
    assert!(said.contains("2 matches"), "{said}");
    let line = std::fs::read_to_string(&journal).unwrap().lines().nth(1).unwrap().to_owned();
    let played: Value = serde_json::from_str(&line).unwrap();
    let moves = moves_of(&played);

    // The same match as GGP-Base's server records it: its spacing, one row of errors per step.
    let spaced: Vec<Vec<String>> =
        moves.iter().map(|j| j.iter().map(|m| m.replace('(', "( ").replace(')', " )")).collect()).collect();
    let ggp = serde_json::json!({
        "matchId": "base.1", "moves": spaced, "states": vec!["( )"; moves.len() + 1],
        "errors": vec![["", ""]; moves.len() + 1], "goalValues": played["goals"],
        "playerNamesFromHost": ["one", "two"], "startTime": 0,
        "stateTimes": (0..=moves.len()).map(|k| 1000 + 10 * k).collect::<Vec<_>>(),
    });
    let base = scratch.path("base.json");
    std::fs::write(&base, ggp.to_string()).unwrap();
    let o = latchkey(&["replay", base.to_str().unwrap(), "-o", scratch.path("x.html").to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("give them with --game FILE"), "{}", stderr(&o));
    let base_page = scratch.path("base.html");
    run(&["replay", base.to_str().unwrap(), "-o", base_page.to_str().unwrap(), "--game", "connectfour"]);

    let Some(mut b) = Browser::start() else { return };
    let last = cells_after("connectfour", &moves);
    for page in [&page, &base_page] {
        b.open(page);
        b.click("#last");
        assert_eq!(step_shown(&mut b), moves.len());
        assert_eq!(cells_shown(&mut b), last, "{}", page.display());
    }
    let title = b.eval("document.getElementById('title').textContent");
    assert_eq!(title, "connectfour \u{2014} base.1");
    assert!(b.errors.is_empty(), "{:?}", b.errors);
}

#[test]
fn a_move_the_rules_do_not_allow_is_named() {
    let scratch = Scratch::new();
    let report =
        run(&["match", "tictactoe", "--players", "random,random", "--games", "1", "--startclock", "1", "--json"]);
    let broken = report.replacen("(mark ", "(mark 9", 1);
    let path = scratch.path("broken.json");
    std::fs::write(&path, broken).unwrap();
    let o = latchkey(&["replay", path.to_str().unwrap(), "-o", scratch.path("broken.html").to_str().unwrap()]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("tictactoe, match 1: joint move 1: (mark 9"), "{err}");
    assert!(err.contains("is not a legal move of xplayer"), "{err}");
}

#[test]
fn a_report_of_a_game_read_from_a_file_finds_its_rules_there() {
    let scratch = Scratch::new();
    let rules = scratch.path("mygame.kif");
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../games/tictactoe.kif"));
    std::fs::write(&rules, text.expect("the bundled tictactoe rules")).unwrap();
    let report = run(&[
        "match",
        rules.to_str().unwrap(),
        "--players",
        "random,random",
        "--games",
        "1",
        "--startclock",
        "1",
        "--json",
    ]);
    let path = scratch.path("mygame.json");
    std::fs::write(&path, report).unwrap();
    let said = run(&["replay", path.to_str().unwrap(), "-o", scratch.path("mygame.html").to_str().unwrap()]);
    assert!(said.contains("1 match"), "{said}");
}
