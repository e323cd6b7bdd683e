//! `latchkey balance`: whether a game favours a seat. A player plays itself with the seats
//! swapped, on the tournament machinery (concurrent matches, each journaled as it ends), once
//! with random moves and once with a searching player, since the two can disagree: random play
//! shows what the rules give a seat, search what a good player makes of it.

use crate::game;
use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use player::{MatchRecord, Outcome};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tournament::{Entrant, Event, Format, Journal, Settings, Tournament};

/// The shape of `latchkey balance --json`.
const SCHEMA: u32 = 1;

/// The confidence of the intervals and of the verdict.
const LEVEL: f64 = 0.95;

/// `latchkey balance`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// A GDL file, or the name of a bundled game.
    game: String,
    /// Games the searching player plays against itself (0 for random play alone).
    #[arg(long, default_value_t = 20)]
    games: usize,
    /// Games of random play.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    random_games: usize,
    #[command(flatten)]
    searching: Searching,
    /// Matches of the searching player played at once (default: as many as the cores hold, one
    /// core per seat).
    #[arg(long)]
    concurrency: Option<usize>,
    /// Seed of the first game.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where the journals go: PREFIX-random.jsonl and PREFIX-PLAYER.jsonl (default
    /// balance-GAME-TIME).
    #[arg(long, value_name = "PREFIX")]
    journal: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// The player of a searching series and its clocks.
#[derive(clap::Args)]
pub struct Searching {
    /// The searching player: a built-in player's spec (see `latchkey match`).
    #[arg(long, default_value = "mcts")]
    pub player: String,
    /// Seconds the searching player has to prepare.
    #[arg(long = "startclock", value_name = "SECONDS", default_value_t = 5.0, value_parser = crate::output::clock_seconds)]
    pub start_clock: f64,
    /// Seconds the searching player has per move.
    #[arg(long = "playclock", value_name = "SECONDS", default_value_t = 1.0, value_parser = crate::output::clock_seconds)]
    pub play_clock: f64,
}

/// One seat's results over a series.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Seat {
    /// The role played from the seat.
    pub role: String,
    /// The mean score.
    pub mean: f64,
    /// The half-width of its 95% interval (`None` from fewer than two games).
    pub half_width: Option<f64>,
    /// Games won, drawn and lost against the best of the other seats.
    pub wins: usize,
    /// Games drawn.
    pub draws: usize,
    /// Games lost.
    pub losses: usize,
    /// The mean of the seat's score less the mean of the others' in the same game, and the
    /// half-width of its 95% interval: the seat's edge.
    #[serde(serialize_with = "edge_fields")]
    pub edge: (f64, Option<f64>),
}

/// An edge as an object: `{"mean": 33.6, "half_width": 5.4}`.
fn edge_fields<S: serde::Serializer>(edge: &(f64, Option<f64>), s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeStruct;
    let mut fields = s.serialize_struct("Edge", 2)?;
    fields.serialize_field("mean", &edge.0)?;
    fields.serialize_field("half_width", &edge.1)?;
    fields.end()
}

/// Whether a series shows a seat favoured.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    /// No seat's edge is told from zero at 95%.
    Balanced,
    /// The seat with the largest edge whose interval lies above zero.
    Favours {
        /// The role.
        favoured: String,
    },
    /// Too few games for an interval.
    TooFew,
}

/// One series: who played, the seats, the games' lengths and the verdict.
#[derive(Debug, Clone, Serialize)]
pub struct Series {
    /// The player, against itself.
    pub player: String,
    /// The games played.
    pub games: usize,
    /// Per seat, in role order.
    pub seats: Vec<Seat>,
    /// How many games lasted each number of joint moves.
    pub lengths: BTreeMap<usize, usize>,
    /// What the series shows.
    #[serde(flatten)]
    pub verdict: Verdict,
    /// Seconds the series took.
    pub seconds: f64,
    /// The journal its matches went to.
    pub journal: String,
}

