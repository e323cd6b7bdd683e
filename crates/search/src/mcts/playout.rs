//! Playouts from the leaves of the tree, on workers that each own a machine: bit-sliced, up to
//! 64 leaves in one pass, or one at a time steered by the goal latches.

use super::score;
use analysis::GoalLatches;
use machine::playout::PlayoutEnd;
use machine::{MachineError, StateMachine};
use propnet::{PropnetMachine, PropnetState};
use rand::rngs::SmallRng;
use rand::Rng;
use std::sync::Arc;
use std::time::Instant;

/// How often (in joint moves, a power of two) a playout looks at the clock.
const CLOCK_EVERY: u32 = 16;

/// What a playout from one leaf found.
#[derive(Debug, Clone)]
pub(super) struct Outcome {
    /// Every role's score where it stopped, 0..=100.
    pub scores: Vec<u8>,
    /// Whether the game was over (or its scores decided by latches) there: only such playouts
    /// make plans.
    pub complete: bool,
    /// The moves played, when asked for (single-player plans).
    pub moves: Vec<u32>,
}

/// How workers play, the same for every batch of a search.
#[derive(Debug, Clone)]
pub(super) struct Settings {
    pub max_steps: u32,
    /// Record the moves of every playout.
    pub trace: bool,
    /// Steer playouts away from moves that lower the mover's best achievable score.
    pub guide: Option<Arc<GoalLatches>>,
    /// Playouts still running then are dropped.
    pub deadline: Option<Instant>,
}

impl Settings {
    /// Whether the deadline has passed.
    pub fn out_of_time(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// A playing thread's own machine and random numbers.
#[derive(Debug)]
pub(super) struct Worker {
    pub machine: PropnetMachine,
    pub rng: SmallRng,
}

impl Worker {
    /// One playout from each of `starts`, in order; `None` where the deadline cut it short.
    pub fn play(&mut self, starts: &[PropnetState], s: &Settings) -> Result<Vec<Option<Outcome>>, MachineError> {
        match &s.guide {
            Some(goals) => starts.iter().map(|start| self.guided(start, goals, s)).collect(),
            None => Ok(self.bit_sliced(starts, s)),
        }
    }

    fn bit_sliced(&mut self, starts: &[PropnetState], s: &Settings) -> Vec<Option<Outcome>> {
        let mut out = vec![None; starts.len()];
        for (k, chunk) in starts.chunks(64).enumerate() {
            let refs: Vec<&PropnetState> = chunk.iter().collect();
            let mut steps = 0u32;
            let mut go_on = || {
                steps += 1;
                steps & (CLOCK_EVERY - 1) != 0 || !s.out_of_time()
            };
            let results = &mut out[k * 64..];
            self.machine.playout_each(&refs, &mut self.rng, s.max_steps, s.trace, &mut go_on, &mut |e| {
                results[e.origin] = Some(Outcome {
                    scores: e.goals.iter().map(score).collect(),
                    complete: e.end == PlayoutEnd::Terminal,
                    moves: e.trace.to_vec(),
                });
            });
        }
        out
    }

    /// Random play from `start` where each role, given the others' random moves, avoids moves
    /// that lower its highest achievable score whenever it has another (Sancho's crude but
    /// effective rule); a state whose scores the latches decide ends the playout.
    fn guided(
        &mut self,
        start: &PropnetState,
        goals: &GoalLatches,
        s: &Settings,
    ) -> Result<Option<Outcome>, MachineError> {
        let m = &mut self.machine;
        let roles = m.roles().len();
        let mut state = start.clone();
        let mut moves = Vec::new();
        let mut joint = vec![0u32; roles];
        let mut legal: Vec<Vec<u32>> = vec![Vec::new(); roles];
        let mut steps = 0u32;
        loop {
            if m.is_terminal(&state)? {
                return Ok(Some(Outcome { scores: scores(m, &state), complete: true, moves }));
            }
            if let Some(decided) = goals.determined(state.words()) {
                let scores = decided.iter().map(|&v| v.min(100) as u8).collect();
                return Ok(Some(Outcome { scores, complete: true, moves }));
            }
            if steps >= s.max_steps {
                return Ok(Some(Outcome { scores: scores(m, &state), complete: false, moves }));
            }
            if steps & (CLOCK_EVERY - 1) == 0 && s.out_of_time() {
                return Ok(None);
            }
            for (r, l) in legal.iter_mut().enumerate() {
                *l = m.legal_moves(&state, r)?;
                if l.is_empty() {
                    return Ok(Some(Outcome { scores: scores(m, &state), complete: false, moves }));
                }
                joint[r] = l[self.rng.random_range(0..l.len())];
            }
            // The successor of the current `joint`, once some role has computed it.
            let mut next = None;
            for (r, l) in legal.iter().enumerate().filter(|(_, l)| l.len() > 1) {
                let best = goals.range(state.words(), r).map_or(0, |x| x.max);
                let first = self.rng.random_range(0..l.len());
                let mut kept = None;
                for k in 0..l.len() {
                    joint[r] = l[(first + k) % l.len()];
                    let after = m.next_state(&state, &joint)?;
                    if goals.range(after.words(), r).is_some_and(|x| x.max >= best) {
                        kept = Some(after);
                        break;
                    }
                }
                if kept.is_none() {
                    joint[r] = l[first];
                }
                next = kept;
            }
            state = match next {
                Some(next) => next,
                None => m.next_state(&state, &joint)?,
            };
            if s.trace {
                moves.extend_from_slice(&joint);
            }
            steps += 1;
        }
    }
}

/// Every role's score in `state` (0 where the rules give no single value).
pub(super) fn scores(m: &mut PropnetMachine, state: &PropnetState) -> Vec<u8> {
    (0..m.roles().len()).map(|r| score(&m.goal(state, r))).collect()
}
