//! Monte Carlo tree search over a game's propnet, for any number of roles, turn-taking or
//! simultaneous, zero-sum or not.
//!
//! Every node keeps, per role and legal move, that role's visit count and score sum; each role
//! picks its own move on its own statistics (decoupled selection): by UCB, so a turn-taking game is
//! plain UCT (the roles not to move have one move), except where several roles choose at once,
//! where with `MctsConfig::regret` each draws its move by regret matching, or with
//! `MctsConfig::leader` the others choose by UCB under the leader's move (`select`). Nodes are
//! shared by state in a bounded pool that trims the least recently visited ones when it is full
//! (`tree`). Proven results
//! propagate up (MCTS-solver): a terminal node is proven; so is a node whose mover has a proven
//! move worth the most it can still achieve, or all of whose moves are proven (the best for the
//! mover, the shortest win or the longest loss among equals); a simultaneous node only when all
//! its joint moves are proven to give the same scores.
//!
//! With the analysis' goal latches, a state whose scores are all decided counts as terminal, the
//! most a mover can still achieve (rather than the game's best score) makes a proven move
//! decisive, selection leans towards moves that keep the maximum and raise the minimum, and
//! playouts look one move ahead at the latches, avoiding moves that lower the mover's maximum
//! and taking those that raise its minimum. With the tactics, playouts also take decisive moves
//! and take back anti-decisive ones ([`metagame::playout::guided`]); what they cost and bring is
//! measured by [`metagame::TacticsCost`]. Without latches or tactics every playout is
//! bit-sliced: up to 64 leaves chosen with virtual loss are played out in one pass. With
//! `MctsConfig::mast`, every move's mean score over the search steers the playouts' draws
//! (`mast`), where [`metagame::MoveVariety`] says a move's name tells where it is played; with
//! `MctsConfig::rave`, nodes where one role moves keep each move's all-moves-as-first statistics
//! and selection blends them into its value (`select`). Where
//! the search knows the roles' [`metagame::Pieces`], a mover's moves start from priors: the
//! material each wins or loses since the root (with `MctsConfig::placement`, and where its
//! pieces stand better or worse, [`metagame::Placement`]), counting as a few playouts
//! (`select`), and with `MctsConfig::cutoff` guided playouts stop early and are scored by that
//! balance. With `MctsConfig::material_check` the move played is checked against that balance
//! three to five plies deep, by alpha-beta (`safety`).
//! Where there are no pieces but an [`metagame::Outlook`] (chapter 16's fuzzy goal heuristic or
//! a confirmed latch heuristic, fitted to the score on games played as the playouts play them),
//! the priors come from it instead.
//!
//! The search runs on any [`SearchMachine`]: on a propnet as described, on the reasoner (for a
//! game whose net cannot be built) with plain random playouts, one at a time, and no knowledge.
//!
//! The tree lives on the calling thread; with more than one thread (and a machine whose states
//! other threads can share), workers with machines of their own play the leaves while the tree
//! thread selects the next ones.

mod engines;
mod mast;
mod rivalry;
mod run;
mod safety;
mod select;
mod solver;
mod tree;

#[cfg(test)]
mod tests;

pub use self::engines::SearchMachine;
use self::mast::Mast;
use self::rivalry::Rivalry;
use self::solver::{compare, dominated, sure};
use self::tree::{Edge, Kind, Node, NodeRef, Pool, Proof};
use crate::matrix::{NormalForm, MAX_JOINT_MOVES};
use analysis::Factors;
use machine::MachineError;
use metagame::playout;
use metagame::{Knowledge, Outlook};
use propnet::{Program, PropnetMachine};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use serde::Serialize;
use std::sync::Arc;
use std::time::Instant;

/// Selection stops this deep and plays out from there (games whose states repeat can otherwise
/// lead it round a cycle of expanded nodes for ever).
const MAX_PATH: usize = 1000;

/// The most leaves per batch for guided playouts that run one at a time, which gain nothing from
/// more; where a stepper advances several side by side, twice as many as advance at once, so
/// that the lanes a playout frees take the next.
const GUIDED_BATCH: usize = 4;

