//! The built-in players: random, legal (the first legal move, like GGP-Base's legal player) and
//! alpha-beta search (its leaves scored by the fuzzy goal heuristic and confirmed latch
//! heuristics). Each follows the match on a machine of its own (the game's propnet, or the
//! reasoner where it has none), from the joint moves it is told.

use crate::{MatchInfo, Player, PlayerError, Propnet};
use machine::StateMachine;
use metagame::{leaf_evaluator, prepare, Budget, Evaluator, GoalEvaluator, Wanted};
use propnet::PropnetMachine;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use reasoner::Reasoner;
use search::adversarial::AlphaBetaConfig;
use search::{Model, Searcher};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Joint moves tried, at most, when the follower looks for the one it could not read.
const MAX_GUESSES: u64 = 100_000;

/// A player's view of the match: the state reached so far and its role, on any state machine
/// (the game's propnet, or the reasoner where it has none).
pub struct Follower<M: StateMachine = PropnetMachine> {
    /// The machine the match is followed on.
    pub m: M,
    /// Our role's index.
    pub role: usize,
    /// The current state (while `unread`, the state before the joint move not read).
    pub state: M::State,
    /// Whether the last joint move could not be read.
    unread: bool,
    /// Our move in the current state, once the player has chosen it.
    mine: Option<M::Move>,
}

/// A [`Follower`] on whatever machine, with moves as KIF text: what players that only need to
/// know the state and the legal moves use, so that they play on the propnet or the reasoner
/// alike.
pub trait Track: Send {
    /// Our role's index.
    fn role(&self) -> usize;

    /// Plays the joint move `last` (if any), as [`Follower::step`] does, and returns the joint
    /// moves played, printed.
    fn step(&mut self, last: Option<&[String]>) -> Result<Vec<Vec<String>>, PlayerError>;

    /// Our legal moves in the current state, printed (never none).
    fn legal(&mut self) -> Result<Vec<String>, PlayerError>;

    /// Our move `mv` (one of [`legal`](Self::legal)'s) as the answer to send, recorded as
    /// [`Follower::answer`] does.
    fn answer(&mut self, mv: &str) -> Result<String, PlayerError>;

    /// A legal move for the state after a joint move [`step`](Self::step) could not read, as
    /// [`Follower::guess`] finds it.
    fn guess(&mut self, joint: &[String]) -> Result<String, PlayerError>;
}

impl<M: StateMachine + Send> Track for Follower<M>
where
    M::State: Send,
    M::Move: Send,
{
    fn role(&self) -> usize {
        self.role
    }

    fn step(&mut self, last: Option<&[String]>) -> Result<Vec<Vec<String>>, PlayerError> {
        let joints = Follower::step(self, last)?;
        Ok(joints.iter().map(|joint| joint.iter().map(|mv| self.m.format_move(mv)).collect()).collect())
    }

    fn legal(&mut self) -> Result<Vec<String>, PlayerError> {
        Ok(Follower::legal(self)?.iter().map(|mv| self.m.format_move(mv)).collect())
    }

    fn answer(&mut self, mv: &str) -> Result<String, PlayerError> {
        let found =
            self.m.legal_move(&self.state, self.role, mv)?.ok_or_else(|| PlayerError::BadMove(mv.to_owned()))?;
        Ok(Follower::answer(self, found))
    }

    fn guess(&mut self, joint: &[String]) -> Result<String, PlayerError> {
        Follower::guess(self, joint)
    }
}

impl<M: StateMachine> Follower<M> {
    /// Follows a match of `m`'s game as `role`, from the initial state.
    pub fn on(mut m: M, role: &str) -> Result<Follower<M>, PlayerError> {
        let role = m.roles().iter().position(|r| r == role).ok_or(PlayerError::NoSuchRole(role.to_owned()))?;
        let state = m.initial_state();
        Ok(Follower { m, role, state, unread: false, mine: None })
    }

