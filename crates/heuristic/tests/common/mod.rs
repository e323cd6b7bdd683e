//! What the heuristic tests share: loading fixtures and bundled games, and building states.

#![allow(dead_code)] // each test file uses its own part

use gdl::Description;
use machine::StateMachine;
use propnet::{Net, PropnetMachine, PropnetState};

/// A game with its propnet as built and as optimised.
pub struct Game {
    pub desc: Description,
    pub raw: Net,
    pub net: Net,
}

fn load(label: &str, text: &str) -> Game {
    let (desc, _) = gdl::load(label, text).expect("valid GDL");
    let raw = propnet::build(&desc, &propnet::Limits::default()).expect("the propnet builds");
    let net = propnet::optimize::optimize(&raw).0;
    Game { desc, raw, net }
}

/// A fixture from `tests/fixtures`.
pub fn fixture(file: &str) -> Game {
    let path = format!("{}/tests/fixtures/{file}", env!("CARGO_MANIFEST_DIR"));
    load(file, &std::fs::read_to_string(&path).expect("fixture"))
}

/// A bundled game.
pub fn bundled(name: &str) -> Game {
    let g = games::find(name).expect("bundled game");
    load(g.file, g.text)
}

/// The index of the base proposition printed as `name`.
pub fn base(net: &Net, name: &str) -> usize {
    net.bases.iter().position(|b| b.name == name).unwrap_or_else(|| panic!("no base proposition {name}"))
}

/// The state in which exactly the base propositions `names` hold.
pub fn state(net: &Net, names: &[String]) -> PropnetState {
    PropnetState::from_bases(net.bases.len(), names.iter().map(|n| base(net, n)))
}

/// The state after the joint move `moves` (one per role, in KIF) from `from`.
pub fn play(m: &mut PropnetMachine, from: &PropnetState, moves: &[&str]) -> PropnetState {
    let joint: Vec<u32> = moves
        .iter()
        .enumerate()
        .map(|(role, name)| {
            let legal = m.legal_moves(from, role).expect("legal moves");
            *legal.iter().find(|&&mv| m.format_move(&mv) == *name).unwrap_or_else(|| panic!("{name} is not legal"))
        })
        .collect();
    m.next_state(from, &joint).expect("next state")
}
