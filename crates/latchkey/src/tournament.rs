//! `latchkey tournament`: seat-swapped pairs between many players on one or many games, played
//! concurrently, stopped by an SPRT, rated, journaled as they end, and resumable.

use crate::game;
use anyhow::{bail, Context, Result};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};
use tournament::{Entrant, Event, Format, Journal, PairingReport, Played, Report, Settings, Tournament};

/// The shape of `latchkey tournament --json`.
const SCHEMA: u32 = 1;

/// `latchkey tournament`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// GDL files or bundled games' names.
    games: Vec<String>,
    /// A player (repeat for each): a built-in player's spec, http://host:port (a pool of the
    /// same player joined by +), or cmd:COMMAND with {port} in it; NAME=SPEC names it.
    #[arg(long = "player", value_name = "SPEC")]
    player: Vec<String>,
    /// The players, comma-separated, for specs without commas (instead of --player).
    #[arg(long, value_delimiter = ',', conflicts_with = "player")]
    players: Vec<String>,
    /// gauntlet (the first player against each other) or round-robin.
    #[arg(long, value_enum, default_value = "gauntlet")]
    format: FormatArg,
    /// Rounds: in each, every pairing plays every game in every seating (default 10, or 1,000
    /// with --sprt, which stops a pairing sooner).
    #[arg(long, value_parser = crate::output::count)]
    rounds: Option<usize>,
    /// Seconds each player has to prepare.
    #[arg(long = "startclock", value_name = "SECONDS", default_value_t = 5.0, value_parser = crate::output::clock_seconds)]
    start_clock: f64,
    /// Seconds each player has per move.
    #[arg(long = "playclock", value_name = "SECONDS", default_value_t = 1.0, value_parser = crate::output::clock_seconds)]
    play_clock: f64,
    /// Seed of round 0; round r is played with seed + r in both seatings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// elo0,elo1 or elo0,elo1,alpha,beta: stop each pairing when a generalised SPRT on its pairs
    /// accepts H0 (the first player is elo0 stronger) or H1 (elo1 stronger); alpha and beta 0.05
    /// if not given.
    #[arg(long)]
    sprt: Option<String>,
    /// Matches played at once.
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// Cores to pin players to (0-3,6): split into one group per seat of every concurrent match.
    #[arg(long)]
    cpus: Option<String>,
    /// The journal to write (JSON Lines; default tournament-TIME.jsonl); never overwritten.
    #[arg(long, conflicts_with = "resume")]
    journal: Option<PathBuf>,
    /// Go on with the tournament of this journal, with its settings: only --concurrency, --cpus,
    /// --json and --quiet may be given with it.
    #[arg(long, value_name = "JOURNAL")]
    resume: Option<PathBuf>,
    /// Print the whole result as JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Do not print a line per match.
    #[arg(long, short = 'q')]
    quiet: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum FormatArg {
    Gauntlet,
    RoundRobin,
}

/// Runs the tournament and prints the results.
pub fn run(args: Args) -> Result<ExitCode> {
    let (journal, settings, done) = match &args.resume {
        Some(path) => {
            if !args.games.is_empty() || !args.player.is_empty() || !args.players.is_empty() || args.sprt.is_some() {
                bail!("--resume takes the games, players and settings from the journal; give only --concurrency, --cpus, --json or --quiet with it");
            }
            let (journal, settings, done) = Journal::resume(path)?;
            (Some(journal), settings, done)
        }
        None => (None, settings(&args)?, Vec::new()),
    };
    let entrants = Entrant::all(&settings.players)?;
    let begun = Instant::now();
    let clock = std::time::Duration::from_secs_f64(settings.start_clock);
    let games = settings
        .games
        .iter()
        .map(|g| game::prepare(g, Instant::now() + clock).map(Arc::new))
        .collect::<Result<Vec<_>>>()?;
    let cpus = args.cpus.as_deref().map(tournament::cpus::parse).transpose()?;
    let path = match &journal {
        Some(j) => j.path().to_owned(),
        None => args.journal.clone().unwrap_or_else(|| {
            let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
            PathBuf::from(format!("tournament-{now}.jsonl"))
        }),
    };
    let logs = PathBuf::from(format!("{}.logs", path.display()));
    let t = Tournament { settings, games, entrants, concurrency: args.concurrency, cpus, logs };
    // Refuse what cannot be played before a journal is written.
    t.check()?;
    let mut journal = match journal {
        Some(j) => j,
        None => Journal::create(&path, &t.settings)?,
    };
    if !args.json {
        eprintln!(
            "journal {} ({} match{} already played); games prepared in {:.2} s",
            journal.path().display(),
            done.len(),
            if done.len() == 1 { "" } else { "es" },
            begun.elapsed().as_secs_f64()
        );
    }

    let halt = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&halt);
    ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            eprintln!("\ninterrupted again: stopping at once");
            std::process::exit(130);
        }
        eprintln!("\ninterrupted: the matches under way are abandoned; every finished one is in the journal (Ctrl-C again to stop at once)");
    })
    .context("cannot catch Ctrl-C")?;

    let (json, quiet) = (args.json, args.quiet);
    let events = move |e: Event<'_>| {
        if json {
            return;
        }
        match e {
            Event::Finished { played, pairing, unit } => {
                if !quiet {
                    println!("{}", describe(played));
                }
                if unit {
                    println!("  {}", progress(pairing));
                }
            }
            Event::Decided { pairing } => println!("  {}", decided(pairing)),
        }
    };
    let report = tournament::run(&t, &mut journal, done, &halt, &events)?;
    if args.json {
        crate::output::print_json(SCHEMA, &report)?;
    } else {
        print_tables(&report, &t.games);
    }
    Ok(if report.interrupted { ExitCode::from(130) } else { ExitCode::SUCCESS })
}

