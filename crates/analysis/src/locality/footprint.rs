//! Which base propositions a move can change, decided exactly from the next-value gates.
//!
//! A base's next value is a formula over bases and every role's inputs. Rules often keep a cell
//! by naming every move that leaves it alone (`(does ?p (move ...))` with distinct squares), so
//! every move appears in every cell's cone, and the cone alone would say every move changes
//! every cell. Instead, for each role, the formula is partially evaluated with that role playing
//! one move (its other inputs false, every other input and base left symbolic); moves whose
//! residual formulas come out identical (after constant folding, with gates hash-consed) behave
//! alike on that base in every state and whatever the other roles play. The largest such class
//! is the role's default for the base: only the moves outside it change the base. Identity of
//! residuals is syntactic, so two classes may compute the same function: that only makes more
//! moves count as changing the base, never fewer.

use propnet::net::{Kind, Net, NodeId};
use rustc_hash::FxHashMap;
use std::time::Instant;

/// A residual formula: [`FALSE`], [`TRUE`], an original node (`ORIG + node`) whose inputs all kept
/// their residuals, or a new hash-consed gate.
type Res = u32;
const FALSE: Res = 0;
const TRUE: Res = 1;
const ORIG: Res = 2;

/// What the next-value gates say about moves and bases.
#[derive(Default)]
pub(crate) struct Footprints {
    /// Per move, the bases it can change directly (not yet closed under [`Footprints::spread`]).
    pub writes: Vec<Vec<u32>>,
    /// Per move, the bases other than `b` that the next value of each `b` it writes reads when
    /// it is played: where a difference elsewhere can change what the move does. (A base's
    /// own value only carries its own difference forward.)
    pub effect_reads: Vec<Vec<u32>>,
    /// Per base, the bases its next value reads when every role plays a move of its default
    /// class: a difference in one of these reaches the base with no move choosing to.
    pub spread: Vec<Vec<u32>>,
    /// Per move, the bases whose next value differs from the all-default one when it is played
    /// and every other role plays its default: what it changes on its own.
    pub own: Vec<Vec<u32>>,
    /// Per base, whether its next value is its current value when every role plays its default.
    pub stays: Vec<bool>,
}

/// Hash-conses residual gates.
struct Residuals<'a> {
    net: &'a Net,
    gates: FxHashMap<(u8, Vec<Res>), Res>,
    /// The children of each new gate, by `id - first_new`.
    children: Vec<Vec<Res>>,
    /// The kind of each new gate (0 not, 1 and, 2 or), likewise.
    tags: Vec<u8>,
    first_new: Res,
}

