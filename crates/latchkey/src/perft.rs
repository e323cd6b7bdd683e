//! `latchkey perft`: distinct states and joint-move paths at each depth of the game tree.

use crate::engine::{on_machine, Engine, OnMachine};
use crate::game;
use crate::output::print_json;
use anyhow::Result;
use machine::perft::PerftLimits;
use machine::{PerftResult, StateMachine};
use std::process::ExitCode;

/// The shape of `latchkey perft --json`.
const SCHEMA: u32 = 1;

/// `latchkey perft`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// A GDL file, or the name of a bundled game.
    game: String,
    /// The deepest level to count.
    #[arg(long, short = 'd', default_value_t = 3)]
    depth: u32,
    /// Stop after this many joint-move applications.
    #[arg(long)]
    max_expansions: Option<u64>,
    /// Which engine runs the game.
    #[arg(long, value_enum, default_value_t = Engine::Propnet)]
    engine: Engine,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// The count, on whichever engine runs it.
struct Perft {
    depth: u32,
    limits: PerftLimits,
}

impl OnMachine for Perft {
    type Output = PerftResult;
    fn run<M: StateMachine>(self, m: &mut M) -> Result<PerftResult> {
        Ok(machine::perft(m, self.depth, &self.limits)?)
    }
}

/// Counts and prints the levels.
pub fn run(args: Args) -> Result<ExitCode> {
    let game = game::load(&args.game)?;
    let limits = PerftLimits { max_expansions: args.max_expansions, deadline: None };
    let result = on_machine(&game, args.engine, Perft { depth: args.depth, limits })?;
    if args.json {
        print_json(SCHEMA, &result)?;
    } else {
        print(&result);
    }
    Ok(ExitCode::SUCCESS)
}

fn print(r: &PerftResult) {
    println!("{:>5} {:>12} {:>16} {:>10}", "depth", "states", "paths", "terminal");
    for l in &r.levels {
        println!("{:>5} {:>12} {:>16} {:>10}", l.depth, l.states, l.paths, l.terminal_states);
    }
    if let Some(cut) = &r.cut {
        println!("{cut}");
    }
}
