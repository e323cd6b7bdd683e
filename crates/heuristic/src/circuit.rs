//! The fast evaluator: instantiated formulas compiled once, for one set of parameters, into a
//! flat array of gates in evaluation order over the base propositions, so that evaluating a
//! state is one pass over that array (plus iteration of the rare recursive blocks).
//!
//! Compiling simplifies only where the result is exact for the chosen parameters: relations that
//! do not depend on the state fold to their crisp values (including recursive ones, by their
//! least fixpoint), a conjunction with a 0 is 0 and a disjunction with a 1 is 1 under every
//! t-norm, 0 is dropped from disjunctions, and 1 from conjunctions only when there is no
//! threshold (with θ, `x ∧ 1` is θ for `0.5 < x < θ`, so the 1 stays where it is written).
//! Single-input gates become their input.

use crate::formulas::{Formulas, FIXPOINT_ROUNDS, FIXPOINT_TOLERANCE};
use crate::latches::LatchRules;
use crate::params::{Logic, Params, WithLogic};
use crate::Error;
use analysis::Analysis;
use propnet::net::{Kind, Net, NodeId};
use propnet::PropnetState;
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::sync::Arc;
use structures::Bits;

/// One gate of the compiled circuit; its degree goes to the slot with its own index.
#[derive(Debug, Clone, Copy)]
enum Op {
    /// A constant (only the first two slots: 0 and 1).
    Const(bool),
    /// The degree of `true(p)` for base proposition `p`.
    Base(u32),
    /// `1 − x` of a slot.
    Not(u32),
    /// The t-norm folded left over `args[start..end]`.
    And(u32, u32),
    /// The t-conorm folded over `args[start..end]`.
    Or(u32, u32),
}

/// A run of gates: evaluated once, or (for recursion) iterated to the least fixpoint.
#[derive(Debug, Clone, Copy)]
struct Block {
    start: u32,
    end: u32,
    cyclic: bool,
}

/// Where a formula node's degree is found after compiling.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Slot {
    Const(bool),
    Op(u32),
}

impl Slot {
    fn index(self) -> u32 {
        match self {
            Slot::Const(c) => u32::from(c),
            Slot::Op(i) => i,
        }
    }
}

/// The size of a compiled circuit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CircuitStats {
    /// Gates evaluated per state (base propositions read included).
    pub gates: usize,
    /// Distinct base propositions read.
    pub bases: usize,
    /// Recursive blocks, iterated to a fixpoint.
    pub cycles: usize,
}

/// The compiled circuit, shared by every clone of a [`FuzzyGoals`].
#[derive(Debug)]
struct Circuit {
    ops: Vec<Op>,
    args: Vec<u32>,
    blocks: Vec<Block>,
    /// Per role, each goal value and the slot of its degree, values ascending.
    goals: Vec<Vec<(u32, u32)>>,
    roles: Vec<String>,
    base_count: usize,
    params: Params,
}

struct Compiler<'a> {
    net: &'a Net,
    /// Whether constant 1 inputs of a conjunction must stay (with a threshold).
    keep_true: bool,
    slot: Vec<Slot>,
    ops: Vec<Op>,
    args: Vec<u32>,
    blocks: Vec<Block>,
    /// Where the current run of acyclic gates started.
    straight: u32,
    bases: FxHashMap<u32, u32>,
    negations: FxHashMap<u32, u32>,
}

impl Circuit {
    fn compile(f: &Formulas, params: &Params) -> Circuit {
        let net = f.net();
        let mut c = Compiler {
            net,
            keep_true: params.theta.is_some(),
            slot: vec![Slot::Const(false); net.kinds.len()],
            ops: vec![Op::Const(false), Op::Const(true)],
            args: Vec::new(),
            blocks: Vec::new(),
            straight: 2,
            bases: FxHashMap::default(),
            negations: FxHashMap::default(),
        };
        let mut component = vec![u32::MAX; net.kinds.len()];
        for (k, comp) in f.schedule().iter().enumerate() {
            if comp.len() == 1 && !net.inputs[comp[0] as usize].contains(&comp[0]) {
                c.slot[comp[0] as usize] = c.gate(comp[0]);
            } else {
                comp.iter().for_each(|&n| component[n as usize] = k as u32);
                c.cycle(comp, |n| component[n as usize] == k as u32);
            }
        }
        c.close_straight();
        let goals = net.goals.iter().map(|g| g.iter().map(|&(v, n)| (v, c.slot[n as usize].index())).collect());
        Circuit {
            goals: goals.collect(),
            ops: c.ops,
            args: c.args,
            blocks: c.blocks,
            roles: net.roles.clone(),
            base_count: f.base_count(),
            params: *params,
        }
    }

