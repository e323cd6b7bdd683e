//! Grounding: from GDL rules with variables to ground rules over the atoms that can ever hold.
//!
//! The atoms that can hold are over-approximated by the least model of a *relaxed* program: the
//! rules without their negative literals, where `(true x)` holds for every `x` that `init` or
//! `next` can produce and `(does r m)` for every move `legal` can produce. This model is finite
//! for valid GDL, needs no enumeration of the Herbrand universe, and is computed bottom-up
//! semi-naively: each round joins every rule with at least one literal restricted to the atoms
//! new in the previous round, through hash indexes on the bound argument positions.
//!
//! Negation is kept where it is exact: a relation that depends on neither `true` nor `does`
//! (through any chain of rules) and on no negation through recursion has the same extension in
//! every state, and is computed first, stratum by stratum, with its negative literals checked.
//! Every other rule may then check negative literals over such relations too: `(not (maxLines
//! ?n))` stops a line counter at the game's bound, where dropping it would count up the whole
//! successor table and multiply every relation over lines. Negation over anything else is
//! dropped, which keeps the model an over-approximation.
//!
//! Before any of this, rules are rewritten (see `rewrite`): helper relations fixed in every state
//! are inlined where the state is read, helpers read only at named constants are computed only
//! there, bodies are decomposed so that existential variables become small auxiliary relations
//! instead of multiplying the instances of a rule, and helpers that depend on the state and are
//! always read with some arguments bound (negated readers bind them all) are computed only for
//! the bindings their readers ask for (magic sets).
//!
//! Every rule is then instantiated once more over the final model. Negative literals whose atom
//! is outside the model always hold and are dropped; the rest are kept for the propnet's NOT
//! gates. Literals over exact relations are decided there: a positive one holds in every state
//! and is dropped, a negative one whose atom is in the model never holds and drops the rule.
//! `distinct` is decided during the join. A rule that ORs over every choice but one
//! ("attacked by a piece other than the captured one") shares its disjunctions through prefix
//! and suffix chains (see `except`). Arguments that a relation holds for every value of (its
//! base rules read them only through a fixed domain, its recursion passes them on) are grounded
//! once for all values (see `wildcard`): chess's "ignored square" of each attack line. A demand
//! guard defined by one rule is read in place, its rule's body in each reader, rather than built
//! as a table (see `guards`): where its parts are independent the table is their product.

use gdl::{normal_bodies, Bindings, Description, Lit, Pat, Sym, TermId, TermPool, VarNumbering};
use rustc_hash::{FxHashMap, FxHashSet};
use std::rc::Rc;
use std::time::Instant;
use thiserror::Error;

mod domains;
mod except;
mod guards;
mod join;
mod model;
mod relation;
mod rewrite;
mod wildcard;

use relation::TupleSet;
pub use relation::{Candidates, Pattern, Relation};

/// A relation's index.
pub type RelId = u32;

/// A ground atom: a relation and the index of its argument tuple in that relation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AtomRef {
    /// The relation.
    pub rel: RelId,
    /// The tuple's index within the relation.
    pub idx: u32,
}

/// A ground rule: `head` holds if every `pos` atom holds and no `neg` atom does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroundRule {
    /// The concluded atom.
    pub head: AtomRef,
    /// Atoms that must hold.
    pub pos: Vec<AtomRef>,
    /// Atoms that must not hold.
    pub neg: Vec<AtomRef>,
}

/// Caps that make grounding give up on games too large to ground.
///
/// The defaults let chess build (5.1M atoms, 7.4M ground rules, 2.1 GB at the build's peak) and
/// stop what is larger within a gigabyte: at the atom cap sudoku's model takes 420 MB, at the
/// literal cap the rules of a stress test with 2^20-fold conjunctions (`ruleDepthExponential`)
/// 980 MB.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The most atoms in the relaxed model.
    pub max_atoms: usize,
    /// The most ground rule instances.
    pub max_rules: usize,
    /// The most literals in all ground rules' bodies together.
    pub max_literals: usize,
    /// When to give up.
    pub deadline: Option<Instant>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_atoms: 8_000_000, max_rules: 10_000_000, max_literals: 24_000_000, deadline: None }
    }
}

