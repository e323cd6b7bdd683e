//! Stepping through a game 64 candidates a pass, with no single-state marking: every lane of a
//! bit-sliced marking holds the same state with its state gates; [`Stepper::expand`] gives lane
//! k the successor under the mover's k-th candidate (one pass over the move gates, one over the
//! successors' state gates), so each candidate's next state, terminal flag, legal moves and, on
//! demand, goals are read lane by lane; [`Stepper::choose`] then makes one lane's successor the
//! state of every lane, state gates included, ready for the next expansion. Where the game has
//! turn programs (see [`turns`](super::turns)), the lanes run the program of their turn. A step
//! of a playout that looks one move ahead so costs two passes and a copy, whatever the move
//! changed, where the single-state marking propagates the step's changes and every candidate's
//! (see [`forward`](super::forward)).
//!
//! Where a mover has far fewer than 64 candidates, the lanes are split into groups of `width`
//! lanes (a power of two), each stepping a game of its own: [`Stepper::load_group`] puts a state
//! in a group, [`Stepper::stage`] sets a group's candidates, one [`Stepper::advance`] expands
//! every group staged, and [`Stepper::choose_groups`] makes one lane of each group its group's
//! state. Eight games of Connect Four (seven candidates each) so step with the passes one takes.

use super::batch::{bits, LANES};
use super::eval::{self, read};
use super::expand::{first_lanes, set_candidates};
use super::machine::PropnetState;
use super::program::{Lit, Phase, Program, FALSE};
use std::sync::Arc;

/// A marking of 64 lanes for stepping through one game (see the module's documentation).
#[derive(Debug, Clone)]
pub struct Stepper {
    program: Arc<Program>,
    lanes: Vec<[u64; 1]>,
    /// Per base, its next value in each lane, from the last expansion.
    next: Vec<u64>,
    /// The lanes that hold a state (after an expansion, bit k: candidate k). Every base is
    /// false in the other lanes.
    used: u64,
    /// The lanes whose inputs the next [`advance`](Stepper::advance) plays.
    staged: u64,
    /// Whether a state was loaded since the last pass over the state gates.
    stale: bool,
    /// Whether the goal gates hold the lanes' current states.
    goals_fresh: bool,
    /// Per program (the whole, then each turn's), per role, its moves (input indices) in input
    /// order but those the program never makes legal (a turn's waiting role's).
    role_moves: Vec<Vec<Vec<u32>>>,
    /// The turn of the game's cycle the lanes stand at, where the program has turn programs
    /// (see `turns`): its program evaluates them and its literals are read.
    turn: Option<usize>,
}

impl Stepper {
    /// The candidates one expansion takes.
    pub const LANES: usize = LANES;

    /// A stepper for `program`, or `None` where its legal or goal outputs read the moves (such
    /// programs are stepped one state at a time by forward propagation).
    pub fn new(program: Arc<Program>) -> Option<Stepper> {
        if program.outputs_read_inputs {
            return None;
        }
        let lanes = vec![[0]; program.marking_slots()];
        let next = vec![0; program.base_count()];
        let turns = program.turns.iter().flat_map(|t| t.programs());
        let role_moves = std::iter::once(&*program)
            .chain(turns)
            .map(|p| {
                let mut moves = vec![Vec::new(); p.roles.len()];
                for (m, &r) in p.move_role.iter().enumerate().filter(|&(m, _)| p.legal[m] != FALSE) {
                    moves[r as usize].push(m as u32);
                }
                moves
            })
            .collect();
        Some(Stepper {
            program,
            lanes,
            next,
            used: 0,
            staged: 0,
            stale: false,
            goals_fresh: false,
            role_moves,
            turn: None,
        })
    }

    /// The program that evaluates the lanes and whose literals are read: their turn's.
    #[inline]
    fn current(&self) -> &Program {
        turn_program(&self.program, self.turn)
    }

    /// The turn the lanes `used` stand at, by their base slots.
    fn turn_of(&self, used: u64) -> Option<usize> {
        let turns = self.program.turns.as_deref()?;
        turns.turn(|b| self.lanes[Program::base_slot(b)], [used])
    }

    /// The program stepped.
    pub fn program(&self) -> &Arc<Program> {
        &self.program
    }

    /// The lanes of group `group` of `width` lanes.
    #[inline]
    pub fn group_lanes(width: usize, group: usize) -> u64 {
        first_lanes(width) << (group * width)
    }

    /// Makes `state` the state of every lane and evaluates its state gates.
    pub fn load(&mut self, state: &PropnetState) {
        self.load_lanes(!0, state.words());
        self.settle();
    }

