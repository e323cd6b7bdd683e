//! Monte Carlo tree search over a game's propnet, for any number of roles, turn-taking or
//! simultaneous, zero-sum or not.
//!
//! Every node keeps, per role and legal move, that role's visit count and score sum; each role
//! picks its own move by UCB on its own statistics (decoupled selection), so a turn-taking game is
//! plain UCT (the roles not to move have one move). Nodes are shared by state in a bounded pool
//! that trims the least recently visited ones when it is full (`tree`). Proven results
//! propagate up (MCTS-solver): a terminal node is proven; so is a node whose mover has a proven
//! move worth the most it can still achieve, or all of whose moves are proven (the best for the
//! mover, the shortest win or the longest loss among equals); a simultaneous node only when all
//! its joint moves are proven to give the same scores.
//!
//! With the analysis' goal latches, a state whose scores are all decided counts as terminal, the
//! most a mover can still achieve (rather than the game's best score) makes a proven move
//! decisive, selection leans towards moves that keep the maximum and raise the minimum, and
//! playouts look one move ahead at the latches, avoiding moves that lower the mover's maximum
//! and taking those that raise its minimum (`playout`). Without them every playout is
//! bit-sliced: up to 64 leaves chosen with virtual loss are played out in one pass.
//!
//! The search runs on any [`SearchMachine`]: on a propnet as described, on the reasoner (for a
//! game whose net cannot be built) with plain random playouts, one at a time, and no guide.
//!
//! The tree lives on the calling thread; with more than one thread (and a machine whose states
//! other threads can share), workers with machines of their own play the leaves while the tree
//! thread selects the next ones.

mod engines;
mod playout;
mod tree;

#[cfg(test)]
mod tests;

pub use self::engines::SearchMachine;
pub use self::playout::{Guide, Lookahead, Outcome, Settings};
use self::tree::{Edge, Kind, Node, NodeRef, Pool, Proof};
use machine::MachineError;
use propnet::{Program, PropnetMachine};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;
use std::sync::{mpsc, Arc};
use std::time::Instant;

/// Selection stops this deep and plays out from there (games whose states repeat can otherwise
/// lead it round a cycle of expanded nodes for ever).
const MAX_PATH: usize = 1000;

/// Leaves per batch for guided playouts, which run one at a time and gain nothing from more.
const GUIDED_BATCH: usize = 4;

/// How the search runs.
#[derive(Debug, Clone)]
pub struct MctsConfig {
    /// Threads playing out leaves (1: everything on the calling thread, reproducibly).
    pub threads: usize,
    /// Seeds every random choice.
    pub seed: u64,
    /// The most nodes kept; a full pool drops its least recently visited eighth.
    pub max_nodes: usize,
    /// The most memory the nodes may take (estimated); the pool is full at whichever of the
    /// two limits comes first.
    pub max_bytes: usize,
    /// UCB's exploration constant, for scores scaled to 0..=1.
    pub exploration: f64,
    /// Weight of the goal-latch hint in selection (a change of the achievable range, fading
    /// with visits).
    pub latch_bias: f64,
    /// Steer playouts with the goal latches (when there are any); otherwise playouts are
    /// uniformly random and bit-sliced.
    pub guided_playouts: bool,
    /// Leaves selected before their playouts run (at most 64, one bit-sliced pass).
    pub batch: usize,
    /// Joint moves after which a playout is cut off.
    pub max_playout_steps: u32,
}

impl Default for MctsConfig {
    fn default() -> MctsConfig {
        MctsConfig {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            seed: 0,
            max_nodes: 4_000_000,
            max_bytes: 512 << 20,
            exploration: 0.7,
            latch_bias: 0.5,
            guided_playouts: true,
            batch: 64,
            max_playout_steps: 10_000,
        }
    }
}

/// A complete line of play of a single-player game from the current root, and its score.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Plan<Mv = u32> {
    /// The moves, first to last.
    pub moves: Vec<Mv>,
    /// The score the line reaches.
    pub score: u32,
}

/// One root move of one role, for display.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MoveStats<Mv = u32> {
    /// The move.
    pub mv: Mv,
    /// Iterations that chose it.
    pub visits: u64,
    /// The role's mean score over them (0..=100), if any.
    pub mean: Option<f64>,
    /// The role's proven score after it, where the solver knows it.
    pub proven: Option<u32>,
}