/// How many playouts a prior counts as by default: the weight the Sancho player gives its
/// piece heuristic at even material.
const PRIOR_VISITS: f64 = 6.0;

/// Where the move played is drawn from the tree's mixed strategy, how far (in points of score)
/// below the root's mean a move's mean score may be and the move still be drawn. In Blocker the
/// moves of the crosser's mix scored 35 to 46 after a 3 s search; in Tron a move that loses at
/// once scores about 1 where the root scores 50.
const MIXED_MARGIN: f64 = 15.0;

/// Where the move played would be drawn from the mix, how far (in points of score) below the
/// root's mean the worst outcome of one move may be and that move be played instead: the most
/// that playing it however the others answer can cost against what the mix scores.
const SECURE_MARGIN: f64 = 5.0;

/// How many visits a joint move's child needs before its mean counts as that joint move's
/// outcome for [`SECURE_MARGIN`].
const SECURE_VISITS: u32 = 10;

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
    /// At a proven root where one role alone moves, keep sampling its moves not yet proven
    /// (the search otherwise stops there): a caller that compares those moves' values, as the
    /// factored search compares a tree's best move with staying out of its factor, needs
    /// more than the visit or two they had when the proof arrived.
    pub open_root: bool,
    /// Where one role alone moves, value a move by every iteration through the state it leads
    /// to, whichever path reached that state (the state's own statistics), rather than only
    /// by the iterations that came through this move: in games whose moves commute (stones
    /// dropped, pieces placed) most states are reached by many orders, and pooling their
    /// samples gives each move's estimate many times the playouts.
    pub transpositions: bool,
    /// Where one role alone moves, leave alone a move whose state's goal latches keep it below
    /// what another move is sure of, and take a proven move at least as good as every open
    /// move's best as the node's result (chapter 12's dead-state removal in the tree).
    pub dominance: bool,
    /// Where the roles have pieces, play only moves that keep as much material three to five
    /// plies deep as the best root move does (see [`Mcts::material_check`]), unless a proof
    /// says otherwise.
    pub material_check: bool,
    /// How deep the material check goes at most, in plies: it deepens two at a time from three
    /// (or from this, if less) while its time lasts.
    pub check_plies: u32,
    /// Weight of the goal-latch hint in selection (a change of the achievable range, fading
    /// with visits).
    pub latch_bias: f64,
    /// Weight of the latch heuristics' progressive bias in selection: a move's gain in the
    /// confirmed heuristics' value (owning latches that random games tie to winning, such as
    /// Reversi's corners), fading with visits.
    pub heuristic_bias: f64,
    /// Steer playouts with the goal latches (when there are any); otherwise playouts are
    /// uniformly random and bit-sliced.
    pub guided_playouts: bool,
    /// Leaves selected before their playouts run (at most 64, one bit-sliced pass; at most 4
    /// where playouts run guided, one at a time).
    pub batch: usize,
    /// How many playouts a move's prior (the knowledge's piece balance after the move, or where
    /// there are no pieces its outlook's value) counts as in selection while the roles' pieces
    /// are even (its weight fades as real playouts come in); 0 leaves priors out.
    pub prior_visits: f64,
    /// Joint moves after which a playout is cut off.
    pub max_playout_steps: u32,
    /// Joint moves after which a guided playout stops and scores the state it reached by the
    /// roles' piece balance since the root, where the knowledge knows the pieces; 0 plays every
    /// playout to the end.
    pub cutoff: u32,
    /// How much where the pieces stand counts in the priors and the cut-off playouts' scores,
    /// beside how many there are: the change since the root in the placement random games
    /// fitted ([`metagame::Placement`]), this many times the score it predicts; 0 counts material alone.
    pub placement: f64,
    /// What the local search's verdict adds to a move's value in selection (scores scaled to
    /// 0..=1): a forced win gains it, a forced loss loses it, so moves that all lose keep
    /// their order among themselves.
    pub local_weight: f64,
    /// The chance that a playout plays a role's legal move of best mean score over the search
    /// so far (move-average sampling, `mast`) rather than a random one; 0 turns it off.
    pub mast: f64,
    /// Where several roles choose at once: the share of uniformly random choice mixed into
    /// regret matching, which then picks each role's move there (decoupled UCB does when 0).
    /// UCB's choices are deterministic given the statistics, so in a symmetric game both roles
    /// keep identical statistics and choose in lockstep, and the joint moves where they differ
    /// are never sampled; regret matching draws from a mixed strategy that converges on an
    /// equilibrium of the node's game.
    pub regret: f64,
    /// Where several roles choose at once: the role whose move the others are taken to see
    /// before they choose theirs, as in the Sancho player's tree, which gives one role's
    /// choice per node. Each other role then picks its reply by UCB on its statistics under
    /// the leader's move, so a move of the leader comes to be valued at what the others' best
    /// replies to it leave (the most it can be sure of, however its move is foreseen), and the
    /// leader picks by UCB on those values; regret matching is not used at such nodes. `None`
    /// keeps the roles' choices apart.
    pub leader: Option<usize>,
    /// The chance that a guided playout plays, among the moves its tactics rank best, one that
    /// leaves the mover the most material ahead, where the knowledge knows the roles' pieces: a
    /// piece left where it can be taken is taken (0: never).
    pub captures: f64,
    /// Where one role alone moves, blend each move's value with its all-moves-as-first
    /// statistics (RAVE: Gelly and Silver, "Monte-Carlo tree search and rapid action value
    /// estimation in computer Go", AIJ 2011): its mean score over every iteration through the
    /// node in which the mover played it there or later, in the tree or the playout. A move's
    /// weight on them is `ñ / (ñ + n + rave · n · ñ + 1)` for `n` visits of its own and `ñ`
    /// such samples, so they rank the moves of a node visited a few times and fade as its own
    /// visits come in; 0 keeps no such statistics.
    pub rave: f64,
    /// Where several roles play and their goals are not proved to sum to a constant: the
    /// points a role's score at the end gains for each other role it ties (twice that for each
    /// it beats), the whole rescaled to 0..=100, so that the search takes every role to prefer
    /// beating the others to matching their goal (see `rivalry`); 0 scores goal values alone.
    /// The tree's means and proofs are then on that scale.
    pub rivalry: f64,
}

