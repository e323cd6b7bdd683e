//! The search graph: a bounded pool of nodes, one per state (the transposition table), that
//! trims its least recently visited nodes when it is full instead of growing. "Full" is a number
//! of nodes or an estimate of the bytes they take, whichever comes first: a node's size depends
//! on the game (its state and its legal moves), so only a byte budget bounds memory alike in
//! every game.
//!
//! Nodes point at their children through [`NodeRef`]s, a slot index and the serial number the
//! slot had when the child was put there. Freeing a slot bumps its serial, so every reference to
//! the old node goes stale at once and reads as "not expanded": trimming never has to find and
//! fix the parents of what it frees (with transpositions there can be many).

use super::SearchMachine;
use rustc_hash::FxHashMap;
use std::time::{Duration, Instant};

/// Bytes a heap allocation costs beyond what it holds (glibc's chunk header and rounding).
const ALLOCATION_OVERHEAD: usize = 16;

/// A reference to a node that may have been trimmed since it was taken.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct NodeRef {
    index: u32,
    serial: u32,
}

/// A proven result: every role's score (0..=100) under best play, and in how many joint moves
/// the game reaches it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Proof {
    pub scores: Box<[u8]>,
    pub depth: u32,
}

/// Who decides at a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// The game is over, or its scores are decided: the node is proven from the start.
    End,
    /// Every role has exactly one legal move.
    Forced,
    /// Only this role has a choice (turn-taking play).
    Mover(usize),
    /// Several roles choose at once.
    Simultaneous,
}

/// One role's statistics for one of its moves at a node.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Edge {
    /// Iterations that chose the move, counted when chosen (so a running playout is a virtual
    /// loss until its score arrives).
    pub visits: u32,
    /// The role's scores (0..=100) summed over the finished ones.
    pub sum: f64,
}

impl Edge {
    /// The mean score (0..=100), or `None` before the first visit.
    pub fn mean(&self) -> Option<f64> {
        (self.visits > 0).then(|| self.sum / f64::from(self.visits))
    }
}

/// A state in the search graph.
pub(super) struct Node<M: SearchMachine> {
    /// The bytes counted for the node when it was put in the pool.
    bytes: usize,
    pub state: M::State,
    pub kind: Kind,
    pub visits: u32,
    /// Every role's legal moves, role after role: role r's are `moves[starts[r]..starts[r + 1]]`.
    pub moves: Vec<M::Move>,
    pub starts: Vec<u32>,
    /// Per entry of `moves`, its statistics.
    pub edges: Vec<Edge>,
    /// Where several roles choose at once and the search matches regrets there: per entry of
    /// `moves`, the role's cumulative regret for not having played it (empty otherwise).
    pub regrets: Vec<f32>,
    /// Where several roles choose at once and the others are taken to see one role's move
    /// (`MctsConfig::leader`): per move of the leader, every other role's statistics for each
    /// of its moves when it answered that one (see [`Node::reply`]; empty otherwise).
    pub replies: Vec<Edge>,
    /// Expanded joint moves, sorted by key (the roles' move indices in mixed radix, role 0
    /// lowest), each with the node it leads to.
    pub children: Vec<(u64, NodeRef)>,
    /// Joint moves in all (`None` if they do not fit a `u64`: such a node is never expanded).
    pub joint_count: Option<u64>,
    /// Per role, the lowest and highest score still achievable.
    pub range: Vec<(u8, u8)>,
    /// Where one role alone moves and the knowledge has a prior: per move of the mover, the prior
    /// estimate of its score after the move (0..=100), filled in when selection first comes
    /// through (empty until then, and where there is none).
    pub priors: Vec<u8>,
    /// How many playouts each of `priors` counts as.
    pub prior_weight: f32,
    /// Per role, the confirmed latch heuristics' value (0..=100, 50 at no lead), when there are
    /// any (empty otherwise): what the progressive bias toward a child compares with its own.
    pub heuristic: Vec<u8>,
    pub proof: Option<Proof>,
    /// Where one role alone moves and the local search has spoken: per move of the mover, +1
    /// if it wins by force, -1 if it loses by force, 0 if unknown (empty until then).
    pub local: Vec<i8>,
    /// While the node is open and one role alone moves: the scores of its best proven move,
    /// the least the mover can count on here.
    pub floor: Option<Box<[u8]>>,
    /// How many of its children were proven when selection last looked for proofs that came
    /// by other paths.
    pub proven_children: u32,
    /// Where one role alone moves and the search keeps them (`MctsConfig::rave`): per move of
    /// the mover, its all-moves-as-first statistics (empty otherwise).
    pub amaf: Vec<Edge>,
}

impl<M: SearchMachine> Node<M> {
    /// A node for `state` with no moves, statistics or children yet (the caller fills them in).
    pub fn new(state: M::State) -> Node<M> {
        Node {
            bytes: 0,
            state,
            kind: Kind::End,
            visits: 0,
            moves: Vec::new(),
            starts: Vec::new(),
            edges: Vec::new(),
            regrets: Vec::new(),
            replies: Vec::new(),
            children: Vec::new(),
            joint_count: None,
            range: Vec::new(),
            priors: Vec::new(),
            prior_weight: 0.0,
            heuristic: Vec::new(),
            proof: None,
            local: Vec::new(),
            floor: None,
            proven_children: 0,
            amaf: Vec::new(),
        }
    }

