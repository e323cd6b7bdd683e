//! The relations of the model and their indexes: the tuples of each relation stored flat, and
//! indexes by what a join knows of a literal (whole bound arguments, or the functors and bound
//! parts of nested terms), which the grounder's joins and the goal formulas' instantiator both
//! look up.

use gdl::{Bindings, Lookup, Pat, Sym, TermId, TermPool};
use hashbrown::HashTable;

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

/// A set of tuples of one arity, numbered in insertion order and stored flat, so that a model
/// of millions of atoms holds no allocation per atom (dropping one took longer than computing
/// it): atoms' arguments, or an index's keys.
#[derive(Debug, Clone)]
pub(super) struct TupleSet<T: Cell = TermId> {
    arity: usize,
    flat: Vec<T>,
    /// Tuple numbers, each with its tuple's [`tuple_hash`]: growing the table rehashes from the
    /// entries alone, never reading the tuples (a random read each: on a set of millions, a
    /// growth took a tenth of a second, past the grounding's deadline checks), and a lookup
    /// compares tuples only where the hashes agree.
    ids: HashTable<(u32, u32)>,
}

/// What a [`TupleSet`] holds: term ids, or the values an index reads of a tuple.
pub(super) trait Cell: Copy + Eq {
    /// Feeds the value to a tuple's hash.
    fn feed(self, h: &mut rustc_hash::FxHasher);
}

impl Cell for TermId {
    fn feed(self, h: &mut rustc_hash::FxHasher) {
        std::hash::Hasher::write_u32(h, self.0);
    }
}

impl Cell for u64 {
    fn feed(self, h: &mut rustc_hash::FxHasher) {
        std::hash::Hasher::write_u64(h, self);
    }
}

/// The hash of a tuple in a [`TupleSet`]: the upper half of its Fx hash (whose low bits mix
/// less).
fn tuple_hash<T: Cell>(tuple: &[T]) -> u32 {
    let mut h = rustc_hash::FxHasher::default();
    tuple.iter().for_each(|&t| t.feed(&mut h));
    (std::hash::Hasher::finish(&h) >> 32) as u32
}

