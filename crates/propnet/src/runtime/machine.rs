//! [`PropnetMachine`]: the [`StateMachine`] over a compiled net, with fast random playouts.

use super::batch::{BitSliced, LaneEnd, MovePolicy, Onlooker, Step, LANES};
use super::expand::Expansion;
use super::forward::Forward;
use super::paths;
use super::program::Program;
use super::step::Stepper;
use super::watch::Watch;
use super::GoalOracle;
use crate::net::Net;
use machine::perft::{legal_joint_moves, PerftLimits};
use machine::playout::{Playout, PlayoutEnd, PlayoutStats, PlayoutTally};
use machine::{MachineError, PathCount, PathCounter, StateMachine, Successor};
use rand::rngs::SmallRng;
use rand::{RngCore, SeedableRng};
use std::fmt;
use std::sync::Arc;
use std::time::Instant;
use structures::{bits, Bits};

/// Candidates from which a look-ahead tries them 64 a pass over the move gates rather than one
/// at a time by forward propagation: the pass costs a copy of the marking and every move gate,
/// one candidate a few propagated changes. Breakthrough's 20-odd candidates gained 40-60% in
/// MCTS iterations/s; connectFour's seven lost up to a sixth, so it keeps the one-at-a-time way.
pub(crate) const BATCHED_LOOKAHEAD: usize = 8;

/// Words per slot of the marking for long runs of playouts from one state (512 lanes). With
/// vector registers ([`simd`](super::simd)) a pass over eight words costs little more than the
/// portable loop's over four: against four words, breakthrough and
/// connectFour run about a tenth more playouts a second, speedChess a fifth, reversi a third and
/// checkers two thirds.
const WIDE: usize = 8;

/// Words per slot for runs of more playouts than [`WIDE`] has lanes on programs of
/// [`WIDEST_EDGES`] gate inputs or more (1,024 lanes): a pass over chess's 2.2 million costs
/// little more for twice the lanes, and chess, slaughter and skirmish run a fifth to a quarter
/// more playouts a second than eight words wide. Smaller programs lose as much (breakthrough,
/// connectFour and pentago a seventh): the work per lane is then most of a step.
const WIDEST: usize = 16;

/// See [`WIDEST`].
const WIDEST_EDGES: usize = 100_000;

/// The size of net from which wide markings pay: below it a pass over the gates costs less than
/// the work per lane, which wider words do not share (ticTacToe, 178 nodes, loses a sixth of its
/// speed with them; connectFour, 687, gains 7%; quarto, 3,088, a quarter).
pub(crate) const WIDE_SLOTS: usize = 512;

/// A game state: a bitset over the net's base propositions (bit i of word i / 64 is base i).
///
/// It means the same to every machine built from the same net, on any thread.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PropnetState(Box<[u64]>);

impl PropnetState {
    /// The state whose true base propositions are `bases` (indices into [`Net::bases`], each
    /// below `count`, or this panics), for a net with `count` base propositions.
    pub fn from_bases(count: usize, bases: impl IntoIterator<Item = usize>) -> PropnetState {
        let mut words = vec![0u64; bits::words(count)];
        for i in bases {
            words.set_bit(i);
        }
        PropnetState(words.into())
    }

    /// The state whose bitset is `words` (bit i of word i / 64 is base proposition i).
    pub fn from_words(words: Box<[u64]>) -> PropnetState {
        PropnetState(words)
    }

    /// Lane `lane`'s state in bit-sliced `words` (bit `lane` of word i is base proposition i),
    /// for a net with `count` base propositions.
    pub fn from_lane(words: &[u64], count: usize, lane: usize) -> PropnetState {
        PropnetState::from_bases(count, (0..count).filter(|&i| words[i] >> lane & 1 == 1))
    }

    /// Whether base proposition `i` is true.
    pub fn contains(&self, i: usize) -> bool {
        self.0.bit(i)
    }

    /// The indices of the true base propositions, ascending.
    pub fn bases(&self) -> impl Iterator<Item = usize> + '_ {
        super::batch::ones(&self.0)
    }

    /// Makes base proposition `i` (below the net's base count, or this panics) true or false.
    pub fn set(&mut self, i: usize, on: bool) {
        self.0.assign_bit(i, on);
    }

    /// The words of the bitset.
    pub fn words(&self) -> &[u64] {
        &self.0
    }

    /// The words of the bitset, to be written whole.
    pub(crate) fn words_mut(&mut self) -> &mut [u64] {
        &mut self.0
    }
}

