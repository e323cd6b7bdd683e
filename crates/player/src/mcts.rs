//! The Monte Carlo tree search player. At the start it analyses the game's structure (unless
//! told not to) and hands the goal latches to the search; a thread of its own then owns the
//! search tree for the whole match, searching whenever it is not answering a move request, so
//! the time before the first move, the opponents' turns and forced moves all add to the tree
//! that the next move is chosen from. A move request advances the tree along the joint move,
//! searches until shortly before the deadline and answers with the most promising move; if the
//! answer does not come in time, the player falls back on a legal move of its own rather than
//! be late. Single-player games keep the best complete line found, and the puzzle solver is
//! called in when the playouts have not found the game's best score by the time the start clock
//! is partly used. Where the analysis finds the moves local enough, the local forced-win search
//! runs on a thread beside the tree and marks the moves it proves to win or lose. Where the
//! analysis splits a game of several roles into sub-games that each can end it, each is
//! searched in a tree of its own (`search::factored`); so are neighbourhoods joined only by a
//! few shared propositions, where the game has no exact split. Where every joint move from the
//! current state ends the game and several roles choose, the move is drawn from an equilibrium
//! of the payoffs instead (`search::matrix`). A game without a propnet is searched on the
//! reasoner, without the analysis (which reads the net), the puzzle solver or worker threads.
//! Moves cross between the player and its thread as KIF text, since the reasoner's moves mean
//! something only to the machine that made them.

use crate::local::{LocalWorker, Share};
use crate::{MatchInfo, Player, PlayerError, Track};
use machine::{MachineError, StateMachine};
use metagame::{prepare, Budget, Knowledge, MoveVariety, Prepared, Wanted};
use propnet::PropnetMachine;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use reasoner::Reasoner;
use search::factored::Factored;
use search::mcts::{Mcts, MctsConfig, Plan, SearchMachine};
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long the thinking thread searches between looks at its command channel: a move request
/// waits at most this long before the thread turns to it.
const SLICE: Duration = Duration::from_millis(20);

/// How long the thinking thread searches between looks at the local search's results while it
/// answers a move request.
const HELPER_SLICE: Duration = Duration::from_millis(100);

/// How often the start looks whether the analysis is done.
const POLL: Duration = Duration::from_millis(5);

/// In single-player games, the share of the start clock (after the analysis) the tree search
/// gets to find the best score before the puzzle solver is called in.
const PUZZLE_SEARCH_SHARE: f64 = 0.25;

/// The part of the time left that a search leaves unused so that the answer arrives in time (a
/// tenth, within these bounds). Measured with two players searching on two cores: a search
/// overshoots its stop by up to about 20 ms (its workers finish their batches, and a busy
/// machine runs the answering thread late), and a thread sleeping to the end of the start clock
/// may wake 40 ms late.
const MIN_MARGIN: Duration = Duration::from_millis(50);
const MAX_MARGIN: Duration = Duration::from_millis(300);

/// The time kept back from a clock with `left` remaining.
fn margin(left: Duration) -> Duration {
    (left / 10).clamp(MIN_MARGIN, MAX_MARGIN)
}

/// The instant `margin` before `deadline`, or now if that has passed.
fn before(deadline: Instant, margin: Duration) -> Instant {
    deadline.checked_sub(margin).map_or_else(Instant::now, |t| t.max(Instant::now()))
}

/// The longest the work before a move's search (the material check, which the move's choice
/// then uses: 10 ms for three plies in Breakthrough, 20–500 ms for five) may take.
const PREPARE_TIME: Duration = Duration::from_millis(600);

/// The work before a move's search has at most one part in this many of the move's time.
const PREPARE_SHARE: u32 = 5;