/// The work done so far and the state of the tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SearchStats {
    /// Iterations (selections that reached a leaf and backed up a score), all searches together.
    pub iterations: u64,
    /// Playouts run (iterations whose leaf was not already decided).
    pub playouts: u64,
    /// Nodes in the pool.
    pub nodes: usize,
    /// The most nodes the pool holds.
    pub max_nodes: usize,
    /// The estimated bytes the nodes take.
    pub bytes: usize,
    /// Times the pool was full and trimmed.
    pub trims: u64,
    /// Iterations through the current root.
    pub root_visits: u64,
    /// Every role's proven score from the root, if the solver has it.
    pub proven: Option<Vec<u32>>,
    /// Joint moves to the end of the proven line.
    pub proven_depth: Option<u32>,
}

/// A leaf reached by selection and the way there.
struct Leaf<M: SearchMachine> {
    /// The nodes where moves were chosen, root first.
    path: Vec<NodeRef>,
    /// Per node of `path`, every role's move index.
    choices: Vec<u32>,
    /// The node at the end, if it has one (the pool may have had no room).
    node: Option<NodeRef>,
    /// Where its playout starts.
    state: Option<M::State>,
    /// The moves from the root (single-player games, for plans).
    moves: Vec<M::Move>,
}

impl<M: SearchMachine> Default for Leaf<M> {
    fn default() -> Leaf<M> {
        Leaf { path: Vec::new(), choices: Vec::new(), node: None, state: None, moves: Vec::new() }
    }
}

/// What a selection found.
enum Selected<M: SearchMachine> {
    /// A leaf whose scores are proven.
    Known(Leaf<M>, Box<[u8]>),
    /// A leaf to play out.
    Playout(Leaf<M>),
}

/// A playing thread's random numbers and scratch (its machine is the tree's, or one of the
/// search's helpers).
struct Worker<M: SearchMachine> {
    rng: SmallRng,
    scratch: M::Scratch,
}

/// A Monte Carlo tree search that keeps its tree between moves.
pub struct Mcts<M: SearchMachine = PropnetMachine> {
    guide: Option<Arc<Guide>>,
    config: MctsConfig,
    roles: usize,
    /// The tree thread's machine (expansion, and the playouts when the search has one thread).
    machine: M,
    /// With more than one thread, one machine per worker.
    helpers: Vec<M>,
    workers: Vec<Worker<M>>,
    pool: Pool<M>,
    root: NodeRef,
    rng: SmallRng,
    /// Counts selections; a node remembers the last one through it.
    tick: u64,
    iterations: u64,
    playouts: u64,
    /// Per role, the lowest and highest goal value the game has.
    game_range: Vec<(u8, u8)>,
    plan: Option<Plan<M::Move>>,
}

impl<M: SearchMachine> std::fmt::Debug for Mcts<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mcts").field("roles", &self.roles).field("stats", &self.stats()).finish_non_exhaustive()
    }
}

/// A goal value as a score, 0 where the rules give no single value.
fn score(goal: &Result<u32, MachineError>) -> u8 {
    goal.as_ref().map_or(0, |&v| v.min(100) as u8)
}

impl Mcts<PropnetMachine> {
    /// A search on `program`'s net from its initial state, using the analysis' goal latches in
    /// `guide` (if any) as the module header describes.
    pub fn new(program: Arc<Program>, guide: Option<Arc<Guide>>, config: MctsConfig) -> Result<Mcts, MachineError> {
        Mcts::on(PropnetMachine::from_program(program), guide, config)
    }
}

