//! Depth-limited adversarial search under a deadline: iterative deepening over alpha-beta, with
//! a transposition table, move ordering (the table's best move first, then killer moves and the
//! history heuristic) and a pluggable [`Evaluator`] at the depth limit. A state whose outcome
//! the evaluator declares decided (a virtual terminal) ends its line with exact scores, as a
//! terminal state does.
//!
//! Every state is treated alike, which makes the search correct for any number of roles and for
//! simultaneous moves: its value is our best move against the others' worst joint reply to it.
//! Where only one role has a choice (a turn-taking game) this is a plain max or min node, so on a
//! two-player zero-sum game ([`Model::Minimax`]) the search is exactly minimax; with more players,
//! or goals that are not proved zero-sum, it is the paranoid search ([`Model::Paranoid`]) — the
//! others minimise our score. With simultaneous moves the others are assumed to see our move,
//! which is pessimistic but never overestimates a state.
//!
//! Values are whole numbers of thousandths of a goal point, so that bounds compare exactly. A
//! value moves one unit toward the neutral 50 points for every ply it travels up the tree: among
//! equal outcomes the search prefers nearer wins and farther losses. Values are kept relative to
//! the state they belong to, so the transposition table stores them as they are, and the window
//! passed to a child is shifted one unit to match.

mod model;
mod table;

pub use model::Model;

use crate::Stop;
use machine::{MachineError, StateMachine};
use metagame::{Evaluator, UNKNOWN};
use propnet::PropnetMachine;
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::cmp::{Ordering, Reverse};
use std::time::Instant;
use table::{Bound, Table, SOLVED};

/// Search units per goal point.
const SCALE: f64 = 1000.0;
/// The value no outcome favours (50 goal points); values drift toward it with distance.
const NEUTRAL: i32 = 50_000;
/// Beyond every value a state can have.
const INF: i32 = 1_000_000_000;
/// A state with more joint replies than this is evaluated rather than expanded.
const MAX_REPLIES: usize = 1 << 16;
/// Marks "no move" in results of leaves (moves are kept as their index among our legal moves).
const NO_MOVE: u32 = u32::MAX;

/// Limits and switches of a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AlphaBetaConfig {
    /// The deepest iteration (in joint moves).
    pub max_depth: u32,
    /// Transposition table slots (rounded up to a power of two); 0 turns the table off.
    pub table_entries: usize,
    /// Whether moves are ordered (table move, killers, history); off, the engine's order is kept.
    pub ordering: bool,
}

impl Default for AlphaBetaConfig {
    fn default() -> AlphaBetaConfig {
        AlphaBetaConfig { max_depth: 1000, table_entries: 1 << 19, ordering: true }
    }
}

/// What a search found.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SearchResult<Mv = u32> {
    /// Our best move (on a propnet, an input of the net).
    pub best: Mv,
    /// Its value for us in goal points, as the deepest completed iteration saw it.
    pub value: f64,
    /// Joint moves searched ahead by the deepest completed iteration (0: none completed).
    pub depth: u32,
    /// States visited over all iterations.
    pub nodes: u64,
    /// Whether the value is exact: every line searched ended in a terminal state.
    pub solved: bool,
}

/// Why a search could not start.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The role index is not one of the game's roles.
    #[error("the game has no role number {0}")]
    NoSuchRole(usize),
    /// The state is terminal: there is nothing to choose.
    #[error("the state is terminal")]
    Terminal,
    /// The rules give our role no legal move in the state.
    #[error("the rules give the role no legal move in this state")]
    NoLegalMove,
    /// The rules misbehaved during the search.
    #[error(transparent)]
    Machine(#[from] MachineError),
}

/// A state's value as one node of the search returns it, with our best move's index among our
/// legal moves there.
#[derive(Debug, Clone, Copy)]
struct Outcome {
    value: i32,
    solved: bool,
    best: u32,
}

