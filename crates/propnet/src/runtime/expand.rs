//! A node's expansion, 64 joint moves a pass: every lane of a bit-sliced marking holds the same
//! state (copied from the single-state marking, which the node's legal moves brought there) and
//! its own joint move; one pass over the move gates gives every successor, and one pass over the
//! successors' state gates says which of them are terminal. Expanding a node with `n` joint moves
//! so costs about `2n / 64` passes, where one state at a time costs `n` next states and `n`
//! terminal checks, each a propagation of the differences from the state before (see
//! [`forward`](super::forward)).

use super::batch::{bits, LANES};
use super::eval::{self, read};
use super::forward::Forward;
use super::machine::PropnetState;
use super::program::{Lit, Phase, Program};

/// Scratch for expansions: one marking of 64 lanes.
#[derive(Debug, Clone, Default)]
pub(crate) struct Expansion {
    lanes: Vec<[u64; 1]>,
}

impl Expansion {
    /// The successor of the state `marking` holds under each of `joints` (input indices,
    /// exactly one per role as the move phase assumes) and whether it is terminal, in order.
    /// The program's outputs must not read inputs (such programs are expanded one state at a
    /// time), so that the marking's state gates are the state's whatever inputs it has set.
    pub fn successors(&mut self, p: &Program, marking: &Forward, joints: &[Vec<u32>]) -> Vec<(PropnetState, bool)> {
        debug_assert!(!p.outputs_read_inputs);
        let bases = p.base_count();
        let words = bases.div_ceil(64);
        let mut out = Vec::with_capacity(joints.len());
        let mut next = vec![0u64; bases];
        for chunk in joints.chunks(LANES) {
            // The state and its gates in every lane, each lane's joint move; then the move gates.
            self.load(p, marking);
            for (lane, joint) in chunk.iter().enumerate() {
                for &m in joint {
                    self.lanes[p.input_slot(m as usize)][0] |= 1 << lane;
                }
            }
            eval::run(p, Phase::Move, &mut self.lanes);
            for (i, n) in next.iter_mut().enumerate() {
                *n = read(&self.lanes, p.next[i])[0];
            }
            // The successors in the lanes, no move set; their state gates say which end.
            self.clear(p);
            for (i, &n) in next.iter().enumerate() {
                self.lanes[Program::base_slot(i)] = [n];
            }
            eval::run(p, Phase::Core, &mut self.lanes);
            let terminal = read(&self.lanes, p.terminal)[0];
            let mut children = vec![vec![0u64; words]; chunk.len()];
            let used = first_lanes(chunk.len());
            for (i, &n) in next.iter().enumerate() {
                for lane in bits(n & used) {
                    children[lane][i / 64] |= 1 << (i % 64);
                }
            }
            let ends = (0..chunk.len()).map(|lane| terminal >> lane & 1 == 1);
            out.extend(children.into_iter().map(|w| PropnetState::from_words(w.into())).zip(ends));
        }
        out
    }

    /// Role `role`'s `candidates` tried in the state `marking` holds, the others playing
    /// `joint`: for candidate k, the values of `lits` (literals of the move phase's marking, e.g.
    /// watched bases' next values) as the bits of `out[k * w..][..w]` (`out` zeroed beforehand),
    /// 64 candidates a pass. The program's outputs must not read inputs (see
    /// [`successors`](Self::successors)).
    #[allow(clippy::too_many_arguments)]
    pub fn lookahead(
        &mut self,
        p: &Program,
        marking: &Forward,
        joint: &[u32],
        role: usize,
        candidates: &[u32],
        lits: &[Lit],
        out: &mut [u64],
        w: usize,
    ) {
        debug_assert!(!p.outputs_read_inputs);
        for (c, chunk) in candidates.chunks(LANES).enumerate() {
            self.load(p, marking);
            let used = set_candidates(p, &mut self.lanes, joint, role, chunk, 0);
            eval::run(p, Phase::Move, &mut self.lanes);
            for (j, &l) in lits.iter().enumerate() {
                for lane in bits(read(&self.lanes, l)[0] & used) {
                    out[(c * LANES + lane) * w + j / 64] |= 1 << (j % 64);
                }
            }
        }
    }

    /// The marking's every slot in every lane, inputs cleared.
    fn load(&mut self, p: &Program, marking: &Forward) {
        self.lanes.clear();
        self.lanes.extend(marking.values().iter().map(|&v| [if v { !0 } else { 0 }]));
        let inputs = p.input_slot(0)..p.input_slot(0) + p.move_count();
        self.lanes[inputs].fill([0]);
    }

    /// Every slot false, sized for `p`.
    fn clear(&mut self, p: &Program) {
        self.lanes.clear();
        self.lanes.resize(p.slots, [0]);
    }
}

/// The lanes below `n` (at most 64): the ones a pass of `n` candidates fills.
pub(super) fn first_lanes(n: usize) -> u64 {
    if n == LANES {
        !0
    } else {
        (1u64 << n) - 1
    }
}

/// Sets the inputs of a look at `role`'s `candidates` (at most 64, the inputs of their lanes
/// clear) in the lanes from `first`: candidate k in lane `first + k`, every other role's move in
/// `joint` in each of those lanes. Returns those lanes.
pub(super) fn set_candidates(
    p: &Program,
    lanes: &mut [[u64; 1]],
    joint: &[u32],
    role: usize,
    candidates: &[u32],
    first: usize,
) -> u64 {
    let used = first_lanes(candidates.len()) << first;
    let others = joint.iter().enumerate().filter(|&(r, _)| r != role).map(|(_, &m)| m);
    for m in others {
        lanes[p.input_slot(m as usize)][0] |= used;
    }
    for (lane, &m) in candidates.iter().enumerate() {
        lanes[p.input_slot(m as usize)][0] |= 1 << (first + lane);
    }
    used
}
