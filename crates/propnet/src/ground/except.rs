//! Disjunctions over every choice but one, grounded with shared prefixes and suffixes.
//!
//! A rule such as "the square is attacked by some piece other than the one being captured",
//! `(<= (h ?c ?x) (attacks ?u ?x) (distinct ?u ?c))`, grounds into one disjunction per head atom
//! over every `?u` but `?c`: for n choices and m values of `?c`, about n·m rule instances, each
//! repeating the others' bodies. The disjunctions of one `?x` differ by one choice only, so they
//! are built from two chains over the choices in a fixed order: `pre_j` (one of the first j
//! holds) and `suf_j` (one of those from j on holds). The head for the choice at position k is
//! `pre_{k-1} or suf_{k+1}`, for a value that is no choice `pre_{n-1}`: 2n chain rules per `?x`
//! and two per head instead of n − 1 per head. Chess's "attacked once this piece is captured"
//! test is such a rule, over every attacking square but the captured one.
//!
//! A rule qualifies when its head variables `?c` are compared with variables `?u` of its body
//! that do not occur in its head, by a `distinct` filter or by a relation fixed in every state
//! whose tuples are exactly the distinct pairs over one set (chess's `different_cells`), and the
//! literals reading `?u` (its *part*) share no variable with `?c` nor with the rest of the rule
//! but head variables. The chains are built for a binding of the part's head variables the
//! second time a head asks for it; the first asks directly.

use super::rewrite::vars_of;
use super::{AtomRef, GroundError, GroundRule, Grounder, Instances, JoinRule, RelId, Step};
use gdl::{Bindings, Pat, TermId};
use rustc_hash::{FxHashMap, FxHashSet};
use std::rc::Rc;

/// Below this many choices the disjunctions are written out.
const MIN_CHAIN: usize = 4;

/// A rule grounded over every choice but one (see the module header).
pub(super) struct ExceptOne {
    /// The part reading the choice, as a rule (in the grounder's rules, not emitted) whose head
    /// is its variables shared with the rule's head, and its plan with those bound.
    part: usize,
    part_plan: Vec<Step>,
    /// The rest of the rule: the same head, the other literals.
    rest: usize,
    rest_plan: Vec<Step>,
    /// The part's head variables.
    key: Vec<u16>,
    /// The head variables compared with the choice, and the choice's variables, pairwise.
    excluded: Vec<u16>,
    choice: Vec<u16>,
    /// The set the comparing relation ranges over (none for `distinct`: every term).
    domain: Option<FxHashSet<Vec<TermId>>>,
    pre: RelId,
    suf: RelId,
    chains: FxHashMap<Vec<TermId>, Chain>,
}

/// The choices for one binding of the part's head variables.
#[derive(Default)]
struct Chain {
    /// Each choice with the bodies making it, in a fixed order.
    choices: Vec<(Vec<TermId>, Vec<Vec<AtomRef>>)>,
    /// Where each choice is.
    at: FxHashMap<Vec<TermId>, usize>,
    /// How many heads asked for it.
    uses: u32,
    /// The prefix and suffix atoms, once built.
    pre: Vec<AtomRef>,
    suf: Vec<AtomRef>,
}

/// The positions of a relation's tuples that form a disequality: `pairs` (excluded position,
/// choice position) such that the tuples are exactly the pairs of distinct values over one set,
/// which is returned.
fn disequality(rel: &super::Relation, pairs: &[(usize, usize)]) -> Option<FxHashSet<Vec<TermId>>> {
    let mut left: FxHashSet<Vec<TermId>> = FxHashSet::default();
    let mut right: FxHashSet<Vec<TermId>> = FxHashSet::default();
    for idx in 0..rel.count {
        let t = rel.tuple(idx);
        let l: Vec<TermId> = pairs.iter().map(|&(c, _)| t[c]).collect();
        let r: Vec<TermId> = pairs.iter().map(|&(_, u)| t[u]).collect();
        if l == r {
            return None;
        }
        left.insert(l);
        right.insert(r);
    }
    let n = left.len() as u64;
    (left == right && n >= 2 && u64::from(rel.count) == n * (n - 1)).then_some(left)
}

fn var(p: &Pat) -> Option<u16> {
    match p {
        Pat::Var(v) => Some(*v),
        _ => None,
    }
}