    /// Makes `state` the state of group `group`'s lanes (groups of `width` lanes, a power of two
    /// up to 64); its state gates are evaluated at the next [`settle`](Self::settle) or
    /// [`advance`](Self::advance).
    pub fn load_group(&mut self, width: usize, group: usize, state: &PropnetState) {
        self.load_lanes(Stepper::group_lanes(width, group), state.words());
    }

    /// Leaves no lane holding a state, ready for states to be loaded lane by lane.
    pub fn clear(&mut self) {
        let bases = Program::base_slot(0)..Program::base_slot(self.program.base_count());
        self.lanes[bases].fill([0]);
        self.used = 0;
        self.staged = 0;
    }

    /// Makes the state whose words are `words` (as [`PropnetState::words`] has them) the state
    /// of the lanes `lanes` (any set of them); its state gates are evaluated at the next
    /// [`settle`](Self::settle) or [`advance`](Self::advance).
    pub fn load_lanes(&mut self, lanes: u64, words: &[u64]) {
        let slots = &mut self.lanes[Program::base_slot(0)..Program::base_slot(self.program.base_count())];
        if lanes & self.used == 0 {
            // The lanes' bases are all false: only the state's true ones are written.
            for (chunk, &word) in slots.chunks_mut(64).zip(words) {
                for j in bits(word) {
                    chunk[j][0] |= lanes;
                }
            }
        } else {
            for (chunk, &word) in slots.chunks_mut(64).zip(words) {
                for (j, slot) in chunk.iter_mut().enumerate() {
                    let on = (word >> j & 1).wrapping_neg();
                    slot[0] = (slot[0] & !lanes) | (on & lanes);
                }
            }
        }
        self.used |= lanes;
        self.stale = true;
    }

    /// Evaluates the state gates of the states loaded since the last pass, if any.
    pub fn settle(&mut self) {
        self.settle_phase(Phase::Core);
    }

    /// Evaluates `phase` (the state gates, or the part of them the moves need) of the states
    /// loaded since the last pass, if any.
    fn settle_phase(&mut self, phase: Phase) {
        if std::mem::take(&mut self.stale) {
            self.turn = self.turn_of(self.used);
            eval::run(turn_program(&self.program, self.turn), phase, &mut self.lanes);
            self.goals_fresh = false;
        }
    }

    /// Gives lane k the successor of the lanes' state when `role` plays `candidates[k]` and
    /// every other role its move in `joint` (input indices, one per role), with the
    /// successor's state gates: at most 64 candidates.
    ///
    /// # Panics
    /// With more than 64 candidates.
    pub fn expand(&mut self, joint: &[u32], role: usize, candidates: &[u32]) {
        self.stage(LANES, 0, joint, role, candidates);
        self.advance();
    }

    /// Stages group `group`'s expansion (groups of `width` lanes): at the next
    /// [`advance`](Self::advance), its lane k gets the successor of the group's state when
    /// `role` plays `candidates[k]` and every other role its move in `joint`.
    ///
    /// # Panics
    /// With more candidates than `width`.
    pub fn stage(&mut self, width: usize, group: usize, joint: &[u32], role: usize, candidates: &[u32]) {
        assert!(candidates.len() <= width, "{} candidates for groups of {width} lanes", candidates.len());
        self.unstage_first();
        let p = turn_program(&self.program, self.turn);
        self.staged |= set_candidates(p, &mut self.lanes, joint, role, candidates, group * width);
    }

    /// Clears every input before the first move of an expansion is staged.
    fn unstage_first(&mut self) {
        if self.staged == 0 {
            let p = turn_program(&self.program, self.turn);
            let inputs = p.input_slot(0)..p.input_slot(0) + p.move_count();
            self.lanes[inputs].fill([0]);
        }
    }

    /// Stages move `m` (an input index) in the lanes `lanes`: at the next
    /// [`advance`](Self::advance) each lane staged gets the successor of its state under the
    /// moves staged in it (one per role).
    pub fn stage_move(&mut self, m: u32, lanes: u64) {
        self.unstage_first();
        let slot = turn_program(&self.program, self.turn).input_slot(m as usize);
        self.lanes[slot][0] |= lanes;
        self.staged |= lanes;
    }

    /// Expands every group staged (with the state gates of states loaded since the last pass):
    /// the lanes staged then hold the successors, with their state gates, and no other lane a
    /// state.
    pub fn advance(&mut self) {
        self.settle();
        self.apply();
    }

