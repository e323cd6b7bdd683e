//! The instantiator: each rule a goal depends on, instantiated from its own text over the
//! relaxed model (an atom the disjunction of its rules' instances, a body the conjunction of its
//! literals in written order), joining body literals through the model's relation indexes.

use super::Formulas;
use crate::Error;
use gdl::{Bindings, Description, Literal, Lookup, Pat, Sym, TermId, VarNumbering};
use propnet::ground::{AtomRef, Grounded, Limits, Pattern, RelId, Relation};
use propnet::net::{Kind, Net, NodeId};
use rustc_hash::{FxHashMap, FxHashSet};
use std::rc::Rc;
use std::time::Instant;

/// A body literal compiled for instantiation.
#[derive(Debug, Clone)]
enum Lit {
    /// A positive atom; `rel` is `None` for a relation with no atom in the relaxed model.
    Atom { rel: Option<RelId>, args: Box<[Pat]> },
    /// `not`.
    Not(Box<Lit>),
    /// `distinct`.
    Distinct(Pat, Pat),
    /// `or`.
    Or(Vec<Branch>),
}

/// One branch of an `or`, with the variables first bound in it.
#[derive(Debug, Clone)]
struct Branch {
    lit: Lit,
    local: Vec<u16>,
}

/// A `distinct` test a join applies as soon as both terms are bound: whether they must differ,
/// and the two terms. (An instance it rejects has the degree 0, so dropping it is exact.)
type Filter<'r> = (bool, &'r Pat, &'r Pat);

/// A rule compiled for instantiation.
#[derive(Debug)]
struct Rule {
    head: Box<[Pat]>,
    body: Vec<Lit>,
    vars: usize,
    /// The variables the body binds outside any `or` branch: one instance per binding of these.
    bound: Vec<u16>,
    /// The rule as written, for messages.
    text: String,
}

impl Lit {
    /// The variables the literal binds when it holds: a positive atom all of its own, an `or`
    /// those that every branch binds.
    fn binds(&self) -> Vec<u16> {
        match self {
            Lit::Atom { args, .. } => {
                let mut vars = Vec::new();
                args.iter().for_each(|p| p.for_each_var(&mut |v| vars.push(v)));
                vars.sort_unstable();
                vars.dedup();
                vars
            }
            Lit::Or(branches) => {
                let mut sets = branches.iter().map(|b| b.lit.binds());
                let first = sets.next().unwrap_or_default();
                sets.fold(first, |acc, set| acc.into_iter().filter(|v| set.contains(v)).collect())
            }
            Lit::Not(_) | Lit::Distinct(..) => Vec::new(),
        }
    }

    /// Assigns each `or` branch the variables it binds that `outer` does not.
    fn scope(&mut self, outer: &[u16]) {
        match self {
            Lit::Or(branches) => {
                for b in branches {
                    b.local = b.lit.binds().into_iter().filter(|v| !outer.contains(v)).collect();
                    let inner: Vec<u16> = outer.iter().chain(&b.local).copied().collect();
                    b.lit.scope(&inner);
                }
            }
            Lit::Not(inner) => inner.scope(outer),
            Lit::Atom { .. } | Lit::Distinct(..) => {}
        }
    }

    /// A variable used where nothing binds it, if any (validated GDL has none: every variable
    /// is bound in every disjunct of the body's normal form).
    fn unbound(&self, bound: &[u16]) -> Option<u16> {
        let mut out = None;
        let mut check = |p: &Pat| p.for_each_var(&mut |v| out = out.or((!bound.contains(&v)).then_some(v)));
        match self {
            Lit::Atom { args, .. } => args.iter().for_each(&mut check),
            Lit::Distinct(s, t) => [s, t].into_iter().for_each(&mut check),
            Lit::Not(inner) => return inner.unbound(bound),
            Lit::Or(branches) => {
                return branches.iter().find_map(|b| {
                    let inner: Vec<u16> = bound.iter().chain(&b.local).copied().collect();
                    b.lit.unbound(&inner)
                })
            }
        }
        out
    }

