//! Rules compiled for evaluation: relations numbered, variables numbered per rule, ground
//! subterms interned, bodies normalised (no `or`) and ordered so that every negation and
//! `distinct` runs only once its variables are bound.

use gdl::{normal_bodies, Atom, Description, Lit, Pat, Sym, Term, TermPool, VarNumbering};
use rustc_hash::{FxHashMap, FxHashSet};

/// A relation's index in [`CompiledRules::relations`].
pub type RelId = u32;

/// One step of a compiled rule body.
#[derive(Debug, Clone)]
pub enum Op {
    /// A positive call of a defined relation.
    Call(RelId, Box<[Pat]>),
    /// A negated call (its arguments are ground when it runs).
    NotCall(RelId, Box<[Pat]>),
    /// `(true p)`.
    True(Pat),
    /// `(not (true p))`.
    NotTrue(Pat),
    /// `(does r m)`.
    Does(Pat, Pat),
    /// `(not (does r m))`.
    NotDoes(Pat, Pat),
    /// `(distinct s t)`.
    Distinct(Pat, Pat),
    /// `(not (distinct s t))`.
    Same(Pat, Pat),
    /// A call of a relation no rule defines: always false.
    Fail,
}

/// A compiled rule (one `or`-free variant of a source rule).
#[derive(Debug, Clone)]
pub struct CRule {
    /// The head arguments.
    pub head: Box<[Pat]>,
    /// The body, in evaluation order.
    pub body: Vec<Op>,
    /// How many variables the rule has.
    pub vars: u16,
}

/// How long a relation's answers stay valid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Lifetime {
    /// Independent of the state and the moves: computed once per game.
    Static,
    /// Depends on `true`: computed once per state.
    State,
    /// Depends on `does`: computed once per joint move.
    Move,
}

/// A relation and its rules.
#[derive(Debug, Clone)]
pub struct Relation {
    /// Its compiled rules (facts are rules with empty bodies).
    pub rules: Vec<CRule>,
    /// When its answers must be recomputed.
    pub lifetime: Lifetime,
}

/// A whole compiled game.
#[derive(Debug, Clone)]
pub struct CompiledRules {
    /// Every relation that occurs in a head or body (except `true`, `does`, `distinct`).
    pub relations: Vec<Relation>,
    /// Relation ids by name.
    pub by_name: FxHashMap<Sym, RelId>,
    /// The roles, in order.
    pub roles: Vec<Sym>,
}

impl CompiledRules {
    /// Compiles a validated description; ground terms are interned into `pool`.
    pub fn compile(desc: &Description, pool: &mut TermPool) -> CompiledRules {
        let mut by_name: FxHashMap<Sym, RelId> = FxHashMap::default();
        let mut relations: Vec<Relation> = Vec::new();
        let mut rel_id = |atom: &Atom, relations: &mut Vec<Relation>| -> RelId {
            *by_name.entry(atom.rel).or_insert_with(|| {
                relations.push(Relation { rules: Vec::new(), lifetime: Lifetime::Static });
                (relations.len() - 1) as RelId
            })
        };
        let mut defined = FxHashSet::default();
        let mut compiled = Vec::new();
        for rule in &desc.rules {
            let head_rel = rel_id(&rule.head, &mut relations);
            defined.insert(head_rel);
            for body in normal_bodies(rule) {
                compiled.push((head_rel, rule.head.clone(), body));
            }
        }
        // Number body relations too, so that calls of undefined relations have an id.
        for (_, _, body) in &compiled {
            for lit in body {
                if let Lit::Pos(a) | Lit::Neg(a) = lit {
                    if !matches!(a.rel, Sym::TRUE | Sym::DOES) {
                        rel_id(a, &mut relations);
                    }
                }
            }
        }
        let ids = by_name.clone();
        for (head_rel, head, body) in compiled {
            let crule = compile_rule(&head, &body, &ids, &defined, pool);
            relations[head_rel as usize].rules.push(crule);
        }
        set_lifetimes(&mut relations);
        CompiledRules { relations, by_name: ids, roles: desc.roles() }
    }

