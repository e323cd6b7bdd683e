//! `latchkey pie`: the pie-rule variant is valid GDL, plays soundly, conforms between the
//! reasoner and the propnet, follows the original move for move while the swap is not taken, and
//! exchanges the roles when it is; games it does not fit are refused with the reason.

mod common;
use common::*;

use machine::{ConformOptions, StateMachine};
use propnet::PropnetMachine;
use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use rand::SeedableRng;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// The pie variant of `game` written by the command into `scratch`, and its text.
fn variant(scratch: &Scratch, game: &str) -> (PathBuf, String) {
    let path = scratch.path(&format!("{}.kif", game.replace(['/', '.'], "_")));
    let o = latchkey(&["pie", game, "-o", path.to_str().expect("path")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&path).expect("written");
    (path, text)
}

fn machine(label: &str, text: &str) -> (gdl::Description, PropnetMachine) {
    let desc = testkit::load(label, text);
    let m = PropnetMachine::new(&testkit::compile(&desc));
    (desc, m)
}

/// The propositions of a state that are the original game's.
fn original_props<M: StateMachine>(m: &M, state: &M::State) -> BTreeSet<String> {
    m.state_props(state).into_iter().filter(|p| !p.contains("pie_")).collect()
}

/// The state after `joint` (each role's move in KIF) from `state`.
fn play(m: &mut PropnetMachine, state: propnet::PropnetState, joint: [&str; 2]) -> propnet::PropnetState {
    let moves = [m.find_move(0, joint[0]).expect(joint[0]), m.find_move(1, joint[1]).expect(joint[1])];
    m.next_state(&state, &moves).expect("legal")
}

fn legal<M: StateMachine>(m: &mut M, state: &M::State, role: usize) -> BTreeSet<String> {
    m.legal_moves(state, role).expect("legal").iter().map(|mv| m.format_move(mv)).collect()
}

#[test]
fn the_variant_checks_clean_and_conforms() {
    let scratch = Scratch::new();
    let (path, text) = variant(&scratch, "tictactoe");
    let o = latchkey(&["check", path.to_str().expect("path"), "--play"]);
    assert!(o.status.success(), "{}", stdout(&o));
    // The reasoner's trajectories, replayed on the propnet.
    let (desc, mut net) = machine("pie", &text);
    let mut reasoner = reasoner::Reasoner::new(&desc);
    let reference = machine::record(&mut reasoner, "tictactoe-pie", 0..30, 50).expect("recorded");
    let report = machine::conform(&mut net, &reference, &ConformOptions { perft: false, ..ConformOptions::default() });
    assert!(report.is_ok(), "{}", report.render(5));
    assert!(report.steps_checked > 100, "{}", report.summary());
}

#[test]
fn without_the_swap_the_variant_plays_as_the_original() {
    let scratch = Scratch::new();
    let (_, text) = variant(&scratch, "connectfour");
    let mut original = PropnetMachine::new(&testkit::bundled("connectfour").1);
    let (_, mut pie) = machine("pie", &text);
    let mut rng = SmallRng::seed_from_u64(7);
    for _ in 0..30 {
        let (mut a, mut b) = (original.initial_state(), pie.initial_state());
        loop {
            assert_eq!(original_props(&original, &a), original_props(&pie, &b));
            let ended = original.is_terminal(&a).expect("terminal");
            assert_eq!(ended, pie.is_terminal(&b).expect("terminal"));
            if ended {
                for r in 0..2 {
                    assert_eq!(original.goal(&a, r).expect("goal"), pie.goal(&b, r).expect("goal"));
                }
                break;
            }
            let mut joint = Vec::new();
            for r in 0..2 {
                let mine = legal(&mut original, &a, r);
                let mut theirs = legal(&mut pie, &b, r);
                theirs.remove("swap");
                assert_eq!(mine, theirs);
                joint.push(mine.into_iter().collect::<Vec<_>>().choose(&mut rng).expect("a move").clone());
            }
            let find = |m: &PropnetMachine, r: usize, mv: &str| m.find_move(r, mv).expect("a move");
            a = original.next_state(&a, &[find(&original, 0, &joint[0]), find(&original, 1, &joint[1])]).expect("next");
            b = pie.next_state(&b, &[find(&pie, 0, &joint[0]), find(&pie, 1, &joint[1])]).expect("next");
        }
    }
}

#[test]
fn a_swap_keeps_the_position_and_exchanges_the_roles() {
    let scratch = Scratch::new();
    let (_, text) = variant(&scratch, "tictactoe");
    let (_, mut pie) = machine("pie", &text);
    let mut original = PropnetMachine::new(&testkit::bundled("tictactoe").1);
    let start = pie.initial_state();
    assert!(!legal(&mut pie, &start, 0).contains("swap"), "no swap before the first move");
    let first = play(&mut pie, start, ["(mark 2 2)", "noop"]);
    assert!(legal(&mut pie, &first, 1).contains("swap"));
    assert_eq!(legal(&mut pie, &first, 0), BTreeSet::from(["noop".to_owned()]));
    let swapped = play(&mut pie, first.clone(), ["noop", "swap"]);
    assert_eq!(original_props(&pie, &swapped), original_props(&pie, &first), "the position stays");
    // The first seat now plays oplayer, to move; the swap is not offered again.
    let o_moves = legal(&mut pie, &swapped, 0);
    assert_eq!(o_moves.len(), 8, "{o_moves:?}");
    assert!(!o_moves.contains("swap") && legal(&mut pie, &swapped, 1) == BTreeSet::from(["noop".to_owned()]));
    // xplayer's line, now played by the second seat: the first seat (oplayer) loses.
    let mut s = swapped;
    for (seat, mv) in [(0, "(mark 1 1)"), (1, "(mark 1 2)"), (0, "(mark 3 3)"), (1, "(mark 3 2)")] {
        s = play(&mut pie, s, if seat == 0 { [mv, "noop"] } else { ["noop", mv] });
    }
    assert!(pie.is_terminal(&s).expect("terminal"));
    let o_state = original.initial_state();
    let mut o = o_state;
    for (role, mv) in [(0, "(mark 2 2)"), (1, "(mark 1 1)"), (0, "(mark 1 2)"), (1, "(mark 3 3)"), (0, "(mark 3 2)")] {
        o = play(&mut original, o, if role == 0 { [mv, "noop"] } else { ["noop", mv] });
    }
    let scores = |m: &mut PropnetMachine, s| [m.goal(&s, 0).expect("goal"), m.goal(&s, 1).expect("goal")];
    let [x, o_score] = scores(&mut original, o);
    assert_eq!((x, o_score), (100, 0));
    assert_eq!(scores(&mut pie, s), [o_score, x], "each seat scores as the role it plays");
}

#[test]
fn games_the_pie_rule_does_not_fit_are_refused_with_the_reason() {
    let o = latchkey(&["pie", "eightpuzzle"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o)
            .contains("eightpuzzle cannot take the pie rule: the pie rule is for games of two roles; this game has 1"),
        "{}",
        stderr(&o)
    );
    let scratch = Scratch::new();
    let path = scratch.path("together.kif");
    let together = "(role a) (role b) (init (round 0)) (succ 0 1) (succ 1 2)
        (<= (legal ?r (show ?h)) (role ?r) (hand ?h)) (hand odd) (hand even)
        (<= (next (round ?n)) (true (round ?m)) (succ ?m ?n))
        (<= terminal (true (round 2))) (goal a 50) (goal b 50)";
    std::fs::write(&path, together).expect("written");
    let o = latchkey(&["pie", path.to_str().expect("path")]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("together cannot take the pie rule: no role ever waits"), "{}", stderr(&o));
    // Turns at first, then both choose at once.
    let path = scratch.path("then_together.kif");
    let then_together = "(role a) (role b) (init (round 0)) (succ 0 1) (succ 1 2) (opt x) (opt y)
        (<= (legal a (go ?x)) (true (round 0)) (opt ?x)) (<= (legal b noop) (true (round 0)))
        (<= (legal ?r (go ?x)) (role ?r) (true (round 1)) (opt ?x))
        (<= (next (round ?n)) (true (round ?m)) (succ ?m ?n))
        (<= terminal (true (round 2))) (goal a 50) (goal b 50)";
    std::fs::write(&path, then_together).expect("written");
    let o = latchkey(&["pie", path.to_str().expect("path")]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("both roles choose moves in the same state: the game has simultaneous moves"),
        "{}",
        stderr(&o)
    );
    // An output file is never overwritten.
    let existing = scratch.path("existing.kif");
    std::fs::write(&existing, "keep").expect("written");
    let o = latchkey(&["pie", "tictactoe", "-o", existing.to_str().expect("path")]);
    assert!(!o.status.success());
    assert_eq!(std::fs::read_to_string(&existing).expect("kept"), "keep");
}

#[test]
fn the_swap_is_offered_after_the_opener_s_whole_first_turn() {
    // a places and then turns (two joint moves) before b moves.
    let scratch = Scratch::new();
    let game = scratch.path("two_step.kif");
    let text = "(role a) (role b) (init (step a place)) (opt x) (opt y)
        (<= (legal ?r (place ?x)) (true (step ?r place)) (opt ?x))
        (<= (legal ?r (turn ?x)) (true (step ?r turn)) (opt ?x))
        (<= (legal ?r noop) (role ?r) (not (mine ?r)))
        (<= (mine ?r) (true (step ?r ?what)))
        (<= (next (step ?r turn)) (true (step ?r place)))
        (<= (next (step b place)) (true (step a turn)))
        (<= (next (step a place)) (true (step b turn)))
        (<= (next (done ?r)) (true (step ?r turn)))
        (<= (next (done ?r)) (true (done ?r)))
        (<= terminal (true (done b)))
        (<= (goal ?r 100) (role ?r) (true (done ?r)) (not (true (done b))))
        (<= (goal ?r 0) (role ?r) (not (true (done a))))
        (<= (goal b 0) (true (done a)))";
    std::fs::write(&game, text).expect("written");
    let (_, pie) = variant(&scratch, game.to_str().expect("path"));
    let (_, mut m) = machine("pie", &pie);
    let start = m.initial_state();
    let placed = play(&mut m, start, ["(place x)", "noop"]);
    assert!(!legal(&mut m, &placed, 1).contains("swap"), "a has not turned yet");
    let turned = play(&mut m, placed, ["(turn y)", "noop"]);
    assert!(legal(&mut m, &turned, 1).contains("swap"));
    let replied = play(&mut m, turned, ["noop", "(place x)"]);
    let turned_again = play(&mut m, replied, ["noop", "(turn x)"]);
    assert!(!legal(&mut m, &turned_again, 1).contains("swap") && !legal(&mut m, &turned_again, 0).contains("swap"));
}

#[test]
fn every_corpus_variant_conforms_between_reasoner_and_propnet() {
    let Some(shared) = testkit::shared::locate(env!("CARGO_MANIFEST_DIR"), "pie variants of the corpus") else {
        return;
    };
    let scratch = Scratch::new();
    let mut accepted = Vec::new();
    for path in testkit::shared::games_with_propnet(&shared) {
        let name = testkit::shared::stem(&path);
        let out = scratch.path(&format!("{name}.kif"));
        let o = latchkey(&["pie", path.to_str().expect("path"), "-o", out.to_str().expect("path")]);
        if !o.status.success() {
            assert!(stderr(&o).contains("cannot take the pie rule: "), "{name}: {}", stderr(&o));
            continue;
        }
        let text = std::fs::read_to_string(&out).expect("written");
        let (desc, mut net) = machine(&name, &text);
        let mut reasoner = reasoner::Reasoner::new(&desc);
        let reference = machine::record(&mut reasoner, &name, 0..3, 60).expect("recorded");
        let report =
            machine::conform(&mut net, &reference, &ConformOptions { perft: false, ..ConformOptions::default() });
        assert!(report.is_ok(), "{name}: {}", report.render(3));
        accepted.push(name);
    }
    // Two-player turn-taking games of both kinds: one move a turn, and two (pentago).
    for name in ["ticTacToe", "connectFour", "breakthrough", "nineBoardTicTacToe", "pentago", "checkers"] {
        assert!(accepted.iter().any(|a| a == name), "{name} not among {accepted:?}");
    }
}