/// How the player prepares and searches.
#[derive(Debug, Clone)]
pub struct MctsOptions {
    /// Analyse the game at the start and let the search use its goal latches.
    pub analysis: bool,
    /// Keep searching between move requests (on the opponents' time).
    pub ponder: bool,
    /// Playouts take decisive moves and avoid anti-decisive ones (see [`Knowledge`]).
    pub tactics: bool,
    /// Run the local forced-win search beside the tree where the analysis finds the game's
    /// moves local enough (see [`crate::local`]).
    pub local: bool,
    /// The share of processor time the local search's thread keeps to while its searches prove
    /// something (it pauses the search whenever it is ahead), since it takes the time from the
    /// tree where they share a core.
    pub local_share: f64,
    /// The share it keeps to while its searches have proved nothing at the last two roots.
    pub local_idle: f64,
    /// Hand the search the goal forms the analysis confirms: goal emulation, virtual terminals
    /// and latch heuristics.
    pub forms: bool,
    /// Let the search leave aside the factors the analysis finds irrelevant.
    pub factors: bool,
    /// In a game of several roles where several factors (or, failing those, neighbourhoods
    /// joined by a few shared propositions) can each end or score the game, search each in a
    /// tree of its own (see [`Factored`]).
    pub factored: bool,
    /// Look for the roles' pieces (see [`Pieces`]): where random games find them, they give the
    /// tree its priors (and, with `search.placement`, where they stand too), score the playouts
    /// cut off after `search.cutoff` joint moves and, with `search.minimax`, give the balance the
    /// tree backs up.
    pub pieces: bool,
    /// Where the roles have no pieces, give the tree priors from chapter 16's fuzzy goal
    /// heuristic, once random games confirm that it predicts the score (see [`Outlook`]).
    pub outlook: bool,
    /// Steer playouts by move averages (`search.mast` is the greedy chance) where the game's
    /// moves say where they are played (see [`MoveVariety`]).
    pub mast: bool,
    /// Where every joint move from the current state ends the game and several roles choose
    /// (a one-shot game, a last round), draw the move from an equilibrium of the payoffs
    /// instead of taking the tree's most visited (see [`search::matrix`]).
    pub matrix: bool,
    /// The search's own settings (threads, seed, pool size, exploration).
    pub search: MctsConfig,
}

/// The chance that a playout plays the move of best average where the player uses move
/// averages: an ε-greedy choice with ε = 0.4, the setting Tak, Winands and Björnsson found
/// best for MAST across games ("N-Grams and the Last-Good-Reply Policy Applied in General Game
/// Playing", IEEE TCIAIG 2012).
const MAST_GREEDY: f64 = 0.6;

/// Joint moves after which a guided playout stops and is scored by the roles' piece balance,
/// where the game has pieces: long enough for the exchanges a move starts to play out, short
/// enough that the material is still the leaf's. Measured in Breakthrough self-play
/// (BENCHMARKS.md).
const CUTOFF: u32 = 10;

/// How much the pieces' placement counts beside their number, where random games confirmed
/// one: the score it predicts, as is. Against Sancho in Breakthrough 26–24 over 50 matches with
/// it, 3–7 over 10 without it (BENCHMARKS.md).
const PLACEMENT: f64 = 1.0;

/// The chance that a guided playout's move is the one gaining the most material, where the
/// game has pieces. Against the player without it, 16–4 in Knightthrough and 14–6 in
/// Breakthrough self-play at a 1 s clock (BENCHMARKS.md).
const CAPTURES: f64 = 0.5;

/// The share of the time the local search's thread searches by default. On one core, all of it
/// cost Breakthrough 11–19 against no local search over 30 matches, a quarter went 16–14
/// (BENCHMARKS.md). Those shares were nominal: the thread rested between iterations, a new root
/// ended the rest, and an iteration ran on until the root moved, so it had 28–44% of the core
/// at a nominal quarter (mean 34%) and 30–48% through most of a match even at a tenth. It now
/// keeps to its share inside iterations too (see `local::Governor`).
const LOCAL_SHARE: f64 = 0.25;

/// The share of the time the local search's thread searches while it has proved nothing at
/// the last two roots (the opening, and a middlegame whose forced lines run past its horizon),
/// so that the tree has the core there; at a twentieth the shallow iterations that see a
/// tactic beginning still run, and the first proof gives the thread its full share again.
const LOCAL_IDLE: f64 = 0.05;

impl Default for MctsOptions {
    fn default() -> MctsOptions {
        MctsOptions {
            analysis: true,
            ponder: true,
            tactics: true,
            local: true,
            local_share: LOCAL_SHARE,
            local_idle: LOCAL_IDLE,
            forms: true,
            factors: true,
            factored: true,
            mast: true,
            pieces: true,
            outlook: true,
            matrix: true,
            search: MctsConfig {
                mast: MAST_GREEDY,
                cutoff: CUTOFF,
                captures: CAPTURES,
                placement: PLACEMENT,
                material_check: true,
                ..MctsConfig::default()
            },
        }
    }
}

/// Picks one on/off option out of the player's options.
type Flag = fn(&mut MctsOptions) -> &mut bool;