impl<'a> Residuals<'a> {
    fn new(net: &'a Net) -> Residuals<'a> {
        let first_new = ORIG + net.kinds.len() as Res;
        Residuals { net, gates: FxHashMap::default(), children: Vec::new(), tags: Vec::new(), first_new }
    }

    /// The residual of gate `node` given its inputs' residuals.
    fn fold(&mut self, node: NodeId, ins: &[Res]) -> Res {
        let orig_ins = &self.net.inputs[node as usize];
        let unchanged = ins.iter().zip(orig_ins).all(|(&r, &i)| r == ORIG + i);
        match self.net.kinds[node as usize] {
            Kind::Not => match ins[0] {
                FALSE => TRUE,
                TRUE => FALSE,
                _ if unchanged => ORIG + node,
                r => self.intern(0, vec![r]),
            },
            kind @ (Kind::And | Kind::Or) => {
                let (absorbing, neutral, tag) = if kind == Kind::And { (FALSE, TRUE, 1) } else { (TRUE, FALSE, 2) };
                if unchanged {
                    return ORIG + node;
                }
                if ins.contains(&absorbing) {
                    return absorbing;
                }
                let mut kept: Vec<Res> = ins.iter().copied().filter(|&r| r != neutral).collect();
                kept.sort_unstable();
                kept.dedup();
                // Absorption: x or (x and y) is x, x and (x or y) is x. A move that settles one
                // way of keeping a base leaves the others beside it, which would otherwise make
                // its residual differ from a move that settles them all.
                let dual = if kind == Kind::And { Kind::Or } else { Kind::And };
                let absorbed: Vec<bool> = kept.iter().map(|&r| self.reads_any(r, dual, &kept)).collect();
                let mut i = 0;
                kept.retain(|_| {
                    i += 1;
                    !absorbed[i - 1]
                });
                match kept.len() {
                    0 => neutral,
                    1 => kept[0],
                    _ => self.intern(tag, kept),
                }
            }
            _ => ORIG + node,
        }
    }

    /// Whether residual `r` is a gate of kind `kind` (an original gate unchanged, or a new one)
    /// one of whose children is in `sorted`.
    fn reads_any(&self, r: Res, kind: Kind, sorted: &[Res]) -> bool {
        let tag = match kind {
            Kind::And => 1,
            Kind::Or => 2,
            _ => return false,
        };
        if r >= self.first_new {
            let i = (r - self.first_new) as usize;
            return self.tags[i] == tag && self.children[i].iter().any(|c| sorted.binary_search(c).is_ok());
        }
        r >= ORIG
            && self.net.kinds[(r - ORIG) as usize] == kind
            && self.net.inputs[(r - ORIG) as usize].iter().any(|&i| sorted.binary_search(&(ORIG + i)).is_ok())
    }

    fn intern(&mut self, tag: u8, children: Vec<Res>) -> Res {
        let next = self.first_new + self.children.len() as Res;
        let key = (tag, children);
        if let Some(&id) = self.gates.get(&key) {
            return id;
        }
        self.children.push(key.1.clone());
        self.tags.push(tag);
        self.gates.insert(key, next);
        next
    }

    /// Adds the bases `r` reads to `out`.
    fn bases_read(&self, r: Res, out: &mut Vec<u32>) {
        let mut stack = vec![r];
        while let Some(r) = stack.pop() {
            if r >= self.first_new {
                stack.extend(self.children[(r - self.first_new) as usize].iter().copied());
            } else if r >= ORIG {
                out.extend(self.net.bases_read([r - ORIG]).into_iter().map(|b| b as u32));
            }
        }
    }
}

/// The footprints of every move of `net`, or `None` if `deadline` passes first.
pub(crate) fn footprints(net: &Net, deadline: Option<Instant>) -> Option<Footprints> {
    let n = net.kinds.len();
    let (topo, cyclic) = evaluation_order(net);
    let roles = net.roles.len();
    let role_moves: Vec<Vec<usize>> =
        (0..roles).map(|r| (0..net.moves.len()).filter(|&j| net.moves[j].role == r).collect()).collect();
    let mut writes = vec![Vec::new(); net.moves.len()];
    let mut effect_reads: Vec<Vec<u32>> = vec![Vec::new(); net.moves.len()];
    let mut spread = vec![Vec::new(); net.bases.len()];
    let mut own: Vec<Vec<u32>> = vec![Vec::new(); net.moves.len()];
    let mut stays = vec![false; net.bases.len()];
    let mut member = vec![u32::MAX; n];
    let mut value: Vec<Res> = vec![FALSE; n];
    for (b, base) in net.bases.iter().enumerate() {
        if deadline.is_some_and(|d| Instant::now() > d) {
            return None;
        }
        let cone = cone(net, base.next, b as u32, &mut member, &topo);
        let has_cycle = cone.iter().any(|&node| cyclic[node as usize]);
        let mut res = Residuals::new(net);
        let mut defaults: Vec<usize> = Vec::new();
        let mut in_cones: Vec<Vec<usize>> = vec![Vec::new(); roles];
        for r in 0..roles {
            let in_cone: Vec<usize> =
                role_moves[r].iter().copied().filter(|&j| member[net.moves[j].node as usize] == b as u32).collect();
            if in_cone.is_empty() {
                continue;
            }
            let of_role = |k: usize| net.moves[k].role == r;
            let mut classes: FxHashMap<Res, Vec<usize>> = FxHashMap::default();
            for (k, &j) in in_cone.iter().enumerate() {
                // One base of a game with thousands of moves can take minutes on its own.
                if k % 64 == 63 && deadline.is_some_and(|d| Instant::now() > d) {
                    return None;
                }
                // Fixpoints are not folded: in a cyclic cone every move is its own class.
                let key = if has_cycle {
                    res.intern(3, vec![j as Res])
                } else {
                    evaluate(net, &mut res, &cone, base.next, &mut value, &of_role, &[j])
                };
                classes.entry(key).or_default().push(j);
            }
            in_cones[r] = in_cone.clone();
            let outside: Vec<usize> = role_moves[r].iter().copied().filter(|j| !in_cone.contains(j)).collect();
            if !outside.is_empty() {
                let none = if has_cycle {
                    res.intern(3, Vec::new())
                } else {
                    evaluate(net, &mut res, &cone, base.next, &mut value, &of_role, &[])
                };
                classes.entry(none).or_default().extend(outside);
            }
            // Among classes of one size, the one under which the base keeps its value is the
            // natural default (a pass beside moves that each change a tally their own way).
            let keeps = ORIG + base.node as Res;
            let default = classes.iter().max_by_key(|&(&k, c)| (c.len(), k == keeps)).map_or(usize::MAX, |(_, c)| c[0]);
            defaults.push(default);
            for (&key, class) in classes.iter().filter(|(_, c)| !c.contains(&default)) {
                let mut read = Vec::new();
                if has_cycle {
                    read = net.bases_read([base.next]).into_iter().map(|i| i as u32).collect();
                } else {
                    res.bases_read(key, &mut read);
                }
                read.retain(|&r| r != b as u32);
                for &j in class {
                    writes[j].push(b as u32);
                    effect_reads[j].extend_from_slice(&read);
                }
            }
        }
        // The next value when every role plays its default: what spreads without a move.
        if has_cycle {
            spread[b] = net.bases_read([base.next]).into_iter().map(|i| i as u32).collect();
            for r in (0..roles).filter(|&r| !in_cones[r].is_empty()) {
                role_moves[r].iter().for_each(|&j| own[j].push(b as u32));
            }
            continue;
        }
        let formula = evaluate(net, &mut res, &cone, base.next, &mut value, &|_| true, &defaults);
        stays[b] = formula == ORIG + base.node;
        // Each move with the other roles at their defaults; moves outside the cone act alike.
        for r in (0..roles).filter(|&r| !in_cones[r].is_empty()) {
            let others: Vec<usize> = defaults.iter().copied().filter(|&d| net.moves[d].role != r).collect();
            let mut alone = |j: Option<usize>| {
                let chosen: Vec<usize> = others.iter().copied().chain(j).collect();
                evaluate(net, &mut res, &cone, base.next, &mut value, &|_| true, &chosen) != formula
            };
            for &j in &in_cones[r] {
                if alone(Some(j)) {
                    own[j].push(b as u32);
                }
            }
            if alone(None) {
                role_moves[r].iter().filter(|j| !in_cones[r].contains(j)).for_each(|&j| own[j].push(b as u32));
            }
        }
        let mut read = Vec::new();
        res.bases_read(formula, &mut read);
        read.sort_unstable();
        read.dedup();
        spread[b] = read;
    }
    for r in &mut effect_reads {
        r.sort_unstable();
        r.dedup();
    }
    Some(Footprints { writes, effect_reads, spread, own, stays })
}

/// Every node's place in `net`'s evaluation order (its strongly connected component's), and
/// whether it lies on a cycle.
fn evaluation_order(net: &Net) -> (Vec<u32>, Vec<bool>) {
    let n = net.kinds.len();
    let mut topo = vec![0u32; n];
    let mut cyclic = vec![false; n];
    for (i, comp) in net.schedule().iter().enumerate() {
        let is_cycle = comp.len() > 1 || net.inputs[comp[0] as usize].contains(&comp[0]);
        for &node in comp {
            topo[node as usize] = i as u32;
            cyclic[node as usize] = is_cycle;
        }
    }
    (topo, cyclic)
}

/// The cone of `root` (the nodes it reads, down to bases and inputs) in evaluation order
/// (`topo`), marking each member with `mark` in `member`.
fn cone(net: &Net, root: NodeId, mark: u32, member: &mut [u32], topo: &[u32]) -> Vec<NodeId> {
    let mut cone = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if std::mem::replace(&mut member[node as usize], mark) != mark {
            cone.push(node);
            if !matches!(net.kinds[node as usize], Kind::Base(_) | Kind::Input(_)) {
                stack.extend(net.inputs[node as usize].iter().copied());
            }
        }
    }
    cone.sort_unstable_by_key(|&node| topo[node as usize]);
    cone
}

/// The residual of `root` (in `cone`, listed in evaluation order) with the inputs `fixed`
/// selects all false except those in `chosen`, every other input symbolic.
fn evaluate(
    net: &Net,
    res: &mut Residuals,
    cone: &[NodeId],
    root: NodeId,
    value: &mut [Res],
    fixed: &dyn Fn(usize) -> bool,
    chosen: &[usize],
) -> Res {
    let mut ins = Vec::new();
    for &node in cone {
        let v = match net.kinds[node as usize] {
            Kind::Const(c) => Res::from(c),
            Kind::Input(j) if fixed(j as usize) => Res::from(chosen.contains(&(j as usize))),
            Kind::Input(_) | Kind::Base(_) => ORIG + node,
            _ => {
                ins.clear();
                ins.extend(net.inputs[node as usize].iter().map(|&i| value[i as usize]));
                res.fold(node, &ins)
            }
        };
        value[node as usize] = v;
    }
    value[root as usize]
}
