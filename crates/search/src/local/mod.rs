//! Local forced-win search (the Sancho blog, July 2015): iterative deepening for wins of one
//! role within N of its own moves, looking only where a win can come from.
//!
//! The role's own moves are restricted to *efficient* ones: within the region the move distance
//! allows around a seed move, and within goal distance of the moves left. Those restrictions
//! only make the search miss wins, never claim false ones. The opponent's replies are
//! restricted too, but exactly: a reply is *relevant* when its effects can reach, through the
//! moves still to be played, what one of the role's possible moves reads or a condition that
//! can still come true in time. Every other reply is a *tenuki*: none of them can change how the
//! role's line plays out or how the game ends within the horizon, so one of them stands for all.
//! Below a tenuki the searched state differs from the real one outside what matters; where the
//! real game might offer a tenuki the searched state cannot stand for (no irrelevant reply is
//! legal there), the node is not proved. A reported win therefore replays as a forced win on
//! the full game tree.
//!
//! Results are binary and pruned hard: at an opponent node the first reply that escapes ends
//! the node. The search runs for one role at a time, in strictly alternating play (a node where
//! the same role moves twice, or both roles choose, proves nothing).

use analysis::{multi_source, Locality, Outcome, FAR};
use machine::{MachineError, StateMachine};
use propnet::{Net, Program, PropnetMachine, PropnetState};
use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

#[cfg(test)]
mod tests;

/// The most entries the table of proved and refuted positions keeps per iteration.
const TABLE_LIMIT: usize = 1 << 21;

/// What one local search proved.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LocalResult {
    /// The deepest iteration finished, in the role's own moves.
    pub depth: u32,
    /// The fewest own moves within which the role was proved to win from the state.
    pub win: Option<u32>,
    /// Moves of the player to move at the root proved to lead to the role's win, each with the
    /// own moves the win needs after it: the role's winning moves on its turn, the opponent's
    /// losing moves on the opponent's.
    pub decided: Vec<(u32, u32)>,
    /// On the opponent's turn: the own moves within which the role wins whatever the opponent
    /// plays outside the region (every such move then loses), if proved.
    pub tenuki: Option<u32>,
    /// Positions visited.
    pub nodes: u64,
    /// Seconds of searching after which each iteration finished (depth 1 first).
    pub finished: Vec<f64>,
    /// Whether the role was to move in the state searched.
    pub to_move: bool,
}

impl LocalResult {
    /// The plies (moves of either role) a win in `own` of the role's moves takes from the root.
    pub fn plies(&self, own: u32) -> u32 {
        if self.to_move {
            2 * own - 1
        } else {
            2 * own
        }
    }
}

/// Why a search stopped early.
enum Stop {
    Time,
    Machine(MachineError),
}

impl From<MachineError> for Stop {
    fn from(e: MachineError) -> Stop {
        Stop::Machine(e)
    }
}

/// A local searcher for one game: the net, its locality analysis and a machine.
pub struct LocalSearch {
    net: Arc<Net>,
    locality: Arc<Locality>,
    machine: PropnetMachine,
    /// Per role, the predecessor lists restricted to the role's own moves.
    own_predecessors: Vec<Vec<Vec<u32>>>,
    /// Set by another thread to stop the search under way as if its deadline had passed.
    cancel: Option<Arc<AtomicBool>>,
    /// Called every [`CHECK_EVERY`] positions, before the deadline and the cancel flag are
    /// looked at: the owner's chance to pause the search where it stands.
    throttle: Option<Box<dyn FnMut() + Send>>,
}

/// How many positions the search visits between looks at its clock, flag and throttle.
const CHECK_EVERY: u64 = 1024;

/// The per-iteration data: which moves count, and the table.
struct Plan {
    role: usize,
    opponent: usize,
    best: u32,
    /// Per own-moves-left k (index k), the role's moves it may play with k moves left.
    region: Vec<Vec<bool>>,
    /// Per k, each move's distance to `region[k]`.
    to_region: Vec<Vec<u8>>,
    /// Each move's distance to a move that can change a condition that may come true in time.
    to_goal: Vec<u8>,
    /// Each of the role's moves' distance along its own moves to completing its best score.
    own_goal: Vec<u8>,
    table: FxHashMap<(PropnetState, u32, bool), bool>,
    /// Per own-moves-left k, the role's move that last won and the opponent's reply that last
    /// escaped there: tried first at the next node with k left (the killer heuristic), since
    /// in a local fight the same move tends to decide its siblings too.
    killers: Vec<[Option<u32>; 2]>,
    nodes: u64,
    deadline: Instant,
}