/// Our move as the others answer it: its value for us against their worst reply (which
/// [`Searcher::against`] stops looking for once the move is refuted), that reply's index among
/// the joint replies, and whether every reply tried was solved.
#[derive(Debug, Clone, Copy)]
struct Answer {
    value: i32,
    reply: usize,
    solved: bool,
}

/// The choices in a state: our legal moves, and the others' joint replies (full joint moves
/// whose slot for our role is still to be filled in).
struct Choices<Mv> {
    mine: Vec<Mv>,
    replies: Vec<Vec<Mv>>,
}

/// A reusable adversarial searcher for one role of one game, on any machine (the game's
/// propnet, or the reasoner where it has none).
pub struct Searcher<E, M: StateMachine = PropnetMachine> {
    m: M,
    role: usize,
    model: Model,
    evaluator: E,
    options: AlphaBetaConfig,
    table: Table,
    /// Per move, how much cutting off with it has been worth.
    history: FxHashMap<M::Move, u64>,
    /// Per ply, the two moves that cut off most recently there.
    killers: Vec<[Option<M::Move>; 2]>,
    nodes: u64,
    deadline: Instant,
}

impl<M: StateMachine, E: Evaluator<M>> Searcher<E, M> {
    /// A searcher choosing moves for `role` on the machine `m`, modelling the others by `model`
    /// (see [`Model::of`]) and scoring depth-limited leaves with `evaluator`.
    pub fn new(
        m: M,
        role: usize,
        model: Model,
        evaluator: E,
        options: AlphaBetaConfig,
    ) -> Result<Searcher<E, M>, SearchError> {
        if role >= m.roles().len() {
            return Err(SearchError::NoSuchRole(role));
        }
        let table = Table::new(options.table_entries);
        Ok(Searcher {
            m,
            role,
            model,
            evaluator,
            options,
            table,
            history: FxHashMap::default(),
            killers: Vec::new(),
            nodes: 0,
            deadline: Instant::now(),
        })
    }

    /// The machine the search runs on (its states and moves are the ones to search with).
    pub fn machine(&mut self) -> &mut M {
        &mut self.m
    }

    /// How the other roles are modelled.
    pub fn model(&self) -> Model {
        self.model
    }

    /// Searches `state` by iterative deepening until `deadline`, the depth limit, or a solved
    /// value, and returns the best move of the deepest completed iteration (before the first
    /// completes, our first legal move, so there is always a move to play).
    pub fn search(&mut self, state: &M::State, deadline: Instant) -> Result<SearchResult<M::Move>, SearchError> {
        if self.m.is_terminal(state)? {
            return Err(SearchError::Terminal);
        }
        let legal = self.m.legal_moves(state, self.role)?;
        let first = legal.first().cloned().ok_or(SearchError::NoLegalMove)?;
        self.deadline = deadline;
        self.nodes = 0;
        self.table.next_generation();
        let value = points(self.estimate(state));
        let mut result = SearchResult { best: first.clone(), value, depth: 0, nodes: 0, solved: false };
        for depth in 1..=self.options.max_depth {
            if Instant::now() >= deadline {
                break;
            }
            match self.node(state, depth, 0, -INF, INF) {
                Ok(o) => {
                    let best = legal.get(o.best as usize).unwrap_or(&first).clone();
                    result = SearchResult { best, value: points(o.value), depth, nodes: 0, solved: o.solved };
                    if o.solved {
                        break;
                    }
                }
                Err(Stop::OutOfTime) => break,
                Err(Stop::Machine(e)) => return Err(e.into()),
            }
        }
        result.nodes = self.nodes;
        Ok(result)
    }

