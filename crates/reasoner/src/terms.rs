//! Hash-consed ground terms: each distinct ground term is stored once and named by a [`TermId`],
//! so equality is an integer comparison and a state is a sorted list of integers.

use gdl::Sym;
use rustc_hash::FxHashMap;

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
    ids: FxHashMap<Box<[u32]>, TermId>,
    key: Vec<u32>,
}

const CONST_MARK: u32 = u32::MAX;

impl TermPool {
    /// The id of the constant `sym`.
    pub fn constant(&mut self, sym: Sym) -> TermId {
        self.key.clear();
        self.key.extend([sym.index(), CONST_MARK]);
        self.intern(sym, None)
    }

    /// The id of the function term `functor(args...)`.
    pub fn function(&mut self, functor: Sym, args: &[TermId]) -> TermId {
        self.key.clear();
        self.key.extend([functor.index(), args.len() as u32]);
        self.key.extend(args.iter().map(|a| a.0));
        self.intern(functor, Some(args))
    }

    fn intern(&mut self, functor: Sym, args: Option<&[TermId]>) -> TermId {
        if let Some(&id) = self.ids.get(self.key.as_slice()) {
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
        self.ids.insert(self.key.as_slice().into(), id);
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
