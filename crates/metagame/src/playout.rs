//! Playouts: on a propnet bit-sliced, up to 64 at a time, or one at a time steered by what the
//! player knows (the goal latches, the tactics' decisive and anti-decisive moves, the pieces'
//! captures), stepped by forward propagation or with the mover's candidates in a stepper's lanes,
//! whichever is faster on the game; on any other machine one uniformly random playout at a time. The tree search
//! plays its leaves out with them, and the learning during the start clock plays its games
//! with them, so that what it learns is about the games the search will sample.

pub use crate::knowledge::{score, scores};
use crate::knowledge::{Captures, Knowledge};
use crate::pace::Pace;
use analysis::ScoreRange;
use machine::playout::PlayoutEnd;
use machine::{MachineError, StateMachine};
use propnet::{MovePolicy, Program, PropnetMachine, PropnetState, Stepper};
use rand::rngs::SmallRng;
use rand::Rng;
use std::sync::Arc;
use std::time::Instant;
use structures::bits;
use structures::Bits;

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

/// A playing thread's tools for guided playouts, made at its first one: machines over the
/// knowledge's cut nets, and the moves it has seen end a game.
#[derive(Debug, Default)]
pub struct Lookahead {
    machines: Option<Machines>,
    /// Which way playouts step: one state at a time, or 64 candidates a pass.
    pace: Pace,
    /// One bit per move (input): the moves that have ended a game (or decided its scores by
    /// latches) when played. Only they are judged as candidates for a decisive move, since a
    /// move that never ends a game costs a lookahead and cannot win at once.
    ending: Vec<u64>,
    /// Guided playouts finished, and those in which the tactics changed a move.
    playouts: u64,
    fired: u64,
}

/// The machines a guided playout looks ahead with: over the bases the tactics watch, over the
/// end, and over the pieces.
#[derive(Debug)]
struct Machines {
    look: PropnetMachine,
    judge: Option<PropnetMachine>,
    capture: Option<PropnetMachine>,
    /// The game's net stepped 64 candidates a pass, where it can be (see [`stepper_for`]).
    stepper: Option<Stepper>,
}

/// The most moves (inputs) a game may have for its playouts to step with a [`Stepper`]: each
/// step lists the legal moves by reading every input's legal literal.
const STEPPER_MOVES: usize = 4096;

/// A stepper over `program`, where the game's moves are few enough and its outputs do not read
/// the moves.
fn stepper_for(program: &Arc<Program>) -> Option<Stepper> {
    (program.move_count() <= STEPPER_MOVES).then(|| Stepper::new(Arc::clone(program))).flatten()
}

impl Lookahead {
    /// Tools that step every playout one state at a time by forward propagation, never 64
    /// candidates a pass: the same playouts (for comparison).
    pub fn one_state_at_a_time() -> Lookahead {
        Lookahead { pace: Pace::fixed(false), ..Lookahead::default() }
    }

    /// Tools that step every playout 64 candidates a pass wherever a stepper can: the same
    /// playouts (for comparison).
    pub fn stepped() -> Lookahead {
        Lookahead { pace: Pace::fixed(true), ..Lookahead::default() }
    }

