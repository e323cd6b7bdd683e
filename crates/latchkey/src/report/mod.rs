//! `latchkey report`: one self-contained page about a game for the person who wrote it: the rules
//! with their problems at their lines, the roles and sizes, the board, what the analysis found
//! (each proposition read as a person reads it, and drawn on the board where it stands on one), a
//! picture of the propnet, what random games showed wrong, and the seats' balance as plots.

mod netpic;
mod plots;

use crate::analyze;
use crate::balance::{self, Plan, Series};
use crate::check;
use anyhow::{Context, Result};
use machine::{Declared, SimulateOptions, Simulation, StateMachine};
use reasoner::Reasoner;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `latchkey report`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// A GDL file, or the name of a bundled game.
    game: String,
    /// The folder to write the page (index.html) and the balance series' journals into.
    #[arg(short, long, value_name = "DIR")]
    output: PathBuf,
    /// Seconds the propnet and the analysis may take, as a start clock.
    #[arg(long, value_name = "S", default_value_t = 10.0, value_parser = crate::output::seconds)]
    time: f64,
    /// Random games played to find faults of the rules (as `check --play`).
    #[arg(long, value_name = "N", default_value_t = 300)]
    play: usize,
    /// Games of random play for the balance, the seats swapped (as `balance --random-games`).
    #[arg(long, value_name = "N", default_value_t = 1000)]
    random_games: usize,
    /// Seconds the balance's series may take in all; the games finished by then are counted.
    #[arg(long, value_name = "S", default_value_t = 300.0, value_parser = crate::output::seconds)]
    balance_time: f64,
    /// Games the searching player plays against itself for the balance (0: none).
    #[arg(long, value_name = "N", default_value_t = 0)]
    games: usize,
    #[command(flatten)]
    searching: balance::Searching,
    /// The proposition the propnet's picture is drawn around, e.g. `terminal`, `(goal white
    /// 100)`, `(legal white (move 1 1 1 2))`, `(cell 1 1 x)` (by default the whole net where it
    /// is small, else the first role's best goal).
    #[arg(long, value_name = "PROPOSITION")]
    around: Option<String>,
}

/// The template the page is written from.
const PAGE: &str = include_str!("page.html");

/// A section of the page, or why it is not there.
#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum Section<T> {
    Shown(T),
    Missing(String),
}

impl<T> Section<T> {
    fn from_result(r: Result<T>) -> Section<T> {
        r.map_or_else(|e| Section::Missing(format!("{e:#}")), Section::Shown)
    }
}

/// What the page shows, as its script reads it.
#[derive(Serialize)]
struct Page {
    game: String,
    version: &'static str,
    summary: Summary,
    rules: Rules,
    board: Section<BoardShown>,
    analysis: Section<analyze::Report>,
    propnet: Section<netpic::Picture>,
    play: Section<Simulated>,
    balance: Section<Balance>,
}

#[derive(Serialize)]
struct Summary {
    roles: Vec<String>,
    #[serde(flatten)]
    counts: check::Counts,
    /// The propnet's size and the time it took, or why there is none.
    propnet: Section<NetSize>,
}

#[derive(Serialize)]
struct NetSize {
    nodes: usize,
    bases: usize,
    inputs: usize,
    seconds: f64,
}

/// The rules as written, with their problems.
#[derive(Serialize)]
struct Rules {
    file: String,
    lines: Vec<String>,
    problems: Vec<Problem>,
    valid: bool,
}

#[derive(Serialize)]
struct Problem {
    line: u32,
    col: u32,
    severity: &'static str,
    message: String,
    rule: String,
}

/// The board of the initial state, and how each base proposition reads.
#[derive(Serialize)]
struct BoardShown {
    /// Whether a board was found; `why` says why not.
    found: bool,
    why: String,
    svg: String,
    /// The board without pieces, which the analysis draws its propositions on (empty where no
    /// board was found).
    empty_svg: String,
    /// Per base proposition: how a person reads it, and the cell it stands on (coordinates joined
    /// by spaces, as the drawing's `data-at`) with its content's label.
    propositions: BTreeMap<String, Reading>,
}

#[derive(Serialize)]
struct Reading {
    meaning: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    label: Option<String>,
}

/// The random games' findings, each fault in words.
#[derive(Serialize)]
struct Simulated {
    #[serde(flatten)]
    simulation: Simulation,
    faults: Vec<String>,
    lines: Vec<String>,
}

#[derive(Serialize)]
struct Balance {
    series: Vec<Series>,
    scores_svg: String,
    lengths_svg: Vec<String>,
}

