//! Counting the game tree's paths depth first, many nodes a pass
//! ([`StateMachine::count_paths`](::machine::StateMachine::count_paths)).
//!
//! The nodes waiting to be expanded stand on a stack; the nodes on top, as many as have
//! joint moves to fill 64 lanes, are loaded side by side in a [`Stepper`], each joint move of
//! each node in a lane of its own, and one [`Stepper::advance_loaded`] applies them all: a pass
//! over the loaded states' gates the next state reads, one over the move gates and one over the
//! successors' state gates, whatever the branching factor. The successors' terminal flags, legal moves and states are then
//! read for every lane at once, and the successors still to expand go on the stack. Node by node
//! ([`machine::perft_depth_first`]), a node of Connect Four fills seven lanes of its passes; here
//! nine nodes fill 63.
//!
//! The count is the node-by-node walk's, level by level; only the order the paths are counted
//! in differs.

use super::batch::{bits, LANES};
use super::expand::first_lanes;
use super::machine::PropnetState;
use super::step::Stepper;
use ::machine::perft::PerftCut;
use ::machine::PathCounter;

/// A node whose joint moves are still to be applied.
#[derive(Debug)]
struct Node {
    /// The depth of its successors.
    depth: u32,
    /// Where its state's words start in [`Walk::states`].
    state: usize,
    /// Where its legal moves start in [`Walk::moves`]: each role's count, then each role's
    /// moves, role by role.
    moves: usize,
    /// Its joint moves applied so far, in the order of `machine::perft::legal_joint_moves`.
    next: u64,
    /// Its joint moves in all.
    total: u64,
}

/// A walk in progress.
#[derive(Debug)]
struct Walk {
    stepper: Stepper,
    roles: usize,
    /// Words a state.
    words: usize,
    stack: Vec<Node>,
    /// The words of the stack's states, node after node (a stack of its own: a node's are last
    /// while it is on top).
    states: Vec<u64>,
    /// The legal moves of the stack's nodes, laid out likewise.
    moves: Vec<u32>,
    /// Scratch: per role, per lane, its legal moves; per lane, its state's words.
    legal: Vec<Vec<Vec<u32>>>,
    children: Vec<u64>,
}

/// Counts the paths below the non-terminal `root` into `counter`, down to its maximum depth
/// (at least 1), on `stepper` (over the game's program); stops where a limit does.
pub(crate) fn count_paths(stepper: Stepper, root: &PropnetState, counter: &mut PathCounter) -> Result<(), PerftCut> {
    let roles = stepper.program().roles.len();
    let words = stepper.program().base_count().div_ceil(64);
    let mut walk = Walk {
        stepper,
        roles,
        words,
        stack: Vec::new(),
        states: Vec::new(),
        moves: Vec::new(),
        legal: vec![vec![Vec::new(); LANES]; roles],
        children: vec![0; LANES * words],
    };
    walk.stepper.clear();
    walk.stepper.load_lanes(1, root.words());
    walk.stepper.settle();
    walk.children[..words].copy_from_slice(root.words());
    walk.push(1, 1);
    while let Some(depth) = walk.stack.last().map(|n| n.depth) {
        let filled = walk.load_batch(depth);
        walk.stepper.advance_loaded();
        let lanes = first_lanes(filled);
        let terminal = walk.stepper.terminal() & lanes;
        counter.reach_each(depth, (0..filled).map(|lane| terminal >> lane & 1 == 1))?;
        if depth < counter.max_depth() {
            let open = lanes & !terminal;
            walk.stepper.states_into(open, &mut walk.children);
            walk.push(open, depth + 1);
        }
    }
    Ok(())
}

