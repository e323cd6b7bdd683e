//! Perft: counting the game tree level by level, exactly as the reference data does
//! (`/work/shared/reference/README.md`, "How perft is counted").
//!
//! Depth `d` is built from the distinct states of depth `d - 1`: terminal states are not expanded,
//! every other state is expanded by every joint move (the cartesian product of one legal move per
//! role), transpositions merge, and each state's path count is added to its successors once per
//! joint move. Depth 0 (the initial state) is not reported.
//!
//! [`perft_depth_first`] counts the same paths one state at a time, depth first and without
//! merging transpositions, as chess engines' and RBG's perft do: the measure of an engine's
//! one-state path (legal moves, next state, terminal) rather than of hashing states.

use std::fmt;
use std::time::Instant;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::{MachineError, StateMachine};

/// The counts of one depth of the game tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PerftLevel {
    /// The depth (number of joint moves from the initial state), from 1.
    pub depth: u32,
    /// Distinct states reached at this depth.
    pub states: u64,
    /// Joint-move sequences of this length that avoid terminal states before their last move.
    pub paths: u128,
    /// How many of the `states` are terminal.
    pub terminal_states: u64,
}

/// Optional caps that let a caller stop perft early; the default never stops.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PerftLimits {
    /// The most joint-move applications (`next_state` calls) allowed in total.
    pub max_expansions: Option<u64>,
    /// The instant after which no further joint move is applied.
    pub deadline: Option<Instant>,
}

/// Why perft stopped before its maximum depth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum PerftCut {
    /// The expansion cap was reached while building `depth`.
    Expansions {
        /// The depth that was not finished.
        depth: u32,
        /// The cap that was reached.
        limit: u64,
    },
    /// The deadline passed while building `depth`.
    Deadline {
        /// The depth that was not finished.
        depth: u32,
    },
}

impl PerftCut {
    /// The first depth that was not finished.
    pub fn depth(&self) -> u32 {
        match *self {
            PerftCut::Expansions { depth, .. } | PerftCut::Deadline { depth } => depth,
        }
    }
}

impl fmt::Display for PerftCut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PerftCut::Expansions { depth, limit } => {
                write!(f, "perft depth {depth} not finished: more than {limit} joint-move applications")
            }
            PerftCut::Deadline { depth } => write!(f, "perft depth {depth} not finished: deadline reached"),
        }
    }
}

/// The outcome of a perft run: every finished depth, and why it stopped early if it did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PerftResult {
    /// The finished depths, 1, 2, ... in order (only complete depths are reported).
    pub levels: Vec<PerftLevel>,
    /// Joint-move applications performed (including those of an unfinished depth).
    pub expansions: u64,
    /// Set when a limit stopped the run before `max_depth`.
    pub cut: Option<PerftCut>,
}

/// Counts the game tree of `m` from its initial state down to `max_depth`, within `limits`.
///
/// Engine errors abort the count. A non-terminal state where some role has no legal move has no
/// joint move, hence no successor.
pub fn perft<M: StateMachine>(m: &mut M, max_depth: u32, limits: &PerftLimits) -> Result<PerftResult, MachineError> {
    let mut budget = Budget::new(limits);
    let root = m.initial_state();
    let terminal = m.is_terminal(&root)?;
    let mut frontier: Level<M::State> = FxHashMap::default();
    frontier.insert(root, Node { paths: 1, terminal });
    let mut levels = Vec::new();
    let mut cut = None;
    for depth in 1..=max_depth {
        frontier = match expand_level(m, &frontier, &mut budget, depth) {
            Ok(next) => next,
            Err(Stop::Cut(c)) => {
                cut = Some(c);
                break;
            }
            Err(Stop::Engine(e)) => return Err(e),
        };
        levels.push(count_level(depth, &frontier));
    }
    Ok(PerftResult { levels, expansions: budget.used, cut })
}

/// A state of the current depth: its path count and whether it is terminal.
struct Node {
    paths: u128,
    terminal: bool,
}

/// The distinct states of one depth.
type Level<S> = FxHashMap<S, Node>;

/// Why building a depth stopped.
enum Stop {
    Cut(PerftCut),
    Engine(MachineError),
}

impl From<MachineError> for Stop {
    fn from(e: MachineError) -> Self {
        Stop::Engine(e)
    }
}