    /// The id of the relation called `name`, if the game mentions it.
    pub fn relation(&self, name: Sym) -> Option<RelId> {
        self.by_name.get(&name).copied()
    }
}

fn compile_rule(
    head: &Atom,
    body: &[Lit],
    ids: &FxHashMap<Sym, RelId>,
    defined: &FxHashSet<RelId>,
    pool: &mut TermPool,
) -> CRule {
    let mut vars = VarNumbering::default();
    let head_pats = Pat::list(&head.args, &mut vars, pool);
    let mut bound: FxHashSet<Sym> = FxHashSet::default();
    let mut pending: Vec<&Lit> = Vec::new();
    let mut order: Vec<&Lit> = Vec::new();
    let all_bound = |lit: &Lit, bound: &FxHashSet<Sym>| {
        let mut ok = true;
        lit.for_each_var(&mut |v| ok &= bound.contains(&v));
        ok
    };
    for lit in body {
        if let Lit::Pos(a) = lit {
            order.push(lit);
            a.for_each_var(&mut |v| {
                bound.insert(v);
            });
            // Run each waiting filter as soon as its variables are bound.
            let (ready, waiting): (Vec<&Lit>, Vec<&Lit>) = pending.drain(..).partition(|l| all_bound(l, &bound));
            order.extend(ready);
            pending = waiting;
        } else if all_bound(lit, &bound) {
            order.push(lit);
        } else {
            pending.push(lit);
        }
    }
    order.extend(pending);
    let body = order
        .into_iter()
        .filter_map(|lit| {
            let mut p = |t: &Term| Pat::new(t, &mut vars, pool);
            match lit {
                Lit::Pos(a) | Lit::Neg(a) => {
                    let positive = matches!(lit, Lit::Pos(_));
                    match (a.rel, a.args.as_slice()) {
                        (Sym::TRUE, [t]) => {
                            let t = p(t);
                            Some(if positive { Op::True(t) } else { Op::NotTrue(t) })
                        }
                        (Sym::DOES, [r, m]) => {
                            let (r, m) = (p(r), p(m));
                            Some(if positive { Op::Does(r, m) } else { Op::NotDoes(r, m) })
                        }
                        _ => {
                            let rel = ids[&a.rel];
                            let args = Pat::list(&a.args, &mut vars, pool);
                            match (positive, defined.contains(&rel)) {
                                (true, true) => Some(Op::Call(rel, args)),
                                (true, false) => Some(Op::Fail),
                                (false, true) => Some(Op::NotCall(rel, args)),
                                // The negation of an undefined relation always holds.
                                (false, false) => None,
                            }
                        }
                    }
                }
                Lit::Distinct(s, t) => Some(Op::Distinct(p(s), p(t))),
                Lit::Same(s, t) => Some(Op::Same(p(s), p(t))),
            }
        })
        .collect();
    CRule { head: head_pats, body, vars: vars.len() as u16 }
}

/// A relation lives per move if it depends on `does`, per state if on `true`, else per game.
fn set_lifetimes(relations: &mut [Relation]) {
    loop {
        let mut changed = false;
        for i in 0..relations.len() {
            let mut life = relations[i].lifetime;
            for rule in &relations[i].rules {
                for op in &rule.body {
                    life = life.max(match op {
                        Op::Call(r, _) | Op::NotCall(r, _) => relations[*r as usize].lifetime,
                        Op::True(_) | Op::NotTrue(_) => Lifetime::State,
                        Op::Does(..) | Op::NotDoes(..) => Lifetime::Move,
                        Op::Distinct(..) | Op::Same(..) | Op::Fail => Lifetime::Static,
                    });
                }
            }
            if life != relations[i].lifetime {
                relations[i].lifetime = life;
                changed = true;
            }
        }
        if !changed {
            return;
        }
    }
}