    /// Guided playouts played so far, and those in which the tactics changed a move.
    pub fn counts(&self) -> (u64, u64) {
        (self.playouts, self.fired)
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

/// Where a playout can go back to: the state before the last joint move, when one role alone
/// chose it, with that role's moves not tried there yet.
struct Rewind {
    state: PropnetState,
    joint: Vec<u32>,
    role: usize,
    untried: Vec<u32>,
}

/// Random play from `start` where each role, given the others' random moves, looks one move
/// ahead: at the goal latches, it never plays a move that lowers its highest achievable score
/// while it has another, and always plays one that raises its lowest when it can (Sancho's crude
/// but effective weighting: a king that can be captured is captured); at the game's end (with
/// the knowledge's tactics, or where the end is cheap to judge), it plays a move that secures its
/// highest score (a decisive move) and avoids one that ends the game below it. With tactics, a
/// move after which the next mover has a decisive move is taken back and another tried in its
/// place while there is one (anti-decisive), and only moves that have ended a game before are
/// judged. With the knowledge's pieces and `s.captures`, a role then plays, with that chance, the
/// move among those ranked best that leaves it the most material ahead. A state whose scores
/// the latches decide ends the playout; with a cutoff in `s` and the knowledge's pieces, so does
/// the cutoff's step, scored by the piece balance since the root.
///
/// The playout steps one state at a time or 64 candidates a pass, whichever `lookahead` has
/// found faster on this game (see `Pace`): the same playout either way.
pub fn guided(
    m: &mut PropnetMachine,
    lookahead: &mut Lookahead,
    start: &PropnetState,
    knowledge: &Knowledge,
    rng: &mut SmallRng,
    s: &Settings,
) -> Result<Option<Outcome<u32>>, MachineError> {
    let stepped = lookahead.pace.stepped();
    let began = Instant::now();
    let (outcome, steps) = guided_by(m, lookahead, start, knowledge, rng, s, stepped)?;
    lookahead.pace.record(stepped, steps, began.elapsed());
    Ok(outcome)
}

/// [`guided`], stepped by a stepper where `by_lanes` and one can take the game; also the joint
/// moves played.
fn guided_by(
    m: &mut PropnetMachine,
    lookahead: &mut Lookahead,
    start: &PropnetState,
    knowledge: &Knowledge,
    rng: &mut SmallRng,
    s: &Settings,
    by_lanes: bool,
) -> Result<(Option<Outcome<u32>>, u32), MachineError> {
    let Machines { look, judge, capture, stepper } = match &mut lookahead.machines {
        Some(machines) => machines,
        none => {
            let machine = |p: &Arc<Program>| PropnetMachine::from_program(Arc::clone(p));
            none.insert(Machines {
                look: machine(&knowledge.next),
                judge: knowledge.outcome.as_ref().map(machine),
                capture: knowledge.captures.as_ref().map(|c| machine(&c.next)),
                stepper: stepper_for(m.program()),
            })
        }
    };
    // A stepper made for another game's net is not used.
    let mut stepper = stepper.as_mut().filter(|st| by_lanes && Arc::ptr_eq(st.program(), m.program()));
    let mut captures = knowledge.captures.as_ref().zip(capture.as_mut()).filter(|_| s.captures > 0.0);
    let ending = &mut lookahead.ending;
    let fired_count = &mut lookahead.fired;
    lookahead.playouts += 1;
    let roles = m.roles().len();
    // The root's material, once per playout, where the playout may stop early.
    let cutoff = s
        .cutoff
        .as_ref()
        .zip(knowledge.pieces.as_ref())
        .map(|(c, p)| (c.steps, p.balance(&c.root, &c.root, c.placement)));
    let mut state = start.clone();
    let mut moves = Vec::new();
    let mut joint = vec![0u32; roles];
    let mut legal: Vec<Vec<u32>> = vec![Vec::new(); roles];
    // Per role, whether it chose the last joint move (had more than one legal move).
    let mut chose = vec![false; roles];
    let mut rewind: Option<Rewind> = None;
    let mut x = Scratch::new(start);
    // Whether the stepper's lanes hold `state` (with its state gates): from the start, so that
    // the first step's terminal flag and legal moves are read from them too.
    let mut stepped = false;
    if let Some(st) = stepper.as_deref_mut() {
        st.load(&state);
        stepped = true;
    }
    let mut steps = 0u32;
    // Whether the tactics changed a move yet, counted once per playout.
    let mut fired = false;
    let mut fire = |fired_count: &mut u64| {
        *fired_count += u64::from(!fired);
        fired = true;
    };
    loop {
        // The state's terminal flag and legal moves from the stepper's lanes where they hold it.
        let here = stepper.as_deref().filter(|_| stepped);
        let terminal = match here {
            Some(st) => st.terminal() & 1 == 1,
            None => m.is_terminal(&state)?,
        };
        let decided = if terminal { None } else { knowledge.decided(state.words()) };
        if terminal || decided.is_some() {
            if steps > 0 {
                for r in (0..roles).filter(|&r| chose[r]) {
                    bits::insert(ending, joint[r] as usize);
                }
            }
            let scores = match (decided, stepper.as_deref_mut().filter(|_| stepped)) {
                (Some(decided), _) => decided.iter().map(|&v| v.min(100) as u8).collect(),
                // The goals of the state the lanes hold, unless the emulator knows them.
                (None, Some(st)) => knowledge.emulated_scores(state.words()).unwrap_or_else(|| {
                    st.refresh_goals();
                    (0..roles).map(|r| st.score(0, r).min(100) as u8).collect()
                }),
                (None, None) => knowledge.scores(m, &state, Some(state.words())),
            };
            return Ok((Some(Outcome { scores, complete: true, moves, steps }), steps));
        }
        if steps >= s.max_steps {
            return Ok((Some(Outcome { scores: scores(m, &state), complete: false, moves, steps }), steps));
        }
        if let Some((_, balance)) = cutoff.as_ref().filter(|(at, _)| steps >= *at) {
            let scores = (0..roles).map(|r| (balance.value(state.words(), r) * 100.0).round() as u8).collect();
            return Ok((Some(Outcome { scores, complete: false, moves, steps }), steps));
        }
        if steps & (CLOCK_EVERY - 1) == 0 && s.out_of_time() {
            return Ok((None, steps));
        }
        for (r, l) in legal.iter_mut().enumerate() {
            match here {
                Some(st) => st.legal_moves(0, r, l),
                None => *l = m.legal_moves(&state, r)?,
            }
            if l.is_empty() {
                return Ok((Some(Outcome { scores: scores(m, &state), complete: false, moves, steps }), steps));
            }
            joint[r] = match &s.mast {
                Some(policy) => policy.pick(l, rng),
                None => l[rng.random_range(0..l.len())],
            };
            chose[r] = l.len() > 1;
        }
        // One role with a choice (or none) and at most 64 moves: every move of it expanded in
        // the stepper's lanes, which then answer the look-aheads and give the next state.
        let mut choosers = (0..roles).filter(|&r| legal[r].len() > 1);
        let mover = match (choosers.next(), choosers.next()) {
            (None, _) => Some(0),
            (Some(r), None) => Some(r),
            _ => None,
        };
        let mut lanes = stepper.as_deref_mut().zip(mover).filter(|&(_, r)| legal[r].len() <= Stepper::LANES);
        if let Some((st, r)) = lanes.as_mut() {
            if !stepped {
                st.load(&state);
                stepped = true;
            }
            st.expand(&joint, *r, &legal[*r]);
        }
        let mut lanes = lanes.map(|(st, _)| st);
        let mut winner = None;
        for (r, l) in legal.iter().enumerate().filter(|(_, l)| l.len() > 1) {
            let best =
                x.rank_moves(look, judge.as_mut(), lanes.as_deref_mut(), knowledge, ending, &state, &joint, r, l)?;
            if let Some(mv) = redraw(l, &x.tiers, joint[r], rng) {
                if knowledge.tactics {
                    fire(fired_count);
                }
                joint[r] = mv;
            }
            if let Some((c, cm)) = captures.as_mut().filter(|_| best < 2 && rng.random_bool(s.captures)) {
                x.capture(c, cm, lanes.as_deref(), &state, &mut joint, r, l, best, rng);
            }
            // The mover secures its best score: the game is as good as won.
            if best == 2 {
                winner = Some(r);
            }
        }
        if let Some(w) = winner.filter(|_| knowledge.tactics) {
            if let Some(back) = rewind.as_mut().filter(|b| b.role != w && !b.untried.is_empty()) {
                // The last move let the next mover win at once: play another in its place.
                fire(fired_count);
                let alternative = back.untried.swap_remove(rng.random_range(0..back.untried.len()));
                joint.clone_from(&back.joint);
                joint[back.role] = alternative;
                chose.iter_mut().enumerate().for_each(|(r, c)| *c = r == back.role);
                match stepper.as_deref_mut() {
                    // Back in the stepper's lanes: the state before, its one candidate expanded.
                    Some(st) => {
                        st.load(&back.state);
                        st.expand(&joint, back.role, &[alternative]);
                        st.state_into(0, &mut state);
                        st.choose(0);
                        stepped = true;
                    }
                    None => state = m.next_state(&back.state, &joint)?,
                }
                if s.trace {
                    let n = moves.len() - roles;
                    moves.truncate(n);
                    moves.extend_from_slice(&joint);
                }
                continue;
            }
        }
        rewind = Rewind::before(rewind.take(), knowledge.tactics, &chose, &state, &joint, &legal);
        match (lanes, mover) {
            (Some(st), Some(r)) => {
                let lane = legal[r].iter().position(|&mv| mv == joint[r]).expect("the mover plays a legal move");
                st.state_into(lane, &mut state);
                st.choose(lane);
            }
            _ => {
                state = m.next_state(&state, &joint)?;
                stepped = false;
            }
        }
        if s.trace {
            moves.extend_from_slice(&joint);
        }
        steps += 1;
    }
}

impl Rewind {
    /// Where a playout with tactics (`tactics`) can go back to once `joint` is played from
    /// `state` (`legal` the roles' moves there, `chose` which roles had a choice): there, if one
    /// role alone chose, with its other moves untried; `None` otherwise. `previous`'s buffers
    /// are reused.
    fn before(
        previous: Option<Rewind>,
        tactics: bool,
        chose: &[bool],
        state: &PropnetState,
        joint: &[u32],
        legal: &[Vec<u32>],
    ) -> Option<Rewind> {
        if !tactics || chose.iter().filter(|&&c| c).count() != 1 {
            return None;
        }
        let role = chose.iter().position(|&c| c).expect("one role chose");
        let mut back =
            previous.unwrap_or_else(|| Rewind { state: state.clone(), joint: Vec::new(), role, untried: Vec::new() });
        back.state.clone_from(state);
        back.joint.clear();
        back.joint.extend_from_slice(joint);
        back.role = role;
        back.untried.clear();
        back.untried.extend(legal[role].iter().copied().filter(|&mv| mv != joint[role]));
        Some(back)
    }
}

/// The buffers a guided playout reuses from step to step.
struct Scratch {
    /// The watched bases' next values, candidate by candidate.
    bits: Vec<u64>,
    /// Indices of the candidates ranked, into a role's legal moves.
    candidates: Vec<usize>,
    /// The candidates' moves.
    chosen: Vec<u32>,
    /// Per legal move, its tier.
    tiers: Vec<i8>,
    /// Per candidate, the material the mover would lead by after it.
    leads: Vec<i64>,
    /// A candidate's next state as far as the ranking reads it: the watched bases, all set for
    /// every candidate ranked, so the other bits need not follow the playout.
    after: PropnetState,
}

impl Scratch {
    fn new(start: &PropnetState) -> Scratch {
        Scratch {
            bits: Vec::new(),
            candidates: Vec::new(),
            chosen: Vec::new(),
            tiers: Vec::new(),
            leads: Vec::new(),
            after: start.clone(),
        }
    }

    /// Ranks role `r`'s legal moves `l` in `state`, the others playing `joint`, into `tiers`,
    /// and returns the best tier. Without tactics the judge (`judge`, over the end) ranks every
    /// candidate, latches included, in one pass; with them the goal latches rank every
    /// candidate (looked at with `look`) by the latch bases alone, and the end is judged only
    /// for candidates that have ended a game before (`ending`). Where `lanes` hold every move
    /// of `l` expanded (lane k: `l[k]`), they answer in place of `look` and `judge`.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn rank_moves(
        &mut self,
        look: &mut PropnetMachine,
        judge: Option<&mut PropnetMachine>,
        lanes: Option<&mut Stepper>,
        knowledge: &Knowledge,
        ending: &[u64],
        state: &PropnetState,
        joint: &[u32],
        r: usize,
        l: &[u32],
    ) -> Result<i8, MachineError> {
        let goals = &knowledge.goals;
        let now = goals.range(state.words(), r);
        self.tiers.clear();
        self.tiers.resize(l.len(), 0);
        // Lanes say which candidates end the game and with what score, so the judge's watch is
        // needed only for the latches: every candidate is ranked by them here.
        if !goals.is_empty() && (knowledge.tactics || judge.is_none() || lanes.is_some()) {
            self.candidates.clear();
            self.candidates.extend(0..l.len());
            let bases = knowledge.latch_watch.bases();
            match lanes.as_deref() {
                Some(st) => watched(st, &self.candidates, bases, &mut self.bits),
                None => {
                    pick(l, &self.candidates, &mut self.chosen);
                    look.lookahead(state, joint, r, &self.chosen, &knowledge.latch_watch, &mut self.bits);
                }
            }
            rank(&mut self.tiers, &self.candidates, &self.bits, bases, &mut self.after, |after| {
                Ok(tier(now, goals.range(after.words(), r)))
            })?;
        }
        if let Some(j) = judge {
            self.candidates.clear();
            self.candidates.extend((0..l.len()).filter(|&k| !knowledge.tactics || ending.bit(l[k] as usize)));
            if !self.candidates.is_empty() {
                match lanes {
                    // A candidate that ends the game ranks by its score; the others keep their
                    // tier by the latches (without latches every range is the full one, `now`).
                    Some(st) => {
                        let ended = self.candidates.iter().fold(0u64, |m, &k| m | 1 << k) & st.terminal();
                        if ended != 0 {
                            st.refresh_goals();
                        }
                        for &k in &self.candidates {
                            let then = match ended >> k & 1 == 1 {
                                true => {
                                    let v = st.score(k, r).min(100);
                                    Some(ScoreRange { min: v, max: v })
                                }
                                false if goals.is_empty() => now,
                                false => continue,
                            };
                            self.tiers[k] = tier(now, then);
                        }
                    }
                    None => {
                        let bases = knowledge.watch.bases();
                        pick(l, &self.candidates, &mut self.chosen);
                        look.lookahead(state, joint, r, &self.chosen, &knowledge.watch, &mut self.bits);
                        rank(&mut self.tiers, &self.candidates, &self.bits, bases, &mut self.after, |after| {
                            // A candidate that ended the game: its score by the judge.
                            let then = match j.is_terminal(after)? {
                                true => {
                                    let v = u32::from(score(&j.goal(after, r)));
                                    Some(ScoreRange { min: v, max: v })
                                }
                                false => goals.range(after.words(), r),
                            };
                            Ok(tier(now, then))
                        })?;
                    }
                }
            }
        }
        Ok(self.tiers.iter().copied().max().unwrap_or(0))
    }

    /// Replaces role `r`'s move in `joint` by the one among its legal moves `l` ranked `best`
    /// that leaves it the most material ahead (looked at with `cm` over `c`'s watch), drawn
    /// uniformly among the equals, unless its move is one of them.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn capture(
        &mut self,
        c: &Captures,
        cm: &mut PropnetMachine,
        lanes: Option<&Stepper>,
        state: &PropnetState,
        joint: &mut [u32],
        r: usize,
        l: &[u32],
        best: i8,
        rng: &mut SmallRng,
    ) {
        self.candidates.clear();
        self.candidates.extend((0..l.len()).filter(|&k| self.tiers[k] == best));
        pick(l, &self.candidates, &mut self.chosen);
        self.leads.clear();
        match lanes {
            // What each candidate changes of the lead, from the pieces its lane has that the
            // state has not and the other way round (a constant apart, the lead: the draw
            // among the best is the same).
            Some(st) => {
                self.leads.resize(self.candidates.len(), 0);
                let (at, mask) = positions(&self.candidates);
                for (&b, &weight) in c.watch.bases().iter().zip(&c.weights[r]) {
                    let now = u64::from(state.contains(b)).wrapping_neg();
                    let mut changed = (st.base(b) ^ now) & mask;
                    let gain = if now == 0 { weight } else { -weight };
                    while changed != 0 {
                        self.leads[at[changed.trailing_zeros() as usize]] += gain;
                        changed &= changed - 1;
                    }
                }
            }
            None => {
                cm.lookahead(state, joint, r, &self.chosen, &c.watch, &mut self.bits);
                let w = c.watch.bases().len().div_ceil(64);
                let bits = &self.bits;
                self.leads.extend((0..self.chosen.len()).map(|k| c.lead(r, &bits[k * w..(k + 1) * w])));
            }
        }
        if let Some(mv) = redraw(&self.chosen, &self.leads, joint[r], rng) {
            joint[r] = mv;
        }
    }
}