impl LocalSearch {
    /// A searcher over `program` (compiled from `net`) with `locality` analysed from `net`.
    pub fn new(net: Arc<Net>, program: Arc<Program>, locality: Arc<Locality>) -> LocalSearch {
        let own_predecessors = (0..net.roles.len()).map(|role| locality.own_predecessors(&net, role)).collect();
        let machine = PropnetMachine::from_program(program);
        LocalSearch { net, locality, machine, own_predecessors, cancel: None, throttle: None }
    }

    /// Lets another thread stop searches early by setting `flag` (the search clears nothing:
    /// the owner resets it before the next search).
    pub fn set_cancel(&mut self, flag: Arc<AtomicBool>) {
        self.cancel = Some(flag);
    }

    /// Has the search call `throttle` every [`CHECK_EVERY`] positions, so that its owner can
    /// pause it mid-iteration (to keep a thread to a share of a core) without losing its work.
    pub fn set_throttle(&mut self, throttle: Box<dyn FnMut() + Send>) {
        self.throttle = Some(throttle);
    }

    /// Searches for wins of `role` from `state` by iterative deepening up to `max_depth` of its
    /// own moves, around the move `seed` (none: the whole board), until `deadline`.
    pub fn search(
        &mut self,
        state: &PropnetState,
        role: usize,
        seed: Option<u32>,
        max_depth: u32,
        deadline: Instant,
    ) -> Result<LocalResult, MachineError> {
        let Some(mut result) = self.begin(state, role)? else { return Ok(LocalResult::default()) };
        while result.depth < max_depth && result.win.is_none() {
            if !self.deepen(state, role, seed, &mut result, deadline)? {
                break;
            }
        }
        Ok(result)
    }

    /// The empty result a search for `role` from `state` starts from, or `None` where the
    /// search can prove nothing (not two roles, no conditions, the game over, or not one
    /// role alone to move).
    pub fn begin(&mut self, state: &PropnetState, role: usize) -> Result<Option<LocalResult>, MachineError> {
        if self.net.roles.len() != 2 || self.locality.conditions.is_empty() || self.machine.is_terminal(state)? {
            return Ok(None);
        }
        let ours = self.machine.legal_moves(state, role)?.len();
        let theirs = self.machine.legal_moves(state, 1 - role)?.len();
        let to_move = match (ours, theirs) {
            (_, 1) => true,
            (1, _) => false,
            _ => return Ok(None),
        };
        Ok(Some(LocalResult { to_move, ..LocalResult::default() }))
    }

    /// Runs the next iteration (one more own move) of the search `result` holds, begun by
    /// [`LocalSearch::begin`] for `role` at `state`; false when the deadline or the cancel
    /// flag stopped it first.
    pub fn deepen(
        &mut self,
        state: &PropnetState,
        role: usize,
        seed: Option<u32>,
        result: &mut LocalResult,
        deadline: Instant,
    ) -> Result<bool, MachineError> {
        let start = Instant::now();
        let our_turn = result.to_move;
        let root_moves = self.machine.legal_moves(state, if our_turn { role } else { 1 - role })?;
        let n = result.depth + 1;
        let mut plan = self.plan(state, role, seed, n, deadline);
        let undecided: Vec<u32> =
            root_moves.iter().copied().filter(|m| !result.decided.iter().any(|(d, _)| d == m)).collect();
        // A stopped iteration keeps what it proved (every finding is sound on its own); the
        // next call repeats it for the moves still undecided.
        let outcome = self.root(&mut plan, state, our_turn, n, &undecided, result);
        result.nodes += plan.nodes;
        match outcome {
            Ok(()) => {
                let spent = result.finished.last().copied().unwrap_or(0.0) + start.elapsed().as_secs_f64();
                result.depth = n;
                result.finished.push(spent);
                Ok(true)
            }
            Err(Stop::Time) => Ok(false),
            Err(Stop::Machine(e)) => Err(e),
        }
    }

