//! Playouts: on a propnet bit-sliced, up to 64 at a time, or guided by what the player knows (the
//! goal latches, the tactics' decisive and anti-decisive moves, the pieces' captures; see
//! [`guided`]); on any other machine one uniformly random playout at a time. The tree search
//! plays its leaves out with them, and the learning during the start clock plays its games with
//! them, so that what it learns is about the games the search will sample.

mod guided;
mod rank;

pub use self::guided::{guided, guided_each, Lookahead};
use crate::knowledge::Knowledge;
pub use crate::knowledge::{score, scores};
use machine::playout::PlayoutEnd;
use machine::{MachineError, StateMachine};
use propnet::{MovePolicy, PropnetMachine, PropnetState};
use rand::rngs::SmallRng;
use rand::Rng;
use std::sync::Arc;
use std::time::Instant;

/// How often (in joint moves, a power of two) a playout looks at the clock.
const CLOCK_EVERY: u32 = 16;

/// What a playout from one leaf found.
#[derive(Debug, Clone)]
pub struct Outcome<Mv> {
    /// Every role's score where it stopped, 0..=100.
    pub scores: Vec<u8>,
    /// Whether the game was over (or its scores decided by latches) there: only such playouts
    /// make plans.
    pub complete: bool,
    /// The moves played, when asked for (single-player plans).
    pub moves: Vec<Mv>,
    /// Joint moves played from the start state.
    pub steps: u32,
}

/// How a batch of playouts runs.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Joint moves after which a playout is cut off.
    pub max_steps: u32,
    /// Record the moves of every playout.
    pub trace: bool,
    /// What steers playouts: the goal latches, the tactics, the pieces.
    pub knowledge: Option<Arc<Knowledge>>,
    /// Playouts still running then are dropped.
    pub deadline: Option<Instant>,
    /// The moves' mean scores, where playouts prefer the best (move-average sampling).
    pub mast: Option<MastPolicy>,
    /// Where guided playouts stop early and score the state they reach by the knowledge's piece
    /// balance.
    pub cutoff: Option<Cutoff>,
    /// The chance that a guided playout's move is, among those the tactics rank best, one that
    /// gains the mover the most material, where the knowledge knows the pieces (0: never).
    pub captures: f64,
}

/// An early end for guided playouts: after `steps` joint moves a playout stops, and each
/// role's score is its value of the piece balance since `root` (propnet state words), on the
/// 0..=100 scale.
#[derive(Debug, Clone)]
pub struct Cutoff {
    /// Joint moves played from the leaf before the playout stops.
    pub steps: u32,
    /// The search's root, whose material the balance is taken against.
    pub root: Arc<[u64]>,
    /// How much the pieces' placement counts in the balance (see [`crate::Pieces::balance`]).
    pub placement: f64,
}

impl Settings {
    /// Uniformly random playouts of at most `max_steps` joint moves with their moves recorded,
    /// until `deadline`: what sampling random games asks for.
    pub fn traced(max_steps: u32, deadline: Instant) -> Settings {
        let deadline = Some(deadline);
        Settings { max_steps, trace: true, knowledge: None, deadline, mast: None, cutoff: None, captures: 0.0 }
    }

