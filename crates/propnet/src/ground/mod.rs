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
//! always read with some arguments bound are computed only for the bindings their readers ask
//! for (magic sets).
//!
//! Every rule is then instantiated once more over the final model. Negative literals whose atom
//! is outside the model always hold and are dropped; the rest are kept for the propnet's NOT
//! gates. `distinct` is decided during the join.

use gdl::{normal_bodies, Bindings, Description, Lit, Lookup, Pat, Sym, TermId, TermPool, VarNumbering};
use hashbrown::HashTable;
use rustc_hash::{FxHashMap, FxHashSet};
use std::rc::Rc;
use std::time::Instant;
use thiserror::Error;

mod rewrite;

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
/// The defaults keep a build well within 2 GB: at their caps the model of chess takes 330 MB,
/// the rules of a stress test with 2^20-fold conjunctions (`ruleDepthExponential`) 1.3 GB.
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
        Limits { max_atoms: 5_000_000, max_rules: 4_000_000, max_literals: 24_000_000, deadline: None }
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

/// The tuples of one relation in the relaxed model.
#[derive(Debug, Clone)]
pub struct Relation {
    /// The relation's name (`true` and `does` included).
    pub name: Sym,
    /// Its number of arguments.
    pub arity: usize,
    /// How many tuples there are.
    pub count: u32,
    tuples: TupleSet,
    /// Indexes, each by what it reads of a tuple (a relation has a handful).
    indexes: Vec<Index>,
}

/// A set of argument tuples of one arity, numbered in insertion order and stored flat, so that
/// a model of millions of atoms holds no allocation per atom (dropping one took longer than
/// computing it).
#[derive(Debug, Clone)]
struct TupleSet {
    arity: usize,
    flat: Vec<TermId>,
    /// Tuple numbers, hashed by [`tuple_hash`] of their tuples.
    ids: HashTable<u32>,
}

/// The hash of an argument tuple in a [`TupleSet`].
fn tuple_hash(args: &[TermId]) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    args.iter().for_each(|t| h.write_u32(t.0));
    h.finish()
}

impl TupleSet {
    fn new(arity: usize) -> TupleSet {
        TupleSet { arity, flat: Vec::new(), ids: HashTable::new() }
    }

    fn len(&self) -> usize {
        self.ids.len()
    }

    fn get(&self, idx: u32) -> &[TermId] {
        let a = self.arity;
        &self.flat[idx as usize * a..(idx as usize + 1) * a]
    }

    fn find(&self, args: &[TermId]) -> Option<u32> {
        self.ids.find(tuple_hash(args), |&i| self.get(i) == args).copied()
    }

    /// Adds `args` if absent; whether it was.
    fn insert(&mut self, args: &[TermId]) -> bool {
        let hash = tuple_hash(args);
        let a = self.arity;
        let flat = &self.flat;
        if self.ids.find(hash, |&i| &flat[i as usize * a..(i as usize + 1) * a] == args).is_some() {
            return false;
        }
        let idx = self.len() as u32;
        self.flat.extend_from_slice(args);
        let flat = &self.flat;
        self.ids.insert_unique(hash, idx, |&i| tuple_hash(&flat[i as usize * a..(i as usize + 1) * a]));
        true
    }

    fn clear(&mut self) {
        self.flat.clear();
        self.ids.clear();
    }
}

/// An index of a relation's tuples by what `probes` read of them.
#[derive(Debug, Clone)]
struct Index {
    /// [`spec_hash`] of `probes`, so that finding the index hashes nothing.
    hash: u64,
    /// The argument positions (bit i for argument i) when the probes read whole arguments and
    /// nothing else, so that [`Relation::matching`] finds the index without building probes.
    mask: Option<u64>,
    probes: Box<[Probe]>,
    map: FxHashMap<Box<[u64]>, Vec<u32>>,
}

/// A hash of a list of probes, computed once per join step rather than per lookup.
fn spec_hash(probes: &[Probe]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    probes.hash(&mut h);
    h.finish()
}