    /// The literal as a join filter, if it is a `distinct` test or a negated one.
    fn filter(&self) -> Option<Filter<'_>> {
        match self {
            Lit::Distinct(s, t) => Some((true, s, t)),
            Lit::Not(inner) => match &**inner {
                Lit::Distinct(s, t) => Some((false, s, t)),
                _ => None,
            },
            _ => None,
        }
    }
}

/// The most gates (and instances of one rule) the goal formulas may have, below the grounder's
/// rule cap where that is lower: a heuristic is worth less than the net's share of memory and
/// start clock (gt_two_thirds_4p's formulas pass it after 20 s).
const MAX_GATES: usize = 4_000_000;

/// Instantiates the formulas, atom by atom from the goals down.
pub(super) struct Builder<'a> {
    desc: &'a Description,
    /// The relaxed model; its relations are moved to `relations`.
    model: Grounded,
    /// The relations, shared so that a join can read one while it recurses.
    relations: Vec<Rc<Relation>>,
    limits: Limits,
    net: Net,
    base_count: usize,
    /// The game's base propositions by name.
    base_index: FxHashMap<&'a str, u32>,
    true_rel: Option<RelId>,
    falsity: NodeId,
    truth: NodeId,
    /// The node of every atom met so far.
    atoms: FxHashMap<AtomRef, NodeId>,
    /// Atoms whose rules are still to be instantiated.
    queue: Vec<(AtomRef, NodeId)>,
    /// The compiled rules of each head relation, compiled when first needed.
    rules: FxHashMap<RelId, Rc<[Rule]>>,
    negation: FxHashMap<NodeId, NodeId>,
    /// Candidate tuples tried, to check the deadline now and then.
    work: u64,
    /// The pattern of each literal (by the address of its arguments, which live in `rules` as
    /// long as the builder does) under each set of bound variables (a bit per variable number
    /// below 64): joins ask for the same few again and again.
    patterns: FxHashMap<(usize, u64), Rc<Pattern>>,
}

impl<'a> Builder<'a> {
    /// The gate cap: [`MAX_GATES`], or the grounder's rule cap where lower.
    fn gate_cap(&self) -> usize {
        MAX_GATES.min(self.limits.max_rules)
    }

