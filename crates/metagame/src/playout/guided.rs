//! Guided playouts: random play where each role looks one move ahead (see [`guided`]), stepped
//! one state at a time by forward propagation or with the mover's candidates in a stepper's
//! lanes, several playouts side by side where the movers have few candidates, whichever is
//! faster on the game.

use super::rank::{redraw, Group, Scratch};
use super::{scores, Outcome, Settings, CLOCK_EVERY};
use crate::knowledge::{Captures, Knowledge};
use crate::pace::Pace;
use crate::pieces::Balance;
use machine::{MachineError, StateMachine};
use propnet::{Program, PropnetMachine, PropnetState, Stepper};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::sync::Arc;
use std::time::Instant;
use structures::bits;

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
    /// The most candidates a mover has had where playouts were stepped: how wide a group of the
    /// stepper's lanes one playout takes.
    widest: usize,
    /// Playouts ended, their buffers kept for the next.
    spare: Vec<Walk>,
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

/// The fewest lanes, a power of two up to 64, that `n` candidates fit in (64 for more).
fn lanes_for(n: usize) -> usize {
    n.max(1).next_power_of_two().min(Stepper::LANES)
}

/// How many lanes of a stepper over `program` a stepped playout takes: as many as the most
/// candidates a mover has had (`widest`), or before one is seen (0) as the most moves a role has.
fn group_width(widest: usize, program: &Program) -> usize {
    lanes_for(match widest {
        0 => program.most_moves(),
        widest => widest,
    })
}

