//! The `latchkey` command line: check GDL, run random playouts, count the game tree and replay
//! reference trajectories. The logic lives in the library crates; this file parses arguments,
//! picks an engine and prints.

mod analyze;
mod bench;
mod engine;
mod game;
mod heuristic;
mod matches;
mod serve;
mod solve;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use engine::{on_machine, Engine, OnMachine};
use machine::perft::PerftLimits;
use machine::{ConformOptions, ConformReport, PerftResult, PlayoutStats, Reference, StateMachine};
use reasoner::Reasoner;
use serde::Serialize;
use std::process::ExitCode;

/// A General Game Playing engine: give it the rules of a game in GDL.
#[derive(Parser)]
#[command(name = "latchkey", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and validate a game; print its roles, rule counts and any problems.
    Check {
        /// A GDL file, or the name of a bundled game (see `latchkey games`).
        game: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Play random games from the initial state and report lengths, goals and speed.
    Playout {
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
    },
    /// Count distinct states and joint-move paths at each depth of the game tree.
    Perft {
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
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Replay reference trajectories and perft counts and report every disagreement.
    Conform {
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
    },
    /// Build the game's propositional network and report its size and build time.
    Propnet {
        /// A GDL file, or the name of a bundled game.
        game: String,
        /// Write the net in Graphviz DOT to this file (`-` for standard output).
        #[arg(long)]
        dot: Option<String>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Measure random-playout speed, single-threaded, on each engine in the same run.
    Bench {
        /// GDL files or bundled game names.
        #[arg(required = true)]
        games: Vec<String>,
        /// Seconds of playouts per game and engine.
        #[arg(long, default_value_t = 5.0)]
        secs: f64,
        /// Which engines to measure.
        #[arg(long, value_enum, default_value_t = bench::Engines::All)]
        engine: bench::Engines,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Discover the game's structure: latches, inhibitors, goal latches, dead propositions.
    Analyze {
        /// A GDL file, or the name of a bundled game.
        game: String,
        /// Which methods to run.
        #[arg(long, value_enum, default_value_t = analyze::Methods::All)]
        method: analyze::Methods,
        /// Which solver proves latches by the two-step question.
        #[arg(long, value_enum, default_value_t = analyze::ProverArg::Sat)]
        prover: analyze::ProverArg,
        /// Seconds for the whole analysis, propnet build included, like a start clock; phases
        /// that would start later are skipped, and proofs still open are counted, in the notes.
        #[arg(long, default_value_t = 10.0, value_parser = seconds)]
        time: f64,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Solve a single-player game: the best score and a shortest plan reaching it, by IDA*
    /// under a lower bound found in the net, with dead states pruned.
    Solve {
        /// A GDL file, or the name of a bundled game.
        game: String,
        /// Seconds allowed for the propnet build, the analysis and the search together (and per
        /// comparison run); when they run out, the best plan found so far is printed, not marked
        /// optimal.
        #[arg(long, default_value_t = 60.0, value_parser = seconds)]
        time: f64,
        /// Also solve exhaustively with and without chapter 12's dead-state removal and compare
        /// the node counts.
        #[arg(long)]
        stats: bool,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Play a series of local matches between players, swapping seats across games.
    Match {
        /// A GDL file, or the name of a bundled game.
        game: String,
        /// One player per role, comma-separated: a built-in player (see docs/match.md) or the
        /// http://host:port of a GGP player.
        #[arg(long, value_delimiter = ',', required = true)]
        players: Vec<String>,
        /// How many matches.
        #[arg(long, default_value_t = 10)]
        games: usize,
        /// Seconds each player has to prepare.
        #[arg(long, default_value_t = 5.0)]
        startclock: f64,
        /// Seconds each player has per move.
        #[arg(long, default_value_t = 1.0)]
        playclock: f64,
        /// Seed of the random players and of the moves that replace faulty ones.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Print the whole series as JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Do not show the moves as they are played.
        #[arg(long, short = 'q')]
        quiet: bool,
    },
    /// Play matches for a GGP game server over HTTP, one at a time.
    Serve {
        /// The port to listen on (0 picks a free one; the address is printed).
        #[arg(long, default_value_t = 9147)]
        port: u16,
        /// The address to listen on.
        #[arg(long, default_value = "0.0.0.0")]
        host: String,
        /// The player that plays the matches.
        #[arg(long, default_value = "mcts")]
        player: String,
        /// Seconds kept back from every clock for the network.
        #[arg(long, default_value_t = 1.0, value_parser = seconds)]
        margin: f64,
        /// Seed of the player's randomness.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Do not log the messages on standard error.
        #[arg(long, short = 'q')]
        quiet: bool,
    },
    /// Fuzzy goal heuristics (chapter 16): how nearly a state satisfies each role's goals.
    Heuristic {
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
    },
    /// List the bundled games.
    Games,
}

/// Parses a time limit: a finite, non-negative number of seconds.
fn seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if (0.0..1e9).contains(&s) => Ok(s),
        Ok(_) => Err("must be a number of seconds between 0 and 10^9".into()),
        Err(e) => Err(e.to_string()),
    }
}

fn main() -> ExitCode {
    restore_sigpipe();
    let code = match run(Cli::parse()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    };
    analysis::wait_for_abandoned_proofs();
    code
}

/// Lets the process end quietly when its output is piped into a reader that stops early
/// (`latchkey analyze GAME | head`), as command-line tools do, instead of panicking on the write.
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in main, before any other thread exists; restoring the default
    // action of a signal has no other effect on the program.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Check { game, json } => check(&game, json),
        Command::Playout { game, count, seed, max_steps, engine, json } => {
            let game = game::load(&game)?;
            let stats = on_machine(&game, engine, Playouts { count, seed, max_steps })?;
            if json {
                print_json(&stats)?;
            } else {
                println!("{stats}");
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Perft { game, depth, max_expansions, engine, json } => {
            let game = game::load(&game)?;
            let result =
                on_machine(&game, engine, Perft { depth, limits: PerftLimits { max_expansions, deadline: None } })?;
            if json {
                print_json(&result)?;
            } else {
                print_perft(&result);
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Conform { game, reference, engine, no_perft, show, json } => {
            let reference = machine::reference::load(&reference)?;
            let game = game::load(&game)?;
            let options = ConformOptions { perft: !no_perft, ..ConformOptions::default() };
            let report = on_machine(&game, engine, Conform { reference, options })?;
            if json {
                print_json(&report)?;
            } else {
                println!("{}", report.render(show));
            }
            Ok(if report.is_ok() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
        }
        Command::Bench { games, secs, engine, json } => bench::run(&games, secs, engine, json),
        Command::Propnet { game, dot, json } => propnet_report(&game, dot.as_deref(), json),
        Command::Analyze { game, method, prover, time, json } => analyze::run(&game, method, prover, time, json),
        Command::Solve { game, time, stats, json } => solve::run(&game, time, stats, json),
        Command::Match { game, players, games, startclock, playclock, seed, json, quiet } => {
            matches::run(matches::Args {
                game,
                players,
                games,
                start_clock: startclock,
                play_clock: playclock,
                seed,
                json,
                quiet,
            })
        }
        Command::Serve { port, host, player, margin, seed, quiet } => {
            serve::run(serve::Args { host, port, player, margin, seed, quiet })
        }
        Command::Heuristic { game, state, moves, tau, theta, yager_q, latches, json } => {
            heuristic::run(&game, &heuristic::Args { state, moves, tau, theta, yager_q, latches, json })
        }
        Command::Games => {
            for g in games::ALL {
                println!("{}", g.name);
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `latchkey playout`.
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

/// `latchkey perft`.
struct Perft {
    depth: u32,
    limits: PerftLimits,
}

impl OnMachine for Perft {
    type Output = PerftResult;
    fn run<M: StateMachine>(self, m: &mut M) -> Result<PerftResult> {
        Ok(machine::perft(m, self.depth, &self.limits)?)
    }
}

/// `latchkey conform`.
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

fn print_json<T: Serialize>(value: &T) -> Result<()> {
    println!("{}", serde_json::to_string_pretty(value).context("cannot print JSON")?);
    Ok(())
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

fn check(spec: &str, json: bool) -> Result<ExitCode> {
    let (name, label, text) = game::read(spec)?;
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
    if json {
        print_json(&report)?;
    } else {
        print_check(&report);
    }
    Ok(if valid { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

fn print_check(r: &CheckReport) {
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

fn print_perft(r: &PerftResult) {
    println!("{:>5} {:>12} {:>16} {:>10}", "depth", "states", "paths", "terminal");
    for l in &r.levels {
        println!("{:>5} {:>12} {:>16} {:>10}", l.depth, l.states, l.paths, l.terminal_states);
    }
    if let Some(cut) = &r.cut {
        println!("{cut}");
    }
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
}

fn propnet_report(spec: &str, dot: Option<&str>, json: bool) -> Result<ExitCode> {
    let game = game::load(spec)?;
    let start = std::time::Instant::now();
    let (net, atoms, ground_rules) =
        engine::build_raw_propnet(&game).with_context(|| format!("cannot build a propnet for {spec}"))?;
    let build_secs = start.elapsed().as_secs_f64();
    let (optimized, stats) = propnet::optimize::optimize(&net);
    let report =
        PropnetReport { game: spec.to_owned(), atoms, ground_rules, build_secs, before: net.counts(), optimize: stats };
    if let Some(path) = dot {
        let text = propnet::dot::to_dot(&optimized);
        if path == "-" {
            print!("{text}");
            return Ok(ExitCode::SUCCESS);
        }
        std::fs::write(path, text).with_context(|| format!("cannot write {path}"))?;
    }
    if json {
        print_json(&report)?;
    } else {
        println!("game        {}", report.game);
        println!("grounded    {} atoms, {} ground rules", report.atoms, report.ground_rules);
        println!("built       {:.3} s: {}", report.build_secs, report.before);
        println!("optimised   {:.3} s: {}", report.optimize.micros as f64 / 1e6, report.optimize.after);
        println!("total       {:.3} s", report.build_secs + report.optimize.micros as f64 / 1e6);
    }
    Ok(ExitCode::SUCCESS)
}
