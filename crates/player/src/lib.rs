//! Players and the matches they play. A [`Player`] is told the rules and its role at the start
//! of a match, is asked for a move each turn with the previous joint move, and is told when the
//! match stops; moves cross this boundary as KIF text, so a player can live in this process or
//! behind the GGP protocol. The [`referee`] runs local matches between players, enforcing the
//! clocks, and [`series`] runs many of them with the seats rotating and sums up the results.

#![warn(missing_docs)]

mod builtin;
mod human;
mod local;
mod mcts;
pub mod referee;
mod remote;
pub mod series;

pub use builtin::{AlphaBeta, Follower, Reflex, Track};
pub use human::Human;
pub use mcts::{mcts_settings, mcts_switches, settings_reference, MctsOptions, MctsPlayer, SETTINGS};
pub use referee::{play_match, Clocks, End, Event, Fault, FaultRecord, MatchRecord, Outcome};
pub use remote::Remote;
pub use series::{run_series, Series, SeriesOptions, Standing};

use propnet::{Net, Program, PropnetMachine};
use reasoner::Reasoner;
use std::sync::Arc;
use std::time::{Duration, Instant};
use thiserror::Error;

/// A game ready to play: its rules as text (what a remote player is sent), parsed, and its
/// propnet if one was built in time, shared by every local player and the referee. Without a
/// propnet the game is played on the reasoner.
#[derive(Debug)]
pub struct Game {
    /// A short name for reports.
    pub name: String,
    /// The GDL rules as KIF text.
    pub rules: String,
    /// The rules parsed and validated.
    pub desc: gdl::Description,
    /// The propnet, or why there is none.
    pub propnet: Result<Propnet, NoPropnet>,
    /// How long the referee took to read the rules and build the propnet. Players in this
    /// process share what it built, so their start clock is this much shorter than the one a
    /// player over the GGP protocol, which builds its own, is given.
    pub prepared: Duration,
}

/// Why a game is played without a propnet.
#[derive(Debug, Clone, Error)]
pub enum NoPropnet {
    /// Grounding or building gave up.
    #[error(transparent)]
    Build(#[from] propnet::Error),
    /// Nobody asked for one.
    #[error("the propnet was not built")]
    NotBuilt,
    /// The build did not finish within its share of the start clock.
    #[error("grounding and building the propnet took more than {seconds:.2} s")]
    OutOfTime {
        /// The time it had.
        seconds: f64,
    },
}

/// A game's optimised propnet and the program compiled from it.
#[derive(Debug, Clone)]
pub struct Propnet {
    /// The optimised net.
    pub net: Arc<Net>,
    /// The net compiled for the runtime.
    pub program: Arc<Program>,
}

/// The share of the time to a start deadline that [`Game::prepare`] may spend building the
/// propnet; the rest is the player's own preparation (analysis, search from the initial state).
pub const BUILD_SHARE: f64 = 0.6;

/// How long past its deadline [`Game::prepare`] waits for a propnet build to report (and say why
/// it failed) before giving up on it.
const BUILD_GRACE: Duration = Duration::from_millis(50);

impl Game {
    /// Prepares a match of the game `name` with the rules `rules` (read from `label`, which
    /// problems name) whose start clock ends at `deadline`: parses and validates them, then
    /// builds the propnet within [`BUILD_SHARE`] of the time left, or leaves the game to the
    /// reasoner if it cannot. This is how every command prepares a game, so that a local match
    /// spends its start clock as a game server's would. The validator's warnings come back with
    /// the game. The role is not asked for: each player checks its own when it starts.
    pub fn prepare(
        name: &str,
        label: &str,
        rules: &str,
        deadline: Instant,
    ) -> Result<(Game, Vec<gdl::Problem>), gdl::GdlError> {
        let begun = Instant::now();
        let (desc, warnings) = gdl::load_game(label, rules)?;
        let now = Instant::now();
        let window = deadline.saturating_duration_since(now).mul_f64(BUILD_SHARE);
        let limits = propnet::Limits { deadline: Some(now + window), ..propnet::Limits::default() };
        let build = move |desc: &gdl::Description| {
            let net = propnet::compile(desc, &limits).map_err(NoPropnet::Build)?;
            Propnet::within(net, limits.deadline).ok_or(NoPropnet::OutOfTime { seconds: window.as_secs_f64() })
        };
        // The build runs on a thread of its own so that waiting for it stops on time: a grounding
        // that gives up at its deadline still has to free what it built (a second for a
        // gigabyte), which the abandoned thread does while the match goes on.
        let (done, result) = std::sync::mpsc::channel();
        let copy = desc.clone();
        let spawned = std::thread::Builder::new().name("propnet build".to_owned()).spawn(move || {
            let _ = done.send(build(&copy));
        });
        let propnet = match spawned {
            Ok(_) => result
                .recv_timeout(window + BUILD_GRACE)
                .unwrap_or(Err(NoPropnet::OutOfTime { seconds: window.as_secs_f64() })),
            Err(_) => build(&desc),
        };
        let prepared = begun.elapsed();
        Ok((Game { name: name.to_owned(), rules: rules.to_owned(), desc, propnet, prepared }, warnings))
    }

