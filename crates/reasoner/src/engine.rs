//! The evaluator: top-down, goal-directed evaluation with tabling.
//!
//! Every call of a relation with some arguments bound (a *call pattern*) gets a table holding all
//! of its answers, computed once and reused. Tables of relations that depend on neither `true`
//! nor `does` live for the whole game, those that depend on `true` for one state, those that
//! depend on `does` for one joint move. Goal-directed calls keep huge relations such as sudoku's
//! ten-argument `exactlyOne` from ever being enumerated, and tabling makes recursion terminate:
//! a call that re-enters a table still being computed reads the answers found so far, and the
//! outermost table of the cycle (its *leader*) re-runs until no table of the cycle grows.
//! Negation only ever reads complete tables because the rules are stratified.

use crate::program::{CRule, CompiledRules, Lifetime, Op, RelId};
use gdl::{Bindings, Pat, Sym, TermId, TermPool};
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Status {
    /// All answers are known.
    Complete,
    /// Being computed at this stack depth.
    InProgress(u32),
    /// Computed in `pass` while depending on a table at stack depth `low` still in progress.
    Incomplete { low: u32, pass: u64 },
}

#[derive(Clone)]
struct Table {
    rel: RelId,
    /// The call pattern: the bound arguments, `TermId::NONE` where free.
    key: Box<[TermId]>,
    /// The answers, flattened (`arity` terms each).
    answers: Vec<TermId>,
    count: usize,
    seen: FxHashSet<Box<[TermId]>>,
    status: Status,
}

#[derive(Clone, Default)]
struct Store {
    index: FxHashMap<Box<[u32]>, u32>,
    tables: Vec<Table>,
}

impl Store {
    fn clear(&mut self) {
        self.index.clear();
        self.tables.clear();
    }
}

#[derive(Clone, Copy, Debug)]
struct TableRef {
    store: u8,
    idx: u32,
}

/// The answers of a query.
#[derive(Debug, Clone, Default)]
pub struct Answers {
    /// How many answers there are.
    pub count: usize,
    /// The answers' arguments, flattened: `arity` terms per answer.
    pub terms: Vec<TermId>,
}

/// The evaluator for one game.
pub struct Engine {
    prog: Arc<CompiledRules>,
    /// The ground terms seen so far.
    pub pool: TermPool,
    stores: [Store; 3],
    /// The current state, sorted by functor, with the range of each functor.
    state: Vec<TermId>,
    state_set: FxHashSet<TermId>,
    ranges: FxHashMap<Sym, (u32, u32)>,
    /// The current joint move as (role, move) pairs.
    moves: Vec<(TermId, TermId)>,
    depth: u32,
    low: u32,
    pass: u64,
    added: u64,
    members: Vec<TableRef>,
    key: Vec<u32>,
    frames: Vec<Bindings>,
}

impl Engine {
    /// An evaluator for a compiled program whose ground terms live in `pool`.
    pub fn new(prog: Arc<CompiledRules>, pool: TermPool) -> Engine {
        Engine {
            prog,
            pool,
            stores: Default::default(),
            state: Vec::new(),
            state_set: FxHashSet::default(),
            ranges: FxHashMap::default(),
            moves: Vec::new(),
            depth: 0,
            low: u32::MAX,
            pass: 0,
            added: 0,
            members: Vec::new(),
            key: Vec::new(),
            frames: Vec::new(),
        }
    }

    /// Makes `props` the current state (the true base propositions, repeats allowed); a no-op if
    /// it already is.
    pub fn set_state(&mut self, props: &[TermId]) {
        // Compared as sets: a list with repeats can have the old state's length while missing
        // some of its propositions.
        let props: FxHashSet<TermId> = props.iter().copied().collect();
        if props == self.state_set {
            return;
        }
        self.stores[Lifetime::State as usize].clear();
        self.stores[Lifetime::Move as usize].clear();
        self.moves.clear();
        self.state_set = props;
        self.state.clear();
        self.state.extend(self.state_set.iter().copied());
        let pool = &self.pool;
        self.state.sort_by_key(|&t| (pool.functor(t), t));
        self.ranges.clear();
        let mut start = 0;
        while start < self.state.len() {
            let f = pool.functor(self.state[start]);
            let end = start + self.state[start..].iter().take_while(|&&t| pool.functor(t) == f).count();
            self.ranges.insert(f, (start as u32, end as u32));
            start = end;
        }
    }