    /// [`advance`](Self::advance) for states loaded only to be expanded: of their state gates,
    /// only those the move gates and the next state read are evaluated (their legal moves,
    /// terminal flags and goals are never read), often a fraction of them.
    pub fn advance_loaded(&mut self) {
        self.settle_phase(Phase::Support);
        self.apply();
    }

    /// Applies the staged moves to the staged lanes' states, whose state gates hold: the
    /// successors with their state gates in those lanes, no other lane holding a state.
    fn apply(&mut self) {
        let used = std::mem::take(&mut self.staged);
        let p = turn_program(&self.program, self.turn);
        eval::run(p, Phase::Move, &mut self.lanes);
        for (i, n) in self.next.iter_mut().enumerate() {
            *n = read(&self.lanes, p.next[i])[0] & used;
        }
        for (i, &n) in self.next.iter().enumerate() {
            self.lanes[Program::base_slot(i)] = [n];
        }
        // Every successor stands at the same turn where every state expanded did: a turn's clock
        // never reads a move.
        self.turn = self.turn_of(used);
        eval::run(turn_program(&self.program, self.turn), Phase::Core, &mut self.lanes);
        self.used = used;
        self.goals_fresh = false;
    }

    /// Makes lane `lane`'s state (with its state gates) the state of every lane.
    pub fn choose(&mut self, lane: usize) {
        self.choose_groups(LANES, 1 << lane);
    }

    /// Makes, in each group of `width` lanes with a lane in `chosen` (at most one per group), that
    /// lane's state (with its state gates) the state of every lane of the group; the other
    /// groups are left without one.
    pub fn choose_groups(&mut self, width: usize, chosen: u64) {
        let fill = Fill::new(width);
        if width == LANES {
            // One group: the chosen lane's bit spread by a negation, a third of the work (none
            // where no lane is chosen).
            let lane = chosen.trailing_zeros() % LANES as u32;
            let any = u64::from(chosen != 0).wrapping_neg();
            for v in &mut self.lanes {
                v[0] = (v[0] >> lane & 1).wrapping_neg() & any;
            }
        } else {
            for v in &mut self.lanes {
                v[0] = fill.spread(v[0] & chosen);
            }
        }
        self.used = fill.spread(chosen);
    }

    /// The lanes where literal `l` of the state gates holds (goal literals only after
    /// [`refresh_goals`](Self::refresh_goals)).
    #[inline]
    fn lit(&self, l: Lit) -> u64 {
        read(&self.lanes, l)[0] & self.used
    }

    /// The lanes whose state is terminal.
    #[inline]
    pub fn terminal(&self) -> u64 {
        self.lit(self.current().terminal)
    }

    /// The lanes where base `i` is true.
    #[inline]
    pub fn base(&self, i: usize) -> u64 {
        self.lit((Program::base_slot(i) as Lit) << 1)
    }

    /// The lanes where move `m` (an input index) is legal.
    #[inline]
    pub fn legal(&self, m: usize) -> u64 {
        self.lit(self.current().legal[m])
    }

    /// Role `role`'s moves that the lanes' program can make legal, in input order.
    fn moves_of(&self, role: usize) -> &[u32] {
        self.role_moves[self.turn.map_or(0, |t| t + 1)].get(role).map_or(&[][..], Vec::as_slice)
    }

    /// Role `role`'s legal moves in lane `lane`, in input order, into `out`.
    pub fn legal_moves(&self, lane: usize, role: usize, out: &mut Vec<u32>) {
        let p = self.current();
        let moves = self.moves_of(role);
        // Every move written, the count moved on past the legal ones: no branch to mispredict.
        out.clear();
        out.resize(moves.len(), 0);
        let mut n = 0;
        for &m in moves {
            out[n] = m;
            n += (self.lit(p.legal[m as usize]) >> lane & 1) as usize;
        }
        out.truncate(n);
    }

    /// Role `role`'s legal moves in each of the lanes `lanes`, in input order: lane k's into
    /// `out[k]` (cleared first; the others are left alone). One reading of each move's legal
    /// literal serves every lane.
    pub fn legal_by_lane(&self, role: usize, lanes: u64, out: &mut [Vec<u32>]) {
        let p = self.current();
        let moves = self.moves_of(role);
        for lane in bits(lanes) {
            out[lane].clear();
        }
        for &m in moves {
            for lane in bits(self.lit(p.legal[m as usize]) & lanes) {
                out[lane].push(m);
            }
        }
    }

    /// Role `role`'s score in lane `lane` (after [`refresh_goals`](Self::refresh_goals)), as
    /// [`machine::played_value`] reads its goal values.
    pub fn score(&self, lane: usize, role: usize) -> u32 {
        self.goals_held(lane, role).max().unwrap_or(0)
    }

