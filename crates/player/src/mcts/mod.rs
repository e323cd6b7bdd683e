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

mod settings;

pub use self::settings::{mcts_settings, mcts_switches, settings_reference, MctsOptions, SETTINGS};
use crate::local::{LocalWorker, Share};
use crate::{MatchInfo, Player, PlayerError, Track};
use machine::{MachineError, StateMachine};
use metagame::{prepare, Budget, Knowledge, MoveVariety, Prepared};
use propnet::PropnetMachine;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use reasoner::Reasoner;
use search::factored::Factored;
use search::mcts::{Mcts, Plan, SearchMachine};
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long the thinking thread searches between looks at its command channel: a move request
/// waits at most this long before the thread turns to it.
const SLICE: Duration = Duration::from_millis(20);

/// How long the thinking thread searches, while it answers a move request, between looks at the
/// local search's results and updates of its provisional move.
const ANSWER_SLICE: Duration = Duration::from_millis(100);

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

/// Plays by Monte Carlo tree search, keeping its tree and thinking between moves.
pub struct MctsPlayer {
    name: String,
    options: MctsOptions,
    session: Option<Session>,
    /// An analysis the start stopped waiting for; joined before the next match and on drop.
    late_analysis: Option<Analyst>,
    /// Seeds each match's draws of moves, so that matches of a series draw differently.
    draws: SmallRng,
    /// What the search expected of the last move played, where it said.
    expected: Option<f64>,
}

impl MctsPlayer {
    /// The `mcts` player: the analysis' goal latches knowledge the search; `seed` fixes its random
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
            mixed: false,
            ..MctsOptions::seeded(seed)
        };
        options.search.regret = 0.0;
        options.search.rave = 0.0;
        options.search.rivalry = 0.0;
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
        MctsPlayer { name: name.into(), options, session: None, late_analysis: None, draws, expected: None }
    }
}

/// A request to the thinking thread: advance along the joint moves (none at the first request;
/// two when the follower recovered from one it could not read), search until `until` and
/// answer with our move.
struct Command {
    joints: Vec<Vec<String>>,
    until: Instant,
    reply: Sender<Result<Answer, PlayerError>>,
    /// The move the search would play if it stopped now, kept up to date while it searches:
    /// what the player plays if the answer does not come in time.
    provisional: Provisional,
}

/// A move the thinking thread offers before its answer, printed.
type Provisional = Arc<Mutex<Option<String>>>;

/// The thinking thread's answer: our move, printed, and what the search expects of it.
struct Answer {
    mv: String,
    /// Our score after the move (0..=100) as the search sees it: proven, or the mean of its
    /// iterations; `None` where the tree keeps no such value.
    expected: Option<f64>,
}

/// One match: the player's own view of the state, and the thread that owns the search.
struct Session {
    follower: Box<dyn Track>,
    commands: Option<Sender<Command>>,
    thread: Option<JoinHandle<()>>,
}