    /// One iteration at the root: every root move not yet decided, and the tenuki.
    fn root(
        &mut self,
        plan: &mut Plan,
        state: &PropnetState,
        our_turn: bool,
        n: u32,
        undecided: &[u32],
        result: &mut LocalResult,
    ) -> Result<(), Stop> {
        if our_turn {
            let other = self.machine.legal_moves(state, plan.opponent)?[0];
            let candidates: Vec<u32> =
                undecided.iter().copied().filter(|&m| plan.region[n as usize][m as usize]).collect();
            for mv in candidates {
                let next = self.machine.next_state(state, &joint(plan.role, mv, other))?;
                if self.wins(plan, &next, n - 1, false, plan.role)? {
                    result.decided.push((mv, n));
                    result.win = Some(n);
                    return Ok(());
                }
            }
            return Ok(());
        }
        let ours = self.machine.legal_moves(state, plan.role)?[0];
        if result.tenuki.is_none() {
            let theirs = self.machine.legal_moves(state, plan.opponent)?;
            if let Some(&t) = theirs.iter().find(|&&m| !self.relevant(plan, m, n)) {
                let next = self.machine.next_state(state, &joint(plan.opponent, t, ours))?;
                if self.wins(plan, &next, n, true, plan.opponent)? {
                    result.tenuki = Some(n);
                }
            }
        }
        for &mv in undecided {
            if !self.relevant(plan, mv, n) {
                if let Some(t) = result.tenuki {
                    result.decided.push((mv, t));
                }
                continue;
            }
            let next = self.machine.next_state(state, &joint(plan.opponent, mv, ours))?;
            if self.wins(plan, &next, n, false, plan.opponent)? {
                result.decided.push((mv, n));
            }
        }
        if undecided.iter().all(|m| result.decided.iter().any(|(d, _)| d == m)) {
            result.win = Some(n);
        }
        Ok(())
    }

