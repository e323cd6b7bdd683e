//! Ground terms for engines: hash-consed so that each distinct ground term is stored once and
//! named by a [`TermId`] (equality is an integer comparison, a state a list of integers), and rule
//! patterns ([`Pat`]) matched against them under variable [`Bindings`].

use crate::ast::Term;
use crate::symbol::Sym;
use hashbrown::HashTable;
use std::hash::Hasher;

/// A ground term in a [`TermPool`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct TermId(pub u32);

impl TermId {
    /// Marks "no term" in binding frames and call keys.
    pub const NONE: TermId = TermId(u32::MAX);
}

#[derive(Clone, Copy)]
struct Node {
    functor: Sym,
    /// Start of the arguments in `args`; `u32::MAX` for a constant.
    start: u32,
    arity: u32,
}

/// The store of ground terms.
#[derive(Clone, Default)]
pub struct TermPool {
    nodes: Vec<Node>,
    args: Vec<TermId>,
    /// Every term by the hash of its functor and arguments ([`key_hash`]): no allocation per
    /// term, so that a pool of hundreds of thousands of terms is built and dropped quickly (a
    /// grounding abandoned at its deadline drops one).
    ids: HashTable<TermId>,
}

/// The hash of a term's functor and arguments (`None` for a constant).
fn key_hash(functor: Sym, args: Option<&[TermId]>) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    h.write_u32(functor.index());
    match args {
        None => h.write_u32(CONST_MARK),
        Some(args) => {
            h.write_u32(args.len() as u32);
            args.iter().for_each(|a| h.write_u32(a.0));
        }
    }
    h.finish()
}

const CONST_MARK: u32 = u32::MAX;

impl std::fmt::Debug for TermPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TermPool({} terms)", self.nodes.len())
    }
}

impl TermPool {
    /// The id of the constant `sym`.
    pub fn constant(&mut self, sym: Sym) -> TermId {
        self.intern(sym, None)
    }

    /// The id of the function term `functor(args...)`.
    pub fn function(&mut self, functor: Sym, args: &[TermId]) -> TermId {
        self.intern(functor, Some(args))
    }

    /// The term `functor(args…)` (a constant where `args` is `None`), if the pool holds it.
    fn find(&self, functor: Sym, args: Option<&[TermId]>, hash: u64) -> Option<TermId> {
        let same = |&id: &TermId| {
            self.functor(id) == functor
                && match args {
                    None => self.is_constant(id),
                    Some(args) => !self.is_constant(id) && self.args(id) == args,
                }
        };
        self.ids.find(hash, same).copied()
    }

    fn intern(&mut self, functor: Sym, args: Option<&[TermId]>) -> TermId {
        let hash = key_hash(functor, args);
        if let Some(id) = self.find(functor, args, hash) {
            return id;
        }
        let id = TermId(self.nodes.len() as u32);
        let node = match args {
            None => Node { functor, start: u32::MAX, arity: 0 },
            Some(a) => {
                let start = self.args.len() as u32;
                self.args.extend_from_slice(a);
                Node { functor, start, arity: a.len() as u32 }
            }
        };
        self.nodes.push(node);
        let (nodes, stored) = (&self.nodes, &self.args);
        let rehash = |&id: &TermId| {
            let n = nodes[id.0 as usize];
            let args = (n.start != u32::MAX).then(|| &stored[n.start as usize..(n.start + n.arity) as usize]);
            key_hash(n.functor, args)
        };
        self.ids.insert_unique(hash, id, rehash);
        id
    }

    /// The constant or function name of a term.
    pub fn functor(&self, id: TermId) -> Sym {
        self.nodes[id.0 as usize].functor
    }

    /// Whether the term is a constant (not a function term, not even one without arguments).
    pub fn is_constant(&self, id: TermId) -> bool {
        self.nodes[id.0 as usize].start == u32::MAX
    }

    /// The arguments of a function term (empty for a constant).
    pub fn args(&self, id: TermId) -> &[TermId] {
        let n = self.nodes[id.0 as usize];
        if n.start == u32::MAX {
            &[]
        } else {
            &self.args[n.start as usize..(n.start + n.arity) as usize]
        }
    }