impl Grounder {
    /// How rule `r` is grounded over every choice but one, if it qualifies (see the module
    /// header); the part and rest rules are added to the grounder's rules.
    pub(super) fn except_one(&mut self, r: usize) -> Option<ExceptOne> {
        let rule = Rc::clone(&self.rules[r]);
        if !rule.emit {
            return None;
        }
        let head = vars_of(rule.head.iter());
        // Candidate comparisons: (positive literal or filter, excluded, choice, domain).
        let mut candidates = Vec::new();
        for (i, lit) in rule.pos.iter().enumerate() {
            if !self.is_exact(lit.rel) || self.is_model_only(lit.rel) {
                continue;
            }
            let Some(vs) = lit.args.iter().map(var).collect::<Option<Vec<u16>>>() else { continue };
            if vs.iter().collect::<FxHashSet<_>>().len() != vs.len() {
                continue;
            }
            let (c, u): (Vec<usize>, Vec<usize>) = (0..vs.len()).partition(|&k| head.contains(&vs[k]));
            if c.len() != u.len() || c.is_empty() {
                continue;
            }
            let pairs: Vec<(usize, usize)> = c.iter().copied().zip(u.iter().copied()).collect();
            if let Some(domain) = disequality(&self.relations[lit.rel as usize], &pairs) {
                let excluded = c.iter().map(|&k| vs[k]).collect();
                let choice = u.iter().map(|&k| vs[k]).collect();
                candidates.push((Some(i), None, excluded, choice, Some(domain)));
            }
        }
        for (i, (distinct, s, t)) in rule.filters.iter().enumerate() {
            let (Some(s), Some(t)) = (var(s), var(t)) else { continue };
            let (c, u) = match (head.contains(&s), head.contains(&t)) {
                (true, false) => (s, t),
                (false, true) => (t, s),
                _ => continue,
            };
            if *distinct {
                candidates.push((None, Some(i), vec![c], vec![u], None));
            }
        }
        for (lit, filter, excluded, choice, domain) in candidates {
            // The part: every literal linked to the choice through variables not in the head.
            let mut own: FxHashSet<u16> = choice.iter().copied().collect();
            let mut in_part = vec![false; rule.pos.len()];
            loop {
                let mut grew = false;
                for (k, l) in rule.pos.iter().enumerate() {
                    if in_part[k] || Some(k) == lit {
                        continue;
                    }
                    let lv = vars_of(l.args.iter());
                    if lv.iter().any(|v| own.contains(v)) {
                        in_part[k] = true;
                        own.extend(lv.into_iter().filter(|v| !head.contains(v)));
                        grew = true;
                    }
                }
                if !grew {
                    break;
                }
            }
            let part_pos: Vec<_> = (0..rule.pos.len()).filter(|&k| in_part[k]).map(|k| rule.pos[k].clone()).collect();
            let read: FxHashSet<u16> = part_pos.iter().flat_map(|l| vars_of(l.args.iter())).collect();
            let key: FxHashSet<u16> = read.iter().copied().filter(|v| head.contains(v)).collect();
            let filter_vars = |k: usize| vars_of([&rule.filters[k].1, &rule.filters[k].2]);
            let filters_own: Vec<usize> = (0..rule.filters.len())
                .filter(|&k| Some(k) != filter && filter_vars(k).iter().any(|v| own.contains(v)))
                .collect();
            let part_ok = choice.iter().all(|v| read.contains(v))
                && excluded.iter().all(|c| !key.contains(c))
                && rule.neg.iter().all(|l| vars_of(l.args.iter()).iter().all(|v| !own.contains(v)))
                && filters_own.iter().all(|&k| filter_vars(k).iter().all(|v| own.contains(v) || key.contains(v)));
            if !part_ok {
                continue;
            }
            let mut key: Vec<u16> = key.into_iter().collect();
            key.sort_unstable();
            let part = JoinRule {
                head_rel: rule.head_rel,
                head: key.iter().map(|&v| Pat::Var(v)).collect(),
                pos: part_pos,
                neg: Vec::new(),
                filters: filters_own.iter().map(|&k| rule.filters[k].clone()).collect(),
                vars: rule.vars,
                emit: false,
            };
            let rest = JoinRule {
                head_rel: rule.head_rel,
                head: rule.head.clone(),
                pos: (0..rule.pos.len())
                    .filter(|&k| !in_part[k] && Some(k) != lit)
                    .map(|k| rule.pos[k].clone())
                    .collect(),
                neg: rule.neg.clone(),
                filters: (0..rule.filters.len())
                    .filter(|&k| Some(k) != filter && !filters_own.contains(&k))
                    .map(|k| rule.filters[k].clone())
                    .collect(),
                vars: rule.vars,
                emit: false,
            };
            let part_plan = self.plan(&part, None, true);
            let rest_plan = self.plan(&rest, None, true);
            for (l, steps) in [(&part, &part_plan), (&rest, &rest_plan)] {
                for s in steps.iter().filter(|s| s.lit != usize::MAX) {
                    Rc::make_mut(&mut self.relations[l.pos[s.lit].rel as usize]).prepare(&s.pattern, &self.pool);
                }
            }
            self.rules.push(Rc::new(part));
            self.rules.push(Rc::new(rest));
            let arity = key.len() + choice.len();
            return Some(ExceptOne {
                part: self.rules.len() - 2,
                part_plan,
                rest: self.rules.len() - 1,
                rest_plan,
                key,
                excluded,
                choice,
                domain,
                pre: self.fresh_rel(arity),
                suf: self.fresh_rel(arity),
                chains: FxHashMap::default(),
            });
        }
        None
    }

