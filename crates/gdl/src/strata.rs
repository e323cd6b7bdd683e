//! Stratification decided on atoms where relations alone cannot decide it.
//!
//! Published games define one goal value through the negation of another of the same relation,
//! `(<= (goal ?r 0) (role ?r) (not (goal ?r 100)))`: the relation `goal` depends on `not goal`,
//! yet no ground atom depends on its own negation, and the game servers and the reference prover
//! play such rules. So where a relation depends negatively on itself, the dependencies are
//! followed between atoms instead: each rule's head, and each body atom of the same strongly
//! connected relations, as written; a head depends on its body atoms, and a body atom on every
//! head it unifies with (rules renamed apart). A ground atom's dependencies all follow edges of
//! this graph, so a graph with no cycle through a negated edge leaves the ground program
//! stratified, and every engine evaluates it as usual: a negated literal is ground when it is
//! read, and only a cycle of this graph could find its atom still being computed. A cycle that
//! remains is reported with the atoms along it.

use crate::ast::{Atom, Description, Term};
use crate::symbol::Sym;
use crate::validate::strongly_connected;
use rustc_hash::FxHashMap;

/// One atom of the graph: a rule's head, or a body atom with its polarity.
struct Node<'a> {
    atom: &'a Atom,
    /// The rule it belongs to.
    rule: usize,
    /// Whether it is a head.
    head: bool,
    /// The index of its rule's head among the nodes (its own, for a head).
    owner: usize,
    /// For a body atom, whether it is read positively.
    positive: bool,
    /// For a body atom, the index of the body literal holding it.
    literal: usize,
}

/// A cycle through negation among atoms.
pub(crate) struct NegativeCycle {
    /// The rule whose body literal starts the cycle with `not`.
    pub rule: usize,
    /// That literal's index in the rule's body.
    pub literal: usize,
    /// The hops along the cycle: a rule's head, whether it reads the next atom through `not`,
    /// and that atom as the rule writes it; each atom read unifies with the next hop's head, and
    /// the last with the first.
    pub hops: Vec<(Atom, bool, Atom)>,
}

impl NegativeCycle {
    /// The cycle for a reader: `a depends on not b, b depends on c, c depends on a again`.
    pub fn describe(&self) -> String {
        let mut out = Vec::new();
        for (k, (head, negated, read)) in self.hops.iter().enumerate() {
            let not = if *negated { "not " } else { "" };
            let next = &self.hops[(k + 1) % self.hops.len()].0;
            let close = if k + 1 < self.hops.len() {
                ""
            } else if read == next {
                " again"
            } else {
                // A more general head defines the atom read: say which.
                &format!(", which {next} defines")
            };
            out.push(format!("{head} depends on {not}{read}{close}"));
        }
        out.join(", ")
    }
}

/// A cycle through negation among the atoms of the rules of the relations `suspect` (those a
/// relation-level check found on a negative cycle, with `same_component` telling which relations
/// are mutually recursive); `None` if they are stratified at the level of atoms.
pub(crate) fn negative_cycle(
    desc: &Description,
    same_component: impl Fn(Sym, Sym) -> bool,
    suspect: &[Sym],
) -> Option<NegativeCycle> {
    let mut nodes: Vec<Node> = Vec::new();
    let mut heads: Vec<usize> = Vec::new();
    for (r, rule) in desc.rules.iter().enumerate() {
        if !suspect.iter().any(|&s| same_component(s, rule.head.rel)) {
            continue;
        }
        let owner = nodes.len();
        heads.push(owner);
        nodes.push(Node { atom: &rule.head, rule: r, head: true, owner, positive: true, literal: 0 });
        for (literal, lit) in rule.body.iter().enumerate() {
            lit.for_each_atom(true, &mut |a, positive| {
                if same_component(rule.head.rel, a.rel) {
                    nodes.push(Node { atom: a, rule: r, head: false, owner, positive, literal });
                }
            });
        }
    }
    // Edges: a head to its rule's body atoms, a body atom to every head it unifies with.
    let mut edges: FxHashMap<usize, Vec<usize>> = FxHashMap::default();
    for (i, n) in nodes.iter().enumerate() {
        let out = edges.entry(i).or_default();
        if n.head {
            out.extend((i + 1..nodes.len()).take_while(|&j| !nodes[j].head && nodes[j].rule == n.rule));
        } else {
            out.extend(heads.iter().copied().filter(|&h| unifiable(n.atom, nodes[h].atom)));
        }
    }
    let component = strongly_connected(&edges);
    let (from, to) = nodes.iter().enumerate().find_map(|(i, n)| {
        let c = component.get(&i)?;
        let back = (!n.head && !n.positive).then_some(n.owner)?;
        (component.get(&back) == Some(c)).then_some((back, i))
    })?;
    // The cycle: the negative edge, then a shortest path from its body atom back to its head.
    let mut parent: FxHashMap<usize, usize> = FxHashMap::default();
    let mut queue = std::collections::VecDeque::from([to]);
    while let Some(n) = queue.pop_front() {
        if n == from {
            break;
        }
        for &m in &edges[&n] {
            if m != to && !parent.contains_key(&m) {
                parent.insert(m, n);
                queue.push_back(m);
            }
        }
    }
    let mut path = vec![from];
    while let Some(&p) = parent.get(path.last()?) {
        path.push(p);
        if p == to {
            break;
        }
    }
    path.push(from);
    path.reverse();
    // One hop per rule on the path: its head and the body atom it reads (which unifies with the
    // next hop's head).
    let hops = path
        .windows(2)
        .filter(|w| nodes[w[0]].head)
        .map(|w| (nodes[w[0]].atom.clone(), !nodes[w[1]].positive, nodes[w[1]].atom.clone()))
        .collect();
    Some(NegativeCycle { rule: nodes[to].rule, literal: nodes[to].literal, hops })
}