impl From<PerftCut> for Stop {
    fn from(c: PerftCut) -> Self {
        Stop::Cut(c)
    }
}

/// Builds depth `depth` from the previous one: expands every non-terminal state, then marks the
/// new states' terminality.
fn expand_level<M: StateMachine>(
    m: &mut M,
    frontier: &Level<M::State>,
    budget: &mut Budget,
    depth: u32,
) -> Result<Level<M::State>, Stop> {
    let mut paths: FxHashMap<M::State, u128> = FxHashMap::default();
    for (state, node) in frontier.iter().filter(|(_, node)| !node.terminal) {
        for joint in legal_joint_moves(m, state)? {
            budget.spend(depth)?;
            let next = m.next_state(state, &joint)?;
            *paths.entry(next).or_insert(0) += node.paths;
        }
    }
    let mut level = Level::default();
    level.reserve(paths.len());
    for (state, paths) in paths {
        let terminal = m.is_terminal(&state)?;
        level.insert(state, Node { paths, terminal });
    }
    Ok(level)
}

/// The reported counts of one finished depth.
fn count_level<S>(depth: u32, level: &Level<S>) -> PerftLevel {
    PerftLevel {
        depth,
        states: level.len() as u64,
        paths: level.values().map(|n| n.paths).sum(),
        terminal_states: level.values().filter(|n| n.terminal).count() as u64,
    }
}

/// Counts joint-move applications against the limits.
#[derive(Debug)]
struct Budget {
    max: Option<u64>,
    deadline: Option<Instant>,
    used: u64,
}

impl Budget {
    /// The clock is read once every `CLOCK_MASK + 1` applications (a power of two).
    const CLOCK_MASK: u64 = 63;

    fn new(limits: &PerftLimits) -> Self {
        Budget { max: limits.max_expansions, deadline: limits.deadline, used: 0 }
    }

    /// Whether `n` more applications are all allowed: the cap leaves room for them and the
    /// deadline, where one of them would read the clock, has not passed.
    fn allows(&self, n: u64) -> bool {
        let under_cap = self.max.is_none_or(|limit| self.used.saturating_add(n) <= limit);
        let reads_clock =
            n > 0 && (self.used & Self::CLOCK_MASK == 0 || (self.used & Self::CLOCK_MASK) + n > Self::CLOCK_MASK);
        under_cap && !(reads_clock && self.deadline.is_some_and(|d| Instant::now() >= d))
    }

    /// Accounts for one more application at `depth`, or says why it is not allowed.
    fn spend(&mut self, depth: u32) -> Result<(), PerftCut> {
        if let Some(limit) = self.max.filter(|&limit| self.used >= limit) {
            return Err(PerftCut::Expansions { depth, limit });
        }
        let check_clock = self.used & Self::CLOCK_MASK == 0;
        if check_clock && self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(PerftCut::Deadline { depth });
        }
        self.used += 1;
        Ok(())
    }
}

/// The counts of one depth of a depth-first perft.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathLevel {
    /// The depth (number of joint moves from the initial state), from 1.
    pub depth: u32,
    /// Joint-move sequences of this length that avoid terminal states before their last move
    /// (the same count as [`PerftLevel::paths`]).
    pub paths: u128,
    /// How many of those paths end in a terminal state.
    pub terminal_paths: u128,
}

/// The outcome of [`perft_depth_first`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PathCount {
    /// Depths 1 to the maximum. When `cut` is set every count is partial: a depth-first walk
    /// finishes no depth before the end.
    pub levels: Vec<PathLevel>,
    /// Joint moves applied (`next_state` calls).
    pub applications: u64,
    /// Wall time of the walk, in seconds.
    pub elapsed_secs: f64,
    /// Set when a limit stopped the walk.
    pub cut: Option<PerftCut>,
}

impl PathCount {
    /// Joint moves applied per second.
    pub fn applications_per_sec(&self) -> f64 {
        if self.elapsed_secs > 0.0 {
            self.applications as f64 / self.elapsed_secs
        } else {
            0.0
        }
    }
}

