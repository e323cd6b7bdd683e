//! Bit-sliced random playouts: 64 playouts advance together, one per bit of every slot's word.
//!
//! Each step evaluates the core phase for all lanes, retires the lanes that ended (terminal, step
//! limit, or a role without a legal move), draws one uniformly random legal move per role and
//! lane, evaluates the move phase and moves every playing lane to its next state. A retired lane
//! immediately restarts from the start state while playouts remain to be started, so the lanes
//! stay busy until the last few playouts; its final state waits in a second marking until 64
//! have finished, and their goals are evaluated together. Nothing is allocated per step.

use super::eval::{self, read};
use super::program::Program;
use machine::playout::PlayoutEnd;
use machine::MachineError;
use rand::RngCore;

/// Lanes per word.
pub(crate) const LANES: usize = 64;

/// How one bit-sliced playout ended, handed to the caller after it retired.
pub struct LaneEnd<'a> {
    /// The bit of `bases` that holds its final state.
    pub lane: usize,
    /// The lane it was played in: for playouts from several start states, the index of its own.
    pub origin: usize,
    /// Joint moves played.
    pub length: u32,
    /// Why it stopped.
    pub end: PlayoutEnd,
    /// Per role, the final state's goal value or the complaint about it.
    pub goals: &'a [Result<u32, MachineError>],
    /// The base words (bit `lane` of word i is base proposition i of the final state).
    pub bases: &'a [u64],
    /// The joint moves played, role by role (only when tracing).
    pub trace: &'a [u32],
}

/// One joint transition of every lane that moved, for callers that watch play as it happens.
pub struct Step<'a> {
    /// The base words before the move (bit `lane` of word i: base proposition i in that lane).
    pub now: &'a [u64],
    /// The base words after it.
    pub next: &'a [u64],
    /// The lanes that moved; the other bits of `now` and `next` mean nothing.
    pub moving: u64,
}

/// Per-thread scratch for bit-sliced playouts.
#[derive(Debug, Clone)]
pub(crate) struct BitSliced {
    vals: Vec<u64>,
    next: Vec<u64>,
    start: Vec<u64>,
    /// Per role and lane, the number of legal moves.
    counts: Vec<[u32; LANES]>,
    /// Per role, its moves legal in some moving lane, with those lanes: the legal outputs are
    /// read once per step, and choosing a move walks only these.
    legal: Vec<Vec<(u32, u64)>>,
    /// Per lane, the index of the chosen move among the legal ones (counts down while selecting).
    pick: [u32; LANES],
    lengths: [u32; LANES],
    traces: Vec<Vec<u32>>,
    /// Finished playouts waiting for their goals: their final states, one per bit, in a second
    /// marking, so that the goal phase runs once per 64 finished playouts rather than at every
    /// step where some lane finishes (goal gates are often most of the net: counting pieces).
    parked: Vec<u64>,
    parked_count: usize,
    /// Per parked playout: length, end and the lane it was played in.
    parked_ends: [(u32, PlayoutEnd, usize); LANES],
    parked_traces: Vec<Vec<u32>>,
    goals: Vec<Result<u32, MachineError>>,
}

impl BitSliced {
    /// Scratch sized for `p`.
    pub fn new(p: &Program) -> BitSliced {
        BitSliced {
            vals: vec![0; p.slots],
            next: vec![0; p.base_count()],
            start: vec![0; p.base_count()],
            counts: vec![[0; LANES]; p.roles.len()],
            legal: vec![Vec::new(); p.roles.len()],
            pick: [0; LANES],
            lengths: [0; LANES],
            traces: vec![Vec::new(); LANES],
            parked: vec![0; p.slots],
            parked_count: 0,
            parked_ends: [(0, PlayoutEnd::Terminal, 0); LANES],
            parked_traces: vec![Vec::new(); LANES],
            goals: Vec::with_capacity(p.roles.len()),
        }
    }

