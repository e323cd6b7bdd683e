//! `latchkey check`: parse and validate a game, and summarise its rules; with `--play`, play
//! random games and report the faults of the rules they show.

use crate::engine::{on_engine, Engine, OnMachine};
use crate::game::{self, LoadedGame};
use crate::output::print_json;
use anyhow::{bail, Result};
use machine::{Declared, SimulateOptions, Simulation, StateMachine};
use reasoner::Reasoner;
use serde::Serialize;
use std::collections::BTreeSet;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// The shape of `latchkey check --json`.
const SCHEMA: u32 = 1;

/// `latchkey check`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// A GDL file, or the name of a bundled game (see `latchkey games`).
    game: String,
    /// Also play N random games (300 where N is left out) and report the faults of the rules
    /// they show, each with the shortest line of play seen reaching it.
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "300")]
    play: Option<usize>,
    /// With --play: joint moves after which a game that has not ended is reported.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    steps: u32,
    /// With --play: seconds the games may take in all; fewer are played where it runs out.
    #[arg(long, value_name = "S", default_value_t = 60.0, value_parser = crate::output::seconds)]
    time: f64,
    /// With --play: the engine to play on.
    #[arg(long, value_enum, default_value_t = Engine::Propnet)]
    engine: Engine,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// How many facts, rules and relations defined a game has.
#[derive(Serialize, Default)]
pub(crate) struct Counts {
    facts: usize,
    rules: usize,
    relations: usize,
}

impl Counts {
    /// The counts of `desc`'s rules.
    pub(crate) fn of(desc: &gdl::Description) -> Counts {
        let mut relations: Vec<gdl::Sym> = desc.rules.iter().map(|r| r.head.rel).collect();
        relations.sort();
        relations.dedup();
        Counts {
            facts: desc.rules.iter().filter(|r| r.is_fact()).count(),
            rules: desc.rules.iter().filter(|r| !r.is_fact()).count(),
            relations: relations.len(),
        }
    }
}

/// The summary `latchkey check` prints.
#[derive(Serialize)]
struct CheckReport {
    game: String,
    roles: Vec<String>,
    #[serde(flatten)]
    counts: Counts,
    declared_base: Option<usize>,
    declared_input: Option<usize>,
    problems: Vec<String>,
    valid: bool,
    /// The random games' findings, with `--play` on valid rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    play: Option<Played>,
}

/// What `--play` found, and on which engine.
#[derive(Serialize)]
struct Played {
    engine: &'static str,
    #[serde(flatten)]
    simulation: Simulation,
}

/// The random games, on whichever engine plays them.
struct Play {
    options: SimulateOptions,
    declared: Declared,
}

impl OnMachine for Play {
    type Output = Simulation;
    fn run<M: StateMachine>(self, m: &mut M) -> Result<Simulation> {
        Ok(machine::simulate(m, &self.options, &self.declared))
    }
}

