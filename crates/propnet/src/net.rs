//! The propositional network: a circuit of AND, OR and NOT gates whose leaves are base
//! propositions (the state), input propositions (the moves) and constants, with named outputs
//! for every `legal`, `goal`, `terminal` and `next` proposition.
//!
//! Chapter 13 draws propositions and connectives as separate nodes; here every node is a gate
//! and a proposition is the gate that computes it, labelled with its GDL name. A transition is
//! the pair (base proposition, the node computing its next value). Nodes may form cycles (ground
//! recursion); their meaning is the least fixpoint, which [`Net::schedule`] handles.

use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

/// A node's index in its net.
pub type NodeId = u32;

/// What a node computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Kind {
    /// A constant.
    Const(bool),
    /// The base proposition with this index in [`Net::bases`].
    Base(u32),
    /// The input proposition with this index in [`Net::moves`].
    Input(u32),
    /// True when every input is (true with no inputs).
    And,
    /// True when some input is (false with no inputs).
    Or,
    /// The negation of its single input.
    Not,
}

/// A base proposition: part of the state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BaseProp {
    /// The proposition in canonical KIF without `true`, e.g. `(cell 1 1 b)`.
    pub name: String,
    /// Its relation, `cell` (the whole name where it has no arguments).
    #[serde(skip)]
    pub relation: String,
    /// Its arguments in canonical KIF, `1`, `1`, `b` (a function term whole).
    #[serde(skip)]
    pub args: Vec<String>,
    /// The node holding its current value (of kind [`Kind::Base`]).
    pub node: NodeId,
    /// The node computing its value in the next state (the transition's input).
    pub next: NodeId,
    /// Whether it holds in the initial state.
    pub init: bool,
}

/// A base proposition of a relation, as [`Net::relations`] lists it: its index and arguments.
pub type Member<'a> = (usize, Vec<&'a str>);

impl BaseProp {
    /// The base proposition named `name` (canonical KIF), its relation and arguments read from
    /// the name once.
    pub fn new(name: String, node: NodeId, next: NodeId, init: bool) -> BaseProp {
        let parts = name_parts(&name);
        let relation = parts.first().map_or_else(String::new, |r| (*r).to_owned());
        let args = parts.iter().skip(1).map(|a| (*a).to_owned()).collect();
        BaseProp { name, relation, args, node, next, init }
    }
}

/// An input proposition: one role's move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MoveProp {
    /// The role (index into [`Net::roles`]).
    pub role: usize,
    /// The move in canonical KIF, e.g. `(mark 1 1)`.
    pub name: String,
    /// The node that is true when the role plays it (of kind [`Kind::Input`]).
    pub node: NodeId,
    /// The node computing whether it is legal.
    pub legal: NodeId,
}

/// A propositional network for one game.
#[derive(Debug, Clone, Serialize)]
pub struct Net {
    /// What each node computes.
    pub kinds: Vec<Kind>,
    /// Each node's inputs.
    pub inputs: Vec<Vec<NodeId>>,
    /// The GDL proposition a node computes, where it has a name (e.g. `(legal x (mark 1 1))`).
    pub labels: Vec<Option<String>>,
    /// Role names in order.
    pub roles: Vec<String>,
    /// The base propositions.
    pub bases: Vec<BaseProp>,
    /// The input propositions.
    pub moves: Vec<MoveProp>,
    /// Per role, each goal value and the node that says the role gets it.
    pub goals: Vec<Vec<(u32, NodeId)>>,
    /// The node that says the state is terminal.
    pub terminal: NodeId,
}

/// Node counts by kind, for reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// All nodes.
    pub nodes: usize,
    /// AND gates.
    pub and: usize,
    /// OR gates.
    pub or: usize,
    /// NOT gates.
    pub not: usize,
    /// Constants.
    pub constants: usize,
    /// Base propositions.
    pub bases: usize,
    /// Input propositions.
    pub inputs: usize,
    /// Edges (gate inputs).
    pub edges: usize,
}

impl fmt::Display for Counts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} nodes ({} and, {} or, {} not, {} constant, {} base, {} input), {} edges",
            self.nodes, self.and, self.or, self.not, self.constants, self.bases, self.inputs, self.edges
        )
    }
}

