//! Material estimates and pieces on corpus games, where they should and should not be found.

use analysis::GoalLatches;
use machine::StateMachine;
use metagame::{prepare, Budget, Knowledge, Material, Pieces, TacticsCost, Wanted};
use propnet::Program;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The material estimates of a corpus game from a second of random games.
fn material(stem: &str) -> Option<(propnet::Net, Material)> {
    let net = testkit::shared::net(env!("CARGO_MANIFEST_DIR"), stem)?;
    let material = Material::discover(&net, None, Instant::now() + Duration::from_secs(1), 1);
    Some((net, material))
}

#[test]
fn boxes_held_predict_dots_and_boxes() {
    let Some((net, material)) = material("dotsAndBoxes") else { return };
    for (role, own) in [(0, "x"), (1, "o")] {
        let fit = material.fits[role].as_ref().unwrap_or_else(|| panic!("no estimate for role {role}: {material:?}"));
        assert!(fit.holdout_correlation > 0.2, "{fit:?}");
        let term = fit.terms.iter().find(|t| material.groups[t.group].name == format!("(box ? ? {own})"));
        assert!(term.is_some_and(|t| t.weight > 0.0), "{} gains from its own boxes: {material:?}", net.roles[role]);
        // More of its own boxes, everything else equal, is no lower an estimate (within 0..1).
        let group = &material.groups[term.expect("found").group];
        let mut state = vec![0u64; net.bases.len().div_ceil(64)];
        let low = material.value(&state, role).expect("an estimate");
        for (w, m) in state.iter_mut().zip(&group.mask) {
            *w |= m;
        }
        let high = material.value(&state, role).expect("an estimate");
        assert!((0.0..=1.0).contains(&low) && (0.0..=1.0).contains(&high) && high >= low, "{low} {high}");
    }
}

#[test]
fn counting_discs_predicts_nothing_in_connect_four() {
    let Some((_, material)) = material("connectFour") else { return };
    assert!(material.is_empty(), "{material:?}");
}

#[test]
fn speed_chess_pieces_are_worth_their_kinds_mobility() {
    let Some(net) = testkit::shared::net(env!("CARGO_MANIFEST_DIR"), "speedChess") else { return };
    let pieces = Pieces::discover(&net, Instant::now() + Pieces::TIME, 1).expect("pieces found");
    let initial = propnet::PropnetMachine::new(&net).initial_state();
    for (set, side) in pieces.sets.iter().zip(["white", "black"]) {
        assert_eq!(set.group.name, format!("(cell ? ? {side} ?)"), "{pieces:?}");
        let worth = |kind: &str| {
            let name = format!("(cell ? ? {side} {kind})");
            set.kinds.iter().find(|k| k.group.name == name).unwrap_or_else(|| panic!("no {name}: {set:?}")).value
        };
        // Pawns move least; a queen or a knight has several times their moves.
        assert_eq!(worth("pawn"), 1.0, "{set:?}");
        assert!(worth("queen") > 2.0 && worth("knight") > 2.0, "{set:?}");
        assert_eq!(set.kinds.len(), 6, "{set:?}");
        // The kinds split the side's pieces, so its material is their worth summed.
        let mut union = vec![0u64; set.group.mask.len()];
        for k in &set.kinds {
            for (u, m) in union.iter_mut().zip(&k.group.mask) {
                assert_eq!(*u & m, 0, "kinds overlap: {set:?}");
                *u |= m;
            }
        }
        assert_eq!(union, set.group.mask);
        let kinds = ["pawn", "knight", "bishop", "rook", "queen", "king"];
        let at_start = [8.0, 2.0, 2.0, 2.0, 1.0, 1.0].iter().zip(kinds).map(|(n, k)| n * worth(k)).sum::<f64>();
        assert!((set.worth(initial.words()) - at_start).abs() < 1e-9, "{set:?}");
        // Chosen because the worth predicts the score better than the count did.
        assert!(set.correlation > 0.0 && set.holdout_correlation > 0.0, "{set:?}");
    }
}