impl<M: SearchMachine> Mcts<M> {
    /// A search on `machine` from the initial state, using the analysis' goal latches in `guide`
    /// (if any, and if the machine's states are the bitsets they read) as the module header
    /// describes.
    pub fn on(mut machine: M, guide: Option<Arc<Guide>>, config: MctsConfig) -> Result<Mcts<M>, MachineError> {
        let roles = machine.roles().len();
        let game_range = (0..roles)
            .map(|r| machine.goal_range(r).map_or((0, 100), |(lo, hi)| (lo.min(100) as u8, hi.min(100) as u8)))
            .collect();
        let threads = config.threads.max(1);
        let helpers: Vec<M> = match threads {
            1 => Vec::new(),
            _ => (0..threads).map_while(|_| machine.fork()).collect(),
        };
        let workers = (0..helpers.len().max(1) as u64)
            .map(|w| Worker {
                rng: SmallRng::seed_from_u64(config.seed.wrapping_add(w + 1)),
                scratch: M::Scratch::default(),
            })
            .collect();
        let initial = machine.initial_state();
        let bits = M::bits(&initial).is_some();
        let mut mcts = Mcts {
            guide: guide.filter(|g| bits && !g.is_empty()),
            pool: Pool::new(config.max_nodes, config.max_bytes),
            rng: SmallRng::seed_from_u64(config.seed),
            config,
            roles,
            machine,
            helpers,
            workers,
            root: NodeRef::default(),
            tick: 0,
            iterations: 0,
            playouts: 0,
            game_range,
            plan: None,
        };
        mcts.root = mcts.node_for(initial)?;
        Ok(mcts)
    }

    /// The machine the tree is built on (to print or find moves).
    pub fn machine(&self) -> &M {
        &self.machine
    }

    /// The state at the root: the current state of the game.
    pub fn root_state(&self) -> &M::State {
        &self.root_node().state
    }

    /// Searches until `until` (or until the root is proven).
    pub fn search(&mut self, until: Instant) -> Result<SearchStats, MachineError> {
        self.run(Some(until), None)
    }

    /// Runs `iterations` more iterations (fewer if the root is proven first); with one thread
    /// the result depends only on the seed.
    pub fn search_iterations(&mut self, iterations: u64) -> Result<SearchStats, MachineError> {
        self.run(None, Some(iterations))
    }

    /// Moves the root along the joint move the game took (one move per role): the subtree
    /// below it, and the rest of the table until it is trimmed, stays.
    pub fn advance(&mut self, joint: &[M::Move]) -> Result<(), MachineError> {
        if joint.len() != self.roles {
            return Err(MachineError::WrongMoveCount { expected: self.roles, got: joint.len() });
        }
        let root = self.root_node();
        let mut choice = Vec::with_capacity(self.roles);
        for (r, &mv) in joint.iter().enumerate() {
            match (0..root.move_count(r)).find(|&i| root.role_move(r, i) == mv) {
                Some(i) => choice.push(i as u32),
                None => {
                    let (role, mv) = (self.machine.roles()[r].clone(), self.machine.format_move(&mv));
                    return Err(MachineError::IllegalMove { role, mv });
                }
            }
        }
        let known = root.child(root.key(&choice)).filter(|&c| self.pool.get(c).is_some());
        let state = root.state.clone();
        let child = match known {
            Some(child) => child,
            None => {
                let next = self.machine.next_state(&state, joint)?;
                self.tick += 1;
                self.node_for(next)?
            }
        };
        self.root = child;
        if self.roles == 1 {
            self.plan = self.plan.take().filter(|p| p.moves.first() == joint.first()).map(|mut p| {
                p.moves.remove(0);
                p
            });
        }
        Ok(())
    }

    /// The move to play for `role`: the proven best if the root is solved (the shortest win,
    /// the longest loss), else the most visited move among those not proven worse than another;
    /// in a single-player game, the best plan's next move unless a move is proven to do better.
    /// `None` when the role has no legal move (the game is over).
    pub fn best_move(&self, role: usize) -> Option<M::Move> {
        let root = self.root_node();
        let count = if role < self.roles { root.move_count(role) } else { 0 };
        if count <= 1 {
            return (count == 1).then(|| root.role_move(role, 0));
        }
        let proven: Vec<Option<&Proof>> = (0..count).map(|i| self.child_proof(root, role, i)).collect();
        let proven_best = proven.iter().flatten().map(|p| p.scores[role]).max();
        if let Some(plan) = self.plan.as_ref().filter(|p| !p.moves.is_empty()) {
            if proven_best.is_none_or(|best| u32::from(best) <= plan.score) {
                return plan.moves.first().copied();
            }
        }
        let best_possible = root.range[role].1;
        let lowest = root.range[role].0;
        let decided = proven.iter().enumerate().filter_map(|(i, p)| Some((i, (*p)?)));
        let decided = decided.max_by(|a, b| compare(a.1, b.1, role, best_possible));
        if let Some((i, p)) = decided {
            if p.scores[role] >= best_possible || proven.iter().all(Option::is_some) {
                return Some(root.role_move(role, i));
            }
        }
        let by_visits = |&i: &usize| (root.edge(role, i).visits, ordered(root.edge(role, i).mean()));
        let open = (0..count).filter(|&i| proven[i].is_none()).max_by_key(by_visits);
        // The best proven move against the most visited open one: a proven loss never wins, and
        // the open move must beat the proven score on average.
        let pick = match (decided, open) {
            (Some((i, p)), Some(j)) => {
                let value = f64::from(p.scores[role]);
                let proven_better = p.scores[role] > lowest && root.edge(role, j).mean().is_none_or(|m| value >= m);
                if proven_better {
                    i
                } else {
                    j
                }
            }
            (Some((i, _)), None) => i,
            (None, Some(j)) => j,
            (None, None) => return None,
        };
        Some(root.role_move(role, pick))
    }