impl Default for MctsConfig {
    fn default() -> MctsConfig {
        MctsConfig {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            seed: 0,
            max_nodes: 4_000_000,
            max_bytes: 512 << 20,
            exploration: 0.7,
            open_root: false,
            transpositions: true,
            dominance: true,
            material_check: false,
            check_plies: safety::CHECK_PLIES,
            latch_bias: 0.5,
            heuristic_bias: 1.0,
            guided_playouts: true,
            batch: 64,
            prior_visits: PRIOR_VISITS,
            max_playout_steps: 10_000,
            cutoff: 0,
            placement: 0.0,
            local_weight: 1.0,
            mast: 0.0,
            regret: 0.1,
            leader: None,
            captures: 0.0,
            rave: 0.0,
            rivalry: 0.0,
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
    /// Whether the local search proved it a forced win (or loss), where it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local: Option<bool>,
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
    /// Per entry of `choices`, the chance the move had of being drawn (1 where it was not
    /// drawn at random: regret matching needs it to weigh the score).
    chances: Vec<f32>,
    /// The node at the end, if it has one (the pool may have had no room).
    node: Option<NodeRef>,
    /// Where its playout starts.
    state: Option<M::State>,
    /// The moves from the root (single-player games, for plans).
    moves: Vec<M::Move>,
}

impl<M: SearchMachine> Default for Leaf<M> {
    fn default() -> Leaf<M> {
        Leaf { path: Vec::new(), choices: Vec::new(), chances: Vec::new(), node: None, state: None, moves: Vec::new() }
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
    knowledge: Option<Arc<Knowledge>>,
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
    /// Whether moves are compared by their states' ranges ([`MctsConfig::dominance`]): only
    /// where goal latches give states ranges other than the game's.
    dominance: bool,
    plan: Option<Plan<M::Move>>,
    /// Every move's mean score, where playouts use them.
    mast: Option<Mast>,
    /// The last material check: the root state it was made at, the role, its values.
    checked: Option<(M::State, usize, Vec<f64>)>,
    /// The knowledge's outlook, with scratch space of its own, where it gives the priors.
    outlook: Option<Outlook>,
    /// Where the search keeps all-moves-as-first statistics: per move index, the number of the
    /// last backup whose iteration had played it so far (see `select::Mcts::backup`).
    played: Vec<u32>,
    /// The number of the backup under way.
    stamp: u32,
    /// How finished games are scored beyond their goal values, where they are.
    rivalry: Option<Rivalry>,
}

impl<M: SearchMachine> std::fmt::Debug for Mcts<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mcts").field("roles", &self.roles).field("stats", &self.stats()).finish_non_exhaustive()
    }
}

impl Mcts<PropnetMachine> {
    /// A search on `program`'s net from its initial state, using the analysis' goal latches in
    /// `knowledge` (if any) as the module header describes.
    pub fn new(
        program: Arc<Program>,
        knowledge: Option<Arc<Knowledge>>,
        config: MctsConfig,
    ) -> Result<Mcts, MachineError> {
        Mcts::on(PropnetMachine::from_program(program), knowledge, config)
    }
}

impl<M: SearchMachine> Mcts<M> {
    /// A search on `machine` from the initial state, using the analysis' goal latches in `knowledge`
    /// (if any, and if the machine's states are the bitsets they read) as the module header
    /// describes.
    pub fn on(mut machine: M, knowledge: Option<Arc<Knowledge>>, config: MctsConfig) -> Result<Mcts<M>, MachineError> {
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
        let mast =
            (config.mast > 0.0 && machine.move_count() > 0).then(|| Mast::new(machine.move_count(), config.mast));
        let played = if config.rave > 0.0 { vec![0; machine.move_count()] } else { Vec::new() };
        let knowledge = knowledge.filter(|g| bits && !g.is_empty());
        let outlook = knowledge.as_deref().and_then(Knowledge::outlook).cloned();
        let dominance = config.dominance && knowledge.as_deref().is_some_and(|k| !k.goals().is_empty());
        let zero_sum = knowledge.as_deref().is_some_and(|k| k.goals().sum().is_some());
        let rivalry = Rivalry::new(config.rivalry, roles, zero_sum);
        let mut mcts = Mcts {
            knowledge,
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
            dominance,
            plan: None,
            mast,
            checked: None,
            outlook,
            played,
            stamp: 0,
            rivalry,
        };
        mcts.root = mcts.node_for(initial)?;
        Ok(mcts)
    }