    /// Grounds the rule `ex` stands for with its head bound in `b`, into `out`.
    pub(super) fn ground_except(
        &mut self,
        ex: &mut ExceptOne,
        b: &mut Bindings,
        out: &mut Instances,
    ) -> Result<(), GroundError> {
        let bound = |vs: &[u16], b: &Bindings| vs.iter().map(|&v| b.get(v)).collect::<Option<Vec<TermId>>>();
        let (Some(key), Some(excluded)) = (bound(&ex.key, b), bound(&ex.excluded, b)) else { return Ok(()) };
        if ex.domain.as_ref().is_some_and(|d| !d.contains(&excluded)) {
            return Ok(());
        }
        if !ex.chains.contains_key(&key) {
            let chain = self.choices(ex, &key)?;
            ex.chains.insert(key.clone(), chain);
        }
        let chain = ex.chains.get_mut(&key).expect("just made");
        chain.uses += 1;
        let n = chain.choices.len();
        if n >= MIN_CHAIN && chain.uses >= 2 && chain.pre.is_empty() {
            self.build_chain(ex.pre, ex.suf, &key, chain, out)?;
        }
        let at = chain.at.get(&excluded).copied();
        // Each alternative is a body to add to the rest's.
        let alternatives: Vec<Vec<AtomRef>> = if chain.pre.is_empty() {
            let others = chain.choices.iter().enumerate().filter(|&(k, _)| Some(k) != at);
            others.flat_map(|(_, (_, bodies))| bodies.iter().cloned()).collect()
        } else {
            match at {
                Some(k) => {
                    let before = (k > 0).then(|| vec![chain.pre[k - 1]]);
                    let after = (k + 1 < n).then(|| vec![chain.suf[k + 1]]);
                    before.into_iter().chain(after).collect()
                }
                None => vec![vec![chain.pre[n - 1]]],
            }
        };
        if alternatives.is_empty() {
            return Ok(());
        }
        let rest = Rc::clone(&self.rules[ex.rest]);
        let mut matched = vec![AtomRef { rel: 0, idx: 0 }; rest.pos.len()];
        let mut made = Vec::new();
        self.step(&rest, ex.rest, &ex.rest_plan, 0, None, b, &mut matched, &mut |g, r, b, matched| {
            made.extend(g.ground_rule(r, None, b, matched));
        });
        if let Some(e) = self.abort.take() {
            return Err(e);
        }
        for gr in made {
            for alt in &alternatives {
                let mut pos = gr.pos.clone();
                pos.extend_from_slice(alt);
                out.push(GroundRule { head: gr.head, pos, neg: gr.neg.clone() }, &self.limits)?;
            }
        }
        Ok(())
    }

    /// The choices the part allows with its head variables bound to `key`, with their bodies.
    fn choices(&mut self, ex: &ExceptOne, key: &[TermId]) -> Result<Chain, GroundError> {
        let part = Rc::clone(&self.rules[ex.part]);
        let mut b = Bindings::default();
        b.reset(part.vars);
        for (&v, &t) in ex.key.iter().zip(key) {
            b.unify(&self.pool, &Pat::Var(v), t);
        }
        let mut chain = Chain::default();
        let mut matched = vec![AtomRef { rel: 0, idx: 0 }; part.pos.len()];
        self.step(&part, ex.part, &ex.part_plan, 0, None, &mut b, &mut matched, &mut |g, _, b, matched| {
            let Some(u) = ex.choice.iter().map(|&v| b.get(v)).collect::<Option<Vec<TermId>>>() else { return };
            if ex.domain.as_ref().is_some_and(|d| !d.contains(&u)) {
                return;
            }
            let body = g.body_atoms(matched);
            let k = *chain.at.entry(u.clone()).or_insert_with(|| {
                chain.choices.push((u, Vec::new()));
                chain.choices.len() - 1
            });
            chain.choices[k].1.push(body);
        });
        match self.abort.take() {
            Some(e) => Err(e),
            None => Ok(chain),
        }
    }

