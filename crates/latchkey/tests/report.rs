//! `latchkey report`: the page it writes holds every section with what the other commands find
//! (read from the page's data), and a real headless Chromium renders it without errors: the
//! rules with their problems at their lines, the board, the analysis drawn on it, the propnet's
//! picture, the faults found in play and the balance plots.

mod browser;
mod common;
use browser::Browser;
use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Writes the report of `game` into `dir` with small counts (`extra` adds flags or replaces
/// these); returns the page's path and data.
fn report(game: &str, dir: &Path, extra: &[&str]) -> (PathBuf, Value) {
    let out = dir.to_str().unwrap();
    let mut args = vec!["report", game, "-o", out];
    for (flag, value) in [("--time", "5"), ("--play", "60"), ("--random-games", "200")] {
        if !extra.contains(&flag) {
            args.extend([flag, value]);
        }
    }
    args.extend_from_slice(extra);
    let o = latchkey(&args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    let page = dir.join("index.html");
    assert!(stdout(&o).contains("index.html"), "{}", stdout(&o));
    (page.clone(), data(&page))
}

/// The data the page's script reads.
fn data(page: &Path) -> Value {
    let html = std::fs::read_to_string(page).expect("the page");
    let start = html.find(r#"<script id="data" type="application/json">"#).expect("data") + 42;
    let end = start + html[start..].find("</script>").expect("end of data");
    serde_json::from_str(&html[start..end].replace("<\\/", "</")).expect("JSON")
}

#[test]
fn the_report_holds_what_the_other_commands_find() {
    let scratch = Scratch::new();
    let dir = scratch.dir();
    let (_, d) = report("tictactoe", dir, &[]);
    assert_eq!(d["game"], "tictactoe");
    assert_eq!(d["summary"]["roles"], serde_json::json!(["xplayer", "oplayer"]));
    assert!(d["rules"]["valid"].as_bool().unwrap());
    assert_eq!(d["rules"]["problems"].as_array().unwrap().len(), 0);
    // The same analysis as `latchkey analyze --json`.
    let analysed = json(&["analyze", "tictactoe", "--time", "5", "--json"]);
    let a = &d["analysis"]["shown"];
    assert_eq!(a["latches"], analysed["latches"]);
    assert_eq!(a["inhibitors"], analysed["inhibitors"]);
    assert_eq!(a["invariants"]["groups"], analysed["invariants"]["groups"]);
    assert_eq!(a["invariants"]["groups"].as_array().unwrap().len(), 10);
    // Every base proposition is read, and those of the board placed on a cell.
    let props = &d["board"]["shown"]["propositions"];
    assert_eq!(props.as_object().unwrap().len(), 29);
    assert_eq!(props["(cell 1 3 x)"]["meaning"], "x on 1 3");
    assert_eq!(props["(cell 1 3 x)"]["at"], "1 3");
    assert_eq!(props["(control oplayer)"]["meaning"], "control: oplayer");
    assert!(props["(control oplayer)"].get("at").is_none());
    // Random games as `check --play` plays them, and the balance as `balance` measures it.
    let play = &d["play"]["shown"];
    assert_eq!((play["played"].as_u64(), play["findings"].as_array().map(Vec::len)), (Some(60), Some(0)));
    let series = &d["balance"]["shown"]["series"][0];
    assert_eq!((series["player"].as_str(), series["games"].as_u64()), (Some("random"), Some(200)));
    assert_eq!(series["verdict"], "favours");
    assert_eq!(series["favoured"], "xplayer");
    assert!(dir.join("balance-random.jsonl").is_file());
    // The net is bigger than a picture holds: the part around xplayer's win.
    let p = &d["propnet"]["shown"];
    assert_eq!(p["around"], "(goal xplayer 100)");
    assert!(p["shown"].as_u64().unwrap() <= 60 && p["nodes"].as_u64().unwrap() > 60);
    // Written again over the last: the journal is replaced, not added to.
    let (_, again) = report("tictactoe", dir, &["--around", "(legal oplayer (mark 2 2))"]);
    assert_eq!(again["balance"]["shown"]["series"][0]["games"], 200);
    assert_eq!(again["propnet"]["shown"]["around"], "(legal oplayer (mark 2 2))");
    let o = latchkey(&[
        "report",
        "tictactoe",
        "-o",
        dir.to_str().unwrap(),
        "--around",
        "(cell 9 9 q)",
        "--play",
        "5",
        "--random-games",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let d = data(&dir.join("index.html"));
    assert!(d["propnet"]["missing"].as_str().unwrap().contains("no proposition (cell 9 9 q)"), "{}", d["propnet"]);
}

#[test]
fn broken_rules_are_marked_at_their_lines_and_nothing_else_is_claimed() {
    let scratch = Scratch::new();
    let dir = scratch.dir();
    let game = dir.join("broken.kif");
    // Line 4 is unsafe: ?x appears only in the head.
    std::fs::write(
        &game,
        "(role a)\n(init p)\n(<= (legal a go) (true p))\n(<= (next (q ?x)) (true p))\n(<= terminal (true p))\n(<= (goal a 100) (true p))\n",
    )
    .unwrap();
    let (page, d) = report(game.to_str().unwrap(), &dir.join("out"), &[]);
    assert!(!d["rules"]["valid"].as_bool().unwrap());
    let problems = d["rules"]["problems"].as_array().unwrap();
    assert!(problems.iter().any(|p| p["line"] == 4 && p["severity"] == "error"), "{problems:?}");
    for section in ["board", "analysis", "propnet", "play", "balance"] {
        assert!(d[section]["missing"].as_str().unwrap().contains("not valid GDL"), "{section}: {}", d[section]);
    }
    // Unreadable KIF: the error at the line of the parenthesis left open.
    let unclosed = dir.join("unclosed.kif");
    std::fs::write(&unclosed, "(role a)\n(init p)\n\n(<= terminal\n    (true p)\n").unwrap();
    let (_, u) = report(unclosed.to_str().unwrap(), &dir.join("out2"), &[]);
    let p = &u["rules"]["problems"][0];
    assert_eq!((p["line"].as_u64(), p["severity"].as_str()), (Some(4), Some("error")), "{p}");

    let Some(mut b) = Browser::start() else { return };
    b.open(&page);
    assert!(b.errors.is_empty(), "{:?}", b.errors);
    let marked = b.eval("document.querySelector('#line-4').className");
    assert_eq!(marked, "error");
    let message = b.eval("document.querySelector('#line-4').nextElementSibling.textContent");
    assert!(message.as_str().unwrap().contains("error"), "{message}");
    let missing = b.eval("document.querySelectorAll('.missing').length");
    assert_eq!(missing, 5);
}

#[test]
fn a_game_of_one_role_has_no_balance_and_a_faulty_game_shows_its_faults() {
    let one = Scratch::new();
    let (_, d) = report("buttonsandlights", one.dir(), &[]);
    assert!(d["balance"]["missing"].as_str().unwrap().contains("one role"), "{}", d["balance"]);
    assert!(d["analysis"].get("shown").is_some());
    let Some(shared) = testkit::shared::locate(env!("CARGO_MANIFEST_DIR"), "report on the corpus") else { return };
    let path = testkit::shared::game(&shared, "3pffa").expect("3pffa in the corpus");
    let many = Scratch::new();
    let (_, d) = report(path.to_str().unwrap(), many.dir(), &["--random-games", "20", "--play", "300"]);
    let play = &d["play"]["shown"];
    assert_eq!(play["findings"][0]["fault"]["kind"], "no_legal_move", "{play}");
    assert!(play["faults"][0].as_str().unwrap().contains("no legal move"), "{play}");
    assert!(play["lines"][0].as_str().unwrap().starts_with("after 1."), "{play}");
}

#[test]
fn the_page_renders_every_section_in_a_browser() {
    let scratch = Scratch::new();
    let dir = scratch.dir();
    let (page, d) = report("breakthrough", dir, &["--random-games", "40", "--play", "20"]);
    let Some(mut b) = Browser::start() else { return };
    b.open(&page);
    assert!(b.errors.is_empty(), "{:?}", b.errors);
    for section in ["summary", "rules", "board", "analysis", "propnet", "play", "balance"] {
        let shown = b.eval(&format!("document.querySelector('#{section} .body').children.length"));
        assert!(shown.as_u64().unwrap() > 0, "{section} is empty");
        let missing = b.eval(&format!("document.querySelectorAll('#{section} .missing').length"));
        assert_eq!(missing, 0, "{section} says it is missing");
    }
    // Every line of the rules, numbered.
    let lines = b.eval("document.querySelectorAll('#listing > div[id^=line-]').length");
    assert_eq!(lines.as_u64().unwrap() as usize, d["rules"]["lines"].as_array().unwrap().len());
    // The initial state's board: 32 pieces.
    let pieces = b.eval("document.querySelectorAll('#board [data-content]').length");
    assert_eq!(pieces, 32);
    // The latches drawn on the board: one marked cell per cell a latch stands on, and hovering a
    // row lights its cell.
    let latches: Vec<&str> = d["analysis"]["shown"]["latches"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["kind"] == "positive")
        .map(|l| l["proposition"].as_str().unwrap())
        .collect();
    let props = &d["board"]["shown"]["propositions"];
    let mut cells: Vec<&str> = latches.iter().filter_map(|p| props[*p]["at"].as_str()).collect();
    cells.sort();
    cells.dedup();
    let part = "[...document.querySelectorAll('#analysis .part')].find(p => p.querySelector('h3').textContent.startsWith('Positive latches'))";
    let marks = b.eval(&format!("{part}.querySelectorAll('.mark').length"));
    assert_eq!(marks.as_u64().unwrap() as usize, cells.len());
    if !cells.is_empty() {
        b.eval(&format!("{part}.querySelector('tbody tr').dispatchEvent(new MouseEvent('mouseenter'))"));
        let lit = b.eval(&format!("{part}.querySelectorAll('.mark.lit').length"));
        assert_eq!(lit, 1);
    }
    // The propnet's picture: as many nodes as it says, the chosen one outlined.
    let nodes = b.eval("document.querySelectorAll('#picture .node').length");
    assert_eq!(nodes, d["propnet"]["shown"]["shown"]);
    // Two plots from the random series: the scores and the lengths.
    let plots = b.eval("document.querySelectorAll('#balance .plots svg').length");
    assert_eq!(plots, 2);
    let verdict = b.eval("document.querySelector('#balance .verdict').textContent");
    assert!(verdict.as_str().unwrap().starts_with("Verdict: "), "{verdict}");
    assert!(b.errors.is_empty(), "{:?}", b.errors);

    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report.png");
    b.screenshot(&shot);
    let png = std::fs::read(&shot).unwrap();
    assert!(png.starts_with(b"\x89PNG") && png.len() > 10_000, "a screenshot of the page");
    eprintln!("screenshot: {}", shot.display());
}