/// The settings the arguments ask for.
fn settings(args: &Args) -> Result<Settings> {
    if args.games.is_empty() {
        bail!("give at least one game");
    }
    let players = if args.player.is_empty() { args.players.clone() } else { args.player.clone() };
    let sprt = args.sprt.as_deref().map(stats::Sprt::parse).transpose().context("--sprt")?;
    let format = match args.format {
        FormatArg::Gauntlet => Format::Gauntlet,
        FormatArg::RoundRobin => Format::RoundRobin,
    };
    Ok(Settings {
        games: args.games.clone(),
        players,
        format,
        rounds: args.rounds.unwrap_or(if sprt.is_some() { 1000 } else { 10 }),
        start_clock: args.start_clock,
        play_clock: args.play_clock,
        seed: args.seed,
        sprt,
    })
}

/// A finished match on one line: who played what, the scores, how it ended, the faults.
fn describe(p: &Played) -> String {
    let seats: Vec<String> = p
        .players
        .iter()
        .zip(&p.roles)
        .zip(&p.record.goals)
        .map(|((who, role), g)| format!("{who} ({role}) {g}"))
        .collect();
    let end = match p.record.end {
        player::End::Terminal => "ended",
        player::End::StepLimit => "called off at the step limit",
        player::End::NoLegalMove => "stopped: a role had no legal move",
    };
    let mut line = format!(
        "{} round {} seating {}: {}; {end} after {} moves",
        p.game,
        p.round + 1,
        p.turn + 1,
        seats.join(", "),
        p.record.moves.len()
    );
    for f in &p.record.faults {
        line.push_str(&format!(" [{} at step {}: {}]", p.players[f.role], f.step, f.fault));
    }
    line
}

/// A pairing's standing on one line.
fn progress(p: &PairingReport) -> String {
    let mut line =
        format!("{} vs {}: {} matches +{} ={} -{}", p.players[0], p.players[1], p.matches, p.wins, p.draws, p.losses);
    if let Some(e) = &p.estimate {
        line.push_str(&format!(
            ", score {:.1}% [{:.1}, {:.1}], Elo {} [{}, {}], LOS {:.1}%",
            100.0 * e.score,
            100.0 * e.score_interval[0],
            100.0 * e.score_interval[1],
            elo(e.elo),
            elo(e.elo_interval[0]),
            elo(e.elo_interval[1]),
            100.0 * e.los
        ));
    }
    if let (Some(llr), Some([lo, hi])) = (p.llr, p.bounds) {
        line.push_str(&format!(", LLR {llr:.2} ({lo:.2}, {hi:.2})"));
    }
    line
}

/// A pairing's SPRT decision on one line.
fn decided(p: &PairingReport) -> String {
    let which = match p.verdict {
        Some(stats::Verdict::AcceptH1) => "H1",
        _ => "H0",
    };
    format!("{} vs {}: the SPRT accepts {which} after {} matches", p.players[0], p.players[1], p.matches)
}