    /// Every legal move of ours in `state`, in the machine's order, valued in goal points by
    /// iterative deepening through `depths` (joint moves, the move itself the first) until
    /// `deadline`: the values of the deepest iteration completed, or `None` if not even the
    /// first completed (or the others' replies are too many to expand). Each iteration tries the
    /// moves best first by the one before, and each after the first only far enough to tell
    /// whether it comes within `margin` goal points of the best so far: a move that does gets its
    /// exact value, one that does not an upper bound below that range.
    pub fn move_values(
        &mut self,
        state: &M::State,
        depths: impl IntoIterator<Item = u32>,
        margin: f64,
        deadline: Instant,
    ) -> Result<Option<Vec<f64>>, SearchError> {
        if self.m.is_terminal(state)? {
            return Err(SearchError::Terminal);
        }
        let Some(choices) = self.choices(state)? else { return Ok(None) };
        if choices.mine.is_empty() {
            return Err(SearchError::NoLegalMove);
        }
        self.deadline = deadline;
        self.nodes = 0;
        self.table.next_generation();
        let margin = scaled(margin);
        let mut found: Option<Vec<i32>> = None;
        for depth in depths.into_iter().filter(|&d| d > 0) {
            let mut mine: Vec<usize> = (0..choices.mine.len()).collect();
            if let Some(values) = &found {
                mine.sort_by_key(|&i| Reverse(values[i]));
            }
            let replies = self.order(choices.replies.len(), |j| self.others(&choices.replies[j]), None, 0);
            let mut values = vec![0; choices.mine.len()];
            let mut best = -INF;
            for i in mine {
                let alpha = if best == -INF { -INF } else { best - margin - 1 };
                match self.against(state, &choices, &replies, &choices.mine[i], (depth, 0), (alpha, INF)) {
                    Ok(answer) => {
                        values[i] = answer.value;
                        best = best.max(answer.value);
                    }
                    Err(Stop::OutOfTime) => return Ok(found.map(|v| v.into_iter().map(points).collect())),
                    Err(Stop::Machine(e)) => return Err(e.into()),
                }
            }
            found = Some(values);
        }
        Ok(found.map(|v| v.into_iter().map(points).collect()))
    }

    /// Fail-soft alpha-beta below `state` with `depth` joint moves to go, `ply` below the root.
    fn node(&mut self, state: &M::State, depth: u32, ply: u32, mut alpha: i32, beta: i32) -> Result<Outcome, Stop> {
        self.nodes += 1;
        // A node costs microseconds (milliseconds on the largest nets), the clock tens of
        // nanoseconds: look at it every time.
        if Instant::now() >= self.deadline {
            return Err(Stop::OutOfTime);
        }
        if self.m.is_terminal(state)? {
            return Ok(Outcome { value: self.terminal_value(state)?, solved: true, best: NO_MOVE });
        }
        // A virtual terminal below the root: its scores are exact, nothing beneath can change them.
        if ply > 0 {
            if let Some(scores) = self.evaluator.decided(&mut self.m, state) {
                let value = scores.get(self.role).map_or(0, |&v| scaled(f64::from(v)));
                return Ok(Outcome { value, solved: true, best: NO_MOVE });
            }
        }
        let leaf = |value| Outcome { value, solved: false, best: NO_MOVE };
        if depth == 0 {
            return Ok(leaf(self.estimate(state)));
        }
        // A role without a legal move breaks the rules; such a state is judged, not expanded.
        let Some(choices) = self.choices(state)? else { return Ok(leaf(self.estimate(state))) };
        let key = Table::key(state);
        let mut hint = (NO_MOVE, u32::MAX);
        if let Some(e) = self.table.probe(key) {
            let cuts = match e.bound {
                Bound::Exact => true,
                Bound::Lower => e.value >= beta,
                Bound::Upper => e.value <= alpha,
            };
            // The root always searches, so that its best move comes from this search.
            if ply > 0 && e.depth >= depth && cuts {
                return Ok(Outcome { value: e.value, solved: e.depth == SOLVED, best: e.best });
            }
            hint = (e.best, e.reply);
        }
        let hinted = Some(hint.0 as usize).filter(|&i| i < choices.mine.len());
        let mine = self.order(choices.mine.len(), |i| vec![choices.mine[i].clone()], hinted, ply);
        let replies =
            self.order(choices.replies.len(), |j| self.others(&choices.replies[j]), Some(hint.1 as usize), ply);
        let alpha0 = alpha;
        let mut best = Outcome { value: -INF, solved: true, best: NO_MOVE };
        let mut best_reply = 0;
        for &i in &mine {
            let mv = &choices.mine[i];
            let answer = self.against(state, &choices, &replies, mv, (depth, ply), (alpha, beta))?;
            best.solved &= answer.solved;
            if answer.value > best.value {
                (best.value, best.best, best_reply) = (answer.value, i as u32, answer.reply);
            }
            alpha = alpha.max(best.value);
            if alpha >= beta {
                if mine.len() > 1 {
                    self.reward(std::slice::from_ref(mv), depth, ply);
                }
                break;
            }
        }
        let bound = if best.value <= alpha0 {
            Bound::Upper
        } else if best.value >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        let stored_depth = if best.solved { SOLVED } else { depth };
        self.table.store(key, stored_depth, best.value, bound, best.best, best_reply as u32);
        Ok(best)
    }