    /// The prefix and suffix atoms of `chain` with their rules.
    fn build_chain(
        &mut self,
        pre: RelId,
        suf: RelId,
        key: &[TermId],
        chain: &mut Chain,
        out: &mut Instances,
    ) -> Result<(), GroundError> {
        let n = chain.choices.len();
        let atom = |g: &mut Grounder, rel: RelId, u: &[TermId]| {
            let tuple: Vec<TermId> = key.iter().chain(u).copied().collect();
            let relation = Rc::make_mut(&mut g.relations[rel as usize]);
            relation.insert(&tuple, &g.pool);
            AtomRef { rel, idx: relation.find(&tuple).expect("inserted") }
        };
        chain.pre = chain.choices.iter().map(|(u, _)| atom(self, pre, u)).collect();
        chain.suf = chain.choices.iter().map(|(u, _)| atom(self, suf, u)).collect();
        for k in 0..n {
            let links = [
                (chain.pre[k], k.checked_sub(1).map(|j| chain.pre[j])),
                (chain.suf[k], (k + 1 < n).then(|| chain.suf[k + 1])),
            ];
            for (head, link) in links {
                for body in &chain.choices[k].1 {
                    out.push(GroundRule { head, pos: body.clone(), neg: Vec::new() }, &self.limits)?;
                }
                if let Some(prev) = link {
                    out.push(GroundRule { head, pos: vec![prev], neg: Vec::new() }, &self.limits)?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::ground::{ground, Limits};
    use gdl::Sym;
    use std::collections::BTreeSet;

    /// Marks on six cells of two rows; `other c r` (a static disequality relation) and `else c r`
    /// (a `distinct`) say some cell of row `r` other than `c` is marked, shown in the next state.
    const MARKS: &str = "
        (role p)
        (cell 1) (cell 2) (cell 3) (cell 4) (cell 5) (cell 6) (row a) (row b)
        (<= (diff ?x ?y) (cell ?x) (cell ?y) (distinct ?x ?y))
        (<= (other ?c ?r) (true (at ?u ?r)) (diff ?c ?u))
        (<= (else ?c ?r) (true (at ?u ?r)) (cell ?c) (distinct ?u ?c))
        (<= (next (seen ?c ?r)) (other ?c ?r))
        (<= (next (seen2 ?c ?r)) (else ?c ?r))
        (init (at 1 a))
        (<= (legal p (put ?u ?r)) (cell ?u) (row ?r))
        (<= (next (at ?u ?r)) (does p (put ?u ?r)))
        (<= (next (at ?u ?r)) (true (at ?u ?r)))
        (<= terminal (true (seen 1 b)))
        (goal p 0)";

    #[test]
    fn every_choice_but_one_is_two_chain_links_per_head() {
        let desc = gdl::parse("marks", MARKS).expect("parses");
        let g = ground(&desc, &Limits::default()).expect("grounds");
        for name in ["other", "else"] {
            let rel = g.relation(Sym::new(name)).expect("relation");
            let heads = g.relations[rel as usize].count as usize;
            let rules = g.rules.iter().filter(|r| r.head.rel == rel).count();
            // Written out, each of the 12 heads would have a rule per other cell: 60 in all. With
            // the chains, the first head of a row is written out (5) and each other takes at
            // most two links: at most 15 a row.
            assert_eq!(heads, 12, "{name}");
            assert!(rules <= 30, "{name}: {rules} rules for {heads} heads");
        }
    }

    #[test]
    fn every_choice_but_one_means_what_the_rule_says() {
        let desc = gdl::parse("marks", MARKS).expect("parses");
        let net = crate::build(&desc, &Limits::default()).expect("builds");
        let at = |u: u32, r: char| format!("(at {u} {r})");
        // Every subset of marks on row a's cells 1-4 and row b's cells 2, 5.
        let marks: Vec<String> =
            [(1, 'a'), (2, 'a'), (3, 'a'), (4, 'a'), (2, 'b'), (5, 'b')].iter().map(|&(u, r)| at(u, r)).collect();
        for subset in 0u32..1 << marks.len() {
            let on: BTreeSet<&String> =
                marks.iter().enumerate().filter(|(i, _)| subset >> i & 1 == 1).map(|(_, m)| m).collect();
            let base: Vec<bool> = net.bases.iter().map(|b| on.contains(&b.name)).collect();
            let input = vec![false; net.moves.len()];
            let value = net.evaluate(&base, &input);
            for b in &net.bases {
                let Some(rest) = b.name.strip_prefix("(seen").map(|s| s.trim_start_matches('2')) else { continue };
                let args: Vec<&str> = rest.trim().trim_end_matches(')').split(' ').collect();
                let (c, r): (u32, char) = (args[0].parse().expect("cell"), args[1].chars().next().expect("row"));
                let want = (1..=6).any(|u| u != c && on.contains(&at(u, r)));
                assert_eq!(value[b.next as usize], want, "{} with {on:?}", b.name);
            }
        }
    }
}