/// One of `moves` whose value (`values` has one per move) is the highest, drawn uniformly, or
/// `None` where `drawn` has it already: a uniform draw among the best is then what it is.
fn redraw<T: Ord + Copy>(moves: &[u32], values: &[T], drawn: u32, rng: &mut SmallRng) -> Option<u32> {
    let best = values.iter().copied().max()?;
    if moves.iter().position(|&mv| mv == drawn).is_some_and(|k| values[k] == best) {
        return None;
    }
    let mut pick = Best::new();
    for (k, _) in values.iter().enumerate().filter(|&(_, &v)| v == best) {
        pick.offer(moves[k], 0.0, rng);
    }
    pick.get()
}

/// The moves of `legal` at `indices`, into `out`.
fn pick(legal: &[u32], indices: &[usize], out: &mut Vec<u32>) {
    out.clear();
    out.extend(indices.iter().map(|&k| legal[k]));
}

/// Per lane, its position among `lanes` (the stepper's lanes of some candidates), and the mask
/// of those lanes.
fn positions(lanes: &[usize]) -> ([usize; Stepper::LANES], u64) {
    let mut at = [0usize; Stepper::LANES];
    let mut mask = 0u64;
    for (k, &lane) in lanes.iter().enumerate() {
        at[lane] = k;
        mask |= 1 << lane;
    }
    (at, mask)
}