    /// Lane `lane`'s state.
    pub fn state(&self, lane: usize) -> PropnetState {
        let mut state = PropnetState::from_bases(self.program.base_count(), []);
        self.state_into(lane, &mut state);
        state
    }

    /// Lane `lane`'s state, written over `state` (a state of this program's game).
    pub fn state_into(&self, lane: usize, state: &mut PropnetState) {
        let bases = &self.lanes[Program::base_slot(0)..Program::base_slot(self.program.base_count())];
        for (word, chunk) in state.words_mut().iter_mut().zip(bases.chunks(64)) {
            *word = chunk.iter().enumerate().fold(0, |w, (j, v)| w | (v[0] >> lane & 1) << j);
        }
    }

    /// The states of the lanes `lanes`: lane k's words (as [`PropnetState::words`] has them)
    /// written over `out[k * w..][..w]`, `w` words a state. One reading of each base serves
    /// every lane.
    pub fn states_into(&self, lanes: u64, out: &mut [u64]) {
        let bases = self.program.base_count();
        let w = bases.div_ceil(64);
        // Per 64 bases, their lanes are a 64×64 bit matrix whose transpose is every lane's word.
        let mut m = [[0u64; 1]; 64];
        for word in 0..w {
            for (t, row) in m.iter_mut().enumerate() {
                let i = word * 64 + t;
                row[0] = if i < bases { self.base(i) & lanes } else { 0 };
            }
            structures::bits::transpose(&mut m);
            for lane in bits(lanes) {
                out[lane * w + word] = m[lane][0];
            }
        }
    }

    /// Evaluates the goal gates of the lanes' states (they are left out of the passes, as a
    /// goal is asked for rarely); call before reading a goal literal.
    pub fn refresh_goals(&mut self) {
        if !std::mem::replace(&mut self.goals_fresh, true) {
            eval::run(turn_program(&self.program, self.turn), Phase::Goal, &mut self.lanes);
        }
    }

    /// Role `role`'s goal values in lane `lane` (after [`refresh_goals`](Self::refresh_goals)).
    pub fn goal_values(&self, lane: usize, role: usize) -> Vec<u32> {
        self.goals_held(lane, role).collect()
    }

    /// The values of role `role`'s goals that hold in lane `lane`, in the program's order.
    fn goals_held(&self, lane: usize, role: usize) -> impl Iterator<Item = u32> + '_ {
        let goals = self.current().goals.get(role).map_or(&[][..], Vec::as_slice);
        goals.iter().filter(move |&&(_, l)| self.lit(l) >> lane & 1 == 1).map(|&(v, _)| v)
    }
}

/// Spreads a bit in a group of lanes (a power of two wide) over the group, every group at once.
struct Fill {
    /// The top lane of every group.
    high: u64,
    width: u32,
}

impl Fill {
    fn new(width: usize) -> Fill {
        assert!(width.is_power_of_two() && width <= LANES, "groups of {width} lanes");
        let high = (0..LANES / width).fold(0, |h, g| h | 1 << (g * width + width - 1));
        Fill { high, width: width as u32 }
    }

    /// Every lane of each group where `bits` has a lane of it (at most one per group).
    #[inline(always)]
    fn spread(&self, bits: u64) -> u64 {
        // A group's lanes below its top are nonzero where adding them to all ones carries into
        // the top (groups never carry into each other); with the top itself, one bit per group.
        // Then each such top less the group's first lane is the lanes below the top: no
        // multiplication (which vector units lack for 64-bit lanes).
        let low = !self.high;
        let any = (((bits & low).wrapping_add(low)) | bits) & self.high;
        any.wrapping_sub(any >> (self.width - 1)) | any
    }
}

/// `program`'s program of turn `turn` (see `turns`), or `program` itself without one.
#[inline]
fn turn_program(program: &Program, turn: Option<usize>) -> &Program {
    match (turn, &program.turns) {
        (Some(t), Some(turns)) => turns.get(t),
        _ => program,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Every lane of a group gets the bit of the group's chosen lane, group by group.
        #[test]
        fn a_chosen_lane_spreads_over_its_group_alone(log in 0u32..=6, picks in prop::collection::vec((any::<bool>(), 0usize..64), 64)) {
            let width = 1usize << log;
            let mut bits = 0u64;
            let mut expected = 0u64;
            for (g, &(on, lane)) in picks.iter().take(LANES / width).enumerate() {
                if on {
                    bits |= 1 << (g * width + lane % width);
                    expected |= Stepper::group_lanes(width, g);
                }
            }
            prop_assert_eq!(Fill::new(width).spread(bits), expected);
        }
    }
}