/// Checks the game and prints the summary; fails if the rules are not valid GDL.
pub fn run(args: Args) -> Result<ExitCode> {
    let (name, label, text) = game::read(&args.game)?;
    let desc = match gdl::parse(&label, &text) {
        Ok(d) => d,
        // Rules that do not parse are a report too, with the syntax error as its problem.
        Err(e) if args.json => {
            let report = CheckReport {
                game: name,
                roles: Vec::new(),
                counts: Counts::default(),
                declared_base: None,
                declared_input: None,
                problems: vec![e.to_string()],
                valid: false,
                play: None,
            };
            print_json(SCHEMA, &report)?;
            return Ok(ExitCode::FAILURE);
        }
        Err(e) => bail!("{e}"),
    };
    let problems = gdl::validate(&desc);
    let valid = !problems.iter().any(|p| p.severity >= gdl::Severity::Incomplete);
    let declared = if valid { declared(&desc) } else { Declared::default() };
    let declared_base = declared.base.as_ref().map(BTreeSet::len);
    let declared_input = declared.input.as_ref().map(|roles| roles.iter().map(BTreeSet::len).sum());
    let report = CheckReport {
        game: name,
        roles: desc.roles().iter().map(|r| r.to_string()).collect(),
        counts: Counts::of(&desc),
        declared_base,
        declared_input,
        problems: problems.iter().map(|p| p.to_string()).collect(),
        valid,
        play: None,
    };
    let play = match args.play.filter(|_| valid) {
        Some(games) => {
            let options = SimulateOptions {
                games,
                max_steps: args.steps,
                deadline: Some(Instant::now() + Duration::from_secs_f64(args.time)),
                ..SimulateOptions::default()
            };
            let game = LoadedGame { name: report.game.clone(), desc };
            let (simulation, engine) = on_engine(&game, args.engine, Play { options, declared })?;
            Some(Played { engine: engine.name(), simulation })
        }
        None => None,
    };
    let clean = play.as_ref().is_none_or(|p| p.simulation.is_clean());
    let report = CheckReport { play, ..report };
    if args.json {
        print_json(SCHEMA, &report)?;
    } else {
        print(&report);
    }
    Ok(if valid && clean { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// What the game declares with `base` and `input`, in canonical KIF, as the reasoner reads it.
pub(crate) fn declared(desc: &gdl::Description) -> Declared {
    let mut m = Reasoner::new(desc);
    let print = |m: &Reasoner, terms: Vec<gdl::TermId>| -> BTreeSet<String> {
        terms.into_iter().map(|t| m.pool().to_string(t)).collect()
    };
    let base = m.declared_base();
    let base = print(&m, base);
    let input: Vec<BTreeSet<String>> = (0..m.roles().len())
        .map(|r| {
            let terms = m.declared_input(r);
            print(&m, terms)
        })
        .collect();
    Declared { base: (!base.is_empty()).then_some(base), input: input.iter().any(|i| !i.is_empty()).then_some(input) }
}

fn print(r: &CheckReport) {
    let shown = |n: Option<usize>, what: &str| n.map_or("none declared".to_owned(), |n| format!("{n} {what}"));
    println!("game       {}", r.game);
    println!("roles      {}", r.roles.join(", "));
    println!("rules      {} facts, {} rules, {} relations defined", r.counts.facts, r.counts.rules, r.counts.relations);
    println!("base       {}", shown(r.declared_base, "propositions"));
    println!("input      {}", shown(r.declared_input, "moves over all roles"));
    if r.problems.is_empty() {
        println!("problems   none");
    } else {
        println!("problems   {}", r.problems.len());
        for p in &r.problems {
            println!("{p}");
        }
    }
    println!("{}", if r.valid { "valid GDL" } else { "NOT valid GDL" });
    if let Some(p) = &r.play {
        print_play(p);
    }
}

/// The random games' summary and findings.
fn print_play(p: &Played) {
    let s = &p.simulation;
    let short = if s.played < s.asked { format!(" (of {} asked: the time ran out)", s.asked) } else { String::new() };
    let lengths = match s.length {
        Some((lo, hi, mean)) => format!(", {lo} to {hi} joint moves (mean {mean:.1})"),
        None => String::new(),
    };
    println!(
        "play       {} random games{short} on the {} in {:.2} s; {} ended{lengths}",
        s.played, p.engine, s.seconds, s.ended
    );
    if s.findings.is_empty() {
        println!("faults     none");
        return;
    }
    println!("faults     {}", s.findings.len());
    for f in &s.findings {
        println!("  {} (in {} of {} games)", f.fault, f.games, s.played);
        if !f.line.is_empty() || !matches!(f.fault, machine::Fault::NeverChooses { .. }) {
            println!("    {}", line(&f.line));
        }
    }
}

/// A line of play as a person reads it: `from the initial state` or `after 1. (mark 1 1) noop
/// 2. noop (mark 2 2)`.
pub(crate) fn line(joint_moves: &[Vec<String>]) -> String {
    if joint_moves.is_empty() {
        return "in the initial state".into();
    }
    let steps: Vec<String> =
        joint_moves.iter().enumerate().map(|(k, joint)| format!("{}. {}", k + 1, joint.join(" "))).collect();
    format!("after {}", steps.join("  "))
}