/// Counts the paths of the game tree of `m` down to `max_depth` depth first, node by node,
/// within `limits` (see the module's documentation): each node's successors are one
/// [`StateMachine::successors`] call. Each state reached is asked whether it is terminal; states
/// at `max_depth` are not expanded. [`StateMachine::count_paths`] counts the same paths the
/// engine's fastest way.
pub fn perft_depth_first<M: StateMachine>(
    m: &mut M,
    max_depth: u32,
    limits: &PerftLimits,
) -> Result<PathCount, MachineError> {
    let mut counter = PathCounter::new(max_depth, limits);
    let root = m.initial_state();
    let cut = if max_depth == 0 || m.is_terminal(&root)? {
        None
    } else {
        match expand(m, &mut counter, &root, 1) {
            Ok(()) => None,
            Err(Stop::Cut(c)) => Some(c),
            Err(Stop::Engine(e)) => return Err(e),
        }
    };
    Ok(counter.finish(cut))
}

/// A depth-first count in progress: the paths counted so far and what the limits allow. Engines
/// that walk the tree their own way ([`StateMachine::count_paths`]) count through it.
#[derive(Debug)]
pub struct PathCounter {
    budget: Budget,
    levels: Vec<PathLevel>,
    start: Instant,
}

impl PathCounter {
    /// A count of depths 1 to `max_depth` within `limits`, its clock started.
    pub fn new(max_depth: u32, limits: &PerftLimits) -> PathCounter {
        PathCounter {
            budget: Budget::new(limits),
            levels: (1..=max_depth).map(|depth| PathLevel { depth, paths: 0, terminal_paths: 0 }).collect(),
            start: Instant::now(),
        }
    }

    /// The deepest level counted: states there are not expanded.
    pub fn max_depth(&self) -> u32 {
        self.levels.len() as u32
    }

    /// Counts a path into a state at `depth` (from 1 to the maximum), terminal or not: one joint
    /// move applied. Fails, counting nothing, where a limit stops the walk.
    pub fn reach(&mut self, depth: u32, terminal: bool) -> Result<(), PerftCut> {
        self.budget.spend(depth)?;
        let level = &mut self.levels[depth as usize - 1];
        level.paths += 1;
        level.terminal_paths += u128::from(terminal);
        Ok(())
    }

    /// Counts paths into states at `depth` one after another, each terminal or not as
    /// `terminal` says in turn, as [`reach`](Self::reach) counts each: up to the first a limit
    /// refuses. Where no limit can refuse one, they are counted at once.
    pub fn reach_each(&mut self, depth: u32, terminal: impl ExactSizeIterator<Item = bool>) -> Result<(), PerftCut> {
        let n = terminal.len() as u64;
        if self.budget.allows(n) {
            let level = &mut self.levels[depth as usize - 1];
            level.paths += u128::from(n);
            level.terminal_paths += terminal.filter(|&t| t).count() as u128;
            self.budget.used += n;
            return Ok(());
        }
        for t in terminal {
            self.reach(depth, t)?;
        }
        Ok(())
    }

    /// The count, stopped by `cut` if a limit stopped it.
    pub fn finish(self, cut: Option<PerftCut>) -> PathCount {
        let elapsed_secs = self.start.elapsed().as_secs_f64();
        PathCount { levels: self.levels, applications: self.budget.used, elapsed_secs, cut }
    }
}

/// Applies every joint move of the non-terminal `state` at `depth`, and walks on below the
/// non-terminal successors.
fn expand<M: StateMachine>(m: &mut M, counter: &mut PathCounter, state: &M::State, depth: u32) -> Result<(), Stop> {
    let joints = legal_joint_moves(m, state)?;
    if joints.total() <= MAX_EXPANSION {
        for child in m.successors(state)? {
            visit(m, counter, child.state, child.terminal, depth)?;
        }
    } else {
        // Too many joint moves to hold at once (simultaneous moves multiply): one at a time.
        for joint in joints {
            let next = m.next_state(state, &joint)?;
            let terminal = m.is_terminal(&next)?;
            visit(m, counter, next, terminal, depth)?;
        }
    }
    Ok(())
}

/// Counts a path into `state` at `depth` and walks on below it.
fn visit<M: StateMachine>(
    m: &mut M,
    counter: &mut PathCounter,
    state: M::State,
    terminal: bool,
    depth: u32,
) -> Result<(), Stop> {
    counter.reach(depth, terminal)?;
    if !terminal && depth < counter.max_depth() {
        expand(m, counter, &state, depth + 1)?;
    }
    Ok(())
}