    /// Makes `moves` (role, move) the current joint move.
    pub fn set_moves(&mut self, moves: &[(TermId, TermId)]) {
        self.stores[Lifetime::Move as usize].clear();
        self.moves.clear();
        self.moves.extend_from_slice(moves);
    }

    /// All answers of relation `rel` with the arguments in `key` bound (`TermId::NONE` = free).
    /// None if the game never mentions `rel`.
    pub fn query(&mut self, rel: Sym, key: &[TermId]) -> Answers {
        let Some(id) = self.prog.relation(rel) else { return Answers::default() };
        let prog = self.prog.clone();
        let pats: Vec<Pat> = key
            .iter()
            .enumerate()
            .map(|(i, &t)| if t == TermId::NONE { Pat::Var(i as u16) } else { Pat::Ground(t) })
            .collect();
        let mut frame = Bindings::default();
        frame.reset(key.len());
        let t = self.call(&prog, id, &pats, &frame);
        let table = self.table(t);
        Answers { count: table.count, terms: table.answers.clone() }
    }

    fn table(&self, t: TableRef) -> &Table {
        &self.stores[t.store as usize].tables[t.idx as usize]
    }

    fn table_mut(&mut self, t: TableRef) -> &mut Table {
        &mut self.stores[t.store as usize].tables[t.idx as usize]
    }

    /// The table of a call, computing it if needed.
    fn call(&mut self, prog: &CompiledRules, rel: RelId, args: &[Pat], frame: &Bindings) -> TableRef {
        let store = prog.relations[rel as usize].lifetime as usize;
        self.key.clear();
        self.key.push(rel);
        for a in args {
            let t = frame.instantiate(&mut self.pool, a).unwrap_or(TermId::NONE);
            self.key.push(t.0);
        }
        if let Some(&idx) = self.stores[store].index.get(self.key.as_slice()) {
            let t = TableRef { store: store as u8, idx };
            match self.table(t).status {
                Status::Complete => return t,
                Status::InProgress(d) => {
                    self.low = self.low.min(d);
                    return t;
                }
                Status::Incomplete { low, pass } if pass == self.pass => {
                    self.low = self.low.min(low);
                    return t;
                }
                Status::Incomplete { .. } => {
                    self.evaluate(prog, t);
                    return t;
                }
            }
        }
        let s = &mut self.stores[store];
        let idx = s.tables.len() as u32;
        s.index.insert(self.key.as_slice().into(), idx);
        let key = self.key[1..].iter().map(|&k| TermId(k)).collect();
        s.tables.push(Table {
            rel,
            key,
            answers: Vec::new(),
            count: 0,
            seen: FxHashSet::default(),
            status: Status::InProgress(0),
        });
        let t = TableRef { store: store as u8, idx };
        self.evaluate(prog, t);
        t
    }

    /// Runs every rule of a table's relation, to a fixpoint if the table leads a recursive cycle.
    fn evaluate(&mut self, prog: &CompiledRules, t: TableRef) {
        self.depth += 1;
        let me = self.depth;
        let saved_low = std::mem::replace(&mut self.low, u32::MAX);
        let mark = self.members.len();
        let rel = self.table(t).rel;
        let key = self.table(t).key.clone();
        loop {
            self.table_mut(t).status = Status::InProgress(me);
            let before = self.added;
            for rule in &prog.relations[rel as usize].rules {
                self.run_rule(prog, rule, t, &key);
            }
            if self.low < me {
                // Part of a cycle led further down the stack: that leader will call again.
                let low = self.low;
                self.table_mut(t).status = Status::Incomplete { low, pass: self.pass };
                // The tables left incomplete below this one now wait for that leader too. Say
                // so in their status: the depth recorded when they were computed may be taken
                // by an unrelated table by the time one of them is read again in this pass, and
                // that table would then take itself for their leader and complete too early.
                for i in mark..self.members.len() {
                    let m = self.members[i];
                    if let Status::Incomplete { low: l, .. } = &mut self.table_mut(m).status {
                        *l = (*l).min(low);
                    }
                }
                self.members.push(t);
                break;
            }
            if self.low == me && self.added != before {
                self.pass += 1;
                self.low = u32::MAX;
                continue;
            }
            self.table_mut(t).status = Status::Complete;
            for m in self.members.split_off(mark) {
                self.table_mut(m).status = Status::Complete;
            }
            break;
        }
        self.depth -= 1;
        let low = if self.low < me { self.low } else { u32::MAX };
        self.low = saved_low.min(low);
    }