    /// The legal root move of `role` that the machine prints as `name` (canonical KIF).
    pub fn root_move(&self, role: usize, name: &str) -> Option<M::Move> {
        let root = self.root_node();
        let count = if role < self.roles { root.move_count(role) } else { 0 };
        (0..count).map(|i| root.role_move(role, i)).find(|mv| self.machine.format_move(mv) == name)
    }

    /// Every legal root move of `role` with its statistics.
    pub fn move_stats(&self, role: usize) -> Vec<MoveStats<M::Move>> {
        let root = self.root_node();
        let count = if role < self.roles { root.move_count(role) } else { 0 };
        (0..count)
            .map(|i| MoveStats {
                mv: root.role_move(role, i),
                visits: u64::from(root.edge(role, i).visits),
                mean: root.edge(role, i).mean(),
                proven: self.child_proof(root, role, i).map(|p| u32::from(p.scores[role])),
            })
            .collect()
    }

    /// The best complete line found so far (single-player games).
    pub fn plan(&self) -> Option<&Plan<M::Move>> {
        self.plan.as_ref()
    }

    /// Offers a line of play from the root of a single-player game (found by a puzzle solver,
    /// say); it is kept, and [`best_move`](Self::best_move) follows it, if it scores more than
    /// the best line so far.
    pub fn offer_plan(&mut self, plan: Plan<M::Move>) {
        if self.roles == 1 && self.plan.as_ref().is_none_or(|p| plan.score > p.score) {
            self.plan = Some(plan);
        }
    }

    /// The work done so far and the state of the tree.
    pub fn stats(&self) -> SearchStats {
        let root = self.root_node();
        let proof = root.proof.as_ref();
        SearchStats {
            iterations: self.iterations,
            playouts: self.playouts,
            nodes: self.pool.len(),
            max_nodes: self.pool.capacity(),
            bytes: self.pool.bytes(),
            trims: self.pool.trims,
            root_visits: u64::from(root.visits),
            proven: proof.map(|p| p.scores.iter().map(|&s| u32::from(s)).collect()),
            proven_depth: proof.map(|p| p.depth),
        }
    }

    fn root_node(&self) -> &Node<M> {
        self.pool.get(self.root).expect("the root is never trimmed")
    }