    pub(super) fn new(desc: &'a Description, mut model: Grounded, game: &'a Net, limits: &Limits) -> Builder<'a> {
        let mut net = Net {
            kinds: Vec::new(),
            inputs: Vec::new(),
            labels: Vec::new(),
            roles: game.roles.clone(),
            bases: Vec::new(),
            moves: Vec::new(),
            goals: vec![Vec::new(); game.roles.len()],
            terminal: 0,
        };
        let falsity = net.add(Kind::Const(false), Vec::new(), None);
        let truth = net.add(Kind::Const(true), Vec::new(), None);
        let base_index = game.bases.iter().enumerate().map(|(i, b)| (b.name.as_str(), i as u32)).collect();
        Builder {
            desc,
            true_rel: model.relation(Sym::TRUE),
            relations: std::mem::take(&mut model.relations).into_iter().map(Rc::new).collect(),
            model,
            limits: *limits,
            net,
            base_count: game.bases.len(),
            base_index,
            falsity,
            truth,
            atoms: FxHashMap::default(),
            queue: Vec::new(),
            rules: FxHashMap::default(),
            negation: FxHashMap::default(),
            work: 0,
            patterns: FxHashMap::default(),
        }
    }

    pub(super) fn run(mut self) -> Result<Formulas, Error> {
        self.goal_atoms()?;
        while let Some((atom, node)) = self.queue.pop() {
            self.define(atom, node)?;
        }
        let schedule = self.net.schedule();
        let mut cycle_of = vec![u32::MAX; self.net.kinds.len()];
        let mut cycles = Vec::new();
        for comp in &schedule {
            if comp.len() > 1 || self.net.inputs[comp[0] as usize].contains(&comp[0]) {
                comp.iter().for_each(|&n| cycle_of[n as usize] = cycles.len() as u32);
                cycles.push(comp.clone());
            }
        }
        Ok(Formulas { net: self.net, base_count: self.base_count, schedule, cycle_of, cycles })
    }

    /// Creates the node of every `goal` atom of a role with a value from 0 to 100.
    fn goal_atoms(&mut self) -> Result<(), Error> {
        let Some(goal) = self.model.relation(Sym::GOAL) else { return Ok(()) };
        let role_of: FxHashMap<TermId, usize> = (self.net.roles.iter().enumerate())
            .filter_map(|(i, r)| self.model.pool.find_constant(Sym::new(r)).map(|t| (t, i)))
            .collect();
        for idx in 0..self.relations[goal as usize].count {
            let atom = AtomRef { rel: goal, idx };
            let (role, value) = match self.relations[goal as usize].tuple(idx) {
                &[role, value] => (role, value),
                _ => continue,
            };
            let Some(&role) = role_of.get(&role) else { continue };
            let pool = &self.model.pool;
            let number = Some(value).filter(|&v| pool.is_constant(v)).and_then(|v| pool.functor(v).as_number());
            let Some(number) = number.filter(|&v| v <= 100) else {
                let (role, value) = (self.net.roles[role].clone(), pool.to_string(value));
                return Err(Error::BadGoal { role, value });
            };
            let node = self.atom_node(atom)?;
            self.net.goals[role].push((number, node));
        }
        self.net.goals.iter_mut().for_each(|g| g.sort_unstable());
        Ok(())
    }

    /// The node of a ground atom of the relaxed model, created (and queued for its rules) if new.
    fn atom_node(&mut self, atom: AtomRef) -> Result<NodeId, Error> {
        if let Some(&n) = self.atoms.get(&atom) {
            return Ok(n);
        }
        let relation = &self.relations[atom.rel as usize];
        let label = relation.atom_text(atom.idx, &self.model.pool);
        let n = if Some(atom.rel) == self.true_rel {
            let name = self.model.pool.to_string(relation.tuple(atom.idx)[0]);
            // The net's grounding proves some fluents of the relaxed model unreachable (a
            // piece on a wall read from `init`): they are false in every state the net reaches.
            let Some(&base) = self.base_index.get(name.as_str()) else { return Ok(self.falsity) };
            self.net.add(Kind::Base(base), Vec::new(), Some(label))
        } else if relation.name == Sym::DOES {
            return Err(Error::Unsupported(format!("a goal depends on a move: {label}")));
        } else {
            let n = self.net.add(Kind::Or, Vec::new(), Some(label));
            self.queue.push((atom, n));
            n
        };
        self.atoms.insert(atom, n);
        if self.net.kinds.len() > self.gate_cap() {
            return Err(Error::TooLarge(self.gate_cap()));
        }
        Ok(n)
    }

    /// The compiled rules concluding relation `rel`.
    fn rules_for(&mut self, rel: RelId) -> Result<Rc<[Rule]>, Error> {
        if let Some(rules) = self.rules.get(&rel) {
            return Ok(rules.clone());
        }
        let name = self.relations[rel as usize].name;
        let desc = self.desc;
        let rules: Rc<[Rule]> =
            desc.rules.iter().filter(|r| r.head.rel == name).map(|r| self.compile(r)).collect::<Result<_, _>>()?;
        self.rules.insert(rel, rules.clone());
        Ok(rules)
    }

    fn compile(&mut self, rule: &gdl::Rule) -> Result<Rule, Error> {
        let mut vars = VarNumbering::default();
        let head = Pat::list(&rule.head.args, &mut vars, &mut self.model.pool);
        let mut body: Vec<Lit> = rule.body.iter().map(|l| self.literal(l, &mut vars)).collect();
        let mut bound: Vec<u16> = body.iter().flat_map(Lit::binds).collect();
        bound.sort_unstable();
        bound.dedup();
        body.iter_mut().for_each(|l| l.scope(&bound));
        let text = rule.to_string();
        let mut head_vars = Vec::new();
        head.iter().for_each(|p| p.for_each_var(&mut |v| head_vars.push(v)));
        let unbound =
            head_vars.into_iter().find(|v| !bound.contains(v)).or_else(|| body.iter().find_map(|l| l.unbound(&bound)));
        if unbound.is_some() {
            return Err(Error::Unsupported(format!("a variable of {text} is used where nothing binds it")));
        }
        Ok(Rule { head, body, vars: vars.len(), bound, text })
    }

    fn literal(&mut self, lit: &Literal, vars: &mut VarNumbering) -> Lit {
        let pool = &mut self.model.pool;
        match lit {
            Literal::Atom(a) => {
                Lit::Atom { rel: self.model.by_name.get(&a.rel).copied(), args: Pat::list(&a.args, vars, pool) }
            }
            // Double negation is the identity under every t-norm's negation 1 − x.
            Literal::Not(inner) => match &**inner {
                Literal::Not(l) => self.literal(l, vars),
                l => Lit::Not(Box::new(self.literal(l, vars))),
            },
            Literal::Distinct(s, t) => Lit::Distinct(Pat::new(s, vars, pool), Pat::new(t, vars, pool)),
            Literal::Or(ls) => {
                Lit::Or(ls.iter().map(|l| Branch { lit: self.literal(l, vars), local: Vec::new() }).collect())
            }
        }
    }

    /// Fills in an atom's node: the disjunction of every instance of every rule concluding it.
    fn define(&mut self, atom: AtomRef, node: NodeId) -> Result<(), Error> {
        let args = self.relations[atom.rel as usize].tuple(atom.idx).to_vec();
        let rules = self.rules_for(atom.rel)?;
        let mut disjuncts = Vec::new();
        let mut b = Bindings::default();
        for rule in rules.iter() {
            b.reset(rule.vars);
            if !rule.head.iter().zip(&args).all(|(p, &t)| b.unify(&self.model.pool, p, t)) {
                continue;
            }
            let binders: Vec<&Lit> = rule.body.iter().filter(|l| is_binder(l)).collect();
            let filters: Vec<Filter> = rule.body.iter().filter_map(Lit::filter).collect();
            for instance in self.solutions(&binders, &filters, &rule.bound, &mut b)? {
                let mark = b.mark();
                self.bind(&rule.bound, &instance, &mut b);
                let conjuncts =
                    rule.body.iter().map(|l| self.lit_node(l, &mut b, &rule.text)).collect::<Result<_, _>>()?;
                disjuncts.push(self.net.add(Kind::And, conjuncts, None));
                b.undo(mark);
            }
        }
        self.net.inputs[node as usize] = disjuncts;
        Ok(())
    }

    fn bind(&self, vars: &[u16], values: &[TermId], b: &mut Bindings) {
        for (&v, &t) in vars.iter().zip(values) {
            // Variables bound before (by the head) unify with the value they already have.
            b.unify(&self.model.pool, &Pat::Var(v), t);
        }
    }

    /// The node of a body literal under complete bindings.
    fn lit_node(&mut self, lit: &Lit, b: &mut Bindings, rule: &str) -> Result<NodeId, Error> {
        let unbound = || Error::Unsupported(format!("a variable of {rule} is unbound where it is used"));
        match lit {
            Lit::Atom { rel: None, .. } => Ok(self.falsity),
            Lit::Atom { rel: Some(rel), args } => {
                let mut ground = Vec::with_capacity(args.len());
                for p in args.iter() {
                    match b.lookup(&self.model.pool, p) {
                        Lookup::Found(t) => ground.push(t),
                        Lookup::Absent => return Ok(self.falsity),
                        Lookup::Unbound => return Err(unbound()),
                    }
                }
                match self.relations[*rel as usize].find(&ground) {
                    Some(idx) => self.atom_node(AtomRef { rel: *rel, idx }),
                    None => Ok(self.falsity),
                }
            }
            Lit::Not(inner) => {
                let n = self.lit_node(inner, b, rule)?;
                let net = &mut self.net;
                Ok(*self.negation.entry(n).or_insert_with(|| net.add(Kind::Not, vec![n], None)))
            }
            Lit::Distinct(s, t) => {
                let s = b.instantiate(&mut self.model.pool, s).ok_or_else(unbound)?;
                let t = b.instantiate(&mut self.model.pool, t).ok_or_else(unbound)?;
                Ok(if s != t { self.truth } else { self.falsity })
            }
            Lit::Or(branches) => {
                let mut disjuncts = Vec::new();
                for branch in branches {
                    if branch.local.is_empty() {
                        disjuncts.push(self.lit_node(&branch.lit, b, rule)?);
                        continue;
                    }
                    for values in self.solutions(&[&branch.lit], &[], &branch.local, b)? {
                        let mark = b.mark();
                        self.bind(&branch.local, &values, b);
                        disjuncts.push(self.lit_node(&branch.lit, b, rule)?);
                        b.undo(mark);
                    }
                }
                Ok(self.net.add(Kind::Or, disjuncts, None))
            }
        }
    }

    /// Every binding of `target` under which all `binders` can hold in the relaxed model and the
    /// ready `filters` pass, without repeats, in the order found.
    fn solutions(
        &mut self,
        binders: &[&Lit],
        filters: &[Filter],
        target: &[u16],
        b: &mut Bindings,
    ) -> Result<Vec<Box<[TermId]>>, Error> {
        // Bindings of the atoms' variables are distinct by construction; only an `or` can find
        // one binding twice (through two branches, or through a branch's own variables).
        let dedup = binders.iter().any(|l| matches!(l, Lit::Or(_)));
        let mut found = Solutions { target, out: Vec::new(), seen: dedup.then(FxHashSet::default) };
        let mut done = vec![false; binders.len()];
        self.join(binders, filters, &mut done, b, &mut found)?;
        Ok(found.out)
    }

    fn join(
        &mut self,
        binders: &[&Lit],
        filters: &[Filter],
        done: &mut [bool],
        b: &mut Bindings,
        found: &mut Solutions,
    ) -> Result<(), Error> {
        for &(distinct, s, t) in filters {
            if let (Lookup::Found(s), Lookup::Found(t)) = (b.lookup(&self.model.pool, s), b.lookup(&self.model.pool, t))
            {
                if (s != t) != distinct {
                    return Ok(());
                }
            }
        }
        // Next: the atom with the fewest candidate tuples (most constrained first); an `or` once
        // no atom is left.
        let mut best: Option<(usize, RelId, Rc<Pattern>, usize)> = None;
        for i in (0..binders.len()).filter(|&i| !done[i]) {
            let Lit::Atom { rel, args } = binders[i] else { continue };
            let Some(rel) = rel else { return Ok(()) };
            let pattern = self.pattern(*rel, args, b)?;
            let found = self.relations[*rel as usize].candidates(&pattern, args, b, &self.model.pool);
            let count = found.map_or(0, |f| f.len());
            if count == 0 {
                return Ok(());
            }
            if best.as_ref().is_none_or(|b| count < b.3) {
                best = Some((i, *rel, pattern, count));
            }
        }
        let next = best.as_ref().map(|b| b.0).or_else(|| (0..binders.len()).find(|&i| !done[i]));
        let Some(i) = next else {
            return found.record(b, self.gate_cap());
        };
        done[i] = true;
        match (binders[i], best) {
            (Lit::Atom { args, .. }, Some((_, rel, pattern, _))) => {
                let relation = Rc::clone(&self.relations[rel as usize]);
                let lookup = relation.candidates(&pattern, args, b, &self.model.pool);
                let mut each = |builder: &mut Self, idx: u32| {
                    let mark = b.mark();
                    let tuple = relation.tuple(idx);
                    let result = if args.iter().zip(tuple).all(|(p, &t)| b.unify(&builder.model.pool, p, t)) {
                        builder.join(binders, filters, done, b, found)
                    } else {
                        Ok(())
                    };
                    b.undo(mark);
                    result
                };
                if let Some(tuples) = lookup {
                    tuples.iter().try_for_each(|idx| each(self, idx))?;
                }
            }
            (Lit::Atom { .. }, None) => {}
            // Negations and `distinct` never bind: `is_binder` keeps them out.
            (Lit::Not(_) | Lit::Distinct(..), _) => {}
            (or @ Lit::Or(branches), _) => {
                let vars: Vec<u16> = or.binds().into_iter().filter(|&v| b.get(v).is_none()).collect();
                let mut values: Vec<Box<[TermId]>> = Vec::new();
                let mut seen = FxHashSet::default();
                for branch in branches {
                    for v in self.solutions(&[&branch.lit], &[], &vars, b)? {
                        if seen.insert(v.clone()) {
                            values.push(v);
                        }
                    }
                }
                for v in values {
                    let mark = b.mark();
                    self.bind(&vars, &v, b);
                    self.join(binders, filters, done, b, found)?;
                    b.undo(mark);
                }
            }
        }
        done[i] = false;
        Ok(())
    }

    /// What an index can read of the literal `rel` with `args` under `b`, the index built if it
    /// is missing.
    fn pattern(&mut self, rel: RelId, args: &[Pat], b: &Bindings) -> Result<Rc<Pattern>, Error> {
        self.work += 1;
        if self.work >= 1 << 14 {
            self.work = 0;
            if self.limits.deadline.is_some_and(|d| Instant::now() > d) {
                return Err(Error::Timeout);
            }
        }
        let (mut mask, mut small) = (0u64, true);
        for p in args {
            p.for_each_var(&mut |v| match v {
                0..64 => mask |= u64::from(b.get(v).is_some()) << v,
                _ => small = false,
            });
        }
        let key = (args.as_ptr() as usize, mask);
        if let Some(p) = self.patterns.get(&key).filter(|_| small) {
            // A cached pattern's index was prepared when it was first made.
            return Ok(Rc::clone(p));
        }
        let pattern = Rc::new(Pattern::new(args, &|v| b.get(v).is_some()));
        let relation = &mut self.relations[rel as usize];
        if !relation.is_prepared(&pattern) {
            // Joins in progress keep reading their own handle: a relation is copied only if one
            // of them reads it while it gets a new index, which rarely happens.
            Rc::make_mut(relation).prepare(&pattern, &self.model.pool);
        }
        if small {
            self.patterns.insert(key, Rc::clone(&pattern));
        }
        Ok(pattern)
    }
}

/// Whether a body literal binds variables when it holds (a positive atom, or an `or` whose
/// every branch binds some variable).
fn is_binder(lit: &Lit) -> bool {
    match lit {
        Lit::Atom { .. } => true,
        Lit::Or(_) => !lit.binds().is_empty(),
        _ => false,
    }
}

/// The bindings a join has found.
struct Solutions<'t> {
    target: &'t [u16],
    out: Vec<Box<[TermId]>>,
    /// The bindings found so far, when the join can find one twice.
    seen: Option<FxHashSet<Box<[TermId]>>>,
}

impl Solutions<'_> {
    fn record(&mut self, b: &Bindings, max: usize) -> Result<(), Error> {
        let values: Option<Box<[TermId]>> = self.target.iter().map(|&v| b.get(v)).collect();
        let Some(values) = values else {
            return Err(Error::Unsupported("a rule binds a variable only under a negation".to_owned()));
        };
        if self.seen.as_mut().is_none_or(|seen| seen.insert(values.clone())) {
            self.out.push(values);
            if self.out.len() > max {
                return Err(Error::TooLarge(max));
            }
        }
        Ok(())
    }
}
