//! The two-step latch question as propositional satisfiability over the optimised net, solved
//! by batsat (MiniSat in pure Rust).
//!
//! The variables are the nodes that the open questions and the legality of moves depend on: the
//! base propositions are free (but for those the net found never to change), each role plays
//! exactly one of its moves that can ever be legal, and only a legal one, and every gate is tied
//! to its inputs by its clauses (Tseitin). A question is a fresh variable implying its
//! counterexample (a base true now and false next, or the reverse), and one clause asks for some
//! open question to have one. Each model refutes every question it shows a counterexample for,
//! which is then forced false; when no model is left, every question still open is a latch.
//!
//! This is the question the answer-set translation asks of the rules, over the same bases and
//! moves: the net computes from any marking of its bases what the rules do, because the grounder
//! instantiates rules over a model closed under every base being true. One difference needs care:
//! a cycle of gates (ground recursion) means its least fixpoint, while the clauses of a gate only
//! say that it equals its function of its inputs, which a cycle of ORs may also satisfy by
//! believing itself. Such a model would refute a question without a real counterexample (never
//! prove a false latch: every real transition is still a model). So every model is checked on the
//! net's cycles, and a cycle that holds more than its least fixpoint gets a loop clause (Lin and
//! Zhao's loop formulas, added as needed, as ASSAT does): the nodes it believes without
//! foundation cannot be true unless something outside them supports them. The models that remain
//! are exactly the real two-step transitions, so the verdicts are the answer-set solver's.

use asp::{Verdict, Verdicts};
use batsat::{lbool, Callbacks, Lit, Solver, SolverInterface, SolverOpts, Var};
use propnet::net::{Kind, Net, NodeId};
use std::time::{Duration, Instant};

/// What one run of the solver cost.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Effort {
    /// Time spent writing the clauses.
    pub encode: Duration,
    /// Time spent solving.
    pub solve: Duration,
    /// Models read (spurious ones included).
    pub models: usize,
    /// Models whose cycles believed more than their least fixpoint (each added loop clauses).
    pub unfounded: usize,
    /// Whether every question was answered.
    pub finished: bool,
}

/// The widest gate given to the solver as one clause.
const FAN_IN: usize = 8;

/// Stops the solver at the deadline.
struct Clock(Option<Instant>);

impl Callbacks for Clock {
    fn stop(&self) -> bool {
        self.0.is_some_and(|d| Instant::now() >= d)
    }
}

/// One open question: whether base `base` is a positive latch (refuted by true → false) or a
/// negative one, with the variable that implies its counterexample.
#[derive(Clone, Copy)]
struct Question {
    base: usize,
    positive: bool,
    var: Var,
}

/// Answers every question `verdicts` leaves [`Verdict::Unknown`] about the bases of `net`,
/// with the bases `fixed` held at their values; past `deadline` the open ones stay unknown.
pub(super) fn prove(net: &Net, fixed: &[(usize, bool)], verdicts: &mut Verdicts, deadline: Option<Instant>) -> Effort {
    let start = Instant::now();
    let mut effort = Effort::default();
    let mut open: Vec<(usize, bool)> = Vec::new();
    for i in 0..net.bases.len() {
        for (positive, v) in [(true, verdicts.positive[i]), (false, verdicts.negative[i])] {
            if v == Verdict::Unknown {
                open.push((i, positive));
            }
        }
    }
    if open.is_empty() {
        effort.finished = true;
        return effort;
    }
    let mut enc = Encoding::transition(net, fixed, open.iter().map(|&(i, _)| i), deadline);
    let questions: Vec<Question> = open
        .iter()
        .map(|&(base, positive)| {
            let var = enc.solver.new_var_default();
            let (now, next) = (enc.lit(net.bases[base].node), enc.lit(net.bases[base].next));
            // The question implies its counterexample: now = positive, next = !positive.
            enc.clause(&[!Lit::new(var, true), if positive { now } else { !now }]);
            enc.clause(&[!Lit::new(var, true), if positive { !next } else { next }]);
            Question { base, positive, var }
        })
        .collect();
    let some: Vec<Lit> = questions.iter().map(|q| Lit::new(q.var, true)).collect();
    let any = Lit::new(enc.solver.new_var_default(), true);
    enc.tie(any, &some, false);
    enc.clause(&[any]);
    effort.encode = start.elapsed();
    let solving = Instant::now();
    loop {
        // A call that finds its model without a decision never asks the clock; the loop does.
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        let result = enc.solver.solve_limited(&[]);
        if result == lbool::FALSE {
            // No counterexample left for any open question: all of them are latches.
            for q in &questions {
                if let Some(v @ Verdict::Unknown) = verdicts.get_mut(q.positive, q.base) {
                    *v = Verdict::Latch;
                }
            }
            effort.finished = true;
            break;
        }
        if result != lbool::TRUE {
            break;
        }
        effort.models += 1;
        if enc.unfounded() {
            effort.unfounded += 1;
            continue;
        }
        let mut refuted = 0;
        for q in &questions {
            let (now, next) = (enc.value(net.bases[q.base].node), enc.value(net.bases[q.base].next));
            if now != q.positive || next == q.positive {
                continue;
            }
            if let Some(v @ Verdict::Unknown) = verdicts.get_mut(q.positive, q.base) {
                *v = Verdict::NotLatch;
                refuted += 1;
                enc.clause(&[!Lit::new(q.var, true)]);
            }
        }
        // The model makes some question true, and a true question has its counterexample.
        debug_assert!(refuted > 0, "a model refuted no question");
        if refuted == 0 {
            break;
        }
    }
    effort.solve = solving.elapsed();
    effort
}