    /// The machine the tree is built on (to print or find moves).
    pub fn machine(&self) -> &M {
        &self.machine
    }

    /// How the search runs.
    pub fn config(&self) -> &MctsConfig {
        &self.config
    }

    /// The state at the root: the current state of the game.
    pub fn root_state(&self) -> &M::State {
        &self.root_node().state
    }

    /// The root as a game in normal form, where at least two roles choose there and every joint
    /// move from it ends the game (see [`crate::matrix`]); `None` otherwise or if reading it
    /// would run past `deadline`.
    pub fn root_normal_form(&mut self, deadline: Instant) -> Result<Option<NormalForm<M::Move>>, MachineError> {
        let state = self.root_node().state.clone();
        NormalForm::read(&mut self.machine, &state, MAX_JOINT_MOVES, deadline)
    }

    /// Records what a local search proved at the node for `state`, if the tree holds it and one
    /// role alone moves there: each of `marks` is a move of that role and whether it wins (or
    /// else loses) by force. Returns whether the node was found.
    pub fn mark_local(&mut self, state: &M::State, marks: &[(M::Move, bool)]) -> bool {
        let Some(at) = self.pool.find(state) else { return false };
        let Some(node) = self.pool.get_mut(at) else { return false };
        let Kind::Mover(mover) = node.kind else { return false };
        let count = node.move_count(mover);
        if node.local.is_empty() {
            node.local = vec![0; count];
        }
        for (mv, wins) in marks {
            if let Some(i) = (0..count).find(|&i| node.role_move(mover, i) == *mv) {
                node.local[i] = if *wins { 1 } else { -1 };
            }
        }
        true
    }