    /// Our move `mv` as the answer to send, recorded: it is our part of the next joint move,
    /// which tells the follower what we played should it fail to read that joint move.
    pub fn answer(&mut self, mv: M::Move) -> String {
        let text = self.m.format_move(&mv);
        self.mine = Some(mv);
        text
    }

    /// Plays the joint move `last` (if any) and returns the joint moves played, as the
    /// machine's moves. A joint move that cannot be read (a move that is not the game's, or not
    /// legal, or a wrong number of moves) is an error and the state stays where it was. If the
    /// server then sends the next joint move rather than the same one again, that tells what was
    /// played: the first joint move (with ours as recorded by [`answer`](Self::answer) first) after
    /// which it is legal is taken to be the one not read, and both are returned.
    pub fn step(&mut self, last: Option<&[String]>) -> Result<Vec<Vec<M::Move>>, PlayerError> {
        let Some(joint) = last else { return Ok(Vec::new()) };
        let unread = std::mem::take(&mut self.unread);
        match read(&mut self.m, &self.state, joint) {
            Ok(moves) => {
                self.state = self.m.next_state(&self.state, &moves)?;
                self.mine = None;
                Ok(vec![moves])
            }
            Err(_) if unread => self.recover(joint),
            Err(e) => {
                self.unread = true;
                Err(e)
            }
        }
    }

    /// Finds a joint move from the current state after which `joint` is legal, and plays both.
    fn recover(&mut self, joint: &[String]) -> Result<Vec<Vec<M::Move>>, PlayerError> {
        let roles = self.m.roles().len();
        let legal = (0..roles).map(|r| self.m.legal_moves(&self.state, r)).collect::<Result<Vec<_>, _>>()?;
        let count = legal.iter().try_fold(1u64, |n, l| n.checked_mul(l.len() as u64)).unwrap_or(u64::MAX);
        let mine = self.mine.take();
        // Joint moves with our recorded move first, then the others.
        for ours in [true, false] {
            for k in 0..count.min(MAX_GUESSES) {
                let (mut rest, mut guess) = (k, Vec::with_capacity(roles));
                for l in &legal {
                    guess.push(l[(rest % l.len() as u64) as usize].clone());
                    rest /= l.len() as u64;
                }
                if mine.is_some() && (mine.as_ref() == Some(&guess[self.role])) != ours {
                    continue;
                }
                let between = self.m.next_state(&self.state, &guess)?;
                if self.m.is_terminal(&between)? {
                    continue;
                }
                if let Ok(moves) = read(&mut self.m, &between, joint) {
                    self.state = self.m.next_state(&between, &moves)?;
                    return Ok(vec![guess, moves]);
                }
            }
            if mine.is_none() {
                break;
            }
        }
        Err(PlayerError::LostTrack { joint: joint.join(" ") })
    }

    /// One of our legal moves, in KIF, in the state that `joint`, which [`step`](Self::step)
    /// could not read, most likely leads to: our move as [`answer`](Self::answer) recorded it,
    /// and for every other role its move if it reads as a legal one, else its first legal move.
    /// The followed state does not change.
    pub fn guess(&mut self, joint: &[String]) -> Result<String, PlayerError> {
        let mut guessed = Vec::with_capacity(self.m.roles().len());
        for r in 0..self.m.roles().len() {
            let legal = self.m.legal_moves(&self.state, r)?;
            let written = joint.get(r).and_then(|text| gdl::canonical_term(text));
            let read = written.and_then(|name| self.m.move_named(&legal, &name));
            let ours = self.mine.clone().filter(|_| r == self.role);
            guessed.push(ours.or(read).or_else(|| legal.first().cloned()).ok_or(PlayerError::NoLegalMove)?);
        }
        let next = self.m.next_state(&self.state, &guessed)?;
        let legal = self.m.legal_moves(&next, self.role)?;
        legal.first().map(|mv| self.m.format_move(mv)).ok_or(PlayerError::NoLegalMove)
    }