impl fmt::Debug for PropnetState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.bases()).finish()
    }
}

/// How random playouts are propagated (both give the same distribution of playouts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Strategy {
    /// 64 playouts at once (256 for runs of more than 64 from one state), one per bit, the
    /// whole net evaluated per step (the faster one).
    #[default]
    BitSliced,
    /// One playout at a time, only the propositions that change propagated.
    Forward,
}

/// One random playout from [`PropnetMachine::depth_charges`], with the joint moves it played.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Charge {
    /// Length, end, goals and final state, as [`machine::random_playout`] reports them.
    pub playout: Playout<PropnetState>,
    /// The joint moves played, one `Vec` per step, indexed by role.
    pub moves: Vec<Vec<u32>>,
}

/// A [`StateMachine`] running a compiled propnet.
///
/// The [`Program`] is shared (`Arc`); the machine holds per-thread scratch, so give each thread
/// its own machine built with [`PropnetMachine::from_program`].
#[derive(Debug, Clone)]
pub struct PropnetMachine {
    program: Arc<Program>,
    /// The single-state marking; its bases are `current`.
    forward: Forward,
    current: Option<PropnetState>,
    batch: Option<BitSliced<1>>,
    /// Scratch for runs of more playouts than one word has lanes (one of the two, by size).
    wide: Option<BitSliced<WIDE>>,
    widest: Option<BitSliced<WIDEST>>,
    depth: Option<Forward>,
    /// Scratch for node expansions ([`StateMachine::successors`]).
    expansion: Expansion,
    strategy: Strategy,
    /// Scratch for forward playouts: the joint move and the next state's words.
    joint: Vec<u32>,
    next: Vec<u64>,
    /// Gives bit-sliced playouts their goals without the goal gates, where set.
    oracle: Option<Arc<dyn GoalOracle>>,
}

impl PropnetMachine {
    /// Compiles `net` and builds a machine for it.
    pub fn new(net: &Net) -> PropnetMachine {
        PropnetMachine::from_program(Arc::new(Program::new(net)))
    }

    /// A machine over an already compiled (shared) program.
    pub fn from_program(program: Arc<Program>) -> PropnetMachine {
        let forward = Forward::new(&program);
        PropnetMachine {
            program,
            forward,
            current: None,
            batch: None,
            wide: None,
            widest: None,
            depth: None,
            expansion: Expansion::default(),
            strategy: Strategy::default(),
            joint: Vec::new(),
            next: Vec::new(),
            oracle: None,
        }
    }

    /// A machine over the same program for another thread, with the same goal oracle (and the
    /// default strategy).
    pub fn sibling(&self) -> PropnetMachine {
        let mut m = PropnetMachine::from_program(Arc::clone(&self.program));
        m.set_goal_oracle(self.oracle.clone());
        m
    }

    /// Lets bit-sliced playouts take the goals of the games they end from `oracle` instead of
    /// the goal gates (which still answer where it does not know).
    pub fn set_goal_oracle(&mut self, oracle: Option<Arc<dyn GoalOracle>>) {
        if let Some(b) = &mut self.batch {
            b.oracle = oracle.clone();
        }
        if let Some(b) = &mut self.wide {
            b.oracle = oracle.clone();
        }
        if let Some(b) = &mut self.widest {
            b.oracle = oracle.clone();
        }
        self.oracle = oracle;
    }

    /// The compiled program (clone the `Arc` to build machines for other threads).
    pub fn program(&self) -> &Arc<Program> {
        &self.program
    }

    /// Chooses how random playouts are propagated.
    pub fn set_strategy(&mut self, strategy: Strategy) {
        self.strategy = strategy;
    }

    /// Brings the single-state marking to `state` (nothing to do when it is already there).
    fn load(&mut self, state: &PropnetState) {
        if self.current.as_ref() != Some(state) {
            self.forward.set_state(&self.program, state.words());
            match &mut self.current {
                // Reuse the words: search loads a new state for nearly every query.
                Some(current) if current.0.len() == state.0.len() => current.0.copy_from_slice(&state.0),
                current => *current = Some(state.clone()),
            }
        }
        if self.program.outputs_read_inputs {
            self.forward.set_moves(&self.program, &[]);
        }
    }

