//! Bit-sliced random playouts: 64·W playouts advance together, one per bit of every slot's W
//! words (one word for playouts from up to 64 start states and for watching play, eight or
//! sixteen for long runs from one state, where a pass over the gates costs far less per playout).
//!
//! Each step evaluates the core phase for all lanes, retires the lanes that ended (terminal, step
//! limit, or a role without a legal move), draws one uniformly random legal move per role and
//! lane (or, with a [`MovePolicy`], the best legal move by its values in a share of the lanes),
//! evaluates the move phase and moves every playing lane to its next state. A retired lane
//! immediately restarts from the start state while playouts remain to be started, so the lanes
//! stay busy until the last few playouts. The goals of the lanes that ended are evaluated in the
//! lanes' own marking (the goal phase, at steps where some lane ended), or, where the goal phase
//! has more gates than there are base propositions (counting pieces) or a [`GoalOracle`] answers
//! without the goal gates, the final states wait until as many playouts as there are lanes have
//! finished and their goals are evaluated together in a second marking as wide as the first.
//! After the move phase one sweep over the bases moves every lane on: to its next state, its
//! start state, or nothing. Nothing is allocated per step.

use super::eval::{self, read};
use super::machine::PropnetState;
use super::program::Phase;
use super::program::{Lit, Program};
use super::simd::Marking;
use super::GoalOracle;
use machine::playout::PlayoutEnd;
use machine::MachineError;
use rand::RngCore;
use std::sync::Arc;
use structures::Bits;

/// Lanes per word.
pub(crate) const LANES: usize = 64;

/// The set bits a role's legal moves have per word of lanes on average (of 64), from which
/// `count_legal` transposes them into a bitset per lane: a 64×64 transposition costs about as
/// much as walking this many lanes' moves one by one, twice (counting, then choosing).
const DENSE: usize = 4;

/// The fewest moves legal in some lane for which `count_legal` transposes: a transposition
/// costs as much for a few moves as for 64.
const DENSE_MOVES: usize = 16;

/// How one bit-sliced playout ended, handed to the caller after it retired.
pub struct LaneEnd<'a> {
    /// The lane it was played in: for playouts from several start states, the index of its own.
    pub origin: usize,
    /// Joint moves played.
    pub length: u32,
    /// Why it stopped.
    pub end: PlayoutEnd,
    /// Per role, the final state's goal value or the complaint about it.
    pub goals: &'a [Result<u32, MachineError>],
    /// The joint moves played, role by role (only when tracing).
    pub trace: &'a [u32],
    /// The final state, read in place: base proposition i is bit `bit` of word
    /// `i * stride + word` of `words`.
    words: &'a [u64],
    stride: usize,
    word: usize,
    bit: usize,
}

impl LaneEnd<'_> {
    /// Whether base proposition `i` holds in the final state.
    pub fn holds(&self, i: usize) -> bool {
        self.words[i * self.stride + self.word] >> self.bit & 1 == 1
    }

    /// The final state (allocates).
    pub fn final_state(&self) -> PropnetState {
        let n = self.words.len() / self.stride;
        PropnetState::from_bases(n, (0..n).filter(|&i| self.holds(i)))
    }
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

/// How playouts choose a role's move when not uniformly at random: in each lane where the role
/// has a choice, with probability `greedy` the legal move of highest `values[move]` (ties broken
/// at random each step), otherwise a uniformly random legal one. Move-average sampling (MAST)
/// hands in every move's mean score so far.
#[derive(Debug, Clone, Copy)]
pub struct MovePolicy<'a> {
    /// A value per move (input index); moves past its end count as 0.
    pub values: &'a [f32],
    /// The chance of the greedy choice, 0..=1.
    pub greedy: f64,
}