    /// An estimate of the bytes the node takes in the pool: the node, its state twice (the
    /// table keeps a copy as its key), its moves and statistics, a table entry, an allowance
    /// for the one child entry an average node gets in its parent (a vector that grows by
    /// doubling), and the allocator's overhead on each of its nine allocations (one more each
    /// with regrets, replies and all-moves-as-first statistics).
    fn footprint(&self) -> usize {
        use std::mem::size_of;
        let state = M::state_bytes(&self.state);
        size_of::<Slot<M>>()
            + 2 * state
            + self.moves.capacity() * size_of::<M::Move>()
            + self.starts.capacity() * size_of::<u32>()
            + self.edges.capacity() * size_of::<Edge>()
            + self.regrets.capacity() * size_of::<f32>()
            + self.replies.capacity() * size_of::<Edge>()
            + self.amaf.capacity() * size_of::<Edge>()
            + self.range.capacity() * size_of::<(u8, u8)>()
            + self.priors.capacity()
            + self.heuristic.capacity()
            + self.local.capacity()
            + size_of::<(M::State, u32)>()
            + 2 * size_of::<(u64, NodeRef)>()
            + (9 + usize::from(self.regrets.capacity() > 0)
                + usize::from(self.replies.capacity() > 0)
                + usize::from(self.amaf.capacity() > 0))
                * ALLOCATION_OVERHEAD
    }

    /// How many legal moves `role` has.
    pub fn move_count(&self, role: usize) -> usize {
        (self.starts[role + 1] - self.starts[role]) as usize
    }

    /// Role `role`'s `i`th legal move.
    pub fn role_move(&self, role: usize, i: usize) -> M::Move {
        self.moves[self.starts[role] as usize + i]
    }

    /// Role `role`'s statistics for its `i`th legal move.
    pub fn edge(&self, role: usize, i: usize) -> &Edge {
        &self.edges[self.starts[role] as usize + i]
    }

    /// Where `replies` holds them, the index there of `role`'s statistics for its `j`th move
    /// answering `leader`'s `i`th: the leader's moves in blocks of every other role's moves, in
    /// the order of `moves`.
    pub fn reply(&self, leader: usize, i: usize, role: usize, j: usize) -> usize {
        let led = self.move_count(leader);
        let within = self.starts[role] as usize + j - if role > leader { led } else { 0 };
        i * (self.moves.len() - led) + within
    }

    /// Applies `f` to every other role's statistics (with the role) for its move in `choice`
    /// (one move index per role) answering `leader`'s.
    pub fn answered(&mut self, leader: usize, choice: &[u32], mut f: impl FnMut(usize, &mut Edge)) {
        for r in (0..choice.len()).filter(|&r| r != leader) {
            let slot = self.reply(leader, choice[leader] as usize, r, choice[r] as usize);
            f(r, &mut self.replies[slot]);
        }
    }

    /// The key of the joint move made of each role's move index in `choice`.
    pub fn key(&self, choice: &[u32]) -> u64 {
        let mut key = 0u64;
        let mut stride = 1u64;
        for (r, &c) in choice.iter().enumerate() {
            key = key.wrapping_add(u64::from(c).wrapping_mul(stride));
            stride = stride.wrapping_mul(self.move_count(r) as u64);
        }
        key
    }

    /// The child reached by joint move `key`, if it was expanded (it may be stale since).
    pub fn child(&self, key: u64) -> Option<NodeRef> {
        self.children.binary_search_by_key(&key, |c| c.0).ok().map(|i| self.children[i].1)
    }

    /// Records that joint move `key` leads to `child`.
    pub fn set_child(&mut self, key: u64, child: NodeRef) {
        match self.children.binary_search_by_key(&key, |c| c.0) {
            Ok(i) => self.children[i].1 = child,
            Err(i) => self.children.insert(i, (key, child)),
        }
    }
}

/// A place for a node, and the serial number of what it holds (bumped when the node is freed,
/// so that references to it go stale). A freed node stays in its slot until the slot is used
/// again: dropping it then spreads the cost of freeing over the insertions that follow a trim,
/// instead of stalling the search for all of it at once.
struct Slot<M: SearchMachine> {
    serial: u32,
    node: Option<Node<M>>,
}

/// What [`Pool::visited`] holds for a free slot: later than any tick, so never trimmed.
const FREE: u64 = u64::MAX;

/// The nodes, the free slots and the index from states to nodes.
pub(super) struct Pool<M: SearchMachine> {
    slots: Vec<Slot<M>>,
    /// Per slot, the tick of the last iteration through its node ([`FREE`] for a free slot):
    /// apart from the nodes, so that a trim reads eight bytes a node to find the oldest.
    visited: Vec<u64>,
    free: Vec<u32>,
    table: FxHashMap<M::State, u32>,
    max: usize,
    /// The byte budget, and the estimated bytes of the nodes in use.
    max_bytes: usize,
    bytes: usize,
    /// Times the pool was trimmed.
    pub trims: u64,
    /// How long the last trim took, and the deadline of the search under way: no trim starts
    /// later than twice that before it, a full pool hands nodes back rather than make a search
    /// late.
    last_trim: Duration,
    deadline: Option<Instant>,
}

