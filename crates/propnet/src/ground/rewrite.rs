//! Rule rewrites applied before grounding, each exact: decompositions that move existential
//! quantifiers inward so that grounding a rule does not multiply independent choices, inlining
//! of helpers fixed in every state so that the decompositions see through them, and restriction
//! of helpers to the constants their readers name.

use super::{Grounder, JoinRule, Literal, RelId};
use gdl::{Pat, Sym, TermId, TermPool};
use rustc_hash::{FxHashMap, FxHashSet};
use std::rc::Rc;
use structures::UnionFind;

/// A body element of a rule, for the decompositions.
#[derive(Debug, Clone)]
enum Item {
    Pos(Literal),
    Neg(Literal),
    Filter(bool, Pat, Pat),
}

impl Item {
    fn pats(&self) -> Vec<&Pat> {
        match self {
            Item::Pos(l) | Item::Neg(l) => l.args.iter().collect(),
            Item::Filter(_, s, t) => vec![s, t],
        }
    }

    fn vars(&self) -> Vec<u16> {
        vars_of(self.pats()).into_iter().collect()
    }

    fn positive(&self) -> Option<&Literal> {
        match self {
            Item::Pos(l) => Some(l),
            _ => None,
        }
    }
}

/// The variables occurring in some patterns.
pub(super) fn vars_of<'a>(pats: impl IntoIterator<Item = &'a Pat>) -> FxHashSet<u16> {
    let mut vars = FxHashSet::default();
    for p in pats {
        p.for_each_var(&mut |v| {
            vars.insert(v);
        });
    }
    vars
}

impl JoinRule {
    fn items(&self) -> Vec<Item> {
        let pos = self.pos.iter().cloned().map(Item::Pos);
        let neg = self.neg.iter().cloned().map(Item::Neg);
        let filters = self.filters.iter().map(|(d, s, t)| Item::Filter(*d, s.clone(), t.clone()));
        pos.chain(neg).chain(filters).collect()
    }

    fn from_items(head_rel: RelId, head: Box<[Pat]>, items: Vec<Item>, vars: usize) -> JoinRule {
        let mut rule =
            JoinRule { head_rel, head, pos: Vec::new(), neg: Vec::new(), filters: Vec::new(), vars, emit: true };
        for item in items {
            match item {
                Item::Pos(l) => rule.pos.push(l),
                Item::Neg(l) => rule.neg.push(l),
                Item::Filter(d, s, t) => rule.filters.push((d, s, t)),
            }
        }
        rule
    }

    fn with_emit(mut self, emit: bool) -> JoinRule {
        self.emit = emit;
        self
    }
}

impl Grounder {
    /// Rewrites rules so that grounding them does not multiply independent choices.
    ///
    /// Three exact decompositions, applied until nothing changes: a body whose literals fall into
    /// groups that share only head variables is split, each group with variables of its own
    /// becoming an auxiliary relation over the head variables it uses; a positive literal with
    /// variables found nowhere else in its rule is replaced by an auxiliary relation over its
    /// other variables; and a variable of the body that is not linked to all the others is
    /// eliminated, the literals that mention it becoming an auxiliary relation (bucket
    /// elimination). All only move existential quantifiers inward, so the meaning is unchanged,
    /// but e.g. a frame rule joining every move with every cell becomes one rule per cell over a
    /// small relation of "cells the move leaves alone". An auxiliary keeps the demand of the
    /// rule it came from (see [`Grounder::guarded`]); one whose negation reads variables only the
    /// rest of the rule binds gets them from a guard, the rest's positive literals projected onto
    /// them, left out of the ground rules like a demand: chess's legal moves test the king's
    /// square once per move rather than once per piece that can make it.
    pub(super) fn decompose(&mut self) {
        let mut work: Vec<usize> = (0..self.rules.len()).collect();
        while let Some(r) = work.pop() {
            let before = self.rules.len();
            let rewrite = self.split_components(r).or_else(|| self.project_local(r)).or_else(|| self.eliminate(r));
            if let Some(new_rules) = rewrite {
                work.push(r);
                for rule in new_rules {
                    work.push(self.rules.len());
                    self.rules.push(Rc::new(rule));
                }
                // The relations made (auxiliaries, guards, projections of a demand) get domains
                // for the eliminations of the rules that read them.
                for i in before..self.rules.len() {
                    let rule = Rc::clone(&self.rules[i]);
                    self.extend_domains(&rule);
                }
            }
        }
    }

    /// The literal reading the auxiliary relation over the variables `interface` (in order)
    /// defined by `items`, and its rule if it is new: a definition met before (its variables
    /// named otherwise) is the relation made then. Alex Chess tests "a piece between two squares" in sixteen rules alike
    /// two by two, each eliminating the piece's square into a table of 262,144 atoms.
    fn auxiliary(&mut self, interface: &[u16], items: Vec<Item>, vars: usize) -> (Literal, Option<JoinRule>) {
        let head: Box<[Pat]> = interface.iter().map(|&v| Pat::Var(v)).collect();
        let mut def = JoinRule::from_items(RelId::MAX, head.clone(), items, vars);
        let key = self.canonical(&def);
        if let Some(&rel) = self.auxiliaries.get(&key) {
            return (Literal { rel, args: head }, None);
        }
        let rel = self.fresh_rel(interface.len());
        self.auxiliaries.insert(key, rel);
        def.head_rel = rel;
        (Literal { rel, args: head }, Some(def))
    }

    /// `rule` with its variables numbered in order of first appearance (head, positive and
    /// negative literals, filters): two rules alike but for their variables' names are equal.
    fn canonical(&mut self, rule: &JoinRule) -> JoinRule {
        let mut map: Vec<Option<Pat>> = vec![None; rule.vars];
        let mut next = 0u16;
        let pats = rule.head.iter().chain(rule.pos.iter().chain(&rule.neg).flat_map(|l| l.args.iter()));
        for p in pats.chain(rule.filters.iter().flat_map(|(_, s, t)| [s, t])) {
            p.for_each_var(&mut |v| {
                if map[v as usize].is_none() {
                    map[v as usize] = Some(Pat::Var(next));
                    next += 1;
                }
            });
        }
        let pool = &mut self.pool;
        let mut lit =
            |l: &Literal| Literal { rel: l.rel, args: l.args.iter().map(|p| substitute(p, &map, pool)).collect() };
        let pos = rule.pos.iter().map(&mut lit).collect();
        let neg = rule.neg.iter().map(&mut lit).collect();
        let head = rule.head.iter().map(|p| substitute(p, &map, &mut self.pool)).collect();
        let filters = rule
            .filters
            .iter()
            .map(|(d, s, t)| (*d, substitute(s, &map, &mut self.pool), substitute(t, &map, &mut self.pool)))
            .collect();
        JoinRule { head_rel: rule.head_rel, head, pos, neg, filters, vars: next as usize, emit: rule.emit }
    }