    /// Our legal moves in the current state (never none).
    pub fn legal(&mut self) -> Result<Vec<M::Move>, PlayerError> {
        let legal = self.m.legal_moves(&self.state, self.role)?;
        if legal.is_empty() {
            return Err(PlayerError::NoLegalMove);
        }
        Ok(legal)
    }
}

/// `joint` as `m`'s moves, if they are legal in `state`.
fn read<M: StateMachine>(m: &mut M, state: &M::State, joint: &[String]) -> Result<Vec<M::Move>, PlayerError> {
    let roles = m.roles().len();
    if joint.len() != roles {
        return Err(PlayerError::BadMove(format!("{} moves for {roles} roles: {}", joint.len(), joint.join(" "))));
    }
    let mut moves = Vec::with_capacity(roles);
    for (r, text) in joint.iter().enumerate() {
        let bad = || PlayerError::BadMove(text.clone());
        let name = gdl::canonical_term(text).ok_or_else(bad)?;
        moves.push(m.legal_move(state, r, &name)?.ok_or_else(bad)?);
    }
    Ok(moves)
}

/// Answers at once, without searching: a uniformly random legal move (`random`), or the first
/// legal move in the engine's order of moves (`legal`, like GGP-Base's legal player).
pub struct Reflex {
    /// The random choice; none for the legal player.
    rng: Option<SmallRng>,
    follower: Option<Box<dyn Track>>,
}

impl Reflex {
    /// A random player whose choices are fixed by `seed`.
    pub fn random(seed: u64) -> Reflex {
        Reflex { rng: Some(SmallRng::seed_from_u64(seed)), follower: None }
    }

    /// A legal player.
    pub fn legal() -> Reflex {
        Reflex { rng: None, follower: None }
    }
}

impl Player for Reflex {
    fn name(&self) -> &str {
        if self.rng.is_some() {
            "random"
        } else {
            "legal"
        }
    }

    fn start(&mut self, info: &MatchInfo, _deadline: Instant) -> Result<(), PlayerError> {
        self.follower = Some(info.game.follow(&info.role)?);
        Ok(())
    }

    fn guess(&mut self, last: &[String]) -> Option<String> {
        self.follower.as_mut()?.guess(last).ok()
    }

    fn play(&mut self, last: Option<&[String]>, _deadline: Instant) -> Result<String, PlayerError> {
        let f = self.follower.as_mut().ok_or(PlayerError::NotStarted)?;
        f.step(last)?;
        let legal = f.legal()?;
        let pick = self.rng.as_mut().map_or(0, |rng| rng.random_range(0..legal.len()));
        f.answer(&legal[pick])
    }

    fn stop(&mut self, _last: Option<&[String]>) -> Result<(), PlayerError> {
        self.follower = None;
        Ok(())
    }
}

/// The leaf evaluator for `net`'s game (described by `desc`) by `deadline` (the start clock's):
/// the game prepared as the alpha-beta player needs it (the goal latches and goal forms, in the
/// analysis' share of the clock), then [`metagame::leaf_evaluator`].
fn evaluator(desc: &gdl::Description, net: &Propnet, deadline: Instant) -> Box<dyn Evaluator + Send> {
    let budget = Budget::start(Instant::now(), deadline);
    let prepared = prepare(&net.net, &net.program, desc, Wanted::FORMS, budget);
    leaf_evaluator(desc, &net.net, prepared.knowledge, deadline)
}

/// Chooses its move by iterative-deepening alpha-beta search until shortly before the deadline:
/// on the propnet with the evaluator it is given and minimax where the game is proved zero-sum;
/// on the reasoner (a game without a propnet) with the goal values at the leaves and the
/// paranoid model, the proofs and heuristics reading the net.
pub struct AlphaBeta {
    follower: Option<Box<dyn Track>>,
    line: Option<Box<dyn Deliberate>>,
}

/// The searcher and the match's state on the searcher's own machine (whose states and moves may
/// mean nothing to the follower's), moved along by the joint moves as text.
struct Line<M: StateMachine> {
    searcher: Searcher<Box<dyn Evaluator<M> + Send>, M>,
    state: M::State,
}

