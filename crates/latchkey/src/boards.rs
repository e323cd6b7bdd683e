//! `latchkey board`: the board read from a game's rules, drawn for a state; and the board that
//! `latchkey match --board` draws.

use crate::engine::{on_machine, Engine, OnMachine};
use crate::game;
use crate::output::print_json;
use anyhow::{Context, Result};
use board::{Budget, Inference, Style};
use gdl::Description;
use machine::StateMachine;
use serde::Serialize;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

/// The shape of `latchkey board --json`.
const SCHEMA: u32 = 1;

/// `latchkey board`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// A GDL file, or the name of a bundled game.
    game: String,
    /// Joint moves from the initial state, one move per role each, e.g. "(mark 1 1)" noop.
    #[arg(long, num_args = 1..)]
    moves: Vec<String>,
    /// Which engine runs the game.
    #[arg(long, value_enum, default_value_t = Engine::Propnet)]
    engine: Engine,
    /// Never colour the pieces (they are coloured where standard output is a terminal and
    /// NO_COLOR is not set).
    #[arg(long)]
    no_colour: bool,
    /// Print JSON instead of text: what was inferred, and the state on the board.
    #[arg(long)]
    json: bool,
    /// Also write the drawing as SVG to this file.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
}

/// What `latchkey board --json` prints.
#[derive(Serialize)]
struct Report {
    game: String,
    /// The board found, or why there is none.
    inference: Inference,
    /// Where the state came from, e.g. "initial state".
    state: String,
    /// The base propositions true in it.
    propositions: Vec<String>,
    /// The state on the board, where there is one.
    view: Option<board::View>,
}

/// The inference and the state, on whichever engine runs the game.
struct Read<'a> {
    desc: &'a Description,
    moves: &'a [String],
}

impl OnMachine for Read<'_> {
    type Output = (Inference, String, Vec<String>);
    fn run<M: StateMachine>(self, m: &mut M) -> Result<Self::Output> {
        let inference = board::infer(self.desc, m, Budget::standard())?;
        let (state, how) = crate::moves::play(m, self.moves)?;
        Ok((inference, how, m.state_props(&state)))
    }
}

/// Infers the board and prints the state on it.
pub fn run(args: Args) -> Result<ExitCode> {
    let game = game::load(&args.game)?;
    let (inference, state, propositions) =
        on_machine(&game, args.engine, Read { desc: &game.desc, moves: &args.moves })?;
    if let Some(path) = &args.svg {
        std::fs::write(path, board::svg(inference.board(), &propositions))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if args.json {
        let view = inference.board().map(|b| b.view(&propositions));
        print_json(SCHEMA, &Report { game: game.name, inference, state, propositions, view })?;
        return Ok(ExitCode::SUCCESS);
    }
    let colour = colour(args.no_colour);
    println!("{} ({state})", game.name);
    if let Inference::Fallback { why } = &inference {
        println!("no board: {why}");
    }
    print!("{}", board::text(inference.board(), &propositions, Style { colour }));
    Ok(ExitCode::SUCCESS)
}

/// Whether to colour the pieces: where standard output is a terminal, NO_COLOR is not set and
/// `--no-colour` was not given.
pub fn colour(refused: bool) -> bool {
    !refused && std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// The board of a prepared game, inferred on its propnet or, where it has none, the reasoner.
pub fn infer(game: &player::Game) -> Result<Inference> {
    let budget = Budget::standard();
    Ok(match game.machine() {
        Some(mut m) => board::infer(&game.desc, &mut m, budget)?,
        None => board::infer(&game.desc, &mut reasoner::Reasoner::new(&game.desc), budget)?,
    })
}

/// The true propositions of a prepared game's initial state.
pub fn initial_state(game: &player::Game) -> Result<Vec<String>> {
    fn props<M: StateMachine>(mut m: M) -> Vec<String> {
        let state = m.initial_state();
        m.state_props(&state)
    }
    Ok(match game.machine() {
        Some(m) => props(m),
        None => props(reasoner::Reasoner::new(&game.desc)),
    })
}