/// One thing an index reads of a tuple: the term at `path` (an argument position, then argument
/// positions inside nested function terms), whole (`exact`) or only its functor and arity. A
/// literal such as `(true (cell ?x ?y b))` binds no argument, yet an index on the functor of
/// argument 0 and on its third argument finds its few candidates among every state atom.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Probe {
    path: Box<[u8]>,
    exact: bool,
}

impl Probe {
    /// What the probe reads of `args`; `None` if the tuple has no term of that shape there (so
    /// no literal needing one can match it).
    fn value(&self, args: &[TermId], pool: &TermPool) -> Option<u64> {
        let mut t = *args.get(self.path[0] as usize)?;
        for &j in &self.path[1..] {
            if pool.is_constant(t) {
                return None;
            }
            t = *pool.args(t).get(j as usize)?;
        }
        if self.exact {
            Some(u64::from(t.0))
        } else if pool.is_constant(t) {
            None
        } else {
            Some(functor_code(pool.functor(t), pool.args(t).len()))
        }
    }
}

/// A functor and arity as one key value, apart from every term id (which fit in 32 bits).
fn functor_code(functor: Sym, arity: usize) -> u64 {
    1 << 63 | u64::from(functor.index()) << 16 | arity as u64
}

/// The probes reading the arguments in `mask` (bit i for argument i) whole.
fn mask_probes(mask: u64) -> Box<[Probe]> {
    (0..64u8).filter(|i| mask & (1 << i) != 0).map(|i| Probe { path: Box::new([i]), exact: true }).collect()
}

/// The values `probes` read of `args`, or `None` if some probe finds no term of its shape.
fn key_of(probes: &[Probe], args: &[TermId], pool: &TermPool) -> Option<Box<[u64]>> {
    probes.iter().map(|p| p.value(args, pool)).collect()
}

impl Relation {
    fn new(name: Sym, arity: usize) -> Relation {
        Relation { name, arity, count: 0, tuples: TupleSet::new(arity), indexes: Vec::new() }
    }

    /// The arguments of tuple `idx`.
    pub fn tuple(&self, idx: u32) -> &[TermId] {
        self.tuples.get(idx)
    }

    /// Tuple `idx` as an atom printed in KIF, e.g. `(legal xplayer (mark 1 1))`.
    pub fn atom_text(&self, idx: u32, pool: &TermPool) -> String {
        if self.arity == 0 {
            return self.name.to_string();
        }
        let mut s = format!("({}", self.name);
        for &t in self.tuple(idx) {
            s.push(' ');
            pool.write(t, &mut s);
        }
        s.push(')');
        s
    }

    /// The index of a tuple, if the model holds it.
    pub fn find(&self, args: &[TermId]) -> Option<u32> {
        self.tuples.find(args)
    }

    fn insert(&mut self, args: &[TermId], pool: &TermPool) -> bool {
        if !self.tuples.insert(args) {
            return false;
        }
        let idx = self.count;
        self.count += 1;
        for index in &mut self.indexes {
            if let Some(key) = key_of(&index.probes, args, pool) {
                index.map.entry(key).or_default().push(idx);
            }
        }
        true
    }

    fn index(&self, hash: u64, probes: &[Probe]) -> Option<&Index> {
        self.indexes.iter().find(|i| i.hash == hash && *i.probes == *probes)
    }

    /// Builds the index reading `probes` (whose [`spec_hash`] is `hash`), if missing, for
    /// [`probe`](Self::probe).
    fn ensure_probes(&mut self, hash: u64, probes: &[Probe], pool: &TermPool) {
        if probes.is_empty() || self.index(hash, probes).is_some() {
            return;
        }
        let mut map: FxHashMap<Box<[u64]>, Vec<u32>> = FxHashMap::default();
        for idx in 0..self.count {
            if let Some(key) = key_of(probes, self.tuple(idx), pool) {
                map.entry(key).or_default().push(idx);
            }
        }
        let whole = probes.iter().all(|p| p.exact && p.path.len() == 1);
        let mask = whole.then(|| probes.iter().fold(0u64, |m, p| m | 1 << p.path[0]));
        self.indexes.push(Index { hash, mask, probes: probes.into(), map });
    }