#[test]
fn skirmish_pieces_are_each_sides_kinds_together() {
    // Each kind of piece has a group of its own, and a side's score is what it captured: the
    // pieces are found as a set of the kinds a side moves, against the score of its lead.
    let Some(net) = testkit::shared::net(env!("CARGO_MANIFEST_DIR"), "skirmish") else { return };
    let pieces = Pieces::discover(&net, Instant::now() + Pieces::TIME, 1).expect("pieces found");
    let initial = propnet::PropnetMachine::new(&net).initial_state();
    for (set, side) in pieces.sets.iter().zip(["white", "black"]) {
        let parts = propnet::net::name_parts(&set.group.name);
        assert_eq!(parts[..3], ["location", "?", "?"], "{set:?}");
        let kinds: Vec<&str> = parts[3].split('|').collect();
        assert_eq!(kinds.len(), 6, "{side}: {set:?}");
        assert!(kinds.iter().all(|k| k.starts_with(side)), "{side}: {set:?}");
        assert!(kinds.contains(&format!("{side}pawn").as_str()), "{side}: {set:?}");
        // The side starts with its 16 pieces.
        let count = set.group.mask.iter().zip(initial.words()).map(|(m, w)| (m & w).count_ones()).sum::<u32>();
        assert_eq!(count, 16, "{side}: {set:?}");
        assert!(set.holdout_correlation > 0.0, "{set:?}");
    }
    // White taking a black pawn gains against the root; black loses as much.
    let base = |name: &str| net.bases.iter().position(|b| b.name == name).expect("a base");
    let mut taken = initial.words().to_vec();
    let gone = base("(location 1 7 blackpawn)");
    taken[gone / 64] &= !(1u64 << (gone % 64));
    let balance = pieces.balance(initial.words(), initial.words(), 0.0);
    let (w, b) = (balance.value(&taken, 0), balance.value(&taken, 1));
    assert!(w > 0.55 && b < 0.45, "{w} {b}");
}

#[test]
fn dots_and_boxes_playouts_run_guided_for_its_boxes() {
    let what = "the guidance of dotsAndBoxes' playouts";
    let Some((desc, net)) = testkit::shared::described(env!("CARGO_MANIFEST_DIR"), "dotsAndBoxes", what) else {
        return;
    };
    let program = Arc::new(Program::new(&net));
    let wanted = Wanted { tactics: true, forms: true, factors: true, locality: true, pieces: true, outlook: true };
    let now = Instant::now();
    let prepared = prepare(&net, &program, &desc, wanted, Budget::start(now, now + Duration::from_secs(30)));
    let knowledge = prepared.knowledge.expect("knowledge");
    // The boxes are each side's pieces, the tactics do not pay (no move ends the game early
    // enough to matter), and nothing else guides the playouts: they run guided for the boxes.
    assert!(knowledge.pieces().is_some(), "{:?}", prepared.report);
    assert!(prepared.report.tactics.is_some_and(|t| !t.pays()), "{:?}", prepared.report);
    let steps: Vec<&str> = prepared.report.phases.iter().map(|p| p.phase.as_str()).collect();
    assert_eq!(steps, ["playout tactics", "pieces", "guided captures"]);
    assert!(knowledge.steers_playouts());
}

#[test]
fn max_knights_playouts_that_keep_placing_pay_for_their_cost() {
    let Some(net) = testkit::shared::net(env!("CARGO_MANIFEST_DIR"), "max_knights") else { return };
    let program = Arc::new(Program::new(&net));
    let knowledge = Knowledge::new(&net, GoalLatches::new(&net, &[], None), true);
    let cost = TacticsCost::measure(&program, &knowledge, Duration::from_secs(1), 1);
    // Random placements end at the first knight attacked, a few moves in; the tactical
    // playouts leave out the placement that ends the game while another does not, so they
    // place knights until none fits and score far more, however much slower they are.
    let gain = cost.score_gain.expect("one role");
    assert!(gain > 10.0, "{cost:?}");
    assert!(cost.pays(), "{cost:?}");
}