    /// Prints a term in canonical KIF: `(cell 1 1 b)`.
    pub fn write(&self, id: TermId, out: &mut String) {
        if self.is_constant(id) {
            out.push_str(self.functor(id).as_str());
        } else {
            out.push('(');
            out.push_str(self.functor(id).as_str());
            for &a in self.args(id) {
                out.push(' ');
                self.write(a, out);
            }
            out.push(')');
        }
    }

    /// A term printed in canonical KIF.
    pub fn to_string(&self, id: TermId) -> String {
        let mut s = String::new();
        self.write(id, &mut s);
        s
    }

    /// The id of the constant `sym` if it was interned, without interning it.
    pub fn find_constant(&self, sym: Sym) -> Option<TermId> {
        self.find(sym, None, key_hash(sym, None))
    }

    /// The id of `functor(args...)` if it was interned, without interning it.
    pub fn find_function(&self, functor: Sym, args: &[TermId]) -> Option<TermId> {
        self.find(functor, Some(args), key_hash(functor, Some(args)))
    }

    /// How many distinct terms the pool holds.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the pool holds no term.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}

/// A term pattern of a compiled rule: ground parts interned, variables numbered per rule.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Pat {
    /// A rule variable (index into the rule's [`Bindings`]).
    Var(u16),
    /// A ground term.
    Ground(TermId),
    /// A function term with at least one variable inside.
    Func(Sym, Box<[Pat]>),
}

/// Numbers the variables of one rule in order of first appearance.
#[derive(Debug, Default)]
pub struct VarNumbering(Vec<Sym>);

impl VarNumbering {
    /// The number of variable `v`, assigning the next one if it is new.
    pub fn id(&mut self, v: Sym) -> u16 {
        match self.0.iter().position(|&x| x == v) {
            Some(i) => i as u16,
            None => {
                self.0.push(v);
                (self.0.len() - 1) as u16
            }
        }
    }

    /// The number of `v` if it was numbered.
    pub fn get(&self, v: Sym) -> Option<u16> {
        self.0.iter().position(|&x| x == v).map(|i| i as u16)
    }

    /// How many variables were numbered.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether no variable was numbered.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Pat {
    /// Compiles a term, interning its ground parts and numbering its variables.
    pub fn new(term: &Term, vars: &mut VarNumbering, pool: &mut TermPool) -> Pat {
        match term {
            Term::Const(c) => Pat::Ground(pool.constant(*c)),
            Term::Var(v) => Pat::Var(vars.id(*v)),
            Term::Func(f, args) => Pat::function(*f, args.iter().map(|a| Pat::new(a, vars, pool)).collect(), pool),
        }
    }

    /// The function term `functor` over `args`: interned whole when every argument is ground.
    pub fn function(functor: Sym, args: Vec<Pat>, pool: &mut TermPool) -> Pat {
        let ground: Option<Vec<TermId>> =
            args.iter().map(|p| if let Pat::Ground(t) = p { Some(*t) } else { None }).collect();
        match ground {
            Some(ids) => Pat::Ground(pool.function(functor, &ids)),
            None => Pat::Func(functor, args.into()),
        }
    }

    /// Compiles a list of terms.
    pub fn list(terms: &[Term], vars: &mut VarNumbering, pool: &mut TermPool) -> Box<[Pat]> {
        terms.iter().map(|t| Pat::new(t, vars, pool)).collect()
    }

    /// Calls `f` on every variable number in the pattern.
    pub fn for_each_var(&self, f: &mut impl FnMut(u16)) {
        match self {
            Pat::Var(v) => f(*v),
            Pat::Ground(_) => {}
            Pat::Func(_, ps) => ps.iter().for_each(|p| p.for_each_var(f)),
        }
    }
}

/// What [`Bindings::lookup`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// A variable of the pattern is unbound.
    Unbound,
    /// The term was never interned, so no stored fact can contain it.
    Absent,
    /// The term's id.
    Found(TermId),
}

