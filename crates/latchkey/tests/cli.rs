//! The command line as a user meets it: exit codes, messages and output formats.

mod common;
use common::*;

use std::path::PathBuf;

#[test]
fn check_reports_a_bundled_game() {
    let o = latchkey(&["check", "tictactoe"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("roles      xplayer, oplayer"), "{out}");
    assert!(out.contains("valid GDL"), "{out}");
}

#[test]
fn every_bundled_game_is_valid_and_playable() {
    let o = latchkey(&["games"]);
    let names: Vec<String> = stdout(&o).lines().map(str::to_owned).collect();
    assert_eq!(
        names,
        [
            "tictactoe",
            "dualtictactoe",
            "tallytictactoe",
            "connectfour",
            "buttonsandlights",
            "multiplebuttonsandlights",
            "fadinglights",
            "untwistycorridor",
            "eightpuzzle",
            "fifteenpuzzle",
            "breakthrough",
            "breakthroughsmall"
        ]
    );
    for name in &names {
        let o = latchkey(&["check", name, "--json"]);
        assert!(o.status.success(), "{name}: {}", stdout(&o));
        let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        assert_eq!(report["problems"].as_array().map(Vec::len), Some(0), "{name}: {report}");
        let o = latchkey(&["playout", name, "-n", "50", "--json"]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let stats: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        assert_eq!(stats["terminal"], 50, "{name}: every playout must end in a terminal state: {stats}");
        assert_eq!(stats["goal_errors"].as_array().unwrap().iter().filter(|e| **e != 0).count(), 0, "{stats}");
    }
}

#[test]
fn invalid_rules_name_file_line_and_column_and_fail() {
    let scratch = Scratch::new();
    let path =
        scratch.file("unsafe.kif", "(role r)\n(init (cell a))\n(<= (legal r (move ?x ?y))\n    (true (cell ?x)))\n");
    let o = latchkey(&["check", path.to_str().unwrap()]);
    assert!(!o.status.success());
    let out = stdout(&o);
    assert!(out.contains("unsafe.kif:3:1: error: unsafe rule: variable ?y occurs in the head"), "{out}");
    assert!(out.contains("NOT valid GDL"), "{out}");
    // Other commands refuse the game with the same message.
    let o = latchkey(&["playout", path.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("unsafe.kif:3:1"), "{}", stderr(&o));
}

#[test]
fn syntax_errors_are_located() {
    let scratch = Scratch::new();
    let path = scratch.file("unclosed.kif", "(role r)\n\n  (<= (legal r a)\n");
    let o = latchkey(&["check", path.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("unclosed.kif:3:3: syntax error: unclosed '('"), "{}", stderr(&o));
    // As JSON too: a report whose problem is the syntax error.
    let o = latchkey(&["check", path.to_str().unwrap(), "--json"]);
    assert!(!o.status.success());
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(report["valid"], false, "{report}");
    assert!(report["problems"][0].as_str().unwrap().contains("unclosed.kif:3:3: syntax error: unclosed '('"));
}

#[test]
fn a_propnet_build_keeps_its_deadline_or_says_how_far_past_it_stopped() {
    let o = latchkey(&["propnet", "tictactoe", "--time", "10", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(report["late_secs"], 0.0, "{report}");
    assert!(report["layout_secs"].as_f64().is_some(), "{report}");
    // A millisecond is not enough for breakthrough.
    let o = latchkey(&["propnet", "breakthrough", "--time", "0.001"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("s past its deadline"), "{}", stderr(&o));
}

/// A whole game: one role, one move, over at once.
const TINY: &str = "(role a)\n(init (p))\n(<= (legal a go) (true (p)))\n(<= (next (q)) (does a go))\n\
                    (<= terminal (true (q)))\n(<= (goal a 100) (true (q)))\n(<= (goal a 0) (true (p)))\n";

#[test]
fn bad_games_are_said_clearly() {
    let scratch = Scratch::new();
    // GDL-II: with nature (a random role) refused by every command, naming the rules.
    let gdl_ii = format!("{TINY}(role random)\n(<= (legal random noop))\n(<= (sees a (saw ?m)) (does random ?m))\n");
    let path = scratch.file("nature.kif", &gdl_ii);
    let o = latchkey(&["check", path.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(stdout(&o).contains("nature.kif:8:1: error: GDL-II: role 'random' is nature"), "{}", stdout(&o));
    assert!(stdout(&o).contains("'sees' rules (line 10)"), "{}", stdout(&o));
    let o = latchkey(&["match", path.to_str().unwrap(), "--players", "random,random", "--games", "1"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("GDL-II: role 'random' is nature"), "{}", stderr(&o));
    // Without nature it is played as GDL, and check says so.
    let path = scratch.file("hidden.kif", &format!("{TINY}(<= (sees a (saw ?m)) (does a ?m))\n"));
    let o = latchkey(&["check", path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stdout(&o));
    assert!(stdout(&o).contains("every role sees every move"), "{}", stdout(&o));
    let o = latchkey(&["match", path.to_str().unwrap(), "--players", "random", "--games", "1", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));

    // No terminal or goal rules: not a game.
    let path = scratch.file("endless.kif", "(role a)\n(init (p))\n(<= (legal a go) (true (p)))\n");
    let o = latchkey(&["check", path.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(stdout(&o).contains("error: no rule defines 'terminal'"), "{}", stdout(&o));
    assert!(stdout(&o).contains("error: no rule defines 'goal'"), "{}", stdout(&o));

    // A byte-order mark is skipped, not read as part of the first relation's name.
    let with_mark =
        latchkey(&["check", scratch.file("mark.kif", &format!("\u{feff}{TINY}")).to_str().unwrap(), "--json"]);
    let without = latchkey(&["check", scratch.file("plain.kif", TINY).to_str().unwrap(), "--json"]);
    let counts = |o: &std::process::Output| {
        let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        (report["relations"].clone(), report["roles"].clone(), report["valid"].clone())
    };
    assert_eq!(counts(&with_mark), counts(&without));
    assert_eq!(counts(&without).2, true);

    // Clocks and counts of zero.
    for (flag, value, message) in [
        ("--games", "0", "must be at least 1"),
        ("--playclock", "0", "must be a number of seconds above 0"),
        ("--startclock", "0", "must be a number of seconds above 0"),
    ] {
        let o = latchkey(&["match", "tictactoe", "--players", "random,random", flag, value]);
        assert!(!o.status.success(), "{flag} {value}");
        assert!(stderr(&o).contains(message), "{flag} {value}: {}", stderr(&o));
    }

    // A remote player nobody answers for.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let url = format!("http://{closed}");
    let o = latchkey(&["match", "tictactoe", "--players", &format!("{url},random"), "--games", "1"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains(&format!("cannot reach the player at {url}")), "{}", stderr(&o));
}

#[test]
fn unknown_games_and_garbage_files_fail_cleanly() {
    let scratch = Scratch::new();
    let o = latchkey(&["check", "no-such-game"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("no such file or bundled game: no-such-game"), "{}", stderr(&o));
    let path = scratch.file("garbage.kif", "\u{0}\u{1}((((\u{fffd} ?");
    let o = latchkey(&["check", path.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("garbage.kif:1:"), "{}", stderr(&o));
}

#[test]
fn perft_prints_the_tree_counts() {
    let o = latchkey(&["perft", "tictactoe", "--depth", "3", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let result: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let states: Vec<u64> = result["levels"].as_array().unwrap().iter().map(|l| l["states"].as_u64().unwrap()).collect();
    assert_eq!(states, [9, 72, 252]);
}

#[test]
fn depth_first_perft_counts_every_path() {
    // Tic-tac-toe's known game tree: 1,440 games end at the fifth move, 5,328 at the sixth.
    let o = latchkey(&["perft", "tictactoe", "--depth", "6", "--depth-first", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let result: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let column = |key: &str| -> Vec<u64> {
        result["levels"].as_array().unwrap().iter().map(|l| l[key].as_u64().unwrap()).collect()
    };
    assert_eq!(column("paths"), [9, 72, 504, 3024, 15120, 54720]);
    assert_eq!(column("terminal_paths"), [0, 0, 0, 0, 1440, 5328]);
    assert_eq!(result["applications"], 9 + 72 + 504 + 3024 + 15120 + 54720, "{result}");
    let o = latchkey(&["perft", "tictactoe", "--depth", "2", "--depth-first"]);
    assert!(stdout(&o).contains("81 joint moves applied, the engine's fastest walk, in"), "{}", stdout(&o));
    // Node by node, the same counts.
    let o = latchkey(&["perft", "tictactoe", "--depth", "6", "--depth-first", "--node-by-node", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let node_by_node: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(node_by_node["levels"], result["levels"]);
    assert_eq!(node_by_node["applications"], result["applications"]);
    let o = latchkey(&["perft", "tictactoe", "--depth", "2", "--depth-first", "--node-by-node"]);
    assert!(stdout(&o).contains("81 joint moves applied, node by node, in"), "{}", stdout(&o));
    // Node by node is a way of walking depth first.
    let o = latchkey(&["perft", "tictactoe", "--node-by-node"]);
    assert!(!o.status.success() && stderr(&o).contains("--depth-first"), "{}", stderr(&o));
}

#[test]
fn conform_passes_on_a_faithful_reference_and_fails_on_a_wrong_one() {
    let scratch = Scratch::new();
    let shared = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    if !shared.join("reference").is_dir() {
        assert!(std::env::var_os("CI").is_none(), "CI must have ../shared");
        eprintln!("WARNING: ../shared not found; conform CLI test skipped");
        return;
    }
    let game = shared.join("games/ticTacToe.kif");
    let reference = shared.join("reference/ticTacToe.jsonl");
    let o = latchkey(&["conform", game.to_str().unwrap(), "--reference", reference.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stdout(&o));
    assert!(stdout(&o).contains("steps checked, 0 mismatches"), "{}", stdout(&o));
    let text = std::fs::read_to_string(&reference).unwrap().replacen("\"states\":72", "\"states\":71", 1);
    let wrong = scratch.file("wrong.jsonl", &text);
    let o = latchkey(&["conform", game.to_str().unwrap(), "--reference", wrong.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(stdout(&o).contains("1 mismatch"), "{}", stdout(&o));
    assert!(stdout(&o).contains("states: expected 71, engine has 72"), "{}", stdout(&o));
}

#[test]
fn propnet_reports_the_net_and_writes_dot() {
    let scratch = Scratch::new();
    let dot = scratch.path("uc.dot");
    let o = latchkey(&["propnet", "untwistycorridor", "--dot", dot.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("optimised   "), "{}", stdout(&o));
    let text = std::fs::read_to_string(&dot).expect("DOT written");
    assert!(text.starts_with("digraph propnet {") && text.contains("(true p)"), "{text}");
    let o = latchkey(&["propnet", "tictactoe", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(report["before"]["bases"], 29, "{report}");
    // Every base and input proposition is a `true` or `does` atom of the grounding.
    let (bases, inputs) = (report["before"]["bases"].as_u64().unwrap(), report["before"]["inputs"].as_u64().unwrap());
    assert!(report["atoms"].as_u64().unwrap() > bases + inputs, "{report}");
    assert!(report["ground_rules"].as_u64().unwrap() > 0, "{report}");
    assert!(report["optimize"]["after"]["nodes"].as_u64() < report["before"]["nodes"].as_u64(), "{report}");
    // The laid-out program: every gate of the optimised net that an output needs, by phase.
    let program = &report["program"];
    let laid: u64 = ["core_gates", "goal_gates", "move_gates"].iter().map(|k| program[k].as_u64().unwrap()).sum();
    assert!(program["core_gates"].as_u64().unwrap() > 0, "{report}");
    assert!(laid <= report["optimize"]["after"]["nodes"].as_u64().unwrap(), "{report}");
}

#[test]
fn bench_measures_both_engines_in_one_run() {
    let o = latchkey(&["bench", "tictactoe", "--secs", "0.3", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let results: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(results["schema"], 1, "{results}");
    let game = &results["games"][0];
    assert!(game["propnet"]["playouts_per_sec"].as_f64().unwrap() > 0.0, "{game}");
    assert!(game["reasoner"]["playouts_per_sec"].as_f64().unwrap() > 0.0, "{game}");
    assert!(game["ratio"].as_f64().is_some(), "{game}");
    // Each engine plays for the time asked, and the whole game's time covers them.
    let played: Vec<f64> = ["propnet", "reasoner"].iter().map(|e| game[e]["elapsed_secs"].as_f64().unwrap()).collect();
    assert!(played.iter().all(|&t| t >= 0.3), "{game}");
    assert!(game["wall_secs"].as_f64().unwrap() >= played.iter().sum::<f64>(), "{game}");
}

#[test]
fn a_game_too_large_for_a_propnet_falls_back_to_the_reasoner() {
    let scratch = Scratch::new();
    // 56^4 = 9.8M atoms of `big`, every one of which the goal may read: more than grounding's
    // cap of 8M, so no propnet is built.
    let numbers: String = (0..56).map(|i| format!("(n {i}) ")).collect();
    let text = format!(
        "(role r) {numbers}\n(<= (big ?a ?b ?c ?d) (n ?a) (n ?b) (n ?c) (n ?d))\n(init (s 0))\n\
         (<= (legal r go) (true (s 0)))\n(<= (next (s 1)) (does r go))\n(<= terminal (true (s 1)))\n\
         (<= (goal r 100) (big ?a ?b ?c ?d) (true (s 1)))\n(<= (goal r 0) (true (s 0)))"
    );
    let path = scratch.file("huge.kif", &text);
    let o = latchkey(&["playout", path.to_str().unwrap(), "-n", "3", "--engine", "propnet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("no propnet for huge (grounding needs more than"), "{}", stderr(&o));
    assert!(stdout(&o).contains("r: average goal 100.00"), "{}", stdout(&o));
}

#[test]
fn analyze_with_a_prover_this_build_lacks_says_which_feature_to_build() {
    let o = latchkey(&["analyze", "untwistycorridor", "--method", "proof", "--prover", "clingo"]);
    assert_eq!(o.status.success(), cfg!(feature = "clingo"), "{}", stderr(&o));
    if !cfg!(feature = "clingo") {
        assert!(stderr(&o).contains("without the clingo prover (cargo feature `clingo`)"), "{}", stderr(&o));
    }
}

#[test]
fn analyze_prints_every_section_for_a_reader() {
    let o = latchkey(&["analyze", "untwistycorridor", "--method", "structural"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for section in [
        "positive latches",
        "negative latches",
        "composite latches",
        "inhibitors",
        "goal inhibitors",
        "goal latches",
        "dead propositions",
        "achievable scores in the initial state",
        "locality of moves: local search off: the search is for two-player games; this one has 1",
        "playout tactics",
        "time per phase",
    ] {
        assert!(out.contains(section), "no {section}: {out}");
    }
    assert!(out.contains("p                                        structural\n"), "{out}");
    assert!(out.lines().any(|l| l.trim_start().starts_with("p inhibits") && l.ends_with(" q8")), "{out}");
}

#[test]
fn analyze_reports_the_locality_of_breakthrough_moves() {
    let o = latchkey(&["analyze", "breakthrough", "--method", "structural", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let l = &report["locality"];
    assert_eq!(l["local_search"], true, "{l}");
    assert!(l["average_distance"].as_f64().unwrap() > 3.0, "{l}");
    let step = l["moves"].as_array().unwrap().iter().find(|m| m["move"] == "(move 3 7 3 8)").expect("a move");
    assert_eq!(step["goal_distance"], 0);
    assert_eq!(l["conditions"][0]["condition"], "terminal");
    assert_eq!(l["conditions"][0]["coupled"], 2);
    let o = latchkey(&["analyze", "breakthrough", "--method", "structural"]);
    let out = stdout(&o);
    assert!(out.contains("locality of moves: local search on"), "{out}");
    assert!(
        out.contains("terminal                       18 disjuncts, 2 coupled (the nearest 8 moves from the start)"),
        "{out}"
    );
}

#[test]
fn analyze_reports_the_outlook_where_there_are_no_pieces() {
    // The fuzzy heuristic needs to know that a mark stays where it is.
    let o = latchkey(&["analyze", "tictactoe", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert!(report["pieces"]["found"].is_null(), "{}", report["pieces"]);
    // Why not, naming the role: no group of propositions there goes with a score.
    let why = report["pieces"]["rejected"].as_str().expect("a reason");
    assert!(why.contains("xplayer") || why.contains("counted as pieces are"), "{why}");
    let curves = report["outlook"]["found"]["curves"].as_array().expect("a confirmed outlook");
    assert_eq!(curves.len(), 2);
    assert_eq!(report["outlook"]["found"]["source"], "fuzzy goal heuristic");
    for c in curves {
        assert!(c["slope"].as_f64().unwrap() > 0.0 && c["holdout_correlation"].as_f64().unwrap() > 0.1, "{c}");
    }
    // Where there are pieces, they give the priors and no outlook is looked for.
    let o = latchkey(&["analyze", "breakthroughsmall", "--method", "structural", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert!(!report["pieces"]["found"].is_null() && report["outlook"].is_null(), "{}", report["pieces"]);
    // Without the exact method's latches, or the invariants that show a mark inhibits its blank,
    // the heuristic cannot see a line blocked for good, and its outlook is not confirmed.
    let o = latchkey(&["analyze", "tictactoe", "--method", "structural", "--no-invariants"]);
    assert!(stdout(&o).contains("outlook (for mcts's priors): not confirmed: "), "{}", stdout(&o));
}

#[test]
fn match_swaps_seats_and_reports_standings() {
    let o = latchkey(&["match", "tictactoe", "--players", "alphabeta,random", "--games", "2", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let series: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(series["matches"][0]["seats"], serde_json::json!([0, 1]));
    assert_eq!(series["matches"][1]["seats"], serde_json::json!([1, 0]));
    assert_eq!(series["standings"][0]["player"], "alphabeta");
    assert_eq!(series["standings"][0]["losses"], 0, "{series}");
    let o = latchkey(&["match", "tictactoe", "--players", "legal,random", "--games", "1", "--quiet"]);
    let out = stdout(&o);
    assert!(o.status.success() && !out.contains("1.1 ") && out.contains("1 game of tictactoe"), "{out}");
}

#[test]
fn match_refuses_unknown_players_and_the_wrong_number_of_them() {
    let o = latchkey(&["match", "tictactoe", "--players", "alphabeta,deepblue"]);
    assert!(!o.status.success());
    assert!(stderr(&o)
        .contains("unknown player \"deepblue\" (built-in players: mcts, mcts-plain, alphabeta, random, legal; or http://host:port)"));
    let o = latchkey(&["match", "tictactoe", "--players", "random"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("1 players for 2 roles"), "{}", stderr(&o));
    let o = latchkey(&["match", "tictactoe", "--players", "random,random", "--playclock=-1"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("invalid value '-1' for '--playclock <SECONDS>': must be a number of seconds"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn solve_prints_an_optimal_plan_and_rejects_bad_limits_and_multiplayer_games() {
    let o = latchkey(&["solve", "eightpuzzle", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let search = &report["search"];
    assert_eq!((&search["score"], &search["optimal"], &search["moves"]), (&100.into(), &true.into(), &20.into()));
    assert_eq!(search["plan"].as_array().map(Vec::len), Some(20), "{report}");

    let o = latchkey(&["solve", "eightpuzzle", "--time=-1"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("must be a number of seconds"), "{}", stderr(&o));

    let o = latchkey(&["solve", "tictactoe"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("single-player game; this one has 2 roles"), "{}", stderr(&o));
}

#[test]
fn every_json_output_names_its_schema() {
    let runs: [(&[&str], u64); 9] = [
        (&["check", "tictactoe", "--json"], 1),
        (&["board", "tictactoe", "--json"], 1),
        (&["playout", "tictactoe", "-n", "5", "--json"], 1),
        (&["perft", "tictactoe", "--depth", "1", "--json"], 1),
        (&["propnet", "tictactoe", "--json"], 1),
        (&["heuristic", "tictactoe", "--json"], 1),
        (&["solve", "buttonsandlights", "--json"], 1),
        (&["analyze", "buttonsandlights", "--json"], 2),
        (&["match", "tictactoe", "--players", "random,random", "--games", "1", "--playclock", "1", "--json"], 2),
    ];
    for (args, schema) in runs {
        let o = latchkey(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        assert_eq!(report["schema"], schema, "{args:?}: {report}");
        // The schema comes first, then the report's own fields.
        assert!(stdout(&o).trim_start().starts_with("{\n  \"schema\""), "{args:?}");
    }
}

#[test]
fn local_finds_a_pawn_race_win_and_rejects_unknown_propositions() {
    let scratch = Scratch::new();
    let state =
        "(control white) (cellholds 4 3 white) (cellholds 1 1 white) (cellholds 1 7 black) (cellholds 8 8 black)";
    let o = latchkey(&["local", "breakthrough", "--state", state, "--time", "5", "--depth", "6", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let white = &report["searches"][0];
    assert_eq!(white["role"], "white");
    assert_eq!(white["win_plies"], 9, "{report}");
    assert_eq!(white["decided"].as_array().map(Vec::len), Some(1), "one winning move: {report}");
    // Positions from a match report: the last position before the end of a random game is won
    // for the player who then won.
    let o = latchkey(&["match", "breakthroughsmall", "--players", "random,random", "--games", "1", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report = scratch.file("series.json", &stdout(&o));
    let from = report.to_str().unwrap();
    let o = latchkey(&["local", "breakthroughsmall", "--from", from, "--before", "1", "--time", "2", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let found: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let searches = found["searches"].as_array().unwrap();
    assert_eq!(searches.len(), 2, "{found}");
    assert!(searches.iter().any(|s| s["win_plies"] == 1), "{found}");
    let o = latchkey(&["local", "breakthrough", "--state", "(cellholds 9 9 white)"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("(cellholds 9 9 white) is not a base proposition of the game"), "{}", stderr(&o));
}

#[test]
fn local_judges_the_moves_played_in_a_match_report() {
    let scratch = Scratch::new();
    let o = latchkey(&["match", "breakthroughsmall", "--players", "random,random", "--games", "2", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report = scratch.file("judged.json", &stdout(&o));
    let from = report.to_str().unwrap();
    let args = ["local", "breakthroughsmall", "--from", from, "--judge", "--before", "4", "--time", "1"];
    let o = latchkey(&[&args[..], &["--json"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let judged: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let players = judged["players"].as_array().expect("players");
    assert_eq!(players.len(), 2, "{judged}");
    let sum = |f: &dyn Fn(&serde_json::Value) -> u64| players.iter().map(f).sum::<u64>();
    let count = |key: &'static str| move |p: &serde_json::Value| p[key].as_array().map_or(0, |a| a.len() as u64);
    // Each match's winner had a forced win before its last move and kept it by ending the game.
    assert!(sum(&|p| p["wins"].as_u64().unwrap()) >= 2, "{judged}");
    let last_moves = players.iter().flat_map(|p| p["let_go"].as_array().unwrap()).filter(|f| f["to_end"] == 1);
    assert_eq!(last_moves.count(), 0, "{judged}");
    // Random play lets that win in: the loser's move before it was lost already or lost by force.
    assert!(sum(&|p| p["lost"].as_u64().unwrap()) + sum(&count("blunders")) >= 2, "{judged}");
    let o = latchkey(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("moves judged"), "{}", stdout(&o));
    // Judging needs a report.
    assert!(!latchkey(&["local", "breakthroughsmall", "--judge"]).status.success());
}

#[test]
fn board_draws_the_state_after_the_moves_and_says_what_it_inferred() {
    let scratch = Scratch::new();
    let o = latchkey(&["board", "tictactoe", "--moves", "(mark 1 1)", "noop", "noop", "( MARK 2  2 )"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "tictactoe (after 2 joint moves: (mark 1 1) noop noop (mark 2 2))\n3  . . .\n2  . o .\n1  x . .\n   1 2 3\ncontrol: xplayer\n"
    );
    let o = latchkey(&["board", "tictactoe", "--moves", "(mark 1 1)", "noop", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(report["inference"]["kind"], "board");
    assert_eq!(report["inference"]["relation"], "cell");
    assert_eq!(report["inference"]["axes"][0]["order"]["by"], "numerals");
    assert_eq!(report["view"]["cells"], serde_json::json!([{ "at": ["1", "1"], "content": "x" }]));
    let o = latchkey(&["board", "buttonsandlights"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("no board: "), "{}", stdout(&o));
    let svg = scratch.file("board.svg", "");
    let o = latchkey(&["board", "tictactoe", "--moves", "(mark 1 1)", "noop", "--svg", svg.to_str().expect("a path")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let drawing = std::fs::read_to_string(&svg).expect("written");
    assert!(drawing.starts_with("<svg ") && drawing.contains(r#"data-at="1 1" data-content="x""#), "{drawing}");
    let o = latchkey(&["board", "tictactoe", "--svg", "/nonexistent-dir/board.svg"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("cannot write /nonexistent-dir/board.svg"), "{}", stderr(&o));
}

#[test]
fn board_refuses_moves_that_are_not_legal_or_not_whole() {
    let o = latchkey(&["board", "tictactoe", "--moves", "(mark 1 1)", "(mark 2 2)"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("(mark 2 2) is not a legal move of oplayer (legal: noop)"), "{}", stderr(&o));
    let o = latchkey(&["board", "tictactoe", "--moves", "(mark 1 1)"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("one move per role for each joint move"), "{}", stderr(&o));
}

#[test]
fn match_draws_the_board_after_each_joint_move() {
    let args = ["match", "tictactoe", "--players", "random,random", "--games", "1", "--startclock", "1", "--board"];
    let o = latchkey(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    let moves: Vec<usize> = (0..lines.len()).filter(|&i| lines[i].starts_with("  1.")).collect();
    assert!(moves.len() >= 5, "{out}");
    for (k, &i) in moves.iter().enumerate() {
        // Three rows, the columns' values, whose turn it is (but after the last move).
        assert_eq!(lines[i + 4], "   1 2 3", "{out}");
        let marks = lines[i + 1..i + 4].iter().flat_map(|l| l.chars().skip(3)).filter(|c| *c == 'x' || *c == 'o');
        assert_eq!(marks.count(), k + 1, "one more mark after each move: {out}");
    }
}