/// What a look-ahead over `bases` gives for the candidates in lanes `lanes` of an expansion,
/// read from the lanes: bit j of `out[k * w..(k + 1) * w]` (`w` words per candidate) is base
/// `bases[j]` in lane `lanes[k]`'s successor.
fn watched(st: &Stepper, lanes: &[usize], bases: &[usize], out: &mut Vec<u64>) {
    let w = bases.len().div_ceil(64);
    out.clear();
    out.resize(lanes.len() * w, 0);
    if lanes.is_empty() {
        return;
    }
    let (at, mask) = positions(lanes);
    // Most bases are alike in every candidate's successor: those true in all of them are set in
    // the first row, copied to the others; only the rest are set lane by lane.
    for (j, &b) in bases.iter().enumerate() {
        if st.base(b) & mask == mask {
            out[j / 64] |= 1 << (j % 64);
        }
    }
    for k in 1..lanes.len() {
        out.copy_within(0..w, k * w);
    }
    for (j, &b) in bases.iter().enumerate() {
        let mut word = st.base(b) & mask;
        if word == mask {
            continue;
        }
        while word != 0 {
            let lane = word.trailing_zeros() as usize;
            word &= word - 1;
            out[at[lane] * w + j / 64] |= 1 << (j % 64);
        }
    }
}

