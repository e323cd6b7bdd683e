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

use crate::Group;
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
/// with the bases `fixed` held at their values and the state satisfying the proved `groups`;
/// past `deadline` the open ones stay unknown.
pub(super) fn prove(
    net: &Net,
    fixed: &[(usize, bool)],
    groups: &[Group],
    verdicts: &mut Verdicts,
    deadline: Option<Instant>,
) -> Effort {
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
    let mut enc = Encoding::transition(net, fixed, open.iter().map(|&(i, _)| i), false, deadline);
    enc.within(groups);
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

/// How long one question about every candidate at once may take before they are asked one at a
/// time, and how long one of those may take before its candidate is given up.
const ALL_AT_ONCE: Duration = Duration::from_millis(100);
const ONE_AT_A_TIME: Duration = Duration::from_millis(50);
/// How many models believing a cycle one question of the growing proof may meet before it is
/// left for the next round: each adds loop clauses, and some nets have many cycles to believe.
const UNFOUNDED_RETRIES: usize = 8;

/// A clause of two base-proposition literals: `(a.0 is a.1) or (b.0 is b.1)`; with `a == b`, a
/// single literal.
pub(crate) type Pair = ((usize, bool), (usize, bool));

/// A claim about every step of play.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// One of the literals of `now` holds before the step, or one of `next` after it ("a counter
    /// at 5 is not at 3 next").
    Clause {
        /// Literals over the bases before the step.
        now: Vec<(usize, bool)>,
        /// Literals over the bases after it.
        next: Vec<(usize, bool)>,
    },
    /// Where one of the bases holds before the step, one of them holds after it: together they
    /// latch.
    Stays(Vec<usize>),
}

impl From<Pair> for Step {
    fn from((a, b): Pair) -> Step {
        Step::Clause { now: vec![a], next: vec![b] }
    }
}

impl Step {
    /// The bases it reads.
    fn bases(&self) -> Vec<usize> {
        match self {
            Step::Clause { now, next } => now.iter().chain(next).map(|&(b, _)| b).collect(),
            Step::Stays(bases) => bases.clone(),
        }
    }

    /// Whether the step from `now` to `next` (each base's value before and after) breaks it.
    fn broken(&self, now: impl Fn(usize) -> bool, next: impl Fn(usize) -> bool) -> bool {
        match self {
            Step::Clause { now: before, next: after } => {
                before.iter().all(|&(b, v)| now(b) != v) && after.iter().all(|&(b, v)| next(b) != v)
            }
            Step::Stays(bases) => bases.iter().any(|&b| now(b)) && bases.iter().all(|&b| !next(b)),
        }
    }
}

/// A candidate invariant of play over base propositions.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Candidate {
    /// At least one of the literals holds (a clause).
    AnyOf(Vec<(usize, bool)>),
    /// At most one of the bases is true.
    AtMostOne(Vec<usize>),
}

impl Candidate {
    /// The clause of a pair.
    pub(crate) fn pair(((a, va), (b, vb)): Pair) -> Candidate {
        Candidate::AnyOf(vec![(a, va), (b, vb)])
    }

    /// The bases it reads.
    pub(crate) fn bases(&self) -> Vec<usize> {
        match self {
            Candidate::AnyOf(lits) => lits.iter().map(|&(b, _)| b).collect(),
            Candidate::AtMostOne(bases) => bases.clone(),
        }
    }

    /// Whether it holds where `value` gives each base's value.
    pub(crate) fn holds(&self, value: impl Fn(usize) -> bool) -> bool {
        match self {
            Candidate::AnyOf(lits) => lits.iter().any(|&(b, v)| value(b) == v),
            Candidate::AtMostOne(bases) => bases.iter().filter(|&&b| value(b)).count() <= 1,
        }
    }
}