/// The seats of `roles` over `records`, the games' lengths, and the verdict.
pub fn summarise(roles: &[String], records: &[&MatchRecord]) -> (Vec<Seat>, BTreeMap<usize, usize>, Verdict) {
    let mut lengths = BTreeMap::new();
    for r in records {
        *lengths.entry(r.moves.len()).or_insert(0) += 1;
    }
    let seats: Vec<Seat> = roles
        .iter()
        .enumerate()
        .map(|(i, role)| {
            let scores: Vec<f64> = records.iter().map(|r| f64::from(r.goals[i])).collect();
            let edges: Vec<f64> = records
                .iter()
                .map(|r| {
                    let others: Vec<f64> =
                        r.goals.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, &g)| f64::from(g)).collect();
                    f64::from(r.goals[i]) - others.iter().sum::<f64>() / others.len().max(1) as f64
                })
                .collect();
            let (mean, half_width) = stats::mean_interval(&scores, LEVEL).unwrap_or((0.0, None));
            let edge = stats::mean_interval(&edges, LEVEL).unwrap_or((0.0, None));
            let count = |o: Outcome| records.iter().filter(|r| r.outcome(i) == Some(o)).count();
            Seat {
                role: role.clone(),
                mean,
                half_width,
                wins: count(Outcome::Win),
                draws: count(Outcome::Draw),
                losses: count(Outcome::Loss),
                edge,
            }
        })
        .collect();
    let verdict = if records.len() < 2 {
        Verdict::TooFew
    } else {
        let favoured = seats
            .iter()
            .filter(|s| s.edge.1.is_some_and(|h| s.edge.0 - h > 0.0))
            .max_by(|a, b| a.edge.0.total_cmp(&b.edge.0));
        match favoured {
            Some(s) => Verdict::Favours { favoured: s.role.clone() },
            None => Verdict::Balanced,
        }
    };
    (seats, lengths, verdict)
}

/// The whole report.
#[derive(Serialize)]
struct BalanceReport {
    game: String,
    roles: Vec<String>,
    series: Vec<Series>,
}

/// Plays both series and prints what they show.
pub fn run(args: Args) -> Result<ExitCode> {
    let begun = Instant::now();
    let game =
        Arc::new(game::prepare(&args.game, Instant::now() + Duration::from_secs_f64(args.searching.start_clock))?);
    let roles = game.roles();
    if roles.len() < 2 {
        bail!("{} has one role: balance compares the seats of a game of two roles or more", game.name);
    }
    let prefix = args.journal.clone().unwrap_or_else(|| {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        PathBuf::from(format!("balance-{}-{now}", game.name))
    });
    if !args.json {
        eprintln!("{} prepared in {:.2} s", game.name, begun.elapsed().as_secs_f64());
    }
    let halt = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&halt);
    ctrlc::set_handler(move || {
        flag.store(true, Ordering::SeqCst);
    })
    .context("cannot catch Ctrl-C")?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut series = Vec::new();
    // Random play on every core; the searching player with a core per seat, unless told.
    let plans = [
        ("random", args.random_games, 0.0, 0.0, cores),
        (
            args.searching.player.as_str(),
            args.games,
            args.searching.start_clock,
            args.searching.play_clock,
            args.concurrency.unwrap_or(cores / roles.len()),
        ),
    ];
    for (player, games, start_clock, play_clock, concurrency) in plans {
        if games == 0 || halt.load(Ordering::SeqCst) {
            continue;
        }
        let concurrency = concurrency.max(1);
        let journal = PathBuf::from(format!("{}-{}.jsonl", prefix.display(), file_safe(player)));
        let plan = Plan {
            spec: &args.game,
            player,
            games,
            clocks: (start_clock, play_clock),
            concurrency,
            seed: args.seed,
            journal: &journal,
            bar: !args.json,
        };
        let s = play_series(&game, &plan, &halt)?;
        if !args.json {
            print_series(&s, &roles, (start_clock, play_clock));
        }
        series.push(s);
    }
    if halt.load(Ordering::SeqCst) {
        eprintln!("interrupted: the series shown are those finished");
    }
    if args.json {
        crate::output::print_json(SCHEMA, &BalanceReport { game: game.name.clone(), roles, series })?;
    } else if let [random, searched] = series.as_slice() {
        if random.verdict != searched.verdict {
            println!(
                "\nrandom play and {} disagree: what the rules give a seat is not what a good player makes of it",
                searched.player
            );
        }
    }
    Ok(if halt.load(Ordering::SeqCst) { ExitCode::from(130) } else { ExitCode::SUCCESS })
}

/// `player` as part of a file name.
pub(crate) fn file_safe(player: &str) -> String {
    player.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect()
}

/// A series to play: `games` games of `player` against itself, seats swapped each round.
pub struct Plan<'a> {
    /// The game as the tournament names it (a GDL file or a bundled game).
    pub spec: &'a str,
    /// The player's spec.
    pub player: &'a str,
    /// Games to play.
    pub games: usize,
    /// The start and play clocks, in seconds.
    pub clocks: (f64, f64),
    /// Matches played at once.
    pub concurrency: usize,
    /// The seed of the first game.
    pub seed: u64,
    /// The journal the matches go to.
    pub journal: &'a std::path::Path,
    /// Whether to show a progress bar.
    pub bar: bool,
}

