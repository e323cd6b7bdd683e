//! Goal and terminal conditions as disjunctions of conjunctions of base literals, so that each
//! way of ending the game or scoring can be looked at on its own.

use propnet::net::{Kind, Net, NodeId};
use rustc_hash::FxHashMap;

/// A conjunction of base literals: (base index, the value it must have), sorted by base.
pub type Conjunction = Vec<(u32, bool)>;

/// Bounds that keep the expansion small; a condition beyond them has no disjuncts to offer.
const MAX_DISJUNCTS: usize = 4096;
const MAX_LITERALS: usize = 512;
const MAX_DEPTH: usize = 400;

/// Expands nodes into disjunctive normal form, remembering each (node, polarity).
pub(crate) struct Expander<'a> {
    net: &'a Net,
    memo: FxHashMap<(NodeId, bool), Option<Vec<Conjunction>>>,
}

impl<'a> Expander<'a> {
    pub fn new(net: &'a Net) -> Expander<'a> {
        Expander { net, memo: FxHashMap::default() }
    }

    /// The disjuncts of `node` (or of its negation when `positive` is false), or `None` when
    /// the node reads a move, sits on a cycle, or expands past the bounds.
    pub fn dnf(&mut self, node: NodeId, positive: bool) -> Option<Vec<Conjunction>> {
        self.expand(node, positive, 0)
    }

    fn expand(&mut self, node: NodeId, positive: bool, depth: usize) -> Option<Vec<Conjunction>> {
        if depth > MAX_DEPTH {
            return None;
        }
        if let Some(done) = self.memo.get(&(node, positive)) {
            return done.clone();
        }
        // A node met again while it is being expanded is on a cycle: the placeholder answers it.
        self.memo.insert((node, positive), None);
        let out = match self.net.kinds[node as usize] {
            Kind::Const(c) => Some(if c == positive { vec![Vec::new()] } else { Vec::new() }),
            Kind::Base(b) => Some(vec![vec![(b, positive)]]),
            Kind::Input(_) => None,
            Kind::Not => self.expand(self.net.inputs[node as usize][0], !positive, depth + 1),
            kind => {
                let inputs = self.net.inputs[node as usize].clone();
                // An AND of positive polarity, or an OR of negative, is a product.
                if (kind == Kind::And) == positive {
                    let mut acc: Vec<Conjunction> = vec![Vec::new()];
                    for i in inputs {
                        let part = self.expand(i, positive, depth + 1)?;
                        acc = product(&acc, &part)?;
                    }
                    Some(acc)
                } else {
                    let mut acc = Vec::new();
                    for i in inputs {
                        acc.extend(self.expand(i, positive, depth + 1)?);
                        if acc.len() > MAX_DISJUNCTS {
                            return None;
                        }
                    }
                    acc.sort();
                    acc.dedup();
                    Some(acc)
                }
            }
        };
        self.memo.insert((node, positive), out.clone());
        out
    }
}

/// Every conjunction of one from `a` and one from `b`, contradictions dropped.
fn product(a: &[Conjunction], b: &[Conjunction]) -> Option<Vec<Conjunction>> {
    if a.len().saturating_mul(b.len()) > MAX_DISJUNCTS {
        return None;
    }
    let mut out = Vec::with_capacity(a.len() * b.len());
    for x in a {
        'pairs: for y in b {
            let mut c: Conjunction = x.iter().chain(y).copied().collect();
            c.sort_unstable();
            c.dedup();
            for w in c.windows(2) {
                if w[0].0 == w[1].0 {
                    continue 'pairs;
                }
            }
            if c.len() > MAX_LITERALS {
                return None;
            }
            out.push(c);
        }
    }
    out.sort();
    out.dedup();
    Some(out)
}