    /// The items of an auxiliary relation over `interface` taken out of `rule`, with the
    /// demand that restricts `rule` (see [`Grounder::restrict_to_demand`]) projected onto the
    /// interface where it binds some of it. Without it the auxiliary would be computed for every
    /// binding its own items allow: chess's test of a square attacked once a given piece is
    /// captured, for every square, capture and ignored square of the board instead of the ones
    /// the legal moves ask about. The projection is a demand relation of its own, left out of
    /// the ground rules like the demand.
    fn guarded(&mut self, rule: &JoinRule, interface: &[u16], mut items: Vec<Item>) -> Vec<Item> {
        let Some(demand) = rule.pos.iter().find(|l| self.is_model_only(l.rel)).cloned() else { return items };
        if items.iter().any(|it| it.positive().is_some_and(|l| l.rel == demand.rel && l.args == demand.args)) {
            return items;
        }
        let keep: Vec<usize> = (0..demand.args.len())
            .filter(|&i| {
                let mut inside = true;
                let mut any = false;
                demand.args[i].for_each_var(&mut |v| {
                    any = true;
                    inside &= interface.contains(&v);
                });
                any && inside
            })
            .collect();
        if keep.is_empty() {
            return items;
        }
        let args: Box<[Pat]> = keep.iter().map(|&i| demand.args[i].clone()).collect();
        let key = (demand.rel, keep.clone());
        let rel = match self.projections.get(&key) {
            Some(&rel) => rel,
            None => {
                let rel = self.fresh_model_only_rel(keep.len());
                let vars = demand.args.len();
                let head: Box<[Pat]> = keep.iter().map(|&i| Pat::Var(i as u16)).collect();
                let body = (0..vars as u16).map(Pat::Var).collect();
                let source = Item::Pos(Literal { rel: demand.rel, args: body });
                self.rules.push(Rc::new(JoinRule::from_items(rel, head, vec![source], vars).with_emit(false)));
                self.projections.insert(key, rel);
                rel
            }
        };
        items.insert(0, Item::Pos(Literal { rel, args }));
        items
    }

    /// How many of `items` are not demand (a demand literal only restricts: a rule of one
    /// literal and its demand has nothing left to decompose).
    fn unguarded(&self, items: &[Item]) -> usize {
        items.iter().filter(|it| !it.positive().is_some_and(|l| self.is_model_only(l.rel))).count()
    }

    /// Splits rule `r` into groups of body items connected through non-head variables.
    fn split_components(&mut self, r: usize) -> Option<Vec<JoinRule>> {
        let rule = &self.rules[r];
        let items = rule.items();
        if self.unguarded(&items) < 2 {
            return None;
        }
        let head_vars = vars_of(rule.head.iter());
        // Union-find over items through shared non-head variables.
        let mut parent = UnionFind::new(items.len());
        let mut owner: FxHashMap<u16, usize> = FxHashMap::default();
        for (i, item) in items.iter().enumerate() {
            for v in item.vars() {
                if head_vars.contains(&v) {
                    continue;
                }
                match owner.get(&v) {
                    Some(&j) => {
                        parent.union(i as u32, j as u32);
                    }
                    None => {
                        owner.insert(v, i);
                    }
                }
            }
        }
        let mut groups: FxHashMap<u32, Vec<usize>> = FxHashMap::default();
        for i in 0..items.len() {
            let root = parent.find(i as u32);
            groups.entry(root).or_default().push(i);
        }
        // A demand literal reads head variables only, so it is a group of its own, and a group
        // beside it alone is the whole body.
        let guards = items.len() - self.unguarded(&items);
        if groups.len() < 2 + guards {
            return None;
        }
        let mut groups: Vec<Vec<usize>> = groups.into_values().collect();
        groups.sort();
        let mut keep: Vec<Item> = Vec::new();
        let mut new_rules = Vec::new();
        let mut aux_literals = Vec::new();
        for group in groups {
            let group_items: Vec<Item> = group.iter().map(|&i| items[i].clone()).collect();
            let own_vars = group_items.iter().flat_map(|it| it.vars()).any(|v| !head_vars.contains(&v));
            // A group is worth its own relation only if it has variables of its own, and it
            // can have one only if its positive literals bind every head variable it uses.
            let bound = vars_of(group_items.iter().filter_map(|it| it.positive()).flat_map(|l| l.args.iter()));
            let interface: Vec<u16> = {
                let mut v: Vec<u16> =
                    group_items.iter().flat_map(|it| it.vars()).filter(|v| head_vars.contains(v)).collect();
                v.sort_unstable();
                v.dedup();
                v
            };
            if !own_vars || !interface.iter().all(|v| bound.contains(v)) {
                keep.extend(group_items);
                continue;
            }
            let rule = Rc::clone(&self.rules[r]);
            let group_items = self.guarded(&rule, &interface, group_items);
            let (aux, def) = self.auxiliary(&interface, group_items, rule.vars);
            new_rules.extend(def);
            aux_literals.push(aux);
        }
        if aux_literals.is_empty() {
            return None;
        }
        keep.extend(aux_literals.into_iter().map(Item::Pos));
        let rule = &self.rules[r];
        self.rules[r] =
            Rc::new(JoinRule::from_items(rule.head_rel, rule.head.clone(), keep, rule.vars).with_emit(rule.emit));
        Some(new_rules)
    }

    /// Replaces the first positive literal of rule `r` that has variables of its own.
    fn project_local(&mut self, r: usize) -> Option<Vec<JoinRule>> {
        let rule = self.rules[r].clone();
        let items = rule.items();
        if self.unguarded(&items) < 2 {
            return None;
        }
        for (i, item) in items.iter().enumerate() {
            let Item::Pos(lit) = item else { continue };
            let elsewhere = vars_of(
                rule.head.iter().chain(items.iter().enumerate().filter(|(j, _)| *j != i).flat_map(|(_, it)| it.pats())),
            );
            let mine = vars_of(lit.args.iter());
            if mine.iter().all(|v| elsewhere.contains(v)) {
                continue;
            }
            let mut shared: Vec<u16> = mine.iter().copied().filter(|v| elsewhere.contains(v)).collect();
            shared.sort_unstable();
            let aux_items = self.guarded(&rule, &shared, vec![item.clone()]);
            let (aux, def) = self.auxiliary(&shared, aux_items, rule.vars);
            let mut items = items;
            items[i] = Item::Pos(aux);
            self.rules[r] =
                Rc::new(JoinRule::from_items(rule.head_rel, rule.head.clone(), items, rule.vars).with_emit(rule.emit));
            return Some(def.into_iter().collect());
        }
        None
    }