    /// The indices of the tuples in which `probes` (whose [`spec_hash`] is `hash`) read `key`;
    /// `None` if no such index was built.
    fn probe(&self, hash: u64, probes: &[Probe], key: &[u64]) -> Option<&[u32]> {
        let index = self.index(hash, probes)?;
        Some(index.map.get(key).map_or(&[], Vec::as_slice))
    }

    /// Builds the index on the argument positions in `mask` (bit i for argument i), if missing,
    /// for [`matching`](Self::matching).
    pub fn ensure_index(&mut self, mask: u64, pool: &TermPool) {
        let probes = mask_probes(mask);
        self.ensure_probes(spec_hash(&probes), &probes, pool);
    }

    /// The indices of the tuples whose arguments at the positions in `mask` are `key` (in position
    /// order); `None` if no index on `mask` was built with [`ensure_index`](Self::ensure_index).
    pub fn matching(&self, mask: u64, key: &[TermId]) -> Option<&[u32]> {
        let index = self.indexes.iter().find(|i| i.mask == Some(mask))?;
        // Joins call this for every candidate lookup: the key goes through the stack.
        let mut buf = [0u64; 8];
        let long: Vec<u64>;
        let key: &[u64] = if key.len() <= buf.len() {
            buf.iter_mut().zip(key).for_each(|(b, t)| *b = u64::from(t.0));
            &buf[..key.len()]
        } else {
            long = key.iter().map(|t| u64::from(t.0)).collect();
            &long
        };
        Some(index.map.get(key).map_or(&[], Vec::as_slice))
    }
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
    probes: Box<[Probe]>,
    /// [`spec_hash`] of `probes`.
    hash: u64,
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
            plans: FxHashMap::default(),
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
            g.restrict_to_constant_uses();
        }
        // Demand drops only atoms that no reader of the rules as written can use, so callers
        // that instantiate those rules top-down get it too.
        g.restrict_to_demand();
        g.decompose();
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

    fn rel(&mut self, name: Sym, arity: usize) -> RelId {
        if let Some(&id) = self.by_name.get(&name) {
            return id;
        }
        let id = self.relations.len() as RelId;
        self.relations.push(Rc::new(Relation::new(name, arity)));
        self.by_name.insert(name, id);
        id
    }

    /// Which relations are computed exactly, and in which stratum (see the module header): those
    /// no rule chain links to `true` or `does`, whose negative literals read lower strata only.
    fn stratify(&mut self) -> Vec<Option<u32>> {
        let n = self.relations.len();
        let dynamic = self.dynamic();
        // A stratum past the number of relations can only come from negation through recursion.
        let mut strata: Vec<Option<u32>> = dynamic.iter().map(|&d| (!d).then_some(0)).collect();
        let mut changed = true;
        while changed {
            changed = false;
            for rule in &self.rules {
                let head = rule.head_rel as usize;
                let Some(now) = strata[head] else { continue };
                let pos = rule.pos.iter().map(|l| strata[l.rel as usize]);
                let neg = rule.neg.iter().map(|l| strata[l.rel as usize].map(|s| s + 1));
                let needed = pos.chain(neg).try_fold(0, |m, s| s.map(|s| m.max(s)));
                let next = needed.filter(|&s| s <= n as u32).map(|s| s.max(now));
                if next != Some(now) {
                    strata[head] = next;
                    changed = true;
                }
            }
        }
        strata
    }

    /// Per relation, whether some chain of rules links it to `true` or `does`.
    fn dynamic(&self) -> Vec<bool> {
        let mut dynamic = vec![false; self.relations.len()];
        for name in [Sym::TRUE, Sym::DOES] {
            if let Some(&rel) = self.by_name.get(&name) {
                dynamic[rel as usize] = true;
            }
        }
        let mut changed = true;
        while changed {
            changed = false;
            for rule in &self.rules {
                let mut body = rule.pos.iter().chain(&rule.neg);
                if !dynamic[rule.head_rel as usize] && body.any(|l| dynamic[l.rel as usize]) {
                    dynamic[rule.head_rel as usize] = true;
                    changed = true;
                }
            }
        }
        dynamic
    }

    /// Computes the model: the exact relations stratum by stratum, then everything else.
    fn model(&mut self) -> Result<(), GroundError> {
        self.strata = self.stratify();
        let top = self.strata.iter().flatten().copied().max();
        for stratum in (0..=top.unwrap_or(0)).filter(|_| top.is_some()) {
            let rules =
                (0..self.rules.len()).filter(|&r| self.strata[self.rules[r].head_rel as usize] == Some(stratum));
            self.saturate(&rules.collect::<Vec<_>>())?;
        }
        let rest = (0..self.rules.len()).filter(|&r| self.strata[self.rules[r].head_rel as usize].is_none());
        self.saturate(&rest.collect::<Vec<_>>())
    }

    /// Whether every negative literal of `rule` over an exact relation holds under `b`.
    fn negations_hold(&mut self, rule: usize, b: &Bindings) -> bool {
        let rule = Rc::clone(&self.rules[rule]);
        rule.neg.iter().all(|lit| {
            self.strata[lit.rel as usize].is_none()
                || !self.scratch_args(&lit.args, b)
                || self.relations[lit.rel as usize].find(&self.scratch).is_none()
        })
    }

    /// Puts the terms `args` stand for under `b` in `scratch`, building none: false if one was
    /// never built (or is unbound), so that no atom has it. Called for every candidate of a
    /// saturating join.
    fn scratch_args(&mut self, args: &[Pat], b: &Bindings) -> bool {
        self.scratch.clear();
        for p in args {
            match b.lookup(&self.pool, p) {
                Lookup::Found(t) => self.scratch.push(t),
                Lookup::Absent | Lookup::Unbound => return false,
            }
        }
        true
    }

    /// Saturates the model under `rules` to a fixpoint.
    fn saturate(&mut self, rules: &[usize]) -> Result<(), GroundError> {
        let mut delta: Vec<(u32, u32)> = vec![(0, 0); self.relations.len()];
        let mut first = true;
        self.saturating = true;
        let emit: &mut Emit = &mut |g, rule, b, _| {
            if g.negations_hold(rule, b) {
                g.push_head(rule, b);
            }
        };
        loop {
            check_deadline(&self.limits)?;
            for &r in rules {
                if first {
                    self.join(r, None, emit)?;
                    continue;
                }
                for lit in 0..self.rules[r].pos.len() {
                    let (lo, hi) = delta[self.rules[r].pos[lit].rel as usize];
                    if lo < hi {
                        self.join(r, Some((lit, lo, hi)), emit)?;
                    }
                }
            }
            first = false;
            let before: Vec<u32> = self.relations.iter().map(|r| r.count).collect();
            for (rel, new) in self.pending.iter_mut().enumerate().filter(|(_, new)| new.len() > 0) {
                let relation = Rc::make_mut(&mut self.relations[rel]);
                for idx in 0..new.len() as u32 {
                    relation.insert(new.get(idx), &self.pool);
                }
                new.clear();
            }
            self.pending_count = 0;
            let total: usize = self.relations.iter().map(|r| r.count as usize).sum();
            if total > self.limits.max_atoms {
                return Err(GroundError::TooManyAtoms(self.limits.max_atoms));
            }
            delta = self.relations.iter().zip(&before).map(|(r, &b)| (b, r.count)).collect();
            if delta.iter().all(|(lo, hi)| lo == hi) {
                self.saturating = false;
                return Ok(());
            }
        }
    }

    /// Whether the model or this round's new atoms already hold the head of `rule` under `b` (a
    /// head with a term never built is new).
    fn head_known(&mut self, rule: usize, b: &Bindings) -> bool {
        let r = Rc::clone(&self.rules[rule]);
        if !self.scratch_args(&r.head, b) {
            return false;
        }
        let rel = r.head_rel as usize;
        self.relations[rel].find(&self.scratch).is_some()
            || self.pending.get(rel).is_some_and(|set| set.find(&self.scratch).is_some())
    }

    /// Adds the head of `rule` under `b` to this round's new atoms, unless it is known.
    fn push_head(&mut self, rule: usize, b: &Bindings) {
        if self.head_known(rule, b) {
            return;
        }
        // `head_known` left the head's terms in `scratch` unless one was never built.
        let r = Rc::clone(&self.rules[rule]);
        self.scratch.clear();
        for p in r.head.iter() {
            let Some(t) = b.instantiate(&mut self.pool, p) else { return };
            self.scratch.push(t);
        }
        let rel = r.head_rel as usize;
        if self.pending.len() <= rel {
            let arities: Vec<usize> = self.relations.iter().map(|r| r.arity).collect();
            self.pending.extend(arities[self.pending.len()..].iter().map(|&a| TupleSet::new(a)));
        }
        if self.pending[rel].insert(&self.scratch) {
            self.pending_count += 1;
            if self.pending_count > self.limits.max_atoms {
                self.abort = Some(GroundError::TooManyAtoms(self.limits.max_atoms));
            }
        }
    }

    /// Instantiates the emitting rules over the final model, on demand: starting from the atoms
    /// the game's outputs name (`legal`, `next`, `goal`, `terminal`, `init`), each needed atom's
    /// rules are instantiated with the head bound to it, and every atom in their bodies becomes
    /// needed in turn. Atoms nothing needs (e.g. a relation over every triple of cells of which
    /// the goal reads three) are never instantiated, and atoms of relations computed exactly
    /// become facts.
    fn instantiate(&mut self) -> Result<Vec<GroundRule>, GroundError> {
        let mut by_head: Vec<Vec<usize>> = vec![Vec::new(); self.relations.len()];
        let mut plans: Vec<Vec<Step>> = Vec::with_capacity(self.rules.len());
        for r in 0..self.rules.len() {
            let rule = self.rules[r].clone();
            let steps = self.plan(&rule, None, true);
            for s in steps.iter().filter(|s| s.lit != usize::MAX) {
                Rc::make_mut(&mut self.relations[rule.pos[s.lit].rel as usize])
                    .ensure_probes(s.hash, &s.probes, &self.pool);
            }
            if rule.emit {
                by_head[rule.head_rel as usize].push(r);
            }
            plans.push(steps);
        }
        let mut needed: Vec<Vec<bool>> = self.relations.iter().map(|r| vec![false; r.count as usize]).collect();
        let mut work: Vec<AtomRef> = Vec::new();
        for name in [Sym::LEGAL, Sym::NEXT, Sym::GOAL, Sym::TERMINAL, Sym::INIT] {
            if let Some(&rel) = self.by_name.get(&name) {
                for idx in 0..self.relations[rel as usize].count {
                    needed[rel as usize][idx as usize] = true;
                    work.push(AtomRef { rel, idx });
                }
            }
        }
        let mut out = Vec::new();
        let mut literals = 0;
        let mut b = Bindings::default();
        while let Some(atom) = work.pop() {
            check_deadline(&self.limits)?;
            // An exact relation's atom in the model holds in every state: a fact, whose
            // derivation (Gt Two Thirds' sums and differences, step by step) would only become
            // gates the optimiser folds back into the constant.
            if self.strata[atom.rel as usize].is_some() {
                out.push(GroundRule { head: atom, pos: Vec::new(), neg: Vec::new() });
                continue;
            }
            for &r in &by_head[atom.rel as usize] {
                let rule = self.rules[r].clone();
                b.reset(rule.vars);
                let args = self.relations[atom.rel as usize].tuple(atom.idx).to_vec();
                if !rule.head.iter().zip(&args).all(|(p, &t)| b.unify(&self.pool, p, t)) {
                    continue;
                }
                let mut matched = vec![AtomRef { rel: 0, idx: 0 }; rule.pos.len()];
                self.step(&rule, r, &plans[r], 0, None, &mut b, &mut matched, &mut |g, rule, b, matched| {
                    let Some(gr) = g.ground_rule(rule, b, matched) else { return };
                    for &a in gr.pos.iter().chain(&gr.neg) {
                        if !std::mem::replace(&mut needed[a.rel as usize][a.idx as usize], true) {
                            work.push(a);
                        }
                    }
                    literals += gr.pos.len() + gr.neg.len();
                    out.push(gr);
                    if out.len() > g.limits.max_rules {
                        g.abort = Some(GroundError::TooManyRules(g.limits.max_rules));
                    } else if literals > g.limits.max_literals {
                        g.abort = Some(GroundError::TooManyLiterals(g.limits.max_literals));
                    }
                });
                if let Some(e) = self.abort.take() {
                    return Err(e);
                }
            }
        }
        Ok(out)
    }

    fn ground_rule(&mut self, rule: usize, b: &Bindings, matched: &[AtomRef]) -> Option<GroundRule> {
        let r = &self.rules[rule];
        let args: Vec<TermId> = r.head.iter().map(|p| b.instantiate(&mut self.pool, p)).collect::<Option<_>>()?;
        let idx = self.relations[r.head_rel as usize].find(&args)?;
        let mut neg = Vec::new();
        for lit in &r.neg {
            let mut found = Vec::with_capacity(lit.args.len());
            let mut absent = false;
            for p in lit.args.iter() {
                match b.lookup(&self.pool, p) {
                    Lookup::Found(t) => found.push(t),
                    // Safe rules bind every variable of a negation; absent terms are in no atom.
                    Lookup::Absent | Lookup::Unbound => absent = true,
                }
            }
            if absent {
                continue;
            }
            if let Some(i) = self.relations[lit.rel as usize].find(&found) {
                neg.push(AtomRef { rel: lit.rel, idx: i });
            }
        }
        let model_only = |a: &&AtomRef| self.model_only.get(a.rel as usize).copied().unwrap_or(false);
        let pos = matched.iter().filter(|a| !model_only(a)).copied().collect();
        Some(GroundRule { head: AtomRef { rel: r.head_rel, idx }, pos, neg })
    }

    /// A join order (with the head's variables already bound if `head_bound`): the delta literal
    /// first, then greedily the literal with the most bound
    /// arguments (ties to the smaller relation).
    fn plan(&self, rule: &JoinRule, first: Option<usize>, head_bound: bool) -> Vec<Step> {
        let mut bound = vec![false; rule.vars];
        if head_bound {
            for p in rule.head.iter() {
                p.for_each_var(&mut |v| bound[v as usize] = true);
            }
        }
        let mut done = vec![false; rule.pos.len()];
        let mut applied = vec![false; rule.filters.len()];
        let mut steps = Vec::new();
        let is_bound = |p: &Pat, bound: &[bool]| {
            let mut all = true;
            p.for_each_var(&mut |v| all &= bound[v as usize]);
            all
        };
        let ready_filters = |bound: &[bool], applied: &mut Vec<bool>| {
            let mut ready = Vec::new();
            for (i, (_, s, t)) in rule.filters.iter().enumerate() {
                if !applied[i] && is_bound(s, bound) && is_bound(t, bound) {
                    applied[i] = true;
                    ready.push(i);
                }
            }
            ready
        };
        let initial = ready_filters(&bound, &mut applied);
        let mut head_was_bound = rule.head.iter().all(|p| is_bound(p, &bound));
        if !initial.is_empty() {
            steps.push(Step { lit: usize::MAX, probes: Box::new([]), hash: 0, filters: initial, head_ready: false });
        }
        for k in 0..rule.pos.len() {
            let pick = match (k, first) {
                (0, Some(f)) => f,
                _ => (0..rule.pos.len())
                    .filter(|&i| !done[i])
                    .max_by_key(|&i| {
                        let lit = &rule.pos[i];
                        let n = lit.args.iter().filter(|p| is_bound(p, &bound)).count();
                        // Among literals with as many bound arguments, what an index can read
                        // inside them (a functor, a bound nested term) breaks the tie.
                        let inside = probe_count(&lit.args, &bound);
                        (n, inside, std::cmp::Reverse(self.relations[lit.rel as usize].count))
                    })
                    .expect("an unplanned literal remains"),
            };
            done[pick] = true;
            let lit = &rule.pos[pick];
            let probes: Box<[Probe]> = probes_of(&lit.args, &bound).into();
            let hash = spec_hash(&probes);
            for p in lit.args.iter() {
                p.for_each_var(&mut |v| bound[v as usize] = true);
            }
            let filters = ready_filters(&bound, &mut applied);
            let head_bound = rule.head.iter().all(|p| is_bound(p, &bound));
            steps.push(Step { lit: pick, probes, hash, filters, head_ready: head_bound && !head_was_bound });
            head_was_bound = head_bound;
        }
        steps
    }

    /// Enumerates every binding of rule `r`'s positive body over the model (with the given
    /// literal restricted to tuples `lo..hi`), calling `emit` with the bindings and matched atoms.
    fn join(&mut self, r: usize, delta: Option<(usize, u32, u32)>, emit: &mut Emit) -> Result<(), GroundError> {
        let rule = self.rules[r].clone();
        // Plans change with the relations' sizes only where those break ties, so a plan is
        // reused while no literal's relation has crossed a power of two: saturating recursion
        // through demand relations takes a round per step, and planning every join each round
        // cost more than the joins.
        let sizes = rule
            .pos
            .iter()
            .fold(0u64, |h, l| h.rotate_left(5) ^ u64::from(32 - self.relations[l.rel as usize].count.leading_zeros()));
        let key = (r, delta.map_or(usize::MAX, |d| d.0));
        let steps = match self.plans.get(&key) {
            Some((at, steps)) if *at == sizes => Rc::clone(steps),
            _ => {
                let steps = Rc::new(self.plan(&rule, delta.map(|d| d.0), false));
                self.plans.insert(key, (sizes, Rc::clone(&steps)));
                steps
            }
        };
        for s in steps.iter() {
            if s.lit != usize::MAX && Some(s.lit) != delta.map(|d| d.0) {
                Rc::make_mut(&mut self.relations[rule.pos[s.lit].rel as usize])
                    .ensure_probes(s.hash, &s.probes, &self.pool);
            }
        }
        let mut b = Bindings::default();
        b.reset(rule.vars);
        let mut matched = vec![AtomRef { rel: 0, idx: 0 }; rule.pos.len()];
        self.step(&rule, r, &steps, 0, delta, &mut b, &mut matched, emit);
        match self.abort.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn step(
        &mut self,
        rule: &JoinRule,
        r: usize,
        steps: &[Step],
        k: usize,
        delta: Option<(usize, u32, u32)>,
        b: &mut Bindings,
        matched: &mut Vec<AtomRef>,
        emit: &mut Emit,
    ) {
        if self.abort.is_some() {
            return;
        }
        let Some(step) = steps.get(k) else {
            emit(self, r, b, matched);
            return;
        };
        if step.lit == usize::MAX {
            if self.filters_hold(rule, &step.filters, b) {
                self.step(rule, r, steps, k + 1, delta, b, matched, emit);
            }
            return;
        }
        let lit = &rule.pos[step.lit];
        let rel = lit.rel as usize;
        // The candidate tuples: a delta range, an index bucket, or the whole relation.
        let relation = Rc::clone(&self.relations[rel]);
        let bucket: &[u32];
        let range = if let Some((_, lo, hi)) = delta.filter(|d| d.0 == step.lit) {
            bucket = &[];
            lo..hi
        } else if step.probes.is_empty() {
            bucket = &[];
            0..relation.count
        } else {
            let mut key = Vec::with_capacity(step.probes.len());
            for probe in step.probes.iter() {
                let Some(value) = probe_pattern(&lit.args, probe, b, &self.pool) else { return };
                key.push(value);
            }
            match relation.probe(step.hash, &step.probes, &key) {
                Some(found) => bucket = found,
                None => return,
            }
            0..0
        };
        let candidates = range.chain(bucket.iter().copied());
        self.work += candidates.size_hint().0 as u64;
        if self.work >= 1 << 16 {
            self.work = 0;
            if let Err(e) = check_deadline(&self.limits) {
                self.abort = Some(e);
                return;
            }
        }
        for idx in candidates {
            let mark = b.mark();
            let tuple = relation.tuple(idx);
            let ok = lit.args.iter().zip(tuple).all(|(p, &t)| b.unify(&self.pool, p, t));
            // While saturating, one derivation of a head is enough.
            let known = ok && step.head_ready && self.saturating && self.head_known(r, b);
            if ok && !known && self.filters_hold(rule, &step.filters, b) {
                matched[step.lit] = AtomRef { rel: lit.rel, idx };
                self.step(rule, r, steps, k + 1, delta, b, matched, emit);
            }
            b.undo(mark);
        }
    }

    fn filters_hold(&mut self, rule: &JoinRule, filters: &[usize], b: &Bindings) -> bool {
        filters.iter().all(|&i| {
            let (distinct, s, t) = &rule.filters[i];
            let s = b.instantiate(&mut self.pool, s);
            let t = b.instantiate(&mut self.pool, t);
            (s != t) == *distinct
        })
    }
}