/// Variable bindings of one rule activation, with a trail to undo them.
#[derive(Debug, Clone, Default)]
pub struct Bindings {
    vals: Vec<TermId>,
    trail: Vec<u16>,
}

impl Bindings {
    /// Clears the bindings and makes room for `vars` variables.
    pub fn reset(&mut self, vars: usize) {
        self.vals.clear();
        self.vals.resize(vars, TermId::NONE);
        self.trail.clear();
    }

    /// The value of variable `v`, if bound.
    pub fn get(&self, v: u16) -> Option<TermId> {
        Some(self.vals[v as usize]).filter(|t| *t != TermId::NONE)
    }

    /// A mark to [`undo`](Self::undo) back to.
    pub fn mark(&self) -> usize {
        self.trail.len()
    }

    /// Unbinds every variable bound since `mark`.
    pub fn undo(&mut self, mark: usize) {
        for v in self.trail.drain(mark..) {
            self.vals[v as usize] = TermId::NONE;
        }
    }

    /// Matches a pattern against a ground term, binding variables; on failure the caller undoes
    /// to its mark.
    pub fn unify(&mut self, pool: &TermPool, pat: &Pat, t: TermId) -> bool {
        match pat {
            Pat::Ground(g) => *g == t,
            Pat::Var(v) => {
                let cur = self.vals[*v as usize];
                if cur == TermId::NONE {
                    self.vals[*v as usize] = t;
                    self.trail.push(*v);
                    true
                } else {
                    cur == t
                }
            }
            Pat::Func(name, pats) => {
                !pool.is_constant(t)
                    && pool.functor(t) == *name
                    && pool.args(t).len() == pats.len()
                    && pats.iter().zip(pool.args(t)).all(|(p, &a)| self.unify(pool, p, a))
            }
        }
    }

    /// The ground term a pattern stands for, interning it if new; `None` if a variable is unbound.
    pub fn instantiate(&self, pool: &mut TermPool, pat: &Pat) -> Option<TermId> {
        match pat {
            Pat::Ground(g) => Some(*g),
            Pat::Var(v) => self.get(*v),
            Pat::Func(name, pats) => {
                let mut args = Vec::with_capacity(pats.len());
                for p in pats.iter() {
                    args.push(self.instantiate(pool, p)?);
                }
                Some(pool.function(*name, &args))
            }
        }
    }

    /// Like [`instantiate`](Self::instantiate) but without interning.
    pub fn lookup(&self, pool: &TermPool, pat: &Pat) -> Lookup {
        match pat {
            Pat::Ground(g) => Lookup::Found(*g),
            Pat::Var(v) => self.get(*v).map_or(Lookup::Unbound, Lookup::Found),
            Pat::Func(name, pats) => {
                let mut args = Vec::with_capacity(pats.len());
                let mut absent = false;
                for p in pats.iter() {
                    match self.lookup(pool, p) {
                        Lookup::Found(t) => args.push(t),
                        Lookup::Absent => absent = true,
                        Lookup::Unbound => return Lookup::Unbound,
                    }
                }
                match pool.find_function(*name, &args) {
                    Some(t) if !absent => Lookup::Found(t),
                    _ => Lookup::Absent,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_consing_and_printing() {
        let mut pool = TermPool::default();
        let one = pool.constant(Sym::new("1"));
        let b = pool.constant(Sym::new("b"));
        let cell = pool.function(Sym::new("cell"), &[one, one, b]);
        assert_eq!(cell, pool.function(Sym::new("cell"), &[one, one, b]));
        assert_eq!(one, pool.constant(Sym::new("1")));
        let f0 = pool.function(Sym::new("b"), &[]);
        assert_ne!(f0, b);
        assert_eq!(pool.to_string(cell), "(cell 1 1 b)");
        let nested = pool.function(Sym::new("f"), &[b, cell]);
        assert_eq!(pool.to_string(nested), "(f b (cell 1 1 b))");
        assert_eq!(pool.to_string(f0), "(b)");
        assert_eq!(pool.args(nested), &[b, cell]);
    }
}