    /// The role that alone moves at the root, if one does.
    pub fn root_mover(&self) -> Option<usize> {
        match self.root_node().kind {
            Kind::Mover(r) => Some(r),
            _ => None,
        }
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
        if let Some(mast) = &mut self.mast {
            mast.fade();
        }
        if self.roles == 1 {
            self.plan = self.plan.take().filter(|p| p.moves.first() == joint.first()).map(|mut p| {
                p.moves.remove(0);
                p
            });
        }
        Ok(())
    }

    /// The move to play for `role`: the proven best if the root is solved (the shortest win,
    /// the longest loss; among equal proofs, the move whose playouts scored best), else the
    /// most visited move among those not proven worse than another (a move the local search
    /// proved lost counts as proven worse while one it did not is open); in a single-player
    /// game, the best plan's next move unless a move is proven to do better.
    /// `None` when the role has no legal move (the game is over).
    pub fn best_move(&self, role: usize) -> Option<M::Move> {
        self.pick(role, None, None)
    }

    /// [`best_move`](Self::best_move), where the configuration asks for it and a
    /// [`material_check`](Self::material_check) was made at this root, among the open moves
    /// only those that keep as much material a few plies deep as the best of them (to within
    /// [`safety::SAFE_MARGIN`]). The check is not made here: choosing the move must not take
    /// time from the margin kept for answering.
    ///
    /// With `draw` (a number drawn uniformly from 0..1), where several roles choose at the root
    /// and regret matching picks their moves there, the open move is drawn from the strategy the
    /// tree played (see [`mixed`](Self::mixed)) instead of being the most visited: in a game of
    /// simultaneous moves a move the opponent can foresee is one it can answer. A move that
    /// loses little however it is answered is played instead where there is one (see
    /// [`secure`](Self::secure)).
    pub fn checked_best_move(&self, role: usize, draw: Option<f64>) -> Option<M::Move> {
        let count = if role < self.roles { self.root_node().move_count(role) } else { 0 };
        let check = self.checked(role).filter(|c| self.config.material_check && c.len() == count);
        self.pick(role, check, draw)
    }