    /// Whether the role wins from `state` within `left` own moves; `mover` moved into it and
    /// `displaced` says a tenuki was played on the way (the state may differ from the real one
    /// outside what matters).
    fn wins(
        &mut self,
        plan: &mut Plan,
        state: &PropnetState,
        left: u32,
        displaced: bool,
        mover: usize,
    ) -> Result<bool, Stop> {
        plan.nodes += 1;
        if plan.nodes.is_multiple_of(CHECK_EVERY) {
            if let Some(throttle) = self.throttle.as_mut() {
                throttle();
            }
            if Instant::now() > plan.deadline || self.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed)) {
                return Err(Stop::Time);
            }
        }
        if self.machine.is_terminal(state)? {
            return Ok(self.machine.goal_values(state, plan.role)?.contains(&plan.best));
        }
        if left == 0 {
            return Ok(false);
        }
        let key = (state.clone(), left, displaced);
        if let Some(&known) = plan.table.get(&key) {
            return Ok(known);
        }
        let ours = self.machine.legal_moves(state, plan.role)?;
        let theirs = self.machine.legal_moves(state, plan.opponent)?;
        let won = match (ours.len(), theirs.len()) {
            (0, _) | (_, 0) => false,
            (_, 1) if mover != plan.role => {
                let mut candidates: Vec<u32> =
                    ours.into_iter().filter(|&m| plan.region[left as usize][m as usize]).collect();
                candidates.sort_by_key(|&m| plan.own_goal[m as usize]);
                killer_first(&mut candidates, plan.killers[left as usize][0]);
                let mut won = false;
                for mv in candidates {
                    let next = self.machine.next_state(state, &joint(plan.role, mv, theirs[0]))?;
                    if self.wins(plan, &next, left - 1, displaced, plan.role)? {
                        plan.killers[left as usize][0] = Some(mv);
                        won = true;
                        break;
                    }
                }
                won
            }
            (1, _) if mover != plan.opponent => {
                let mut replies: Vec<u32> = theirs.iter().copied().filter(|&m| self.relevant(plan, m, left)).collect();
                replies.sort_by_key(|&m| (plan.to_goal[m as usize], plan.to_region[left as usize][m as usize]));
                killer_first(&mut replies, plan.killers[left as usize][1]);
                // One irrelevant reply stands for them all; below an earlier tenuki the real
                // game may have one even when this state has none, and then nothing is proved.
                let mut won = match theirs.iter().find(|&&m| !self.relevant(plan, m, left)) {
                    Some(&t) => {
                        let next = self.machine.next_state(state, &joint(plan.opponent, t, ours[0]))?;
                        self.wins(plan, &next, left, true, plan.opponent)?
                    }
                    None => !displaced,
                };
                for mv in replies {
                    if !won {
                        break;
                    }
                    let next = self.machine.next_state(state, &joint(plan.opponent, mv, ours[0]))?;
                    won = self.wins(plan, &next, left, displaced, plan.opponent)?;
                    if !won {
                        plan.killers[left as usize][1] = Some(mv);
                    }
                }
                won
            }
            // Both choose, or the same role moves twice: outside what the search can prove.
            _ => false,
        };
        if plan.table.len() < TABLE_LIMIT {
            plan.table.insert(key, won);
        }
        Ok(won)
    }

    /// Whether the opponent's move `mv`, with `left` own moves of the role to follow, can
    /// matter: its effects can reach a move the role may still play, through at most `left`
    /// moves (the opponent's `left - 1` and the role's move that reads them), or a condition
    /// that may come true, through the opponent's `left - 1` further moves.
    fn relevant(&self, plan: &Plan, mv: u32, left: u32) -> bool {
        let near = u32::from(plan.to_region[left as usize][mv as usize]) <= left;
        let to_goal = plan.to_goal[mv as usize];
        near || (to_goal != FAR && u32::from(to_goal) < left)
    }

    /// What iteration `n` looks at from `state`.
    fn plan(&self, state: &PropnetState, role: usize, seed: Option<u32>, n: u32, deadline: Instant) -> Plan {
        let (net, l) = (&*self.net, &*self.locality);
        let opponent = 1 - role;
        // Conditions that may come true within the horizon (2n plies at most).
        let horizon = 2 * n;
        let mut watched = vec![false; net.bases.len()];
        let mut ours_best = vec![false; net.bases.len()];
        let mut best = 0;
        for c in &l.conditions {
            let own = match c.outcome {
                Outcome::Terminal => false,
                Outcome::Best { role: r, value } if r == role => {
                    best = value;
                    true
                }
                Outcome::Best { .. } => continue,
            };
            for d in c.disjuncts.iter().flatten().filter(|d| l.moves_needed(d, state.words()) <= horizon) {
                for &(b, v) in &d.literals {
                    watched[b as usize] = true;
                    // What the role still has to change to complete it.
                    if own && state.contains(b as usize) != v {
                        ours_best[b as usize] = true;
                    }
                }
            }
        }
        let touches = |j: usize, set: &[bool]| l.footprint[j].iter().any(|&b| set[b as usize]);
        let writers: Vec<u32> = (0..net.moves.len()).filter(|&j| touches(j, &watched)).map(|j| j as u32).collect();
        let to_goal = multi_source(&l.predecessors, &writers);
        let finishers: Vec<u32> = (0..net.moves.len())
            .filter(|&j| net.moves[j].role == role && touches(j, &ours_best))
            .map(|j| j as u32)
            .collect();
        let own_goal = multi_source(&self.own_predecessors[role], &finishers);
        let near_seed = |j: u32| seed.is_none_or(|s| u32::from(l.distance(s, j).min(l.distance(j, s))) <= n);
        let region: Vec<Vec<bool>> = (0..=n)
            .map(|k| {
                (0..net.moves.len() as u32)
                    .map(|j| {
                        net.moves[j as usize].role == role
                            && near_seed(j)
                            && own_goal[j as usize] != FAR
                            && u32::from(own_goal[j as usize]) < k
                    })
                    .collect()
            })
            .collect();
        let to_region = region
            .iter()
            .map(|r| {
                let sources: Vec<u32> = (0..r.len() as u32).filter(|&j| r[j as usize]).collect();
                multi_source(&l.predecessors, &sources)
            })
            .collect();
        Plan {
            role,
            opponent,
            best,
            region,
            to_region,
            to_goal,
            own_goal,
            table: FxHashMap::default(),
            killers: vec![[None; 2]; n as usize + 1],
            nodes: 0,
            deadline,
        }
    }
}

/// Moves `killer` to the front of `moves` if it is there, keeping the others' order.
fn killer_first(moves: &mut [u32], killer: Option<u32>) {
    if let Some(at) = killer.and_then(|k| moves.iter().position(|&m| m == k)) {
        moves[..=at].rotate_right(1);
    }
}

/// The joint move with `mv` for `role` and `other` for the other of two roles.
fn joint(role: usize, mv: u32, other: u32) -> [u32; 2] {
    if role == 0 {
        [mv, other]
    } else {
        [other, mv]
    }
}