/// The parts of the `mcts` player that a `no-` switch in its spec turns off (`mcts:no-forms`),
/// each with the option it clears.
const SWITCHES: [(&str, Flag); 13] = [
    ("analysis", |o| &mut o.analysis),
    ("ponder", |o| &mut o.ponder),
    ("tactics", |o| &mut o.tactics),
    ("local", |o| &mut o.local),
    ("forms", |o| &mut o.forms),
    ("factors", |o| &mut o.factors),
    ("factored", |o| &mut o.factored),
    ("mast", |o| &mut o.mast),
    ("pieces", |o| &mut o.pieces),
    ("outlook", |o| &mut o.outlook),
    ("matrix", |o| &mut o.matrix),
    ("check", |o| &mut o.search.material_check),
    ("transpositions", |o| &mut o.search.transpositions),
];

/// Sets one numeric setting of the player or its search, or says why the value cannot be used.
type Setter = fn(&mut MctsOptions, f64) -> Result<(), &'static str>;

/// The search settings a `NAME=VALUE` switch sets (`mcts:batch=8`), each with its setter.
const SETTINGS: [(&str, Setter); 17] = [
    ("batch", |o, v| whole(v, 1, 64).map(|x| o.search.batch = x)),
    ("threads", |o, v| whole(v, 1, 256).map(|x| o.search.threads = x)),
    ("exploration", |o, v| non_negative(v).map(|x| o.search.exploration = x)),
    ("latch-bias", |o, v| non_negative(v).map(|x| o.search.latch_bias = x)),
    ("heuristic-bias", |o, v| non_negative(v).map(|x| o.search.heuristic_bias = x)),
    ("local-weight", |o, v| non_negative(v).map(|x| o.search.local_weight = x)),
    ("local-share", |o, v| share(v).map(|x| o.local_share = x)),
    ("local-idle", |o, v| share(v).map(|x| o.local_idle = x)),
    ("mast", |o, v| chance(v).map(|x| o.search.mast = x)),
    ("rave", |o, v| non_negative(v).map(|x| o.search.rave = x)),
    ("prior", |o, v| non_negative(v).map(|x| o.search.prior_visits = x)),
    ("cutoff", |o, v| whole(v, 0, 100_000).map(|x| o.search.cutoff = x as u32)),
    ("minimax", |o, v| chance(v).map(|x| o.search.minimax = x)),
    ("placement", |o, v| non_negative(v).map(|x| o.search.placement = x)),
    ("regret", |o, v| chance(v).map(|x| o.search.regret = x)),
    ("check-plies", |o, v| whole(v, 1, 15).map(|x| o.search.check_plies = x as u32)),
    ("captures", |o, v| chance(v).map(|x| o.search.captures = x)),
];

/// `v` as a whole number within `lo..=hi`.
fn whole(v: f64, lo: usize, hi: usize) -> Result<usize, &'static str> {
    let ok = v.fract() == 0.0 && v >= lo as f64 && v <= hi as f64;
    ok.then_some(v as usize).ok_or("out of range or not a whole number")
}

/// `v` if it is a finite number of at least 0.
fn non_negative(v: f64) -> Result<f64, &'static str> {
    (v.is_finite() && v >= 0.0).then_some(v).ok_or("must be a number of at least 0")
}

/// `v` if it is a share of something that must not vanish, over 0 and at most 1.
fn share(v: f64) -> Result<f64, &'static str> {
    (v > 0.0 && v <= 1.0).then_some(v).ok_or("must be a number over 0 and at most 1")
}

/// `v` if it is a chance, 0..=1.
fn chance(v: f64) -> Result<f64, &'static str> {
    (0.0..=1.0).contains(&v).then_some(v).ok_or("must be a number from 0 to 1")
}

/// The names of the parts a `no-` switch turns off, for messages.
pub fn mcts_switches() -> impl Iterator<Item = &'static str> {
    SWITCHES.iter().map(|&(name, _)| name)
}

/// The names of the settings a `NAME=VALUE` switch sets, for messages.
pub fn mcts_settings() -> impl Iterator<Item = &'static str> {
    SETTINGS.iter().map(|&(name, _)| name)
}

impl MctsOptions {
    /// The default options with the search's random choices seeded by `seed`.
    pub fn seeded(seed: u64) -> MctsOptions {
        let mut options = MctsOptions::default();
        options.search.seed = seed;
        options
    }