/// Why grounding gave up.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GroundError {
    /// The relaxed model grew past the atom cap.
    #[error("grounding needs more than {0} atoms")]
    TooManyAtoms(usize),
    /// Instantiation produced more rules than the cap.
    #[error("grounding needs more than {0} ground rules")]
    TooManyRules(usize),
    /// Instantiation produced more body literals than the cap.
    #[error("grounding needs more than {0} literals in ground rules")]
    TooManyLiterals(usize),
    /// The deadline passed.
    #[error("grounding ran out of time")]
    Timeout,
}

/// A literal of a compiled rule.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Literal {
    rel: RelId,
    args: Box<[Pat]>,
}

/// A rule prepared for joining.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct JoinRule {
    head_rel: RelId,
    head: Box<[Pat]>,
    pos: Vec<Literal>,
    neg: Vec<Literal>,
    /// `(distinct s t)` (true) and `(not (distinct s t))` (false) filters.
    filters: Vec<(bool, Pat, Pat)>,
    vars: usize,
    /// Whether instances become ground rules (the relaxation's helper rules do not).
    emit: bool,
}

/// One step of a join plan: match literal `lit` through the index reading `probes`.
#[derive(Debug, Clone)]
struct Step {
    lit: usize,
    /// What the step's literal's index reads.
    pattern: Pattern,
    /// Filters whose variables are all bound after this step.
    filters: Vec<usize>,
    /// Whether every head variable is bound after this step (and not before).
    head_ready: bool,
}

/// The grounded game: the relaxed model's relations and the ground rules.
#[derive(Debug, Clone)]
pub struct Grounded {
    /// Every ground term, including the atoms' arguments.
    pub pool: TermPool,
    /// Every relation, `true` and `does` included.
    pub relations: Vec<Relation>,
    /// The ground rules (excluding the relaxation's helper rules).
    pub rules: Vec<GroundRule>,
    /// Relation ids by name.
    pub by_name: FxHashMap<Sym, RelId>,
    /// The roles, in order.
    pub roles: Vec<Sym>,
}

impl Grounded {
    /// The relation called `name`, if the game has one.
    pub fn relation(&self, name: Sym) -> Option<RelId> {
        self.by_name.get(&name).copied()
    }

    /// How many atoms the model holds, over every relation (the auxiliaries of the rewrites
    /// included): what the atom cap limits.
    pub fn atom_count(&self) -> usize {
        self.relations.iter().map(|r| r.count as usize).sum()
    }

    /// The arguments of a ground atom.
    pub fn args(&self, atom: AtomRef) -> &[TermId] {
        self.relations[atom.rel as usize].tuple(atom.idx)
    }

    /// A ground atom printed in KIF, e.g. `(legal xplayer (mark 1 1))`.
    pub fn atom_text(&self, atom: AtomRef) -> String {
        self.relations[atom.rel as usize].atom_text(atom.idx, &self.pool)
    }
}

/// Grounds a validated description.
///
/// The rules are rewritten first (see `rewrite`), so the model's tables of helper relations
/// may be restricted to what the outputs read, or left empty where a helper was inlined:
/// callers that read relations other than the GDL keywords want [`relaxed_model`].
pub fn ground(desc: &Description, limits: &Limits) -> Result<Grounded, GroundError> {
    let mut g = Grounder::new(desc, *limits, true);
    g.model()?;
    let rules = g.instantiate()?;
    Ok(g.into_grounded(desc, rules))
}

/// The relaxed model of a validated description without any ground rules (`rules` is empty), for
/// callers that instantiate rules their own way from the keyword relations down: the atoms that
/// can ever hold as the rules write them (nothing inlined), cheaper than [`ground`] because
/// nothing is instantiated. A helper of the state that every reader reads with the same
/// arguments bound holds only the tuples its readers ask for (see `restrict_to_demand`): every
/// atom a body satisfiable in the model reads is there.
pub fn relaxed_model(desc: &Description, limits: &Limits) -> Result<Grounded, GroundError> {
    let mut g = Grounder::new(desc, *limits, false);
    g.model()?;
    Ok(g.into_grounded(desc, Vec::new()))
}