/// The top-level parts of a proposition's name: `(cell 1 2 b)` gives `cell`, `1`, `2`, `b`.
pub fn name_parts(name: &str) -> Vec<&str> {
    let inner = name.strip_prefix('(').and_then(|n| n.strip_suffix(')')).unwrap_or(name);
    let (mut out, mut depth, mut from) = (Vec::new(), 0usize, 0usize);
    for (i, c) in inner.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ' ' if depth == 0 => {
                if i > from {
                    out.push(&inner[from..i]);
                }
                from = i + 1;
            }
            _ => {}
        }
    }
    if inner.len() > from {
        out.push(&inner[from..]);
    }
    out
}

impl Net {
    /// Per relation and arity, the base propositions with at least one argument (in base order)
    /// and their arguments: `(cell, 3)` holds every `(cell x y z)`.
    pub fn relations(&self) -> BTreeMap<(&str, usize), Vec<Member<'_>>> {
        let mut by_relation: BTreeMap<(&str, usize), Vec<Member<'_>>> = BTreeMap::new();
        for (i, b) in self.bases.iter().enumerate().filter(|(_, b)| !b.args.is_empty()) {
            let args = b.args.iter().map(String::as_str).collect();
            by_relation.entry((b.relation.as_str(), b.args.len())).or_default().push((i, args));
        }
        by_relation
    }

    /// Adds a node and returns its id.
    pub fn add(&mut self, kind: Kind, inputs: Vec<NodeId>, label: Option<String>) -> NodeId {
        let id = self.kinds.len() as NodeId;
        self.kinds.push(kind);
        self.inputs.push(inputs);
        self.labels.push(label);
        id
    }

    /// How many nodes of each kind the net has.
    pub fn counts(&self) -> Counts {
        let mut c = Counts { nodes: self.kinds.len(), ..Counts::default() };
        for (kind, inputs) in self.kinds.iter().zip(&self.inputs) {
            c.edges += inputs.len();
            match kind {
                Kind::And => c.and += 1,
                Kind::Or => c.or += 1,
                Kind::Not => c.not += 1,
                Kind::Const(_) => c.constants += 1,
                Kind::Base(_) => c.bases += 1,
                Kind::Input(_) => c.inputs += 1,
            }
        }
        c
    }

    /// The base propositions (indices into [`Net::bases`]) that the nodes `roots` read, directly
    /// or through gates, ascending.
    pub fn bases_read(&self, roots: impl IntoIterator<Item = NodeId>) -> Vec<usize> {
        self.leaves_read(roots, |kind| match kind {
            Kind::Base(b) => Some(b),
            _ => None,
        })
    }

    /// The moves (indices into [`Net::moves`]) whose inputs the nodes `roots` read, directly or
    /// through gates, ascending.
    pub fn moves_read(&self, roots: impl IntoIterator<Item = NodeId>) -> Vec<usize> {
        self.leaves_read(roots, |kind| match kind {
            Kind::Input(j) => Some(j),
            _ => None,
        })
    }

    /// The indices `leaf` picks out of the nodes `roots` read, ascending.
    fn leaves_read(&self, roots: impl IntoIterator<Item = NodeId>, leaf: impl Fn(Kind) -> Option<u32>) -> Vec<usize> {
        let mut seen = vec![false; self.kinds.len()];
        let mut stack: Vec<NodeId> = roots.into_iter().collect();
        let mut found = Vec::new();
        while let Some(n) = stack.pop() {
            if !std::mem::replace(&mut seen[n as usize], true) {
                if let Some(i) = leaf(self.kinds[n as usize]) {
                    found.push(i as usize);
                }
                stack.extend(self.inputs[n as usize].iter().copied());
            }
        }
        found.sort_unstable();
        found
    }

    /// Every node the outputs (next, legal, goal, terminal) depend on, as a mask.
    pub fn needed(&self) -> Vec<bool> {
        let mut needed = vec![false; self.kinds.len()];
        let mut stack: Vec<NodeId> = self.outputs().collect();
        while let Some(n) = stack.pop() {
            if !std::mem::replace(&mut needed[n as usize], true) {
                stack.extend(self.inputs[n as usize].iter().copied());
            }
        }
        needed
    }

    /// The output nodes: every transition input, legal, goal and terminal node, and the base and
    /// input nodes themselves (the state and moves must stay addressable).
    pub fn outputs(&self) -> impl Iterator<Item = NodeId> + '_ {
        let bases = self.bases.iter().flat_map(|b| [b.node, b.next]);
        let moves = self.moves.iter().flat_map(|m| [m.node, m.legal]);
        let goals = self.goals.iter().flatten().map(|&(_, n)| n);
        bases.chain(moves).chain(goals).chain(std::iter::once(self.terminal))
    }

    /// An evaluation order: the strongly connected components of the node graph, each listed
    /// after every component it reads. A component with more than one node, or a node reading
    /// itself, is a cycle and must be iterated to its least fixpoint.
    pub fn schedule(&self) -> Vec<Vec<NodeId>> {
        self.schedule_until(&mut |_| false).expect("never stopped")
    }

    /// [`schedule`](Self::schedule), asking `stop` with a step count as it goes: `None` as soon
    /// as it says to stop.
    pub fn schedule_until(&self, stop: &mut dyn FnMut(usize) -> bool) -> Option<Vec<Vec<NodeId>>> {
        let n = self.kinds.len();
        let c = structures::Components::of_until(&self.inputs, n, 0..n as NodeId, stop)?;
        // Within a component, nodes in the order the search first reached them.
        Some((0..c.len()).map(|g| c.members(g).iter().rev().copied().collect()).collect())
    }

    /// Evaluates every node for a state (`base[i]` for base proposition i) and a joint move
    /// (`input[j]` for input proposition j). Plainly written: the reference for faster runtimes.
    pub fn evaluate(&self, base: &[bool], input: &[bool]) -> Vec<bool> {
        self.evaluate_with(&self.schedule(), base, input)
    }

    /// [`evaluate`](Self::evaluate) with a schedule computed once by [`schedule`](Self::schedule),
    /// for callers that evaluate many markings.
    pub fn evaluate_with(&self, schedule: &[Vec<NodeId>], base: &[bool], input: &[bool]) -> Vec<bool> {
        let word = |b: &bool| u64::from(*b);
        let base: Vec<u64> = base.iter().map(word).collect();
        let input: Vec<u64> = input.iter().map(word).collect();
        let order: Vec<&[NodeId]> = schedule.iter().map(Vec::as_slice).collect();
        let mut value = vec![0u64; self.kinds.len()];
        self.evaluate_words(&order, &base, &input, &mut value);
        value.iter().map(|&v| v & 1 != 0).collect()
    }

    /// Evaluates the components `order` (a subsequence of [`schedule`](Self::schedule)) for 64
    /// markings at once, marking `k` in bit `k` of every word, writing each node's word to `value`.
    /// Nodes outside `order` are read from `value` as they are.
    pub fn evaluate_words(&self, order: &[&[NodeId]], base: &[u64], input: &[u64], value: &mut [u64]) {
        for &comp in order {
            let cyclic = comp.len() > 1 || self.inputs[comp[0] as usize].contains(&comp[0]);
            // A cycle starts from false every time, for its least fixpoint.
            if cyclic {
                comp.iter().for_each(|&n| value[n as usize] = 0);
            }
            loop {
                let mut changed = false;
                for &n in comp {
                    let ins = &self.inputs[n as usize];
                    let v = match self.kinds[n as usize] {
                        Kind::Const(c) => 0u64.wrapping_sub(u64::from(c)),
                        Kind::Base(i) => base[i as usize],
                        Kind::Input(j) => input[j as usize],
                        Kind::And => ins.iter().fold(u64::MAX, |acc, &i| acc & value[i as usize]),
                        Kind::Or => ins.iter().fold(0, |acc, &i| acc | value[i as usize]),
                        Kind::Not => !value[ins[0] as usize],
                    };
                    changed |= v != value[n as usize];
                    value[n as usize] = v;
                }
                if !cyclic || !changed {
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::name_parts;

    #[test]
    fn names_split_into_their_top_level_parts() {
        assert_eq!(name_parts("(cell 1 2 b)"), ["cell", "1", "2", "b"]);
        assert_eq!(name_parts("(at (pos 1 2) white)"), ["at", "(pos 1 2)", "white"]);
        assert_eq!(name_parts("p"), ["p"]);
    }
}