    /// The move [`checked_best_move`](Self::checked_best_move) describes, the open moves limited
    /// by `check` (each move's material a few plies deep) where there is one.
    fn pick(&self, role: usize, check: Option<&[f64]>, draw: Option<f64>) -> Option<M::Move> {
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
        // Among equal proofs, the move whose playouts scored best before it was proven: the one
        // where the opponent had the most ways to go wrong.
        let mean = |i: usize| ordered(root.edge(role, i).mean());
        let by_chances = |a: &(usize, &Proof), b: &(usize, &Proof)| {
            compare(a.1, b.1, role, best_possible).then(mean(a.0).cmp(&mean(b.0)))
        };
        let decided = decided.max_by(by_chances);
        if let Some((i, p)) = decided {
            if p.scores[role] >= best_possible || proven.iter().all(Option::is_some) {
                return Some(root.role_move(role, i));
            }
        }
        let local = |i: usize| Self::local_verdict(root, role, i);
        // The local search's wins are forced wins: nothing the statistics say beats one.
        if let Some(i) = (0..count).find(|&i| local(i) == Some(true)) {
            return Some(root.role_move(role, i));
        }
        let by_visits = |&i: &usize| (root.edge(role, i).visits, mean(i));
        // The local search's losses are forced losses too: while a move it has not proven lost
        // is open, none of them is played, however the tree saw it before the proof came.
        let sure = (root.kind == Kind::Mover(role) && self.dominance).then(|| sure(&self.pool, root, role));
        let child = |i: usize| root.child(i as u64).and_then(|c| self.pool.get(c));
        let dominated = |i: usize| sure.is_some_and(|s| dominated(child(i), role, s));
        let mut unproven: Vec<usize> = (0..count).filter(|&i| proven[i].is_none() && !dominated(i)).collect();
        let all_lost = unproven.iter().all(|&i| local(i) == Some(false));
        unproven.retain(|&i| all_lost || local(i) != Some(false));
        let top = check.and_then(|c| unproven.iter().map(|&i| c[i]).max_by(f64::total_cmp));
        let safe = |i: usize| check.zip(top).is_none_or(|(c, top)| c[i] >= top - safety::SAFE_MARGIN);
        let open: Vec<usize> = unproven.iter().copied().filter(|&i| safe(i)).collect();
        let mixing = draw.filter(|_| root.kind == Kind::Simultaneous && !root.regrets.is_empty());
        let drawn = mixing.and_then(|u| self.secure(role, &open).or_else(|| self.mixed(role, &open, u)));
        let open = drawn.or_else(|| open.iter().copied().max_by_key(by_visits));
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

    /// Among the root's moves `open` of `role`, the one `draw` (uniform in 0..1) falls on in the
    /// strategy regret matching played there: each move in proportion to its visits less twice
    /// the visits the uniform share (`MctsConfig::regret`) alone gave it, so that moves tried
    /// only because every move is tried are never played (the average strategy with its
    /// exploration taken out, as in Lanctot, Lisý and Winands, "Monte Carlo Tree Search in
    /// Simultaneous Move Games with Applications to Goofspiel", 2013). Of those, only the moves
    /// whose mean score is within [`MIXED_MARGIN`] of the root's (every iteration's): at an
    /// equilibrium each move of the mix scores what the mix does, so a move scoring far less is
    /// a blunder the mix had not yet left. The root's mean, not the best move's: a move seldom
    /// played may score more than the mix against the opponent's mix, and keeping only it
    /// would make the move foreseeable again. `None` where no move is left.
    fn mixed(&self, role: usize, open: &[usize], draw: f64) -> Option<usize> {
        let root = self.root_node();
        let count = root.move_count(role);
        let (scored, total) = self.root_sums(role);
        let explored = 2.0 * self.config.regret * total / count as f64;
        let played = |i: usize| (f64::from(root.edge(role, i).visits) - explored).max(0.0);
        let mean = |i: usize| root.edge(role, i).mean().unwrap_or(0.0);
        let floor = scored / total.max(1.0) - MIXED_MARGIN;
        let weights: Vec<f64> = open.iter().map(|&i| if mean(i) >= floor { played(i) } else { 0.0 }).collect();
        let sum: f64 = weights.iter().sum();
        if sum <= 0.0 {
            return None;
        }
        crate::matrix::weighted_index(&weights, draw * sum).map(|k| open[k])
    }

    /// `role`'s scores summed over every iteration through the root, and how many there were
    /// (its edges' sums and visits): the root's mean is their ratio.
    fn root_sums(&self, role: usize) -> (f64, f64) {
        let root = self.root_node();
        let edges = (0..root.move_count(role)).map(|i| root.edge(role, i));
        edges.fold((0.0, 0.0), |(s, n), e| (s + e.sum, n + f64::from(e.visits)))
    }

    /// Where several roles choose at the root, the open move of `role` (of `open`) whose worst
    /// outcome, over every joint move with it, is the highest, if that worst is within
    /// [`SECURE_MARGIN`] of the root's mean: a move that keeps as much as the mix whatever the
    /// others answer loses little by being foreseen, and playing it leaves out the moves the mix
    /// holds only while its sampling has not settled. An outcome is the joint move's child's
    /// mean score for `role` (its proven score where it has one); `None` unless every joint
    /// move with the move was tried at least [`SECURE_VISITS`] times.
    fn secure(&self, role: usize, open: &[usize]) -> Option<usize> {
        let root = self.root_node();
        root.joint_count?;
        let count = root.move_count(role);
        let stride: u64 = (0..role).map(|r| root.move_count(r) as u64).product();
        let replies: u64 = (0..self.roles).filter(|&r| r != role).map(|r| root.move_count(r) as u64).product();
        let mut worst = vec![f64::INFINITY; count];
        let mut tried = vec![0u64; count];
        for &(key, child) in &root.children {
            let Some(node) = self.pool.get(child) else { continue };
            let value = match &node.proof {
                Some(p) => f64::from(p.scores[role]),
                None if node.moves.is_empty() => continue,
                None => {
                    let edges = (0..node.move_count(role)).map(|j| node.edge(role, j));
                    let (sum, visits) = edges.fold((0.0, 0), |(s, n), e| (s + e.sum, n + e.visits));
                    if visits < SECURE_VISITS {
                        continue;
                    }
                    sum / f64::from(visits)
                }
            };
            let i = (key / stride % count as u64) as usize;
            tried[i] += 1;
            worst[i] = worst[i].min(value);
        }
        let (scored, total) = self.root_sums(role);
        let floor = scored / total.max(1.0) - SECURE_MARGIN;
        let secure = open.iter().copied().filter(|&i| tried[i] == replies && worst[i] >= floor);
        secure.max_by(|&a, &b| worst[a].total_cmp(&worst[b]))
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
                local: Self::local_verdict(root, role, i),
            })
            .collect()
    }