/// Plays the series `plan` on `game` and sums it up.
pub fn play_series(game: &Arc<player::Game>, plan: &Plan<'_>, halt: &AtomicBool) -> Result<Series> {
    let Plan { spec, player, games, clocks: (start_clock, play_clock), concurrency, seed, journal, bar } = *plan;
    let roles = game.roles();
    let settings = Settings {
        games: vec![spec.to_owned()],
        players: vec![player.to_owned(), player.to_owned()],
        format: Format::Gauntlet,
        // Each round plays every seating once.
        rounds: games.div_ceil(roles.len()),
        start_clock,
        play_clock,
        seed,
        sprt: None,
    };
    let entrants = Entrant::all(&settings.players)?;
    let logs = PathBuf::from(format!("{}.logs", journal.display()));
    let t = Tournament { settings, games: vec![Arc::clone(game)], entrants, concurrency, cpus: None, logs };
    t.check()?;
    let mut journal = Journal::create(journal, &t.settings)?;
    let total = (t.settings.rounds * roles.len()) as u64;
    let bar = if bar { ProgressBar::new(total) } else { ProgressBar::hidden() };
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{player:>8} {{bar:30}} {{pos}}/{{len}} games {{elapsed}} (eta {{eta}})"
        ))
        .expect("valid"),
    );
    let records = std::sync::Mutex::new(Vec::new());
    let events = |e: Event<'_>| {
        if let Event::Finished { played, .. } = e {
            records.lock().expect("the records' lock").push(played.record.clone());
            bar.inc(1);
        }
    };
    let begun = Instant::now();
    tournament::run(&t, &mut journal, Vec::new(), halt, &events)?;
    bar.finish_and_clear();
    let records = records.into_inner().expect("the records' lock");
    let refs: Vec<&MatchRecord> = records.iter().collect();
    let (seats, lengths, verdict) = summarise(&roles, &refs);
    Ok(Series {
        player: player.to_owned(),
        games: records.len(),
        seats,
        lengths,
        verdict,
        seconds: begun.elapsed().as_secs_f64(),
        journal: journal.path().display().to_string(),
    })
}

/// A series as a table of seats, the games' lengths, and the verdict.
fn print_series(s: &Series, roles: &[String], (_, play_clock): (f64, f64)) {
    let clock = if s.player == "random" { String::new() } else { format!(", play clock {play_clock} s") };
    println!("\n{} against itself: {} games in {:.1} s{clock} (journal {})", s.player, s.games, s.seconds, s.journal);
    let width = roles.iter().map(|r| r.chars().count()).max().unwrap_or(4).max(4);
    println!(
        "{:<width$}  {:>6}  {:>14}  {:>5}  {:>5}  {:>6}  {:>16}",
        "seat", "mean", "95% CI", "wins", "draws", "losses", "edge"
    );
    for seat in &s.seats {
        let interval = match seat.half_width {
            Some(h) => format!("[{:.1}, {:.1}]", (seat.mean - h).max(0.0), (seat.mean + h).min(100.0)),
            None => "-".into(),
        };
        println!(
            "{:<width$}  {:>6.1}  {interval:>14}  {:>5}  {:>5}  {:>6}  {:>16}",
            seat.role,
            seat.mean,
            seat.wins,
            seat.draws,
            seat.losses,
            edge(seat.edge)
        );
    }
    println!("length    {}", lengths(&s.lengths));
    let verdict = match &s.verdict {
        Verdict::Balanced => {
            let widest = s.seats.iter().filter_map(|x| x.edge.1).fold(0.0, f64::max);
            format!("balanced: no seat's edge is told from zero at 95% (each within ±{widest:.1} points)")
        }
        Verdict::Favours { favoured } => {
            let seat = s.seats.iter().find(|x| x.role == *favoured).expect("a seat");
            format!("favours {favoured}: {} points a game over the other seats' mean, at 95%", edge(seat.edge))
        }
        Verdict::TooFew => "too few games for a verdict".into(),
    };
    println!("verdict   {verdict}");
}

/// An edge with its interval: `+30.2 ± 4.1`.
fn edge((mean, half): (f64, Option<f64>)) -> String {
    // Never print "-0.0".
    let mean = if mean.abs() < 0.05 { 0.0 } else { mean };
    match half {
        Some(h) => format!("{mean:+.1} ± {h:.1}"),
        None => format!("{mean:+.1}"),
    }
}

