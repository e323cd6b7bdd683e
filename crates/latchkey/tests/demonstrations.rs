//! The two demonstrations the analysis promises, run through the command line: dead-state
//! removal on Untwisty Corridor (chapter 12) and the latch proofs on Buttons and Lights
//! (chapter 16's exercises).

mod common;
use common::*;

#[test]
fn untwisty_corridor_dead_state_removal_searches_eleven_states_instead_of_21845() {
    let report = json(&["solve", "untwistycorridor", "--stats", "--json"]);
    let search = &report["search"];
    assert_eq!((&search["score"], &search["optimal"], &search["moves"]), (&100.into(), &true.into(), &7.into()));
    let runs = report["exhaustive"].as_array().expect("exhaustive runs");
    let (pruned, plain) = (&runs[0], &runs[1]);
    assert_eq!(pruned["dead_state_removal"], true);
    assert_eq!(plain["dead_state_removal"], false);
    for run in runs {
        assert_eq!(run["score"], 100, "{run}");
        assert_eq!(run["optimal"], true, "{run}");
        assert_eq!(run["plan"], serde_json::json!(["d", "d", "d", "d", "d", "d", "d"]), "{run}");
    }
    // The whole tree: 1 + 4 + … + 4^7 states (see games/untwistycorridor.kif for why not 349,525).
    assert_eq!(plain["stats"]["nodes"], 21_845, "{plain}");
    // The 8 states of the winning line, plus the three terminal states the last a, b and c reach.
    assert_eq!(pruned["stats"]["nodes"], 11, "{pruned}");
    assert_eq!(pruned["stats"]["pruned"], 18, "{pruned}");

    let analysis = json(&["analyze", "untwistycorridor", "--json"]);
    let dead = analysis["dead_propositions"].as_array().expect("dead propositions");
    assert_eq!(dead, &[serde_json::json!({"role": "robot", "proposition": "p", "kind": "positive"})]);
}

#[test]
fn buttons_and_lights_proofs_confirm_step_one_and_refute_every_light() {
    let provers: &[&str] = if cfg!(feature = "clingo") { &["sat", "clingo"] } else { &["sat"] };
    for prover in provers {
        let report = json(&["analyze", "buttonsandlights", "--method", "proof", "--prover", prover, "--json"]);
        let latches = report["latches"].as_array().expect("latches");
        let step_one = latches.iter().find(|l| l["proposition"] == "(step 1)" && l["kind"] == "negative");
        assert_eq!(step_one.map(|l| &l["methods"]), Some(&serde_json::json!(["proof"])), "{report}");
        for light in ["p", "q", "r"] {
            assert!(!latches.iter().any(|l| l["proposition"] == light), "{light} is no latch: {report}");
        }
        assert_eq!(report["proof"]["unknown"], 0, "{report}");
        assert_eq!(report["proof"]["prover"], *prover, "{report}");
    }
}