impl<M: SearchMachine> Pool<M> {
    /// An empty pool that holds at most `max` nodes (at least two: a root and a child) and
    /// about `max_bytes` bytes of them.
    pub fn new(max: usize, max_bytes: usize) -> Pool<M> {
        let max = max.clamp(2, u32::MAX as usize);
        Pool {
            slots: Vec::new(),
            visited: Vec::new(),
            free: Vec::new(),
            table: FxHashMap::default(),
            max,
            max_bytes,
            bytes: 0,
            trims: 0,
            last_trim: Duration::ZERO,
            deadline: None,
        }
    }

    /// Nodes in use.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// The most nodes the pool holds.
    pub fn capacity(&self) -> usize {
        self.max
    }

    /// The estimated bytes of the nodes in use.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// From now on (until the next call) no trim starts so late that, taking twice what the
    /// last one took, it would run past `deadline`; `None`: trims start whenever the pool is full.
    pub fn trim_before(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// The node `r` refers to, unless it has been trimmed.
    pub fn get(&self, r: NodeRef) -> Option<&Node<M>> {
        self.slots.get(r.index as usize).filter(|s| s.serial == r.serial)?.node.as_ref()
    }

    /// The node `r` refers to, mutably, unless it has been trimmed.
    pub fn get_mut(&mut self, r: NodeRef) -> Option<&mut Node<M>> {
        self.slots.get_mut(r.index as usize).filter(|s| s.serial == r.serial)?.node.as_mut()
    }

    /// Records that the iteration of tick `now` went through the node `r` refers to (unless it
    /// has been trimmed): the most recently visited nodes are the last a trim frees.
    pub fn visit(&mut self, r: NodeRef, now: u64) {
        if self.slots.get(r.index as usize).is_some_and(|s| s.serial == r.serial) {
            self.visited[r.index as usize] = now;
        }
    }

    /// The node of `state`, if there is one.
    pub fn find(&self, state: &M::State) -> Option<NodeRef> {
        let &index = self.table.get(state)?;
        Some(NodeRef { index, serial: self.slots[index as usize].serial })
    }

    /// Puts `node` into the pool, unless its state already has a node. When the pool is full it
    /// is trimmed first, sparing `root` and every node visited at tick `now` or later, unless
    /// that could make the search late ([`trim_before`](Self::trim_before)); if nothing is
    /// freed, the node is handed back.
    pub fn insert(&mut self, mut node: Node<M>, root: NodeRef, now: u64) -> Result<NodeRef, Box<Node<M>>> {
        if let Some(found) = self.find(&node.state) {
            return Ok(found);
        }
        let bytes = node.footprint();
        let full = (self.free.is_empty() && self.slots.len() >= self.max) || self.bytes + bytes > self.max_bytes;
        if full {
            if self.deadline.is_some_and(|d| Instant::now() + 2 * self.last_trim >= d) {
                return Err(Box::new(node));
            }
            self.trim(root, now);
        }
        let index = match self.free.pop() {
            Some(index) => index,
            None if self.slots.len() < self.max => {
                self.slots.push(Slot { serial: 0, node: None });
                self.visited.push(FREE);
                (self.slots.len() - 1) as u32
            }
            None => return Err(Box::new(node)),
        };
        node.bytes = bytes;
        self.bytes += bytes;
        self.visited[index as usize] = now;
        self.table.insert(node.state.clone(), index);
        let slot = &mut self.slots[index as usize];
        // The node freed here last (if any) is dropped now.
        slot.node = Some(node);
        Ok(NodeRef { index, serial: slot.serial })
    }

    /// Frees the least recently visited eighth of the nodes, sparing `root` and the nodes
    /// visited at tick `now` or later (the iteration under way).
    fn trim(&mut self, root: NodeRef, now: u64) {
        let started = Instant::now();
        let mut old: Vec<(u64, u32)> = (0..self.slots.len() as u32)
            .map(|i| (self.visited[i as usize], i))
            .filter(|&(t, i)| t < now && i != root.index)
            .collect();
        let count = (self.table.len() / 8).max(1).min(old.len());
        if count == 0 {
            return;
        }
        old.select_nth_unstable(count - 1);
        for &(_, i) in &old[..count] {
            let slot = &mut self.slots[i as usize];
            if let Some(node) = slot.node.as_ref() {
                self.bytes -= node.bytes;
            }
            // The next node in this slot must not look like this one.
            slot.serial = slot.serial.wrapping_add(1);
            self.visited[i as usize] = FREE;
            self.free.push(i);
        }
        // One pass over the table rather than a lookup per freed state.
        let visited = &self.visited;
        self.table.retain(|_, &mut i| visited[i as usize] != FREE);
        self.trims += 1;
        self.last_trim = started.elapsed();
    }
}