/// The most joint moves a depth-first perft expands in one [`StateMachine::successors`] call.
pub const MAX_EXPANSION: u128 = 1 << 16;

/// Every joint move of `state`: the cartesian product of each role's legal moves.
pub fn legal_joint_moves<M: StateMachine>(m: &mut M, state: &M::State) -> Result<JointMoves<M::Move>, MachineError> {
    let legal = (0..m.roles().len()).map(|role| m.legal_moves(state, role)).collect::<Result<Vec<_>, _>>()?;
    Ok(JointMoves::new(legal))
}

/// An iterator over the cartesian product of per-role move lists, last role varying fastest.
///
/// Empty as soon as one role has no move; a game without roles has exactly one (empty) joint move.
#[derive(Debug, Clone)]
pub struct JointMoves<Mv> {
    legal: Vec<Vec<Mv>>,
    index: Vec<usize>,
    done: bool,
}

impl<Mv: Clone> JointMoves<Mv> {
    /// The product of `legal`, one list per role in role order.
    pub fn new(legal: Vec<Vec<Mv>>) -> Self {
        let done = legal.iter().any(Vec::is_empty);
        let index = vec![0; legal.len()];
        JointMoves { legal, index, done }
    }

    /// The number of joint moves in the whole product (saturating).
    pub fn total(&self) -> u128 {
        self.legal.iter().fold(1u128, |acc, moves| acc.saturating_mul(moves.len() as u128))
    }

    /// Moves the odometer to the next combination; marks the iterator done after the last one.
    fn advance(&mut self) {
        for (i, moves) in self.index.iter_mut().zip(&self.legal).rev() {
            *i += 1;
            if *i < moves.len() {
                return;
            }
            *i = 0;
        }
        self.done = true;
    }
}

impl<Mv: Clone> Iterator for JointMoves<Mv> {
    type Item = Vec<Mv>;

