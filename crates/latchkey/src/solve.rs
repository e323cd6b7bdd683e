//! `latchkey solve`: the best score of a single-player game and a shortest plan reaching it,
//! by IDA* under the lower bound the search crate finds in the net, with chapter 12's
//! dead-state removal and with the moves of irrelevant factors collapsed to one; with `--stats`,
//! the comparisons too: the search without factorisation, and the exhaustive solver with and
//! without the removal (and the factorisation).

use crate::game;
use analysis::{Analysis, AnalysisConfig};
use anyhow::{bail, Result};
use propnet::PropnetMachine;
use search::Solution;
use serde::Serialize;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// One exhaustive search and how long it took.
#[derive(Serialize)]
struct Run {
    dead_state_removal: bool,
    /// Whether the moves of factors nothing that matters reads were collapsed to one.
    factored: bool,
    seconds: f64,
    #[serde(flatten)]
    solution: Solution,
}

/// The heuristic search's result.
#[derive(Serialize)]
struct Search {
    /// Seconds the search took (building the bound included).
    seconds: f64,
    /// The plan's length in moves.
    moves: usize,
    #[serde(flatten)]
    solution: Solution,
}

/// What `latchkey solve --json` prints.
#[derive(Serialize)]
struct Report {
    game: String,
    /// Seconds spent finding the latches and goal latches the pruning uses.
    analysis_seconds: f64,
    /// Factors the search left aside (nothing that matters reads them).
    factors_left_aside: usize,
    search: Search,
    /// With `--stats`, where factors were left aside: the same search with every factor searched.
    #[serde(skip_serializing_if = "Option::is_none")]
    unfactored: Option<Search>,
    /// With `--stats`: the exhaustive solver with dead-state removal (and factors left aside,
    /// where there are any, then without), then plain.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    exhaustive: Vec<Run>,
}

/// The shape of `latchkey solve --json`.
const SCHEMA: u32 = 1;

