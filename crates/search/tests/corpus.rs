//! MCTS on the corpus: briefly, on every game whose propnet builds, with every kind of guidance
//! (goal latches, playout tactics, piece priors), a legal move for every role.

use analysis::GoalLatches;
use machine::StateMachine;
use metagame::{Knowledge, Pieces};
use propnet::{Program, PropnetMachine};
use search::mcts::{Mcts, MctsConfig};
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
        let knowledge = Knowledge::new(&net, GoalLatches::new(&net, &analysis::structural_latches(&net), None), true);
        let knowledge = match Pieces::discover(&net, Instant::now() + Duration::from_millis(50), 1) {
            Ok(pieces) => knowledge.with_pieces(&net, pieces),
            Err(_) => knowledge,
        };
        let knowledge = Arc::new(knowledge);
        let mut m = PropnetMachine::new(&net);
        let initial = m.initial_state();
        let mut mcts = Mcts::new(
            Arc::new(Program::new(&net)),
            Some(knowledge),
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
