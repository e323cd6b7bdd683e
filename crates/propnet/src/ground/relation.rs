//! The relations of the model and their indexes: the tuples of each relation stored flat, and
//! indexes by what a join knows of a literal (whole bound arguments, or the functors and bound
//! parts of nested terms), which the grounder's joins and the goal formulas' instantiator both
//! look up.

use gdl::{Bindings, Lookup, Pat, Sym, TermId, TermPool};
use hashbrown::HashTable;
use rustc_hash::FxHashMap;

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
pub(super) struct TupleSet {
    arity: usize,
    flat: Vec<TermId>,
    /// Tuple numbers, hashed by [`tuple_hash`] of their tuples.
    ids: HashTable<u32>,
}

/// The hash of an argument tuple in a [`TupleSet`].
pub(super) fn tuple_hash(args: &[TermId]) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    args.iter().for_each(|t| h.write_u32(t.0));
    h.finish()
}

impl TupleSet {
    pub(super) fn new(arity: usize) -> TupleSet {
        TupleSet { arity, flat: Vec::new(), ids: HashTable::new() }
    }

    pub(super) fn len(&self) -> usize {
        self.ids.len()
    }

    pub(super) fn get(&self, idx: u32) -> &[TermId] {
        let a = self.arity;
        &self.flat[idx as usize * a..(idx as usize + 1) * a]
    }

    pub(super) fn find(&self, args: &[TermId]) -> Option<u32> {
        self.ids.find(tuple_hash(args), |&i| self.get(i) == args).copied()
    }

    /// Adds `args` if absent; whether it was.
    pub(super) fn insert(&mut self, args: &[TermId]) -> bool {
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

    pub(super) fn clear(&mut self) {
        self.flat.clear();
        self.ids.clear();
    }
}

/// An index of a relation's tuples by what `probes` read of them.
#[derive(Debug, Clone)]
pub(super) struct Index {
    /// [`spec_hash`] of `probes`, so that finding the index hashes nothing.
    hash: u64,
    /// The argument positions (bit i for argument i) when the probes read whole arguments and
    /// nothing else, so that [`Relation::matching`] finds the index without building probes.
    mask: Option<u64>,
    probes: Box<[Probe]>,
    map: FxHashMap<Box<[u64]>, Vec<u32>>,
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

/// The probes reading the arguments in `mask` (bit i for argument i) whole.
pub(super) fn mask_probes(mask: u64) -> Box<[Probe]> {
    (0..64u8).filter(|i| mask & (1 << i) != 0).map(|i| Probe { path: Box::new([i]), exact: true }).collect()
}

/// The values `probes` read of `args`, or `None` if some probe finds no term of its shape.
pub(super) fn key_of(probes: &[Probe], args: &[TermId], pool: &TermPool) -> Option<Box<[u64]>> {
    probes.iter().map(|p| p.value(args, pool)).collect()
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
            if let Some(key) = key_of(&index.probes, args, pool) {
                index.map.entry(key).or_default().push(idx);
            }
        }
        true
    }

    pub(super) fn index(&self, hash: u64, probes: &[Probe]) -> Option<&Index> {
        self.indexes.iter().find(|i| i.hash == hash && *i.probes == *probes)
    }

    /// Builds the index reading `probes` (whose [`spec_hash`] is `hash`), if missing, for
    /// [`probe`](Self::probe).
    pub(super) fn ensure_probes(&mut self, hash: u64, probes: &[Probe], pool: &TermPool) {
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
    pub(super) fn probe(&self, hash: u64, probes: &[Probe], key: &[u64]) -> Option<&[u32]> {
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

/// How deep into nested terms a join's index reads.
pub(super) const PROBE_DEPTH: usize = 3;

/// What the literal with arguments `args` can tell an index under the bindings marked `bound`:
/// every argument or nested term that is fully bound, read whole, and the functor of every
/// function term that is not, down to [`PROBE_DEPTH`].
pub(super) fn probes_of(args: &[Pat], bound: &[bool]) -> Vec<Probe> {
    let mut out = Vec::new();
    walk_probes(args, bound, &mut |path, exact| out.push(Probe { path: path.into(), exact }));
    out
}

/// How many probes [`probes_of`] finds, without building them (join planning asks for every
/// candidate literal).
pub(super) fn probe_count(args: &[Pat], bound: &[bool]) -> usize {
    let mut n = 0;
    walk_probes(args, bound, &mut |_, _| n += 1);
    n
}

/// Calls `found` with the path and exactness of every probe an index can read of a literal
/// with arguments `args` once the variables in `bound` are.
pub(super) fn walk_probes(args: &[Pat], bound: &[bool], found: &mut dyn FnMut(&[u8], bool)) {
    pub(super) fn walk(p: &Pat, path: &mut Vec<u8>, bound: &[bool], found: &mut dyn FnMut(&[u8], bool)) {
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
pub(super) fn probe_pattern(args: &[Pat], probe: &Probe, b: &Bindings, pool: &TermPool) -> Option<u64> {
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