    /// Our move `mv` in `state` (a node with `depth` joint moves to go, `ply` below the root)
    /// against the others' joint replies tried in the order `replies`: the worst of them for us
    /// as the node sees it. The replies stop at the first that brings the value to `alpha` or
    /// below: the move is then no better than one the node has.
    fn against(
        &mut self,
        state: &M::State,
        choices: &Choices<M::Move>,
        replies: &[usize],
        mv: &M::Move,
        (depth, ply): (u32, u32),
        (alpha, beta): (i32, i32),
    ) -> Result<Answer, Stop> {
        let mut answer = Answer { value: INF, reply: 0, solved: true };
        let mut joint = choices.replies[0].clone();
        for &j in replies {
            joint.clone_from_slice(&choices.replies[j]);
            joint[self.role] = mv.clone();
            let child = self.m.next_state(state, &joint)?;
            let window = (child_alpha(alpha), child_beta(beta.min(answer.value)));
            let c = self.node(&child, depth - 1, ply + 1, window.0, window.1)?;
            answer.solved &= c.solved;
            let v = parent_view(c.value);
            if v < answer.value {
                (answer.value, answer.reply) = (v, j);
            }
            if answer.value <= alpha {
                if replies.len() > 1 {
                    let others = self.others(&choices.replies[j]);
                    self.reward(&others, depth, ply);
                }
                break;
            }
        }
        Ok(answer)
    }

    /// Our legal moves and the others' joint replies in `state`; `None` when a role has no
    /// legal move or the replies are too many to expand.
    fn choices(&mut self, state: &M::State) -> Result<Option<Choices<M::Move>>, MachineError> {
        let roles = self.m.roles().len();
        let mut legal = Vec::with_capacity(roles);
        for r in 0..roles {
            let moves = self.m.legal_moves(state, r)?;
            if moves.is_empty() {
                return Ok(None);
            }
            legal.push(moves);
        }
        let others = || legal.iter().enumerate().filter(|&(r, _)| r != self.role).map(|(_, m)| m.len());
        let Some(count) = others().try_fold(1usize, |n, k| n.checked_mul(k).filter(|&n| n <= MAX_REPLIES)) else {
            return Ok(None);
        };
        let replies = (0..count)
            .map(|mut k| {
                let mut joint: Vec<M::Move> = legal.iter().map(|moves| moves[0].clone()).collect();
                for (r, moves) in legal.iter().enumerate().filter(|&(r, _)| r != self.role) {
                    joint[r] = moves[k % moves.len()].clone();
                    k /= moves.len();
                }
                joint
            })
            .collect();
        Ok(Some(Choices { mine: std::mem::take(&mut legal[self.role]), replies }))
    }

