//! MCTS on the corpus: briefly, on every game whose propnet builds, with every kind of guidance
//! (goal latches, playout tactics, piece priors), a legal move for every role; and material
//! estimates where they should and should not be found.

use analysis::GoalLatches;
use machine::StateMachine;
use propnet::{Program, PropnetMachine};
use search::mcts::{Guide, Material, Mcts, MctsConfig, Pieces};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[test]
fn every_corpus_game_gets_a_legal_move_for_every_role() {
    let Some(shared) = testkit::shared::locate(env!("CARGO_MANIFEST_DIR"), "MCTS on the corpus") else { return };
    let mut searched = 0;
    for file in testkit::shared::games_with_propnet(&shared) {
        let text = testkit::shared::read_text(&file).expect("readable game");
        let (desc, _) = gdl::load(&file.display().to_string(), &text).expect("valid game");
        // Games whose nets take long to build are left to the propnet's own tests (the limit is
        // loose enough for a loaded machine to build the others).
        let limits = propnet::Limits { deadline: Some(Instant::now() + Duration::from_secs(3)), ..Default::default() };
        let Ok(net) = propnet::compile(&desc, &limits) else { continue };
        let guide = Guide::new(&net, GoalLatches::new(&net, &analysis::structural_latches(&net)), true);
        let guide = match Pieces::discover(&net, Instant::now() + Duration::from_millis(50), 1) {
            Some(pieces) => guide.with_pieces(&net, pieces),
            None => guide,
        };
        let guide = Arc::new(guide);
        let mut m = PropnetMachine::new(&net);
        let initial = m.initial_state();
        let mut mcts = Mcts::new(
            Arc::new(Program::new(&net)),
            Some(guide),
            MctsConfig { threads: 1, seed: 7, max_nodes: 100_000, ..MctsConfig::default() },
        )
        .expect("starts");
        mcts.search(Instant::now() + Duration::from_millis(50)).expect("searches");
        for role in 0..m.roles().len() {
            let legal = m.legal_moves(&initial, role).expect("legal");
            let best = mcts.best_move(role);
            assert!(best.is_some_and(|mv| legal.contains(&mv)), "{}: role {role} got {best:?}", file.display());
        }
        searched += 1;
    }
    assert!(searched >= 40, "only {searched} corpus games searched");
}

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