impl Session {
    /// Sends the thinking thread a move request and waits for its answer until `wait_until`;
    /// `Err` with the move it offered so far (if any) if it does not answer by then or is gone.
    fn ask(
        &self,
        joints: Vec<Vec<String>>,
        until: Instant,
        wait_until: Instant,
    ) -> Result<Result<Answer, PlayerError>, Option<String>> {
        let (reply, answer) = mpsc::channel();
        let provisional = Provisional::default();
        let command = Command { joints, until, reply, provisional: Arc::clone(&provisional) };
        let sent = self.commands.as_ref().is_some_and(|c| c.send(command).is_ok());
        let answer = sent.then(|| answer.recv_timeout(wait_until.saturating_duration_since(Instant::now())).ok());
        answer.flatten().ok_or_else(|| provisional.lock().ok().and_then(|mut p| p.take()))
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

    /// The move to play for `role`, printed; `None` if it has no legal move. With `draw`
    /// (uniform in 0..1), a move of a mixed strategy where the tree keeps one.
    fn best(&mut self, role: usize, draw: Option<f64>) -> Result<Option<String>, MachineError>;

    /// What the search expects `role` to score after its root move printed as `name`: the
    /// proven score where there is one, else the mean of the iterations through it.
    fn expected(&mut self, _role: usize, _name: &str) -> Option<f64> {
        None
    }

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

    fn best(&mut self, role: usize, draw: Option<f64>) -> Result<Option<String>, MachineError> {
        Ok(self.checked_best_move(role, draw).map(|mv| self.machine().format_move(&mv)))
    }

    fn expected(&mut self, role: usize, name: &str) -> Option<f64> {
        let stats = self.move_stats(role);
        let found = stats.into_iter().find(|s| self.machine().format_move(&s.mv) == name)?;
        found.proven.map(f64::from).or(found.mean)
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

    fn best(&mut self, role: usize, _draw: Option<f64>) -> Result<Option<String>, MachineError> {
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
    /// Where the player draws its moves (equilibria, mixed strategies), what it draws.
    draws: Option<Draws>,
}

/// The random numbers a thinker draws its moves with, and which moves it draws.
struct Draws {
    rng: SmallRng,
    /// Equilibria of states whose every joint move ends the game (`MctsOptions::matrix`).
    equilibria: bool,
    /// Moves of the tree's mixed strategy where several roles choose (`MctsOptions::mixed`).
    mixed: bool,
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
        Thinker { tree, role, ponder, settled, stalled: false, idle: Some(idle), helper: None, draws: None }
    }

    /// Searches until `until`, in slices with the helper's work between them if there is one.
    fn search(&mut self, until: Instant) -> Result<(), MachineError> {
        self.search_offering(until, &mut |_| Ok(()))
    }

    /// Searches until `until` in slices, with the helper's work and `offer` between them.
    fn search_offering(
        &mut self,
        until: Instant,
        offer: &mut dyn FnMut(&mut T) -> Result<(), MachineError>,
    ) -> Result<(), MachineError> {
        let mut helper = self.helper.take();
        let searched = loop {
            if let Some(helper) = helper.as_mut() {
                helper.between(&mut self.tree);
            }
            if let Err(e) = offer(&mut self.tree) {
                break Err(e);
            }
            let now = Instant::now();
            if now >= until {
                break Ok(());
            }
            if let Err(e) = self.tree.search(until.min(now + ANSWER_SLICE)) {
                break Err(e);
            }
            if !self.worth_searching() {
                break Ok(());
            }
        };
        self.helper = helper;
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
            let answer = self.answer(&command);
            let failed = answer.is_err();
            // The player may have stopped waiting (it answered without us): nothing to do then.
            let _ = command.reply.send(answer);
            if failed {
                return;
            }
        }
    }

    /// Advances the tree along the command's joint moves and chooses our move, searching until
    /// its `until` unless the move is forced or already decided; with what the search expects
    /// of it.
    fn answer(&mut self, command: &Command) -> Result<Answer, PlayerError> {
        let mv = self.choose(&command.joints, command.until, &command.provisional)?;
        let expected = self.tree.expected(self.role, &mv);
        Ok(Answer { mv, expected })
    }

    /// Advances the tree along `joints` and chooses our move, printed; while it searches, the
    /// move it would play if it stopped is kept in `provisional`.
    fn choose(
        &mut self,
        joints: &[Vec<String>],
        until: Instant,
        provisional: &Provisional,
    ) -> Result<String, PlayerError> {
        for joint in joints {
            let mut moves = Vec::with_capacity(joint.len());
            for (r, name) in joint.iter().enumerate() {
                moves.push(self.tree.root_move(r, name).ok_or_else(|| PlayerError::BadMove(name.clone()))?);
            }
            self.tree.advance(&moves)?;
        }
        self.stalled = false;
        let choosing = self.tree.choices(self.role) > 1;
        if let Some(draws) = self.draws.as_mut().filter(|d| choosing && d.equilibria) {
            if let Some(mv) = self.tree.equilibrium_move(self.role, until, &mut draws.rng)? {
                return Ok(mv);
            }
        }
        let draw = self.draws.as_mut().filter(|d| d.mixed).map(|d| d.rng.random());
        let role = self.role;
        let mut offer = |tree: &mut T| {
            let best = tree.best(role, draw)?;
            if let (Some(mv), Ok(mut held)) = (best, provisional.lock()) {
                *held = Some(mv);
            }
            Ok(())
        };
        if choosing && self.worth_searching() {
            // The pondered tree's choice stands until the search has a better one.
            offer(&mut self.tree)?;
            let now = Instant::now();
            let time = until.saturating_duration_since(now) / PREPARE_SHARE;
            self.tree.prepare(self.role, now + time.min(PREPARE_TIME))?;
            self.search_offering(until, &mut offer)?;
        }
        self.tree.best(self.role, draw)?.ok_or(PlayerError::NoLegalMove)
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
    knowledge: Option<&Knowledge>,
    end: Instant,
) -> Result<bool, PlayerError> {
    let best = mcts.machine().program().goal_values(0).into_iter().max().unwrap_or(100);
    let now = Instant::now();
    mcts.search(now + end.saturating_duration_since(now).mul_f64(PUZZLE_SEARCH_SHARE))?;
    let best_found = mcts.plan().is_some_and(|p| p.score >= best);
    let options = search::SolveConfig {
        goals: knowledge.map(Knowledge::goals),
        factors: knowledge.and_then(Knowledge::factors),
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
                let knowledge = prepared.knowledge;
                let trial = MoveVariety::trial(end.saturating_duration_since(now));
                let config = self.options.search_for(role, &net.program, knowledge.as_deref(), trial);
                let several = info.game.roles().len() > 1 && self.options.factored;
                let exact = knowledge.as_deref().and_then(Knowledge::factors);
                let splits = exact.into_iter().chain(prepared.neighbourhoods.as_ref()).filter(|_| several);
                for split in splits {
                    if let Some(factored) = Factored::new(Arc::clone(&net.program), split, &config)? {
                        let thread = Thinker::new(factored, role, ponder, false, idle).spawn(name, inbox)?;
                        return self.begin(follower, commands, thread, done, end);
                    }
                }
                let mut m = PropnetMachine::from_program(Arc::clone(&net.program));
                m.set_goal_oracle(knowledge.as_ref().and_then(|g| g.goal_oracle(&net.program)));
                let mut mcts = Mcts::on(m, knowledge.clone(), config)?;
                let settled = match info.game.roles().len() {
                    1 => prepare_puzzle(&mut mcts, &net.net, knowledge.as_deref(), end)?,
                    _ => false,
                };
                let mut thinker = Thinker::new(mcts, role, ponder, settled, idle);
                thinker.draws = self.draws();
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
                let mcts = Mcts::on(Reasoner::new(&info.game.desc), None, self.options.search_as(role))?;
                let mut thinker = Thinker::new(mcts, role, ponder, false, idle);
                thinker.draws = self.draws();
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
        // Without an answer in time (or a thread to give one), the move the search offered so
        // far, or failing that any legal move, beats a late one. The thread follows the same
        // joint moves as the follower, so a move that is not legal only guards against the two
        // disagreeing.
        let (found, expected) = match session.ask(joints, before(deadline, keep), before(deadline, keep / 2)) {
            Ok(answer) => answer.map(|a| (Some(a.mv), a.expected))?,
            Err(provisional) => (provisional, None),
        };
        let (mv, expected) = match found.filter(|mv| legal.contains(mv)) {
            Some(mv) => (mv, expected),
            None => (legal.swap_remove(0), None),
        };
        let answer = session.follower.answer(&mv);
        self.expected = expected;
        answer
    }

    fn expected(&self) -> Option<f64> {
        self.expected
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

    /// The random numbers a thinker draws its moves with, where the options ask for draws.
    fn draws(&mut self) -> Option<Draws> {
        let rng = SmallRng::seed_from_u64(self.draws.random());
        let (equilibria, mixed) = (self.options.matrix, self.options.mixed);
        (equilibria || mixed).then_some(Draws { rng, equilibria, mixed })
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A tree that names `b` its best move and whose search runs far past its stop.
    struct Late;

    impl Tree for Late {
        type Move = ();

        fn search(&mut self, until: Instant) -> Result<(), MachineError> {
            std::thread::sleep(until.saturating_duration_since(Instant::now()) + Duration::from_millis(500));
            Ok(())
        }

        fn root_move(&mut self, _role: usize, _name: &str) -> Option<()> {
            Some(())
        }

        fn advance(&mut self, _joint: &[()]) -> Result<(), MachineError> {
            Ok(())
        }

        fn choices(&mut self, _role: usize) -> usize {
            2
        }

        fn best(&mut self, _role: usize, _draw: Option<f64>) -> Result<Option<String>, MachineError> {
            Ok(Some("b".to_owned()))
        }

        fn finished(&self, _settled: bool) -> bool {
            false
        }
    }

    #[test]
    fn a_search_that_answers_late_has_offered_its_move_by_then() {
        let bundled = games::find("tictactoe").expect("bundled");
        let (desc, _) = gdl::load(bundled.name, bundled.text).expect("valid rules");
        let game = crate::Game::on_reasoner(bundled.name.into(), bundled.text.into(), desc);
        let (commands, inbox) = mpsc::channel();
        let (idle, _) = mpsc::channel();
        let thread = Thinker::new(Late, 0, false, false, idle).spawn("late".into(), inbox).expect("spawns");
        let session = Session {
            follower: game.follow("xplayer").expect("a role"),
            commands: Some(commands),
            thread: Some(thread),
        };
        let now = Instant::now();
        let asked = session.ask(Vec::new(), now + Duration::from_millis(50), now + Duration::from_millis(150));
        assert_eq!(asked.err(), Some(Some("b".to_owned())), "the answer comes late: the offered move stands in");
    }
}