/// A clause of two base-proposition literals: `(a.0 is a.1) or (b.0 is b.1)`; with `a == b`, a
/// single literal.
pub(crate) type Pair = ((usize, bool), (usize, bool));

/// Which of `candidates` are invariants of play: true in every state reachable from one where
/// all of them hold (the caller checks the initial state), found as the largest subset that one
/// step of legal play preserves when the whole subset holds before it (Houdini's fixpoint:
/// drop every candidate a model breaks, ask again, until no model is left). Each model is a real
/// transition (loop clauses as in [`prove`]), so a dropped candidate fails from some state of
/// the subset; the survivors hold together by induction. Alongside, which of `steps` hold of
/// every such step: a step clause `((a, va), (b, vb))` says that `a` is `va` before the step
/// or `b` is `vb` after it ("a counter at 5 is not at 3 next"). Step clauses are checked, never
/// assumed, so they cost the induction nothing. Past `deadline` nothing is proved.
pub(crate) fn invariants(
    net: &Net,
    fixed: &[(usize, bool)],
    candidates: &[Pair],
    steps: &[Pair],
    deadline: Option<Instant>,
) -> (Vec<bool>, Vec<bool>) {
    let mut alive = vec![true; candidates.len()];
    let mut holds = vec![true; steps.len()];
    if candidates.is_empty() && steps.is_empty() {
        return (alive, holds);
    }
    let nothing = || (vec![false; candidates.len()], vec![false; steps.len()]);
    let bases = candidates.iter().chain(steps).flat_map(|&((a, _), (b, _))| [a, b]);
    let mut enc = Encoding::transition(net, fixed, bases, deadline);
    let literal = |enc: &Encoding, node: NodeId, value: bool| if value { enc.lit(node) } else { !enc.lit(node) };
    let mut assumed = Vec::with_capacity(candidates.len());
    let mut questions = Vec::with_capacity(candidates.len());
    for &((a, va), (b, vb)) in candidates {
        // The candidate holds now while its activation is assumed.
        let act = Lit::new(enc.solver.new_var_default(), true);
        let now = [literal(&enc, net.bases[a].node, va), literal(&enc, net.bases[b].node, vb)];
        enc.clause(&[!act, now[0], now[1]]);
        // Its question implies that it fails next.
        let q = Lit::new(enc.solver.new_var_default(), true);
        enc.clause(&[!q, !literal(&enc, net.bases[a].next, va)]);
        enc.clause(&[!q, !literal(&enc, net.bases[b].next, vb)]);
        assumed.push(act);
        questions.push(q);
    }
    for &((a, va), (b, vb)) in steps {
        // Its question implies that it fails: `a` is not `va` now and `b` not `vb` next.
        let q = Lit::new(enc.solver.new_var_default(), true);
        enc.clause(&[!q, !literal(&enc, net.bases[a].node, va)]);
        enc.clause(&[!q, !literal(&enc, net.bases[b].next, vb)]);
        questions.push(q);
    }
    let any = Lit::new(enc.solver.new_var_default(), true);
    enc.tie(any, &questions, false);
    enc.clause(&[any]);
    loop {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return nothing();
        }
        let assumptions: Vec<Lit> = assumed.iter().zip(&alive).filter(|(_, &a)| a).map(|(&l, _)| l).collect();
        let result = enc.solver.solve_limited(&assumptions);
        if result == lbool::FALSE {
            return (alive, holds);
        }
        if result != lbool::TRUE {
            return nothing();
        }
        if enc.unfounded() {
            continue;
        }
        let mut dropped = 0;
        for (c, &((a, va), (b, vb))) in candidates.iter().enumerate() {
            let fails = enc.value(net.bases[a].next) != va && enc.value(net.bases[b].next) != vb;
            if alive[c] && fails {
                alive[c] = false;
                dropped += 1;
                enc.clause(&[!questions[c]]);
            }
        }
        for (k, &((a, va), (b, vb))) in steps.iter().enumerate() {
            let fails = enc.value(net.bases[a].node) != va && enc.value(net.bases[b].next) != vb;
            if holds[k] && fails {
                holds[k] = false;
                dropped += 1;
                enc.clause(&[!questions[candidates.len() + k]]);
            }
        }
        if dropped == 0 {
            // A model whose true question is already dropped cannot be: its clause forbids it.
            return nothing();
        }
    }
}

