//! The goal formulas of a game, instantiated as the rules write them (chapter 16.2).
//!
//! The propnet's ground rules cannot serve: grounding rewrites bodies into disjunctive normal form
//! and moves existential quantifiers inward, and the optimiser folds, merges and flattens gates.
//! Both keep the Boolean meaning but change fuzzy degrees (`(a ∨ b) ∧ c` is not
//! `(a ∧ c) ∨ (b ∧ c)` under the product t-norm, and the threshold θ is not even associative).
//! So each rule a goal depends on is instantiated here from its own text, over the relaxed model
//! of the propnet's grounder (the atoms that can ever hold):
//!
//! * an atom is the disjunction of every instance of every rule concluding it, an instance being
//!   one binding of the variables the body binds outside any `or` (chapter 16.2's `line(x)`: one
//!   disjunct per rule and per value of `M` in `row(M, x)`);
//! * a body is the conjunction of its literals in written order, `not` a negation, `or` a
//!   disjunction of its branches; a variable bound only inside an `or` branch ranges over that
//!   branch alone (a disjunction over its values there), since the other branches say nothing
//!   about it;
//! * instances whose positive atoms cannot hold are left out: their conjunction is 0 under every
//!   t-norm and 0 is neutral in every disjunction, so leaving them out changes no degree. Atoms
//!   that can never hold are the constant 0.
//!
//! The result is a circuit of AND/OR/NOT gates stored as a [`Net`] with inputs in written order,
//! never optimised, over the base propositions of the game's propnet (indexed like
//! [`PropnetState`]). Its crisp meaning is the rules' meaning, which tests check against the
//! propnet. [`Formulas::evaluate`] is the plain recursive fuzzy evaluator, the reference for the
//! compiled [`crate::FuzzyGoals`].

mod evaluate;
mod instantiate;

use crate::params::Params;
use crate::Error;
use evaluate::Plain;
use gdl::Description;
use instantiate::Builder;
use propnet::ground::{Grounded, Limits};
use propnet::net::{Kind, Net, NodeId};
use propnet::PropnetState;

/// A recursive atom's degree is the least fixpoint of its equations, found by iteration from 0;
/// iteration stops when no degree moves by more than this.
pub(crate) const FIXPOINT_TOLERANCE: f64 = 1e-12;

/// The most rounds of that iteration (it converges geometrically; this only bounds the work).
pub(crate) const FIXPOINT_ROUNDS: usize = 1000;

/// The goal formulas of one game, instantiated.
#[derive(Debug, Clone)]
pub struct Formulas {
    /// The gates; `goals` holds each role's goal atoms.
    net: Net,
    /// How many base propositions the game's propnet has.
    base_count: usize,
    /// The evaluation order: strongly connected components, inputs first.
    schedule: Vec<Vec<NodeId>>,
    /// The component of each node that lies on a cycle (recursion), `u32::MAX` for the others.
    cycle_of: Vec<u32>,
    /// The cyclic components, each in evaluation order.
    cycles: Vec<Vec<NodeId>>,
}

impl Formulas {
    /// Instantiates the goal formulas of `desc` over the base propositions of `net`, its
    /// (optimised or not) propnet, computing the relaxed model within `limits`.
    pub fn new(desc: &Description, net: &Net, limits: &Limits) -> Result<Formulas, Error> {
        let model = propnet::ground::relaxed_model(desc, limits)?;
        Formulas::from_model(desc, model, net, limits)
    }

    /// Like [`new`](Self::new), from the relaxed model of `desc` already computed by
    /// [`propnet::ground::relaxed_model`] (the rules as written: a [`Grounded`] from
    /// [`propnet::ground::ground`] has helper relations inlined or restricted).
    pub fn from_model(desc: &Description, model: Grounded, net: &Net, limits: &Limits) -> Result<Formulas, Error> {
        Builder::new(desc, model, net, limits).run()
    }

    /// Per role, each goal value and the node of its goal atom, values ascending.
    pub fn goals(&self) -> &[Vec<(u32, NodeId)>] {
        &self.net.goals
    }

    /// How many gates the formulas have.
    pub fn len(&self) -> usize {
        self.net.kinds.len()
    }

    /// Whether there are no gates at all (never: the constants are always there).
    pub fn is_empty(&self) -> bool {
        self.net.kinds.is_empty()
    }

    /// How many base propositions the game's propnet has.
    pub fn base_count(&self) -> usize {
        self.base_count
    }

    /// The node of the instantiated atom printed as `atom` in canonical KIF (e.g. `(line x)`,
    /// `(true (cell 1 1 x))`), if some goal formula uses it.
    pub fn node(&self, atom: &str) -> Option<NodeId> {
        self.net.labels.iter().position(|l| l.as_deref() == Some(atom)).map(|n| n as NodeId)
    }

    /// The inputs of a gate, in written order: an atom's instances, a body's conjuncts.
    pub fn inputs(&self, node: NodeId) -> &[NodeId] {
        &self.net.inputs[node as usize]
    }

    /// The gates, for compiling: kinds, inputs in written order, labels.
    pub(crate) fn net(&self) -> &Net {
        &self.net
    }

    /// The evaluation order of the gates (see [`Net::schedule`]).
    pub(crate) fn schedule(&self) -> &[Vec<NodeId>] {
        &self.schedule
    }

    /// Every node's crisp truth in `state`: the rules' own meaning, which the fuzzy degrees
    /// refine.
    pub fn crisp(&self, state: &PropnetState) -> Vec<bool> {
        let bases: Vec<bool> = (0..self.base_count).map(|i| state.contains(i)).collect();
        self.net.evaluate_with(&self.schedule, &bases, &[])
    }

    /// Every node's fuzzy degree in `state`, by plain recursive evaluation of the formulas as
    /// written: the reference the compiled evaluator is tested against (and much slower).
    pub fn evaluate(&self, state: &PropnetState, params: &Params) -> Vec<f64> {
        let tau = params.tau;
        self.evaluate_with(&|i| if state.contains(i) { tau } else { 1.0 - tau }, params)
    }

    /// [`evaluate`](Self::evaluate) with the degree of every `true(p)` atom given by `base`
    /// (called with the base proposition's index).
    pub fn evaluate_with(&self, base: &dyn Fn(usize) -> f64, params: &Params) -> Vec<f64> {
        params.dispatch(Plain::new(self, base))
    }

    /// The kind of a gate.
    pub fn kind(&self, node: NodeId) -> Kind {
        self.net.kinds[node as usize]
    }
}
