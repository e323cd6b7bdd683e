//! `latchkey solve`: exhaustive solving of a single-player game, with chapter 12's dead-state
//! removal, and with `--stats` the same search without it for comparison.

use crate::engine::build_propnet;
use crate::game;
use analysis::{Analysis, Options};
use anyhow::{Context, Result};
use propnet::PropnetMachine;
use search::Solution;
use serde::Serialize;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// One search and how long it took.
#[derive(Serialize)]
struct Run {
    dead_state_removal: bool,
    seconds: f64,
    #[serde(flatten)]
    solution: Solution,
}

/// What `latchkey solve --json` prints.
#[derive(Serialize)]
struct Report {
    game: String,
    /// Seconds spent finding the latches and goal latches the pruning uses.
    analysis_seconds: f64,
    runs: Vec<Run>,
}

/// Solves `spec` within `secs` seconds per search and prints the plan (and, with `stats`, the
/// node counts with and without dead-state removal).
pub fn run(spec: &str, secs: f64, stats: bool, json: bool) -> Result<ExitCode> {
    let game = game::load(spec)?;
    let net = build_propnet(&game).with_context(|| format!("cannot solve {spec} without a propnet"))?;
    let start = Instant::now();
    let analysis = Analysis::run(&net, &game.desc, &Options::default(), &mut |_| {});
    let analysis_seconds = start.elapsed().as_secs_f64();
    let values: Vec<u32> = net.goals.first().map(|g| g.iter().map(|&(v, _)| v).collect()).unwrap_or_default();
    let mut runs = Vec::new();
    for removal in if stats { vec![true, false] } else { vec![true] } {
        let start = Instant::now();
        let deadline = start + Duration::from_secs_f64(secs);
        let mut m = PropnetMachine::new(&net);
        let goals = removal.then_some(&analysis.goals);
        let solution = search::solve(&mut m, goals, &values, Some(deadline))?;
        runs.push(Run { dead_state_removal: removal, seconds: start.elapsed().as_secs_f64(), solution });
    }
    let report = Report { game: game.name, analysis_seconds, runs };
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print(&report, stats);
    }
    Ok(ExitCode::SUCCESS)
}

fn print(r: &Report, stats: bool) {
    let best = &r.runs[0].solution;
    println!("game   {}", r.game);
    match best.score {
        Some(score) => {
            let proof = if best.optimal { "optimal" } else { "best found; search cut short" };
            println!("score  {score} ({proof})");
            println!("plan   {} ({} moves)", best.plan.join(" "), best.plan.len());
        }
        None => println!("score  none: no terminal state reached within the time limit"),
    }
    if stats {
        println!("\n{:<24} {:>12} {:>14} {:>8} {:>10}", "search", "nodes", "dead pruned", "passes", "seconds");
        for run in &r.runs {
            let s = &run.solution.stats;
            let name = if run.dead_state_removal { "dead-state removal" } else { "plain" };
            println!("{name:<24} {:>12} {:>14} {:>8} {:>10.3}", s.nodes, s.pruned, s.passes, run.seconds);
        }
        println!("analysis (latches, goal latches) {:.3} s", r.analysis_seconds);
    }
}