/// The clauses of a net's cone, and the cycles in it to check models against.
struct Encoding<'a> {
    net: &'a Net,
    solver: Solver<Clock>,
    /// The variable of each node in the cone (`u32::MAX` outside it).
    var: Vec<u32>,
    /// The cone's nodes, in the order they were reached.
    nodes: Vec<NodeId>,
    /// The cycles in the cone (strongly connected components that read themselves), inputs
    /// before readers.
    cycles: Vec<Vec<NodeId>>,
    scratch: Vec<Lit>,
}

impl<'a> Encoding<'a> {
    fn new(net: &'a Net, deadline: Option<Instant>) -> Encoding<'a> {
        Encoding {
            net,
            solver: Solver::new(SolverOpts::default(), Clock(deadline)),
            var: vec![u32::MAX; net.kinds.len()],
            nodes: Vec::new(),
            cycles: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// Gives a variable to every node that `roots` read, directly or through gates.
    fn cone(&mut self, roots: impl IntoIterator<Item = NodeId>) {
        let mut stack: Vec<NodeId> = roots.into_iter().collect();
        while let Some(n) = stack.pop() {
            if self.var[n as usize] == u32::MAX {
                self.var[n as usize] = self.solver.new_var_default().idx();
                self.nodes.push(n);
                stack.extend(self.net.inputs[n as usize].iter().copied());
            }
        }
        let net = self.net;
        // A cycle through a NOT gate has no least fixpoint to speak of; stratified rules never
        // make one, and the loop clauses would not be valid for it, so its models are taken as
        // they are (sound: a spurious model can only refute, never prove).
        let monotone_cycle = |comp: &Vec<NodeId>| {
            (comp.len() > 1 || net.inputs[comp[0] as usize].contains(&comp[0]))
                && comp.iter().all(|&n| net.kinds[n as usize] != Kind::Not)
        };
        let var = &self.var;
        self.cycles =
            net.schedule().into_iter().filter(|c| var[c[0] as usize] != u32::MAX && monotone_cycle(c)).collect();
    }

    /// One legal step of play from any state with the bases `fixed` at their values, encoded
    /// over what `bases`' values now and next and every move's legality read.
    fn transition(
        net: &'a Net,
        fixed: &[(usize, bool)],
        bases: impl Iterator<Item = usize>,
        deadline: Option<Instant>,
    ) -> Encoding<'a> {
        let mut enc = Encoding::new(net, deadline);
        let live: Vec<usize> =
            (0..net.moves.len()).filter(|&m| net.kinds[net.moves[m].legal as usize] != Kind::Const(false)).collect();
        let roots = bases
            .flat_map(|i| [net.bases[i].node, net.bases[i].next])
            .chain(live.iter().flat_map(|&m| [net.moves[m].node, net.moves[m].legal]));
        enc.cone(roots);
        enc.gates(fixed);
        enc.moves(&live);
        enc
    }

    fn lit(&self, n: NodeId) -> Lit {
        Lit::new(Var::unsafe_from_idx(self.var[n as usize]), true)
    }

    fn value(&self, n: NodeId) -> bool {
        self.solver.value_lit(self.lit(n)) == lbool::TRUE
    }

    fn clause(&mut self, lits: &[Lit]) {
        self.scratch.clear();
        self.scratch.extend_from_slice(lits);
        // A clause that empties the solver makes every later solve answer "unsatisfiable",
        // which is the right answer then.
        self.solver.add_clause_reuse(&mut self.scratch);
    }

    /// Every gate of the cone tied to its inputs; constants and fixed bases set.
    fn gates(&mut self, fixed: &[(usize, bool)]) {
        for &(base, value) in fixed {
            let node = self.net.bases[base].node;
            if self.var[node as usize] != u32::MAX {
                let l = self.lit(node);
                self.clause(&[if value { l } else { !l }]);
            }
        }
        for k in 0..self.nodes.len() {
            let n = self.nodes[k];
            let g = self.lit(n);
            let ins: Vec<Lit> = self.net.inputs[n as usize].iter().map(|&i| self.lit(i)).collect();
            match self.net.kinds[n as usize] {
                Kind::Const(c) => self.clause(&[if c { g } else { !g }]),
                Kind::Base(_) | Kind::Input(_) => {}
                Kind::Not => {
                    self.clause(&[g, ins[0]]);
                    self.clause(&[!g, !ins[0]]);
                }
                Kind::And => self.tie(g, &ins, true),
                Kind::Or => self.tie(g, &ins, false),
            }
        }
    }

    /// Ties `g` to the conjunction (`and`) or disjunction of `ins`. A wide gate goes through a tree
    /// of narrow ones, because a solver looks for a new watch in a long clause from its start,
    /// which makes propagation quadratic in the clause's length.
    fn tie(&mut self, g: Lit, ins: &[Lit], and: bool) {
        let mut level: Vec<Lit> = ins.to_vec();
        while level.len() > FAN_IN {
            level = level
                .chunks(FAN_IN)
                .map(|chunk| {
                    let a = Lit::new(self.solver.new_var_default(), true);
                    self.tie(a, chunk, and);
                    a
                })
                .collect();
        }
        // and: g → every input, all inputs → g; or: every input → g, g → some input.
        let g = if and { g } else { !g };
        for &i in &level {
            let i = if and { i } else { !i };
            self.clause(&[!g, i]);
        }
        let all: Vec<Lit> = std::iter::once(g).chain(level.iter().map(|&i| if and { !i } else { i })).collect();
        self.clause(&all);
    }

    /// Each role plays exactly one of the moves `live` (those that can ever be legal), and only a
    /// legal one; every other move is never played.
    fn moves(&mut self, live: &[usize]) {
        let net = self.net;
        for k in 0..self.nodes.len() {
            let n = self.nodes[k];
            if let Kind::Input(m) = net.kinds[n as usize] {
                if live.binary_search(&(m as usize)).is_err() {
                    let l = self.lit(n);
                    self.clause(&[!l]);
                }
            }
        }
        for role in 0..net.roles.len() {
            let mine: Vec<usize> = live.iter().copied().filter(|&m| net.moves[m].role == role).collect();
            let plays: Vec<Lit> = mine.iter().map(|&m| self.lit(net.moves[m].node)).collect();
            for &m in &mine {
                let (play, legal) = (self.lit(net.moves[m].node), self.lit(net.moves[m].legal));
                self.clause(&[!play, legal]);
            }
            // Exactly one, by a sequential counter: `seen` is "one of the moves so far is
            // played", which no later move may add to, and which is true after the last one.
            // Every clause has at most three literals (see `tie`).
            let mut seen: Option<Lit> = None;
            for &play in &plays {
                let now = Lit::new(self.solver.new_var_default(), true);
                self.clause(&[!play, now]);
                match seen {
                    Some(before) => {
                        self.clause(&[!before, !play]);
                        self.clause(&[!before, now]);
                        self.clause(&[!now, before, play]);
                    }
                    None => self.clause(&[!now, play]),
                }
                seen = Some(now);
            }
            match seen {
                Some(last) => self.clause(&[last]),
                // A role without a move that can ever be legal: no state has a legal joint move.
                None => self.clause(&[]),
            }
        }
    }

    /// Checks the model's cycles against their least fixpoints (each computed from the model's
    /// values around it); for every cycle that believes more, adds a loop clause and returns true.
    fn unfounded(&mut self) -> bool {
        if self.cycles.is_empty() {
            return false;
        }
        let net = self.net;
        let mut value = vec![0u64; net.kinds.len()];
        for &n in &self.nodes {
            value[n as usize] = if self.value(n) { u64::MAX } else { 0 };
        }
        let mut found = false;
        for c in 0..self.cycles.len() {
            let comp = std::mem::take(&mut self.cycles[c]);
            net.evaluate_words(&[comp.as_slice()], &[], &[], &mut value);
            let believed: Vec<NodeId> =
                comp.iter().copied().filter(|&n| self.value(n) && value[n as usize] == 0).collect();
            // Later cycles are judged from the model's values, as the clauses must hold for it.
            for &n in &comp {
                value[n as usize] = if self.value(n) { u64::MAX } else { 0 };
            }
            if !believed.is_empty() {
                found = true;
                self.loop_clauses(&believed);
            }
            self.cycles[c] = comp;
        }
        found
    }

    /// The loop formula of the set `u`: none of it holds unless an OR gate in it has an input
    /// outside it that holds. Valid for every least fixpoint: the first node of `u` to become
    /// true is supported from outside `u`, and an AND gate cannot be first, since one of its
    /// inputs is in `u` (the unfounded sets found here never hold an AND gate whose inputs are
    /// all outside, for the model agrees with its inputs there).
    fn loop_clauses(&mut self, u: &[NodeId]) {
        let inside: std::collections::HashSet<NodeId> = u.iter().copied().collect();
        let inside = |n: &NodeId| inside.contains(n);
        let mut support: Vec<Lit> = Vec::new();
        for &n in u {
            if self.net.kinds[n as usize] == Kind::Or {
                for i in self.net.inputs[n as usize].iter().filter(|i| !inside(i)) {
                    support.push(self.lit(*i));
                }
            }
        }
        support.sort_unstable();
        support.dedup();
        for &n in u {
            let mut clause = vec![!self.lit(n)];
            clause.extend_from_slice(&support);
            self.clause(&clause);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net(rules: &str) -> Net {
        let (desc, _) = gdl::load("cycle.kif", rules).expect("valid");
        propnet::build(&desc, &propnet::Limits::default()).expect("builds")
    }

    fn answer(net: &Net) -> (Verdicts, Effort) {
        let mut verdicts = Verdicts::unknown(net.bases.len());
        let effort = prove(net, &[], &mut verdicts, None);
        (verdicts, effort)
    }

    fn base(net: &Net, name: &str) -> usize {
        net.bases.iter().position(|b| b.name == name).expect("base")
    }

    /// `p` comes true next only through `(r a)`, which holds while `p` and `s` do, and `(r a)` and
    /// `(r b)` support each other. Once false, `p` stays false, but only the least fixpoint knows:
    /// the clauses of the two gates alone are satisfied with both believing each other.
    const CYCLE: &str = "(role robot) (init p) (init s) (legal robot on) (legal robot off)
        (<= (next s) (does robot on))
        (<= (next p) (r a))
        (<= (r a) (r b)) (<= (r b) (r a))
        (<= (r a) (true s) (true p))
        (<= terminal (not (true p)))
        (goal robot 100)";

    #[test]
    fn a_cycle_believing_itself_refutes_nothing() {
        let net = net(CYCLE);
        let (verdicts, effort) = answer(&net);
        assert!(effort.finished);
        let (p, s) = (base(&net, "p"), base(&net, "s"));
        assert_eq!(verdicts.negative[p], Verdict::Latch, "{effort:?}");
        assert_eq!(verdicts.positive[p], Verdict::NotLatch);
        assert_eq!((verdicts.positive[s], verdicts.negative[s]), (Verdict::NotLatch, Verdict::NotLatch));
        assert!(effort.unfounded > 0, "the unoptimised net's cycle was never believed: {effort:?}");
    }

    #[test]
    fn only_legal_moves_are_played() {
        // `q` would come true by `jump`, which is never legal while `q` is false.
        let net = net("(role robot) (init q)
            (<= (legal robot jump) (true q)) (legal robot wait)
            (<= (next q) (does robot jump))
            (<= terminal (not (true q))) (goal robot 100)");
        let (verdicts, _) = answer(&net);
        let q = base(&net, "q");
        assert_eq!((verdicts.positive[q], verdicts.negative[q]), (Verdict::NotLatch, Verdict::Latch));
    }

    #[test]
    fn a_past_deadline_leaves_every_question_open() {
        let net = net(CYCLE);
        let mut verdicts = Verdicts::unknown(net.bases.len());
        let effort = prove(&net, &[], &mut verdicts, Some(Instant::now()));
        assert!(!effort.finished);
        assert!(verdicts.positive.iter().chain(&verdicts.negative).all(|&v| v == Verdict::Unknown));
    }
}