    /// Whether the deadline has passed.
    pub fn out_of_time(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// One uniformly random playout from `start` on any machine; `None` if the deadline passed.
pub fn random<M: StateMachine>(
    m: &mut M,
    start: &M::State,
    rng: &mut SmallRng,
    s: &Settings,
) -> Result<Option<Outcome<M::Move>>, MachineError> {
    let roles = m.roles().len();
    let mut state = start.clone();
    let mut moves = Vec::new();
    let mut steps = 0u32;
    let ended = |m: &mut M, state: &M::State, complete: bool, moves: Vec<M::Move>, steps: u32| {
        Ok(Some(Outcome { scores: scores(m, state), complete, moves, steps }))
    };
    loop {
        if m.is_terminal(&state)? {
            return ended(m, &state, true, moves, steps);
        }
        if steps >= s.max_steps {
            return ended(m, &state, false, moves, steps);
        }
        // A step of a machine without a fast path can take milliseconds: look at every one.
        if s.out_of_time() {
            return Ok(None);
        }
        let mut joint = Vec::with_capacity(roles);
        for r in 0..roles {
            let mut legal = m.legal_moves(&state, r)?;
            if legal.is_empty() {
                return ended(m, &state, false, moves, steps);
            }
            joint.push(legal.swap_remove(rng.random_range(0..legal.len())));
        }
        state = m.next_state(&state, &joint)?;
        if s.trace {
            moves.extend_from_slice(&joint);
        }
        steps += 1;
    }
}

/// One playout from each of `starts`, 64 at a time bit-sliced: random moves, or where the
/// settings have move averages, partly the best by them.
pub fn bit_sliced(
    m: &mut PropnetMachine,
    starts: &[PropnetState],
    rng: &mut SmallRng,
    s: &Settings,
) -> Vec<Option<Outcome<u32>>> {
    let mut out = vec![None; starts.len()];
    for (k, chunk) in starts.chunks(64).enumerate() {
        let refs: Vec<&PropnetState> = chunk.iter().collect();
        let mut steps = 0u32;
        let mut go_on = || {
            steps += 1;
            steps & (CLOCK_EVERY - 1) != 0 || !s.out_of_time()
        };
        let results = &mut out[k * 64..];
        let policy = s.mast.as_ref().map(MastPolicy::moves);
        m.playout_each(&refs, rng, s.max_steps, s.trace, policy, &mut go_on, &mut |e| {
            results[e.origin] = Some(Outcome {
                scores: e.goals.iter().map(score).collect(),
                complete: e.end == PlayoutEnd::Terminal,
                moves: e.trace.to_vec(),
                steps: e.length,
            });
        });
    }
    out
}

/// What playouts take of the move averages (MAST) the search keeps: a copy of every move's
/// mean score (0..=1, per move index) and the chance of the greedy choice.
#[derive(Debug, Clone)]
pub struct MastPolicy {
    /// Per move index, its mean score so far scaled to 0..=1.
    pub values: Arc<[f32]>,
    /// The chance that a role with a choice plays its legal move of best mean.
    pub greedy: f64,
}

impl MastPolicy {
    /// The policy as the bit-sliced playouts take it.
    pub fn moves(&self) -> MovePolicy<'_> {
        MovePolicy { values: &self.values, greedy: self.greedy }
    }

    /// A move of `legal` (not empty): with the greedy chance the one of best mean (ties at
    /// random), else a uniformly random one.
    pub fn pick(&self, legal: &[u32], rng: &mut SmallRng) -> u32 {
        if legal.len() > 1 && rng.random_bool(self.greedy) {
            let mut best = Best::new();
            for &mv in legal {
                best.offer(mv, f64::from(self.values.get(mv as usize).copied().unwrap_or(0.0)), rng);
            }
            return best.get().unwrap_or(legal[0]);
        }
        legal[rng.random_range(0..legal.len())]
    }
}

/// The item of greatest key among those offered, ties broken uniformly at random as they come
/// (one draw per tie, the first included), without collecting them.
pub struct Best<T> {
    item: Option<T>,
    top: f64,
    ties: u32,
}

impl<T> Default for Best<T> {
    fn default() -> Best<T> {
        Best::new()
    }
}

impl<T> Best<T> {
    /// Nothing offered yet.
    pub fn new() -> Best<T> {
        Best { item: None, top: f64::NEG_INFINITY, ties: 0 }
    }

    /// Offers `item` with `key`.
    pub fn offer(&mut self, item: T, key: f64, rng: &mut SmallRng) {
        if key > self.top {
            (self.top, self.ties) = (key, 0);
        }
        if key == self.top {
            self.ties += 1;
            if rng.random_range(0..self.ties) == 0 {
                self.item = Some(item);
            }
        }
    }

    /// The item chosen, if any was offered.
    pub fn get(self) -> Option<T> {
        self.item
    }
}