    /// A game named `name` with the GDL text `rules`, parsed as `desc`, whose optimised propnet
    /// is `net`.
    pub fn new(name: String, rules: String, desc: gdl::Description, net: Net) -> Game {
        Game { name, rules, desc, propnet: Ok(Propnet::new(net)), prepared: Duration::ZERO }
    }

    /// A game played on the reasoner, its propnet not built.
    pub fn on_reasoner(name: String, rules: String, desc: gdl::Description) -> Game {
        Game { name, rules, desc, propnet: Err(NoPropnet::NotBuilt), prepared: Duration::ZERO }
    }

    /// The start clock a player gets when matches of this game are given `start`: all of it
    /// when the player speaks the GGP protocol (`over_protocol`) and builds its own game, less
    /// the referee's preparation when it shares the game built here.
    pub fn start_clock(&self, start: Duration, over_protocol: bool) -> Duration {
        if over_protocol {
            start
        } else {
            start.saturating_sub(self.prepared)
        }
    }

    /// The roles, in the order of the rules.
    pub fn roles(&self) -> Vec<String> {
        self.desc.roles().iter().map(|r| r.as_str().to_owned()).collect()
    }

    /// The propnet, if the game has one.
    pub fn net(&self) -> Option<&Propnet> {
        self.propnet.as_ref().ok()
    }

    /// A fresh state machine over the shared program, if the game has a propnet.
    pub fn machine(&self) -> Option<PropnetMachine> {
        self.net().map(|p| PropnetMachine::from_program(Arc::clone(&p.program)))
    }

    /// A follower of a match of this game as `role`: on the propnet if there is one, else on a
    /// reasoner of its own.
    pub fn follow(&self, role: &str) -> Result<Box<dyn Track>, PlayerError> {
        Ok(match self.machine() {
            Some(m) => Box::new(Follower::on(m, role)?),
            None => Box::new(Follower::on(Reasoner::new(&self.desc), role)?),
        })
    }
}

impl Propnet {
    /// The net `net` and its compiled program.
    pub fn new(net: Net) -> Propnet {
        let program = Arc::new(Program::new(&net));
        Propnet { net: Arc::new(net), program }
    }

