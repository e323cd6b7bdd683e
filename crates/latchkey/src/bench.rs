//! `latchkey bench`: single-threaded random playouts per second on each engine, measured in one
//! run so that the ratio between engines means something on a noisy, shared machine; and, where
//! random games confirm a goal form, the propnet again with its goals emulated.

use crate::engine::build_propnet;
use crate::game;
use analysis::GoalForms;
use anyhow::Result;
use clap::ValueEnum;
use machine::{run_playouts_for, PlayoutStats};
use propnet::PropnetMachine;
use reasoner::Reasoner;
use serde::Serialize;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Which engines `latchkey bench` measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Engines {
    /// Only the reasoner.
    Reasoner,
    /// Only the propnet.
    Propnet,
    /// Both, and their ratio.
    All,
}

/// Playouts longer than this are cut (a game that never ends must not hang the benchmark).
const MAX_STEPS: u32 = 10_000;

/// The seed of the first run of playouts of every engine.
const SEED: u64 = 2;

/// Everything measured for one game.
#[derive(Debug, Serialize)]
struct GameBench {
    game: String,
    /// Ground + build + optimise, in seconds, when the propnet was measured and built.
    propnet_build_secs: Option<f64>,
    /// Why the propnet could not be built, if it could not.
    propnet_error: Option<String>,
    reasoner: Option<PlayoutStats>,
    propnet: Option<PlayoutStats>,
    /// The propnet with goals computed by a confirmed goal form instead of the goal gates,
    /// where random games confirm one.
    propnet_emulated: Option<PlayoutStats>,
    /// The goal form that emulates the goals.
    goal_form: Option<String>,
    /// Propnet playouts/s over reasoner playouts/s.
    ratio: Option<f64>,
    /// Wall time spent on the game: loading, building, confirming a goal form and every engine's
    /// playouts.
    wall_secs: f64,
}

/// The most time random games may take to confirm a goal form.
const FORMS_TIME: Duration = Duration::from_secs(2);

/// The shape of `latchkey bench --json`.
const SCHEMA: u32 = 1;

/// `latchkey bench`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// GDL files or bundled game names.
    #[arg(required = true)]
    games: Vec<String>,
    /// Seconds of playouts per game and engine: the propnet, the propnet with its goals
    /// emulated (where a goal form is confirmed) and the reasoner each take this long, after the
    /// propnet's build and up to 2 s confirming a goal form.
    #[arg(long, default_value_t = 5.0)]
    secs: f64,
    /// Which engines to measure.
    #[arg(long, value_enum, default_value_t = Engines::All)]
    engine: Engines,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// What `latchkey bench --json` prints.
#[derive(Serialize)]
struct Report {
    /// Every game, in the order given.
    games: Vec<GameBench>,
}

/// Runs the benchmark over the games and prints the results.
pub fn run(args: Args) -> Result<ExitCode> {
    let (secs, engines, json) = (args.secs, args.engine, args.json);
    let mut results = Vec::new();
    for spec in &args.games {
        let started = Instant::now();
        let game = game::load(spec)?;
        let mut bench = GameBench {
            game: game.name.clone(),
            propnet_build_secs: None,
            propnet_error: None,
            reasoner: None,
            propnet: None,
            propnet_emulated: None,
            goal_form: None,
            ratio: None,
            wall_secs: 0.0,
        };
        if engines != Engines::Reasoner {
            let start = Instant::now();
            match build_propnet(&game) {
                Ok(net) => {
                    bench.propnet_build_secs = Some(start.elapsed().as_secs_f64());
                    bench.propnet = Some(run_playouts_for(&mut PropnetMachine::new(&net), secs, SEED, MAX_STEPS)?);
                    let forms = GoalForms::discover(&net, Some(Instant::now() + FORMS_TIME), 0);
                    if let Some(form) = forms.emulator() {
                        bench.goal_form = Some(form.describe(&net.roles));
                        let mut m = PropnetMachine::new(&net);
                        m.set_goal_oracle(Some(Arc::new(forms)));
                        bench.propnet_emulated = Some(run_playouts_for(&mut m, secs, SEED, MAX_STEPS)?);
                    }
                }
                Err(e) => bench.propnet_error = Some(e.to_string()),
            }
        }
        if engines != Engines::Propnet {
            bench.reasoner = Some(run_playouts_for(&mut Reasoner::new(&game.desc), secs, SEED, MAX_STEPS)?);
        }
        if let (Some(p), Some(r)) = (&bench.propnet, &bench.reasoner) {
            bench.ratio = Some(p.playouts_per_sec / r.playouts_per_sec);
        }
        bench.wall_secs = started.elapsed().as_secs_f64();
        if !json {
            print(&bench);
        }
        results.push(bench);
    }
    if json {
        crate::output::print_json(SCHEMA, &Report { games: results })?;
    }
    Ok(ExitCode::SUCCESS)
}

fn print(b: &GameBench) {
    println!("{}", b.game);
    if let Some(secs) = b.propnet_build_secs {
        println!("  propnet built and optimised in {secs:.3} s");
    }
    if let Some(e) = &b.propnet_error {
        println!("  propnet: not built ({e})");
    }
    for (name, m) in [("propnet", &b.propnet), ("emulated", &b.propnet_emulated), ("reasoner", &b.reasoner)] {
        if let Some(m) = m {
            println!(
                "  {name:<9} {:>12.1} playouts/s {:>14.0} states/s   ({} playouts in {:.2} s, average length {:.1})",
                m.playouts_per_sec, m.states_per_sec, m.count, m.elapsed_secs, m.average_length
            );
        }
    }
    if let (Some(e), Some(p), Some(form)) = (&b.propnet_emulated, &b.propnet, &b.goal_form) {
        println!("  emulated / propnet = {:.2}x (goals by {form})", e.playouts_per_sec / p.playouts_per_sec);
    }
    if let Some(r) = b.ratio {
        println!("  propnet / reasoner = {r:.1}x");
    }
    let runs = [&b.propnet, &b.propnet_emulated, &b.reasoner].into_iter().flatten();
    let (engines, playing) = runs.fold((0, 0.0), |(n, t), m| (n + 1, t + m.elapsed_secs));
    println!(
        "  {:.1} s in all: {engines} engine{} measured, {playing:.1} s of playouts; {:.1} s loading, building{}",
        b.wall_secs,
        if engines == 1 { "" } else { "s" },
        b.wall_secs - playing,
        if b.goal_form.is_some() { " and confirming the goal form" } else { "" }
    );
}