/// Whether two atoms, their variables renamed apart, unify.
fn unifiable(a: &Atom, b: &Atom) -> bool {
    if a.rel != b.rel || a.args.len() != b.args.len() {
        return false;
    }
    let mut names = FxHashMap::default();
    let mut subst = FxHashMap::default();
    a.args.iter().zip(&b.args).all(|(x, y)| {
        let x = Pattern::of(x, 0, &mut names);
        let y = Pattern::of(y, 1, &mut names);
        unify(&x, &y, &mut subst)
    })
}

/// A term with numbered variables, so that two atoms' variables can be kept apart.
#[derive(Clone, Debug)]
enum Pattern {
    Var(u32),
    Const(Sym),
    Func(Sym, Vec<Pattern>),
}

impl Pattern {
    /// `t` with each variable numbered by its name and `side`.
    fn of(t: &Term, side: u8, names: &mut FxHashMap<(u8, Sym), u32>) -> Pattern {
        match t {
            Term::Var(v) => {
                let next = names.len() as u32;
                Pattern::Var(*names.entry((side, *v)).or_insert(next))
            }
            Term::Const(c) => Pattern::Const(*c),
            Term::Func(f, args) => Pattern::Func(*f, args.iter().map(|a| Pattern::of(a, side, names)).collect()),
        }
    }
}

/// Follows bound variables to what they stand for.
fn resolve<'a>(mut t: &'a Pattern, subst: &'a FxHashMap<u32, Pattern>) -> &'a Pattern {
    while let Pattern::Var(v) = t {
        match subst.get(v) {
            Some(next) => t = next,
            None => break,
        }
    }
    t
}

fn occurs(v: u32, t: &Pattern, subst: &FxHashMap<u32, Pattern>) -> bool {
    match resolve(t, subst) {
        Pattern::Var(w) => *w == v,
        Pattern::Const(_) => false,
        Pattern::Func(_, args) => args.iter().any(|a| occurs(v, a, subst)),
    }
}

/// Robinson's unification with an occurs check, extending `subst`.
fn unify(x: &Pattern, y: &Pattern, subst: &mut FxHashMap<u32, Pattern>) -> bool {
    let (x, y) = (resolve(x, subst).clone(), resolve(y, subst).clone());
    match (&x, &y) {
        (Pattern::Var(a), Pattern::Var(b)) if a == b => true,
        (Pattern::Var(v), t) | (t, Pattern::Var(v)) => {
            if occurs(*v, t, subst) {
                return false;
            }
            subst.insert(*v, t.clone());
            true
        }
        (Pattern::Const(a), Pattern::Const(b)) => a == b,
        (Pattern::Func(f, xs), Pattern::Func(g, ys)) => {
            f == g && xs.len() == ys.len() && xs.iter().zip(ys).all(|(a, b)| unify(a, b, subst))
        }
        _ => false,
    }
}