    /// The mean score (0..=100) of `mv` for the role that played it, over every iteration that
    /// played it in the tree or its playout, where the search keeps move averages.
    pub fn move_average(&self, mv: &M::Move) -> Option<f64> {
        self.mast.as_ref()?.mean(M::move_index(mv)?)
    }

    /// The best complete line found so far (single-player games).
    pub fn plan(&self) -> Option<&Plan<M::Move>> {
        self.plan.as_ref()
    }

    /// Offers a line of play from the root of a single-player game (found by a puzzle solver,
    /// say); it is kept, and [`best_move`](Self::best_move) follows it, if it scores more than
    /// the best line so far, or as much in fewer moves.
    pub fn offer_plan(&mut self, plan: Plan<M::Move>) {
        let better =
            |p: &Plan<M::Move>| plan.score > p.score || (plan.score == p.score && plan.moves.len() < p.moves.len());
        if self.roles == 1 && self.plan.as_ref().is_none_or(better) {
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

    /// Whether searching on changes nothing: the root is proven and (with
    /// [`MctsConfig::open_root`]) so is every move of its mover.
    pub fn settled(&self) -> bool {
        let root = self.root_node();
        root.proof.is_some() && !(self.config.open_root && self.root_open())
    }

    /// Whether the root's mover, where one role alone moves there, has a move not yet proven.
    fn root_open(&self) -> bool {
        let root = self.root_node();
        let Kind::Mover(m) = root.kind else { return false };
        (0..root.move_count(m)).any(|i| self.child_proof(root, m, i).is_none())
    }

    /// The local search's verdict on `role`'s `i`th move at `node` (a forced win or loss), where
    /// `role` alone moves there and the move was marked.
    fn local_verdict(node: &Node<M>, role: usize, i: usize) -> Option<bool> {
        match node.local.get(i).filter(|_| node.kind == Kind::Mover(role))? {
            1 => Some(true),
            -1 => Some(false),
            _ => None,
        }
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

    /// The search's scores for a game that ended with `goals`: the goals, or where the roles
    /// are rivals, what [`Rivalry`] makes of them.
    fn score(&self, goals: &[u8]) -> Box<[u8]> {
        self.rivalry.map_or_else(|| goals.into(), |r| r.scores(goals))
    }

    /// A new node for `state`: its moves, achievable ranges, and a proof if the game is over or
    /// its scores are decided.
    fn describe(&mut self, state: M::State) -> Result<Node<M>, MachineError> {
        let m = &mut self.machine;
        let mut node = Node::new(state);
        let latched = self.knowledge.as_deref().map(Knowledge::goals).zip(M::bits(&node.state));
        node.range = match latched {
            Some((g, bits)) => (0..self.roles)
                .map(|r| {
                    let range = g.range(bits, r);
                    range.map_or(self.game_range[r], |x| (x.min.min(100) as u8, x.max.min(100) as u8))
                })
                .collect(),
            None => self.game_range.clone(),
        };
        if let Some((g, bits)) = self.knowledge.as_deref().zip(M::bits(&node.state)) {
            node.heuristic = g.latch_value(bits).unwrap_or_default();
        }
        node.starts.push(0);
        let terminal = m.is_terminal(&node.state)?;
        let mut stuck = false;
        let factors = self.knowledge.as_deref().and_then(Knowledge::factors);
        for r in 0..self.roles {
            if !terminal {
                let mut legal = m.legal_moves(&node.state, r)?;
                stuck |= legal.is_empty();
                if let Some(f) = factors {
                    relevant_moves::<M>(f, &mut legal);
                }
                node.moves.extend(legal);
            }
            node.starts.push(node.moves.len() as u32);
        }
        node.edges = vec![Edge::default(); node.moves.len()];
        let guided = self.knowledge.as_deref().zip(M::bits(&node.state));
        let decided = guided.and_then(|(g, bits)| g.decided(bits));
        if terminal || stuck {
            // The emulator speaks for ended games only.
            let scores = match self.knowledge.as_deref().filter(|_| terminal) {
                Some(g) => g.scores(m, &node.state, M::bits(&node.state)),
                None => playout::scores(m, &node.state),
            };
            node.proof = Some(Proof { scores: self.score(&scores), depth: 0 });
        } else if let Some(decided) = decided {
            let goals: Vec<u8> = decided.iter().map(|&v| v.min(100) as u8).collect();
            node.proof = Some(Proof { scores: self.score(&goals), depth: 0 });
        }
        if let Some(rivalry) = self.rivalry {
            node.range.iter_mut().for_each(|range| *range = rivalry.range(*range));
        }
        node.joint_count = (0..self.roles).try_fold(1u64, |n, r| n.checked_mul(node.move_count(r) as u64));
        let movers: Vec<usize> = (0..self.roles).filter(|&r| node.move_count(r) > 1).collect();
        node.kind = match movers[..] {
            _ if node.proof.is_some() => Kind::End,
            [] => Kind::Forced,
            [m] => Kind::Mover(m),
            _ => Kind::Simultaneous,
        };
        if node.kind == Kind::Simultaneous {
            match self.config.leader.filter(|&l| node.move_count(l) > 1) {
                Some(l) => {
                    node.replies = vec![Edge::default(); node.move_count(l) * (node.moves.len() - node.move_count(l))]
                }
                None if self.config.regret > 0.0 => node.regrets = vec![0.0; node.moves.len()],
                None => {}
            }
        }
        if let (Kind::Mover(m), true) = (node.kind, self.config.rave > 0.0) {
            node.amaf = vec![Edge::default(); node.move_count(m)];
        }
        // Room for what selection fills in later, so that the pool counts its bytes.
        if let (Kind::Mover(m), true) = (node.kind, self.seeds_priors()) {
            node.priors.reserve_exact(node.move_count(m));
        }
        Ok(node)
    }
}

/// A mean score as a totally ordered key (unvisited lowest).
fn ordered(mean: Option<f64>) -> u64 {
    mean.map_or(0, |m| (m * 1e6) as u64 + 1)
}

/// Keeps of `legal` the moves search needs where factors can be left aside (see
/// [`Factors::relevant_moves`]); moves that are not net indices are all kept.
fn relevant_moves<M: SearchMachine>(factors: &Factors, legal: &mut Vec<M::Move>) {
    if legal.iter().all(|mv| M::move_index(mv).is_some()) {
        factors.relevant_moves(legal, |mv| M::move_index(mv).unwrap_or_default());
    }
}
