//! `latchkey replay`: one self-contained web page that replays recorded matches, the board read
//! from the rules at every step, with a slider, step buttons, the moves, the time each took, what
//! the players expected and the scores.

mod read;

use crate::engine::{on_machine, Engine, OnMachine};
use crate::game;
use anyhow::{Context, Result};
use board::{Budget, Inference};
use gdl::Description;
use machine::StateMachine;
use read::Recorded;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

/// `latchkey replay`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// A `latchkey match --json` report, a tournament's journal (JSON Lines) or a GGP-Base
    /// match JSON.
    file: PathBuf,
    /// The page to write.
    #[arg(short, long, value_name = "PAGE.html")]
    output: PathBuf,
    /// The game's rules (a GDL file or a bundled game's name), where the record does not name a
    /// game this can find; every match is replayed on them.
    #[arg(long)]
    game: Option<String>,
}

/// The template the page is written from.
const PAGE: &str = include_str!("page.html");

/// What the page shows, as its script reads it.
#[derive(Serialize)]
struct Shown {
    title: String,
    game: String,
    roles: Vec<String>,
    players: Vec<String>,
    goals: Vec<u32>,
    /// Whether a board was found; `why` says why not.
    board: bool,
    why: String,
    steps: Vec<Step>,
}

/// A step of a match: the state reached (drawn) and the joint move that reached it.
#[derive(Serialize)]
struct Step {
    svg: String,
    /// The joint move (none at the start).
    moves: Vec<String>,
    /// Seconds each role's player took (the start's at step 0), or one for the joint move.
    times: Vec<f64>,
    /// What each role's player expected to score after its move.
    expected: Vec<Option<f64>>,
    /// The faults of the step, in words.
    faults: Vec<String>,
}

/// Reads the record and writes the page.
pub fn run(args: Args) -> Result<ExitCode> {
    let text = std::fs::read_to_string(&args.file).with_context(|| format!("cannot read {}", args.file.display()))?;
    let recorded = read::read(&args.file, &text)?;
    if recorded.is_empty() {
        anyhow::bail!("{} holds no match", args.file.display());
    }
    // The matches of each game, replayed on it together.
    let mut by_game: BTreeMap<String, Vec<(usize, Recorded)>> = BTreeMap::new();
    for (i, r) in recorded.into_iter().enumerate() {
        let spec = match (&args.game, &r.game) {
            (Some(g), _) => g.clone(),
            (None, Some(g)) => g.clone(),
            (None, None) => anyhow::bail!(
                "cannot find the rules of the game, which the record does not name ({}): give them with --game FILE",
                r.title
            ),
        };
        by_game.entry(spec).or_default().push((i, r));
    }
    let mut shown = Vec::new();
    for (spec, matches) in by_game {
        let loaded = match (&args.game, game::load(&spec)) {
            (_, Ok(loaded)) => loaded,
            (Some(_), Err(e)) => return Err(e),
            (None, Err(e)) => {
                return Err(e.context(format!("cannot find the rules of {spec}: give them with --game FILE")))
            }
        };
        let replayed = Replayed { desc: &loaded.desc, name: &loaded.name, matches };
        shown.extend(on_machine(&loaded, Engine::Propnet, replayed)?);
    }
    shown.sort_by_key(|(i, _)| *i);
    let shown: Vec<Shown> = shown.into_iter().map(|(_, s)| s).collect();
    let json =
        serde_json::to_string(&serde_json::json!({ "matches": shown })).context("cannot write the page's data")?;
    // Inside a script element, "</" could end it; JSON may write it as "<\/".
    let page = PAGE.replace("{{DATA}}", &json.replace("</", "<\\/"));
    std::fs::write(&args.output, page).with_context(|| format!("cannot write {}", args.output.display()))?;
    let steps: usize = shown.iter().map(|s| s.steps.len() - 1).sum();
    println!(
        "{}: {} match{}, {steps} moves",
        args.output.display(),
        shown.len(),
        if shown.len() == 1 { "" } else { "es" }
    );
    Ok(ExitCode::SUCCESS)
}

/// The matches of one game, replayed on its machine.
struct Replayed<'a> {
    desc: &'a Description,
    /// The game's name, for records that do not give it.
    name: &'a str,
    matches: Vec<(usize, Recorded)>,
}

impl OnMachine for Replayed<'_> {
    type Output = Vec<(usize, Shown)>;
    fn run<M: StateMachine>(self, m: &mut M) -> Result<Self::Output> {
        let inference = board::infer(self.desc, m, Budget::standard())?;
        let roles = m.roles().to_vec();
        let mut shown = Vec::new();
        for (i, r) in self.matches {
            let mut svgs = Vec::new();
            let joints = r.moves.iter().map(Vec::as_slice);
            let last = crate::moves::walk(m, joints, |m, state| {
                svgs.push(board::svg(inference.board(), &m.state_props(state)))
            })
            .with_context(|| format!("{}, {}", self.name, r.title))?;
            let goals = match r.goals.clone() {
                Some(goals) => goals,
                None => (0..roles.len()).map(|k| machine::played_score(&m.goal(&last, k))).collect(),
            };
            let name = r.name.clone().unwrap_or_else(|| self.name.to_owned());
            shown.push((i, show(&r, name, &roles, &inference, svgs, goals)));
        }
        Ok(shown)
    }
}

/// The page's view of the match `r`, its states drawn as `svgs`.
fn show(
    r: &Recorded,
    game: String,
    roles: &[String],
    inference: &Inference,
    svgs: Vec<String>,
    goals: Vec<u32>,
) -> Shown {
    let steps = svgs
        .into_iter()
        .enumerate()
        .map(|(k, svg)| Step {
            svg,
            moves: if k == 0 { Vec::new() } else { r.moves[k - 1].clone() },
            times: r.times.get(k).cloned().unwrap_or_default(),
            expected: match k {
                0 => Vec::new(),
                _ => r.expected.get(k - 1).cloned().unwrap_or_default(),
            },
            faults: r
                .faults
                .iter()
                .filter(|(step, _, _)| *step == k)
                .map(|(_, role, what)| format!("{}: {what}", roles.get(*role).map_or("?", String::as_str)))
                .collect(),
        })
        .collect();
    let why = match inference {
        Inference::Fallback { why } => why.clone(),
        Inference::Board(_) => String::new(),
    };
    Shown {
        title: r.title.clone(),
        game,
        roles: roles.to_vec(),
        players: r.players.clone(),
        goals,
        board: inference.board().is_some(),
        why,
        steps,
    }
}