/// The relations of a validated description that are the same in every state (no rule chain
/// links them to `true` or `does`, and none reads its own negation through recursion), computed
/// exactly, negation included, as the rules write them; every other relation is left empty.
/// Cheaper than [`relaxed_model`] where only the game's fixed tables are wanted (a board's
/// adjacency, a successor relation).
pub fn fixed_model(desc: &Description, limits: &Limits) -> Result<Grounded, GroundError> {
    let mut g = Grounder::new(desc, *limits, false);
    g.fixed()?;
    Ok(g.into_grounded(desc, Vec::new()))
}

/// A join plan with a signature of the relation sizes it was made for.
type CachedPlan = (u64, Rc<Vec<Step>>);

/// What a join calls for each match: the grounder, the rule, the bindings, the matched atoms.
type Emit<'a> = dyn FnMut(&mut Grounder, usize, &Bindings, &[AtomRef]) + 'a;

struct Grounder {
    pool: TermPool,
    /// Shared so that a join can read a relation while it calls back into the grounder; they are
    /// only changed between joins.
    relations: Vec<Rc<Relation>>,
    by_name: FxHashMap<Sym, RelId>,
    rules: Vec<Rc<JoinRule>>,
    limits: Limits,
    /// Candidate tuples tried so far (to check the deadline now and then).
    work: u64,
    /// Set when a limit is hit inside a join, which then unwinds.
    abort: Option<GroundError>,
    /// Whether the model is being saturated (then a join stops early once its head is known).
    saturating: bool,
    /// Per relation, the atoms derived in the current round, added to the model when it ends.
    pending: Vec<TupleSet>,
    /// How many atoms `pending` holds.
    pending_count: usize,
    /// An atom's arguments while it is looked up (see [`Grounder::scratch_args`]).
    scratch: Vec<TermId>,
    /// Per relation, its stratum if its extension is the same in every state and computed
    /// exactly (see the module header); `None` for the others.
    strata: Vec<Option<u32>>,
    /// Join plans by rule and delta literal, with the relation sizes they were made for (see
    /// [`Grounder::join`]).
    plans: FxHashMap<(usize, usize), CachedPlan>,
    /// Per relation (where set), whether it only restricts the model: its atoms are left out of
    /// the ground rules (see [`Grounder::restrict_to_demand`]).
    model_only: Vec<bool>,
    /// Demand relations projected onto some of their positions, by demand and positions (see
    /// [`Grounder::guarded`]).
    projections: FxHashMap<(RelId, Vec<usize>), RelId>,
    /// The auxiliary relations of the decompositions, by their rule in canonical form (see
    /// [`Grounder::auxiliary`]).
    auxiliaries: FxHashMap<JoinRule, RelId>,
    /// The expansions of relations with wildcard arguments, by relation; once the rules are
    /// rewritten, only those read negated alone (see [`Grounder::leave_out_negated_expansions`]).
    expansions: FxHashMap<RelId, Rc<wildcard::Expansion>>,
    /// Per relation (where set), whether the model leaves it out: its rules are never joined.
    left_out: Vec<bool>,
    /// While the rules are decomposed, what their arguments can be (see `domains`).
    domains: Option<domains::Domains>,
}