    /// Eliminates one variable of rule `r`'s body that is in neither the head nor every literal:
    /// the items that mention it become an auxiliary relation over the variables they share with
    /// the rest of the rule. Quarto's line test over four cells' pieces and a shared attribute
    /// grounds into tens of thousands of conjunctions of four pieces; eliminating each cell's
    /// piece leaves "cell (x, y) holds a piece with attribute a" and a line test over attributes.
    ///
    /// The variable chosen is the one whose auxiliary relation is estimated smallest: the
    /// product of its variables' domain sizes (see `domains`), ties going to the auxiliary
    /// whose items mention the fewest variables. Hex's "a group touches the placed cell"
    /// eliminates the cell (an auxiliary per role and neighbouring cell, 162 atoms) rather than
    /// the role (per group and cell, 6,561), though the role's items mention fewer variables.
    /// A variable linked to every other one gains nothing.
    fn eliminate(&mut self, r: usize) -> Option<Vec<JoinRule>> {
        let rule = self.rules[r].clone();
        let items = rule.items();
        // With two items a variable is in one (the projection's case) or in both (no gain).
        if self.unguarded(&items) < 3 {
            return None;
        }
        let head_vars = vars_of(rule.head.iter());
        let item_vars: Vec<FxHashSet<u16>> = items.iter().map(|it| vars_of(it.pats())).collect();
        let all: FxHashSet<u16> = item_vars.iter().flatten().copied().collect();
        let mut candidates: Vec<u16> = all.iter().copied().filter(|v| !head_vars.contains(v)).collect();
        candidates.sort_unstable();
        let positive_vars = |members: &mut dyn Iterator<Item = usize>| {
            vars_of(members.filter_map(|i| items[i].positive()).flat_map(|l| l.args.iter()))
        };
        let sizes: Option<Vec<f64>> = self
            .domains
            .as_ref()
            .and_then(|d| d.ranges(&rule, &self.pool))
            .map(|ranges| ranges.iter().map(|r| r.size()).collect());
        let product =
            |vars: &FxHashSet<u16>| sizes.as_ref().map_or(0.0, |s| vars.iter().map(|&v| s[v as usize]).product());
        let mut best: Option<Elimination> = None;
        for v in candidates {
            let members: Vec<usize> = (0..items.len()).filter(|&i| item_vars[i].contains(&v)).collect();
            let inner: FxHashSet<u16> = members.iter().flat_map(|&i| item_vars[i].iter().copied()).collect();
            if inner.len() == all.len() {
                continue;
            }
            let outside: FxHashSet<u16> = head_vars
                .iter()
                .copied()
                .chain((0..items.len()).filter(|i| !members.contains(i)).flat_map(|i| item_vars[i].iter().copied()))
                .collect();
            let interface: FxHashSet<u16> = inner.intersection(&outside).copied().collect();
            let cost = (product(&interface), inner.len());
            if best.as_ref().is_some_and(|b| b.cost <= cost) {
                continue;
            }
            // The auxiliary rule must be safe: its positive literals bind all its variables. A
            // negation or filter may read variables only the rest of the rule binds: then those
            // come from a guard, the rest's positive literals projected onto them.
            let bound = positive_vars(&mut members.iter().copied());
            let mut unbound: Vec<u16> = inner.iter().copied().filter(|v| !bound.contains(v)).collect();
            unbound.sort_unstable();
            let rest = positive_vars(&mut (0..items.len()).filter(|i| !members.contains(i)));
            if unbound.iter().all(|v| rest.contains(v)) {
                let mut interface: Vec<u16> = interface.into_iter().collect();
                interface.sort_unstable();
                best = Some(Elimination { cost, members, unbound, interface });
            }
        }
        let Elimination { members, unbound, interface, .. } = best?;
        let inner_items: Vec<Item> = members.iter().map(|&i| items[i].clone()).collect();
        let mut inner_items = self.guarded(&rule, &interface, inner_items);
        let mut new_rules = Vec::new();
        if !unbound.is_empty() {
            let guard = self.fresh_model_only_rel(unbound.len());
            let guard_args: Box<[Pat]> = unbound.iter().map(|&v| Pat::Var(v)).collect();
            let rest = (0..items.len()).filter(|i| !members.contains(i)).filter_map(|i| items[i].positive());
            let body = rest.cloned().map(Item::Pos).collect();
            new_rules.push(JoinRule::from_items(guard, guard_args.clone(), body, rule.vars).with_emit(false));
            inner_items.insert(0, Item::Pos(Literal { rel: guard, args: guard_args }));
        }
        let (aux, def) = self.auxiliary(&interface, inner_items, rule.vars);
        new_rules.extend(def);
        let mut keep: Vec<Item> =
            items.into_iter().enumerate().filter(|(i, _)| !members.contains(i)).map(|(_, it)| it).collect();
        keep.push(Item::Pos(aux));
        self.rules[r] =
            Rc::new(JoinRule::from_items(rule.head_rel, rule.head.clone(), keep, rule.vars).with_emit(rule.emit));
        Some(new_rules)
    }
}

/// A variable's elimination from a rule, as [`Grounder::eliminate`] weighs it.
struct Elimination {
    /// The auxiliary's estimated size, then the number of variables its items mention.
    cost: (f64, usize),
    /// The items that mention the variable.
    members: Vec<usize>,
    /// The variables of the auxiliary that a guard must bind.
    unbound: Vec<u16>,
    /// The auxiliary's variables, in order.
    interface: Vec<u16>,
}

/// The most literals a body may grow to by inlining.
const MAX_INLINED_BODY: usize = 48;

/// What a fluent pattern is an instance of: its functor and, for a function term, its arity
/// (`None` for a constant); `None` when the pattern is a variable and could be anything.
fn fluent_kind(p: &Pat, pool: &TermPool) -> Option<(Sym, Option<usize>)> {
    match p {
        Pat::Var(_) => None,
        Pat::Ground(t) => Some((pool.functor(*t), (!pool.is_constant(*t)).then(|| pool.args(*t).len()))),
        Pat::Func(f, args) => Some((*f, Some(args.len()))),
    }
}

/// Whether a fluent pattern covers every fluent of its kind: a constant, or a function term
/// over distinct variables.
fn covers_kind(p: &Pat, pool: &TermPool) -> bool {
    match p {
        Pat::Var(_) => false,
        Pat::Ground(t) => pool.is_constant(*t),
        Pat::Func(_, args) => {
            let vars = vars_of(args.iter());
            args.iter().all(|a| matches!(a, Pat::Var(_))) && vars.len() == args.len()
        }
    }
}

impl Grounder {
    /// Reads fluents that no move or rule ever changes from `init` instead of the state.
    ///
    /// A fluent kind (functor and arity) whose every `next` rule is the frame rule
    /// `(next F) <= (true F)` holds in every reachable state exactly where it holds initially,
    /// so each `(true F)` literal of another rule may read `init` instead. The state keeps the
    /// fluents (their frame rules are untouched), but the rules that read them become fixed in
    /// every state, and their negations exact: Mummy Maze's walls bound every move to the
    /// board, where the relaxation (which drops negation over the state) let a mummy's
    /// "direction towards the explorer" range over every pair of the step counter's 59 numbers.
    pub(super) fn read_unchanging_fluents_from_init(&mut self) {
        let (Some(&next), Some(&truth)) = (self.by_name.get(&Sym::NEXT), self.by_name.get(&Sym::TRUE)) else {
            return;
        };
        let init = self.rel(Sym::INIT, 1);
        // Per fluent kind: whether every `next` rule so far is a frame rule, and whether one
        // of them covers the whole kind.
        let mut kinds: FxHashMap<(Sym, Option<usize>), (bool, bool)> = FxHashMap::default();
        let is_frame = |rule: &JoinRule| {
            rule.neg.is_empty()
                && rule.filters.is_empty()
                && matches!(&rule.pos[..], [l] if l.rel == truth && l.args[..] == rule.head[..])
        };
        for rule in self.rules.iter().filter(|r| r.head_rel == next && r.emit) {
            let Some(kind) = fluent_kind(&rule.head[0], &self.pool) else { return };
            let frame = is_frame(rule);
            let entry = kinds.entry(kind).or_insert((true, false));
            entry.0 &= frame;
            entry.1 |= frame && covers_kind(&rule.head[0], &self.pool);
        }
        let mut fixed: FxHashMap<(Sym, Option<usize>), RelId> = FxHashMap::default();
        for (kind, _) in kinds.into_iter().filter(|(_, (all, whole))| *all && *whole) {
            let rel = self.fresh_rel(1);
            let pat = match kind {
                (f, None) => Pat::Ground(self.pool.constant(f)),
                (f, Some(n)) => Pat::function(f, (0..n as u16).map(Pat::Var).collect(), &mut self.pool),
            };
            let vars = kind.1.unwrap_or(0);
            let body = vec![Item::Pos(Literal { rel: init, args: Box::new([pat.clone()]) })];
            self.rules.push(Rc::new(JoinRule::from_items(rel, Box::new([pat]), body, vars)));
            fixed.insert(kind, rel);
        }
        if fixed.is_empty() {
            return;
        }
        for r in 0..self.rules.len() {
            let rule = &self.rules[r];
            if rule.head_rel == next && is_frame(rule) {
                continue;
            }
            let reads = |l: &Literal| {
                (l.rel == truth).then(|| fluent_kind(&l.args[0], &self.pool)).flatten().and_then(|k| fixed.get(&k))
            };
            if !rule.pos.iter().chain(&rule.neg).any(|l| reads(l).is_some()) {
                continue;
            }
            let mut rule = (**rule).clone();
            for l in rule.pos.iter_mut().chain(rule.neg.iter_mut()) {
                if let Some(&rel) = reads(l) {
                    l.rel = rel;
                }
            }
            self.rules[r] = Rc::new(rule);
        }
    }
}