impl Lookahead {
    /// How many stepped playouts over `program` advance side by side, each in lanes of its own.
    pub fn side_by_side(&self, program: &Program) -> usize {
        Stepper::LANES / group_width(self.widest, program)
    }

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

/// Where a playout can go back to: the state before the last joint move, when one role alone
/// chose it, with that role's moves not tried there yet.
#[derive(Debug)]
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
/// The playout draws from a generator of its own, seeded from `rng`, and steps one state at a
/// time or 64 candidates a pass, whichever `lookahead` has found faster on this game (see
/// `Pace`): the same playout either way. `None` if the deadline passed.
pub fn guided(
    m: &mut PropnetMachine,
    lookahead: &mut Lookahead,
    start: &PropnetState,
    knowledge: &Knowledge,
    rng: &mut SmallRng,
    s: &Settings,
) -> Result<Option<Outcome<u32>>, MachineError> {
    let mut out = guided_each(m, lookahead, std::slice::from_ref(start), knowledge, rng, s)?;
    Ok(out.pop().flatten())
}

/// A [`guided`] playout from each of `starts`, in order, each with a generator of its own
/// seeded from `rng` in that order: the playouts [`guided`] plays from them one after the other,
/// but for the moves that have ended a game, which the playouts learn only once all have ended.
/// Stepped, the playouts share the stepper's lanes, each a group of them as wide as the game's
/// movers have had candidates, and advance together, one pass for all.
pub fn guided_each(
    m: &mut PropnetMachine,
    lookahead: &mut Lookahead,
    starts: &[PropnetState],
    knowledge: &Knowledge,
    rng: &mut SmallRng,
    s: &Settings,
) -> Result<Vec<Option<Outcome<u32>>>, MachineError> {
    let stepped = lookahead.pace.stepped();
    let began = Instant::now();
    let mut out = vec![None; starts.len()];
    let steps = guided_by(m, lookahead, starts, knowledge, rng, s, stepped, &mut out)?;
    lookahead.pace.record(stepped, starts.len() as u64, steps, began.elapsed());
    Ok(out)
}

/// [`guided_each`] into `out`, stepped by a stepper where `by_lanes` and one can take the game;
/// returns the joint moves played in all.
#[allow(clippy::too_many_arguments)]
fn guided_by(
    m: &mut PropnetMachine,
    lookahead: &mut Lookahead,
    starts: &[PropnetState],
    knowledge: &Knowledge,
    rng: &mut SmallRng,
    s: &Settings,
    by_lanes: bool,
    out: &mut [Option<Outcome<u32>>],
) -> Result<u64, MachineError> {
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
    // Groups only where a stepper steps, and no more of them than playouts.
    let width = match stepper.as_deref() {
        Some(st) => group_width(lookahead.widest, st.program()).max(Stepper::LANES / lanes_for(starts.len())),
        None => Stepper::LANES,
    };
    let groups = Stepper::LANES / width;
    let mut sh = Shared {
        m,
        look,
        judge: judge.as_mut(),
        captures: knowledge.captures.as_ref().zip(capture.as_mut()).filter(|_| s.captures > 0.0),
        knowledge,
        s,
        ending: &lookahead.ending,
        // The root's material, once per batch, where the playouts may stop early.
        cutoff: s
            .cutoff
            .as_ref()
            .zip(knowledge.pieces.as_ref())
            .map(|(c, p)| (c.steps, p.balance(&c.root, &c.root, c.placement))),
        widest: lookahead.widest,
    };
    let mut walks: Vec<Option<(usize, Walk)>> = (0..groups).map(|_| None).collect();
    let mut begun = 0;
    let mut steps = 0u64;
    let mut ended = Vec::new();
    // Per group, what its playout does once the lanes are chosen (set for every playout each
    // pass before it is read).
    let mut then = vec![None; groups];
    loop {
        // Free groups take the next playouts, their starts loaded into their lanes.
        for (g, slot) in walks.iter_mut().enumerate().filter(|(_, w)| w.is_none()) {
            let Some(start) = starts.get(begun) else { break };
            let rng = SmallRng::from_rng(rng);
            let mut walk = match lookahead.spare.pop() {
                Some(walk) => walk.reset(start, sh.m.roles().len(), rng),
                None => Walk::new(start, sh.m.roles().len(), rng),
            };
            if let Some(st) = stepper.as_deref_mut() {
                st.load_group(width, g, start);
                walk.stepped = true;
            }
            *slot = Some((begun, walk));
            begun += 1;
        }
        if walks.iter().all(Option::is_none) {
            break;
        }
        if let Some(st) = stepper.as_deref_mut() {
            st.settle();
        }
        // Every playout plays on until it stages an expansion in its lanes or ends.
        let mut staged = false;
        for (g, slot) in walks.iter_mut().enumerate() {
            let Some((i, walk)) = slot.as_mut().filter(|(_, w)| w.staged.is_none()) else {
                staged |= slot.is_some();
                continue;
            };
            let group = stepper.as_deref_mut().map(|st| Group { st, width, first: g * width });
            match walk.play(&mut sh, group)? {
                Some(outcome) => {
                    steps += u64::from(walk.steps);
                    ended.extend(walk.ending());
                    lookahead.fired += u64::from(walk.fired);
                    out[*i] = outcome;
                    lookahead.spare.extend(slot.take().map(|(_, w)| w));
                }
                None => staged = true,
            }
        }
        let Some(st) = stepper.as_deref_mut().filter(|_| staged) else { continue };
        // One pass for every group; each playout then takes one of its lanes, or goes back.
        st.advance();
        let mut chosen = 0u64;
        for (g, (_, walk)) in walks.iter_mut().enumerate().filter_map(|(g, w)| Some((g, w.as_mut()?))) {
            let mut group = Group { st: &mut *st, width, first: g * width };
            then[g] = match walk.staged.take() {
                Some(Staged::Step(r)) => match walk.finish(&mut sh, Some(&mut group), Some(r))? {
                    Step::Lane(lane) => {
                        chosen |= 1 << (group.first + lane);
                        Some(After::Played(lane))
                    }
                    Step::Back => Some(After::Back),
                    Step::Next => unreachable!("a step in the lanes ends in them"),
                },
                Some(Staged::Back) => {
                    chosen |= 1 << group.first;
                    Some(After::Rewound)
                }
                None => None,
            };
        }
        st.choose_groups(width, chosen);
        for (g, (_, walk)) in walks.iter_mut().enumerate().filter_map(|(g, w)| Some((g, w.as_mut()?))) {
            let mut group = Group { st: &mut *st, width, first: g * width };
            match then[g] {
                Some(After::Played(lane)) => walk.take_lane(&group, lane, Some(s.trace)),
                Some(After::Rewound) => walk.take_lane(&group, 0, None),
                Some(After::Back) => walk.stage_back(&mut group),
                None => {}
            }
        }
    }
    lookahead.widest = sh.widest;
    for mv in ended {
        bits::insert(&mut lookahead.ending, mv as usize);
    }
    lookahead.playouts += starts.len() as u64;
    Ok(steps)
}

/// What the guided playouts of a batch share.
struct Shared<'a> {
    /// The game's machine, stepping playouts one state at a time.
    m: &'a mut PropnetMachine,
    /// The look-ahead over the bases the tactics watch.
    look: &'a mut PropnetMachine,
    /// The look-ahead over the end.
    judge: Option<&'a mut PropnetMachine>,
    /// The pieces' captures and the look-ahead over them, where playouts prefer captures.
    captures: Option<(&'a Captures, &'a mut PropnetMachine)>,
    knowledge: &'a Knowledge,
    s: &'a Settings,
    /// The moves that have ended a game before the batch (see [`Lookahead`]).
    ending: &'a [u64],
    /// The cutoff's step and the balance it scores by.
    cutoff: Option<(u32, Balance<'a>)>,
    /// The most candidates a mover has had (see [`Lookahead`]).
    widest: usize,
}

/// Where a playout waits, its expansion staged in its lanes.
#[derive(Debug, Clone, Copy)]
enum Staged {
    /// Role `.0`'s legal moves, to be ranked.
    Step(usize),
    /// The move played in place of one taken back.
    Back,
}

/// How a playout's step ended.
enum Step {
    /// The next state is the stepper's lane (of the playout's group) of the move played.
    Lane(usize),
    /// A move is taken back: the state before it, another move in its place, is to be stepped.
    Back,
    /// The next state is stepped one state at a time.
    Next,
}

/// What a playout does once the lanes are chosen after a pass.
#[derive(Clone, Copy)]
enum After {
    /// Takes the lane (of its group) of the move it played.
    Played(usize),
    /// Takes the first lane of its group: the move played in place of one taken back.
    Rewound,
    /// Stages the move to play in place of the one it takes back.
    Back,
}

/// One guided playout under way.
#[derive(Debug)]
struct Walk {
    rng: SmallRng,
    state: PropnetState,
    moves: Vec<u32>,
    joint: Vec<u32>,
    legal: Vec<Vec<u32>>,
    /// Per role, whether it chose the last joint move (had more than one legal move).
    chose: Vec<bool>,
    rewind: Option<Rewind>,
    x: Scratch,
    steps: u32,
    /// Whether the tactics changed a move.
    fired: bool,
    /// Whether the lanes of its group hold `state` (with its state gates).
    stepped: bool,
    /// What its lanes hold expanded, where it waits for a pass.
    staged: Option<Staged>,
    /// Whether it ended in a terminal (or decided) state after a step.
    ended: bool,
}

impl Walk {
    fn new(start: &PropnetState, roles: usize, rng: SmallRng) -> Walk {
        Walk {
            rng,
            state: start.clone(),
            moves: Vec::new(),
            joint: vec![0; roles],
            legal: vec![Vec::new(); roles],
            chose: vec![false; roles],
            rewind: None,
            x: Scratch::new(start),
            steps: 0,
            fired: false,
            stepped: false,
            staged: None,
            ended: false,
        }
    }