    fn stats(&self) -> CircuitStats {
        CircuitStats {
            gates: self.ops.len() - 2,
            bases: self.ops.iter().filter(|op| matches!(op, Op::Base(_))).count(),
            cycles: self.blocks.iter().filter(|b| b.cyclic).count(),
        }
    }

    /// Which base propositions the circuit reads.
    fn reads(&self) -> Vec<bool> {
        let mut reads = vec![false; self.base_count];
        for op in &self.ops {
            if let Op::Base(i) = op {
                reads[*i as usize] = true;
            }
        }
        reads
    }
}

impl Compiler<'_> {
    fn push(&mut self, op: Op) -> u32 {
        self.ops.push(op);
        (self.ops.len() - 1) as u32
    }

    fn push_junction(&mut self, and: bool, inputs: &[Slot]) -> Slot {
        let start = self.args.len() as u32;
        self.args.extend(inputs.iter().map(|s| s.index()));
        let end = self.args.len() as u32;
        Slot::Op(self.push(if and { Op::And(start, end) } else { Op::Or(start, end) }))
    }

    /// The slot of an acyclic node, whose inputs all have their slots.
    fn gate(&mut self, n: NodeId) -> Slot {
        let inputs: Vec<Slot> = self.net.inputs[n as usize].iter().map(|&i| self.slot[i as usize]).collect();
        match self.net.kinds[n as usize] {
            Kind::Const(c) => Slot::Const(c),
            Kind::Input(_) => Slot::Const(false),
            Kind::Base(i) => match self.bases.get(&i) {
                Some(&op) => Slot::Op(op),
                None => {
                    let op = self.push(Op::Base(i));
                    self.bases.insert(i, op);
                    Slot::Op(op)
                }
            },
            Kind::Not => match inputs[0] {
                Slot::Const(c) => Slot::Const(!c),
                Slot::Op(i) => match self.negations.get(&i) {
                    Some(&op) => Slot::Op(op),
                    None => {
                        let op = self.push(Op::Not(i));
                        self.negations.insert(i, op);
                        Slot::Op(op)
                    }
                },
            },
            Kind::And => {
                if inputs.contains(&Slot::Const(false)) {
                    return Slot::Const(false);
                }
                let kept: Vec<Slot> =
                    inputs.into_iter().filter(|&s| self.keep_true || s != Slot::Const(true)).collect();
                match kept.as_slice() {
                    _ if kept.iter().all(|&s| s == Slot::Const(true)) => Slot::Const(true),
                    [single] => *single,
                    _ => self.push_junction(true, &kept),
                }
            }
            Kind::Or => {
                if inputs.contains(&Slot::Const(true)) {
                    return Slot::Const(true);
                }
                let kept: Vec<Slot> = inputs.into_iter().filter(|&s| s != Slot::Const(false)).collect();
                match kept.as_slice() {
                    [] => Slot::Const(false),
                    [single] => *single,
                    _ => self.push_junction(false, &kept),
                }
            }
        }
    }

    /// A recursive component: folded to constants when nothing in it depends on the state,
    /// else compiled as a block the evaluator iterates.
    fn cycle(&mut self, comp: &[NodeId], inside: impl Fn(NodeId) -> bool) {
        let net = self.net;
        let dynamic = comp.iter().any(|&n| {
            net.inputs[n as usize].iter().any(|&i| !inside(i) && matches!(self.slot[i as usize], Slot::Op(_)))
        });
        if !dynamic {
            // The crisp least fixpoint: from false, until nothing changes (monotone, since
            // stratified rules put no negation on a cycle).
            let mut value: FxHashMap<NodeId, bool> = comp.iter().map(|&n| (n, false)).collect();
            loop {
                let mut changed = false;
                for &n in comp {
                    let read = |i: &NodeId| match value.get(i) {
                        Some(&v) => v,
                        None => self.slot[*i as usize] == Slot::Const(true),
                    };
                    let ins = &net.inputs[n as usize];
                    let v = match net.kinds[n as usize] {
                        Kind::And => ins.iter().all(read),
                        Kind::Or => ins.iter().any(read),
                        Kind::Not => !read(&ins[0]),
                        Kind::Const(c) => c,
                        Kind::Base(_) | Kind::Input(_) => false,
                    };
                    changed |= value.insert(n, v) != Some(v);
                }
                if !changed {
                    break;
                }
            }
            for &n in comp {
                self.slot[n as usize] = Slot::Const(value[&n]);
            }
            return;
        }
        self.close_straight();
        let start = self.ops.len() as u32;
        for (k, &n) in comp.iter().enumerate() {
            self.slot[n as usize] = Slot::Op(start + k as u32);
        }
        for &n in comp {
            let inputs: Vec<Slot> = net.inputs[n as usize].iter().map(|&i| self.slot[i as usize]).collect();
            match net.kinds[n as usize] {
                Kind::And => self.push_junction(true, &inputs),
                Kind::Or => self.push_junction(false, &inputs),
                Kind::Not => Slot::Op(self.push(Op::Not(inputs[0].index()))),
                Kind::Base(i) => Slot::Op(self.push(Op::Base(i))),
                Kind::Const(c) => Slot::Op(self.push(Op::Const(c))),
                Kind::Input(_) => Slot::Op(self.push(Op::Const(false))),
            };
        }
        let end = self.ops.len() as u32;
        self.blocks.push(Block { start, end, cyclic: true });
        self.straight = end;
    }

    fn close_straight(&mut self) {
        let end = self.ops.len() as u32;
        if end > self.straight {
            self.blocks.push(Block { start: self.straight, end, cyclic: false });
        }
        self.straight = end;
    }
}

