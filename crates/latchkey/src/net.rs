//! `latchkey propnet`: build the game's propositional network and report the grounding's size,
//! the net before and after optimisation, and the time each took; optionally draw it.

use crate::engine;
use crate::game;
use crate::output::print_json;
use anyhow::{Context, Result};
use serde::Serialize;
use std::process::ExitCode;

/// The shape of `latchkey propnet --json`.
const SCHEMA: u32 = 1;

/// `latchkey propnet`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// A GDL file, or the name of a bundled game.
    game: String,
    /// Write the net in Graphviz DOT to this file (`-` for standard output).
    #[arg(long)]
    dot: Option<String>,
    /// Seconds the build may take (the grounding 90 by default): past them the build gives up,
    /// whichever phase it is in (grounding, building, optimising, laying out), as a player's
    /// does, and says how long past the deadline it stopped.
    #[arg(long, value_name = "SECONDS", value_parser = crate::output::clock_seconds)]
    time: Option<f64>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// What `latchkey propnet` reports.
#[derive(Serialize)]
struct PropnetReport {
    game: String,
    /// Atoms of the ground model (auxiliary relations included).
    atoms: usize,
    /// Ground rules instantiated.
    ground_rules: usize,
    /// Grounding and building, in seconds.
    build_secs: f64,
    /// The net as built.
    before: propnet::net::Counts,
    /// The optimised net and what each pass did.
    optimize: propnet::optimize::OptimizeStats,
    /// Compiling the optimised net for the runtime (its gates' layout), in seconds.
    layout_secs: f64,
    /// The laid-out program's gates by phase: what every state evaluates, what only goals and
    /// only moves need.
    program: propnet::ProgramStats,
    /// Why the program runs interpreted, when it has no native code.
    #[serde(skip_serializing_if = "Option::is_none")]
    interpreted_because: Option<String>,
    /// With `--time`: seconds from the deadline to the end of the layout (0 when it ended in
    /// time).
    #[serde(skip_serializing_if = "Option::is_none")]
    late_secs: Option<f64>,
}

/// Builds, optimises and reports (or draws) the net.
pub fn run(args: Args) -> Result<ExitCode> {
    let spec = &args.game;
    let game = game::load(spec)?;
    let start = std::time::Instant::now();
    let deadline = args.time.map(|t| start + std::time::Duration::from_secs_f64(t));
    let late = || deadline.map(|d| d.elapsed().as_secs_f64());
    let (net, atoms, ground_rules) = engine::build_raw_propnet(&game, deadline).with_context(|| match late() {
        Some(late) if late > 0.0 => {
            format!("cannot build a propnet for {spec} (it stopped {late:.3} s past its deadline)")
        }
        _ => format!("cannot build a propnet for {spec}"),
    })?;
    let build_secs = start.elapsed().as_secs_f64();
    let before = net.counts();
    // As a player builds: an optimisation the deadline cuts short is given up.
    let passes = propnet::optimize::Passes { deadline, ..propnet::optimize::Passes::default() };
    let Some((optimized, stats)) = propnet::optimize::optimize_by(net, &passes) else {
        let late = late().unwrap_or(0.0);
        anyhow::bail!("cannot optimise the propnet of {spec} in time (it stopped {late:.3} s past its deadline)");
    };
    let laid = std::time::Instant::now();
    let program = propnet::Program::within(&optimized, deadline);
    let layout_secs = laid.elapsed().as_secs_f64();
    let Some(program) = program else {
        let late = late().unwrap_or(0.0);
        anyhow::bail!("cannot lay out the propnet of {spec} in time (it stopped {late:.3} s past its deadline)");
    };
    let report = PropnetReport {
        game: spec.to_owned(),
        atoms,
        ground_rules,
        build_secs,
        before,
        optimize: stats,
        layout_secs,
        program: program.stats(),
        interpreted_because: program.interpreted_because(),
        late_secs: late().map(|l| l.max(0.0)),
    };
    if let Some(path) = &args.dot {
        let text = propnet::dot::to_dot(&optimized);
        if path == "-" {
            print!("{text}");
            return Ok(ExitCode::SUCCESS);
        }
        std::fs::write(path, text).with_context(|| format!("cannot write {path}"))?;
    }
    if args.json {
        print_json(SCHEMA, &report)?;
    } else {
        println!("game        {}", report.game);
        println!("grounded    {} atoms, {} ground rules", report.atoms, report.ground_rules);
        println!("built       {:.3} s: {}", report.build_secs, report.before);
        println!("optimised   {:.3} s: {}", report.optimize.micros as f64 / 1e6, report.optimize.after);
        let p = &report.program;
        println!(
            "laid out    {:.3} s: {} gates for every state, {} for goals only, {} for moves only ({} in recursive blocks), {} edges",
            report.layout_secs, p.core_gates, p.goal_gates, p.move_gates, p.cyclic_gates, p.edges
        );
        if p.turns > 0 {
            println!(
                "turns       {} turn programs, at most {} gates for every state of their turn",
                p.turns, p.turn_core_gates
            );
        }
        match &report.interpreted_because {
            None => println!(
                "native      {:.3} s: {} functions (in the layout's time)",
                p.native_micros as f64 / 1e6,
                p.native_functions
            ),
            Some(why) => println!("native      none: {why}"),
        }
        println!("total       {:.3} s", report.build_secs + report.optimize.micros as f64 / 1e6 + report.layout_secs);
        if let Some(late) = report.late_secs {
            println!("late        {late:.3} s past the deadline");
        }
    }
    Ok(ExitCode::SUCCESS)
}
