//! `latchkey perft`: distinct states and joint-move paths at each depth of the game tree; with
//! `--depth-first`, the paths without merging transpositions and how many joint moves a second
//! the engine applies, many nodes a pass where it can or node by node (`--node-by-node`).

use crate::engine::{on_machine, Engine, OnMachine};
use crate::game;
use crate::output::print_json;
use anyhow::Result;
use machine::perft::PerftLimits;
use machine::{PathCount, PerftResult, StateMachine};
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
    /// Count paths depth first without merging transpositions (as chess engines' perft does),
    /// and report joint moves applied per second: the engine's fastest walk of the tree (the
    /// propnet expands many nodes a pass).
    #[arg(long)]
    depth_first: bool,
    /// With `--depth-first`: expand one node at a time, all its joint moves at once (the speed of
    /// the one-state path that tree search takes).
    #[arg(long, requires = "depth_first")]
    node_by_node: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// The count, on whichever engine runs it.
struct Perft {
    depth: u32,
    limits: PerftLimits,
    walk: Option<Walk>,
}

/// How a depth-first count walks the tree.
#[derive(Clone, Copy)]
enum Walk {
    /// The engine's fastest way ([`StateMachine::count_paths`]).
    Fastest,
    /// One node at a time ([`machine::perft_depth_first`]).
    NodeByNode,
}

impl Walk {
    fn describe(self) -> &'static str {
        match self {
            Walk::Fastest => "the engine's fastest walk",
            Walk::NodeByNode => "node by node",
        }
    }
}

/// Either count.
enum Count {
    Levels(PerftResult),
    Paths(PathCount),
}

impl OnMachine for Perft {
    type Output = Count;
    fn run<M: StateMachine>(self, m: &mut M) -> Result<Count> {
        Ok(match self.walk {
            Some(Walk::Fastest) => Count::Paths(m.count_paths(self.depth, &self.limits)?),
            Some(Walk::NodeByNode) => Count::Paths(machine::perft_depth_first(m, self.depth, &self.limits)?),
            None => Count::Levels(machine::perft(m, self.depth, &self.limits)?),
        })
    }
}

/// Counts and prints the levels.
pub fn run(args: Args) -> Result<ExitCode> {
    let game = game::load(&args.game)?;
    let limits = PerftLimits { max_expansions: args.max_expansions, deadline: None };
    let walk = match (args.depth_first, args.node_by_node) {
        (false, _) => None,
        (true, false) => Some(Walk::Fastest),
        (true, true) => Some(Walk::NodeByNode),
    };
    let perft = Perft { depth: args.depth, limits, walk };
    match (on_machine(&game, args.engine, perft)?, args.json) {
        (Count::Levels(r), true) => print_json(SCHEMA, &r)?,
        (Count::Levels(r), false) => print(&r),
        (Count::Paths(r), true) => print_json(SCHEMA, &r)?,
        (Count::Paths(r), false) => print_paths(&r, walk.unwrap_or(Walk::Fastest)),
    }
    Ok(ExitCode::SUCCESS)
}

fn print_paths(r: &PathCount, walk: Walk) {
    println!("{:>5} {:>16} {:>16}", "depth", "paths", "terminal paths");
    for l in &r.levels {
        println!("{:>5} {:>16} {:>16}", l.depth, l.paths, l.terminal_paths);
    }
    if let Some(cut) = &r.cut {
        println!("{cut}: every count above is partial");
    }
    println!(
        "{} joint moves applied, {}, in {:.3} s ({:.0} a second)",
        r.applications,
        walk.describe(),
        r.elapsed_secs,
        r.applications_per_sec()
    );
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
