//! `latchkey balance`: random self-play finds tic-tac-toe's first-player advantage, a searching
//! player draws every game; journals are written and the JSON says what the text does.

mod common;
use common::*;

use serde_json::Value;

#[test]
fn tictactoe_favours_the_first_player_at_random_and_no_one_under_search() {
    let scratch = Scratch::new();
    let prefix = scratch.path("ttt");
    let args = [
        "balance",
        "tictactoe",
        "--random-games",
        "400",
        "--games",
        "6",
        "--playclock",
        "0.2",
        "--startclock",
        "1",
        "--journal",
        prefix.to_str().expect("path"),
        "--json",
    ];
    let report: Value = json(&args);
    assert_eq!(report["roles"], serde_json::json!(["xplayer", "oplayer"]));
    let [random, searched] = report["series"].as_array().expect("series").as_slice() else { panic!("{report}") };
    assert_eq!((random["player"].as_str(), random["games"].as_u64()), (Some("random"), Some(400)));
    assert_eq!((random["verdict"].as_str(), random["favoured"].as_str()), (Some("favours"), Some("xplayer")));
    let x = &random["seats"][0];
    let (wins, draws, losses) = (x["wins"].as_u64(), x["draws"].as_u64(), x["losses"].as_u64());
    assert_eq!(wins.zip(draws).zip(losses).map(|((w, d), l)| w + d + l), Some(400));
    assert!(x["edge"]["mean"].as_f64().expect("edge") - x["edge"]["half_width"].as_f64().expect("interval") > 0.0);
    assert_eq!(random["seats"][1]["wins"], x["losses"]);
    // A game of tic-tac-toe lasts five to nine joint moves.
    let lengths = random["lengths"].as_object().expect("lengths");
    assert!(lengths.keys().all(|l| (5..=9).contains(&l.parse::<u32>().expect("a length"))), "{lengths:?}");
    assert_eq!(lengths.values().map(|n| n.as_u64().expect("a count")).sum::<u64>(), 400);
    assert_eq!((searched["player"].as_str(), searched["games"].as_u64()), (Some("mcts"), Some(6)));
    assert_eq!(searched["verdict"], "balanced", "{searched}");
    // Each series' matches are in its journal, a line each after the settings.
    for (series, file) in [(random, "ttt-random.jsonl"), (searched, "ttt-mcts.jsonl")] {
        let path = scratch.path(file);
        assert_eq!(series["journal"].as_str(), path.to_str());
        let lines = std::fs::read_to_string(&path).expect("the journal").lines().count() as u64;
        assert_eq!(lines, series["games"].as_u64().expect("games") + 1);
    }
    // The journal is never overwritten.
    let again = latchkey(&args);
    assert!(!again.status.success());
    assert!(stderr(&again).contains("ttt-random.jsonl"), "{}", stderr(&again));
}

#[test]
fn a_game_of_one_role_has_no_seats_to_compare() {
    let o = latchkey(&["balance", "eightpuzzle", "--games", "0", "--random-games", "10"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("eightpuzzle has one role: balance compares the seats of a game of two roles or more"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_text_shows_each_seat_and_the_verdict() {
    let scratch = Scratch::new();
    let prefix = scratch.path("c4");
    let o = latchkey(&[
        "balance",
        "connectfour",
        "--random-games",
        "200",
        "--games",
        "0",
        "--journal",
        prefix.to_str().expect("path"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("random against itself: 200 games in "), "{out}");
    assert!(out.contains("seat  ") && out.contains("95% CI") && out.contains("edge"), "{out}");
    assert!(out.contains("\nlength    ") && out.contains("joint moves, median "), "{out}");
    assert!(out.contains("\nverdict   "), "{out}");
}
