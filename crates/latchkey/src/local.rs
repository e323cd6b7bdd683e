//! `latchkey local`: the local forced-win search on endgame positions, with how deep it got and
//! how fast — the measure of the search the `mcts` player runs beside its tree.

use crate::game;
use analysis::Locality;
use anyhow::{bail, Context, Result};
use machine::{random_trajectory, StateMachine};
use propnet::{PropnetMachine, PropnetState};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use search::{LocalResult, LocalSearch};
use serde::Serialize;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

mod judge;

/// The shape of `latchkey local --json`.
const SCHEMA: u32 = 1;

/// `latchkey local`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// A GDL file, or the name of a bundled game.
    game: String,
    /// Endgame positions to search, each taken from a seeded random game.
    #[arg(long, default_value_t = 5)]
    positions: usize,
    /// How many moves before the end of its random game each position is taken.
    #[arg(long, default_value_t = 10)]
    before: usize,
    /// A position to search instead: its base propositions, e.g. "(control black) (cell 1 1 x)".
    #[arg(long, conflicts_with = "from")]
    state: Option<String>,
    /// Take the positions from the matches in this report of `latchkey match --json`
    /// (`--before` moves from each one's end) instead of from random games.
    #[arg(long)]
    from: Option<std::path::PathBuf>,
    /// With `--from`: judge the moves the players made over the last `--before` joint moves of
    /// each match instead, per player: moves the search proves lose while another did not,
    /// positions already lost, and forced wins kept or let go.
    #[arg(long, requires = "from")]
    judge: bool,
    /// Seconds of search per position and role.
    #[arg(long, default_value_t = 15.0, value_parser = crate::output::seconds)]
    time: f64,
    /// The deepest iteration, in the searching role's own moves.
    #[arg(long, default_value_t = 20)]
    depth: u32,
    /// Seed of the random games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Report {
    game: String,
    local_search: bool,
    reason: String,
    searches: Vec<Searched>,
}

#[derive(Serialize)]
struct Searched {
    position: usize,
    role: String,
    to_move: bool,
    /// The deepest iteration finished, in own moves, and the seconds each took to finish.
    depth: u32,
    finished: Vec<f64>,
    /// A proved win, in plies from the position.
    win_plies: Option<u32>,
    /// Moves of the player to move proved to lead to the role's win.
    decided: Vec<String>,
    nodes: u64,
    nodes_per_second: f64,
}