/// The base propositions (indices into the net's bases) latches fix in a state.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Latched {
    /// False now and in every later state: degree 0.
    pub never: Vec<usize>,
    /// True now and in every later state: degree 1.
    pub always: Vec<usize>,
}

/// A goal value of a role and how nearly a state satisfies it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GoalDegree {
    /// The goal value, 0 to 100.
    pub value: u32,
    /// The fuzzy degree of `goal(role, value)`, 0 to 1.
    pub degree: f64,
}

/// The fuzzy goal heuristics of one game for one set of parameters, ready to evaluate states.
///
/// Cloning is cheap (the compiled circuit is shared); each clone has its own scratch space, so
/// give each search thread its own clone.
#[derive(Debug, Clone)]
pub struct FuzzyGoals {
    circuit: Arc<Circuit>,
    latches: Arc<LatchRules>,
    /// Every slot's degree in the last state evaluated (slots 0 and 1 hold the constants).
    values: Vec<f64>,
    /// Every role's heuristic value in the last state evaluated.
    heuristics: Vec<f64>,
    /// Base propositions that latches keep false, or true, for good in the current state.
    never: Vec<u64>,
    always: Vec<u64>,
}

impl FuzzyGoals {
    /// Instantiates the goal formulas of `desc` over the base propositions of `net` (its
    /// propnet, optimised or not) and compiles them for `params`.
    pub fn new(desc: &gdl::Description, net: &Net, params: &Params) -> Result<FuzzyGoals, Error> {
        params.validate()?;
        let formulas = Formulas::new(desc, net, &propnet::Limits::default())?;
        FuzzyGoals::compile(&formulas, params)
    }

    /// Compiles instantiated formulas for `params`.
    pub fn compile(formulas: &Formulas, params: &Params) -> Result<FuzzyGoals, Error> {
        params.validate()?;
        let circuit = Circuit::compile(formulas, params);
        let mut values = vec![0.0; circuit.ops.len()];
        values[1] = 1.0;
        let words = circuit.base_count.div_ceil(64);
        Ok(FuzzyGoals {
            heuristics: vec![0.0; circuit.roles.len()],
            circuit: Arc::new(circuit),
            latches: Arc::default(),
            values,
            never: vec![0; words],
            always: vec![0; words],
        })
    }

    /// The same heuristics refined by the latches `analysis` found in `net`, the propnet the
    /// heuristics were built for (chapter 16.4): a proposition that is false and that an active
    /// latch keeps false for good has the degree 0 instead of `1 − τ`, and one that is true and
    /// kept true for good the degree 1 instead of τ (see [`latched`](Self::latched)).
    pub fn with_latches(mut self, net: &Net, analysis: &Analysis) -> FuzzyGoals {
        self.latches = Arc::new(LatchRules::new(net, analysis, &self.circuit.reads()));
        self
    }

    /// The parameters the circuit was compiled for.
    pub fn params(&self) -> &Params {
        &self.circuit.params
    }

    /// The role names, in order.
    pub fn roles(&self) -> &[String] {
        &self.circuit.roles
    }

    /// The size of the compiled circuit.
    pub fn stats(&self) -> CircuitStats {
        self.circuit.stats()
    }

    /// How many latch literals refine the degrees (0 without [`with_latches`](Self::with_latches)).
    pub fn latch_literals(&self) -> usize {
        self.latches.len()
    }

    /// The base propositions the latches fix in `state` among those the formulas read: false
    /// now and for good (degree 0), and true now and for good (degree 1). Both are empty
    /// without [`with_latches`](Self::with_latches).
    pub fn latched(&mut self, state: &PropnetState) -> Latched {
        self.latches.apply(state.words(), &mut self.never, &mut self.always);
        let set = |bits: &[u64], i: usize| bits.bit(i);
        let bases = 0..self.circuit.base_count;
        Latched {
            never: bases.clone().filter(|&i| !state.contains(i) && set(&self.never, i)).collect(),
            always: bases.filter(|&i| state.contains(i) && set(&self.always, i)).collect(),
        }
    }