impl Grounder {
    /// The grounder of `desc`'s rules; with `rewrite`, helper relations are inlined and
    /// restricted to the constants their readers name (their tables then differ from the rules
    /// as written). Either way helpers of the state are computed for the bindings asked for.
    fn new(desc: &Description, limits: Limits, rewrite: bool) -> Grounder {
        let mut g = Grounder {
            pool: TermPool::default(),
            relations: Vec::new(),
            by_name: FxHashMap::default(),
            rules: Vec::new(),
            limits,
            work: 0,
            abort: None,
            saturating: false,
            pending: Vec::new(),
            pending_count: 0,
            scratch: Vec::new(),
            strata: Vec::new(),
            model_only: Vec::new(),
            projections: FxHashMap::default(),
            auxiliaries: FxHashMap::default(),
            plans: FxHashMap::default(),
            expansions: FxHashMap::default(),
            left_out: Vec::new(),
            domains: None,
        };
        for rule in &desc.rules {
            for body in normal_bodies(rule) {
                let mut vars = VarNumbering::default();
                let head_rel = g.rel(rule.head.rel, rule.head.args.len());
                let head = Pat::list(&rule.head.args, &mut vars, &mut g.pool);
                let mut jr = JoinRule {
                    head_rel,
                    head,
                    pos: Vec::new(),
                    neg: Vec::new(),
                    filters: Vec::new(),
                    vars: 0,
                    emit: true,
                };
                for lit in &body {
                    match lit {
                        Lit::Pos(a) | Lit::Neg(a) => {
                            let rel = g.rel(a.rel, a.args.len());
                            let l = Literal { rel, args: Pat::list(&a.args, &mut vars, &mut g.pool) };
                            if matches!(lit, Lit::Pos(_)) {
                                jr.pos.push(l);
                            } else {
                                jr.neg.push(l);
                            }
                        }
                        Lit::Distinct(s, t) | Lit::Same(s, t) => {
                            let (s, t) = (Pat::new(s, &mut vars, &mut g.pool), Pat::new(t, &mut vars, &mut g.pool));
                            jr.filters.push((matches!(lit, Lit::Distinct(..)), s, t));
                        }
                    }
                }
                jr.vars = vars.len();
                g.rules.push(Rc::new(jr));
            }
        }
        // A rule written twice (alexChess states one of its `between` rules twice) would be
        // joined twice.
        let mut seen: FxHashSet<Rc<JoinRule>> = FxHashSet::default();
        g.rules.retain(|r| seen.insert(Rc::clone(r)));
        // The relaxation: true(X) <= init(X) | next(X); does(R, M) <= legal(R, M).
        let helper = |g: &mut Grounder, head: Sym, body: Sym, arity: usize| {
            let head_rel = g.rel(head, arity);
            let rel = g.rel(body, arity);
            let args: Box<[Pat]> = (0..arity as u16).map(Pat::Var).collect();
            let pos = vec![Literal { rel, args: args.clone() }];
            g.rules.push(Rc::new(JoinRule {
                head_rel,
                head: args,
                pos,
                neg: Vec::new(),
                filters: Vec::new(),
                vars: arity,
                emit: false,
            }));
        };
        helper(&mut g, Sym::TRUE, Sym::INIT, 1);
        helper(&mut g, Sym::TRUE, Sym::NEXT, 1);
        helper(&mut g, Sym::DOES, Sym::LEGAL, 2);
        if rewrite {
            g.read_unchanging_fluents_from_init();
            g.unfold();
            g.wildcard_arguments();
            g.restrict_to_constant_uses();
        }
        // Demand drops only atoms that no reader of the rules as written can use, so callers
        // that instantiate those rules top-down get it too.
        g.restrict_to_demand();
        g.domains = g.estimate_domains();
        g.decompose();
        g.domains = None;
        g.read_guards_in_place();
        g.leave_out_negated_expansions();
        g
    }

    fn into_grounded(self, desc: &Description, rules: Vec<GroundRule>) -> Grounded {
        let relations =
            self.relations.into_iter().map(|r| Rc::try_unwrap(r).unwrap_or_else(|r| (*r).clone())).collect();
        Grounded { pool: self.pool, relations, rules, by_name: self.by_name, roles: desc.roles() }
    }

    /// A relation of the grounder's own (not a GDL relation: it is not findable by name).
    fn fresh_rel(&mut self, arity: usize) -> RelId {
        let id = self.relations.len() as RelId;
        self.relations.push(Rc::new(Relation::new(Sym::new(&format!("aux:{id}")), arity)));
        id
    }