/// Which of `candidates` are invariants of play: true in every state reachable from one where
/// all of them hold (the caller checks the initial state), found as the largest subset that one
/// step of legal play from a state not terminal preserves when the whole subset holds before it
/// (Houdini's fixpoint: drop every candidate a model breaks, ask again, until no model is left). Each model is a real
/// transition (loop clauses as in [`prove`]), so a dropped candidate fails from some state of
/// the subset; the survivors hold together by induction. Alongside, which of `steps` hold of
/// every such step. Steps are checked, never assumed, so they cost the induction nothing. Past
/// `deadline` nothing is proved.
///
/// With `give_up`, where the question for all at once takes longer than [`ALL_AT_ONCE`], or its
/// rounds half the time left, the proof turns to growing a proved set instead, which is sound
/// whenever it stops: a candidate joins it when one step from any state where it and the set hold
/// keeps it (the set is then still inductive, its members kept from fewer assumptions), each
/// question given at most [`ONE_AT_A_TIME`]; those that failed are asked again while the set grows,
/// and at the deadline the set so far is the answer. It misses candidates that only hold together
/// with others not yet in the set, which Houdini's fixpoint finds when it has the time. Without
/// `give_up`, the one question runs to the deadline.
pub(crate) fn invariants(
    net: &Net,
    fixed: &[(usize, bool)],
    within: &[Group],
    candidates: &[Candidate],
    steps: &[Step],
    give_up: bool,
    deadline: Option<Instant>,
) -> (Vec<bool>, Vec<bool>) {
    let n = candidates.len();
    let nothing = || (vec![false; n], vec![false; steps.len()]);
    if candidates.is_empty() && steps.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let bases = candidates.iter().flat_map(Candidate::bases).chain(steps.iter().flat_map(Step::bases));
    let mut enc = Encoding::transition(net, fixed, bases, true, deadline);
    enc.within(within);
    let literal = |enc: &Encoding, node: NodeId, value: bool| if value { enc.lit(node) } else { !enc.lit(node) };
    let mut assumed = Vec::with_capacity(candidates.len());
    let mut questions = Vec::with_capacity(candidates.len());
    for candidate in candidates {
        // The candidate holds now while its activation is assumed; its question implies that it
        // fails next.
        let act = enc.fresh();
        let q = enc.fresh();
        match candidate {
            Candidate::AnyOf(lits) => {
                let mut now: Vec<Lit> = lits.iter().map(|&(b, v)| literal(&enc, net.bases[b].node, v)).collect();
                now.push(!act);
                enc.clause(&now);
                for &(b, v) in lits {
                    let next = literal(&enc, net.bases[b].next, v);
                    enc.clause(&[!q, !next]);
                }
            }
            Candidate::AtMostOne(bases) => {
                let now: Vec<Lit> = bases.iter().map(|&b| enc.lit(net.bases[b].node)).collect();
                enc.at_most_one(&now, act);
                let next: Vec<Lit> = bases.iter().map(|&b| enc.lit(net.bases[b].next)).collect();
                enc.at_least_two(&next, q);
            }
        }
        assumed.push(act);
        questions.push(q);
    }
    for step in steps {
        // Its question implies that it fails.
        let q = enc.fresh();
        match step {
            Step::Clause { now, next } => {
                for &(b, v) in now {
                    enc.clause(&[!q, !literal(&enc, net.bases[b].node, v)]);
                }
                for &(b, v) in next {
                    enc.clause(&[!q, !literal(&enc, net.bases[b].next, v)]);
                }
            }
            Step::Stays(bases) => {
                let mut some: Vec<Lit> = bases.iter().map(|&b| enc.lit(net.bases[b].node)).collect();
                some.push(!q);
                enc.clause(&some);
                for &b in bases {
                    enc.clause(&[!q, !enc.lit(net.bases[b].next)]);
                }
            }
        }
        questions.push(q);
    }
    // Per question, the candidates' then the steps', whether it is still open: no model has
    // broken it and it was not given up. The live candidates' activations are assumed.
    let mut open = vec![true; questions.len()];
    let split = |open: &[bool]| (open[..n].to_vec(), open[n..].to_vec());
    let live = |open: &[bool]| -> Vec<Lit> { assumed.iter().zip(open).filter(|(_, &o)| o).map(|(&l, _)| l).collect() };
    // Closes every open question the solver's model breaks, and says which.
    let close_broken = |enc: &Encoding, open: &mut [bool]| -> Vec<usize> {
        let broken: Vec<usize> = (0..open.len())
            .filter(|&k| {
                open[k]
                    && match k.checked_sub(n) {
                        None => !candidates[k].holds(|b| enc.value(net.bases[b].next)),
                        Some(j) => steps[j].broken(|b| enc.value(net.bases[b].node), |b| enc.value(net.bases[b].next)),
                    }
            })
            .collect();
        for &k in &broken {
            open[k] = false;
        }
        broken
    };
    // First every question at once: each model closes what it breaks, and an answer of "no
    // model" is the fixpoint. Where that answer (a refutation for all questions together) is
    // slow to come and giving up is allowed, each open question is then asked alone under every
    // live candidate: small refutations, which the solver finds far sooner. A model still
    // closes every question it breaks, and since the answers so far assumed the candidates
    // closed, they are asked again. When a whole round finds no model, the live candidates are
    // the fixpoint.
    let any = enc.fresh();
    enc.tie(any, &questions, false);
    // Where giving up is allowed, the rounds together get half the time left, so that a
    // fixpoint reached a few candidates at a time leaves the growing proof time of its own.
    let patience =
        deadline.filter(|_| give_up).map(|d| Instant::now() + d.saturating_duration_since(Instant::now()) / 2);
    loop {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return nothing();
        }
        if patience.is_some_and(|p| Instant::now() >= p) {
            break;
        }
        let mut assumptions = live(&open);
        assumptions.push(any);
        let result = enc.solve_within(&assumptions, give_up.then_some(ALL_AT_ONCE), patience.or(deadline));
        if result == lbool::FALSE {
            return split(&open);
        }
        if result != lbool::TRUE {
            if !give_up {
                return nothing();
            }
            break;
        }
        if enc.unfounded() {
            continue;
        }
        let broken = close_broken(&enc, &mut open);
        if broken.is_empty() {
            // A model of `any` shows some open question's counterexample.
            return nothing();
        }
        // The questions closed are never asked again.
        for k in broken {
            enc.clause(&[!questions[k]]);
        }
    }
    // Growing: each open question is asked under the set proved so far and its own candidate;
    // one that fails is asked again once the set has grown since.
    let mut proved = vec![false; questions.len()];
    let mut asked_with: Vec<Option<usize>> = vec![None; questions.len()];
    let mut size = 0;
    loop {
        let before = size;
        for k in 0..questions.len() {
            if proved[k] || !open[k] || asked_with[k] == Some(size) {
                continue;
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return split(&proved);
            }
            asked_with[k] = Some(size);
            let mut assumptions: Vec<Lit> = (0..n).filter(|&c| proved[c]).map(|c| assumed[c]).collect();
            if k < n {
                assumptions.push(assumed[k]);
            }
            assumptions.push(questions[k]);
            for _ in 0..UNFOUNDED_RETRIES {
                match enc.solve_within(&assumptions, Some(ONE_AT_A_TIME), deadline) {
                    result if result == lbool::FALSE => {
                        proved[k] = true;
                        size += usize::from(k < n);
                    }
                    // A model believing a cycle: asked again with its loop clauses.
                    result if result == lbool::TRUE && enc.unfounded() => continue,
                    _ => {}
                }
                break;
            }
        }
        if size == before {
            return split(&proved);
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
    /// over what `bases`' values now and next and every move's legality read; with `playing`,
    /// only from a state that is not terminal (no step is taken from one: what holds only until
    /// the game ends is still an invariant).
    fn transition(
        net: &'a Net,
        fixed: &[(usize, bool)],
        bases: impl Iterator<Item = usize>,
        playing: bool,
        deadline: Option<Instant>,
    ) -> Encoding<'a> {
        let mut enc = Encoding::new(net, deadline);
        let live: Vec<usize> =
            (0..net.moves.len()).filter(|&m| net.kinds[net.moves[m].legal as usize] != Kind::Const(false)).collect();
        let roots = bases
            .flat_map(|i| [net.bases[i].node, net.bases[i].next])
            .chain(live.iter().flat_map(|&m| [net.moves[m].node, net.moves[m].legal]))
            .chain(playing.then_some(net.terminal));
        enc.cone(roots);
        enc.gates(fixed);
        enc.moves(&live);
        if playing {
            let terminal = enc.lit(net.terminal);
            enc.clause(&[!terminal]);
        }
        enc
    }

    fn lit(&self, n: NodeId) -> Lit {
        Lit::new(Var::unsafe_from_idx(self.var[n as usize]), true)
    }

    /// Solves under `assumptions` until `deadline`, or for at most `slice` where one is given.
    fn solve_within(&mut self, assumptions: &[Lit], slice: Option<Duration>, deadline: Option<Instant>) -> lbool {
        if let Some(slice) = slice {
            let end = Instant::now() + slice;
            self.solver.cb_mut().0 = Some(deadline.map_or(end, |d| d.min(end)));
        }
        let result = self.solver.solve_limited(assumptions);
        self.solver.cb_mut().0 = deadline;
        result
    }

    /// The state (the bases now) satisfies `groups`: at most one member of each group in the
    /// encoding counts (see [`Group::literals`]), and one does where the group holds exactly one
    /// and all of it is encoded. Members outside the encoding are read by nothing asked, so they
    /// are left out.
    fn within(&mut self, groups: &[Group]) {
        let always = self.fresh();
        self.clause(&[always]);
        for g in groups {
            let encoded: Vec<Lit> = g
                .literals()
                .map(|(b, counts)| (self.net.bases[b].node, counts))
                .filter(|&(n, _)| self.var[n as usize] != u32::MAX)
                .map(|(n, counts)| if counts { self.lit(n) } else { !self.lit(n) })
                .collect();
            if encoded.len() >= 2 {
                self.at_most_one(&encoded, always);
            }
            if g.exactly_one && encoded.len() == g.bases.len() {
                self.clause(&encoded);
            }
        }
    }

    /// A new variable, as a positive literal.
    fn fresh(&mut self) -> Lit {
        Lit::new(self.solver.new_var_default(), true)
    }

    /// At most one of `xs` holds while `act` does: Sinz's sequential counter, each clause
    /// guarded by `act`, in a number of clauses linear in `xs`.
    fn at_most_one(&mut self, xs: &[Lit], act: Lit) {
        // `seen[i]`: one of `xs[..=i]` holds.
        let mut seen: Option<Lit> = None;
        for &x in xs {
            if let Some(s) = seen {
                self.clause(&[!act, !x, !s]);
            }
            let s = self.fresh();
            self.clause(&[!act, !x, s]);
            if let Some(before) = seen {
                self.clause(&[!act, !before, s]);
            }
            seen = Some(s);
        }
    }

    /// Where `q` holds, at least two of `ys` do.
    fn at_least_two(&mut self, ys: &[Lit], q: Lit) {
        // `some[i]` holds only where one of `ys[..=i]` does; `pair[i]`, only where `ys[i]` and one
        // before it do; `q`, only where some `pair` does.
        let mut some: Option<Lit> = None;
        let mut pairs = vec![!q];
        for &y in ys {
            if let Some(s) = some {
                let p = self.fresh();
                self.clause(&[!p, y]);
                self.clause(&[!p, s]);
                pairs.push(p);
            }
            let s = self.fresh();
            match some {
                Some(before) => self.clause(&[!s, before, y]),
                None => self.clause(&[!s, y]),
            }
            some = Some(s);
        }
        self.clause(&pairs);
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
        let effort = prove(net, &[], &[], &mut verdicts, None);
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
    fn states_are_taken_from_those_that_satisfy_the_invariants() {
        let net = net(crate::testing::TAKING_TURNS);
        let groups = crate::Exclusive::discover(&net, None, 1).groups;
        let d = base(&net, "d");
        for (groups, positive) in [(&[][..], Verdict::NotLatch), (&groups[..], Verdict::Latch)] {
            let mut verdicts = Verdicts::unknown(net.bases.len());
            assert!(prove(&net, &[], groups, &mut verdicts, None).finished);
            assert_eq!(verdicts.positive[d], positive, "{groups:?}");
        }
    }

    #[test]
    fn a_past_deadline_leaves_every_question_open() {
        let net = net(CYCLE);
        let mut verdicts = Verdicts::unknown(net.bases.len());
        let effort = prove(&net, &[], &[], &mut verdicts, Some(Instant::now()));
        assert!(!effort.finished);
        assert!(verdicts.positive.iter().chain(&verdicts.negative).all(|&v| v == Verdict::Unknown));
    }
}