    /// Runs `count` random playouts of at most `max_steps` joint moves from the initial state,
    /// moves drawn from a [`SmallRng`] seeded with `seed`: the same statistics as
    /// [`machine::run_playouts`], reproducible for a given seed and strategy.
    pub fn run_playouts(&mut self, count: u64, seed: u64, max_steps: u32) -> Result<PlayoutStats, MachineError> {
        let start = Instant::now();
        let mut rng = SmallRng::seed_from_u64(seed);
        let initial = self.initial_state();
        let mut tally = PlayoutTally::new(self.program.roles.len());
        self.playouts(&initial, count, &mut rng, max_steps, &mut tally);
        Ok(tally.stats(self.program.roles.clone(), seed, start.elapsed()))
    }

    /// Adds `count` random playouts of at most `max_steps` joint moves from `from` to `tally`,
    /// allocating nothing per step (the path for search).
    pub fn playouts<R: RngCore + ?Sized>(
        &mut self,
        from: &PropnetState,
        count: u64,
        rng: &mut R,
        max_steps: u32,
        tally: &mut PlayoutTally,
    ) {
        let mut record = Playout { length: 0, end: PlayoutEnd::Terminal, goals: Vec::new(), final_state: () };
        let mut add = |length: u32, end: PlayoutEnd, goals: &[Result<u32, MachineError>]| {
            record.length = length;
            record.end = end;
            record.goals.clear();
            record.goals.extend_from_slice(goals);
            tally.add(&record);
        };
        match self.strategy {
            Strategy::BitSliced => {
                let mut done = |e: LaneEnd<'_>| add(e.length, e.end, e.goals);
                self.bit_sliced::<R, false>(from, count, rng, max_steps, &mut done);
            }
            Strategy::Forward => {
                let mut goals = Vec::new();
                for _ in 0..count {
                    let (length, end) = self.forward_charge(from, rng, max_steps, None);
                    let depth = self.depth.as_mut().expect("set by forward_charge");
                    forward_goals(&self.program, depth, &mut goals);
                    add(length, end, &goals);
                }
            }
        }
    }