/// How deep into nested terms a join's index reads.
const PROBE_DEPTH: usize = 3;

/// What the literal with arguments `args` can tell an index under the bindings marked `bound`:
/// every argument or nested term that is fully bound, read whole, and the functor of every
/// function term that is not, down to [`PROBE_DEPTH`].
fn probes_of(args: &[Pat], bound: &[bool]) -> Vec<Probe> {
    let mut out = Vec::new();
    walk_probes(args, bound, &mut |path, exact| out.push(Probe { path: path.into(), exact }));
    out
}

/// How many probes [`probes_of`] finds, without building them (join planning asks for every
/// candidate literal).
fn probe_count(args: &[Pat], bound: &[bool]) -> usize {
    let mut n = 0;
    walk_probes(args, bound, &mut |_, _| n += 1);
    n
}

/// Calls `found` with the path and exactness of every probe an index can read of a literal
/// with arguments `args` once the variables in `bound` are.
fn walk_probes(args: &[Pat], bound: &[bool], found: &mut dyn FnMut(&[u8], bool)) {
    fn walk(p: &Pat, path: &mut Vec<u8>, bound: &[bool], found: &mut dyn FnMut(&[u8], bool)) {
        let mut all = true;
        p.for_each_var(&mut |v| all &= bound[v as usize]);
        if all {
            found(path, true);
        } else if let Pat::Func(_, subs) = p {
            found(path, false);
            if path.len() < PROBE_DEPTH {
                for (j, sub) in subs.iter().enumerate().take(256) {
                    path.push(j as u8);
                    walk(sub, path, bound, found);
                    path.pop();
                }
            }
        }
    }
    let mut path = Vec::with_capacity(PROBE_DEPTH + 1);
    for (i, p) in args.iter().enumerate().take(256) {
        path.clear();
        path.push(i as u8);
        walk(p, &mut path, bound, found);
    }
}

/// What `probe` reads of the literal with arguments `args` under `b`: the value a matching
/// tuple's index key holds there; `None` if no tuple can match (a term never interned).
fn probe_pattern(args: &[Pat], probe: &Probe, b: &Bindings, pool: &TermPool) -> Option<u64> {
    let mut p = &args[probe.path[0] as usize];
    for &j in &probe.path[1..] {
        let Pat::Func(_, subs) = p else { return None };
        p = &subs[j as usize];
    }
    if probe.exact {
        match b.lookup(pool, p) {
            Lookup::Found(t) => Some(u64::from(t.0)),
            _ => None,
        }
    } else {
        match p {
            Pat::Func(f, subs) => Some(functor_code(*f, subs.len())),
            _ => None,
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
        let desc = gdl::parse("test", rules).expect("parses");
        let g = relaxed_model(&desc, &Limits::default()).expect("grounds");
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
}