    /// A relation of the grounder's own that only restricts the model (a demand, a projection
    /// of one, a guard): its atoms are left out of the ground rules.
    fn fresh_model_only_rel(&mut self, arity: usize) -> RelId {
        let id = self.fresh_rel(arity);
        self.model_only.resize(self.relations.len(), false);
        self.model_only[id as usize] = true;
        id
    }

    /// Whether relation `rel` only restricts the model (see [`Grounder::fresh_model_only_rel`]).
    fn is_model_only(&self, rel: RelId) -> bool {
        self.model_only.get(rel as usize).copied().unwrap_or(false)
    }

    /// Whether relation `rel` is computed exactly (the same in every state): an atom of it in the
    /// model holds in every state, and one outside it in none.
    fn is_exact(&self, rel: RelId) -> bool {
        self.strata.get(rel as usize).is_some_and(Option::is_some)
    }

    /// The atoms of a ground rule's body that the net must read: a model-only atom restricts
    /// the model alone, and an exact atom in the model holds in every state (chess's bodies hold
    /// 2.3 million such literals, edges to a constant the optimiser would fold away).
    fn body_atoms(&self, matched: &[AtomRef]) -> Vec<AtomRef> {
        matched.iter().filter(|a| !self.is_model_only(a.rel) && !self.is_exact(a.rel)).copied().collect()
    }

    fn rel(&mut self, name: Sym, arity: usize) -> RelId {
        if let Some(&id) = self.by_name.get(&name) {
            return id;
        }
        let id = self.relations.len() as RelId;
        self.relations.push(Rc::new(Relation::new(name, arity)));
        self.by_name.insert(name, id);
        id
    }

    /// Instantiates the emitting rules over the final model, on demand: starting from the atoms
    /// the game's outputs name (`legal`, `next`, `goal`, `terminal`, `init`), each needed atom's
    /// rules are instantiated with the head bound to it, and every atom in their bodies becomes
    /// needed in turn. Atoms nothing needs (e.g. a relation over every triple of cells of which
    /// the goal reads three) are never instantiated, and atoms of relations computed exactly
    /// become facts.
    fn instantiate(&mut self) -> Result<Vec<GroundRule>, GroundError> {
        let emitting = self.rules.len();
        let mut excepts: Vec<Option<except::ExceptOne>> = (0..emitting)
            .map(|r| if self.is_left_out(self.rules[r].head_rel) { None } else { self.except_one(r) })
            .collect();
        let mut by_head: Vec<Vec<usize>> = vec![Vec::new(); self.relations.len()];
        let mut plans: Vec<Vec<Step>> = Vec::with_capacity(emitting);
        for (r, except) in excepts.iter().enumerate() {
            let rule = self.rules[r].clone();
            if rule.emit {
                by_head[rule.head_rel as usize].push(r);
            }
            if except.is_some() || self.is_left_out(rule.head_rel) {
                plans.push(Vec::new());
                continue;
            }
            let steps = self.plan(&rule, None, true);
            for s in steps.iter().filter(|s| s.lit != usize::MAX) {
                Rc::make_mut(&mut self.relations[rule.pos[s.lit].rel as usize]).prepare(&s.pattern, &self.pool);
                check_deadline(&self.limits)?;
            }
            plans.push(steps);
        }
        let mut out = Instances::new();
        for name in [Sym::LEGAL, Sym::NEXT, Sym::GOAL, Sym::TERMINAL, Sym::INIT] {
            if let Some(&rel) = self.by_name.get(&name) {
                for idx in 0..self.relations[rel as usize].count {
                    out.need(AtomRef { rel, idx });
                }
            }
        }
        let mut b = Bindings::default();
        let (mut args, mut matched) = (Vec::new(), Vec::new());
        while let Some(atom) = out.work.pop() {
            check_deadline(&self.limits)?;
            // An exact relation's atom in the model holds in every state: a fact, whose
            // derivation (Gt Two Thirds' sums and differences, step by step) would only become
            // gates the optimiser folds back into the constant.
            if self.is_exact(atom.rel) {
                out.rules.push(GroundRule { head: atom, pos: Vec::new(), neg: Vec::new() });
                continue;
            }
            args.clear();
            args.extend_from_slice(self.relations[atom.rel as usize].tuple(atom.idx));
            for &r in by_head.get(atom.rel as usize).map_or(&[][..], |v| &v[..]) {
                let rule = self.rules[r].clone();
                b.reset(rule.vars);
                if !rule.head.iter().zip(&args).all(|(p, &t)| b.unify(&self.pool, p, t)) {
                    continue;
                }
                if let Some(ex) = excepts[r].as_mut() {
                    self.ground_except(ex, &mut b, &mut out)?;
                    continue;
                }
                matched.clear();
                matched.resize(rule.pos.len(), AtomRef { rel: 0, idx: 0 });
                self.step(&rule, r, &plans[r], 0, None, &mut b, &mut matched, &mut |g, rule, b, matched| {
                    // The head is the atom being expanded.
                    let Some(gr) = g.ground_rule(rule, Some(atom), b, matched) else { return };
                    if let Err(e) = out.push(gr, &g.limits) {
                        g.abort = Some(e);
                    }
                });
                if let Some(e) = self.abort.take() {
                    return Err(e);
                }
            }
        }
        Ok(out.rules)
    }