/// Sets `tiers[candidates[k]]` to what `judge` says of candidate `k`'s next state as far as
/// `watch` (whose next values `bits` hold, candidate by candidate) reads it. Candidates are
/// judged again only when their pattern differs from the one before (most moves change no
/// watched base), and `after` is changed only where it does.
fn rank(
    tiers: &mut [i8],
    candidates: &[usize],
    bits: &[u64],
    watch: &[usize],
    after: &mut PropnetState,
    mut judge: impl FnMut(&PropnetState) -> Result<i8, MachineError>,
) -> Result<(), MachineError> {
    let w = watch.len().div_ceil(64);
    let mut last = 0;
    for (k, &c) in candidates.iter().enumerate() {
        let seen = &bits[k * w..(k + 1) * w];
        let t = if k > 0 && seen == &bits[(k - 1) * w..k * w] {
            last
        } else {
            for (i, &word) in seen.iter().enumerate() {
                // Against the pattern `after` holds: the one before, or for the first candidate
                // whatever an earlier ranking left (every watched bit is compared then).
                let mut diff = match k {
                    0 => !0,
                    _ => word ^ bits[(k - 1) * w + i],
                };
                while diff != 0 {
                    let j = i * 64 + diff.trailing_zeros() as usize;
                    diff &= diff - 1;
                    if let Some(&b) = watch.get(j) {
                        after.set(b, word >> (j % 64) & 1 == 1);
                    }
                }
            }
            judge(after)?
        };
        last = t;
        tiers[c] = t;
    }
    Ok(())
}