/// An Elo difference, signed, infinite ones as ±inf.
fn elo(x: f64) -> String {
    if x.is_finite() {
        // Rounded first, and -0 made +0, so that a difference of -0.3 reads "+0", not "-0".
        format!("{:+.0}", x.round() + 0.0)
    } else if x > 0.0 {
        "+inf".into()
    } else {
        "-inf".into()
    }
}

/// The final tables of `r`, whose games are `games` (named as `game::read` names them).
fn print_tables(r: &Report, games: &[Arc<player::Game>]) {
    let s = &r.settings;
    println!(
        "\n{} match{} of {} ({}), start clock {} s, play clock {} s{}",
        r.matches,
        if r.matches == 1 { "" } else { "es" },
        games.iter().map(|g| g.name.as_str()).collect::<Vec<_>>().join(", "),
        match s.format {
            Format::Gauntlet => "gauntlet",
            Format::RoundRobin => "round-robin",
        },
        s.start_clock,
        s.play_clock,
        if r.interrupted { "; interrupted: go on with --resume" } else { "" }
    );
    let w = r.pairings.iter().map(|p| p.players[0].len() + p.players[1].len() + 4).max().unwrap_or(0).max(8);
    println!(
        "{:<w$} {:>7} {:>4} {:>4} {:>4} {:>21} {:>17} {:>6} {:>6}  {:<22} {:>7}  sprt",
        "pairing",
        "matches",
        "+",
        "=",
        "-",
        "score % [95%]",
        "Elo [95%]",
        "LOS %",
        "draws",
        "pairs LL LD DD WD WW",
        "LLR"
    );
    for p in &r.pairings {
        let (score, range, los) = match &p.estimate {
            Some(e) => (
                format!(
                    "{:.1} [{:.1}, {:.1}]",
                    100.0 * e.score,
                    100.0 * e.score_interval[0],
                    100.0 * e.score_interval[1]
                ),
                format!("{} [{}, {}]", elo(e.elo), elo(e.elo_interval[0]), elo(e.elo_interval[1])),
                format!("{:.1}", 100.0 * e.los),
            ),
            None => ("-".into(), "-".into(), "-".into()),
        };
        let penta = p
            .pentanomial
            .as_ref()
            .map_or("-".to_owned(), |c| c.iter().map(u64::to_string).collect::<Vec<_>>().join(" "));
        let verdict = match (p.verdict, p.decided_after) {
            (Some(stats::Verdict::AcceptH1), Some(n)) => format!("H1 after {n}"),
            (Some(stats::Verdict::AcceptH0), Some(n)) => format!("H0 after {n}"),
            (Some(_), _) => "undecided".into(),
            (None, _) => "-".into(),
        };
        println!(
            "{:<w$} {:>7} {:>4} {:>4} {:>4} {:>21} {:>17} {:>6} {:>5.1}%  {:<22} {:>7}  {verdict}",
            format!("{} vs {}", p.players[0], p.players[1]),
            p.matches,
            p.wins,
            p.draws,
            p.losses,
            score,
            range,
            los,
            100.0 * p.draw_rate,
            penta,
            p.llr.map_or("-".to_owned(), |l| format!("{l:.2}")),
        );
        let ends: Vec<String> = p.ends.iter().map(|(k, n)| format!("{k} {n}")).collect();
        if p.ends.keys().any(|k| k != "terminal") {
            println!("{:<w$} ends: {}", "", ends.join(", "));
        }
    }
    let w = r.standings.iter().map(|s| s.player.len()).max().unwrap_or(0).max(6);
    println!(
        "\n{:<w$} {:>7} {:>7} {:>22} {:>5} {:>8} {:>7}",
        "player", "matches", "points", "rating [95%]", "late", "illegal", "errors"
    );
    for st in &r.standings {
        let rating = format!("{} [{}, {}]", elo(st.rating.elo), elo(st.rating.interval[0]), elo(st.rating.interval[1]));
        println!(
            "{:<w$} {:>7} {:>7.2} {:>22} {:>5} {:>8} {:>7}",
            st.player, st.matches, st.points, rating, st.late, st.illegal, st.errors
        );
    }
}

#[cfg(test)]
mod tests {
    use super::elo;

    #[test]
    fn elo_differences_are_signed_and_never_minus_zero() {
        assert_eq!(elo(-0.3), "+0");
        assert_eq!(elo(0.0), "+0");
        assert_eq!(elo(12.6), "+13");
        assert_eq!(elo(-12.6), "-13");
        assert_eq!(elo(f64::INFINITY), "+inf");
        assert_eq!(elo(f64::NEG_INFINITY), "-inf");
    }
}
