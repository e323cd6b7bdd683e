//! `latchkey playout`: random games from the initial state, with their lengths, goals and speed.

use crate::engine::{on_machine, Engine, OnMachine};
use crate::game;
use crate::output::print_json;
use anyhow::Result;
use machine::{PlayoutStats, StateMachine};
use std::process::ExitCode;

/// The shape of `latchkey playout --json`.
const SCHEMA: u32 = 1;

/// `latchkey playout`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// A GDL file, or the name of a bundled game.
    game: String,
    /// How many playouts.
    #[arg(short = 'n', long, default_value_t = 1000)]
    count: u64,
    /// Seed of the random move choice.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Give up a playout after this many joint moves.
    #[arg(long, default_value_t = 10_000)]
    max_steps: u32,
    /// Which engine runs the game.
    #[arg(long, value_enum, default_value_t = Engine::Propnet)]
    engine: Engine,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// The playouts, on whichever engine runs them.
struct Playouts {
    count: u64,
    seed: u64,
    max_steps: u32,
}

impl OnMachine for Playouts {
    type Output = PlayoutStats;
    fn run<M: StateMachine>(self, m: &mut M) -> Result<PlayoutStats> {
        Ok(m.run_playouts(self.count, self.seed, self.max_steps)?)
    }
}

/// Runs the playouts and prints their statistics.
pub fn run(args: Args) -> Result<ExitCode> {
    let game = game::load(&args.game)?;
    let stats =
        on_machine(&game, args.engine, Playouts { count: args.count, seed: args.seed, max_steps: args.max_steps })?;
    if args.json {
        print_json(SCHEMA, &stats)?;
    } else {
        println!("{stats}");
    }
    Ok(ExitCode::SUCCESS)
}