impl Grounder {
    /// Inlines helper relations fixed in every state into the rules that read the state.
    ///
    /// A relation defined by a single rule whose body has variables of its own hides them from
    /// the decompositions: Quarto's `(set ?p1 ?p2 ?p3 ?p4)` (four pieces share an attribute) is
    /// a table of 27,000 tuples, and a line test joining four cells with it grounds into that
    /// many conjunctions. Once the body is inlined, [`Grounder::eliminate`] splits the test
    /// per cell. Only positive literals over relations that no rule chain links to the state
    /// are inlined, into rules that do depend on it; the helper keeps its own rule while any
    /// other rule reads it.
    pub(super) fn unfold(&mut self) {
        let dynamic = self.dynamic();
        let n = self.relations.len();
        let mut defs: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, rule) in self.rules.iter().enumerate() {
            defs[rule.head_rel as usize].push(i);
        }
        let inlinable: Vec<Option<Rc<JoinRule>>> = (0..n)
            .map(|rel| {
                let [def] = defs[rel][..] else { return None };
                let def = &self.rules[def];
                let head_vars = vars_of(def.head.iter());
                let distinct_vars =
                    def.head.iter().all(|p| matches!(p, Pat::Var(_))) && head_vars.len() == def.head.len();
                let existential = def.pos.iter().flat_map(|l| l.args.iter()).any(|p| {
                    let mut own = false;
                    p.for_each_var(&mut |v| own |= !head_vars.contains(&v));
                    own
                });
                let ok = !dynamic[rel]
                    && !self.relations[rel].name.is_keyword()
                    && def.emit
                    && distinct_vars
                    && existential
                    && !self.reaches(def, rel as RelId);
                ok.then(|| Rc::clone(def))
            })
            .collect();
        if inlinable.iter().all(Option::is_none) {
            return;
        }
        let mut changed = false;
        for r in 0..self.rules.len() {
            if !dynamic[self.rules[r].head_rel as usize] {
                continue;
            }
            // Inlined bodies may read other helpers: as long as the body stays of a size that
            // rules are written with.
            loop {
                let rule = Rc::clone(&self.rules[r]);
                if rule.pos.len() + rule.neg.len() > MAX_INLINED_BODY {
                    break;
                }
                let Some(i) = rule.pos.iter().position(|l| inlinable[l.rel as usize].is_some()) else { break };
                let def = inlinable[rule.pos[i].rel as usize].clone().expect("inlinable");
                self.rules[r] = Rc::new(self.inline(&rule, i, &def));
                changed = true;
            }
        }
        if changed {
            self.drop_unread(&inlinable);
        }
    }

    /// Rule `rule` with its positive literal `i` replaced by the body of `def`, whose head is a
    /// list of distinct variables; `def`'s other variables are renamed past `rule`'s.
    pub(super) fn inline(&mut self, rule: &JoinRule, i: usize, def: &JoinRule) -> JoinRule {
        let lit = &rule.pos[i];
        let mut map: Vec<Option<Pat>> = vec![None; def.vars];
        for (p, arg) in def.head.iter().zip(lit.args.iter()) {
            if let Pat::Var(v) = p {
                map[*v as usize] = Some(arg.clone());
            }
        }
        let mut vars = rule.vars;
        for slot in map.iter_mut().filter(|s| s.is_none()) {
            *slot = Some(Pat::Var(vars as u16));
            vars += 1;
        }
        let pool = &mut self.pool;
        let mut subst_lit =
            |l: &Literal| Literal { rel: l.rel, args: l.args.iter().map(|p| substitute(p, &map, pool)).collect() };
        let mut out = rule.clone();
        out.pos.remove(i);
        out.pos.extend(def.pos.iter().map(&mut subst_lit));
        out.neg.extend(def.neg.iter().map(&mut subst_lit));
        for (d, s, t) in &def.filters {
            let (s, t) = (substitute(s, &map, &mut self.pool), substitute(t, &map, &mut self.pool));
            out.filters.push((*d, s, t));
        }
        out.vars = vars;
        out
    }

    /// Whether relation `target` is read by `rule`'s body or, through other rules, by anything
    /// that body reads.
    pub(super) fn reaches(&self, rule: &JoinRule, target: RelId) -> bool {
        let mut seen: FxHashSet<RelId> = FxHashSet::default();
        let mut work: Vec<RelId> = rule.pos.iter().chain(&rule.neg).map(|l| l.rel).collect();
        while let Some(rel) = work.pop() {
            if rel == target {
                return true;
            }
            if seen.insert(rel) {
                for r in self.rules.iter().filter(|r| r.head_rel == rel) {
                    work.extend(r.pos.iter().chain(&r.neg).map(|l| l.rel));
                }
            }
        }
        false
    }

    /// Removes the rules of inlined helpers that no rule reads any more: their tables would be
    /// computed for nothing (Mummy Maze's `direction-from` pairs every two cells). A helper
    /// read only by another dropped helper goes too.
    fn drop_unread(&mut self, inlinable: &[Option<Rc<JoinRule>>]) {
        loop {
            let mut read = vec![false; self.relations.len()];
            for rule in &self.rules {
                for l in rule.pos.iter().chain(&rule.neg) {
                    read[l.rel as usize] = true;
                }
            }
            let before = self.rules.len();
            self.rules.retain(|rule| {
                let rel = rule.head_rel as usize;
                inlinable[rel].is_none() || read[rel]
            });
            if self.rules.len() == before {
                return;
            }
        }
    }

    /// Restricts helper relations to the constants every reader names.
    ///
    /// Where every literal over a relation, positive or negative, has a ground term at some
    /// argument positions, only tuples with those terms there are ever read, so the relation's
    /// rules get a filter on the tuples of those terms its readers name (a static relation of
    /// the grounder's own). Crisscross scores four named cells with a relation over any four
    /// cells; computing it for every quadruple of cells took seconds, for the six it reads,
    /// nothing. Readers inside the relation's own rules count too, so recursion stays whole.
    pub(super) fn restrict_to_constant_uses(&mut self) {
        let n = self.relations.len();
        // Per relation, the argument positions ground in every reader so far (None: no reader).
        let mut fixed: Vec<Option<Vec<bool>>> = vec![None; n];
        for rule in &self.rules {
            for l in rule.pos.iter().chain(&rule.neg) {
                let ground: Vec<bool> = l.args.iter().map(|p| matches!(p, Pat::Ground(_))).collect();
                let slot = &mut fixed[l.rel as usize];
                match slot {
                    None => *slot = Some(ground),
                    Some(f) => f.iter_mut().zip(&ground).for_each(|(a, &b)| *a &= b),
                }
            }
        }
        for (rel, positions) in fixed.into_iter().enumerate() {
            let Some(positions) = positions else { continue };
            if self.relations[rel].name.is_keyword() || !positions.contains(&true) {
                continue;
            }
            let keep: Vec<usize> = (0..positions.len()).filter(|&i| positions[i]).collect();
            let mut named: Vec<Box<[TermId]>> = Vec::new();
            for rule in &self.rules {
                for l in rule.pos.iter().chain(&rule.neg).filter(|l| l.rel as usize == rel) {
                    let key: Box<[TermId]> = keep
                        .iter()
                        .map(|&i| match l.args[i] {
                            Pat::Ground(t) => t,
                            _ => unreachable!("position {i} is ground in every reader"),
                        })
                        .collect();
                    named.push(key);
                }
            }
            named.sort_unstable();
            named.dedup();
            let filter = self.fresh_rel(keep.len());
            for key in &named {
                let args: Box<[Pat]> = key.iter().map(|&t| Pat::Ground(t)).collect();
                self.rules.push(Rc::new(JoinRule::from_items(filter, args, Vec::new(), 0)));
            }
            for r in 0..self.rules.len() {
                // Facts cost nothing to keep whole.
                if self.rules[r].head_rel as usize != rel || self.rules[r].pos.is_empty() {
                    continue;
                }
                let mut rule = (*self.rules[r]).clone();
                let args: Box<[Pat]> = keep.iter().map(|&i| rule.head[i].clone()).collect();
                rule.pos.push(Literal { rel: filter, args });
                self.rules[r] = Rc::new(rule);
            }
        }
    }
}