    /// The proof of the child after `role`'s `i`th move, when `role` alone chooses at `node`.
    fn child_proof<'a>(&'a self, node: &Node<M>, role: usize, i: usize) -> Option<&'a Proof> {
        // With every other role on its only move, the joint move's key is the mover's index.
        let alone = matches!(node.kind, Kind::Mover(m) if m == role);
        let child = node.child(i as u64).filter(|_| alone)?;
        self.pool.get(child)?.proof.as_ref()
    }

    /// The node of `state`, made (and the pool trimmed, sparing the root) if it has none.
    fn node_for(&mut self, state: M::State) -> Result<NodeRef, MachineError> {
        if let Some(found) = self.pool.find(&state) {
            return Ok(found);
        }
        let node = self.describe(state)?;
        // The pool holds at least two nodes and spares only the root, so this finds room.
        Ok(self.pool.insert(node, self.root, self.tick).unwrap_or_else(|_| unreachable!("a trimmed pool has room")))
    }

    /// A new node for `state`: its moves, achievable ranges, and a proof if the game is over or
    /// its scores are decided.
    fn describe(&mut self, state: M::State) -> Result<Node<M>, MachineError> {
        let m = &mut self.machine;
        let mut node = Node::new(state);
        let latched = self.guide.as_deref().map(Guide::goals).zip(M::bits(&node.state));
        node.range = match latched {
            Some((g, bits)) => (0..self.roles)
                .map(|r| {
                    let range = g.range(bits, r);
                    range.map_or(self.game_range[r], |x| (x.min.min(100) as u8, x.max.min(100) as u8))
                })
                .collect(),
            None => self.game_range.clone(),
        };
        node.starts.push(0);
        let terminal = m.is_terminal(&node.state)?;
        let mut stuck = false;
        for r in 0..self.roles {
            if !terminal {
                let legal = m.legal_moves(&node.state, r)?;
                stuck |= legal.is_empty();
                node.moves.extend(legal);
            }
            node.starts.push(node.moves.len() as u32);
        }
        node.edges = vec![Edge::default(); node.moves.len()];
        let decided = latched.and_then(|(g, bits)| g.determined(bits));
        if terminal || stuck {
            node.proof = Some(Proof { scores: playout::scores(m, &node.state).into(), depth: 0 });
        } else if let Some(decided) = decided {
            node.proof = Some(Proof { scores: decided.iter().map(|&v| v.min(100) as u8).collect(), depth: 0 });
        }
        node.joint_count = (0..self.roles).try_fold(1u64, |n, r| n.checked_mul(node.move_count(r) as u64));
        let movers: Vec<usize> = (0..self.roles).filter(|&r| node.move_count(r) > 1).collect();
        node.kind = match movers[..] {
            _ if node.proof.is_some() => Kind::End,
            [] => Kind::Forced,
            [m] => Kind::Mover(m),
            _ => Kind::Simultaneous,
        };
        Ok(node)
    }

    /// The search loop: select batches of leaves, play them out, back up, until the deadline,
    /// the iteration budget, or a proven root.
    fn run(&mut self, deadline: Option<Instant>, iterations: Option<u64>) -> Result<SearchStats, MachineError> {
        let settings = Settings {
            max_steps: self.config.max_playout_steps,
            trace: self.roles == 1,
            guide: self.guide.clone().filter(|_| self.config.guided_playouts),
            deadline,
        };
        let batch = match settings.guide {
            Some(_) => GUIDED_BATCH,
            None => self.config.batch.clamp(1, 64),
        };
        let target = iterations.map(|n| self.iterations.saturating_add(n));
        let mut workers = std::mem::take(&mut self.workers);
        let result = if workers.len() == 1 {
            self.run_here(&mut workers[0], &settings, batch, target)
        } else {
            self.run_threads(&mut workers, &settings, batch, target)
        };
        self.workers = workers;
        result?;
        Ok(self.stats())
    }

    /// How many leaves the next batch may take (0: stop), given `in_flight` leaves still out.
    fn room(&self, settings: &Settings, batch: usize, target: Option<u64>, in_flight: u64) -> usize {
        if self.root_node().proof.is_some() || settings.out_of_time() {
            return 0;
        }
        let left = target.map_or(u64::MAX, |t| t.saturating_sub(self.iterations + in_flight));
        batch.min(usize::try_from(left).unwrap_or(usize::MAX))
    }

    /// The loop on one thread: select a batch, play it, back it up.
    fn run_here(
        &mut self,
        worker: &mut Worker<M>,
        settings: &Settings,
        batch: usize,
        target: Option<u64>,
    ) -> Result<(), MachineError> {
        loop {
            let room = self.room(settings, batch, target, 0);
            if room == 0 {
                return Ok(());
            }
            let leaves = self.select_batch(room)?;
            let starts: Vec<M::State> = leaves.iter().filter_map(|l| l.state.clone()).collect();
            let outcomes = self.machine.play_out(&mut worker.scratch, &starts, &mut worker.rng, settings)?;
            self.finish(leaves, outcomes);
        }
    }

    /// The loop with workers: keep each busy with up to two batches while backing up results.
    fn run_threads(
        &mut self,
        workers: &mut [Worker<M>],
        settings: &Settings,
        batch: usize,
        target: Option<u64>,
    ) -> Result<(), MachineError> {
        type Done<Mv> = (usize, usize, Result<Vec<Option<Outcome<Mv>>>, MachineError>);
        let mut helpers = std::mem::take(&mut self.helpers);
        let result = std::thread::scope(|scope| {
            let (done_tx, done_rx) = mpsc::channel::<Done<M::Move>>();
            let mut jobs = Vec::new();
            for (w, (worker, m)) in workers.iter_mut().zip(helpers.iter_mut()).enumerate() {
                let (job_tx, job_rx) = mpsc::channel::<(usize, Vec<M::State>)>();
                let done_tx = done_tx.clone();
                scope.spawn(move || {
                    for (id, starts) in job_rx {
                        let played = m.play_out(&mut worker.scratch, &starts, &mut worker.rng, settings);
                        if done_tx.send((w, id, played)).is_err() {
                            break;
                        }
                    }
                });
                jobs.push(job_tx);
            }
            let mut busy = vec![0u8; jobs.len()];
            let mut pending: Vec<Option<Vec<Leaf<M>>>> = Vec::new();
            let mut in_flight = 0u64;
            loop {
                while let Some(w) = (0..busy.len()).min_by_key(|&w| busy[w]).filter(|&w| busy[w] < 2) {
                    let room = self.room(settings, batch, target, in_flight);
                    if room == 0 {
                        break;
                    }
                    let leaves = self.select_batch(room)?;
                    let starts: Vec<M::State> = leaves.iter().filter_map(|l| l.state.clone()).collect();
                    let id = pending.iter().position(Option::is_none).unwrap_or(pending.len());
                    if id == pending.len() {
                        pending.push(None);
                    }
                    in_flight += starts.len() as u64;
                    pending[id] = Some(leaves);
                    busy[w] += 1;
                    // A worker only stops once `jobs` is dropped, so the send cannot fail.
                    let _ = jobs[w].send((id, starts));
                }
                if busy.iter().all(|&b| b == 0) {
                    return Ok(());
                }
                let Ok((w, id, outcomes)) = done_rx.recv() else { return Ok(()) };
                busy[w] -= 1;
                let leaves = pending[id].take().unwrap_or_default();
                in_flight -= leaves.iter().filter(|l| l.state.is_some()).count() as u64;
                self.finish(leaves, outcomes?);
            }
        });
        self.helpers = helpers;
        result
    }

    /// Selects up to `count` leaves, backing up the decided ones at once; returns the rest (the
    /// playouts to run), stopping early once the root is proven.
    fn select_batch(&mut self, count: usize) -> Result<Vec<Leaf<M>>, MachineError> {
        let mut leaves = Vec::with_capacity(count);
        for _ in 0..count {
            match self.select()? {
                Selected::Known(leaf, scores) => {
                    self.backup(&leaf, &scores, true);
                    if self.root_node().proof.is_some() {
                        break;
                    }
                }
                Selected::Playout(leaf) => leaves.push(leaf),
            }
        }
        Ok(leaves)
    }

    /// Backs up the playouts of `leaves` (those with a start state, in order, as `outcomes`
    /// lists them); a leaf whose playout was cut short is taken back.
    fn finish(&mut self, leaves: Vec<Leaf<M>>, outcomes: Vec<Option<Outcome<M::Move>>>) {
        let mut outcomes = outcomes.into_iter();
        for mut leaf in leaves.into_iter().filter(|l| l.state.is_some()) {
            match outcomes.next().flatten() {
                Some(outcome) => {
                    self.playouts += 1;
                    leaf.moves.extend_from_slice(&outcome.moves);
                    self.backup(&leaf, &outcome.scores, outcome.complete);
                }
                None => self.take_back(&leaf),
            }
        }
    }

    /// Descends from the root choosing every role's move at each node, expands the first joint
    /// move that has no node yet, and passes through nodes where nobody has a choice.
    fn select(&mut self) -> Result<Selected<M>, MachineError> {
        self.tick += 1;
        let now = self.tick;
        let mut leaf = Leaf::default();
        let mut at = self.root;
        let mut fresh = false;
        let mut choice = Vec::with_capacity(self.roles);
        loop {
            let node = self.pool.get_mut(at).expect("a node on the path was visited this tick");
            node.last_visit = now;
            node.visits += 1;
            if let Some(p) = &node.proof {
                let scores = p.scores.clone();
                leaf.node = Some(at);
                return Ok(Selected::Known(leaf, scores));
            }
            if (fresh && node.kind != Kind::Forced) || leaf.path.len() >= MAX_PATH || node.joint_count.is_none() {
                leaf.node = Some(at);
                leaf.state = Some(node.state.clone());
                return Ok(Selected::Playout(leaf));
            }
            let node = self.pool.get(at).expect("just visited");
            choice.clear();
            for r in 0..self.roles {
                choice.push(choose(&self.pool, &mut self.rng, &self.config, node, r) as u32);
            }
            let key = node.key(&choice);
            let next = node.child(key).filter(|&c| self.pool.get(c).is_some());
            let joint: Vec<M::Move> = choice.iter().enumerate().map(|(r, &c)| node.role_move(r, c as usize)).collect();
            let node = self.pool.get_mut(at).expect("just visited");
            for (r, &c) in choice.iter().enumerate() {
                node.edges[node.starts[r] as usize + c as usize].visits += 1;
            }
            leaf.path.push(at);
            leaf.choices.extend_from_slice(&choice);
            if self.roles == 1 {
                leaf.moves.push(joint[0]);
            }
            if let Some(next) = next {
                at = next;
                fresh = false;
                continue;
            }
            let state = node.state.clone();
            let next = self.machine.next_state(&state, &joint)?;
            let child = match self.pool.find(&next) {
                Some(found) => found,
                None => match self.describe(next).map(|fresh| self.pool.insert(fresh, self.root, now))? {
                    Ok(made) => {
                        fresh = true;
                        made
                    }
                    // No room: the leaf has no node, but its scores or its playout still count.
                    Err(lost) => {
                        return Ok(match lost.proof {
                            Some(p) => Selected::Known(leaf, p.scores),
                            None => {
                                leaf.state = Some(lost.state);
                                Selected::Playout(leaf)
                            }
                        });
                    }
                },
            };
            if let Some(node) = self.pool.get_mut(at) {
                node.set_child(key, child);
            }
            at = child;
        }
    }

    /// Propagates proofs up from a proven leaf, then adds `scores` to the statistics along
    /// `leaf`'s path (above a node whose mover has a better proven move, that move's scores
    /// instead), and keeps a better single-player plan.
    fn backup(&mut self, leaf: &Leaf<M>, scores: &[u8], complete: bool) {
        self.iterations += 1;
        let proven = leaf.node.and_then(|n| self.pool.get(n)).is_some_and(|n| n.proof.is_some());
        if proven {
            for &at in leaf.path.iter().rev() {
                if !self.prove(at) {
                    break;
                }
            }
        }
        if complete && self.roles == 1 {
            self.offer_plan(Plan { moves: leaf.moves.clone(), score: u32::from(scores[0]) });
        }
        let roles = self.roles;
        let mut scores: Box<[u8]> = scores.into();
        for (k, &at) in leaf.path.iter().enumerate().rev() {
            let Some(node) = self.pool.get_mut(at) else { continue };
            for (r, &c) in leaf.choices[k * roles..(k + 1) * roles].iter().enumerate() {
                node.edges[node.starts[r] as usize + c as usize].sum += f64::from(scores[r]);
            }
            if let (Kind::Mover(m), Some(floor)) = (node.kind, &node.floor) {
                if floor[m] > scores[m] {
                    scores.clone_from(floor);
                }
            }
        }
    }

    /// Undoes the visits of a leaf whose playout never finished.
    fn take_back(&mut self, leaf: &Leaf<M>) {
        let roles = self.roles;
        for (k, &at) in leaf.path.iter().enumerate() {
            if let Some(node) = self.pool.get_mut(at) {
                node.visits = node.visits.saturating_sub(1);
                for (r, &c) in leaf.choices[k * roles..(k + 1) * roles].iter().enumerate() {
                    let edge = &mut node.edges[node.starts[r] as usize + c as usize];
                    edge.visits = edge.visits.saturating_sub(1);
                }
            }
        }
        if let Some(node) = leaf.node.and_then(|n| self.pool.get_mut(n)) {
            node.visits = node.visits.saturating_sub(1);
        }
    }

    /// Proves `at` from its children if it can; whether it is proven now.
    fn prove(&mut self, at: NodeRef) -> bool {
        let Some(node) = self.pool.get(at) else { return false };
        if node.proof.is_some() {
            return true;
        }
        let child_proof = |key: u64| node.child(key).and_then(|c| self.pool.get(c)).and_then(|c| c.proof.as_ref());
        let proof = match node.kind {
            Kind::End => None,
            Kind::Forced => child_proof(0).cloned(),
            Kind::Mover(m) => {
                let best_possible = node.range[m].1;
                let proofs: Vec<Option<&Proof>> = (0..node.move_count(m) as u64).map(child_proof).collect();
                let best = proofs.iter().flatten().copied().max_by(|a, b| compare(a, b, m, best_possible));
                let floor = best.map(|p| p.scores.clone());
                match best.filter(|p| p.scores[m] >= best_possible || proofs.iter().all(Option::is_some)) {
                    Some(p) => Some(p.clone()),
                    None => {
                        if let Some(node) = self.pool.get_mut(at) {
                            node.floor = floor;
                        }
                        return false;
                    }
                }
            }
            Kind::Simultaneous => {
                let all = node.joint_count == Some(node.children.len() as u64);
                let proofs: Option<Vec<&Proof>> =
                    all.then(|| node.children.iter().map(|&(k, _)| child_proof(k)).collect()).flatten();
                proofs.filter(|ps| ps.windows(2).all(|w| w[0].scores == w[1].scores)).and_then(|ps| {
                    let depth = ps.iter().map(|p| p.depth).max()?;
                    Some(Proof { scores: ps[0].scores.clone(), depth })
                })
            }
        };
        let Some(mut proof) = proof else { return false };
        proof.depth += 1;
        if let Some(node) = self.pool.get_mut(at) {
            node.proof = Some(proof);
        }
        true
    }
}

