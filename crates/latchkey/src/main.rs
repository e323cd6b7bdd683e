//! The `latchkey` command line. The logic lives in the library crates; each command's module
//! declares its flags (a `clap::Args` struct), loads the game, runs the work on the chosen engine
//! and prints, for people or as JSON.

mod analyze;
mod balance;
mod bench;
mod boards;
mod check;
mod conform;
mod engine;
mod game;
mod heuristic;
mod local;
mod matches;
mod moves;
mod net;
mod output;
mod perft;
mod pie;
mod play;
mod playout;
mod replay;
mod report;
mod serve;
mod solve;
mod tournament;

use anyhow::Result;
use clap::{Parser, Subcommand};
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
    Check(check::Args),
    /// Play random games from the initial state and report lengths, goals and speed.
    Playout(playout::Args),
    /// Count distinct states and joint-move paths at each depth of the game tree.
    Perft(perft::Args),
    /// Replay reference trajectories and perft counts and report every disagreement.
    Conform(conform::Args),
    /// Build the game's propositional network and report its size and build time.
    Propnet(net::Args),
    /// Measure random-playout speed, single-threaded, on each engine in the same run.
    Bench(bench::Args),
    /// Discover the game's structure: latches, inhibitors, goal latches, dead propositions.
    Analyze(analyze::Args),
    /// Solve a single-player game: the best score and a shortest plan reaching it, by IDA*
    /// under a lower bound found in the net, with dead states pruned.
    Solve(solve::Args),
    /// Search endgame positions for forced wins with the local search the mcts player runs:
    /// the depth reached over time, nodes per second, the wins found.
    Local(local::Args),
    /// Play a series of local matches between players, swapping seats across games.
    Match(matches::Args),
    /// Whether a game favours a seat: a random player and a searching player each play
    /// themselves with the seats swapped; each seat's score, wins and edge, with a verdict.
    Balance(balance::Args),
    /// Write a two-player game's pie-rule variant: after the first move, the second player may
    /// swap sides instead of replying.
    Pie(pie::Args),
    /// Play a tournament: seat-swapped pairs between many players, concurrently, stopped by an
    /// SPRT, rated, journaled and resumable.
    Tournament(tournament::Args),
    /// Play matches for a GGP game server over HTTP, one at a time.
    Serve(serve::Args),
    /// Fuzzy goal heuristics (chapter 16): how nearly a state satisfies each role's goals.
    Heuristic(heuristic::Args),
    /// The board read from the rules, drawn for the initial state or after the given moves.
    Board(boards::Args),
    /// Play a game yourself, at the keyboard, against players of the other roles.
    Play(play::Args),
    /// Write a web page that replays recorded matches with the board at every step.
    Replay(replay::Args),
    /// Write a page about a game for its author: the rules with their problems, the board, what
    /// the analysis found drawn on it, a picture of the propnet, faults found in play, balance.
    Report(report::Args),
    /// List the bundled games.
    Games,
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
        Command::Check(args) => check::run(args),
        Command::Playout(args) => playout::run(args),
        Command::Perft(args) => perft::run(args),
        Command::Conform(args) => conform::run(args),
        Command::Propnet(args) => net::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Analyze(args) => analyze::run(args),
        Command::Solve(args) => solve::run(args),
        Command::Local(args) => local::run(args),
        Command::Match(args) => matches::run(args),
        Command::Tournament(args) => tournament::run(args),
        Command::Balance(args) => balance::run(args),
        Command::Pie(args) => pie::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Heuristic(args) => heuristic::run(args),
        Command::Board(args) => boards::run(args),
        Command::Play(args) => play::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Report(args) => report::run(args),
        Command::Games => {
            for g in games::ALL {
                println!("{}", g.name);
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
