//! `latchkey heuristic`: chapter 16's fuzzy goal heuristics for one state of a game — each
//! role's degree of every goal value and the combined value — in the initial state, after some
//! joint moves, or in a state read from a file.

use crate::engine::build_propnet;
use crate::game;
use analysis::{Analysis, AnalysisConfig};
use anyhow::{bail, Context, Result};
use heuristic::{CircuitStats, FuzzyGoals, GoalDegree, Norm, Params};
use machine::StateMachine;
use propnet::{Net, PropnetMachine, PropnetState};
use serde::Serialize;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// The shape of `latchkey heuristic --json`.
const SCHEMA: u32 = 1;

/// `latchkey heuristic`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// A GDL file, or the name of a bundled game.
    game: String,
    /// A file of base propositions (KIF) making up the state.
    #[arg(long, conflicts_with = "moves")]
    state: Option<String>,
    /// Joint moves from the initial state, one move per role each, e.g. "(mark 1 1)" noop.
    #[arg(long, num_args = 1..)]
    moves: Vec<String>,
    /// The degree of a true proposition, between 0.5 and 1.
    #[arg(long, default_value_t = 0.9, allow_negative_numbers = true)]
    tau: f64,
    /// The threshold θ of chapter 16.4, above 0.5 and at most tau.
    #[arg(long, allow_negative_numbers = true)]
    theta: Option<f64>,
    /// Use the Yager t-norm with this parameter q (0 to inf) instead of the product.
    #[arg(long, allow_negative_numbers = true)]
    yager_q: Option<f64>,
    /// Refine the degrees with the game's latches (chapter 16.4).
    #[arg(long)]
    latches: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// How long the latch analysis may take.
const ANALYSIS_TIME: Duration = Duration::from_secs(10);

/// What `latchkey heuristic --json` prints.
#[derive(Serialize)]
struct Report {
    game: String,
    params: Params,
    /// Where the state came from, e.g. "initial state".
    state: String,
    /// The base propositions true in it.
    propositions: Vec<String>,
    circuit: CircuitStats,
    latches: Option<LatchReport>,
    roles: Vec<RoleReport>,
}

#[derive(Serialize)]
struct LatchReport {
    /// Latch literals with an effect on the formulas.
    literals: usize,
    /// Propositions false for good in this state (degree 0).
    fixed_false: Vec<String>,
    /// Propositions true for good in this state (degree 1).
    fixed_true: Vec<String>,
}

#[derive(Serialize)]
struct RoleReport {
    role: String,
    /// The combined heuristic value, 0 to 100.
    value: f64,
    /// Every goal value's degree, values ascending.
    goals: Vec<GoalDegree>,
}

/// Prints the heuristics of the game in the state the arguments describe.
pub fn run(args: Args) -> Result<ExitCode> {
    let spec = &args.game;
    let params = Params { tau: args.tau, theta: args.theta, norm: args.yager_q.map_or(Norm::Product, Norm::Yager) };
    params.validate().context("invalid parameters")?;
    let game = game::load(spec)?;
    let net = build_propnet(&game).with_context(|| format!("cannot build a propnet for {spec}"))?;
    let mut goals = FuzzyGoals::new(&game.desc, &net, &params)
        .with_context(|| format!("cannot build the goal heuristics of {spec}"))?;
    if args.latches {
        let options = AnalysisConfig { deadline: Some(Instant::now() + ANALYSIS_TIME), ..AnalysisConfig::default() };
        goals = goals.with_latches(&net, &Analysis::run(&net, &game.desc, &options, &mut |_| {}));
    }
    let mut m = PropnetMachine::new(&net);
    let (state, source) = match &args.state {
        Some(file) => (read_state(&net, file)?, format!("read from {file}")),
        None => crate::moves::play(&mut m, &args.moves)?,
    };
    let latches = args.latches.then(|| {
        let latched = goals.latched(&state);
        let names = |bases: Vec<usize>| bases.into_iter().map(|i| net.bases[i].name.clone()).collect();
        LatchReport {
            literals: goals.latch_literals(),
            fixed_false: names(latched.never),
            fixed_true: names(latched.always),
        }
    });
    let degrees = goals.degrees(&state);
    let values = goals.values(&state);
    let roles = (goals.roles().iter().zip(degrees).zip(values))
        .map(|((role, goals), value)| RoleReport { role: role.clone(), value, goals })
        .collect();
    let report = Report {
        game: game.name,
        params: *goals.params(),
        state: source,
        propositions: m.state_props(&state),
        circuit: goals.stats(),
        latches,
        roles,
    };
    if args.json {
        crate::output::print_json(SCHEMA, &report)?;
    } else {
        print(&report);
    }
    Ok(ExitCode::SUCCESS)
}

/// The state made of the base propositions listed in `file` (KIF, with or without `true`).
fn read_state(net: &Net, file: &str) -> Result<PropnetState> {
    let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {file}"))?;
    let desc = gdl::parse(file, &text)?;
    let mut bases = Vec::new();
    for rule in &desc.rules {
        if !rule.is_fact() {
            bail!("{file}:{}: expected a base proposition, found a rule", rule.pos);
        }
        let name = match (rule.head.rel, rule.head.args.as_slice()) {
            (gdl::Sym::TRUE, [prop]) => prop.to_string(),
            _ => rule.head.to_string(),
        };
        match net.bases.iter().position(|b| b.name == name) {
            Some(i) => bases.push(i),
            None => bail!("{file}:{}: {name} is not a base proposition of the game", rule.pos),
        }
    }
    Ok(PropnetState::from_bases(net.bases.len(), bases))
}

fn print(r: &Report) {
    println!("game       {}", r.game);
    println!("state      {}", r.state);
    println!("params     {}", r.params);
    let c = &r.circuit;
    let cycles = if c.cycles > 0 { format!(", {} recursive blocks", c.cycles) } else { String::new() };
    println!("circuit    {} gates over {} base propositions{cycles}", c.gates, c.bases);
    if let Some(l) = &r.latches {
        let count = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        println!(
            "latches    {} with an effect; in this state {} fixed at 0, {} at 1",
            count(l.literals, "latch literal"),
            count(l.fixed_false.len(), "proposition"),
            l.fixed_true.len()
        );
    }
    println!();
    println!("{:<16} {:>10}   goal degrees", "role", "value");
    for role in &r.roles {
        let goals: Vec<String> = role.goals.iter().rev().map(|g| format!("{}: {:.6}", g.value, g.degree)).collect();
        println!("{:<16} {:>10.6}   {}", role.role, role.value, goals.join("  "));
    }
}
