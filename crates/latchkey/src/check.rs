//! `latchkey check`: parse and validate a game, and summarise its rules.

use crate::game;
use crate::output::print_json;
use anyhow::{bail, Result};
use machine::StateMachine;
use reasoner::Reasoner;
use serde::Serialize;
use std::process::ExitCode;

/// The shape of `latchkey check --json`.
const SCHEMA: u32 = 1;

/// `latchkey check`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// A GDL file, or the name of a bundled game (see `latchkey games`).
    game: String,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// The summary `latchkey check` prints.
#[derive(Serialize)]
struct CheckReport {
    game: String,
    roles: Vec<String>,
    facts: usize,
    rules: usize,
    relations: usize,
    declared_base: Option<usize>,
    declared_input: Option<usize>,
    problems: Vec<String>,
    valid: bool,
}

/// Checks the game and prints the summary; fails if the rules are not valid GDL.
pub fn run(args: Args) -> Result<ExitCode> {
    let (name, label, text) = game::read(&args.game)?;
    let desc = match gdl::parse(&label, &text) {
        Ok(d) => d,
        Err(e) => bail!("{e}"),
    };
    let problems = gdl::validate(&desc);
    let valid = !problems.iter().any(|p| p.severity == gdl::Severity::Error);
    let (declared_base, declared_input) = if valid {
        let mut m = Reasoner::new(&desc);
        let inputs = (0..m.roles().len()).map(|r| m.declared_input(r).len()).sum();
        (Some(m.declared_base().len()).filter(|&n| n > 0), Some(inputs).filter(|&n| n > 0))
    } else {
        (None, None)
    };
    let mut relations: Vec<gdl::Sym> = desc.rules.iter().map(|r| r.head.rel).collect();
    relations.sort();
    relations.dedup();
    let report = CheckReport {
        game: name,
        roles: desc.roles().iter().map(|r| r.to_string()).collect(),
        facts: desc.rules.iter().filter(|r| r.is_fact()).count(),
        rules: desc.rules.iter().filter(|r| !r.is_fact()).count(),
        relations: relations.len(),
        declared_base,
        declared_input,
        problems: problems.iter().map(|p| p.to_string()).collect(),
        valid,
    };
    if args.json {
        print_json(SCHEMA, &report)?;
    } else {
        print(&report);
    }
    Ok(if valid { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

fn print(r: &CheckReport) {
    let shown = |n: Option<usize>, what: &str| n.map_or("none declared".to_owned(), |n| format!("{n} {what}"));
    println!("game       {}", r.game);
    println!("roles      {}", r.roles.join(", "));
    println!("rules      {} facts, {} rules, {} relations defined", r.facts, r.rules, r.relations);
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
}