    fn run_rule(&mut self, prog: &CompiledRules, rule: &CRule, t: TableRef, key: &[TermId]) {
        let mut frame = self.frames.pop().unwrap_or_default();
        frame.reset(rule.vars as usize);
        let head_ok = rule.head.iter().zip(key).all(|(p, &k)| k == TermId::NONE || frame.unify(&self.pool, p, k));
        if head_ok {
            self.body(prog, rule, 0, &mut frame, t);
        }
        self.frames.push(frame);
    }

    fn body(&mut self, prog: &CompiledRules, rule: &CRule, i: usize, f: &mut Bindings, t: TableRef) {
        let Some(op) = rule.body.get(i) else {
            self.add_answer(rule, f, t);
            return;
        };
        let next = i + 1;
        match op {
            Op::Call(rel, args) => {
                let sub = self.call(prog, *rel, args, f);
                let arity = args.len();
                let mut k = 0;
                while k < self.table(sub).count {
                    let mark = f.mark();
                    let answer = &self.stores[sub.store as usize].tables[sub.idx as usize].answers[k * arity..];
                    if args.iter().zip(answer).all(|(p, &a)| f.unify(&self.pool, p, a)) {
                        self.body(prog, rule, next, f, t);
                    }
                    f.undo(mark);
                    k += 1;
                }
            }
            Op::NotCall(rel, args) => {
                let sub = self.call(prog, *rel, args, f);
                debug_assert_eq!(self.table(sub).status, Status::Complete, "stratified negation");
                if self.table(sub).count == 0 {
                    self.body(prog, rule, next, f, t);
                }
            }
            Op::True(p) => {
                if let Some(g) = f.instantiate(&mut self.pool, p) {
                    if self.state_set.contains(&g) {
                        self.body(prog, rule, next, f, t);
                    }
                    return;
                }
                let (lo, hi) = match p {
                    Pat::Func(name, _) => self.ranges.get(name).copied().unwrap_or((0, 0)),
                    _ => (0, self.state.len() as u32),
                };
                for j in lo..hi {
                    let mark = f.mark();
                    if f.unify(&self.pool, p, self.state[j as usize]) {
                        self.body(prog, rule, next, f, t);
                    }
                    f.undo(mark);
                }
            }
            Op::NotTrue(p) => {
                let g = f.instantiate(&mut self.pool, p);
                if !g.is_some_and(|g| self.state_set.contains(&g)) {
                    self.body(prog, rule, next, f, t);
                }
            }
            Op::Does(r, m) => {
                for j in 0..self.moves.len() {
                    let (role, mv) = self.moves[j];
                    let mark = f.mark();
                    if f.unify(&self.pool, r, role) && f.unify(&self.pool, m, mv) {
                        self.body(prog, rule, next, f, t);
                    }
                    f.undo(mark);
                }
            }
            Op::NotDoes(r, m) => {
                let r = f.instantiate(&mut self.pool, r);
                let m = f.instantiate(&mut self.pool, m);
                if !self.moves.iter().any(|&(role, mv)| Some(role) == r && Some(mv) == m) {
                    self.body(prog, rule, next, f, t);
                }
            }
            Op::Distinct(a, b) | Op::Same(a, b) => {
                let a = f.instantiate(&mut self.pool, a);
                let b = f.instantiate(&mut self.pool, b);
                if (a != b) == matches!(op, Op::Distinct(..)) {
                    self.body(prog, rule, next, f, t);
                }
            }
            Op::Fail => {}
        }
    }

    fn add_answer(&mut self, rule: &CRule, f: &Bindings, t: TableRef) {
        let mut answer = Vec::with_capacity(rule.head.len());
        for p in rule.head.iter() {
            match f.instantiate(&mut self.pool, p) {
                Some(g) => answer.push(g),
                // Unreachable for safe rules: every head variable is bound by the body.
                None => return,
            }
        }
        let table = self.table_mut(t);
        if table.seen.contains(answer.as_slice()) {
            return;
        }
        table.answers.extend_from_slice(&answer);
        table.count += 1;
        table.seen.insert(answer.into_boxed_slice());
        self.added += 1;
    }
}
