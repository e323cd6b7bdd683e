//! `latchkey board`: the board read from a game's rules, drawn for a state.

use crate::engine::{on_machine, Engine, OnMachine};
use crate::game;
use crate::output::print_json;
use anyhow::Result;
use board::{Budget, Inference, Style};
use gdl::Description;
use machine::StateMachine;
use serde::Serialize;
use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// The shape of `latchkey board --json`.
const SCHEMA: u32 = 1;

/// What the inference may spend: random games from the initial state, and a time limit.
const GAMES: usize = 8;
const STEPS: usize = 200;
const TIME: Duration = Duration::from_secs(2);

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
        let budget = Budget { games: GAMES, steps: STEPS, deadline: Instant::now() + TIME };
        let inference = board::infer(self.desc, m, budget)?;
        let (state, how) = crate::moves::play(m, self.moves)?;
        Ok((inference, how, m.state_props(&state)))
    }
}

/// Infers the board and prints the state on it.
pub fn run(args: Args) -> Result<ExitCode> {
    let game = game::load(&args.game)?;
    let (inference, state, propositions) =
        on_machine(&game, args.engine, Read { desc: &game.desc, moves: &args.moves })?;
    if args.json {
        let view = inference.board().map(|b| b.view(&propositions));
        print_json(SCHEMA, &Report { game: game.name, inference, state, propositions, view })?;
        return Ok(ExitCode::SUCCESS);
    }
    let colour = !args.no_colour && std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    println!("{} ({state})", game.name);
    if let Inference::Fallback { why } = &inference {
        println!("no board: {why}");
    }
    print!("{}", board::text(inference.board(), &propositions, Style { colour }));
    Ok(ExitCode::SUCCESS)
}