/// How a playout ranks a move by the mover's achievable range before it (`now`) and after it:
/// below the rest if it lowers the maximum, above them if it raises the minimum, and highest if
/// it secures the maximum.
fn tier(now: Option<ScoreRange>, after: Option<ScoreRange>) -> i8 {
    let (Some(now), Some(after)) = (now, after) else { return if after.is_none() { -1 } else { 0 } };
    if after.max < now.max {
        -1
    } else if after.min >= now.max && after.min > now.min {
        2
    } else if after.min > now.min {
        1
    } else {
        0
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Pieces;
    use analysis::GoalLatches;
    use std::time::Duration;

    fn range(min: u32, max: u32) -> Option<ScoreRange> {
        Some(ScoreRange { min, max })
    }

    #[test]
    fn a_move_is_ranked_by_what_it_does_to_the_movers_range() {
        let open = range(0, 100);
        assert_eq!(tier(open, range(0, 100)), 0, "nothing changes");
        assert_eq!(tier(open, range(0, 50)), -1, "the best is lost");
        assert_eq!(tier(open, None), -1, "nothing is left");
        assert_eq!(tier(open, range(50, 100)), 1, "a floor is gained");
        assert_eq!(tier(open, range(100, 100)), 2, "the best is secured (a win)");
        assert_eq!(tier(range(50, 100), range(100, 100)), 2);
        assert_eq!(tier(range(50, 100), range(50, 50)), -1, "a draw given away");
        assert_eq!(tier(range(50, 50), range(50, 50)), 0, "a decided score stays decided");
        assert_eq!(tier(None, range(0, 100)), 0);
    }

    /// A tic-tac-toe machine, its knowledge with tactics and no latches, and the state after
    /// `moves` (x's and o's moves alternating, the other role's `noop` implied).
    fn tictactoe(moves: &[&str]) -> (PropnetMachine, Knowledge, PropnetState) {
        let net = testkit::bundled("tictactoe").1;
        let mut m = PropnetMachine::new(&net);
        let knowledge = Knowledge::new(&net, GoalLatches::new(&net, &[], None), true);
        let mut state = m.initial_state();
        for (k, mv) in moves.iter().enumerate() {
            let named = |r: usize| if r == k % 2 { *mv } else { "noop" };
            let joint: Vec<u32> = (0..2).map(|r| m.find_move(r, named(r)).expect("a move")).collect();
            state = m.next_state(&state, &joint).expect("legal");
        }
        (m, knowledge, state)
    }

    /// The first joint move of each of `n` guided playouts from `state`, printed, after 200
    /// from the initial state have shown which moves end games.
    fn first_moves(
        m: &mut PropnetMachine,
        knowledge: &Knowledge,
        state: &PropnetState,
        n: usize,
    ) -> Vec<(String, Vec<u8>)> {
        first_moves_capturing(m, knowledge, state, n, 0.0)
    }

    /// [`first_moves`] with the given chance of playing the move that gains the most material.
    fn first_moves_capturing(
        m: &mut PropnetMachine,
        knowledge: &Knowledge,
        state: &PropnetState,
        n: usize,
        captures: f64,
    ) -> Vec<(String, Vec<u8>)> {
        use rand::SeedableRng;
        let mut rng = SmallRng::seed_from_u64(3);
        let mut look = Lookahead::default();
        let settings = Settings {
            max_steps: 100,
            trace: true,
            knowledge: None,
            deadline: None,
            mast: None,
            cutoff: None,
            captures,
        };
        let initial = m.initial_state();
        for _ in 0..200 {
            guided(m, &mut look, &initial, knowledge, &mut rng, &settings).expect("plays");
        }
        (0..n)
            .map(|_| {
                let out =
                    guided(m, &mut look, state, knowledge, &mut rng, &settings).expect("plays").expect("no deadline");
                let first = out.moves[..2].iter().map(|&mv| m.format_move(&mv)).collect::<Vec<_>>().join(" ");
                (first, out.scores)
            })
            .collect()
    }

    #[test]
    fn a_tactical_playout_takes_a_win_at_once() {
        // x holds (1 1) and (1 2), o (2 1) and (2 2); x to move.
        let (mut m, knowledge, state) = tictactoe(&["(mark 1 1)", "(mark 2 1)", "(mark 1 2)", "(mark 2 2)"]);
        for (first, scores) in first_moves(&mut m, &knowledge, &state, 50) {
            assert_eq!(first, "(mark 1 3) noop");
            assert_eq!(scores, [100, 0]);
        }
    }

    #[test]
    fn a_tactical_playout_blocks_the_next_movers_win() {
        // x holds (1 1) and (3 3), o (2 1) and (2 2): x has no win and must block (2 3).
        let (mut m, knowledge, state) = tictactoe(&["(mark 1 1)", "(mark 2 1)", "(mark 3 3)", "(mark 2 2)"]);
        for (first, _) in first_moves(&mut m, &knowledge, &state, 50) {
            assert_eq!(first, "(mark 2 3) noop");
        }
    }

    #[test]
    fn without_tactics_a_playout_plays_at_random() {
        let (mut m, _, state) = tictactoe(&["(mark 1 1)", "(mark 2 1)", "(mark 3 3)", "(mark 2 2)"]);
        let net = testkit::bundled("tictactoe").1;
        let plain = Knowledge::new(&net, GoalLatches::new(&net, &[], None), false);
        let firsts: std::collections::HashSet<String> =
            first_moves(&mut m, &plain, &state, 50).into_iter().map(|(first, _)| first).collect();
        assert!(firsts.len() > 1, "x's five moves are all played: {firsts:?}");
    }

    /// A Breakthrough position, white to move, where white's pawn on d4 can take black's on
    /// e5; the other pawns are far apart.
    fn a_capture_on_offer() -> (PropnetMachine, Knowledge, PropnetState) {
        let net = testkit::bundled("breakthrough").1;
        let pieces = Pieces::discover(&net, Instant::now() + Duration::from_secs(30), 1).expect("pawns are pieces");
        let knowledge = Knowledge::new(&net, GoalLatches::new(&net, &[], None), true).with_pieces(&net, pieces);
        let bases = [
            "(control white)",
            "(cellholds 4 4 white)",
            "(cellholds 1 1 white)",
            "(cellholds 5 5 black)",
            "(cellholds 8 8 black)",
        ];
        let index = |p: &str| net.bases.iter().position(|b| b.name == p).unwrap_or_else(|| panic!("no base {p}"));
        let state = PropnetState::from_bases(net.bases.len(), bases.iter().map(|p| index(p)));
        (PropnetMachine::new(&net), knowledge, state)
    }

    #[test]
    fn a_capturing_playout_takes_the_pawn_on_offer() {
        let (mut m, knowledge, state) = a_capture_on_offer();
        for (first, _) in first_moves_capturing(&mut m, &knowledge, &state, 30, 1.0) {
            assert_eq!(first, "(move 4 4 5 5) noop");
        }
        let firsts: std::collections::HashSet<String> =
            first_moves(&mut m, &knowledge, &state, 30).into_iter().map(|(first, _)| first).collect();
        assert!(firsts.len() > 1, "without the preference white's five moves are all played: {firsts:?}");
    }
}