impl Grounder {
    /// Computes helpers that depend on the state only for the arguments their readers ask for.
    ///
    /// A relation whose every reader, taking its body in order, has bound the same argument
    /// positions before reading it (by constants or by earlier literals) gets a demand relation
    /// over those positions (the magic sets of deductive databases): each reader adds the
    /// bindings of the literals before the read, and under the demand of its own head where that
    /// is restricted too; the relation's rules then require the demand. A negated reader binds
    /// every position (the rules are safe) and adds the bindings of enough of its positive
    /// literals to bind them (see [`binders`]). Merrills counts stones with `(count_loop ?point
    /// ?whitesSoFar ?blacksSoFar ?whites ?blacks)` started at the first point with no stones:
    /// computed for every pair of running counts it passed 5M atoms, computed from the start
    /// only it is small; chess asks whether the king is attacked once a move is made, negated,
    /// for each move and king's square, not for every square, capture and vacated square of the
    /// board. Demand holds wherever a reader's literals do, so the relation is exact where it is
    /// read, and a negated atom left out is never asked about; the demand relations stay out of
    /// the ground rules, and the net computes what it did. Relations fixed in every state keep
    /// their exact tables.
    pub(super) fn restrict_to_demand(&mut self) {
        let n = self.relations.len();
        let dynamic = self.dynamic();
        // Per relation, the positions bound at every positive reader (None: no reader yet).
        let mut bound_at: Vec<Option<Vec<bool>>> = vec![None; n];
        for rule in &self.rules {
            let mut bound: FxHashSet<u16> = FxHashSet::default();
            for l in &rule.pos {
                let at: Vec<bool> = l
                    .args
                    .iter()
                    .map(|p| {
                        let mut all = true;
                        p.for_each_var(&mut |v| all &= bound.contains(&v));
                        all
                    })
                    .collect();
                match &mut bound_at[l.rel as usize] {
                    slot @ None => *slot = Some(at),
                    Some(b) => b.iter_mut().zip(&at).for_each(|(x, &y)| *x &= y),
                }
                l.args.iter().for_each(|p| p.for_each_var(&mut |v| _ = bound.insert(v)));
            }
            // A negative literal is read once every positive one has bound its variables.
            for l in &rule.neg {
                if bound_at[l.rel as usize].is_none() {
                    bound_at[l.rel as usize] = Some(vec![true; l.args.len()]);
                }
            }
        }
        let mut demand: Vec<Option<(RelId, Vec<usize>)>> = vec![None; n];
        for rel in 0..n {
            let Some(at) = &bound_at[rel] else { continue };
            let positions: Vec<usize> = (0..at.len()).filter(|&i| at[i]).collect();
            if positions.is_empty() || !dynamic[rel] || self.relations[rel].name.is_keyword() {
                continue;
            }
            demand[rel] = Some((self.fresh_model_only_rel(positions.len()), positions));
        }
        if demand.iter().all(Option::is_none) {
            return;
        }
        let demand_of = |pats: &[Pat], rel: RelId| {
            demand[rel as usize]
                .as_ref()
                .map(|(m, at)| Literal { rel: *m, args: at.iter().map(|&i| pats[i].clone()).collect() })
        };
        let mut added = Vec::new();
        for rule in &self.rules {
            let head_demand = demand_of(&rule.head, rule.head_rel);
            for (i, l) in rule.pos.iter().enumerate() {
                let Some(wanted) = demand_of(&l.args, l.rel) else { continue };
                let body = head_demand.iter().chain(&rule.pos[..i]).cloned().map(Item::Pos).collect();
                added.push(JoinRule::from_items(wanted.rel, wanted.args, body, rule.vars).with_emit(false));
            }
            for l in &rule.neg {
                let Some(wanted) = demand_of(&l.args, l.rel) else { continue };
                let body = head_demand.iter().cloned().chain(binders(&rule.pos, &wanted.args)).map(Item::Pos).collect();
                added.push(JoinRule::from_items(wanted.rel, wanted.args, body, rule.vars).with_emit(false));
            }
        }
        for r in 0..self.rules.len() {
            if let Some(wanted) = demand_of(&self.rules[r].head, self.rules[r].head_rel) {
                Rc::make_mut(&mut self.rules[r]).pos.insert(0, wanted);
            }
        }
        self.rules.extend(added.into_iter().map(Rc::new));
    }
}

/// Enough of the positive literals `pos` to bind the variables of `args`: those over these
/// variables only, then for each variable still unbound the first literal that binds it. What is
/// left out only restricts the bindings, so the literals kept allow a superset of them: a demand
/// read by a negation (see [`Grounder::restrict_to_demand`]) is still exact where it is read, and
/// is not joined with literals whose own variables it does not keep. Cylinder Checkers leaves a
/// cell alone unless a jump captures it, reading the capture negated with the cell, which two
/// `different_cells` literals tie to the jump's squares: the jump alone says what is asked about.
fn binders(pos: &[Literal], args: &[Pat]) -> Vec<Literal> {
    let wanted = vars_of(args.iter());
    let mut kept: Vec<bool> = pos.iter().map(|l| vars_of(l.args.iter()).is_subset(&wanted)).collect();
    let mut bound: FxHashSet<u16> =
        pos.iter().zip(&kept).filter(|(_, &k)| k).flat_map(|(l, _)| vars_of(l.args.iter())).collect();
    let mut wanted: Vec<u16> = wanted.into_iter().collect();
    wanted.sort_unstable();
    for v in wanted {
        if bound.contains(&v) {
            continue;
        }
        if let Some(i) = pos.iter().position(|l| vars_of(l.args.iter()).contains(&v)) {
            kept[i] = true;
            bound.extend(vars_of(pos[i].args.iter()));
        }
    }
    pos.iter().zip(&kept).filter(|(_, &k)| k).map(|(l, _)| l.clone()).collect()
}