    /// The ground rule of rule `rule` under `b` with its positive literals matched to `matched`;
    /// its head atom is `head` where the caller knows it, else found in the model (`None` if it
    /// is not there).
    fn ground_rule(
        &mut self,
        rule: usize,
        head: Option<AtomRef>,
        b: &Bindings,
        matched: &[AtomRef],
    ) -> Option<GroundRule> {
        let r = Rc::clone(&self.rules[rule]);
        let head = match head {
            Some(head) => head,
            None => {
                let args: Vec<TermId> =
                    r.head.iter().map(|p| b.instantiate(&mut self.pool, p)).collect::<Option<_>>()?;
                AtomRef { rel: r.head_rel, idx: self.relations[r.head_rel as usize].find(&args)? }
            }
        };
        let mut neg = Vec::new();
        for lit in &r.neg {
            // Safe rules bind every variable of a negation; a term never built is in no atom.
            if !self.scratch_args(&lit.args, b) {
                continue;
            }
            let terms = std::mem::take(&mut self.scratch);
            let holds = self.negated_atoms(lit.rel, &terms, &mut neg);
            self.scratch = terms;
            if !holds {
                // An exact atom in the model holds in every state: the rule never fires.
                return None;
            }
        }
        let pos = self.body_atoms(matched);
        Some(GroundRule { head, pos, neg })
    }
}

/// What [`Grounder::instantiate`] has produced so far, and which atoms are still to expand.
struct Instances {
    rules: Vec<GroundRule>,
    literals: usize,
    needed: Vec<Vec<bool>>,
    work: Vec<AtomRef>,
}

impl Instances {
    fn new() -> Instances {
        Instances { rules: Vec::new(), literals: 0, needed: Vec::new(), work: Vec::new() }
    }

    /// Marks `atom` as needed, to be expanded if it was not before.
    fn need(&mut self, atom: AtomRef) {
        let (rel, idx) = (atom.rel as usize, atom.idx as usize);
        if self.needed.len() <= rel {
            self.needed.resize(rel + 1, Vec::new());
        }
        let seen = &mut self.needed[rel];
        if seen.len() <= idx {
            seen.resize(idx + 1, false);
        }
        if !std::mem::replace(&mut seen[idx], true) {
            self.work.push(atom);
        }
    }

    /// Adds a ground rule, its body atoms becoming needed.
    fn push(&mut self, rule: GroundRule, limits: &Limits) -> Result<(), GroundError> {
        for &a in rule.pos.iter().chain(&rule.neg) {
            self.need(a);
        }
        self.literals += rule.pos.len() + rule.neg.len();
        self.rules.push(rule);
        if self.rules.len() > limits.max_rules {
            Err(GroundError::TooManyRules(limits.max_rules))
        } else if self.literals > limits.max_literals {
            Err(GroundError::TooManyLiterals(limits.max_literals))
        } else {
            Ok(())
        }
    }
}