    /// The walk from `start` with `roles` roles drawing from `rng`, in this one's buffers where
    /// it walked the same game.
    fn reset(mut self, start: &PropnetState, roles: usize, rng: SmallRng) -> Walk {
        if self.joint.len() != roles || self.state.words().len() != start.words().len() {
            return Walk::new(start, roles, rng);
        }
        self.rng = rng;
        self.state.clone_from(start);
        self.moves = Vec::new();
        self.rewind = None;
        (self.steps, self.fired, self.stepped, self.staged, self.ended) = (0, false, false, None, false);
        self
    }

    /// The moves that ended the game: the choosers' last, where the playout ended after a step.
    fn ending(&self) -> impl Iterator<Item = u32> + '_ {
        let last = self.ended && self.steps > 0;
        (0..self.joint.len()).filter(move |&r| last && self.chose[r]).map(|r| self.joint[r])
    }

    fn outcome(&mut self, scores: Vec<u8>, complete: bool) -> Option<Outcome<u32>> {
        let moves = std::mem::take(&mut self.moves);
        Some(Outcome { scores, complete, moves, steps: self.steps })
    }

    /// Plays on until the playout stages an expansion in `group`'s lanes (`None`) or ends (its
    /// outcome, `None` if the deadline passed).
    fn play(
        &mut self,
        sh: &mut Shared,
        mut group: Option<Group>,
    ) -> Result<Option<Option<Outcome<u32>>>, MachineError> {
        let (knowledge, s, roles) = (sh.knowledge, sh.s, self.joint.len());
        loop {
            // The state's terminal flag and legal moves from the lanes where they hold it.
            let here = group.as_mut().filter(|_| self.stepped);
            let terminal = match &here {
                Some(g) => g.terminal() & 1 == 1,
                None => sh.m.is_terminal(&self.state)?,
            };
            let decided = if terminal { None } else { knowledge.decided(self.state.words()) };
            if terminal || decided.is_some() {
                self.ended = true;
                let scores = match (decided, here) {
                    (Some(decided), _) => decided.iter().map(|&v| v.min(100) as u8).collect(),
                    // The goals of the state the lanes hold, unless the emulator knows them.
                    (None, Some(g)) => knowledge
                        .emulated_scores(self.state.words())
                        .unwrap_or_else(|| (0..roles).map(|r| g.score(0, r).min(100) as u8).collect()),
                    (None, None) => knowledge.scores(sh.m, &self.state, Some(self.state.words())),
                };
                return Ok(Some(self.outcome(scores, true)));
            }
            if self.steps >= s.max_steps {
                let scores = scores(sh.m, &self.state);
                return Ok(Some(self.outcome(scores, false)));
            }
            if let Some((_, balance)) = sh.cutoff.as_ref().filter(|(at, _)| self.steps >= *at) {
                let scores = (0..roles).map(|r| (balance.value(self.state.words(), r) * 100.0).round() as u8).collect();
                return Ok(Some(self.outcome(scores, false)));
            }
            if self.steps & (CLOCK_EVERY - 1) == 0 && s.out_of_time() {
                return Ok(Some(None));
            }
            for r in 0..roles {
                match &here {
                    Some(g) => g.st.legal_moves(g.first, r, &mut self.legal[r]),
                    None => self.legal[r] = sh.m.legal_moves(&self.state, r)?,
                }
                let l = &self.legal[r];
                if l.is_empty() {
                    let scores = scores(sh.m, &self.state);
                    return Ok(Some(self.outcome(scores, false)));
                }
                self.joint[r] = match &s.mast {
                    Some(policy) => policy.pick(l, &mut self.rng),
                    None => l[self.rng.random_range(0..l.len())],
                };
                self.chose[r] = l.len() > 1;
            }
            // One role with a choice (or none) and no more moves than the group has lanes: every
            // move of it expanded in the lanes, which then answer the look-aheads and give the
            // next state.
            let mut choosers = (0..roles).filter(|&r| self.legal[r].len() > 1);
            let mover = match (choosers.next(), choosers.next()) {
                (None, _) => Some(0),
                (Some(r), None) => Some(r),
                _ => None,
            };
            if let (Some(g), Some(r)) = (group.as_mut(), mover) {
                sh.widest = sh.widest.max(self.legal[r].len());
                if self.legal[r].len() <= g.width {
                    if !self.stepped {
                        g.st.load_group(g.width, g.first / g.width, &self.state);
                    }
                    g.st.stage(g.width, g.first / g.width, &self.joint, r, &self.legal[r]);
                    self.staged = Some(Staged::Step(r));
                    return Ok(None);
                }
            }
            match self.finish(sh, None, None)? {
                Step::Next => {}
                Step::Back => match group.as_mut() {
                    Some(g) => {
                        self.stage_back(g);
                        return Ok(None);
                    }
                    None => {
                        let back = self.rewind.as_ref().expect("a move to take back");
                        self.state = sh.m.next_state(&back.state, &self.joint)?;
                    }
                },
                Step::Lane(_) => unreachable!("a step without lanes ends without them"),
            }
        }
    }