/// The games' lengths: the range, the median, and how many games ended at each length (in bins
/// where there are many lengths).
fn lengths(counts: &BTreeMap<usize, usize>) -> String {
    let total: usize = counts.values().sum();
    let (Some((&lo, _)), Some((&hi, _))) = (counts.first_key_value(), counts.last_key_value()) else {
        return "no games".into();
    };
    let mut seen = 0;
    let median = counts
        .iter()
        .find(|&(_, &n)| {
            seen += n;
            2 * seen >= total
        })
        .map_or(lo, |(&l, _)| l);
    let bins = 8;
    let width = (hi - lo) / bins + 1;
    let mut shown = Vec::new();
    let mut start = lo;
    while start <= hi {
        let end = start + width - 1;
        let n: usize = counts.range(start..=end).map(|(_, &n)| n).sum();
        let label = if end.min(hi) == start { start.to_string() } else { format!("{start}-{}", end.min(hi)) };
        shown.push(format!("{label}: {n}"));
        start += width;
    }
    format!("{lo} to {hi} joint moves, median {median}; games per length {}", shown.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use player::End;

    fn record(goals: &[u32], moves: usize) -> MatchRecord {
        MatchRecord {
            seats: (0..goals.len()).collect(),
            moves: vec![vec![String::new(); goals.len()]; moves],
            goals: goals.to_vec(),
            faults: Vec::new(),
            end: End::Terminal,
            times: Vec::new(),
            expected: Vec::new(),
        }
    }

    fn roles() -> Vec<String> {
        vec!["first".into(), "second".into()]
    }

    #[test]
    fn a_seat_that_wins_more_than_chance_allows_is_favoured() {
        let games: Vec<MatchRecord> =
            (0..40).map(|k| if k % 4 == 0 { record(&[0, 100], 7) } else { record(&[100, 0], 9) }).collect();
        let (seats, lengths, verdict) = summarise(&roles(), &games.iter().collect::<Vec<_>>());
        assert_eq!(verdict, Verdict::Favours { favoured: "first".into() });
        assert_eq!((seats[0].wins, seats[0].draws, seats[0].losses), (30, 0, 10));
        assert_eq!(seats[0].mean, 75.0);
        // 100 or -100 a game, 50 on average.
        assert_eq!(seats[0].edge.0, 50.0);
        assert!(seats[0].edge.1.expect("an interval") < 50.0);
        assert_eq!(seats[1].edge.0, -50.0);
        assert_eq!(lengths, BTreeMap::from([(7, 10), (9, 30)]));
    }

    #[test]
    fn even_results_and_draws_are_balanced() {
        let even: Vec<MatchRecord> =
            (0..40).map(|k| record(if k % 2 == 0 { &[100, 0] } else { &[0, 100] }, 5)).collect();
        assert_eq!(summarise(&roles(), &even.iter().collect::<Vec<_>>()).2, Verdict::Balanced);
        let draws: Vec<MatchRecord> = (0..10).map(|_| record(&[50, 50], 9)).collect();
        let (seats, _, verdict) = summarise(&roles(), &draws.iter().collect::<Vec<_>>());
        assert_eq!(verdict, Verdict::Balanced);
        assert_eq!((seats[0].draws, seats[0].edge), (10, (0.0, Some(0.0))));
        // A slight edge over few games is not told from chance.
        let few: Vec<MatchRecord> = (0..6).map(|k| record(if k < 4 { &[100, 0] } else { &[0, 100] }, 5)).collect();
        assert_eq!(summarise(&roles(), &few.iter().collect::<Vec<_>>()).2, Verdict::Balanced);
        assert_eq!(summarise(&roles(), &[&draws[0]]).2, Verdict::TooFew);
    }

    #[test]
    fn in_a_game_of_three_a_seats_edge_is_over_the_others_mean() {
        let three: Vec<String> = vec!["a".into(), "b".into(), "c".into()];
        let games: Vec<MatchRecord> = (0..12).map(|_| record(&[90, 30, 30], 4)).collect();
        let (seats, _, verdict) = summarise(&three, &games.iter().collect::<Vec<_>>());
        assert_eq!(verdict, Verdict::Favours { favoured: "a".into() });
        assert_eq!((seats[0].edge.0, seats[1].edge.0), (60.0, -30.0));
    }

    #[test]
    fn lengths_are_shown_whole_or_in_bins() {
        assert_eq!(
            lengths(&BTreeMap::from([(5, 1), (7, 2), (9, 3)])),
            "5 to 9 joint moves, median 7; games per length 5: 1, 6: 0, 7: 2, 8: 0, 9: 3"
        );
        let wide: BTreeMap<usize, usize> = (10..=50).map(|l| (l, 1)).collect();
        let text = lengths(&wide);
        assert!(text.starts_with("10 to 50 joint moves, median 30; games per length 10-15: 6, "), "{text}");
        assert!(text.ends_with("46-50: 5"), "{text}");
    }
}