/// `role`'s move index at `node` by UCB on its own statistics: untried moves first (a random
/// one), others at mean plus exploration plus the fading goal-latch hint. Moves whose result is
/// proven are left alone while any other is open: playing them again teaches nothing, and the
/// open ones are what stands between the node and its proof (their value reaches the ancestors
/// through the node's floor instead).
fn choose<M: SearchMachine>(
    pool: &Pool<M>,
    rng: &mut SmallRng,
    config: &MctsConfig,
    node: &Node<M>,
    role: usize,
) -> usize {
    let count = node.move_count(role);
    if count <= 1 {
        return 0;
    }
    let alone = node.kind == Kind::Mover(role);
    let log_n = f64::from(node.visits.max(1)).ln();
    let mut best: Option<(usize, f64)> = None;
    let mut proven: Option<(usize, u8)> = None;
    let (mut untried, mut untried_seen) = (None, 0u32);
    for i in 0..count {
        let edge = node.edge(role, i);
        let child = node.child(i as u64).filter(|_| alone).and_then(|c| pool.get(c));
        if let Some(p) = child.and_then(|c| c.proof.as_ref()) {
            if proven.is_none_or(|(_, v)| p.scores[role] > v) {
                proven = Some((i, p.scores[role]));
            }
        } else if let Some(mean) = edge.mean() {
            let visits = f64::from(edge.visits);
            let hint = child.map_or(0.0, |c| {
                let (lo, hi) = (node.range[role], c.range[role]);
                (f64::from(hi.0) - f64::from(lo.0) + f64::from(hi.1) - f64::from(lo.1)) / 100.0
            });
            let value = mean / 100.0 + config.exploration * (log_n / visits).sqrt() + config.latch_bias * hint / visits;
            if best.is_none_or(|(_, v)| value > v) {
                best = Some((i, value));
            }
        } else {
            untried_seen += 1;
            if rng.random_range(0..untried_seen) == 0 {
                untried = Some(i);
            }
        }
    }
    untried.or(best.map(|b| b.0)).or(proven.map(|p| p.0)).unwrap_or(0)
}

/// Orders proven results for `role`: a higher score is better; among equal scores, a shorter
/// line if the score is the most the role can achieve (`best`), else a longer one.
fn compare(a: &Proof, b: &Proof, role: usize, best: u8) -> std::cmp::Ordering {
    let by_depth = if a.scores[role] >= best { b.depth.cmp(&a.depth) } else { a.depth.cmp(&b.depth) };
    a.scores[role].cmp(&b.scores[role]).then(by_depth)
}

/// A mean score as a totally ordered key (unvisited lowest).
fn ordered(mean: Option<f64>) -> u64 {
    mean.map_or(0, |m| (m * 1e6) as u64 + 1)
}