/// Per-thread scratch for bit-sliced playouts, `W` words (64·W lanes) per slot.
#[derive(Debug, Clone)]
pub(crate) struct BitSliced<const W: usize> {
    vals: Marking<W>,
    /// Next values: those a watcher sees, and those read from base slots, taken before the
    /// bases are overwritten.
    next: Vec<[u64; W]>,
    start: Vec<[u64; W]>,
    /// Per role and lane, the number of legal moves.
    counts: Vec<PerLane<W>>,
    /// Per role, its moves legal in some moving lane, with those lanes: the legal outputs are
    /// read once per step, and choosing a move walks only these.
    legal: Vec<Vec<(u32, [u64; W])>>,
    /// Per role, whether its legal moves are many lanes' each this step, and then per lane the
    /// moves in `legal` it has as a bitset (`legal.len()` bits, rounded up to whole words): word
    /// j of lane l at `j * 64·W + l`, so that a transposed block is written in a row.
    dense: Vec<bool>,
    rows: Vec<Vec<u64>>,
    /// The moves chosen in some lane this step: the inputs set.
    chosen: Vec<u32>,
    /// Per lane, the index of the chosen move among the legal ones (counts down while selecting).
    pick: PerLane<W>,
    /// Per lane, the role without a legal move where there is one.
    stuck_role: PerLane<W>,
    /// Per lane choosing greedily, the best move so far and its value.
    best: PerLane<W>,
    best_value: [[f32; LANES]; W],
    lengths: PerLane<W>,
    traces: Vec<Vec<u32>>,
    /// Whether finished playouts wait for their goals (see `park`) rather than have them
    /// evaluated in the lanes' own marking as they finish: where the goal phase has more gates
    /// than there are base propositions, or an oracle answers in its stead.
    parks: bool,
    /// Finished playouts waiting for their goals, so that the goal phase runs once per 64·W
    /// finished playouts rather than at every step where some lane finishes (goal gates are
    /// often most of the net: counting pieces). Their final states, one per bit, 64 playouts
    /// to a block of one word per base proposition: parking a playout writes one block's words
    /// in a row.
    parked_bases: Vec<u64>,
    /// A marking as wide as the lanes' where the parked playouts' goals are evaluated.
    parked: Marking<W>,
    parked_count: usize,
    /// Per parked playout: length, end and the lane it was played in.
    parked_ends: Vec<(u32, PlayoutEnd, usize)>,
    parked_traces: Vec<Vec<u32>>,
    goals: Vec<Result<u32, MachineError>>,
    /// Computes the goals of ended games without the goal gates, where it can.
    pub(crate) oracle: Option<Arc<dyn GoalOracle>>,
    /// One parked playout's final state as state words, for the oracle.
    lane_state: Vec<u64>,
    /// The oracle's goals, per parked playout and role.
    emulated: Vec<u32>,
}

/// A set of lanes: bit b of word k is lane 64·k + b.
type Lanes<const W: usize> = [u64; W];

/// A number per lane, lane 64·k + b at `[k][b]` (fixed sizes: the hot loops index them without
/// bounds checks).
type PerLane<const W: usize> = [[u32; LANES]; W];

/// What sees every joint transition: the bases before and after, and the lanes that moved (the
/// other lanes mean nothing); play stops when it returns false.
pub(crate) type Watch<'a, const W: usize> = dyn FnMut(&[[u64; W]], &[[u64; W]], Lanes<W>) -> bool + 'a;

/// What looks on while the lanes play.
pub(crate) enum Onlooker<'a, 'b, const W: usize> {
    /// Nothing: play runs until every playout has ended.
    Nobody,
    /// Asked before every joint step whether to go on.
    GoOn(&'a mut (dyn FnMut() -> bool + 'b)),
    /// Sees every joint transition.
    Transitions(&'a mut Watch<'b, W>),
}

/// Lanes in `a` and not in `b`.
#[inline(always)]
fn minus<const W: usize>(a: Lanes<W>, b: Lanes<W>) -> Lanes<W> {
    std::array::from_fn(|k| a[k] & !b[k])
}

/// Lanes in `a` and in `b`.
#[inline(always)]
fn both<const W: usize>(a: Lanes<W>, b: Lanes<W>) -> Lanes<W> {
    std::array::from_fn(|k| a[k] & b[k])
}