    /// Every role's goal values with their degrees in `state`, values ascending.
    pub fn degrees(&mut self, state: &PropnetState) -> Vec<Vec<GoalDegree>> {
        self.evaluate(state.words());
        let c = &self.circuit;
        let degree = |&(value, slot): &(u32, u32)| GoalDegree { value, degree: self.values[slot as usize] };
        c.goals.iter().map(|g| g.iter().map(degree).collect()).collect()
    }

    /// The heuristic value of `role` (an index into [`roles`](Self::roles); a larger one panics,
    /// as indexing does) in `state`, in goal units from 0 to 100: `100 · S(d₁·v₁/100, d₂·v₂/100,
    /// …)` over the role's goal values `vᵢ` with degrees `dᵢ`, `S` the t-conorm (chapter 16.2's
    /// weighted combination).
    pub fn value(&mut self, state: &PropnetState, role: usize) -> f64 {
        self.evaluate(state.words());
        self.heuristics[role]
    }

    /// Every role's heuristic value in `state`.
    pub fn values(&mut self, state: &PropnetState) -> Vec<f64> {
        self.evaluate(state.words());
        self.heuristics.clone()
    }

    /// Every role's heuristic value in the state whose words (a propnet state's) are `state`,
    /// without allocating: for searches that evaluate many states.
    pub fn values_of(&mut self, state: &[u64]) -> &[f64] {
        self.evaluate(state);
        &self.heuristics
    }

    /// Evaluates the circuit in `state` (propnet state words): one pass over the gates.
    fn evaluate(&mut self, state: &[u64]) {
        self.latches.apply(state, &mut self.never, &mut self.always);
        let c = &*self.circuit;
        let pass = Pass {
            c,
            state,
            never: &self.never,
            always: &self.always,
            values: &mut self.values,
            heuristics: &mut self.heuristics,
        };
        c.params.dispatch(pass);
    }
}

/// One evaluation of the circuit with concrete connectives.
struct Pass<'a> {
    c: &'a Circuit,
    state: &'a [u64],
    never: &'a [u64],
    always: &'a [u64],
    values: &'a mut [f64],
    heuristics: &'a mut [f64],
}

impl Pass<'_> {
    #[inline(always)]
    fn op<L: Logic>(&self, logic: L, op: Op) -> f64 {
        let v = &*self.values;
        let args = |start: u32, end: u32| {
            let args = &self.c.args[start as usize..end as usize];
            (v[args[0] as usize], args[1..].iter().map(|&a| v[a as usize]))
        };
        match op {
            Op::Const(c) => f64::from(u8::from(c)),
            Op::Base(i) => {
                let (w, bit) = (i as usize / 64, 1u64 << (i % 64));
                let tau = self.c.params.tau;
                if self.state.get(w).is_some_and(|s| s & bit != 0) {
                    if self.always[w] & bit != 0 {
                        1.0
                    } else {
                        tau
                    }
                } else if self.never[w] & bit != 0 {
                    0.0
                } else {
                    1.0 - tau
                }
            }
            Op::Not(i) => 1.0 - v[i as usize],
            // Folded left, in written order: the threshold is not associative.
            Op::And(start, end) => {
                let (first, rest) = args(start, end);
                rest.fold(first, |acc, x| logic.and(acc, x))
            }
            Op::Or(start, end) => {
                let (first, rest) = args(start, end);
                rest.fold(first, |acc, x| logic.or(acc, x))
            }
        }
    }
}

impl WithLogic for Pass<'_> {
    type Output = ();
    fn run<L: Logic>(self, logic: L) {
        let c = self.c;
        for block in &c.blocks {
            let range = block.start as usize..block.end as usize;
            if !block.cyclic {
                for k in range {
                    self.values[k] = self.op(logic, c.ops[k]);
                }
                continue;
            }
            // Least fixpoint: from 0, updated in place until no degree moves.
            self.values[range.clone()].iter_mut().for_each(|v| *v = 0.0);
            for _ in 0..FIXPOINT_ROUNDS {
                let mut moved = 0.0f64;
                for k in range.clone() {
                    let v = self.op(logic, c.ops[k]);
                    moved = moved.max((v - self.values[k]).abs());
                    self.values[k] = v;
                }
                if moved <= FIXPOINT_TOLERANCE {
                    break;
                }
            }
        }
        for (h, goals) in self.heuristics.iter_mut().zip(&c.goals) {
            let weighted = goals.iter().map(|&(value, slot)| f64::from(value) / 100.0 * self.values[slot as usize]);
            *h = 100.0 * weighted.reduce(|a, b| logic.or(a, b)).unwrap_or(0.0);
        }
    }
}