fn check_deadline(limits: &Limits) -> Result<(), GroundError> {
    match limits.deadline {
        Some(d) if Instant::now() > d => Err(GroundError::Timeout),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The arguments of every atom of `name` in the relaxed model of `rules`, printed.
    fn atoms(rules: &str, name: &str) -> Vec<String> {
        model_atoms(relaxed_model, rules, name)
    }

    /// The arguments of every atom of `name` in the model `model` computes of `rules`, printed.
    fn model_atoms(
        model: fn(&Description, &Limits) -> Result<Grounded, GroundError>,
        rules: &str,
        name: &str,
    ) -> Vec<String> {
        let desc = gdl::parse("test", rules).expect("parses");
        let g = model(&desc, &Limits::default()).expect("grounds");
        let Some(rel) = g.relation(Sym::new(name)) else { return Vec::new() };
        let r = &g.relations[rel as usize];
        let mut out: Vec<String> = (0..r.count)
            .map(|i| r.tuple(i).iter().map(|&t| g.pool.to_string(t)).collect::<Vec<_>>().join(" "))
            .collect();
        out.sort();
        out
    }

    const COUNTER: &str = "
        (role p)
        (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)
        (max 3)
        (counter 0)
        (<= (counter ?m) (counter ?n) (succ ?n ?m) (not (max ?n)))
        (<= (big ?n) (counter ?n) (max ?n))
        (<= (small ?n) (counter ?n) (not (big ?n)))
        (<= (odd ?n) (succ ?m ?n) (not (odd ?m)))
        (init (at 0))
        (<= (legal p (go ?m)) (true (at ?n)) (succ ?n ?m) (counter ?m))
        (<= (legal p (jump ?n)) (true (at 0)) (small ?n))
        (<= (legal p (hop ?n)) (true (at 0)) (odd ?n))
        (<= (legal p stay) (true (at ?n)) (not stuck))
        (<= stuck (true (at 2)))
        (<= (next (at ?m)) (does p (go ?m)))
        (<= terminal (true (at 3)))
        (<= (goal p 100) (true (at 3)))
        (<= (goal p 0) (not (true (at 3))))";

    #[test]
    fn negation_over_relations_fixed_in_every_state_is_kept() {
        // The counter stops at the bound instead of running up the successor table, and what
        // reads it stops there too; a relation defined by negation of one is exact as well.
        assert_eq!(atoms(COUNTER, "counter"), ["0", "1", "2", "3"]);
        assert_eq!(atoms(COUNTER, "small"), ["0", "1", "2"]);
        assert_eq!(atoms(COUNTER, "true"), ["(at 0)", "(at 1)", "(at 2)", "(at 3)"]);
        let legal = atoms(COUNTER, "legal");
        assert!(legal.contains(&"p (jump 2)".to_owned()) && !legal.contains(&"p (jump 3)".to_owned()), "{legal:?}");
    }

    #[test]
    fn negation_over_the_state_or_through_recursion_is_dropped() {
        // `stuck` depends on the state: `stay` stays possible.
        assert!(atoms(COUNTER, "legal").contains(&"p stay".to_owned()));
        // `odd` negates itself through recursion: its model over-approximates {1, 3, 5}.
        assert_eq!(atoms(COUNTER, "odd"), ["1", "2", "3", "4", "5"]);
    }

    #[test]
    fn the_fixed_model_holds_the_exact_relations_alone() {
        let fixed = |name| model_atoms(fixed_model, COUNTER, name);
        assert_eq!(fixed("counter"), ["0", "1", "2", "3"]);
        assert_eq!(fixed("small"), ["0", "1", "2"]);
        assert_eq!(fixed("succ").len(), 5);
        // What depends on the state, or negates itself through recursion, is not computed.
        for name in ["true", "legal", "stuck", "odd"] {
            assert_eq!(fixed(name), Vec::<String>::new(), "{name}");
        }
    }
}