    /// Plays `count` random playouts of at most `max_steps` joint moves from `start` (a bitset
    /// over base propositions), calling `done` for each once it has ended. With `TRACE`, every
    /// lane's joint moves are recorded and handed over too. `step` sees every joint transition
    /// (see [`Step`]); play stops early when it returns false.
    #[allow(clippy::too_many_arguments)]
    pub fn run<R: RngCore + ?Sized, const TRACE: bool>(
        &mut self,
        p: &Program,
        start: &[u64],
        count: u64,
        rng: &mut R,
        max_steps: u32,
        done: &mut dyn FnMut(LaneEnd<'_>),
        step: &mut dyn FnMut(Step<'_>) -> bool,
    ) {
        for (i, w) in self.start.iter_mut().enumerate() {
            *w = if start.get(i / 64).is_some_and(|s| s >> (i % 64) & 1 == 1) { !0 } else { 0 };
        }
        self.play::<R, TRACE>(p, count, rng, max_steps, done, step);
    }

    /// Plays one random playout from each of `starts` (the first [`LANES`]), lane k from
    /// `starts[k]`, reporting each to `done` with `origin` k; otherwise like [`run`](Self::run).
    pub fn run_each<R: RngCore + ?Sized, const TRACE: bool>(
        &mut self,
        p: &Program,
        starts: &[&[u64]],
        rng: &mut R,
        max_steps: u32,
        done: &mut dyn FnMut(LaneEnd<'_>),
        step: &mut dyn FnMut(Step<'_>) -> bool,
    ) {
        let starts = &starts[..starts.len().min(LANES)];
        for (i, w) in self.start.iter_mut().enumerate() {
            let bit = |s: &&[u64]| s.get(i / 64).map_or(0, |s| s >> (i % 64) & 1);
            *w = starts.iter().enumerate().fold(0, |acc, (k, s)| acc | bit(s) << k);
        }
        self.play::<R, TRACE>(p, starts.len() as u64, rng, max_steps, done, step);
    }

    /// The playing loop of [`run`](Self::run) and [`run_each`](Self::run_each), from the start
    /// marking already in `self.start`: a lane that retires restarts from its own start state.
    fn play<R: RngCore + ?Sized, const TRACE: bool>(
        &mut self,
        p: &Program,
        count: u64,
        rng: &mut R,
        max_steps: u32,
        done: &mut dyn FnMut(LaneEnd<'_>),
        step: &mut dyn FnMut(Step<'_>) -> bool,
    ) {
        let nb = p.base_count();
        let first = count.min(LANES as u64);
        let mut started = first;
        let mut active: u64 = if first == 64 { !0 } else { (1u64 << first) - 1 };
        self.vals[1..=nb].copy_from_slice(&self.start);
        self.lengths = [0; LANES];
        if TRACE {
            self.traces.iter_mut().for_each(Vec::clear);
        }
        let input0 = p.input_slot(0);
        while active != 0 {
            if p.outputs_read_inputs {
                self.vals[input0..input0 + p.move_count()].fill(0);
                eval::run(p, &p.move_phase, &mut self.vals);
            }
            eval::run(p, &p.core, &mut self.vals);
            let terminal = read(&self.vals, p.terminal) & active;
            let live = active & !terminal;
            let mut limit = 0;
            for lane in bits(live) {
                if self.lengths[lane] >= max_steps {
                    limit |= 1 << lane;
                }
            }
            let mut moving = live & !limit;

            // Count each lane's legal moves per role; a lane where some role has none is stuck.
            let mut stuck = 0u64;
            let mut stuck_role = [0u32; LANES];
            for (r, moves) in p.role_moves.iter().enumerate() {
                let counts = &mut self.counts[r];
                *counts = [0; LANES];
                let legal = &mut self.legal[r];
                legal.clear();
                for &m in moves {
                    let lanes = read(&self.vals, p.legal[m as usize]) & moving;
                    if lanes != 0 {
                        legal.push((m, lanes));
                        for lane in bits(lanes) {
                            counts[lane] += 1;
                        }
                    }
                }
                for lane in bits(moving & !stuck) {
                    if counts[lane] == 0 {
                        stuck |= 1 << lane;
                        stuck_role[lane] = r as u32;
                    }
                }
            }
            moving &= !stuck;

            let finished = terminal | limit | stuck;
            for lane in bits(finished) {
                let bit = 1u64 << lane;
                let end = if terminal & bit != 0 {
                    PlayoutEnd::Terminal
                } else if limit & bit != 0 {
                    PlayoutEnd::StepLimit
                } else {
                    PlayoutEnd::NoLegalMove { role: stuck_role[lane] as usize }
                };
                self.park(p, lane, end, done);
            }

            // One uniformly random legal move per role and lane.
            for (r, moves) in p.role_moves.iter().enumerate() {
                for lane in bits(moving) {
                    let n = u64::from(self.counts[r][lane]);
                    self.pick[lane] = ((u128::from(rng.next_u64()) * u128::from(n)) >> 64) as u32;
                }
                for &m in moves {
                    self.vals[input0 + m as usize] = 0;
                }
                for &(m, lanes) in &self.legal[r] {
                    // Lanes that stopped since the count are no longer moving.
                    let mut chosen = 0u64;
                    for lane in bits(lanes & moving) {
                        if self.pick[lane] == 0 {
                            chosen |= 1 << lane;
                            if TRACE {
                                self.traces[lane].push(m);
                            }
                        }
                        self.pick[lane] = self.pick[lane].wrapping_sub(1);
                    }
                    self.vals[input0 + m as usize] = chosen;
                }
            }
            eval::run(p, &p.move_phase, &mut self.vals);
            for (w, &l) in self.next.iter_mut().zip(&p.next) {
                *w = read(&self.vals, l);
            }
            if !step(Step { now: &self.vals[1..=nb], next: &self.next, moving }) {
                break;
            }

            // Retired lanes restart while playouts remain to be started.
            let mut restart = 0u64;
            for lane in bits(finished) {
                if started == count {
                    break;
                }
                started += 1;
                restart |= 1 << lane;
                self.lengths[lane] = 0;
            }
            for lane in bits(moving) {
                self.lengths[lane] += 1;
            }
            active = (active & !finished) | restart;
            for ((w, &n), &s) in self.vals[1..=nb].iter_mut().zip(&self.next).zip(&self.start) {
                *w = (n & moving) | (s & restart);
            }
        }
        self.flush(p, done);
    }

    /// Moves lane `lane`'s finished playout (its state, end and trace) to the parked marking,
    /// evaluating the goals of all parked playouts once it is full.
    fn park(&mut self, p: &Program, lane: usize, end: PlayoutEnd, done: &mut dyn FnMut(LaneEnd<'_>)) {
        let k = self.parked_count;
        let nb = p.base_count();
        for (to, &from) in self.parked[1..=nb].iter_mut().zip(&self.vals[1..=nb]) {
            *to = (*to & !(1 << k)) | ((from >> lane & 1) << k);
        }
        self.parked_ends[k] = (self.lengths[lane], end, lane);
        // Swapping keeps both vectors' capacity: no allocation once traces have grown.
        std::mem::swap(&mut self.parked_traces[k], &mut self.traces[lane]);
        self.traces[lane].clear();
        self.parked_count += 1;
        if self.parked_count == LANES {
            self.flush(p, done);
        }
    }

    /// Evaluates the goals of the parked playouts and hands them over.
    fn flush(&mut self, p: &Program, done: &mut dyn FnMut(LaneEnd<'_>)) {
        if self.parked_count == 0 {
            return;
        }
        if p.outputs_read_inputs {
            let input0 = p.input_slot(0);
            self.parked[input0..input0 + p.move_count()].fill(0);
            eval::run(p, &p.move_phase, &mut self.parked);
        }
        eval::run(p, &p.core, &mut self.parked);
        eval::run(p, &p.goal_phase, &mut self.parked);
        let nb = p.base_count();
        for k in 0..self.parked_count {
            lane_goals(p, &self.parked, k, &mut self.goals);
            let (length, end, origin) = self.parked_ends[k];
            done(LaneEnd {
                lane: k,
                origin,
                length,
                end,
                goals: &self.goals,
                bases: &self.parked[1..=nb],
                trace: &self.parked_traces[k],
            });
        }
        self.parked_count = 0;
    }
}

/// Per role, lane `lane`'s goal value, or why there is not exactly one.
fn lane_goals(p: &Program, vals: &[u64], lane: usize, out: &mut Vec<Result<u32, MachineError>>) {
    out.clear();
    for (r, goals) in p.goals.iter().enumerate() {
        let mut held = goals.iter().filter(|&&(_, l)| read(vals, l) >> lane & 1 == 1).map(|&(v, _)| v);
        let result = match (held.next(), held.next()) {
            (Some(v), None) => Ok(v),
            (None, _) => Err(MachineError::NoGoal { role: p.roles[r].clone() }),
            (Some(a), Some(b)) => {
                let mut values = vec![a, b];
                values.extend(held);
                values.dedup();
                Err(MachineError::AmbiguousGoal { role: p.roles[r].clone(), values })
            }
        };
        out.push(result);
    }
}

/// The indices of the set bits of `w`, lowest first.
#[inline]
pub(crate) fn bits(mut w: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if w == 0 {
            return None;
        }
        let i = w.trailing_zeros() as usize;
        w &= w - 1;
        Some(i)
    })
}