/// `latchkey solve`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// A GDL file, or the name of a bundled game.
    game: String,
    /// Seconds allowed for the propnet build, the analysis and the search together (and per
    /// comparison run); when they run out, the best plan found so far is printed, not marked
    /// optimal.
    #[arg(long, default_value_t = 60.0, value_parser = crate::output::seconds)]
    time: f64,
    /// Also solve exhaustively with and without chapter 12's dead-state removal and compare
    /// the node counts.
    #[arg(long)]
    stats: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Solves the game within its time (propnet build, analysis and search together; each `--stats`
/// comparison run gets as long again) and prints the plan.
pub fn run(args: Args) -> Result<ExitCode> {
    let (spec, secs, stats) = (&args.game, args.time, args.stats);
    let budget = Duration::from_secs_f64(secs);
    let start = Instant::now();
    let deadline = start + budget;
    let game = game::prepare(spec, deadline)?;
    let Some(propnet) = game.net() else {
        bail!("cannot solve {spec} without a propnet, and none was built within {secs} s");
    };
    let net = &*propnet.net;
    let analysing = Instant::now();
    let analysis = Analysis::run(
        net,
        &game.desc,
        &AnalysisConfig { deadline: Some(deadline), ..AnalysisConfig::default() },
        &mut |_| {},
    );
    let analysis_seconds = analysing.elapsed().as_secs_f64();

    // The fuzzy goal heuristic orders siblings the bound cannot tell apart; without one (rules it
    // cannot instantiate) the search goes on unguided.
    let mut fuzzy = heuristic::FuzzyGoals::new(&game.desc, net, &heuristic::Params::default())
        .ok()
        .map(|f| f.with_latches(net, &analysis));
    let mut guide = |state: &propnet::PropnetState| fuzzy.as_mut().map_or(0.0, |f| f.value(state, 0));
    // Factors are worth passing only where search can leave one aside or try one at a time.
    let factors = analysis.factors.as_ref().filter(|f| f.useful());
    let mut heuristic_search = |factors, deadline| {
        let begun = Instant::now();
        let options = search::SolveConfig {
            goals: Some(&analysis.goals),
            factors,
            guidance: Some(&mut guide),
            deadline: Some(deadline),
        };
        let solution = search::solve(net, options)?;
        anyhow::Ok(Search { seconds: begun.elapsed().as_secs_f64(), moves: solution.plan.len(), solution })
    };
    let search = heuristic_search(factors, deadline)?;
    let unfactored = match factors {
        Some(_) if stats => Some(heuristic_search(None, Instant::now() + budget)?),
        _ => None,
    };

    let mut exhaustive = Vec::new();
    if stats {
        let values: Vec<u32> = net.goals[0].iter().map(|&(v, _)| v).collect();
        let mut runs = vec![(true, factors), (false, None)];
        if factors.is_some() {
            runs.insert(1, (true, None));
        }
        for (removal, factors) in runs {
            let begun = Instant::now();
            let mut m = PropnetMachine::new(net);
            let goals = removal.then_some(&analysis.goals);
            let solution = search::exhaustive(&mut m, goals, factors, &values, Some(begun + budget))?;
            let seconds = begun.elapsed().as_secs_f64();
            exhaustive.push(Run { dead_state_removal: removal, factored: factors.is_some(), seconds, solution });
        }
    }
    let left_aside = factors.map_or(0, |f| f.factors.iter().filter(|x| x.prunable()).count());
    let report =
        Report { game: game.name, analysis_seconds, factors_left_aside: left_aside, search, unfactored, exhaustive };
    if args.json {
        crate::output::print_json(SCHEMA, &report)?;
    } else {
        print(&report);
    }
    Ok(ExitCode::SUCCESS)
}

fn print(r: &Report) {
    let best = &r.search.solution;
    println!("game     {}", r.game);
    match best.score {
        Some(score) => {
            let proof = if best.optimal {
                "optimal: no better score, no shorter plan"
            } else if best.one_factor {
                "the shortest plan playing one factor; no goal value is higher"
            } else {
                "best found; search cut short"
            };
            println!("score    {score} ({proof})");
            println!("plan     {} ({} moves)", best.plan.join(" "), best.plan.len());
        }
        None if best.optimal => println!("score    none: no terminal state has a goal value"),
        None => println!("score    none: no terminal state reached within the time limit"),
    }
    let s = &best.stats;
    let bound = s
        .bound
        .map_or_else(|| "none".to_owned(), |b| if b == search::UNREACHABLE { "∞".into() } else { b.to_string() });
    println!(
        "search   {} nodes, {} dead pruned, {} passes, {:.3} s (lower bound at the start: {bound})",
        s.nodes, s.pruned, s.passes, r.search.seconds
    );
    println!("analysis {:.3} s (latches, goal latches, factors)", r.analysis_seconds);
    if r.factors_left_aside > 0 {
        println!(
            "factors  {} left aside: nothing that matters reads them; one of their moves stands for all",
            r.factors_left_aside
        );
    }
    if let Some(u) = &r.unfactored {
        let s = &u.solution.stats;
        println!("unfactored search: {} nodes, {} passes, {:.3} s ({} moves)", s.nodes, s.passes, u.seconds, u.moves);
    }
    if !r.exhaustive.is_empty() {
        println!(
            "\n{:<28} {:>12} {:>14} {:>8} {:>10}",
            "exhaustive search", "nodes", "dead pruned", "passes", "seconds"
        );
        for run in &r.exhaustive {
            let s = &run.solution.stats;
            let name = match (run.dead_state_removal, run.factored) {
                (true, true) => "dead-state removal, factored",
                (true, false) => "with dead-state removal",
                (false, _) => "plain",
            };
            println!("{name:<28} {:>12} {:>14} {:>8} {:>10.3}", s.nodes, s.pruned, s.passes, run.seconds);
        }
    }
}