    /// The search's settings for a game compiled as `program`: move averages are left off
    /// unless the options ask for them and random games of it show that its moves say where
    /// they are played (measured within `budget`).
    fn search_for(&self, program: &Arc<propnet::Program>, budget: Duration) -> MctsConfig {
        let mut config = self.search.clone();
        if !self.mast || config.mast == 0.0 || !MoveVariety::measure(program, budget, config.seed).pays() {
            config.mast = 0.0;
        }
        config
    }

    /// What the preparation should learn for these options: pieces only where the priors, the
    /// cut-off playouts or the minimax backups read them, and an outlook only for the priors.
    fn wanted(&self) -> Wanted {
        let s = &self.search;
        let balance = s.prior_visits > 0.0 || s.cutoff > 0 || s.minimax > 0.0;
        Wanted {
            tactics: self.tactics,
            forms: self.forms,
            factors: self.factors,
            pieces: self.pieces && balance,
            outlook: self.outlook && s.prior_visits > 0.0,
        }
    }

    /// The options as `switches` change them, joined by colons: `no-NAME` turns off a part
    /// named by [`mcts_switches`], `NAME=VALUE` sets a search setting named by
    /// [`mcts_settings`] (`no-forms:batch=8`).
    pub fn adjusted(mut self, switches: &str) -> Result<MctsOptions, PlayerError> {
        for switch in switches.split(':') {
            if let Some((name, value)) = switch.split_once('=') {
                let Some((_, set)) = SETTINGS.iter().find(|&&(n, _)| n == name) else {
                    return Err(PlayerError::Switch(switch.to_owned()));
                };
                let v: f64 = value.parse().map_err(|_| PlayerError::Setting(switch.to_owned(), "not a number"))?;
                set(&mut self, v).map_err(|why| PlayerError::Setting(switch.to_owned(), why))?;
                continue;
            }
            let name = switch.strip_prefix("no-");
            let Some((_, flag)) = SWITCHES.iter().find(|&&(n, _)| Some(n) == name) else {
                return Err(PlayerError::Switch(switch.to_owned()));
            };
            *flag(&mut self) = false;
        }
        Ok(self)
    }
}

/// Plays by Monte Carlo tree search, keeping its tree and thinking between moves.
pub struct MctsPlayer {
    name: String,
    options: MctsOptions,
    session: Option<Session>,
    /// An analysis the start stopped waiting for; joined before the next match and on drop.
    late_analysis: Option<Analyst>,
    /// Seeds each match's equilibrium draws, so that matches of a series draw differently.
    draws: SmallRng,
}

impl MctsPlayer {
    /// The `mcts` player: the analysis' goal latches guide the search; `seed` fixes its random
    /// choices.
    pub fn new(seed: u64) -> MctsPlayer {
        MctsPlayer::with_options("mcts", MctsOptions::seeded(seed))
    }

    /// The `mcts-plain` player: the same search without the analysis (plain random playouts),
    /// decoupled UCB at every node.
    pub fn plain(seed: u64) -> MctsPlayer {
        let mut options = MctsOptions {
            analysis: false,
            tactics: false,
            local: false,
            mast: false,
            matrix: false,
            ..MctsOptions::seeded(seed)
        };
        options.search.regret = 0.0;
        MctsPlayer::with_options("mcts-plain", options)
    }

    /// The `mcts` player as `switches` change it (see [`MctsOptions::adjusted`]), named by its
    /// spec (`mcts:no-forms`) in reports.
    pub fn adjusted(seed: u64, switches: &str) -> Result<MctsPlayer, PlayerError> {
        let options = MctsOptions::seeded(seed).adjusted(switches)?;
        Ok(MctsPlayer::with_options(format!("mcts:{switches}"), options))
    }

    /// A player named `name` in reports that prepares and searches as `options` say.
    pub fn with_options(name: impl Into<String>, options: MctsOptions) -> MctsPlayer {
        let draws = SmallRng::seed_from_u64(options.search.seed);
        MctsPlayer { name: name.into(), options, session: None, late_analysis: None, draws }
    }
}

/// A request to the thinking thread: advance along the joint moves (none at the first request;
/// two when the follower recovered from one it could not read), search until `until` and
/// answer with our move.
struct Command {
    joints: Vec<Vec<String>>,
    until: Instant,
    reply: Sender<Result<String, PlayerError>>,
}

/// One match: the player's own view of the state, and the thread that owns the search.
struct Session {
    follower: Box<dyn Track>,
    commands: Option<Sender<Command>>,
    thread: Option<JoinHandle<()>>,
}