    /// Random play from `from`, 64 playouts at a time and at most `count` in all, each of at most
    /// `max_steps` joint moves, showing `step` every joint transition as it happens (for analyses
    /// that watch how states change); play stops as soon as `step` returns false.
    pub fn watch_transitions<R: RngCore + ?Sized>(
        &mut self,
        from: &PropnetState,
        count: u64,
        rng: &mut R,
        max_steps: u32,
        step: &mut dyn FnMut(Step<'_>) -> bool,
    ) {
        let p = &*self.program;
        let batch = self.batch.get_or_insert_with(|| BitSliced::with_oracle(p, &self.oracle));
        let step = &mut |now: &[[u64; 1]], next: &[[u64; 1]], [moving]: [u64; 1]| {
            step(Step { now: now.as_flattened(), next: next.as_flattened(), moving })
        };
        batch.run::<R, false>(p, from.words(), count, rng, max_steps, &mut |_| {}, Onlooker::Transitions(step));
    }

    /// Plays one playout of at most `max_steps` joint moves from each of `starts` (the first 64),
    /// all together bit-sliced, and hands each to `done` as it ends, with [`LaneEnd::origin`] the
    /// index of its start state (and with `trace`, its moves). Moves are uniformly random, or
    /// chosen by `policy` where there is one. `go_on` is asked before every joint step; once it
    /// says no, play stops and the playouts still running are not reported (for search that
    /// must stop at a deadline).
    #[allow(clippy::too_many_arguments)]
    pub fn playout_each<R: RngCore + ?Sized>(
        &mut self,
        starts: &[&PropnetState],
        rng: &mut R,
        max_steps: u32,
        trace: bool,
        policy: Option<MovePolicy<'_>>,
        go_on: &mut dyn FnMut() -> bool,
        done: &mut dyn FnMut(LaneEnd<'_>),
    ) {
        let mut words = [&[][..]; LANES];
        for (w, s) in words.iter_mut().zip(starts) {
            *w = s.words();
        }
        let words = &words[..starts.len().min(LANES)];
        let p = &*self.program;
        let batch = self.batch.get_or_insert_with(|| BitSliced::with_oracle(p, &self.oracle));
        if trace {
            batch.run_each::<R, true>(p, words, rng, max_steps, policy, done, Onlooker::GoOn(go_on));
        } else {
            batch.run_each::<R, false>(p, words, rng, max_steps, policy, done, Onlooker::GoOn(go_on));
        }
    }

    /// Plays `count` random playouts from `from` and returns each with its moves (for tests and
    /// analysis; allocates).
    pub fn depth_charges<R: RngCore + ?Sized>(
        &mut self,
        from: &PropnetState,
        count: u64,
        rng: &mut R,
        max_steps: u32,
    ) -> Vec<Charge> {
        let roles = self.program.roles.len();
        let mut out = Vec::new();
        match self.strategy {
            Strategy::BitSliced => {
                let mut done = |e: LaneEnd<'_>| {
                    let state = e.final_state();
                    out.push(Charge {
                        playout: Playout { length: e.length, end: e.end, goals: e.goals.to_vec(), final_state: state },
                        moves: e.trace.chunks(roles.max(1)).map(<[u32]>::to_vec).collect(),
                    });
                };
                self.bit_sliced::<R, true>(from, count, rng, max_steps, &mut done);
            }
            Strategy::Forward => {
                for _ in 0..count {
                    let mut moves = Vec::new();
                    let (length, end) = self.forward_charge(from, rng, max_steps, Some(&mut moves));
                    let depth = self.depth.as_mut().expect("set by forward_charge");
                    let mut goals = Vec::new();
                    forward_goals(&self.program, depth, &mut goals);
                    let final_state = forward_state(&self.program, depth);
                    out.push(Charge {
                        playout: Playout { length, end, goals, final_state },
                        moves: moves.chunks(roles.max(1)).map(<[u32]>::to_vec).collect(),
                    });
                }
            }
        }
        out
    }

    /// Runs `count` bit-sliced playouts from `from`, one word wide or, for more playouts than
    /// one word has lanes on a net of [`WIDE_SLOTS`] slots or more, [`WIDE`] words, or
    /// [`WIDEST`] for more than those have on programs of [`WIDEST_EDGES`] gate inputs or more.
    fn bit_sliced<R: RngCore + ?Sized, const TRACE: bool>(
        &mut self,
        from: &PropnetState,
        count: u64,
        rng: &mut R,
        max_steps: u32,
        done: &mut dyn FnMut(LaneEnd<'_>),
    ) {
        let p = &*self.program;
        let wide = count > LANES as u64 && p.slots >= WIDE_SLOTS;
        if wide && count > (LANES * WIDE) as u64 && p.stats.edges >= WIDEST_EDGES {
            let batch = self.widest.get_or_insert_with(|| BitSliced::with_oracle(p, &self.oracle));
            batch.run::<R, TRACE>(p, from.words(), count, rng, max_steps, done, Onlooker::Nobody);
        } else if wide {
            let batch = self.wide.get_or_insert_with(|| BitSliced::with_oracle(p, &self.oracle));
            batch.run::<R, TRACE>(p, from.words(), count, rng, max_steps, done, Onlooker::Nobody);
        } else {
            let batch = self.batch.get_or_insert_with(|| BitSliced::with_oracle(p, &self.oracle));
            batch.run::<R, TRACE>(p, from.words(), count, rng, max_steps, done, Onlooker::Nobody);
        }
    }

    /// One playout by forward propagation on the playout marking; leaves it on the final state.
    fn forward_charge<R: RngCore + ?Sized>(
        &mut self,
        from: &PropnetState,
        rng: &mut R,
        max_steps: u32,
        mut trace: Option<&mut Vec<u32>>,
    ) -> (u32, PlayoutEnd) {
        let p = &*self.program;
        let depth = self.depth.get_or_insert_with(|| Forward::new(p));
        let next = &mut self.next;
        next.resize(p.base_count().div_ceil(64), 0);
        depth.set_state(p, from.words());
        let mut length = 0;
        loop {
            if p.outputs_read_inputs {
                depth.set_moves(p, &[]);
            }
            if depth.lit(p.terminal) {
                return (length, PlayoutEnd::Terminal);
            }
            if length >= max_steps {
                return (length, PlayoutEnd::StepLimit);
            }
            self.joint.clear();
            for (r, moves) in p.role_moves.iter().enumerate() {
                let n = moves.iter().filter(|&&m| depth.lit(p.legal[m as usize])).count() as u64;
                if n == 0 {
                    return (length, PlayoutEnd::NoLegalMove { role: r });
                }
                let mut k = ((u128::from(rng.next_u64()) * u128::from(n)) >> 64) as usize;
                for &m in moves {
                    if depth.lit(p.legal[m as usize]) {
                        if k == 0 {
                            self.joint.push(m);
                            break;
                        }
                        k -= 1;
                    }
                }
            }
            if let Some(t) = trace.as_deref_mut() {
                t.extend_from_slice(&self.joint);
            }
            depth.set_moves(p, &self.joint);
            next.copy_from_slice(depth.next());
            depth.set_state(p, next);
            length += 1;
        }
    }

    /// The next values of the bases `watch` after each of `candidates` (legal moves of `role` in
    /// `state`, not checked: on a net cut by [`crate::cut::to_next`] nothing is legal),
    /// the other roles playing their moves in `joint`. Candidate k's bits are
    /// `out[k * w..(k + 1) * w]` with `w = watch.bases().len().div_ceil(64)`, bit j the next
    /// value of `watch.bases()[j]`. Much cheaper than a `next_state` per candidate, which is what
    /// lets playouts look one move ahead: from [`BATCHED_LOOKAHEAD`] candidates on they are
    /// tried 64 a pass over the move gates (the state copied into every lane), fewer one at a
    /// time, each propagating only what its move changes. `watch` must be made for this
    /// machine's program, or this panics.
    pub fn lookahead(
        &mut self,
        state: &PropnetState,
        joint: &[u32],
        role: usize,
        candidates: &[u32],
        watch: &Watch,
        out: &mut Vec<u64>,
    ) {
        assert!(watch.fits(self.program.slots), "a watch made for another program");
        self.load(state);
        let p = &*self.program;
        let w = watch.bases().len().div_ceil(64);
        out.clear();
        out.resize(candidates.len() * w, 0);
        if candidates.len() >= BATCHED_LOOKAHEAD && !p.outputs_read_inputs {
            self.expansion.lookahead(p, &self.forward, joint, role, candidates, &watch.lits, out, w);
        } else {
            self.lookahead_one_by_one(joint, role, candidates, watch, out);
        }
    }

    /// [`lookahead`](Self::lookahead) one candidate at a time, the state loaded and `out` sized
    /// and zeroed: each candidate after the first costs what its move changes.
    pub(crate) fn lookahead_one_by_one(
        &mut self,
        joint: &[u32],
        role: usize,
        candidates: &[u32],
        watch: &Watch,
        out: &mut [u64],
    ) {
        let p = &*self.program;
        let w = watch.bases().len().div_ceil(64);
        self.joint.clear();
        self.joint.extend_from_slice(joint);
        for (k, &c) in candidates.iter().enumerate() {
            self.joint[role] = c;
            self.forward.set_moves(p, &self.joint);
            let (done, row) = out.split_at_mut(k * w);
            let row = &mut row[..w];
            let f = &self.forward;
            let set = |row: &mut [u64], j: usize| row.assign_bit(j, f.lit(watch.lits[j]));
            if k == 0 {
                (0..watch.lits.len()).for_each(|j| set(row, j));
            } else {
                row.copy_from_slice(&done[(k - 1) * w..]);
                for s in f.changed() {
                    watch.reading(s).for_each(|j| set(row, j));
                }
            }
        }
    }

    /// The printed name of base proposition `i`.
    pub fn base_name(&self, i: usize) -> Option<&str> {
        self.program.base_names.get(i).map(String::as_str)
    }

    /// The move (input index) of `role` printed as `name`, if the net has it.
    pub fn find_move(&self, role: usize, name: &str) -> Option<u32> {
        self.program.role_moves.get(role)?.iter().copied().find(|&m| self.program.move_names[m as usize] == name)
    }

    /// The role a move belongs to.
    pub fn move_role(&self, mv: u32) -> Option<usize> {
        self.program.move_role.get(mv as usize).map(|&r| r as usize)
    }
}

/// The goals of the final state of a forward playout.
fn forward_goals(p: &Program, f: &mut Forward, out: &mut Vec<Result<u32, MachineError>>) {
    f.refresh_goals(p);
    out.clear();
    for (r, goals) in p.goals.iter().enumerate() {
        let mut held = goals.iter().filter(|&&(_, l)| f.lit(l)).map(|&(v, _)| v);
        out.push(match (held.next(), held.next()) {
            (Some(v), None) => Ok(v),
            (None, _) => Err(MachineError::NoGoal { role: p.roles[r].clone() }),
            (Some(a), Some(b)) => {
                let values = [a, b].into_iter().chain(held).collect();
                Err(MachineError::AmbiguousGoal { role: p.roles[r].clone(), values })
            }
        });
    }
}

/// The bases of a forward marking as a state.
fn forward_state(p: &Program, f: &Forward) -> PropnetState {
    PropnetState::from_bases(
        p.base_count(),
        (0..p.base_count()).filter(|&i| f.lit((Program::base_slot(i) as u32) << 1)),
    )
}

impl StateMachine for PropnetMachine {
    type State = PropnetState;
    type Move = u32;

    fn roles(&self) -> &[String] {
        &self.program.roles
    }

    fn initial_state(&mut self) -> PropnetState {
        let p = &self.program;
        PropnetState::from_bases(p.base_count(), (0..p.base_count()).filter(|&i| p.init[i]))
    }

    fn legal_moves(&mut self, state: &PropnetState, role: usize) -> Result<Vec<u32>, MachineError> {
        self.load(state);
        let p = &self.program;
        if role >= p.roles.len() {
            return Err(MachineError::Rules(format!("no role {role}")));
        }
        let legal = super::batch::ones(self.forward.legal()).map(|m| m as u32);
        Ok(legal.filter(|&m| p.move_role[m as usize] as usize == role).collect())
    }

    fn next_state(&mut self, state: &PropnetState, moves: &[u32]) -> Result<PropnetState, MachineError> {
        let roles = self.program.roles.len();
        if moves.len() != roles {
            return Err(MachineError::WrongMoveCount { expected: roles, got: moves.len() });
        }
        self.load(state);
        let p = Arc::clone(&self.program);
        for (role, &m) in moves.iter().enumerate() {
            let ok = p.move_role.get(m as usize) == Some(&(role as u32)) && self.forward.lit(p.legal[m as usize]);
            if !ok {
                let mv = p.move_names.get(m as usize).cloned().unwrap_or_else(|| format!("#{m}"));
                return Err(MachineError::IllegalMove { role: p.roles[role].clone(), mv });
            }
        }
        self.forward.set_moves(&p, moves);
        Ok(PropnetState::from_words(self.forward.next().into()))
    }

    fn is_terminal(&mut self, state: &PropnetState) -> Result<bool, MachineError> {
        self.load(state);
        Ok(self.forward.lit(self.program.terminal))
    }

    fn goal_values(&mut self, state: &PropnetState, role: usize) -> Result<Vec<u32>, MachineError> {
        self.load(state);
        self.forward.refresh_goals(&self.program);
        let goals = self.program.goals.get(role).ok_or_else(|| MachineError::Rules(format!("no role {role}")))?;
        Ok(goals.iter().filter(|&&(_, l)| self.forward.lit(l)).map(|&(v, _)| v).collect())
    }

    /// 64 joint moves a pass (see [`Expansion`]).
    fn successors(&mut self, state: &PropnetState) -> Result<Vec<Successor<PropnetState, u32>>, MachineError> {
        let p = Arc::clone(&self.program);
        if p.outputs_read_inputs {
            return machine::successors_one_by_one(self, state);
        }
        let joints: Vec<Vec<u32>> = legal_joint_moves(self, state)?.collect();
        let next = self.expansion.successors(&p, &self.forward, &joints);
        Ok(joints
            .into_iter()
            .zip(next)
            .map(|(joint, (state, terminal))| Successor { joint, state, terminal })
            .collect())
    }

    /// Many nodes a pass in a [`Stepper`]'s lanes (see `paths`), where the program can be
    /// stepped; node by node otherwise.
    fn count_paths(&mut self, max_depth: u32, limits: &PerftLimits) -> Result<PathCount, MachineError> {
        let Some(stepper) = Stepper::new(Arc::clone(&self.program)) else {
            return machine::perft_depth_first(self, max_depth, limits);
        };
        let mut counter = PathCounter::new(max_depth, limits);
        let root = self.initial_state();
        let cut = if max_depth == 0 || self.is_terminal(&root)? {
            None
        } else {
            paths::count_paths(stepper, &root, &mut counter).err()
        };
        Ok(counter.finish(cut))
    }

    /// The bit-sliced (or forward) playouts of [`PropnetMachine::run_playouts`].
    fn run_playouts(&mut self, count: u64, seed: u64, max_steps: u32) -> Result<PlayoutStats, MachineError> {
        PropnetMachine::run_playouts(self, count, seed, max_steps)
    }

    fn format_move(&self, mv: &u32) -> String {
        self.program.move_names.get(*mv as usize).cloned().unwrap_or_else(|| format!("#{mv}"))
    }

    fn state_props(&self, state: &PropnetState) -> Vec<String> {
        let p = &self.program;
        p.base_order
            .iter()
            .filter(|&&i| state.contains(i as usize))
            .map(|&i| p.base_names[i as usize].clone())
            .collect()
    }
}