impl Walk {
    /// Loads and stages the joint moves of the nodes on top of the stack at `depth`, as many as
    /// fill the lanes (a node's moves are split between passes only where they would not fill
    /// a pass of their own); pops the nodes whose moves are all staged. Returns the lanes filled,
    /// from lane 0.
    fn load_batch(&mut self, depth: u32) -> usize {
        self.stepper.clear();
        let mut filled = 0;
        while let Some(node) = self.stack.last_mut().filter(|n| n.depth == depth && filled < LANES) {
            let left = node.total - node.next;
            let room = (LANES - filled) as u64;
            if left > room && left <= LANES as u64 && filled > 0 {
                break;
            }
            let take = left.min(room) as usize;
            let lanes = first_lanes(filled + take) & !first_lanes(filled);
            self.stepper.load_lanes(lanes, &self.states[node.state..][..self.words]);
            let stepper = &mut self.stepper;
            stage_node(&self.moves[node.moves..], self.roles, node.next, take, filled, |m, lanes| {
                stepper.stage_move(m, lanes)
            });
            node.next += take as u64;
            filled += take;
            if node.next == node.total {
                let node = self.stack.pop().expect("the node on top");
                self.states.truncate(node.state);
                self.moves.truncate(node.moves);
            }
        }
        filled
    }

    /// Pushes the states of the lanes `open` (their words in `children`, their state gates in
    /// the stepper's lanes) as nodes whose successors stand at `depth`; those without a joint
    /// move (a role with no legal move) have no successor.
    fn push(&mut self, open: u64, depth: u32) {
        for (role, legal) in self.legal.iter_mut().enumerate() {
            self.stepper.legal_by_lane(role, open, legal);
        }
        for lane in bits(open) {
            let total = self.legal.iter().fold(1u64, |n, role| n.saturating_mul(role[lane].len() as u64));
            if total == 0 {
                continue;
            }
            let node = Node { depth, state: self.states.len(), moves: self.moves.len(), next: 0, total };
            self.states.extend_from_slice(&self.children[lane * self.words..][..self.words]);
            self.moves.extend(self.legal.iter().map(|role| role[lane].len() as u32));
            for role in &self.legal {
                self.moves.extend_from_slice(&role[lane]);
            }
            self.stack.push(node);
        }
    }
}

/// Stages joint moves `next..next + take` of a node, joint `next + k` in lane `first + k`, by
/// `stage(move, lanes)`. The node's legal moves are laid out as `moves` begins (each of the
/// `roles` roles' count, then their moves); its joint moves are their product, the last role's
/// move varying fastest. A role's move holds for runs of as many joint moves as the roles after
/// it have joint moves, so a run's lanes are staged at once (a waiting role's one move, once).
fn stage_node(moves: &[u32], roles: usize, next: u64, take: usize, first: usize, mut stage: impl FnMut(u32, u64)) {
    let (counts, lists) = moves.split_at(roles);
    // Role by role from the last, whose runs are one joint move long.
    let (mut stride, mut end) = (1u64, lists.len());
    for &count in counts.iter().rev() {
        end -= count as usize;
        let list = &lists[end..][..count as usize];
        let (mut digit, mut run) = match next {
            0 => (0, stride),
            _ => ((next / stride % u64::from(count)) as usize, stride - next % stride),
        };
        let (mut lane, mut left) = (first, take as u64);
        while left > 0 {
            let n = run.min(left) as usize;
            stage(list[digit], first_lanes(n) << lane);
            lane += n;
            left -= n as u64;
            run = stride;
            digit += 1;
            if digit == list.len() {
                digit = 0;
            }
        }
        stride = stride.saturating_mul(u64::from(count));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nodes_joint_moves_take_lanes_in_the_products_order() {
        // Roles with moves [1, 2], [3] and [4, 5]: the product 1 3 4, 1 3 5, 2 3 4, 2 3 5.
        let moves = [2, 1, 2, 1, 2, 3, 4, 5];
        let staged = |next: u64, take: usize, first: usize| {
            let mut masks = [0u64; 6];
            stage_node(&moves, 3, next, take, first, |m, lanes| {
                assert_eq!(masks[m as usize] & lanes, 0, "lanes staged twice");
                masks[m as usize] |= lanes;
            });
            masks
        };
        assert_eq!(staged(0, 4, 0), [0, 0b0011, 0b1100, 0b1111, 0b0101, 0b1010]);
        // From the second joint move on, three of them from lane 10; the last alone in lane 3.
        let lane = |k: usize| 1u64 << (10 + k);
        assert_eq!(
            staged(1, 3, 10),
            [0, lane(0), lane(1) | lane(2), lane(0) | lane(1) | lane(2), lane(1), lane(0) | lane(2)]
        );
        assert_eq!(staged(3, 1, 3), [0, 0, 0b1000, 0b1000, 0, 0b1000]);
    }
}
