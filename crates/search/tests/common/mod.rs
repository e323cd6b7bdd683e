//! What the search tests share: loading games, the goal latches the search prunes with, and
//! replaying a plan on the reasoner, an engine that shares no code with the propnet.
// Each test file uses only some of these.
#![allow(dead_code)]

use analysis::GoalLatches;
use gdl::Description;
use machine::StateMachine;
use propnet::Net;
use reasoner::Reasoner;

/// The description and optimised net of GDL `text`, or why the net cannot be built.
pub fn load(file: &str, text: &str) -> (Description, Result<Net, propnet::Error>) {
    let (desc, _) = gdl::load(file, text).expect("valid GDL");
    let net = propnet::compile(&desc, &propnet::Limits::default());
    (desc, net)
}

/// The single-player games of the shared corpus whose propnet builds, as (file, description,
/// net); empty (with a warning) without the corpus.
pub fn corpus_puzzles(what: &str) -> Vec<(String, Description, Net)> {
    let Some(dir) = testkit::shared::locate(env!("CARGO_MANIFEST_DIR"), what) else { return Vec::new() };
    let mut out = Vec::new();
    for path in testkit::shared::games_with_propnet(&dir) {
        let text = testkit::shared::read_text(&path).expect("readable");
        let file = path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
        let (desc, _) = gdl::load(&file, &text).expect("valid GDL");
        if desc.roles().len() != 1 {
            continue;
        }
        if let (desc, Ok(net)) = load(&file, &text) {
            out.push((file, desc, net));
        }
    }
    out
}

/// A bundled game's description and net.
pub fn bundled(name: &str) -> (Description, Net) {
    testkit::bundled(name)
}

/// The goal latches from the structural and exact latches (the proofs add nothing needed here).
pub fn goal_latches(net: &Net) -> GoalLatches {
    let mut latches = analysis::structural_latches(net);
    latches.extend(analysis::exact_latches(net, 16, &[]));
    GoalLatches::new(net, &latches, None)
}

/// Plays `plan` (moves in KIF) on the reasoner from the initial state: the goal of the single
/// role in the state it ends in, if every move was legal and that state is terminal.
pub fn replay(desc: &Description, plan: &[String]) -> Option<u32> {
    let mut m = Reasoner::new(desc);
    let mut state = m.initial_state();
    for name in plan {
        let legal = m.legal_moves(&state, 0).ok()?;
        let mv = legal.into_iter().find(|mv| &m.format_move(mv) == name)?;
        state = m.next_state(&state, &[mv]).ok()?;
    }
    if m.is_terminal(&state).ok()? {
        m.goal(&state, 0).ok()
    } else {
        None
    }
}