    /// The net `net` and its program, if compiled by `deadline`.
    pub fn within(net: Net, deadline: Option<Instant>) -> Option<Propnet> {
        let program = Arc::new(Program::within(&net, deadline)?);
        Some(Propnet { net: Arc::new(net), program })
    }
}

/// What a player is told when a match starts (the GGP `start` message).
#[derive(Debug, Clone)]
pub struct MatchInfo {
    /// The match's identifier.
    pub id: String,
    /// The game.
    pub game: Arc<Game>,
    /// The role the player plays, as the rules name it.
    pub role: String,
    /// Time allowed from the start message to the first move request.
    pub start_clock: Duration,
    /// Time allowed for each move.
    pub play_clock: Duration,
}

impl MatchInfo {
    /// What a GGP `start` message tells a player, with the game it names prepared.
    pub fn from_start(start: &ggp::Start, game: Game) -> MatchInfo {
        MatchInfo {
            id: start.id.clone(),
            game: Arc::new(game),
            role: start.role.clone(),
            start_clock: Duration::from_secs(start.start_clock),
            play_clock: Duration::from_secs(start.play_clock),
        }
    }
}

/// Why a player could not do what it was asked.
#[derive(Debug, Error)]
pub enum PlayerError {
    /// No player goes by this name.
    #[error("unknown player {0:?} (built-in players: {known}; or http://host:port)", known = BUILT_IN.join(", "))]
    Unknown(String),
    /// An `mcts:` spec names a switch the player does not have.
    #[error(
        "unknown switch {0:?} for mcts (parts: {parts}; settings: {settings}, each as NAME=VALUE; joined by colons)",
        parts = mcts_switches().collect::<Vec<_>>().join(", "),
        settings = mcts_settings().collect::<Vec<_>>().join(", ")
    )]
    Switch(String),
    /// An `mcts:` spec gives a setting a value it cannot take.
    #[error("bad setting {0:?} for mcts: {1}")]
    Setting(String, &'static str),
    /// A move or play request came before the match started.
    #[error("the player was asked to play before the match started")]
    NotStarted,
    /// The role is not one of the game's.
    #[error("the game has no role {0:?}")]
    NoSuchRole(String),
    /// A move is not a KIF term, or not one the game knows.
    #[error("not a move of this game: {0:?}")]
    BadMove(String),
    /// The player did not answer before the play clock ran out (the referee counts the move
    /// late).
    #[error("no move before the play clock ran out")]
    OutOfTime,
    /// The person playing closed the input the moves are read from.
    #[error("the input ended: no more moves can be read")]
    NoInput,
    /// The player has no legal move to make.
    #[error("no legal move")]
    NoLegalMove,
    /// The rules misbehaved.
    #[error(transparent)]
    Rules(#[from] machine::MachineError),
    /// The players do not fill the roles one each.
    #[error("{players} players for {roles} roles: give one player per role")]
    Seats {
        /// Players given.
        players: usize,
        /// Roles in the game.
        roles: usize,
    },
    /// A thread the player needs could not be started.
    #[error("cannot start the {what} thread")]
    Thread {
        /// What the thread was for.
        what: &'static str,
        /// Why it could not start.
        #[source]
        source: std::io::Error,
    },
    /// The player panicked.
    #[error("the player panicked")]
    Panicked,
    /// The player could not follow the match: no joint move after one it could not read makes
    /// the next one legal.
    #[error("lost track of the match: no joint move after the unreadable one makes {joint} legal")]
    LostTrack {
        /// The joint move that could not be placed, printed.
        joint: String,
    },
    /// The rules could not be put in a message.
    #[error(transparent)]
    Protocol(#[from] ggp::ProtocolError),
    /// A remote player could not be reached, or its answer could not be read.
    #[error("cannot reach the player at {url}")]
    Http {
        /// The player's address.
        url: String,
        /// What went wrong.
        #[source]
        source: ureq::Error,
    },
    /// A remote player answered with an HTTP error.
    #[error("{url}: HTTP {status}: {body}")]
    Status {
        /// The player's address.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The answer's text.
        body: String,
    },
    /// A clock cannot be told over the GGP protocol, which speaks whole seconds.
    #[error("the GGP protocol speaks whole seconds: the {what} of {seconds} s cannot be told to {url}")]
    Clock {
        /// The player's address.
        url: String,
        /// Which clock.
        what: &'static str,
        /// The clock in seconds.
        seconds: f64,
    },
    /// The match was halted before it ended (the tournament was interrupted).
    #[error("the match was halted")]
    Halted,
    /// A remote player did not answer `ready` to `START`.
    #[error("{url} answered {reply:?} to START")]
    NotReady {
        /// The player's address.
        url: String,
        /// What it answered.
        reply: String,
    },
    /// Alpha-beta search could not run.
    #[error(transparent)]
    Search(#[from] search::SearchError),
    /// The puzzle solver could not run.
    #[error(transparent)]
    Solve(#[from] search::SolveError),
}

/// The names of the built-in players, for [`create`] and messages.
pub const BUILT_IN: &[&str] = &["mcts", "mcts-plain", "alphabeta", "random", "legal"];

/// A player for `spec`: a built-in player's name (see [`BUILT_IN`]), `mcts` with parts turned
/// off or settings changed (`mcts:no-forms:batch=8`, see [`MctsOptions::adjusted`]), or the
/// `http://host:port` address of
/// a GGP player; `seed` seeds whatever randomness it uses.
pub fn create(spec: &str, seed: u64) -> Result<Box<dyn Player>, PlayerError> {
    if spec.starts_with("http://") {
        return Ok(Box::new(Remote::new(spec)));
    }
    match spec {
        "mcts" => Ok(Box::new(MctsPlayer::new(seed))),
        "mcts-plain" => Ok(Box::new(MctsPlayer::plain(seed))),
        _ if spec.starts_with("mcts:") => Ok(Box::new(MctsPlayer::adjusted(seed, &spec["mcts:".len()..])?)),
        "alphabeta" => Ok(Box::new(AlphaBeta::new())),
        "random" => Ok(Box::new(Reflex::random(seed))),
        "legal" => Ok(Box::new(Reflex::legal())),
        _ => Err(PlayerError::Unknown(spec.to_owned())),
    }
}

/// Checks that `clocks` can be told to `player` over the GGP protocol, which speaks whole
/// seconds: a clock is never rounded to one the player is not judged by.
pub fn whole_seconds(clocks: Clocks, player: &str) -> Result<(), PlayerError> {
    for (what, d) in [("start clock", clocks.start), ("play clock", clocks.play)] {
        if d.subsec_nanos() != 0 || d.is_zero() {
            return Err(PlayerError::Clock { url: player.to_owned(), what, seconds: d.as_secs_f64() });
        }
    }
    Ok(())
}

/// A game player, local or remote.
pub trait Player: Send {
    /// The player's name in reports.
    fn name(&self) -> &str;

    /// Prepares for a match; should return before `deadline` (the start clock).
    fn start(&mut self, info: &MatchInfo, deadline: Instant) -> Result<(), PlayerError>;

    /// The player's move in KIF, given the joint move just played (one KIF move per role, in
    /// the order of the roles; `None` on the first turn); should return before `deadline`.
    fn play(&mut self, last: Option<&[String]>, deadline: Instant) -> Result<String, PlayerError>;

    /// Ends the match, given the joint move that ended it.
    fn stop(&mut self, last: Option<&[String]>) -> Result<(), PlayerError>;

    /// Whether the player is spoken to over the GGP protocol: it builds the game from the rules
    /// itself (so its start clock is not shortened by the referee's preparation), and its clocks
    /// are sent in whole seconds.
    fn over_protocol(&self) -> bool {
        false
    }

    /// Whether the player is there to play: one over the GGP protocol answers `INFO` within
    /// `wait` (and a grace); one in this process always is.
    fn reachable(&self, _wait: Duration) -> Result<(), PlayerError> {
        Ok(())
    }

    /// What the player expected to score (0..=100) after the move [`play`](Self::play) last
    /// returned, as its search valued it; `None` where it does not say.
    fn expected(&self) -> Option<f64> {
        None
    }

    /// A legal move to answer with when [`play`](Self::play) could not read the joint move
    /// `last`: one of ours in the state that our own move and the others' readable moves (any
    /// legal one where a move cannot be read) lead to. The match as the player follows it does
    /// not change: the next joint move tells what was really played. `None` if the player keeps
    /// no state to guess from.
    fn guess(&mut self, last: &[String]) -> Option<String> {
        let _ = last;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_players_are_named_with_the_known_ones() {
        let e = create("deepblue", 1).err().unwrap();
        let known = BUILT_IN.join(", ");
        assert_eq!(
            e.to_string(),
            format!("unknown player \"deepblue\" (built-in players: {known}; or http://host:port)")
        );
    }

    #[test]
    fn mcts_switches_turn_parts_off_and_unknown_ones_are_refused() {
        let options =
            MctsOptions::default().adjusted("no-forms:no-local:no-factored:batch=8:exploration=0.4:mast=0.6").unwrap();
        assert!(!options.forms && !options.local && !options.factored);
        assert!(options.analysis && options.tactics && options.factors && options.ponder);
        assert_eq!((options.search.batch, options.search.exploration, options.search.mast), (8, 0.4, 0.6));
        let options =
            MctsOptions::default().adjusted("cutoff=0:prior=12:check-plies=3:local-share=0.3:local-idle=0.1").unwrap();
        assert_eq!((options.search.cutoff, options.search.prior_visits, options.search.check_plies), (0, 12.0, 3));
        assert_eq!((options.local_share, options.local_idle), (0.3, 0.1));
        assert!(MctsOptions::default().search.cutoff > 0, "the player cuts guided playouts short by default");
        let bad = ["batch=0", "batch=65", "batch=2.5", "threads=x", "exploration=-1", "exploration=inf", "mast=1.5"];
        for bad in bad.into_iter().chain([
            "cutoff=2.5",
            "cutoff=-1",
            "prior=-1",
            "check-plies=0",
            "local-share=0",
            "local-share=2",
            "local-idle=0",
        ]) {
            let e = create(&format!("mcts:{bad}"), 1).err().unwrap();
            assert!(e.to_string().starts_with(&format!("bad setting {bad:?}")), "{e}");
        }
        let e = create("mcts:depth=3", 1).err().unwrap();
        assert!(e.to_string().contains("\"depth=3\"") && e.to_string().contains("batch"), "{e}");
        let player = create("mcts:no-forms", 1).unwrap();
        assert_eq!(player.name(), "mcts:no-forms");
        let e = create("mcts:no-minimax", 1).err().unwrap();
        assert!(e.to_string().contains("\"no-minimax\"") && e.to_string().contains("forms"), "{e}");
        assert!(e.to_string().contains("no-forms") && e.to_string().contains(" paranoid,"), "{e}");
        assert!(create("mcts:forms", 1).is_err(), "a part on by default is only turned off: no-NAME");
        assert!(create("mcts:no-paranoid", 1).is_err(), "a part off by default is only turned on: NAME");
        let options = MctsOptions::default();
        assert!(!options.paranoid && options.adjusted("paranoid").unwrap().paranoid);
    }
}