/// Lanes in `a` or in `b`.
#[inline(always)]
fn either<const W: usize>(a: Lanes<W>, b: Lanes<W>) -> Lanes<W> {
    std::array::from_fn(|k| a[k] | b[k])
}

/// Whether no lane is in `a`.
#[inline(always)]
fn none<const W: usize>(a: Lanes<W>) -> bool {
    a.iter().all(|&w| w == 0)
}

/// Adds lane `lane` to `a`.
#[inline(always)]
fn add(a: &mut [u64], lane: usize) {
    a.set_bit(lane);
}

/// The lanes of `a`, lowest first, each as its word and bit.
#[inline]
fn lanes<const W: usize>(a: Lanes<W>) -> impl Iterator<Item = (usize, usize)> {
    (0..W).flat_map(move |k| bits(a[k]).map(move |b| (k, b)))
}

impl<const W: usize> BitSliced<W> {
    /// Playouts advanced together.
    const LANES: usize = 64 * W;

    /// The program the passes over the lanes evaluate: for more than one word a slot, the
    /// packed one where `p` has it (whose marking the caches hold better); `p` itself decides
    /// the goals of the playouts that ended, one word a slot, with its native code.
    fn pass(p: &Program) -> &Program {
        if W > 1 {
            p.wide()
        } else {
            p
        }
    }

    /// Scratch sized for `p`.
    pub fn new(p: &Program) -> BitSliced<W> {
        BitSliced {
            vals: Marking::new(Self::pass(p).marking_slots()),
            next: vec![[0; W]; p.base_count()],
            start: vec![[0; W]; p.base_count()],
            counts: vec![[[0; LANES]; W]; p.roles.len()],
            legal: vec![Vec::new(); p.roles.len()],
            dense: vec![false; p.roles.len()],
            rows: vec![Vec::new(); p.roles.len()],
            chosen: Vec::new(),
            pick: [[0; LANES]; W],
            stuck_role: [[0; LANES]; W],
            best: [[0; LANES]; W],
            best_value: [[0.0; LANES]; W],
            lengths: [[0; LANES]; W],
            traces: vec![Vec::new(); Self::LANES],
            parks: Self::pass(p).stats.goal_gates > p.base_count(),
            parked_bases: vec![0; W * p.base_count()],
            parked: Marking::new(Self::pass(p).marking_slots()),
            parked_count: 0,
            parked_ends: vec![(0, PlayoutEnd::Terminal, 0); Self::LANES],
            parked_traces: vec![Vec::new(); Self::LANES],
            goals: Vec::with_capacity(p.roles.len()),
            oracle: None,
            lane_state: vec![0; p.base_count().div_ceil(64)],
            emulated: Vec::with_capacity(Self::LANES * p.roles.len()),
        }
    }

    /// Scratch sized for `p`, its playouts' goals given by `oracle` where it knows them.
    pub fn with_oracle(p: &Program, oracle: &Option<Arc<dyn GoalOracle>>) -> BitSliced<W> {
        let new = BitSliced::new(p);
        BitSliced { oracle: oracle.clone(), parks: new.parks || oracle.is_some(), ..new }
    }

