//! `latchkey conform`: replay reference trajectories and perft counts on an engine and report
//! every disagreement.

use crate::engine::{on_machine, Engine, OnMachine};
use crate::game;
use crate::output::print_json;
use anyhow::Result;
use machine::{ConformOptions, ConformReport, Reference, StateMachine};
use std::process::ExitCode;

/// The shape of `latchkey conform --json`.
const SCHEMA: u32 = 1;

/// `latchkey conform`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// A GDL file, or the name of a bundled game.
    game: String,
    /// The reference file (JSON Lines, recorded from the GGP-Base prover).
    #[arg(long)]
    reference: String,
    /// Which engine to check.
    #[arg(long, value_enum, default_value_t = Engine::Reasoner)]
    engine: Engine,
    /// Skip the perft comparison.
    #[arg(long)]
    no_perft: bool,
    /// How many mismatches to show in detail.
    #[arg(long, default_value_t = 5)]
    show: usize,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// The replay, on whichever engine is checked.
struct Conform {
    reference: Reference,
    options: ConformOptions,
}

impl OnMachine for Conform {
    type Output = ConformReport;
    fn run<M: StateMachine>(self, m: &mut M) -> Result<ConformReport> {
        Ok(machine::conform(m, &self.reference, &self.options))
    }
}

/// Replays the reference and prints the report; fails on any mismatch.
pub fn run(args: Args) -> Result<ExitCode> {
    let reference = machine::reference::load(&args.reference)?;
    let game = game::load(&args.game)?;
    let options = ConformOptions { perft: !args.no_perft, ..ConformOptions::default() };
    let report = on_machine(&game, args.engine, Conform { reference, options })?;
    if args.json {
        print_json(SCHEMA, &report)?;
    } else {
        println!("{}", report.render(args.show));
    }
    Ok(if report.is_ok() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