impl Session {
    /// Sends the thinking thread a move request and waits for its answer until `wait_until`;
    /// `None` if it does not answer by then or is gone.
    fn ask(
        &self,
        joints: Vec<Vec<String>>,
        until: Instant,
        wait_until: Instant,
    ) -> Option<Result<String, PlayerError>> {
        let (reply, answer) = mpsc::channel();
        self.commands.as_ref()?.send(Command { joints, until, reply }).ok()?;
        answer.recv_timeout(wait_until.saturating_duration_since(Instant::now())).ok()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // Closing the channel ends the thread within a slice; joining it means no match leaves
        // a thread (or its tree) behind.
        self.commands = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// What the thinking thread searches: one tree over the whole game, or one per factor.
trait Tree: Send + 'static {
    /// A move as the search knows it.
    type Move: Clone + Send;

    /// Searches until `until` (or until nothing is left to find).
    fn search(&mut self, until: Instant) -> Result<(), MachineError>;

    /// The legal move of `role` at the root that prints as `name`.
    fn root_move(&mut self, role: usize, name: &str) -> Option<Self::Move>;

    /// Moves the root along the joint move the game took.
    fn advance(&mut self, joint: &[Self::Move]) -> Result<(), MachineError>;

    /// How many legal moves `role` has at the root.
    fn choices(&mut self, role: usize) -> usize;

    /// The move to play for `role`, printed; `None` if it has no legal move.
    fn best(&mut self, role: usize) -> Result<Option<String>, MachineError>;

    /// Work done at the start of a move that `best` then needs (the material check), before
    /// `until`.
    fn prepare(&mut self, _role: usize, _until: Instant) -> Result<(), MachineError> {
        Ok(())
    }

    /// Whether more search cannot change the answer: the root is proven, or (where `settled`)
    /// the single-player plan held is followed without searching.
    fn finished(&self, settled: bool) -> bool;

    /// A move for `role` drawn from an equilibrium of the root's payoffs, printed, where every
    /// joint move from the root ends the game; worked out before `until`.
    fn equilibrium_move(
        &mut self,
        _role: usize,
        _until: Instant,
        _rng: &mut SmallRng,
    ) -> Result<Option<String>, MachineError> {
        Ok(None)
    }
}

impl<M: SearchMachine + 'static> Tree for Mcts<M> {
    type Move = M::Move;

    fn search(&mut self, until: Instant) -> Result<(), MachineError> {
        Mcts::search(self, until).map(drop)
    }

    fn root_move(&mut self, role: usize, name: &str) -> Option<M::Move> {
        Mcts::root_move(self, role, name)
    }

    fn advance(&mut self, joint: &[M::Move]) -> Result<(), MachineError> {
        Mcts::advance(self, joint)
    }

    fn choices(&mut self, role: usize) -> usize {
        self.move_stats(role).len()
    }

    fn best(&mut self, role: usize) -> Result<Option<String>, MachineError> {
        Ok(self.checked_best_move(role).map(|mv| self.machine().format_move(&mv)))
    }

    fn finished(&self, settled: bool) -> bool {
        (settled && self.plan().is_some_and(|p| !p.moves.is_empty())) || self.stats().proven.is_some()
    }

    fn prepare(&mut self, role: usize, until: Instant) -> Result<(), MachineError> {
        if self.config().material_check {
            self.material_check(role, until)?;
        }
        Ok(())
    }

    fn equilibrium_move(
        &mut self,
        role: usize,
        until: Instant,
        rng: &mut SmallRng,
    ) -> Result<Option<String>, MachineError> {
        let Some(form) = self.root_normal_form(until)? else { return Ok(None) };
        let strategies = form.equilibrium(until);
        let mv = form.draw(role, &strategies[role], rng);
        Ok(Some(self.machine().format_move(&mv)))
    }
}

impl Tree for Factored {
    type Move = u32;

    fn search(&mut self, until: Instant) -> Result<(), MachineError> {
        Factored::search(self, until)
    }

    fn root_move(&mut self, role: usize, name: &str) -> Option<u32> {
        let legal = self.legal_moves(role).ok()?;
        self.machine().move_named(&legal, name)
    }

    fn advance(&mut self, joint: &[u32]) -> Result<(), MachineError> {
        Factored::advance(self, joint)
    }

    fn choices(&mut self, role: usize) -> usize {
        self.legal_moves(role).map_or(0, |l| l.len())
    }