/// What the alpha-beta player asks of its [`Line`], whatever the machine.
trait Deliberate: Send {
    /// Plays the joint move `joint`, printed.
    fn advance(&mut self, joint: &[String]) -> Result<(), PlayerError>;
    /// Our best move, printed, as far as a search until `until` sees.
    fn decide(&mut self, until: Instant) -> Result<String, PlayerError>;
}

impl<M: StateMachine + Send + 'static> Line<M>
where
    M::State: Send,
    M::Move: Send,
{
    /// A line from the initial state of `m`'s game, searched for `role` as `model` and
    /// `evaluator` say.
    fn start(
        mut m: M,
        role: usize,
        model: Model,
        evaluator: Box<dyn Evaluator<M> + Send>,
    ) -> Result<Box<dyn Deliberate>, PlayerError> {
        let state = m.initial_state();
        let searcher = Searcher::new(m, role, model, evaluator, AlphaBetaConfig::default())?;
        Ok(Box::new(Line { searcher, state }))
    }
}

impl<M: StateMachine + Send> Deliberate for Line<M>
where
    M::State: Send,
    M::Move: Send,
{
    fn advance(&mut self, joint: &[String]) -> Result<(), PlayerError> {
        let m = self.searcher.machine();
        let moves = read(m, &self.state, joint)?;
        self.state = m.next_state(&self.state, &moves)?;
        Ok(())
    }

    fn decide(&mut self, until: Instant) -> Result<String, PlayerError> {
        let found = self.searcher.search(&self.state, until)?;
        Ok(self.searcher.machine().format_move(&found.best))
    }
}

/// The part of the time left for a move that the search leaves unused, so that the move arrives
/// in time: a tenth of it, at most this much.
const MAX_MARGIN: Duration = Duration::from_millis(200);

impl AlphaBeta {
    /// An alpha-beta player whose leaves get the fuzzy goal heuristic, with what the analysis
    /// finds of the goals.
    pub fn new() -> AlphaBeta {
        AlphaBeta { follower: None, line: None }
    }
}

impl Default for AlphaBeta {
    fn default() -> AlphaBeta {
        AlphaBeta::new()
    }
}

impl Player for AlphaBeta {
    fn name(&self) -> &str {
        "alphabeta"
    }

    fn guess(&mut self, last: &[String]) -> Option<String> {
        self.follower.as_mut()?.guess(last).ok()
    }

    fn start(&mut self, info: &MatchInfo, deadline: Instant) -> Result<(), PlayerError> {
        let follower = info.game.follow(&info.role)?;
        let role = follower.role();
        let line = match info.game.net() {
            Some(net) => {
                let evaluator = evaluator(&info.game.desc, net, deadline);
                let m = PropnetMachine::from_program(Arc::clone(&net.program));
                Line::start(m, role, Model::of(&net.net), evaluator)?
            }
            None => Line::start(Reasoner::new(&info.game.desc), role, Model::Paranoid, Box::new(GoalEvaluator))?,
        };
        self.follower = Some(follower);
        self.line = Some(line);
        Ok(())
    }

    fn play(&mut self, last: Option<&[String]>, deadline: Instant) -> Result<String, PlayerError> {
        let (Some(f), Some(line)) = (self.follower.as_mut(), self.line.as_mut()) else {
            return Err(PlayerError::NotStarted);
        };
        for joint in f.step(last)? {
            line.advance(&joint)?;
        }
        let legal = f.legal()?;
        // Nothing to think about (the other side's turn in a turn-taking game).
        if legal.len() == 1 {
            return f.answer(&legal[0]);
        }
        let margin = (deadline.saturating_duration_since(Instant::now()) / 10).min(MAX_MARGIN);
        let mv = line.decide(deadline - margin)?;
        f.answer(&mv)
    }

