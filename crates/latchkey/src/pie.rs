//! `latchkey pie`: a game's pie-rule variant, written as plain GDL. The turn structure the
//! transform needs (two roles taking turns, the waiting role's one move, who moves first) is
//! read from random games; a game that does not show it is refused with the reason.

use crate::engine::{on_engine, Engine, OnMachine};
use crate::game;
use anyhow::{bail, Context, Result};
use machine::StateMachine;
use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use rand::SeedableRng;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::ExitCode;

/// Random games played to find the turn structure, and the most joint moves of each.
const GAMES: usize = 200;
const STEPS: usize = 300;

/// `latchkey pie`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// A GDL file, or the name of a bundled game.
    game: String,
    /// Where to write the variant (default: standard output); never overwritten.
    #[arg(short = 'o', long = "output", value_name = "OUT.kif")]
    output: Option<PathBuf>,
}

/// How the game's turns go, as random games show them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turns {
    /// The move of the role waiting for the other's, in KIF.
    pub idle: String,
    /// The role that moves first.
    pub first: usize,
}

/// Plays random games and reads the turn structure from them.
struct FindTurns;

impl OnMachine for FindTurns {
    type Output = Result<Turns, String>;
    fn run<M: StateMachine>(self, m: &mut M) -> Result<Self::Output> {
        Ok(turns(m))
    }
}

/// The turn structure of the game on `m`, or why it has none the pie rule fits: each state has at
/// most one role with a move other than the waiting move, which is the same for both roles, and
/// one role moves in the initial state.
pub fn turns<M: StateMachine>(m: &mut M) -> Result<Turns, String> {
    if m.roles().len() != 2 {
        return Err(format!("the pie rule is for games of two roles; this game has {}", m.roles().len()));
    }
    let mut rng = SmallRng::seed_from_u64(0x0070_6965);
    let mut waits = BTreeSet::new();
    // Per state seen: each role's number of legal moves, and the move where it has one.
    let mut states: Vec<[(usize, Option<String>); 2]> = Vec::new();
    for _ in 0..GAMES {
        let mut state = m.initial_state();
        for _ in 0..STEPS {
            if m.is_terminal(&state).map_err(|e| e.to_string())? {
                break;
            }
            let legal = [0, 1].map(|r| m.legal_moves(&state, r));
            let [Ok(a), Ok(b)] = legal else { return Err("the rules could not be run on a random game".into()) };
            if a.is_empty() || b.is_empty() {
                return Err("a role has no legal move in a state that has not ended (see check --play)".into());
            }
            let seen = [&a, &b].map(|moves| (moves.len(), (moves.len() == 1).then(|| m.format_move(&moves[0]))));
            for r in 0..2 {
                if let (Some(only), true) = (&seen[r].1, seen[1 - r].0 > 1) {
                    waits.insert(only.clone());
                }
            }
            states.push(seen);
            let joint = vec![a.choose(&mut rng).expect("a move").clone(), b.choose(&mut rng).expect("a move").clone()];
            state = m.next_state(&state, &joint).map_err(|e| e.to_string())?;
        }
    }
    let idle = match waits.len() {
        1 => waits.pop_first().expect("one"),
        0 => {
            return Err("no role ever waits with a single move while the other chooses: the turns cannot be told".into())
        }
        _ => {
            let list: Vec<String> = waits.into_iter().collect();
            return Err(format!("roles wait with different moves ({}): no single waiting move", list.join(", ")));
        }
    };
    // The role with a move other than the waiting one, where there is one.
    let mover = |seen: &[(usize, Option<String>); 2]| -> Result<Option<usize>, String> {
        let active: Vec<usize> = (0..2).filter(|&r| seen[r].0 > 1 || seen[r].1.as_ref() != Some(&idle)).collect();
        match active.as_slice() {
            [r] => Ok(Some(*r)),
            [] => Ok(None),
            _ => Err("both roles choose moves in the same state: the game has simultaneous moves".into()),
        }
    };
    for seen in &states {
        mover(seen)?;
    }
    // Every game starts from the one initial state.
    let start = states.first().ok_or("the game ends in its initial state")?;
    let first = mover(start)?.ok_or("no role moves in the initial state")?;
    Ok(Turns { idle, first })
}

/// Writes the variant, or says why the game cannot take the pie rule.
pub fn run(args: Args) -> Result<ExitCode> {
    let loaded = game::load(&args.game)?;
    let (found, _) = on_engine(&loaded, Engine::Propnet, FindTurns)?;
    let turns = match found {
        Ok(turns) => turns,
        Err(why) => bail!("{} cannot take the pie rule: {why}", loaded.name),
    };
    let text = gdl::pie::pie_variant(&loaded.desc, &turns.idle, turns.first)
        .map_err(|e| anyhow::anyhow!("{}: {e}", loaded.name))?;
    // The variant must be valid GDL; a fault here is the transform's.
    let label = format!("{} (pie variant)", loaded.name);
    gdl::load(&label, &text)
        .map_err(|e| anyhow::anyhow!("the pie variant of {} is not valid GDL: {e}", loaded.name))?;
    match &args.output {
        Some(path) => {
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(path)
                .with_context(|| format!("cannot create {}", path.display()))?;
            std::io::Write::write_all(&mut file, text.as_bytes())
                .with_context(|| format!("cannot write {}", path.display()))?;
            eprintln!(
                "{}: the pie variant of {} ({} opens; after its first turn the other may swap instead of replying; the waiting move is {})",
                path.display(),
                loaded.name,
                loaded.desc.roles()[turns.first],
                turns.idle
            );
        }
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}