    fn best(&mut self, role: usize) -> Result<Option<String>, MachineError> {
        Ok(self.best_move(role)?.map(|mv| self.machine().format_move(&mv)))
    }

    fn finished(&self, _settled: bool) -> bool {
        self.settled()
    }
}

/// The thinking thread's state: the search and what it needs to answer.
struct Thinker<T: Tree> {
    tree: T,
    role: usize,
    ponder: bool,
    /// The single-player plan the search holds is proven optimal: follow it without searching.
    settled: bool,
    /// The last search failed (the rules misbehaved): wait for requests instead of searching.
    stalled: bool,
    /// Told once the search has nothing left to do, so the start need not wait out its clock.
    idle: Option<Sender<()>>,
    /// Work done between slices of search (the local search's requests and results).
    helper: Option<Box<dyn Helper<T>>>,
    /// Where the player plays equilibria of states whose every joint move ends the game, the
    /// random numbers its moves are drawn with.
    equilibria: Option<SmallRng>,
}

/// Work the thinking thread does between slices of tree search.
trait Helper<T: Tree>: Send {
    /// Reads and updates the tree.
    fn between(&mut self, tree: &mut T);
}

impl Helper<Mcts<PropnetMachine>> for LocalWorker {
    fn between(&mut self, mcts: &mut Mcts<PropnetMachine>) {
        LocalWorker::between(self, mcts);
    }
}

impl<T: Tree> Thinker<T> {
    /// A thinker for `role` searching `tree`.
    fn new(tree: T, role: usize, ponder: bool, settled: bool, idle: Sender<()>) -> Thinker<T> {
        Thinker { tree, role, ponder, settled, stalled: false, idle: Some(idle), helper: None, equilibria: None }
    }

    /// Searches until `until`, in slices with the helper's work between them if there is one.
    fn search(&mut self, until: Instant) -> Result<(), MachineError> {
        let Some(mut helper) = self.helper.take() else { return self.tree.search(until) };
        let searched = loop {
            helper.between(&mut self.tree);
            let now = Instant::now();
            if now >= until {
                break Ok(());
            }
            if let Err(e) = self.tree.search(until.min(now + HELPER_SLICE)) {
                break Err(e);
            }
            if !self.worth_searching() {
                break Ok(());
            }
        };
        self.helper = Some(helper);
        searched
    }

    /// Starts the thread that owns the search, named `name`, serving `commands`.
    fn spawn(self, name: String, commands: Receiver<Command>) -> Result<JoinHandle<()>, PlayerError> {
        std::thread::Builder::new()
            .name(name)
            .spawn(move || self.run(commands))
            .map_err(|source| PlayerError::Thread { what: "search", source })
    }

    /// Whether a search could still change the answer.
    fn worth_searching(&self) -> bool {
        !self.stalled && !self.tree.finished(self.settled)
    }

    /// Serves move requests until the channel closes, searching in slices between them; ends
    /// after a failed request, whose error the player has been told.
    fn run(mut self, commands: Receiver<Command>) {
        loop {
            let command = if self.ponder && self.worth_searching() {
                match commands.try_recv() {
                    Ok(command) => command,
                    Err(TryRecvError::Empty) => {
                        self.stalled = self.search(Instant::now() + SLICE).is_err();
                        continue;
                    }
                    Err(TryRecvError::Disconnected) => return,
                }
            } else {
                if let Some(idle) = self.idle.take() {
                    let _ = idle.send(());
                }
                match commands.recv() {
                    Ok(command) => command,
                    Err(_) => return,
                }
            };
            let answer = self.answer(&command.joints, command.until);
            let failed = answer.is_err();
            // The player may have stopped waiting (it answered without us): nothing to do then.
            let _ = command.reply.send(answer);
            if failed {
                return;
            }
        }
    }

    /// Advances the tree along `joints` and chooses our move, searching until `until` unless
    /// the move is forced or already decided.
    fn answer(&mut self, joints: &[Vec<String>], until: Instant) -> Result<String, PlayerError> {
        for joint in joints {
            let mut moves = Vec::with_capacity(joint.len());
            for (r, name) in joint.iter().enumerate() {
                moves.push(self.tree.root_move(r, name).ok_or_else(|| PlayerError::BadMove(name.clone()))?);
            }
            self.tree.advance(&moves)?;
        }
        self.stalled = false;
        let choosing = self.tree.choices(self.role) > 1;
        if let Some(rng) = self.equilibria.as_mut().filter(|_| choosing) {
            if let Some(mv) = self.tree.equilibrium_move(self.role, until, rng)? {
                return Ok(mv);
            }
        }
        if choosing && self.worth_searching() {
            let now = Instant::now();
            let time = until.saturating_duration_since(now) / PREPARE_SHARE;
            self.tree.prepare(self.role, now + time.min(PREPARE_TIME))?;
            self.search(until)?;
        }
        self.tree.best(self.role)?.ok_or(PlayerError::NoLegalMove)
    }
}

