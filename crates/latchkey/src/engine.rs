//! Choosing the engine a command runs on, and falling back to the reasoner when a game's
//! propnet cannot be built within limits.

use crate::game::LoadedGame;
use anyhow::Result;
use clap::ValueEnum;
use machine::StateMachine;
use propnet::{Net, PropnetMachine};
use reasoner::Reasoner;
use std::time::{Duration, Instant};

/// The engines a command can run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Engine {
    /// The reference interpreter, straight from the rules.
    Reasoner,
    /// The compiled propositional network (falls back to the reasoner if it cannot be built).
    Propnet,
    /// The propositional network with every gate interpreted, no native code (for comparison).
    Interpreted,
}

/// How long building a propnet may take, for the commands that measure or inspect an engine
/// rather than play under a clock, before the game falls back to the reasoner: chess, the
/// slowest public game that builds, takes 45–50 s on a 2-core machine.
const PROPNET_BUILD_LIMIT: Duration = Duration::from_secs(90);

/// The limits of a build for inspection: [`PROPNET_BUILD_LIMIT`] from now.
fn limits() -> propnet::Limits {
    propnet::Limits { deadline: Some(Instant::now() + PROPNET_BUILD_LIMIT), ..propnet::Limits::default() }
}

/// A command that runs on whichever engine the user chose.
pub trait OnMachine {
    /// What the command produces.
    type Output;
    /// Runs the command on an engine.
    fn run<M: StateMachine>(self, m: &mut M) -> Result<Self::Output>;
}

/// Grounds and builds the game's propnet, unoptimised, by `deadline` (or within
/// [`PROPNET_BUILD_LIMIT`]), with the sizes of the grounding: atoms of the model and ground rules.
pub fn build_raw_propnet(game: &LoadedGame, deadline: Option<Instant>) -> Result<(Net, usize, usize), propnet::Error> {
    let limits = propnet::Limits { deadline: deadline.or(limits().deadline), ..propnet::Limits::default() };
    let grounded = propnet::ground::ground(&game.desc, &limits)?;
    let net = propnet::build::build(&grounded, limits.deadline)?;
    Ok((net, grounded.atom_count(), grounded.rules.len()))
}

/// Grounds, builds and optimises the game's propnet within [`PROPNET_BUILD_LIMIT`].
pub fn build_propnet(game: &LoadedGame) -> Result<Net, propnet::Error> {
    propnet::compile(&game.desc, &limits())
}

impl Engine {
    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Reasoner => "reasoner",
            Engine::Propnet => "propnet",
            Engine::Interpreted => "interpreted",
        }
    }
}

/// The machine for `net` on `engine`: native code where it compiles, unless `engine` is
/// [`Engine::Interpreted`].
pub fn propnet_machine(net: &Net, engine: Engine) -> PropnetMachine {
    let program = propnet::Program::new(net);
    let program = if engine == Engine::Interpreted { program.interpreted() } else { program };
    PropnetMachine::from_program(std::sync::Arc::new(program))
}

/// Runs `task` on the chosen engine for `game`. A propnet that cannot be built is reported on
/// standard error and the reasoner runs instead.
pub fn on_machine<T: OnMachine>(game: &LoadedGame, engine: Engine, task: T) -> Result<T::Output> {
    on_engine(game, engine, task).map(|(output, _)| output)
}

/// Like [`on_machine`], saying which engine ran.
pub fn on_engine<T: OnMachine>(game: &LoadedGame, engine: Engine, task: T) -> Result<(T::Output, Engine)> {
    match engine {
        Engine::Reasoner => Ok((task.run(&mut Reasoner::new(&game.desc))?, Engine::Reasoner)),
        Engine::Propnet | Engine::Interpreted => match build_propnet(game) {
            Ok(net) => Ok((task.run(&mut propnet_machine(&net, engine))?, engine)),
            Err(e) => {
                eprintln!("note: no propnet for {} ({e}); running the reasoner instead", game.name);
                Ok((task.run(&mut Reasoner::new(&game.desc))?, Engine::Reasoner))
            }
        },
    }
}
