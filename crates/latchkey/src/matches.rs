//! `latchkey match`: a series of local matches between players, with the seats rotating, the
//! moves shown as they are played and a table of results at the end.

use crate::game;
use crate::output::seconds_text;
use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use player::{Clocks, Event, FaultRecord, Player, Series, SeriesOptions};
use serde::Serialize;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The shape of `latchkey match --json`.
const SCHEMA: u32 = 2;

/// `latchkey match`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// A GDL file, or the name of a bundled game.
    game: String,
    /// One player per role, comma-separated: a built-in player (see docs/match.md) or the
    /// http://host:port of a GGP player.
    #[arg(long, value_delimiter = ',', required = true)]
    players: Vec<String>,
    /// How many matches.
    #[arg(long, default_value_t = 10, value_parser = crate::output::count)]
    games: usize,
    /// Seconds each player has to prepare.
    #[arg(long = "startclock", value_name = "SECONDS", default_value_t = 5.0, value_parser = crate::output::clock_seconds)]
    start_clock: f64,
    /// Seconds each player has per move.
    #[arg(long = "playclock", value_name = "SECONDS", default_value_t = 1.0, value_parser = crate::output::clock_seconds)]
    play_clock: f64,
    /// Seed of the random players and of the moves that replace faulty ones.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print the whole series as JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Do not show the moves as they are played.
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Draw the board read from the rules after each joint move (see `latchkey board`).
    #[arg(long, conflicts_with_all = ["quiet", "json"])]
    board: bool,
    /// Never colour the board's pieces.
    #[arg(long, requires = "board")]
    no_colour: bool,
}

/// How the game was prepared before the series: players in this process share what was built,
/// and their start clock is what was left of it.
#[derive(Serialize)]
struct Prepared {
    /// `propnet`, or `reasoner` when the net was not built in time.
    engine: &'static str,
    /// Seconds the preparation took.
    seconds: f64,
    /// The start clock of the players in this process, in seconds: the start clock less the
    /// preparation.
    start_clock: f64,
}

/// What `latchkey match --json` prints: the series, and how the game was prepared.
#[derive(Serialize)]
struct Report<'a> {
    /// The game as given on the command line: a GDL file's path or a bundled game's name, for
    /// `latchkey replay` to find the rules by.
    rules: &'a str,
    #[serde(flatten)]
    series: &'a Series,
    prepared: Prepared,
}

/// Plays the series and prints the results.
pub fn run(args: Args) -> Result<ExitCode> {
    let clock = crate::output::clock;
    let clocks = Clocks { start: clock(args.start_clock, "start clock")?, play: clock(args.play_clock, "play clock")? };
    let mut players = args
        .players
        .iter()
        .enumerate()
        .map(|(i, spec)| player::create(spec.trim(), args.seed.wrapping_add(i as u64 + 1)))
        .collect::<Result<Vec<Box<dyn Player>>, _>>()?;
    if let Some(remote) = players.iter().find(|p| p.over_protocol()) {
        player::whole_seconds(clocks, remote.name())?;
    }
    // The game is prepared as a player behind a game server prepares it, within the start
    // clock, and the players in this process, which share it, get what is left of it: a local
    // match measures what a server sees. Players over the protocol build their own and get it all.
    let begun = Instant::now();
    let game = Arc::new(game::prepare(&args.game, begun + clocks.start)?);
    let prepared = Prepared {
        engine: if game.net().is_some() { "propnet" } else { "reasoner" },
        seconds: game.prepared.as_secs_f64(),
        start_clock: game.start_clock(clocks.start, false).as_secs_f64(),
    };
    let names: Vec<String> = players.iter().map(|p| p.name().to_owned()).collect();
    let drawing = match args.board {
        true => Some((crate::boards::infer(&game)?, board::Style { colour: crate::boards::colour(args.no_colour) })),
        false => None,
    };

    let bar = if args.json { ProgressBar::hidden() } else { ProgressBar::new(args.games as u64) };
    bar.set_style(ProgressStyle::with_template("{bar:30} {pos}/{len} games {elapsed} (eta {eta})").expect("valid"));
    let show = |line: String| {
        if args.json {
        } else if bar.is_hidden() {
            println!("{line}");
        } else {
            bar.println(line);
        }
    };
    let roles = game.roles();
    let mut seated = Vec::new();
    let mut events = |e: Event<'_>| match e {
        Event::Started { game, seats } => {
            seated = seats.iter().map(|&p| names[p].clone()).collect();
            let who: Vec<String> = roles.iter().zip(&seated).map(|(r, p)| format!("{p} as {r}")).collect();
            if !args.quiet {
                show(format!("game {game}: {}", who.join(", ")));
            }
        }
        Event::Moved { game, step, moves, faults, state } if !args.quiet => {
            let mut line = format!("  {game}.{step:<3} {}", moves.join(" "));
            for f in faults {
                line.push_str(&format!("  [{}: {}]", roles[f.role], describe(f)));
            }
            show(line);
            if let Some((inference, style)) = &drawing {
                show(board::text(inference.board(), state, *style).trim_end().to_owned());
            }
        }
        Event::Moved { .. } => {}
        Event::Finished { game, record } => {
            let scores: Vec<String> =
                seated.iter().zip(&roles).zip(&record.goals).map(|((p, r), g)| format!("{p} ({r}) {g}")).collect();
            show(format!("game {game} over: {}", scores.join(", ")));
            bar.inc(1);
        }
    };
    let options = SeriesOptions { games: args.games, clocks, seed: args.seed };
    let series = player::run_series(&game, &mut players, options, &mut events)?;
    bar.finish_and_clear();
    if args.json {
        let report = Report { rules: &args.game, series: &series, prepared };
        crate::output::print_json(SCHEMA, &report)?;
    } else {
        print_table(&series, &prepared);
    }
    Ok(ExitCode::SUCCESS)
}

/// A fault in words, with the move played instead.
fn describe(f: &FaultRecord) -> String {
    match &f.replacement {
        Some(mv) => format!("{}, played {mv}", f.fault),
        None => f.fault.to_string(),
    }
}

fn print_table(s: &Series, prepared: &Prepared) {
    println!(
        "\n{} game{} of {}, start clock {} s ({} s for players in this process: prepared on the {} in {:.2} s), play clock {} s",
        s.matches.len(),
        if s.matches.len() == 1 { "" } else { "s" },
        s.game,
        seconds_text(s.options.clocks.start),
        seconds_text(Duration::from_secs_f64(prepared.start_clock)),
        prepared.engine,
        prepared.seconds,
        seconds_text(s.options.clocks.play)
    );
    let w = s.standings.iter().map(|st| st.player.len()).max().unwrap_or(0).max(14);
    println!(
        "{:<w$} {:>6} {:>7} {:>17} {:>5} {:>6} {:>7} {:>5} {:>8} {:>7}",
        "player", "games", "points", "95% CI", "wins", "draws", "losses", "late", "illegal", "errors"
    );
    let count = |n: Option<usize>| n.map_or("-".to_owned(), |n| n.to_string());
    for st in &s.standings {
        let ci = st.ci95.map_or("-".to_owned(), |[lo, hi]| format!("[{lo:.1}, {hi:.1}]"));
        println!(
            "{:<w$} {:>6} {:>7.2} {:>17} {:>5} {:>6} {:>7} {:>5} {:>8} {:>7}",
            st.player,
            st.games,
            st.points,
            ci,
            count(st.wins),
            count(st.draws),
            count(st.losses),
            st.late,
            st.illegal,
            st.errors
        );
    }
}