/// A [`tuple_hash`] spread over the 64 bits the table's buckets and tags are taken from.
fn spread(h: u32) -> u64 {
    u64::from(h).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Tuple `idx` of arity `a` in `flat`.
fn slot<T>(flat: &[T], a: usize, idx: u32) -> &[T] {
    &flat[idx as usize * a..(idx as usize + 1) * a]
}

impl<T: Cell> TupleSet<T> {
    pub(super) fn new(arity: usize) -> TupleSet<T> {
        TupleSet { arity, flat: Vec::new(), ids: HashTable::new() }
    }

    pub(super) fn len(&self) -> usize {
        self.ids.len()
    }

    pub(super) fn get(&self, idx: u32) -> &[T] {
        slot(&self.flat, self.arity, idx)
    }

    pub(super) fn find(&self, tuple: &[T]) -> Option<u32> {
        let h = tuple_hash(tuple);
        self.ids.find(spread(h), |&(i, hi)| hi == h && self.get(i) == tuple).map(|&(i, _)| i)
    }

    /// Adds `tuple` if absent; whether it was.
    pub(super) fn insert(&mut self, tuple: &[T]) -> bool {
        self.number(tuple).1
    }

    /// The number of `tuple`, added if absent, and whether it was.
    fn number(&mut self, tuple: &[T]) -> (u32, bool) {
        let h = tuple_hash(tuple);
        let (flat, a) = (&self.flat, self.arity);
        if let Some(&(idx, _)) = self.ids.find(spread(h), |&(i, hi)| hi == h && slot(flat, a, i) == tuple) {
            return (idx, false);
        }
        let idx = self.len() as u32;
        self.flat.extend_from_slice(tuple);
        self.ids.insert_unique(spread(h), (idx, h), |&(_, hi)| spread(hi));
        (idx, true)
    }

    pub(super) fn clear(&mut self) {
        self.flat.clear();
        self.ids.clear();
    }
}

/// An index of a relation's tuples by what `probes` read of them. Its keys are stored flat and
/// a key with one tuple holds it in place, so that an index over a million tuples is built
/// without an allocation per key and dropped at once (a grounding abandoned at its deadline
/// drops its indexes; with a map of boxed keys to vectors that took most of a second).
#[derive(Debug, Clone)]
pub(super) struct Index {
    /// [`spec_hash`] of `probes`, so that finding the index hashes nothing.
    hash: u64,
    probes: Box<[Probe]>,
    /// The keys, `probes.len()` values each, numbered as `buckets`.
    keys: TupleSet<u64>,
    buckets: Vec<Bucket>,
    /// A key while it is read off a tuple.
    scratch: Vec<u64>,
}

/// The tuples of one key: most keys of a selective index have one.
#[derive(Debug, Clone)]
enum Bucket {
    One(u32),
    Many(Vec<u32>),
}

impl Bucket {
    fn push(&mut self, idx: u32) {
        match self {
            Bucket::One(first) => *self = Bucket::Many(vec![*first, idx]),
            Bucket::Many(all) => all.push(idx),
        }
    }

    fn as_slice(&self) -> &[u32] {
        match self {
            Bucket::One(idx) => std::slice::from_ref(idx),
            Bucket::Many(all) => all,
        }
    }
}

impl Index {
    fn new(hash: u64, probes: Box<[Probe]>) -> Index {
        let keys = TupleSet::new(probes.len());
        Index { hash, probes, keys, buckets: Vec::new(), scratch: Vec::new() }
    }

    /// Files tuple `idx` under `key`.
    fn add(&mut self, key: &[u64], idx: u32) {
        match self.keys.number(key) {
            (_, true) => self.buckets.push(Bucket::One(idx)),
            (b, false) => self.buckets[b as usize].push(idx),
        }
    }

    /// The tuples filed under `key`.
    fn get(&self, key: &[u64]) -> &[u32] {
        self.keys.find(key).map_or(&[], |b| self.buckets[b as usize].as_slice())
    }

    /// Files tuple `idx` of arguments `args` under what the probes read of it, if they all
    /// find a term of their shape.
    fn file(&mut self, args: &[TermId], idx: u32, pool: &TermPool) {
        let mut key = std::mem::take(&mut self.scratch);
        key.clear();
        for p in self.probes.iter() {
            match p.value(args, pool) {
                Some(v) => key.push(v),
                None => break,
            }
        }
        if key.len() == self.probes.len() {
            self.add(&key, idx);
        }
        self.scratch = key;
    }
}

/// A hash of a list of probes, computed once per join step rather than per lookup.
pub(super) fn spec_hash(probes: &[Probe]) -> u64 {
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
pub(super) struct Probe {
    path: Box<[u8]>,
    exact: bool,
}

impl Probe {
    /// What the probe reads of `args`; `None` if the tuple has no term of that shape there (so
    /// no literal needing one can match it).
    pub(super) fn value(&self, args: &[TermId], pool: &TermPool) -> Option<u64> {
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
pub(super) fn functor_code(functor: Sym, arity: usize) -> u64 {
    1 << 63 | u64::from(functor.index()) << 16 | arity as u64
}

impl Relation {
    pub(super) fn new(name: Sym, arity: usize) -> Relation {
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

    pub(super) fn insert(&mut self, args: &[TermId], pool: &TermPool) -> bool {
        if !self.tuples.insert(args) {
            return false;
        }
        let idx = self.count;
        self.count += 1;
        for index in &mut self.indexes {
            index.file(args, idx, pool);
        }
        true
    }

    fn index(&self, pattern: &Pattern) -> Option<&Index> {
        self.indexes.iter().find(|i| i.hash == pattern.hash && *i.probes == *pattern.probes)
    }

    /// Whether the index `pattern` reads is built (a pattern reading nothing needs none).
    pub fn is_prepared(&self, pattern: &Pattern) -> bool {
        pattern.probes.is_empty() || self.index(pattern).is_some()
    }

    /// Builds the index `pattern` reads, if missing, for [`candidates`](Self::candidates).
    pub fn prepare(&mut self, pattern: &Pattern, pool: &TermPool) {
        if self.is_prepared(pattern) {
            return;
        }
        let mut index = Index::new(pattern.hash, pattern.probes.clone());
        for idx in 0..self.count {
            index.file(self.tuples.get(idx), idx, pool);
        }
        self.indexes.push(index);
    }

    /// The tuples a literal with arguments `args` can match under `b`, by the index of `pattern`
    /// (the literal's pattern under bindings that bind what `b` does); `None` if none can (a term
    /// the literal needs was never built). Without the index, every tuple is a candidate.
    pub fn candidates(&self, pattern: &Pattern, args: &[Pat], b: &Bindings, pool: &TermPool) -> Option<Candidates<'_>> {
        let Some(index) = self.index(pattern) else { return Some(Candidates::All(self.count)) };
        // Joins call this for every candidate lookup: a short key goes through the stack.
        let mut buf = [0u64; 8];
        let mut long = Vec::new();
        let n = pattern.probes.len();
        for (k, probe) in pattern.probes.iter().enumerate() {
            let value = probe_pattern(args, probe, b, pool)?;
            match buf.get_mut(k).filter(|_| n <= 8) {
                Some(slot) => *slot = value,
                None => long.push(value),
            }
        }
        let key: &[u64] = if n <= 8 { &buf[..n] } else { &long };
        Some(Candidates::Some(index.get(key)))
    }
}

/// What a join knows of a literal once some of its variables are bound: what an index can read
/// of it (every bound argument or nested term whole, the functor of every function term that is
/// not, down to [`PROBE_DEPTH`]), hashed once. The grounder plans one per join step; the goal
/// formulas' instantiator makes one per lookup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    probes: Box<[Probe]>,
    /// [`spec_hash`] of `probes`.
    hash: u64,
}

impl Pattern {
    /// The pattern of a literal with arguments `args` once the variables `bound` says are.
    pub fn new(args: &[Pat], bound: &dyn Fn(u16) -> bool) -> Pattern {
        let mut probes = Vec::new();
        walk_probes(args, bound, &mut |path, exact| probes.push(Probe { path: path.into(), exact }));
        let probes: Box<[Probe]> = probes.into();
        let hash = spec_hash(&probes);
        Pattern { probes, hash }
    }

    /// A pattern that reads nothing: every tuple is a candidate.
    pub fn none() -> Pattern {
        Pattern { probes: Box::new([]), hash: 0 }
    }

    /// Whether the pattern reads nothing.
    pub fn is_empty(&self) -> bool {
        self.probes.is_empty()
    }
}

/// The tuples a lookup found: every tuple of the relation, or an index's bucket.
#[derive(Debug, Clone, Copy)]
pub enum Candidates<'r> {
    /// Every tuple, numbered below this.
    All(u32),
    /// These tuples.
    Some(&'r [u32]),
}

impl Candidates<'_> {
    /// How many tuples there are.
    pub fn len(&self) -> usize {
        match self {
            Candidates::All(n) => *n as usize,
            Candidates::Some(s) => s.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The tuples' numbers.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        let (range, slice) = match self {
            Candidates::All(n) => (0..*n, &[][..]),
            Candidates::Some(s) => (0..0, *s),
        };
        range.chain(slice.iter().copied())
    }
}

/// How deep into nested terms a join's index reads.
pub(super) const PROBE_DEPTH: usize = 3;

/// How many probes [`Pattern::new`] finds, without building them (join planning asks for every
/// candidate literal).
pub(super) fn probe_count(args: &[Pat], bound: &dyn Fn(u16) -> bool) -> usize {
    let mut n = 0;
    walk_probes(args, bound, &mut |_, _| n += 1);
    n
}

/// Calls `found` with the path and exactness of every probe an index can read of a literal
/// with arguments `args` once the variables in `bound` are.
fn walk_probes(args: &[Pat], bound: &dyn Fn(u16) -> bool, found: &mut dyn FnMut(&[u8], bool)) {
    fn walk(p: &Pat, path: &mut Vec<u8>, bound: &dyn Fn(u16) -> bool, found: &mut dyn FnMut(&[u8], bool)) {
        let mut all = true;
        p.for_each_var(&mut |v| all &= bound(v));
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