/// Searches each position for each role and prints what was found.
pub fn run(args: Args) -> Result<ExitCode> {
    let game = game::prepare(&args.game, Instant::now() + Duration::from_secs(60))?;
    let Some(propnet) = game.net() else {
        bail!("the local search needs a propnet, and none was built for {}", args.game)
    };
    let net = &*propnet.net;
    let locality = Arc::new(Locality::analyse(net, None).context("no deadline was set")?);
    let mut m = PropnetMachine::from_program(Arc::clone(&propnet.program));
    if let (true, Some(path)) = (args.judge, &args.from) {
        let mut search =
            LocalSearch::new(Arc::clone(&propnet.net), Arc::clone(&propnet.program), Arc::clone(&locality));
        let judged =
            judge::run(&mut m, &mut search, path, args.before, args.depth, Duration::from_secs_f64(args.time))?;
        let report = judge::Report {
            game: game.name.clone(),
            local_search: locality.verdict.enabled,
            reason: locality.verdict.reason.clone(),
            seconds: args.time,
            players: judged,
        };
        if args.json {
            crate::output::print_json(SCHEMA, &report)?;
        } else {
            judge::print(&report);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let positions = match (&args.state, &args.from) {
        (Some(text), _) => vec![parse_state(net, text)?],
        (None, Some(path)) => from_matches(&mut m, path, args.before)?,
        (None, None) => endgames(&mut m, args.positions, args.before, args.seed)?,
    };
    let mut search = LocalSearch::new(Arc::clone(&propnet.net), Arc::clone(&propnet.program), Arc::clone(&locality));
    let mut searches = Vec::new();
    for (i, state) in positions.iter().enumerate() {
        for role in 0..net.roles.len() {
            let start = Instant::now();
            let found = search.search(state, role, None, args.depth, start + Duration::from_secs_f64(args.time))?;
            let seconds = start.elapsed().as_secs_f64();
            searches.push(describe(&m, i + 1, role, &found, seconds));
        }
    }
    let report = Report {
        game: game.name.clone(),
        local_search: locality.verdict.enabled,
        reason: locality.verdict.reason.clone(),
        searches,
    };
    if args.json {
        crate::output::print_json(SCHEMA, &report)?;
    } else {
        print(&report);
    }
    Ok(ExitCode::SUCCESS)
}

fn describe(m: &PropnetMachine, position: usize, role: usize, found: &LocalResult, seconds: f64) -> Searched {
    Searched {
        position,
        role: m.roles()[role].clone(),
        to_move: found.to_move,
        depth: found.depth,
        finished: found.finished.clone(),
        win_plies: found.win.map(|n| found.plies(n)),
        decided: found.decided.iter().map(|(mv, _)| m.format_move(mv)).collect(),
        nodes: found.nodes,
        nodes_per_second: found.nodes as f64 / seconds.max(1e-9),
    }
}

fn print(r: &Report) {
    let verdict = if r.local_search { "on" } else { "off" };
    println!("game     {}", r.game);
    println!("verdict  the player would run the local search: {verdict} ({})", r.reason);
    for s in &r.searches {
        let mover = if s.to_move { "to move" } else { "waiting" };
        let times: Vec<String> = s.finished.iter().enumerate().map(|(d, t)| format!("{}:{t:.2}s", d + 1)).collect();
        println!(
            "\nposition {} {} ({mover}): depth {} ({}), {} nodes, {:.0} nodes/s",
            s.position,
            s.role,
            s.depth,
            times.join(" "),
            s.nodes,
            s.nodes_per_second
        );
        match s.win_plies {
            Some(p) => println!("  forced win in {p} plies"),
            None => println!("  no forced win found"),
        }
        if !s.decided.is_empty() {
            let what = if s.to_move { "winning moves" } else { "the opponent's losing moves" };
            println!("  {what}: {}", s.decided.join(" "));
        }
    }
}

/// The state `before` moves from the end of each of `count` random games.
fn endgames(m: &mut PropnetMachine, count: usize, before: usize, seed: u64) -> Result<Vec<PropnetState>> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let initial = m.initial_state();
    let mut out = Vec::new();
    for _ in 0..count {
        let trajectory = random_trajectory(m, &initial, &mut rng, 10_000)?;
        out.push(trajectory[trajectory.len().saturating_sub(before + 1)].clone());
    }
    Ok(out)
}

/// The state `before` moves from the end of each match in a `latchkey match --json` report.
fn from_matches(m: &mut PropnetMachine, path: &std::path::Path, before: usize) -> Result<Vec<PropnetState>> {
    let mut out = Vec::new();
    for record in read_report(m, path)?.1 {
        let at = record.steps.len().saturating_sub(before);
        out.push(record.steps.get(at).map_or(record.last, |(state, _)| state.clone()));
    }
    Ok(out)
}

/// One match of a report replayed: each state with the joint move played in it, the state it
/// ended in, and which player sat in each role.
struct Replayed {
    steps: Vec<(PropnetState, Vec<u32>)>,
    last: PropnetState,
    seats: Vec<usize>,
}

/// The players' names (in seat order) and the matches of a `latchkey match --json` report,
/// replayed on `m`.
fn read_report(m: &mut PropnetMachine, path: &std::path::Path) -> Result<(Vec<String>, Vec<Replayed>)> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let report: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", path.display()))?;
    let standings = report["standings"].as_array().map(Vec::as_slice).unwrap_or_default();
    let names = standings.iter().map(|s| s["player"].as_str().unwrap_or("?").to_owned()).collect();
    let matches = report["matches"].as_array().with_context(|| format!("{} has no matches", path.display()))?;
    let mut out = Vec::new();
    for (i, record) in matches.iter().enumerate() {
        let moves = record["moves"].as_array().with_context(|| format!("match {} has no moves", i + 1))?;
        let seats = match record["seats"].as_array() {
            Some(seats) => seats.iter().map(|s| s.as_u64().unwrap_or(0) as usize).collect(),
            None => (0..m.roles().len()).collect(),
        };
        let mut state = m.initial_state();
        let mut steps = Vec::new();
        for step in moves {
            let names = step.as_array().with_context(|| format!("match {}: a step is not a list", i + 1))?;
            let mut joint = Vec::new();
            for (role, name) in names.iter().enumerate() {
                let name = name.as_str().unwrap_or_default();
                let mv = m.legal_move(&state, role, name)?;
                joint.push(mv.with_context(|| format!("match {}: {name} is not legal", i + 1))?);
            }
            let next = m.next_state(&state, &joint)?;
            steps.push((std::mem::replace(&mut state, next), joint));
        }
        out.push(Replayed { steps, last: state, seats });
    }
    Ok((names, out))
}

/// A state written as its base propositions in KIF, each as the net names it.
fn parse_state(net: &propnet::Net, text: &str) -> Result<PropnetState> {
    let mut bases = Vec::new();
    let (mut depth, mut start) = (0usize, None);
    for (i, c) in text.char_indices() {
        match c {
            '(' => {
                if depth == 0 {
                    start = Some(i);
                }
                depth += 1;
            }
            ')' => {
                depth = depth.checked_sub(1).context("unbalanced parentheses in --state")?;
                if depth == 0 {
                    let prop = gdl::canonical_term(&text[start.unwrap_or(0)..=i]).unwrap_or_default();
                    let index = net.bases.iter().position(|b| b.name == prop);
                    bases.push(index.with_context(|| format!("{prop} is not a base proposition of the game"))?);
                }
            }
            _ => {}
        }
    }
    if depth != 0 {
        bail!("unbalanced parentheses in --state");
    }
    Ok(PropnetState::from_bases(net.bases.len(), bases))
}