    /// Ranks and draws the choosers' moves, the mover's (`mover`) candidates expanded in
    /// `group`'s lanes where given, and steps: takes the last move back where it let the next
    /// mover win at once (the joint move set to the one to play in its place), or plays the
    /// joint move (the next state stepped here, without lanes).
    fn finish(
        &mut self,
        sh: &mut Shared,
        mut group: Option<&mut Group>,
        mover: Option<usize>,
    ) -> Result<Step, MachineError> {
        let (knowledge, s, roles) = (sh.knowledge, sh.s, self.joint.len());
        let mut winner = None;
        for r in (0..roles).filter(|&r| self.legal[r].len() > 1) {
            let l = &self.legal[r];
            let lanes = group.as_deref_mut();
            let best = self.x.rank_moves(
                sh.look,
                sh.judge.as_deref_mut(),
                lanes,
                knowledge,
                sh.ending,
                &self.state,
                &self.joint,
                r,
                l,
            )?;
            if let Some(mv) = redraw(l, &self.x.tiers, self.joint[r], &mut self.rng) {
                if knowledge.tactics {
                    self.fired = true;
                }
                self.joint[r] = mv;
            }
            if let Some((c, cm)) = sh.captures.as_mut().filter(|_| best < 2 && self.rng.random_bool(s.captures)) {
                let lanes = group.as_deref();
                self.x.capture(c, cm, lanes, &self.state, &mut self.joint, r, l, best, &mut self.rng);
            }
            // The mover secures its best score: the game is as good as won.
            if best == 2 {
                winner = Some(r);
            }
        }
        if let Some(w) = winner.filter(|_| knowledge.tactics) {
            if let Some(back) = self.rewind.as_mut().filter(|b| b.role != w && !b.untried.is_empty()) {
                // The last move let the next mover win at once: play another in its place.
                self.fired = true;
                let alternative = back.untried.swap_remove(self.rng.random_range(0..back.untried.len()));
                self.joint.clone_from(&back.joint);
                self.joint[back.role] = alternative;
                self.chose.iter_mut().enumerate().for_each(|(r, c)| *c = r == back.role);
                if s.trace {
                    let n = self.moves.len() - roles;
                    self.moves.truncate(n);
                    self.moves.extend_from_slice(&self.joint);
                }
                return Ok(Step::Back);
            }
        }
        self.rewind =
            Rewind::before(self.rewind.take(), knowledge.tactics, &self.chose, &self.state, &self.joint, &self.legal);
        match (group, mover) {
            (Some(_), Some(r)) => {
                let lane =
                    self.legal[r].iter().position(|&mv| mv == self.joint[r]).expect("the mover plays a legal move");
                Ok(Step::Lane(lane))
            }
            _ => {
                self.state = sh.m.next_state(&self.state, &self.joint)?;
                self.stepped = false;
                self.played(s.trace);
                Ok(Step::Next)
            }
        }
    }

    /// Counts the joint move played, recording it where the moves are traced.
    fn played(&mut self, trace: bool) {
        if trace {
            self.moves.extend_from_slice(&self.joint);
        }
        self.steps += 1;
    }

    /// Takes lane `lane` of `group` (chosen) as the state; as the next one, where `played` says
    /// whether the moves are traced, else (a move played in place of one taken back, already
    /// recorded) as the state in place of the last.
    fn take_lane(&mut self, group: &Group, lane: usize, played: Option<bool>) {
        group.st.state_into(group.first + lane, &mut self.state);
        self.stepped = true;
        if let Some(trace) = played {
            self.played(trace);
        }
    }

    /// Stages, in `group`'s lanes, the state before the move taken back with the joint move
    /// played in its place.
    fn stage_back(&mut self, group: &mut Group) {
        let back = self.rewind.as_ref().expect("a move to take back");
        let g = group.first / group.width;
        group.st.load_group(group.width, g, &back.state);
        group.st.stage(group.width, g, &self.joint, back.role, &[self.joint[back.role]]);
        self.staged = Some(Staged::Back);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::playout::Settings;
    use crate::Pieces;
    use analysis::GoalLatches;
    use std::time::Duration;

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