    /// Plays `count` random playouts of at most `max_steps` joint moves from `start` (a bitset
    /// over base propositions), calling `done` for each once it has ended. With `TRACE`, every
    /// lane's joint moves are recorded and handed over too. The `onlooker` may stop play early.
    #[allow(clippy::too_many_arguments)]
    pub fn run<R: RngCore + ?Sized, const TRACE: bool>(
        &mut self,
        p: &Program,
        start: &[u64],
        count: u64,
        rng: &mut R,
        max_steps: u32,
        done: &mut dyn FnMut(LaneEnd<'_>),
        onlooker: Onlooker<'_, '_, W>,
    ) {
        for (i, w) in self.start.iter_mut().enumerate() {
            let on = start.bit(i);
            *w = [if on { !0 } else { 0 }; W];
        }
        self.play::<R, TRACE>(p, count, rng, max_steps, None, done, onlooker);
    }

    /// Plays one playout from each of `starts` (the first 64·W), lane k from `starts[k]`,
    /// reporting each to `done` with `origin` k, choosing moves by `policy` where there is one;
    /// otherwise like [`run`](Self::run).
    #[allow(clippy::too_many_arguments)]
    pub fn run_each<R: RngCore + ?Sized, const TRACE: bool>(
        &mut self,
        p: &Program,
        starts: &[&[u64]],
        rng: &mut R,
        max_steps: u32,
        policy: Option<MovePolicy<'_>>,
        done: &mut dyn FnMut(LaneEnd<'_>),
        onlooker: Onlooker<'_, '_, W>,
    ) {
        let starts = &starts[..starts.len().min(Self::LANES)];
        for (i, w) in self.start.iter_mut().enumerate() {
            *w = [0; W];
            for (k, s) in starts.iter().enumerate() {
                if s.bit(i) {
                    add(w, k);
                }
            }
        }
        self.play::<R, TRACE>(p, starts.len() as u64, rng, max_steps, policy, done, onlooker);
    }

    /// The playing loop of [`run`](Self::run) and [`run_each`](Self::run_each), from the start
    /// marking already in `self.start`: a lane that retires restarts from its own start state.
    /// Compiled a second time for processors with the bit-counting instructions (POPCNT, BMI2)
    /// and AVX2, which counting, transposing and picking legal moves lean on, and run so where
    /// the processor has them.
    #[allow(clippy::too_many_arguments)]
    fn play<R: RngCore + ?Sized, const TRACE: bool>(
        &mut self,
        p: &Program,
        count: u64,
        rng: &mut R,
        max_steps: u32,
        policy: Option<MovePolicy<'_>>,
        done: &mut dyn FnMut(LaneEnd<'_>),
        onlooker: Onlooker<'_, '_, W>,
    ) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            if has!("popcnt") && has!("bmi2") && has!("avx2") {
                // SAFETY: the processor has the instructions, checked just above.
                return unsafe { self.play_v3::<R, TRACE>(p, count, rng, max_steps, policy, done, onlooker) };
            }
        }
        self.play_with::<R, TRACE>(p, count, rng, max_steps, policy, done, onlooker);
    }

    /// [`play`](Self::play) with the bit-counting instructions and AVX2 (the x86-64-v3 level;
    /// AVX-512 was measured level with it).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,bmi1,bmi2,avx2")]
    #[allow(clippy::too_many_arguments)]
    unsafe fn play_v3<R: RngCore + ?Sized, const TRACE: bool>(
        &mut self,
        p: &Program,
        count: u64,
        rng: &mut R,
        max_steps: u32,
        policy: Option<MovePolicy<'_>>,
        done: &mut dyn FnMut(LaneEnd<'_>),
        onlooker: Onlooker<'_, '_, W>,
    ) {
        self.play_with::<R, TRACE>(p, count, rng, max_steps, policy, done, onlooker);
    }

    /// The body of [`play`](Self::play).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn play_with<R: RngCore + ?Sized, const TRACE: bool>(
        &mut self,
        p: &Program,
        count: u64,
        rng: &mut R,
        max_steps: u32,
        policy: Option<MovePolicy<'_>>,
        done: &mut dyn FnMut(LaneEnd<'_>),
        mut onlooker: Onlooker<'_, '_, W>,
    ) {
        let nb = p.base_count();
        let w = Self::pass(p);
        let first = count.min(Self::LANES as u64) as usize;
        let mut started = first as u64;
        let mut active: Lanes<W> = [0; W];
        (0..first).for_each(|lane| add(&mut active, lane));
        // Retired lanes that wait for the turn of their start state.
        let mut idle: Lanes<W> = [0; W];
        self.vals[1..=nb].copy_from_slice(&self.start);
        self.lengths = [[0; LANES]; W];
        if TRACE {
            self.traces.iter_mut().for_each(Vec::clear);
        }
        let input0 = p.input_slot(0);
        while !none(active) {
            if w.outputs_read_inputs {
                self.vals[input0..input0 + p.move_count()].fill([0; W]);
                eval::run(w, Phase::Move, &mut self.vals);
            }
            // The program of the lanes' turn where they all stand at one: the same bases and
            // inputs, fewer gates.
            let q = w.for_lanes(&self.vals[1..=nb], active);
            eval::run(q, Phase::Core, &mut self.vals);
            let terminal = both(read(&self.vals, q.terminal), active);
            let live = minus(active, terminal);
            let mut limit = [0; W];
            for (k, b) in lanes(live) {
                if self.lengths[k][b] >= max_steps {
                    limit[k] |= 1 << b;
                }
            }
            let mut moving = minus(live, limit);

            let stuck = self.count_legal(q, moving);
            moving = minus(moving, stuck);

            let finished = either(either(terminal, limit), stuck);
            if self.parks {
                for (k, b) in lanes(finished) {
                    let end = self.end((k, b), terminal, limit);
                    self.park(p, (k, b), end, done);
                }
            } else if !none(finished) {
                eval::run(q, Phase::Goal, &mut self.vals);
                for (k, b) in lanes(finished) {
                    let end = self.end((k, b), terminal, limit);
                    lane_goals(q, &self.vals, (k, b), &mut self.goals);
                    let lane = 64 * k + b;
                    done(LaneEnd {
                        origin: lane,
                        length: self.lengths[k][b],
                        end,
                        goals: &self.goals,
                        trace: &self.traces[lane],
                        words: self.vals[1..=nb].as_flattened(),
                        stride: W,
                        word: k,
                        bit: b,
                    });
                    self.traces[lane].clear();
                }
            }

            self.choose::<R, TRACE>(q, moving, policy, rng);
            eval::run(q, Phase::Move, &mut self.vals);
            let go_on = match &mut onlooker {
                Onlooker::Nobody => true,
                Onlooker::GoOn(go_on) => go_on(),
                Onlooker::Transitions(watch) => {
                    for (w, &l) in self.next.iter_mut().zip(&q.next) {
                        *w = read(&self.vals, l);
                    }
                    watch(&self.vals[1..=nb], &self.next, moving)
                }
            };
            if !go_on {
                self.advance(q, [0; W], [0; W], input0);
                break;
            }

            // Retired lanes restart while playouts remain to be started; where the game has
            // turns, only once the playing lanes stand at their start state's turn, so that the
            // lanes stay at one turn and run its program.
            let waiting = either(finished, idle);
            let in_turn = match &w.turns {
                Some(t) if !none(moving) => {
                    let at = t.key(|b| read(&self.vals, q.next[b]), moving);
                    at.is_some() && at == t.key(|b| self.start[b], waiting)
                }
                _ => true,
            };
            idle = if in_turn || started == count { [0; W] } else { waiting };
            let mut restart = [0; W];
            for (k, b) in lanes(waiting).filter(|_| in_turn) {
                if started == count {
                    break;
                }
                started += 1;
                restart[k] |= 1 << b;
                self.lengths[k][b] = 0;
            }
            for (k, b) in lanes(moving) {
                self.lengths[k][b] += 1;
            }
            active = either(minus(active, finished), restart);
            self.advance(q, moving, restart, input0);
        }
        self.flush(p, done);
    }

    /// Counts each of the `moving` lanes' legal moves per role (into `counts`, and the moves
    /// legal in some lane into `legal`), and returns the lanes where some role has none, which
    /// are stuck (the role in `stuck_role`). Where a role's legal moves hold in many lanes each
    /// (a few in 64 or more), the moves are also turned into one bitset per lane (`rows`,
    /// 64 moves × 64 lanes a transposition), which `choose` picks from without a walk.
    #[inline(always)]
    fn count_legal(&mut self, p: &Program, moving: Lanes<W>) -> Lanes<W> {
        let mut stuck = [0; W];
        for (r, moves) in p.role_moves.iter().enumerate() {
            let counts = &mut self.counts[r];
            *counts = [[0; LANES]; W];
            let legal = &mut self.legal[r];
            legal.clear();
            for &m in moves {
                let on = both(read(&self.vals, p.legal[m as usize]), moving);
                if !none(on) {
                    legal.push((m, on));
                }
            }
            let blocks = legal.len().div_ceil(64);
            let held = || legal.iter().flat_map(|(_, on)| on).map(|w| w.count_ones() as usize).sum::<usize>();
            self.dense[r] = legal.len() >= DENSE_MOVES && held() >= blocks * W * DENSE;
            if self.dense[r] {
                let rows = &mut self.rows[r];
                rows.resize(Self::LANES * blocks, 0);
                for (chunk, words) in legal.chunks(64).zip(rows.chunks_exact_mut(Self::LANES)) {
                    let mut block = [[0; W]; 64];
                    for (row, &(_, on)) in block.iter_mut().zip(chunk) {
                        *row = on;
                    }
                    structures::bits::transpose(&mut block);
                    for (b, lanes) in block.iter().enumerate() {
                        for (k, &w) in lanes.iter().enumerate() {
                            words[64 * k + b] = w;
                            counts[k][b] += w.count_ones();
                        }
                    }
                }
            } else {
                for &(_, on) in legal.iter() {
                    for (k, b) in lanes(on) {
                        counts[k][b] += 1;
                    }
                }
            }
            for (k, b) in lanes(minus(moving, stuck)) {
                if counts[k][b] == 0 {
                    stuck[k] |= 1 << b;
                    self.stuck_role[k][b] = r as u32;
                }
            }
        }
        stuck
    }

    /// Sets one legal move per role in each of the `moving` lanes as the step's inputs: the
    /// policy's greedy choice in some lanes, a uniformly random one in the rest (traced where
    /// `TRACE`).
    #[inline(always)]
    fn choose<R: RngCore + ?Sized, const TRACE: bool>(
        &mut self,
        p: &Program,
        moving: Lanes<W>,
        policy: Option<MovePolicy<'_>>,
        rng: &mut R,
    ) {
        let input0 = p.input_slot(0);
        for r in 0..p.role_moves.len() {
            let greedy = match policy {
                Some(policy) => self.choose_greedily(r, moving, policy, rng),
                None => [0; W],
            };
            for (k, b) in lanes(greedy) {
                self.take::<TRACE>(input0, self.best[k][b], (k, b));
            }
            let random = minus(moving, greedy);
            let pick = &mut self.pick;
            for (k, b) in lanes(random) {
                let n = u64::from(self.counts[r][k][b]);
                pick[k][b] = ((u128::from(rng.next_u64()) * u128::from(n)) >> 64) as u32;
            }
            if self.dense[r] {
                // The pick-th set bit of the lane's bitset of legal moves.
                for (k, b) in lanes(random) {
                    let (mut left, mut at) = (self.pick[k][b], 64 * k + b);
                    // The pick is below the lane's count: some word holds it.
                    while self.rows[r][at].count_ones() <= left {
                        left -= self.rows[r][at].count_ones();
                        at += Self::LANES;
                    }
                    let j = at / Self::LANES;
                    let m = self.legal[r][64 * j + structures::bits::select(self.rows[r][at], left) as usize].0;
                    self.take::<TRACE>(input0, m, (k, b));
                }
                continue;
            }
            // The lanes still to choose: once a lane has its move, the later moves pass it by.
            let mut random = random;
            for &(m, on) in &self.legal[r] {
                if none(random) {
                    break;
                }
                // Lanes that stopped since the count are no longer moving.
                let mut chosen = [0; W];
                for (k, b) in lanes(both(on, random)) {
                    if pick[k][b] == 0 {
                        chosen[k] |= 1 << b;
                        if TRACE {
                            self.traces[64 * k + b].push(m);
                        }
                    }
                    pick[k][b] = pick[k][b].wrapping_sub(1);
                }
                if !none(chosen) {
                    random = minus(random, chosen);
                    let slot = &mut self.vals[input0 + m as usize];
                    if none(*slot) {
                        self.chosen.push(m);
                    }
                    *slot = either(*slot, chosen);
                }
            }
        }
    }

    /// Plays move `m` in lane `(k, b)`: sets its input there (traced where `TRACE`).
    #[inline(always)]
    fn take<const TRACE: bool>(&mut self, input0: usize, m: u32, (k, b): (usize, usize)) {
        let slot = &mut self.vals[input0 + m as usize];
        if none(*slot) {
            self.chosen.push(m);
        }
        slot[k] |= 1 << b;
        if TRACE {
            self.traces[64 * k + b].push(m);
        }
    }

    /// Picks the lanes of `moving` where role `r` has a choice and chooses greedily (each with
    /// the policy's chance), and sets their best legal move in `best`.
    fn choose_greedily<R: RngCore + ?Sized>(
        &mut self,
        r: usize,
        moving: Lanes<W>,
        policy: MovePolicy<'_>,
        rng: &mut R,
    ) -> Lanes<W> {
        // f64 to u64 saturates: a chance of 1 is every lane (but for one draw in 2^64).
        let threshold = (policy.greedy * 18_446_744_073_709_551_616.0) as u64;
        let mut greedy = [0; W];
        for (k, b) in lanes(moving) {
            if self.counts[r][k][b] > 1 && rng.next_u64() < threshold {
                greedy[k] |= 1 << b;
                self.best_value[k][b] = f32::NEG_INFINITY;
            }
        }
        if none(greedy) {
            return greedy;
        }
        for &(m, on) in &self.legal[r] {
            // A jitter far below any difference of means breaks ties at random.
            let jitter = (rng.next_u32() >> 8) as f32 * (1e-6 / (1u32 << 24) as f32);
            let v = policy.values.get(m as usize).copied().unwrap_or(0.0) + jitter;
            for (k, b) in lanes(both(on, greedy)) {
                if v > self.best_value[k][b] {
                    self.best_value[k][b] = v;
                    self.best[k][b] = m;
                }
            }
        }
        greedy
    }

    /// How the playout of lane `(k, b)` ended, given the lanes that were `terminal` or at the
    /// step `limit` (stuck otherwise).
    fn end(&self, (k, b): (usize, usize), terminal: Lanes<W>, limit: Lanes<W>) -> PlayoutEnd {
        if terminal[k] >> b & 1 == 1 {
            PlayoutEnd::Terminal
        } else if limit[k] >> b & 1 == 1 {
            PlayoutEnd::StepLimit
        } else {
            PlayoutEnd::NoLegalMove { role: self.stuck_role[k][b] as usize }
        }
    }

    /// Moves the lanes on after a step's move phase, in one sweep over the bases: the `moving`
    /// lanes to their next states, the `restart` lanes to their start states (the others are
    /// cleared); then clears the step's inputs.
    #[inline(always)]
    fn advance(&mut self, q: &Program, moving: Lanes<W>, restart: Lanes<W>, input0: usize) {
        // A next value read from a base's slot is read before that slot is overwritten.
        for &i in &q.next_copies {
            self.next[i as usize] = read(&self.vals, q.next[i as usize]);
        }
        let restarts = !none(restart);
        for (i, &l) in q.next.iter().enumerate() {
            let next = read(&self.vals, l);
            self.vals[Program::base_slot(i)] = if restarts {
                let start = self.start[i];
                either(both(next, moving), both(start, restart))
            } else {
                both(next, moving)
            };
        }
        for &i in &q.next_copies {
            let (i, next, start) = (i as usize, self.next[i as usize], self.start[i as usize]);
            self.vals[Program::base_slot(i)] = either(both(next, moving), both(start, restart));
        }
        // Inputs are left clear between steps, so that a step sets only its chosen moves.
        for &m in &self.chosen {
            self.vals[input0 + m as usize] = [0; W];
        }
        self.chosen.clear();
    }

    /// Moves the finished playout of lane `(k, b)` (its state, end and trace) to the parked
    /// marking, evaluating the goals of all parked playouts once it is full.
    fn park(&mut self, p: &Program, (k, b): (usize, usize), end: PlayoutEnd, done: &mut dyn FnMut(LaneEnd<'_>)) {
        let (at, lane) = (self.parked_count, 64 * k + b);
        let nb = p.base_count();
        let (block, bit) = (&mut self.parked_bases[at / LANES * nb..][..nb], at % LANES);
        for (to, from) in block.iter_mut().zip(&self.vals[1..=nb]) {
            *to = (*to & !(1 << bit)) | ((from[k] >> b & 1) << bit);
        }
        self.parked_ends[at] = (self.lengths[k][b], end, lane);
        // Swapping keeps both vectors' capacity: no allocation once traces have grown.
        std::mem::swap(&mut self.parked_traces[at], &mut self.traces[lane]);
        self.traces[lane].clear();
        self.parked_count += 1;
        if self.parked_count == Self::LANES {
            self.flush(p, done);
        }
    }

    /// Evaluates the goals of the parked playouts and hands them over.
    fn flush(&mut self, p: &Program, done: &mut dyn FnMut(LaneEnd<'_>)) {
        if self.parked_count == 0 {
            return;
        }
        let q = Self::pass(p);
        let nb = q.base_count();
        let roles = q.roles.len();
        let parked = (0..self.parked_count).map(|at| (at / LANES, at % LANES));
        // Playouts whose goals the oracle gives: the goal gates run only for the others.
        let mut unanswered = [0; W];
        parked.clone().for_each(|(k, b)| unanswered[k] |= 1 << b);
        if let Some(oracle) = &self.oracle {
            self.emulated.resize(Self::LANES * roles, 0);
            for (at, (k, b)) in parked.clone().enumerate() {
                if self.parked_ends[at].1 != PlayoutEnd::Terminal {
                    continue;
                }
                self.lane_state.fill(0);
                for (i, w) in self.parked_bases[k * nb..(k + 1) * nb].iter().enumerate() {
                    self.lane_state.assign_bit(i, w >> b & 1 == 1);
                }
                if oracle.goals(&self.lane_state, &mut self.emulated[at * roles..(at + 1) * roles]) {
                    unanswered[k] &= !(1 << b);
                }
            }
        }
        if !none(unanswered) {
            for (i, slot) in self.parked[1..=nb].iter_mut().enumerate() {
                *slot = std::array::from_fn(|k| self.parked_bases[k * nb + i]);
            }
            if q.outputs_read_inputs {
                let input0 = q.input_slot(0);
                self.parked[input0..input0 + q.move_count()].fill([0; W]);
                eval::run(q, Phase::Move, &mut self.parked);
            }
            eval::run(q, Phase::Core, &mut self.parked);
            eval::run(q, Phase::Goal, &mut self.parked);
        }
        for (at, (k, b)) in parked.enumerate() {
            if unanswered[k] >> b & 1 == 0 {
                self.goals.clear();
                self.goals.extend(self.emulated[at * roles..(at + 1) * roles].iter().map(|&v| Ok(v)));
            } else {
                lane_goals(q, &self.parked, (k, b), &mut self.goals);
            }
            let (length, end, origin) = self.parked_ends[at];
            done(LaneEnd {
                origin,
                length,
                end,
                goals: &self.goals,
                trace: &self.parked_traces[at],
                words: &self.parked_bases[k * nb..(k + 1) * nb],
                stride: 1,
                word: 0,
                bit: b,
            });
        }
        self.parked_count = 0;
    }
}

/// Per role, the goal value of lane `b` of word `k`, or why there is not exactly one.
fn lane_goals<const W: usize>(
    p: &Program,
    vals: &[[u64; W]],
    (k, b): (usize, usize),
    out: &mut Vec<Result<u32, MachineError>>,
) {
    out.clear();
    for (r, goals) in p.goals.iter().enumerate() {
        let on = |l: Lit| (vals[(l >> 1) as usize][k] ^ eval::neg_mask(l)) >> b & 1 == 1;
        let mut held = goals.iter().filter(|&&(_, l)| on(l)).map(|&(v, _)| v);
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

/// The indices of the set bits of the bitset `words` (bit i is bit `i % 64` of word `i / 64`),
/// lowest first.
pub(crate) fn ones(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    words.iter().enumerate().flat_map(|(k, &w)| bits(w).map(move |b| k * 64 + b))
}