/// An analysis running on a thread of its own, so that the start can give up waiting for it.
struct Analyst(JoinHandle<Prepared>);

impl Analyst {
    /// Starts preparing `info`'s game within `budget`, learning what `options` use.
    fn spawn(info: &MatchInfo, options: &MctsOptions, budget: Budget) -> Result<Analyst, PlayerError> {
        let (info, wanted) = (info.clone(), options.wanted());
        std::thread::Builder::new()
            .name("analysis".to_owned())
            .spawn(move || match info.game.net() {
                Some(game) => prepare(&game.net, &game.program, &info.game.desc, wanted, budget),
                None => Prepared::default(),
            })
            .map(Analyst)
            .map_err(|source| PlayerError::Thread { what: "analysis", source })
    }

    /// What the analysis prepared if it ends by `until`; otherwise the analyst, still running.
    fn wait(self, until: Instant) -> Result<Prepared, Analyst> {
        while !self.0.is_finished() && Instant::now() < until {
            std::thread::sleep(POLL.min(until.saturating_duration_since(Instant::now())));
        }
        if self.0.is_finished() {
            Ok(self.0.join().unwrap_or_default())
        } else {
            Err(self)
        }
    }
}

/// Prepares a single-player game before `end`: the tree search gets a share of the time, then
/// the puzzle solver gets the rest and its plan is offered to the search, which keeps it if it
/// scores more or as much in fewer moves (a line the tree stumbled on to the best score can be
/// far from the shortest). Whether the plan held is the game's best score or proven optimal.
fn prepare_puzzle(
    mcts: &mut Mcts,
    net: &propnet::Net,
    guide: Option<&Knowledge>,
    end: Instant,
) -> Result<bool, PlayerError> {
    let best = mcts.machine().program().goal_values(0).into_iter().max().unwrap_or(100);
    let now = Instant::now();
    mcts.search(now + end.saturating_duration_since(now).mul_f64(PUZZLE_SEARCH_SHARE))?;
    let best_found = mcts.plan().is_some_and(|p| p.score >= best);
    let options = search::SolveConfig {
        goals: guide.map(Knowledge::goals),
        factors: guide.and_then(Knowledge::factors),
        deadline: Some(end),
        ..search::SolveConfig::default()
    };
    let solution = search::solve(net, options)?;
    let moves: Option<Vec<u32>> = solution.plan.iter().map(|mv| mcts.machine().find_move(0, mv)).collect();
    let (Some(score), Some(moves)) = (solution.score, moves) else { return Ok(best_found) };
    mcts.offer_plan(Plan { moves, score });
    let held = mcts.plan().map_or(0, |p| p.score);
    Ok(held >= best || (solution.optimal && held >= score))
}