/// Gathers everything and writes the page.
pub fn run(args: Args) -> Result<ExitCode> {
    let begun = Instant::now();
    let (name, label, text) = crate::game::read(&args.game)?;
    std::fs::create_dir_all(&args.output).with_context(|| format!("cannot create {}", args.output.display()))?;
    let (parsed, problems) = match gdl::parse(&label, &text) {
        Ok(desc) => {
            let problems = gdl::validate(&desc);
            (Some(desc), problems.iter().map(problem).collect())
        }
        Err(e) => (
            None,
            vec![Problem {
                line: e.pos.line,
                col: e.pos.col,
                severity: "error",
                message: e.message,
                rule: String::new(),
            }],
        ),
    };
    let valid = parsed.is_some() && problems.iter().all(|p| p.severity != "error");
    let rules = Rules { file: label.clone(), lines: text.lines().map(str::to_owned).collect(), problems, valid };
    let page = match parsed.filter(|_| valid) {
        Some(desc) => gather(&args, &name, &label, &text, desc, rules)?,
        None => {
            let summary = Summary { roles: Vec::new(), counts: check::Counts::default(), propnet: invalid() };
            Page {
                game: name.clone(),
                version: env!("CARGO_PKG_VERSION"),
                summary,
                rules,
                board: invalid(),
                analysis: invalid(),
                propnet: invalid(),
                play: invalid(),
                balance: invalid(),
            }
        }
    };
    let json = serde_json::to_string(&page).context("cannot write the page's data")?;
    // Inside a script element, "</" could end it; JSON may write it as "<\/".
    let html = PAGE.replace("{{DATA}}", &json.replace("</", "<\\/"));
    let path = args.output.join("index.html");
    std::fs::write(&path, html).with_context(|| format!("cannot write {}", path.display()))?;
    let missing: Vec<&str> = [
        ("board", matches!(page.board, Section::Missing(_))),
        ("analysis", matches!(page.analysis, Section::Missing(_))),
        ("propnet", matches!(page.propnet, Section::Missing(_))),
        ("play", matches!(page.play, Section::Missing(_))),
        ("balance", matches!(page.balance, Section::Missing(_))),
    ]
    .into_iter()
    .filter_map(|(s, m)| m.then_some(s))
    .collect();
    let faults = match &page.play {
        Section::Shown(s) => s.faults.len(),
        Section::Missing(_) => 0,
    };
    let count = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    println!(
        "{}: {name}, {} in the rules, {} in play{} ({:.1} s)",
        path.display(),
        count(page.rules.problems.len(), "problem"),
        count(faults, "fault"),
        if missing.is_empty() { String::new() } else { format!("; not shown: {}", missing.join(", ")) },
        begun.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}

/// A section that rules which are not valid GDL cannot have.
fn invalid<T>() -> Section<T> {
    Section::Missing("the rules are not valid GDL: see their problems above".to_owned())
}

fn problem(p: &gdl::Problem) -> Problem {
    Problem {
        line: p.pos.line,
        col: p.pos.col,
        severity: match p.severity {
            gdl::Severity::Error | gdl::Severity::Incomplete => "error",
            gdl::Severity::Warning => "warning",
        },
        message: p.message.clone(),
        rule: p.rule.clone(),
    }
}

/// Every section of a valid game's page.
fn gather(args: &Args, name: &str, label: &str, text: &str, desc: gdl::Description, rules: Rules) -> Result<Page> {
    eprintln!("{name}: building the propnet and analysing ({} s)", args.time);
    let start = Instant::now();
    let (game, _) = player::Game::prepare(name, label, text, start + Duration::from_secs_f64(args.time))?;
    let game = Arc::new(game);
    let summary = Summary {
        roles: game.roles(),
        counts: check::Counts::of(&desc),
        propnet: match (&game.propnet, game.net()) {
            (_, Some(p)) => Section::Shown(NetSize {
                nodes: p.net.kinds.len(),
                bases: p.net.bases.len(),
                inputs: p.net.moves.len(),
                seconds: game.prepared.as_secs_f64(),
            }),
            (Err(why), None) => Section::Missing(format!("no propnet ({why}): the reasoner plays instead")),
            (Ok(_), None) => Section::Missing("no propnet".to_owned()),
        },
    };
    let analysis = Section::from_result(analyze::analyse(
        &game,
        start,
        args.time,
        analysis::AnalysisConfig::default(),
        &mut |_| {},
    ));
    let propnet = match game.net() {
        Some(p) => Section::from_result(netpic::picture(&p.net, args.around.as_deref())),
        None => Section::Missing("no propnet was built".to_owned()),
    };
    eprintln!("{name}: reading the board and playing {} random games", args.play);
    let bases = game.net().map(|p| p.net.bases.iter().map(|b| b.name.clone()).collect());
    let seen = match game.machine() {
        Some(mut m) => on_game(&mut m, &desc, bases, args),
        None => on_game(&mut Reasoner::new(&desc), &desc, bases, args),
    };
    let (board, play) = match seen {
        Ok((b, p)) => (Section::Shown(b), Section::Shown(p)),
        Err(e) => (Section::Missing(format!("{e:#}")), Section::Missing(format!("{e:#}"))),
    };
    let balance = if game.roles().len() < 2 {
        Section::Missing("one role: there are no seats to compare".to_owned())
    } else {
        Section::from_result(balance(args, &game, &args.output))
    };
    Ok(Page {
        game: name.to_owned(),
        version: env!("CARGO_PKG_VERSION"),
        summary,
        rules,
        board,
        analysis,
        propnet,
        play,
        balance,
    })
}

/// The board of the initial state with the reading of every base proposition (`bases`, or where
/// there is no net the initial state's), and the random games' findings, on the machine `m`.
fn on_game<M: StateMachine>(
    m: &mut M,
    desc: &gdl::Description,
    bases: Option<Vec<String>>,
    args: &Args,
) -> Result<(BoardShown, Simulated)> {
    let inference = board::infer(desc, m, board::Budget::standard())?;
    let b = inference.board();
    let initial = m.initial_state();
    let svg = board::svg(b, &m.state_props(&initial));
    let bases = match bases {
        Some(names) => names,
        None => m.state_props(&initial),
    };
    let propositions = bases
        .into_iter()
        .map(|prop| {
            let placed = b.and_then(|b| b.place(&prop).map(|p| (p.at.join(" "), b.label(&p.content))));
            let reading = Reading {
                meaning: board::reading(b, &prop),
                at: placed.as_ref().map(|p| p.0.clone()),
                label: placed.map(|p| p.1),
            };
            (prop, reading)
        })
        .collect();
    let why = match &inference {
        board::Inference::Board(_) => String::new(),
        board::Inference::Fallback { why } => why.clone(),
    };
    let empty_svg = b.map_or(String::new(), |b| board::svg(Some(b), &[]));
    let shown = BoardShown { found: b.is_some(), why, svg, empty_svg, propositions };
    let options = SimulateOptions {
        games: args.play,
        deadline: Some(Instant::now() + Duration::from_secs(60)),
        ..SimulateOptions::default()
    };
    let declared: Declared = check::declared(desc);
    let simulation = machine::simulate(m, &options, &declared);
    let faults = simulation.findings.iter().map(|f| f.fault.to_string()).collect();
    let lines = simulation.findings.iter().map(shown_line).collect();
    Ok((shown, Simulated { simulation, faults, lines }))
}

/// The joint moves a page shows of a line of play, at most.
const LONGEST_LINE: usize = 40;

/// The line of play reaching a finding as the page shows it: none for a role that never chose
/// (no one line shows that), the first [`LONGEST_LINE`] joint moves of a long one.
fn shown_line(f: &machine::Finding) -> String {
    if matches!(f.fault, machine::Fault::NeverChooses { .. }) {
        return String::new();
    }
    match f.line.len() > LONGEST_LINE {
        true => format!("{} … ({} joint moves in all)", check::line(&f.line[..LONGEST_LINE]), f.line.len()),
        false => check::line(&f.line),
    }
}

/// The random series and, where asked, the searching player's, with their plots; the journals go
/// into `dir`.
fn balance(args: &Args, game: &Arc<player::Game>, dir: &Path) -> Result<Balance> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    // No match starts after the series' time is up.
    let halt = Arc::new(AtomicBool::new(false));
    let alarm = Arc::clone(&halt);
    let limit = Duration::from_secs_f64(args.balance_time);
    std::thread::spawn(move || {
        std::thread::sleep(limit);
        alarm.store(true, Ordering::SeqCst);
    });
    let mut series = Vec::new();
    for (player, games, clocks, concurrency) in [
        ("random", args.random_games, (0.0, 0.0), cores),
        (
            args.searching.player.as_str(),
            args.games,
            (args.searching.start_clock, args.searching.play_clock),
            (cores / 2).max(1),
        ),
    ] {
        if games == 0 || halt.load(Ordering::SeqCst) {
            continue;
        }
        eprintln!("{}: {games} games of {player} against itself", game.name);
        let journal = dir.join(format!("balance-{}.jsonl", balance::file_safe(player)));
        if journal.exists() {
            std::fs::remove_file(&journal).with_context(|| format!("cannot replace {}", journal.display()))?;
        }
        let plan = Plan { spec: &args.game, player, games, clocks, concurrency, seed: 1, journal: &journal, bar: true };
        series.push(balance::play_series(game, &plan, &halt)?);
    }
    let scores_svg = plots::scores(&series)?;
    let lengths_svg = series.iter().map(plots::lengths).collect::<Result<_>>()?;
    Ok(Balance { series, scores_svg, lengths_svg })
}