    fn next(&mut self) -> Option<Vec<Mv>> {
        if self.done {
            return None;
        }
        let joint = self.index.iter().zip(&self.legal).map(|(&i, moves)| moves[i].clone()).collect();
        self.advance();
        Some(joint)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mock::{Counter, Nim};
    use std::time::Duration;

    fn level(depth: u32, states: u64, paths: u128, terminal_states: u64) -> PerftLevel {
        PerftLevel { depth, states, paths, terminal_states }
    }

    #[test]
    fn nim_counts_by_hand() {
        // Pile of 4, take 1 or 2, player a first. Depth 2 merges (pile 1, a) reached two ways;
        // depth 3 expands (2, a) and (1, a) but not the terminal (0, a).
        let r = perft(&mut Nim::new(4), 5, &PerftLimits::default()).expect("perft");
        assert_eq!(
            r.levels,
            [level(1, 2, 2, 0), level(2, 3, 4, 1), level(3, 2, 4, 1), level(4, 1, 1, 1), level(5, 0, 0, 0)]
        );
        assert_eq!(r.cut, None);
        assert_eq!(r.expansions, 2 + 4 + 3 + 1);
    }

    #[test]
    fn simultaneous_moves_use_the_cartesian_product() {
        // Two players each add 1 or 2 to a counter; terminal at 4 or more.
        // Depth 1: sums 2, 3, 3, 4. Depth 2: from 2 (1 path) 4, 5, 5, 6; from 3 (2 paths) 5, 6, 6, 7.
        let r = perft(&mut Counter::new(4), 3, &PerftLimits::default()).expect("perft");
        assert_eq!(r.levels, [level(1, 3, 4, 1), level(2, 4, 12, 4), level(3, 0, 0, 0)]);
    }

    #[test]
    fn terminal_initial_state_is_not_expanded() {
        let r = perft(&mut Nim::new(0), 2, &PerftLimits::default()).expect("perft");
        assert_eq!(r.levels, [level(1, 0, 0, 0), level(2, 0, 0, 0)]);
    }

    #[test]
    fn a_role_without_moves_blocks_expansion() {
        // In Nim with a stuck state at pile 2, the waiting player has no legal move there.
        let r = perft(&mut Nim::new(4).stuck_at(2), 3, &PerftLimits::default()).expect("perft");
        // Depth 1: (3, b) and the stuck (2, b). Depth 2: (2, a) stuck, (1, a). Depth 3: (0, b).
        assert_eq!(r.levels, [level(1, 2, 2, 0), level(2, 2, 2, 0), level(3, 1, 1, 1)]);
    }

    #[test]
    fn expansion_cap_stops_at_an_unfinished_depth() {
        let limits = PerftLimits { max_expansions: Some(5), deadline: None };
        let r = perft(&mut Nim::new(4), 5, &limits).expect("perft");
        assert_eq!(r.levels, [level(1, 2, 2, 0)]);
        assert_eq!(r.cut, Some(PerftCut::Expansions { depth: 2, limit: 5 }));
        assert_eq!(r.expansions, 5);
        assert_eq!(r.cut.map(|c| c.depth()), Some(2));
    }

    #[test]
    fn past_deadline_stops_immediately() {
        let deadline = Instant::now().checked_sub(Duration::from_millis(1));
        let limits = PerftLimits { max_expansions: None, deadline };
        let r = perft(&mut Nim::new(4), 3, &limits).expect("perft");
        assert!(r.levels.is_empty());
        assert_eq!(r.cut, Some(PerftCut::Deadline { depth: 1 }));
    }

    #[test]
    fn depth_first_counts_the_same_paths() {
        // Nim by hand (see `nim_counts_by_hand`): piles 3, 2; then 2, 1, 1, 0 (one path ends);
        // then 1, 0 from 2 and 0 from each 1 (three end); then 0 from 1. Transpositions are
        // not merged, so every path into an ended state counts.
        let r = perft_depth_first(&mut Nim::new(4), 5, &PerftLimits::default()).expect("perft");
        let paths: Vec<u128> = r.levels.iter().map(|l| l.paths).collect();
        assert_eq!(paths, [2, 4, 4, 1, 0]);
        let terminal: Vec<u128> = r.levels.iter().map(|l| l.terminal_paths).collect();
        assert_eq!(terminal, [0, 1, 3, 1, 0]);
        assert_eq!(r.applications, 2 + 4 + 4 + 1);
        assert_eq!(r.cut, None);
        for (machine, depth) in [(Counter::new(4), 3), (Counter::new(9), 4)] {
            let mut m = machine;
            let bfs = perft(&mut m, depth, &PerftLimits::default()).expect("perft");
            let dfs = perft_depth_first(&mut m, depth, &PerftLimits::default()).expect("perft");
            let by_level: Vec<u128> = bfs.levels.iter().map(|l| l.paths).collect();
            assert_eq!(dfs.levels.iter().map(|l| l.paths).collect::<Vec<_>>(), by_level);
        }
    }

    #[test]
    fn depth_first_stops_at_its_limits() {
        let limits = PerftLimits { max_expansions: Some(5), deadline: None };
        let r = perft_depth_first(&mut Nim::new(4), 5, &limits).expect("perft");
        assert_eq!(r.applications, 5);
        assert!(matches!(r.cut, Some(PerftCut::Expansions { limit: 5, .. })));
        let r = perft_depth_first(&mut Nim::new(0), 3, &PerftLimits::default()).expect("perft");
        assert_eq!((r.applications, r.levels.len()), (0, 3));
    }

    #[test]
    fn joint_moves_enumerate_the_product() {
        let all: Vec<Vec<u8>> = JointMoves::new(vec![vec![1, 2], vec![3], vec![4, 5]]).collect();
        assert_eq!(all, [vec![1, 3, 4], vec![1, 3, 5], vec![2, 3, 4], vec![2, 3, 5]]);
        assert_eq!(JointMoves::new(vec![vec![1u8, 2], vec![]]).count(), 0);
        assert_eq!(JointMoves::<u8>::new(vec![]).count(), 1);
        assert_eq!(JointMoves::new(vec![vec![1u8, 2], vec![3, 4, 5]]).total(), 6);
    }

    #[test]
    fn levels_roundtrip_through_json_with_large_paths() {
        let l = level(3, 2, u128::from(u64::MAX) * 7, 0);
        let text = serde_json::to_string(&l).expect("serialise");
        assert_eq!(serde_json::from_str::<PerftLevel>(&text).expect("parse"), l);
    }
}
