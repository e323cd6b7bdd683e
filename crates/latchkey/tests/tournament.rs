//! `latchkey tournament` as a user runs it: killed at random points and resumed until it ends,
//! with every match counted once; external players it starts itself (`cmd:`); an SPRT that
//! decides; and inputs it refuses with a clear message.

mod common;

use common::{json, latchkey, stderr, stdout, Scratch};
use std::collections::HashSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// The keys (game, pairing, round, seating) of the matches in a journal, in order.
fn keys(journal: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(journal).expect("the journal");
    text.lines()
        .skip(1)
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            format!("{} {} {} {}", v["game"], v["pairing"], v["round"], v["turn"])
        })
        .collect()
}

#[test]
fn a_tournament_killed_at_random_points_resumes_with_every_match_counted_once() {
    let scratch = Scratch::new();
    let journal = scratch.path("t.jsonl");
    let journal = journal.to_str().unwrap();
    let first = [
        "tournament",
        "tictactoe",
        "--players",
        "mcts:threads=1,random",
        "--rounds",
        "6",
        "--startclock",
        "1",
        "--playclock",
        "0.05",
        "--concurrency",
        "2",
        "--quiet",
        "--journal",
        journal,
    ];
    // Kill points drawn from a fixed seed (a simple LCG): 0.2 to 1.4 s into each run.
    let mut state = 0x2545_f491_u64;
    let mut kills = 0;
    let mut finished = false;
    for attempt in 0..40 {
        let args: Vec<&str> = if attempt == 0 { first.to_vec() } else { vec!["tournament", "--resume", journal, "-q"] };
        let mut child = Command::new(env!("CARGO_BIN_EXE_latchkey"))
            .args(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("runs");
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let wait = Duration::from_millis(200 + (state >> 33) % 1200);
        std::thread::sleep(wait);
        if child.try_wait().expect("waits").is_some() {
            finished = true;
            break;
        }
        child.kill().expect("kills");
        child.wait().expect("reaped");
        kills += 1;
    }
    assert!(finished, "the tournament never ended");
    assert!(kills > 0, "no kill happened: the test proves nothing");
    let keys = keys(Path::new(journal));
    let unique: HashSet<&String> = keys.iter().collect();
    assert_eq!((keys.len(), unique.len()), (12, 12), "{keys:?}");
    // The report counts each of them once.
    let report = json(&["tournament", "--resume", journal, "--json"]);
    assert_eq!(report["matches"], 12, "{report}");
    assert_eq!(report["pairings"][0]["units"], 6, "{report}");
    assert_eq!(report["interrupted"], false);
}

#[test]
fn external_players_are_started_pinned_and_stopped() {
    let scratch = Scratch::new();
    let journal = scratch.path("t.jsonl");
    let serve = format!(
        "served=cmd:{} serve --host 127.0.0.1 --port {{port}} --player random --margin 0.3",
        env!("CARGO_BIN_EXE_latchkey")
    );
    let args = [
        "tournament",
        "tictactoe",
        "--player",
        "legal",
        "--player",
        &serve,
        "--rounds",
        "2",
        "--startclock",
        "2",
        "--playclock",
        "1",
        "--concurrency",
        "1",
        "--cpus",
        "0-1",
        "--journal",
        journal.to_str().unwrap(),
        "--json",
    ];
    let o = latchkey(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(report["matches"], 4, "{report}");
    let served = &report["standings"][1];
    assert_eq!((&served["late"], &served["illegal"], &served["errors"]), (&0.into(), &0.into(), &0.into()), "{report}");
    // One log per started player, at most one per concurrent seat it held; all of them stopped.
    let logs: Vec<_> = std::fs::read_dir(scratch.path("t.jsonl.logs")).expect("the logs").collect();
    assert!((1..=2).contains(&logs.len()), "{logs:?}");
    let running = Command::new("pgrep").args(["-f", "--player random --margin 0.3"]).output();
    if let Ok(o) = running {
        assert!(stdout(&o).trim().is_empty(), "a started player is still running: {}", stdout(&o));
    }
}

#[test]
fn an_sprt_stops_a_pairing_when_it_decides() {
    let scratch = Scratch::new();
    let journal = scratch.path("t.jsonl");
    let report = json(&[
        "tournament",
        "tictactoe",
        "--players",
        "alphabeta,random",
        "--sprt",
        "0,50",
        "--startclock",
        "1",
        "--playclock",
        "0.1",
        "--journal",
        journal.to_str().unwrap(),
        "--json",
    ]);
    let pairing = &report["pairings"][0];
    assert_eq!(pairing["verdict"], "accept_h1", "{report}");
    let decided = pairing["decided_after"].as_u64().expect("decided");
    assert_eq!(pairing["matches"].as_u64(), Some(decided), "one match at a time: none after the decision");
    assert!(pairing["llr"].as_f64().unwrap() >= pairing["bounds"][1].as_f64().unwrap(), "{report}");
    assert!(decided < 200, "{report}");
    let counts: u64 = pairing["pentanomial"].as_array().unwrap().iter().map(|c| c.as_u64().unwrap()).sum();
    assert_eq!(counts * 2, decided);
}

#[test]
fn bad_tournaments_are_refused_with_a_clear_message() {
    let scratch = Scratch::new();
    let journal = scratch.path("t.jsonl");
    let j = journal.to_str().unwrap();
    let refused = |args: &[&str], says: &str| {
        let o = latchkey(args);
        assert!(!o.status.success(), "{args:?} was accepted");
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    };
    refused(
        &["tournament", "tictactoe", "--players", "random,http://127.0.0.1:9", "--playclock", "0.5", "--journal", j],
        "the GGP protocol speaks whole seconds: the play clock of 0.5 s cannot be told to http://127.0.0.1:9",
    );
    refused(
        &["tournament", "tictactoe", "--players", "random,legal", "--sprt", "50,0", "--journal", j],
        "elo0 (50) must be less than elo1 (0)",
    );
    refused(&["tournament", "tictactoe", "--players", "random", "--journal", j], "at least two players");
    refused(&["tournament", "buttonsandlights", "--players", "random,legal", "--journal", j], "has one role");
    refused(&["tournament", "tictactoe", "--player", "x=cmd:sleep 1", "--player", "random", "--journal", j], "{port}");
    // An existing journal is never overwritten.
    std::fs::write(&journal, "").unwrap();
    refused(&["tournament", "tictactoe", "--players", "random,legal", "--journal", j], "give --resume");
    refused(&["tournament", "--resume", j], "an empty journal");
    std::fs::write(&journal, "{\"kind\":\"match\"}\n").unwrap();
    refused(&["tournament", "--resume", j], "t.jsonl:1: not a journal line");
}