    fn stop(&mut self, _last: Option<&[String]>) -> Result<(), PlayerError> {
        self.follower = None;
        self.line = None;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use propnet::Program;

    /// Seven cells; the player in control claims a free cell for itself or gives it to the
    /// other, and a counter keeps each player's cells. When no cell is free, more cells win.
    /// Owned cells are latches, so the outcome is decided once a player holds four.
    const CLAIMS: &str = "
        (role x) (role o) (other x o) (other o x)
        (cell 1) (cell 2) (cell 3) (cell 4) (cell 5) (cell 6) (cell 7)
        (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7)
        (init (control x)) (init (score x 0)) (init (score o 0))
        (<= (taken ?c) (true (owned ?c ?p)))
        (<= (free ?c) (cell ?c) (not (taken ?c)))
        (<= (legal ?p (claim ?c)) (true (control ?p)) (free ?c))
        (<= (legal ?p (gift ?c)) (true (control ?p)) (free ?c))
        (<= (legal ?p noop) (role ?p) (not (true (control ?p))))
        (<= (gains ?p) (does ?p (claim ?c)))
        (<= (gains ?q) (does ?p (gift ?c)) (other ?p ?q))
        (<= (next (owned ?c ?p)) (does ?p (claim ?c)))
        (<= (next (owned ?c ?q)) (does ?p (gift ?c)) (other ?p ?q))
        (<= (next (owned ?c ?p)) (true (owned ?c ?p)))
        (<= (next (score ?p ?m)) (true (score ?p ?n)) (gains ?p) (succ ?n ?m))
        (<= (next (score ?p ?n)) (true (score ?p ?n)) (not (gains ?p)))
        (<= (next (control ?q)) (true (control ?p)) (other ?p ?q))
        (<= somefree (free ?c))
        (<= terminal (not somefree))
        (<= (more ?a ?b) (succ ?b ?a))
        (<= (more ?a ?b) (succ ?c ?a) (more ?c ?b))
        (<= (ahead ?p) (true (score ?p ?a)) (other ?p ?q) (true (score ?q ?b)) (more ?a ?b))
        (<= (goal ?p 100) (ahead ?p))
        (<= (goal ?p 0) (role ?p) (not (ahead ?p)))";

    #[test]
    fn alpha_betas_evaluator_ends_lines_where_the_analysis_says_the_outcome_is_decided() {
        let desc = testkit::load("claims.kif", CLAIMS);
        let net = Arc::new(testkit::compile(&desc));
        let program = Arc::new(Program::new(&net));
        let game = Propnet { net: Arc::clone(&net), program: Arc::clone(&program) };
        let mut evaluator = evaluator(&desc, &game, Instant::now() + Duration::from_secs(20));
        let mut m = PropnetMachine::from_program(program);
        let mut rng = SmallRng::seed_from_u64(5);
        let (mut decided_early, mut undecided) = (0, 0);
        for _ in 0..200 {
            let mut state = m.initial_state();
            let mut said: Option<Vec<u32>> = None;
            while !m.is_terminal(&state).unwrap() {
                match (&said, evaluator.decided(&mut m, &state)) {
                    (None, Some(now)) => said = Some(now),
                    (Some(before), now) => assert_eq!(Some(before), now.as_ref(), "a decided outcome stays decided"),
                    (None, None) => undecided += 1,
                }
                let joint: Vec<u32> = (0..2)
                    .map(|r| {
                        let moves = m.legal_moves(&state, r).unwrap();
                        moves[rng.random_range(0..moves.len())]
                    })
                    .collect();
                state = m.next_state(&state, &joint).unwrap();
            }
            let goals: Vec<u32> = (0..2).map(|r| m.goal(&state, r).unwrap()).collect();
            if let Some(said) = said {
                decided_early += 1;
                assert_eq!(said, goals, "the outcome declared decided is the one play reaches");
            }
        }
        // Four of seven cells decide the game before the last one is taken in most games.
        assert!(decided_early >= 100 && undecided > 0, "{decided_early} games decided early, {undecided} states open");
    }
}