/// `pat` with every variable `v` replaced by `map[v]`, ground parts interned.
fn substitute(pat: &Pat, map: &[Option<Pat>], pool: &mut TermPool) -> Pat {
    match pat {
        Pat::Var(v) => map[*v as usize].clone().expect("every variable is mapped"),
        Pat::Ground(t) => Pat::Ground(*t),
        Pat::Func(f, args) => Pat::function(*f, args.iter().map(|a| substitute(a, map, pool)).collect(), pool),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{ground, Limits};
    use gdl::Sym;

    /// Three cells that each hold one of eight pieces (three bits each); a line is three pieces
    /// sharing a bit value, through a helper relation fixed in every state.
    const LINE: &str = "
        (role p)
        (piece a000) (piece a001) (piece a010) (piece a011)
        (piece a100) (piece a101) (piece a110) (piece a111)
        (bitIs 1 a001 1) (bitIs 1 a011 1) (bitIs 1 a101 1) (bitIs 1 a111 1)
        (bitIs 1 a000 0) (bitIs 1 a010 0) (bitIs 1 a100 0) (bitIs 1 a110 0)
        (bitIs 2 a010 1) (bitIs 2 a011 1) (bitIs 2 a110 1) (bitIs 2 a111 1)
        (bitIs 2 a000 0) (bitIs 2 a001 0) (bitIs 2 a100 0) (bitIs 2 a101 0)
        (bitIs 3 a100 1) (bitIs 3 a101 1) (bitIs 3 a110 1) (bitIs 3 a111 1)
        (bitIs 3 a000 0) (bitIs 3 a001 0) (bitIs 3 a010 0) (bitIs 3 a011 0)
        (cellIndex 1) (cellIndex 2) (cellIndex 3)
        (<= (same ?p1 ?p2 ?p3) (bitIs ?n ?p1 ?b) (bitIs ?n ?p2 ?b) (bitIs ?n ?p3 ?b))
        (<= line (true (cell 1 ?p1)) (true (cell 2 ?p2)) (true (cell 3 ?p3)) (same ?p1 ?p2 ?p3))
        (<= (legal p (put ?c ?x)) (cellIndex ?c) (piece ?x) (not (true (full ?c))))
        (<= (next (cell ?c ?x)) (does p (put ?c ?x)))
        (<= (next (full ?c)) (does p (put ?c ?x)))
        (<= (next (cell ?c ?x)) (true (cell ?c ?x)))
        (<= (next (full ?c)) (true (full ?c)))
        (<= terminal line)
        (<= (goal p 100) line)
        (<= (goal p 0) (not line))";

    #[test]
    fn a_shared_attribute_is_tested_per_cell_not_per_combination() {
        let desc = gdl::parse("line", LINE).expect("parses");
        let g = ground(&desc, &Limits::default()).expect("grounds");
        let line = g.relation(Sym::new("line")).expect("line");
        // With `same` inlined and the first cells' pieces eliminated, `line` joins the last
        // cell's piece with "cells 1 and 2 agree on bit n": one conjunction per piece and bit,
        // instead of one per piece triple that shares a bit value (296 of the 512).
        let line_rules = g.rules.iter().filter(|r| r.head.rel == line).count();
        assert!(line_rules <= 24, "{line_rules} ground rules for line");
        assert!(g.rules.len() < 250, "{} ground rules in all", g.rules.len());
        // Nothing reads the helper any more: its table is not computed, but for readers of the
        // rules as written it is.
        let same = g.relation(Sym::new("same")).expect("same is a relation");
        assert_eq!(g.relations[same as usize].count, 0);
        let model = super::super::relaxed_model(&desc, &Limits::default()).expect("model");
        assert_eq!(model.relations[model.relation(Sym::new("same")).expect("same") as usize].count, 296);
    }

    #[test]
    fn auxiliaries_alike_but_for_their_variables_are_one_relation() {
        // The atoms of the grounder's own relations.
        let aux_atoms = |rules: &str| {
            let desc = gdl::parse("line", rules).expect("parses");
            let g = ground(&desc, &Limits::default()).expect("grounds");
            let own = g.relations.iter().filter(|r| r.name.as_str().starts_with("aux:"));
            own.map(|r| r.count).sum::<u32>()
        };
        // A second test of the same line, its variables named otherwise, decomposes into the
        // same auxiliaries as the first.
        let twice = LINE.replace(
            "(<= terminal line)",
            "(<= line2 (true (cell 1 ?a)) (true (cell 2 ?b)) (true (cell 3 ?c)) (same ?a ?b ?c))
            (<= terminal line) (<= terminal line2)",
        );
        assert!(aux_atoms(LINE) > 0);
        assert_eq!(aux_atoms(&twice), aux_atoms(LINE));
    }

    /// Hex's groups on a board of `size` by `size` cells: a stone joins the groups it touches,
    /// each named by the step it was started at.
    fn hex_groups(size: usize) -> String {
        let index: String = (1..=size).map(|i| format!("(index {i})")).collect();
        let succ: String = (1..=size * size).map(|i| format!("(succ {i} {})", i + 1)).collect();
        let mut adjacent = String::new();
        for (x, y) in (1..=size).flat_map(|x| (1..=size).map(move |y| (x, y))) {
            for (dx, dy) in [(0, 1), (1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1)] {
                let (m, n) = (x as i64 + dx, y as i64 + dy);
                if (1..=size as i64).contains(&m) && (1..=size as i64).contains(&n) {
                    adjacent += &format!("(adjacent {x} {y} {m} {n})");
                }
            }
        }
        format!(
            "(role red) (role blue) {index} {succ} {adjacent}
            (init (step 1)) (init (control red))
            (<= (legal ?r (place ?m ?n)) (true (control ?r)) (index ?m) (index ?n)
                (not (true (cell ?m ?n red))) (not (true (cell ?m ?n blue))))
            (<= (legal red noop) (true (control blue)))
            (<= (legal blue noop) (true (control red)))
            (<= (next (cell ?m ?n ?r)) (does ?r (place ?m ?n)))
            (<= (next (cell ?m ?n ?r)) (true (cell ?m ?n ?r)))
            (<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
            (<= (next (control red)) (true (control blue)))
            (<= (next (control blue)) (true (control red)))
            (<= (next (owner ?k ?r)) (true (step ?k)) (true (control ?r)))
            (<= (next (owner ?k ?r)) (true (owner ?k ?r)))
            (<= (next (connected ?k ?m ?n)) (does ?r (place ?m ?n)) (true (step ?k)))
            (<= (next (connected ?k ?m ?n)) (transfer ?e) (true (connected ?e ?m ?n)) (true (step ?k)))
            (<= (next (connected ?k ?m ?n)) (true (connected ?k ?m ?n)) (not (transfer ?k)))
            (<= (transfer ?k) (does ?r (place ?x ?y)) (true (owner ?k ?r)) (true (connected ?k ?m ?n))
                (adjacent ?x ?y ?m ?n))
            (<= terminal (true (step {})))
            (goal red 50) (goal blue 50)",
            size * size + 1
        )
    }

    #[test]
    fn the_variable_eliminated_makes_the_smallest_auxiliary() {
        let desc = gdl::parse("hex", &hex_groups(5)).expect("parses");
        let g = ground(&desc, &Limits::default()).expect("grounds");
        let transfer = g.relation(Sym::new("transfer")).expect("transfer");
        // Eliminating the placed cell leaves "the role placed next to (m, n)" (50 atoms) and one
        // conjunction per group, role and cell; eliminating the role first would leave "the
        // group's owner placed at (x, y)" (26 groups by 25 cells) and a conjunction per group,
        // placed cell and neighbour.
        let aux: u32 = g.relations.iter().filter(|r| r.name.as_str().starts_with("aux:")).map(|r| r.count).sum();
        let transfer_rules = g.rules.iter().filter(|r| r.head.rel == transfer).count();
        assert!(aux < 200, "{aux} atoms of auxiliary relations");
        assert!(transfer_rules <= 26 * 2 * 25, "{transfer_rules} ground rules for transfer");
    }

    /// A walker on a line of ten cells, stopped by walls: `WALL_FRAME` is how walls persist.
    fn walker(wall_frame: &str) -> String {
        format!(
            "(role p)
            (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)
            (succ 5 6) (succ 6 7) (succ 7 8) (succ 8 9)
            (init (at 1)) (init (wall 3))
            (legal p right) (legal p clear)
            (<= (next (at ?y)) (does p right) (true (at ?x)) (succ ?x ?y) (not (true (wall ?y))))
            (<= (next (at ?x)) (does p right) (true (at ?x)) (succ ?x ?y) (true (wall ?y)))
            (<= (next (at ?x)) (does p clear) (true (at ?x)))
            {wall_frame}
            (<= terminal (true (at 9)))
            (<= (goal p 100) (true (at 9)))
            (<= (goal p 0) (not (true (at 9))))"
        )
    }

    /// The cells the walker can be found at in the grounded game.
    fn walker_cells(rules: &str) -> Vec<String> {
        let desc = gdl::parse("walker", rules).expect("parses");
        let g = ground(&desc, &Limits::default()).expect("grounds");
        let truth = &g.relations[g.relation(Sym::TRUE).expect("true") as usize];
        let mut cells: Vec<String> =
            (0..truth.count).map(|i| truth.atom_text(i, &g.pool)).filter(|a| a.starts_with("(true (at")).collect();
        cells.sort();
        cells
    }

    #[test]
    fn fluents_only_the_frame_keeps_are_read_from_init() {
        // Walls never change, so the wall at 3 stops the walker at 2 in every state, though the
        // relaxation drops the negation over the state.
        let cells = walker_cells(&walker("(<= (next (wall ?x)) (true (wall ?x)))"));
        assert_eq!(cells, ["(true (at 1))", "(true (at 2))"]);
    }

    #[test]
    fn fluents_a_move_can_change_are_read_from_the_state() {
        // Clearing removes the walls, after which the walker reaches every cell.
        let frame = "(<= (next (wall ?x)) (true (wall ?x)) (not (does p clear)))";
        assert_eq!(walker_cells(&walker(frame)).len(), 9);
        // A second rule for walls, even one that only ever adds the same wall, disqualifies too.
        let frame = "(<= (next (wall ?x)) (true (wall ?x))) (<= (next (wall 3)) (does p clear))";
        assert_eq!(walker_cells(&walker(frame)).len(), 9);
        // So does a frame rule that keeps only some walls.
        assert_eq!(walker_cells(&walker("(<= (next (wall 4)) (true (wall 4)))")).len(), 9);
    }

    /// A row of three cells, each x or o, whose x's are counted by a loop that carries the
    /// running and the final count; numbers run to 20. `READ` is how the count is read.
    fn counter(read: &str) -> String {
        let succ: String = (0..20).map(|i| format!("(succ {i} {})", i + 1)).collect();
        format!(
            "(role p) {succ} (number 20) (<= (number ?n) (succ ?n ?m))
            (nextCell a b) (nextCell b c)
            (init (cell a x)) (init (cell b o)) (init (cell c x))
            (<= (legal p (flip ?c)) (true (cell ?c ?v)))
            (<= (next (cell ?c o)) (does p (flip ?c)) (true (cell ?c x)))
            (<= (next (cell ?c x)) (does p (flip ?c)) (true (cell ?c o)))
            (<= (next (cell ?c ?v)) (true (cell ?c ?v)) (does p (flip ?d)) (distinct ?c ?d))
            (<= (countOne ?c ?n ?m) (true (cell ?c x)) (succ ?n ?m))
            (<= (countOne ?c ?n ?n) (true (cell ?c o)) (number ?n))
            (<= (countLoop c ?n ?total) (countOne c ?n ?total))
            (<= (countLoop ?c ?n ?total) (countOne ?c ?n ?m) (nextCell ?c ?d) (countLoop ?d ?m ?total))
            {read}
            (<= terminal (xs 3))
            (<= (goal p 100) (xs 3))
            (<= (goal p 0) (not (xs 3)))"
        )
    }

    /// How many tuples `name` has in the grounded game.
    fn table_size(rules: &str, name: &str) -> u32 {
        let desc = gdl::parse("counter", rules).expect("parses");
        let g = ground(&desc, &Limits::default()).expect("grounds");
        g.relations[g.relation(Sym::new(name)).expect("relation") as usize].count
    }

    #[test]
    fn helpers_of_the_state_are_computed_for_the_bindings_asked_for() {
        let read = "(<= (xs ?total) (countLoop a 0 ?total))";
        // From 0 at the first cell, the running count is 0; 0 or 1; 0, 1 or 2 at the three
        // cells, each with a final count up to as many cells on (4 + 2 * 3 + 3 * 2 tuples), not
        // 21 running counts per cell.
        assert_eq!(table_size(&counter(read), "countLoop"), 16);
        // The relaxed model, for callers instantiating the rules as written, is restricted alike.
        let relaxed =
            super::super::relaxed_model(&gdl::parse("counter", &counter(read)).expect("parses"), &Limits::default())
                .expect("model");
        let loop_rel = relaxed.relation(Sym::new("countLoop")).expect("relation");
        assert_eq!(relaxed.relations[loop_rel as usize].count, 16);
    }

    #[test]
    fn helpers_read_under_negation_are_restricted_alike_and_unbound_reads_computed_whole() {
        // Negated: asked about once the positive literals have bound every argument, so for
        // the same first cell and running count (the recursion binds only those).
        let read = "(<= (xs ?total) (number ?total) (not (countLoop a 0 ?total)))";
        assert_eq!(table_size(&counter(read), "countLoop"), 16);
        // Read somewhere with nothing bound.
        let read = "(<= (xs ?total) (countLoop a 0 ?total)) (<= (any ?c) (countLoop ?c ?n ?t))
            (<= (legal p wait) (any a))";
        assert!(table_size(&counter(read), "countLoop") > 60);
    }

    /// A line of `n` cells with stones that drift along it, a walker, and a helper asking whether
    /// a cell is next to a stone other than one on the `?ignore` cell and holds no wall: read
    /// negated, and only where the walker may step, with the cell it leaves as `?ignore`.
    fn drifting_stones(n: usize) -> String {
        let cells: String = (1..=n).map(|i| format!("(cell {i})")).collect();
        let steps: String = (1..n).map(|i| format!("(step {i} {}) (step {} {i})", i + 1, i + 1)).collect();
        format!(
            "(role p) {cells} {steps}
            (init (stone 1)) (init (at 2))
            (<= (apart ?a ?b) (cell ?a) (cell ?b) (distinct ?a ?b))
            (<= (near ?x ?ignore) (true (stone ?s)) (apart ?s ?ignore) (step ?s ?x)
                (true (wall ?w)) (apart ?w ?x))
            (init (wall 7))
            (<= (legal p (go ?x)) (true (at ?y)) (step ?y ?x) (not (near ?x ?y)))
            (<= (legal p wait) (true (at ?y)))
            (<= (next (at ?x)) (does p (go ?x)))
            (<= (next (at ?y)) (does p wait) (true (at ?y)))
            (<= (next (stone ?t)) (true (stone ?s)) (step ?s ?t))
            (<= terminal (true (at {n})))
            (<= (goal p 100) (true (at {n})))
            (<= (goal p 0) (not (true (at {n}))))"
        )
    }

    #[test]
    fn auxiliaries_split_off_a_negated_helper_keep_its_demand() {
        // `near` is asked about at the 2 * 29 (cell, cell left) pairs of a step; the stone's
        // cell and the wall's, existential and independent, are split off into auxiliaries, the
        // stone's over (cell, ignored cell), which computed for every pair the stones allow
        // would hold 30 * 29 tuples.
        let desc = gdl::parse("stones", &drifting_stones(30)).expect("parses");
        let g = ground(&desc, &Limits::default()).expect("grounds");
        let near = &g.relations[g.relation(Sym::new("near")).expect("relation") as usize];
        assert_eq!(near.count, 54, "58 pairs, less the two ends (next to the cell left only) and the wall's cell");
        let auxiliaries = g.relations.iter().filter(|r| r.name.as_str().starts_with("aux:") && r.arity == 2);
        assert!(auxiliaries.clone().count() > 0);
        for aux in auxiliaries {
            assert!(aux.count <= 58, "{} holds {} tuples", aux.name, aux.count);
        }
    }

    #[test]
    fn a_variable_read_under_negation_is_eliminated_under_a_guard() {
        // Every piece may move to every target unless the target is attacked where the king
        // stands: the king's cell, read by the negation, becomes an auxiliary over the target
        // (6 * 8 rules for `legal`, 8 * 8 for the auxiliary), not a rule per piece, target and
        // king's cell (384). `attacked` (64) and `next` (56) make up most of the rest.
        let pieces: String = (1..=6).map(|i| format!("(piece pc{i})")).collect();
        let cells: String = (1..=8).map(|i| format!("(cell {i})")).collect();
        let rules = format!(
            "(role p) {pieces} {cells}
            (init (king 1)) (init (enemy 3))
            (<= (attacked ?x ?k) (true (enemy ?x)) (cell ?k))
            (<= (legal p (move ?pc ?x)) (piece ?pc) (cell ?x) (true (king ?k)) (not (attacked ?x ?k)))
            (<= (next (king ?x)) (does p (move ?pc ?x)))
            (<= (next (enemy ?x)) (cell ?x) (true (king ?x)))
            (<= terminal (true (king 8)))
            (<= (goal p 100) (true (king 8)))
            (<= (goal p 0) (not (true (king 8))))"
        );
        let desc = gdl::parse("guard", &rules).expect("parses");
        let g = ground(&desc, &Limits::default()).expect("grounds");
        let legal = g.relation(Sym::LEGAL).expect("legal");
        let legal_rules = g.rules.iter().filter(|r| r.head.rel == legal).count();
        assert_eq!(legal_rules, 48);
        assert!(g.rules.len() < 300, "{} rules", g.rules.len());
    }

    #[test]
    fn recursive_helpers_are_not_inlined() {
        // `linked` has one rule with a variable of its own, but reads itself through `linkedOrEnd`.
        let rules = "
            (role p)
            (edge 1 2) (edge 2 3) (end 3)
            (<= (linked ?x) (edge ?x ?y) (linkedOrEnd ?y))
            (<= (linkedOrEnd ?y) (end ?y))
            (<= (linkedOrEnd ?y) (linked ?y))
            (<= (far ?x) (edge ?x ?y) (edge ?y ?z))
            (init (at 1))
            (<= (legal p (go ?y)) (true (at ?x)) (linked ?x) (edge ?x ?y))
            (<= (legal p (jump ?z)) (true (at ?x)) (far ?x) (edge ?x ?y) (edge ?y ?z))
            (<= (next (at ?y)) (does p (go ?y)))
            (<= (next (at ?y)) (does p (jump ?y)))
            (<= terminal (true (at 3)))
            (<= (goal p 100) (true (at 3)))
            (<= (goal p 0) (not (true (at 3))))";
        let desc = gdl::parse("linked", rules).expect("parses");
        let g = ground(&desc, &Limits::default()).expect("grounds");
        let count = |name: &str| g.relations[g.relation(Sym::new(name)).expect("relation") as usize].count;
        assert_eq!(count("linked"), 2, "the recursive helper keeps its table");
        assert_eq!(count("legal"), 3);
    }

    #[test]
    fn helpers_read_only_at_named_cells_are_computed_only_there() {
        // `together` pairs any two cells; the goal reads it at two named pairs only.
        let rules = "
            (role p)
            (cell a) (cell b) (cell c) (cell d) (cell e)
            (<= (together ?x ?y) (true (on ?x)) (true (on ?y)))
            (<= (legal p (light ?x)) (cell ?x) (not (true (on ?x))))
            (<= (next (on ?x)) (does p (light ?x)))
            (<= (next (on ?x)) (true (on ?x)))
            (<= terminal (together a b))
            (<= (goal p 100) (together a b) (together c d))
            (<= (goal p 0) (not (together a b)))";
        let desc = gdl::parse("together", rules).expect("parses");
        let g = ground(&desc, &Limits::default()).expect("grounds");
        let together = &g.relations[g.relation(Sym::new("together")).expect("relation") as usize];
        let mut tuples: Vec<String> = (0..together.count).map(|i| together.atom_text(i, &g.pool)).collect();
        tuples.sort();
        assert_eq!(tuples, ["(together a b)", "(together c d)"]);
        // As written, the demand of its readers (the negated one included) restricts it alike;
        // read once with nothing bound, it holds every pair of cells.
        let model = super::super::relaxed_model(&desc, &Limits::default()).expect("model");
        let demanded = &model.relations[model.relation(Sym::new("together")).expect("relation") as usize];
        assert_eq!(demanded.count, 2);
        let unbound = rules.replace("(<= terminal (together a b))", "(<= terminal (together ?x ?y))");
        let desc = gdl::parse("together", &unbound).expect("parses");
        let model = super::super::relaxed_model(&desc, &Limits::default()).expect("model");
        let whole = &model.relations[model.relation(Sym::new("together")).expect("relation") as usize];
        assert_eq!(whole.count, 25);
    }
}