impl Player for MctsPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn start(&mut self, info: &MatchInfo, deadline: Instant) -> Result<(), PlayerError> {
        self.session = None;
        self.join_late_analysis();
        let follower = info.game.follow(&info.role)?;
        let role = follower.role();
        let now = Instant::now();
        let end = before(deadline, margin(deadline.saturating_duration_since(now)));
        let (idle, done) = mpsc::channel();
        let (commands, inbox) = mpsc::channel();
        let ponder = self.options.ponder;
        let name = format!("{} {}", self.name, info.role);
        let thread = match info.game.net() {
            Some(net) => {
                let mut prepared = Prepared::default();
                if self.options.analysis {
                    let budget = Budget::start(now, end);
                    match Analyst::spawn(info, &self.options, budget)?.wait(budget.wait) {
                        Ok(found) => prepared = found,
                        Err(late) => self.late_analysis = Some(late),
                    }
                }
                let guide = prepared.knowledge;
                let config = self
                    .options
                    .search_for(&net.program, MoveVariety::TRIAL.min(end.saturating_duration_since(now).mul_f64(0.05)));
                let several = info.game.roles().len() > 1 && self.options.factored;
                let exact = guide.as_deref().and_then(Knowledge::factors);
                let splits = exact.into_iter().chain(prepared.neighbourhoods.as_ref()).filter(|_| several);
                for split in splits {
                    if let Some(factored) = Factored::new(Arc::clone(&net.program), split, &config)? {
                        let thread = Thinker::new(factored, role, ponder, false, idle).spawn(name, inbox)?;
                        return self.begin(follower, commands, thread, done, end);
                    }
                }
                let mut m = PropnetMachine::from_program(Arc::clone(&net.program));
                m.set_goal_oracle(guide.as_ref().and_then(|g| g.goal_oracle(&net.program)));
                let mut mcts = Mcts::on(m, guide.clone(), config)?;
                let settled = match info.game.roles().len() {
                    1 => prepare_puzzle(&mut mcts, &net.net, guide.as_deref(), end)?,
                    _ => false,
                };
                let mut thinker = Thinker::new(mcts, role, ponder, settled, idle);
                thinker.equilibria = self.equilibria();
                if let Some(locality) = prepared.locality.filter(|_| self.options.local) {
                    let worker = LocalWorker::spawn(
                        Arc::clone(&net.net),
                        Arc::clone(&net.program),
                        locality,
                        Share { busy: self.options.local_share, idle: self.options.local_idle },
                    )
                    .map_err(|source| PlayerError::Thread { what: "local search", source })?;
                    thinker.helper = Some(Box::new(worker));
                }
                thinker.spawn(name, inbox)?
            }
            None => {
                let mcts = Mcts::on(Reasoner::new(&info.game.desc), None, self.options.search.clone())?;
                let mut thinker = Thinker::new(mcts, role, ponder, false, idle);
                thinker.equilibria = self.equilibria();
                thinker.spawn(name, inbox)?
            }
        };
        self.begin(follower, commands, thread, done, end)
    }

    fn play(&mut self, last: Option<&[String]>, deadline: Instant) -> Result<String, PlayerError> {
        let session = self.session.as_mut().ok_or(PlayerError::NotStarted)?;
        let joints = session.follower.step(last)?;
        let mut legal = session.follower.legal()?;
        let keep = margin(deadline.saturating_duration_since(Instant::now()));
        let found = session.ask(joints, before(deadline, keep), before(deadline, keep / 2)).transpose()?;
        // Without an answer in time (or a thread to give one), any legal move beats a late one.
        // The thread follows the same joint moves as the follower, so an answer that is not
        // legal only guards against the two disagreeing.
        let mv = found.filter(|mv| legal.contains(mv)).unwrap_or_else(|| legal.swap_remove(0));
        session.follower.answer(&mv)
    }

    fn guess(&mut self, last: &[String]) -> Option<String> {
        self.session.as_mut()?.follower.guess(last).ok()
    }

    fn stop(&mut self, _last: Option<&[String]>) -> Result<(), PlayerError> {
        self.session = None;
        self.join_late_analysis();
        // A latch proof the analysis stopped waiting for may still be grounding; a process must
        // not exit under it, and a finished match is the moment that costs no clock.
        analysis::wait_for_abandoned_proofs();
        Ok(())
    }
}

impl MctsPlayer {
    /// Opens the session whose search runs on `thread`, served through `commands`; where the
    /// player ponders, the start clock is free thinking time, so this waits until `end` or
    /// until the thread says (through `done`) that it has nothing left to search.
    fn begin(
        &mut self,
        follower: Box<dyn Track>,
        commands: Sender<Command>,
        thread: JoinHandle<()>,
        done: Receiver<()>,
        end: Instant,
    ) -> Result<(), PlayerError> {
        self.session = Some(Session { follower, commands: Some(commands), thread: Some(thread) });
        if self.options.ponder {
            let _ = done.recv_timeout(end.saturating_duration_since(Instant::now()));
        }
        Ok(())
    }

    /// The random numbers a thinker draws equilibrium moves with, where the options ask for them.
    fn equilibria(&mut self) -> Option<SmallRng> {
        let seed = self.draws.random();
        self.options.matrix.then(|| SmallRng::seed_from_u64(seed))
    }

    /// Waits for an analysis the last start gave up on, so none outlives its match for long.
    fn join_late_analysis(&mut self) {
        if let Some(Analyst(thread)) = self.late_analysis.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for MctsPlayer {
    fn drop(&mut self) {
        self.join_late_analysis();
    }
}