    /// The moves of the other roles in a joint reply.
    fn others(&self, reply: &[M::Move]) -> Vec<M::Move> {
        reply.iter().enumerate().filter(|&(r, _)| r != self.role).map(|(_, m)| m.clone()).collect()
    }

    /// The indices `0..n` of choices in the order to try them: the table's choice `hinted` first,
    /// then choices playing a killer move of this ply, then by history (`moves` gives a choice's
    /// moves); with ordering off, as given.
    fn order(&self, n: usize, moves: impl Fn(usize) -> Vec<M::Move>, hinted: Option<usize>, ply: u32) -> Vec<usize> {
        let mut order: Vec<usize> = (0..n).collect();
        if !self.options.ordering || n < 2 {
            return order;
        }
        let killers = self.killers.get(ply as usize);
        order.sort_by_cached_key(|&i| {
            let moves = moves(i);
            let table = hinted == Some(i);
            let killer = killers.is_some_and(|k| moves.iter().any(|m| k.contains(&Some(m.clone()))));
            let history: u64 = moves.iter().map(|m| self.history.get(m).copied().unwrap_or(0)).sum();
            Reverse((table, killer, history))
        });
        order
    }

    /// Remembers that `moves` cut the search off at `ply` with `depth` to go.
    fn reward(&mut self, moves: &[M::Move], depth: u32, ply: u32) {
        for m in moves {
            *self.history.entry(m.clone()).or_default() += u64::from(depth) * u64::from(depth);
        }
        let ply = ply as usize;
        if ply >= self.killers.len() {
            self.killers.resize(ply + 1, [None, None]);
        }
        let first = Some(moves[0].clone());
        let k = &mut self.killers[ply];
        if k[0] != first {
            *k = [first, k[0].take()];
        }
    }

    /// Our score in a terminal state, read as [`machine::played_value`] reads the rules.
    fn terminal_value(&mut self, state: &M::State) -> Result<i32, MachineError> {
        Ok(scaled(f64::from(self.m.played_goal(state, self.role)?)))
    }

    /// The evaluator's estimate of a state for us; under [`Model::Minimax`] it averages our
    /// estimate with what the opponent's estimate leaves us.
    fn estimate(&mut self, state: &M::State) -> i32 {
        let values = self.evaluator.evaluate(&mut self.m, state);
        let of = |r: usize| values.get(r).copied().filter(|v| v.is_finite()).unwrap_or(UNKNOWN);
        let v = match self.model {
            Model::Minimax { sum } => (of(self.role) + f64::from(sum) - of(1 - self.role)) / 2.0,
            Model::Paranoid => of(self.role),
        };
        scaled(v)
    }
}

/// Search units in goal points.
fn points(units: i32) -> f64 {
    f64::from(units) / SCALE
}

/// Goal points in search units, kept far from [`INF`].
fn scaled(points: f64) -> i32 {
    (points.clamp(0.0, 1e5) * SCALE).round() as i32
}

/// A child's value as its parent sees it: one unit nearer [`NEUTRAL`].
fn parent_view(v: i32) -> i32 {
    match v.cmp(&NEUTRAL) {
        Ordering::Greater => v - 1,
        Ordering::Less => v + 1,
        Ordering::Equal => v,
    }
}

/// The child's lower bound `a` such that `parent_view(c) > alpha` exactly when `c > a`.
fn child_alpha(alpha: i32) -> i32 {
    match alpha {
        a if a.abs() >= INF => a,
        a if a >= NEUTRAL => a + 1,
        a => a - 1,
    }
}

/// The child's upper bound `b` such that `parent_view(c) < beta` exactly when `c < b`.
fn child_beta(beta: i32) -> i32 {
    match beta {
        b if b.abs() >= INF => b,
        b if b <= NEUTRAL => b - 1,
        b => b + 1,
    }
}

#[cfg(test)]
mod tests;
