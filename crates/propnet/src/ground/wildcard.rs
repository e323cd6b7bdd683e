//! Wildcard arguments: a relation that holds for every value of some arguments is grounded once
//! for all of them.
//!
//! Chess's attack test carries an "ignored square" through every attack line: `(clear_row_ig ?u
//! ?y ?x ?y ?ignorex ?ignorey)` holds for a segment of a row whatever the ignored square is (its
//! base rule reads it only through `(coordinate ?ignorex)`), passes it unchanged to the shorter
//! segment (the blank-square rule), and binds it to one square in one rule (the next square is
//! the ignored one). Grounded as written, every segment is instantiated for each of the 64
//! squares; only the squares inside a segment make a difference.
//!
//! For a relation R and a group P of its argument positions, each rule of R is one of:
//! - *free*: each head variable at P occurs once in the head and in the body only in positive
//!   literals of a unary relation fixed in every state (its domain at that position);
//! - *pass*: the head variables at P occur, besides domain literals, in exactly one body literal,
//!   over a relation with wildcard positions of its own, exactly at those positions (a
//!   bijection that keeps domains);
//! - *bind*: anything else.
//!
//! Free rules get the fresh constant `*` at P, their domain literals dropped; pass rules read
//! their domain literals through the domain with `*` added; bind rules stay. Then for every
//! value c in the domains, R(a, c) holds exactly when R(a, *) does or the explicit atom R(a, c)
//! does (by induction over derivations: a derivation that uses no bind rule is the same for
//! every c). So every other read of R (positive or negated, inside R's own rules too) reads an
//! auxiliary relation with two rules: R(a, t) itself, or R(a, *) with the domain literals on t.
//! In chess the explicit atoms are the segments times the squares inside them.
//!
//! An auxiliary that is only ever read negated is not computed: the relaxed model drops negation
//! over the state, so only the ground rules need it, and a ground rule reads `(not R(a, t))` and
//! `(not R(a, *))` in its place (the second where t is in the domains). Expanded, chess's three
//! negated reads of its attack test held 1.3 million atoms, nearly all of them "attacked,
//! whatever square is ignored" under another name, with their demand another 0.5 million.

use super::{AtomRef, Grounder, JoinRule, Literal, RelId};
use gdl::{Bindings, Pat, Sym, TermId};
use rustc_hash::{FxHashMap, FxHashSet};
use std::rc::Rc;

/// A relation's wildcard positions, each with its domain (a unary relation fixed in every
/// state), in position order.
type Group = Vec<(usize, RelId)>;

/// How a rule treats its head relation's wildcard positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Free,
    /// Passes them to its body literal with this index (in `pos`).
    Pass(usize),
    Bind,
}

impl Grounder {
    /// Grounds wildcard arguments once for all their values (see the module header).
    pub(super) fn wildcard_arguments(&mut self) {
        let dynamic = self.dynamic();
        let n = self.relations.len();
        let domain = |g: &Grounder, rel: RelId| {
            let r = &g.relations[rel as usize];
            r.arity == 1 && !dynamic[rel as usize] && !r.name.is_keyword()
        };
        // A rule of the game (not the relaxation's) defining a helper of the state.
        let eligible = |g: &Grounder, rule: &JoinRule| {
            let rel = rule.head_rel as usize;
            rule.emit && dynamic[rel] && !g.relations[rel].name.is_keyword()
        };
        // Seeds: the positions every free-looking rule of a relation leaves free.
        let mut groups: Vec<Option<Group>> = vec![None; n];
        for rule in &self.rules {
            let rel = rule.head_rel as usize;
            if !eligible(self, rule) {
                continue;
            }
            let free = free_positions(rule, |r| domain(self, r));
            if free.is_empty() {
                continue;
            }
            groups[rel] = Some(match groups[rel].take() {
                None => free,
                Some(g) => g.into_iter().filter(|p| free.contains(p)).collect(),
            });
        }
        for g in &mut groups {
            if g.as_ref().is_some_and(Vec::is_empty) {
                *g = None;
            }
        }
        // Relations reached by passing: a rule whose head variables at some positions occur,
        // besides domain literals, exactly at the wildcard positions of one body literal.
        let mut changed = true;
        while changed {
            changed = false;
            for rule in &self.rules {
                let rel = rule.head_rel as usize;
                if groups[rel].is_some() || !eligible(self, rule) {
                    continue;
                }
                if let Some(group) = passed_group(rule, &groups, |r| domain(self, r)) {
                    groups[rel] = Some(group);
                    changed = true;
                }
            }
        }
        if groups.iter().all(Option::is_none) {
            return;
        }
        let star = self.pool.constant(Sym::new("(*)"));
        let mut starred: FxHashMap<RelId, RelId> = FxHashMap::default();
        let mut readers: FxHashMap<(RelId, Box<[Pat]>), RelId> = FxHashMap::default();
        let mut added: Vec<JoinRule> = Vec::new();
        let rules = std::mem::take(&mut self.rules);
        for rule in rules {
            let mut rule = (*rule).clone();
            let kind = groups[rule.head_rel as usize]
                .as_ref()
                .map_or(Kind::Bind, |g| classify(&rule, g, &groups, |r| domain(self, r)));
            match kind {
                Kind::Free => {
                    let group = groups[rule.head_rel as usize].as_ref().expect("classified");
                    let vars: Vec<u16> = group.iter().map(|&(p, _)| var(&rule.head[p])).collect();
                    rule.pos.retain(|l| !(l.args.len() == 1 && matches!(l.args[0], Pat::Var(v) if vars.contains(&v))));
                    for &(p, _) in group {
                        rule.head[p] = Pat::Ground(star);
                    }
                }
                Kind::Pass(carrier) => {
                    // The carrier brings `*` along; the domain literals must let it through.
                    let group = groups[rule.head_rel as usize].as_ref().expect("classified");
                    let vars: Vec<(u16, RelId)> = group.iter().map(|&(p, d)| (var(&rule.head[p]), d)).collect();
                    for (i, l) in rule.pos.iter_mut().enumerate() {
                        let guard = matches!(l.args[..], [Pat::Var(v)] if vars.contains(&(v, l.rel)));
                        if i != carrier && guard {
                            l.rel = self.with_star(l.rel, star, &mut starred, &mut added);
                        }
                    }
                }
                Kind::Bind => {}
            }
            let passed = match kind {
                Kind::Pass(i) => Some(i),
                _ => None,
            };
            for i in 0..rule.pos.len() {
                if Some(i) != passed {
                    if let Some(Some(group)) = groups.get(rule.pos[i].rel as usize) {
                        rule.pos[i] = self.reader(&rule.pos[i], group, star, &mut readers, &mut added);
                    }
                }
            }
            for i in 0..rule.neg.len() {
                if let Some(Some(group)) = groups.get(rule.neg[i].rel as usize) {
                    rule.neg[i] = self.reader(&rule.neg[i], group, star, &mut readers, &mut added);
                }
            }
            self.rules.push(Rc::new(rule));
        }
        self.rules.extend(added.into_iter().map(Rc::new));
    }

    /// The domain `rel` with `*` added (made once).
    fn with_star(
        &mut self,
        rel: RelId,
        star: TermId,
        starred: &mut FxHashMap<RelId, RelId>,
        added: &mut Vec<JoinRule>,
    ) -> RelId {
        if let Some(&s) = starred.get(&rel) {
            return s;
        }
        let s = self.fresh_rel(1);
        let copy = Literal { rel, args: Box::new([Pat::Var(0)]) };
        added.push(JoinRule::plain(s, Box::new([Pat::Var(0)]), vec![copy], 1));
        added.push(JoinRule::plain(s, Box::new([Pat::Ground(star)]), Vec::new(), 0));
        starred.insert(rel, s);
        s
    }

    /// A literal reading `l` (over a relation with wildcard positions `group`) as an auxiliary
    /// relation over `l`'s variables: `l` itself, or `l` with `*` at the group's positions and
    /// the domains on what `l` has there.
    fn reader(
        &mut self,
        l: &Literal,
        group: &Group,
        star: TermId,
        readers: &mut FxHashMap<(RelId, Box<[Pat]>), RelId>,
        added: &mut Vec<JoinRule>,
    ) -> Literal {
        let mut vars: Vec<u16> = super::rewrite::vars_of(l.args.iter()).into_iter().collect();
        vars.sort_unstable();
        let head: Box<[Pat]> = vars.iter().map(|&v| Pat::Var(v)).collect();
        let key = (l.rel, l.args.clone());
        let aux = match readers.get(&key) {
            Some(&aux) => aux,
            None => {
                let aux = self.fresh_rel(vars.len());
                let count = vars.iter().max().map_or(0, |&v| v as usize + 1);
                // The literal itself, at explicit values only: `*` there is the other rule's.
                let mut explicit = JoinRule::plain(aux, head.clone(), vec![l.clone()], count);
                for &(p, _) in group {
                    if !matches!(l.args[p], Pat::Ground(_)) {
                        explicit.filters.push((true, l.args[p].clone(), Pat::Ground(star)));
                    }
                }
                added.push(explicit);
                let mut wild = l.clone();
                let mut body = Vec::new();
                for &(p, dom) in group {
                    body.push(Literal { rel: dom, args: Box::new([l.args[p].clone()]) });
                    wild.args[p] = Pat::Ground(star);
                }
                body.insert(0, wild);
                added.push(JoinRule::plain(aux, head.clone(), body, count));
                readers.insert(key, aux);
                let picks = l
                    .args
                    .iter()
                    .map(|p| match *p {
                        Pat::Var(v) => vars.iter().position(|&w| w == v).map(Pick::Arg),
                        Pat::Ground(t) => Some(Pick::Term(t)),
                        Pat::Func(..) => None,
                    })
                    .collect();
                let expansion =
                    Expansion { lit: l.clone(), picks, head: head.clone(), vars: count, group: group.clone(), star };
                self.expansions.insert(aux, Rc::new(expansion));
                aux
            }
        };
        Literal { rel: aux, args: head }
    }
}

/// An auxiliary relation reading a relation with wildcard positions (see [`Grounder::reader`]):
/// the literal read, with `*` or an explicit value at those positions.
#[derive(Debug)]
pub(super) struct Expansion {
    /// The literal read, over the expansion's variables.
    lit: Literal,
    /// Where each of its arguments is among the expansion's, unless one is a function term.
    picks: Option<Box<[Pick]>>,
    /// The expansion's arguments: `lit`'s variables, in order.
    head: Box<[Pat]>,
    /// How many variables `lit` numbers.
    vars: usize,
    group: Group,
    star: TermId,
}

/// An argument of an expansion's literal: one of the expansion's arguments, or a constant.
#[derive(Debug, Clone, Copy)]
enum Pick {
    Arg(usize),
    Term(TermId),
}

impl Grounder {
    /// Leaves out of the model the expansions read only negated, and what only their rules read
    /// (their demand): the model drops negation over the state, so nothing else needs their
    /// atoms, and a negated read is resolved against the relation read when rules are
    /// instantiated (see [`Grounder::negated_atoms`]).
    pub(super) fn leave_out_negated_expansions(&mut self) {
        let n = self.relations.len();
        // Per relation, the relations of the rules that read it, its own aside.
        let mut readers: Vec<Vec<RelId>> = vec![Vec::new(); n];
        for rule in &self.rules {
            for l in rule.pos.iter().chain(&rule.neg).filter(|l| l.rel != rule.head_rel) {
                readers[l.rel as usize].push(rule.head_rel);
            }
        }
        let read_positively: FxHashSet<RelId> = self.rules.iter().flat_map(|r| r.pos.iter().map(|l| l.rel)).collect();
        self.expansions.retain(|rel, _| !read_positively.contains(rel));
        let mut out = vec![false; n];
        let mut kept = vec![false; n];
        for (&rel, x) in &self.expansions {
            out[rel as usize] = true;
            kept[x.lit.rel as usize] = true;
        }
        // Then every relation (not a keyword, nor read through an expansion) whose readers all
        // define relations left out.
        let mut changed = !self.expansions.is_empty();
        while changed {
            changed = false;
            for rel in 0..n {
                let heads = &readers[rel];
                if out[rel] || kept[rel] || heads.is_empty() || self.relations[rel].name.is_keyword() {
                    continue;
                }
                if heads.iter().all(|&h| out[h as usize]) {
                    out[rel] = true;
                    changed = true;
                }
            }
        }
        self.left_out = out;
    }

    /// Whether the model leaves relation `rel` out (see
    /// [`Grounder::leave_out_negated_expansions`]).
    pub(super) fn is_left_out(&self, rel: RelId) -> bool {
        self.left_out.get(rel as usize).copied().unwrap_or(false)
    }

    /// Adds to `out` the atoms a negated literal over `rel` with arguments `terms` reads; false
    /// if it never holds (its atom is an exact one in the model). A literal over an expansion
    /// left out of the model reads the relation it expands: the atom with `terms` there, and
    /// the one with `*` where the terms are in the domains.
    pub(super) fn negated_atoms(&mut self, rel: RelId, terms: &[TermId], out: &mut Vec<AtomRef>) -> bool {
        let Some(x) = self.expansions.get(&rel).map(Rc::clone) else {
            let Some(idx) = self.relations[rel as usize].find(terms) else { return true };
            out.push(AtomRef { rel, idx });
            return !self.is_exact(rel);
        };
        let found = match &x.picks {
            Some(picks) => {
                self.scratch.clear();
                self.scratch.extend(picks.iter().map(|&p| match p {
                    Pick::Arg(i) => terms[i],
                    Pick::Term(t) => t,
                }));
                true
            }
            None => {
                let mut b = Bindings::default();
                b.reset(x.vars);
                for (p, &t) in x.head.iter().zip(terms) {
                    b.unify(&self.pool, p, t);
                }
                self.scratch_args(&x.lit.args, &b)
            }
        };
        // A term never built is in no atom, and in no domain.
        if !found {
            return true;
        }
        let mut args = std::mem::take(&mut self.scratch);
        let explicit = x.group.iter().all(|&(p, _)| args[p] != x.star);
        let mut holds = !explicit || self.negated_atoms(x.lit.rel, &args, out);
        if x.group.iter().all(|&(p, dom)| self.relations[dom as usize].find(&args[p..=p]).is_some()) {
            for &(p, _) in &x.group {
                args[p] = x.star;
            }
            holds &= self.negated_atoms(x.lit.rel, &args, out);
        }
        self.scratch = args;
        holds
    }
}

impl JoinRule {
    /// A rule of the grounder's own with positive literals only.
    pub(super) fn plain(head_rel: RelId, head: Box<[Pat]>, pos: Vec<Literal>, vars: usize) -> JoinRule {
        JoinRule { head_rel, head, pos, neg: Vec::new(), filters: Vec::new(), vars, emit: true }
    }
}

/// The variable `p` is (callers know it is one).
fn var(p: &Pat) -> u16 {
    match p {
        Pat::Var(v) => *v,
        _ => unreachable!("a wildcard position holds a variable"),
    }
}

/// How many times variable `v` occurs in `pats`.
fn occurrences<'a>(pats: impl IntoIterator<Item = &'a Pat>, v: u16) -> usize {
    let mut n = 0;
    for p in pats {
        p.for_each_var(&mut |x| n += usize::from(x == v));
    }
    n
}

/// The domain literal of variable `v` in `rule`, if it has exactly one.
fn domain_of(rule: &JoinRule, v: u16, domain: &impl Fn(RelId) -> bool) -> Option<RelId> {
    let mut found = rule.pos.iter().filter(|l| domain(l.rel) && matches!(l.args[..], [Pat::Var(x)] if x == v));
    let first = found.next()?;
    found.next().is_none().then_some(first.rel)
}

/// The head positions of `rule` whose variable occurs once in the head and in the body only in
/// one domain literal, with that domain.
fn free_positions(rule: &JoinRule, domain: impl Fn(RelId) -> bool) -> Group {
    let mut free = Group::new();
    for (p, arg) in rule.head.iter().enumerate() {
        let Pat::Var(v) = *arg else { continue };
        if occurrences(rule.head.iter(), v) != 1 || filtered(rule, v) {
            continue;
        }
        let Some(dom) = domain_of(rule, v, &domain) else { continue };
        let elsewhere = rule.pos.iter().filter(|l| l.rel != dom || l.args.len() != 1).flat_map(|l| l.args.iter());
        if occurrences(elsewhere.chain(rule.neg.iter().flat_map(|l| l.args.iter())), v) == 0 {
            free.push((p, dom));
        }
    }
    free
}

/// Whether a `distinct` filter of `rule` reads `v`.
fn filtered(rule: &JoinRule, v: u16) -> bool {
    rule.filters.iter().any(|(_, s, t)| occurrences([s, t], v) > 0)
}

/// The group a rule without one gets by passing head variables to one body literal's wildcard
/// positions, all of them, each variable occurring besides only in domain literals of its
/// position's domain.
fn passed_group(rule: &JoinRule, groups: &[Option<Group>], domain: impl Fn(RelId) -> bool) -> Option<Group> {
    for l in &rule.pos {
        let Some(group) = &groups[l.rel as usize] else { continue };
        let mut head_group = Group::new();
        for &(q, dom) in group {
            let Pat::Var(v) = l.args[q] else { return None };
            let at: Vec<usize> = (0..rule.head.len()).filter(|&p| rule.head[p] == Pat::Var(v)).collect();
            let [p] = at[..] else { return None };
            head_group.push((p, dom));
        }
        head_group.sort_unstable();
        if classify(rule, &head_group, groups, &domain) != Kind::Bind {
            return Some(head_group);
        }
    }
    None
}

/// Whether `rule` (of a relation whose wildcard positions are `group`) is free, passes them or
/// binds them.
fn classify(rule: &JoinRule, group: &Group, groups: &[Option<Group>], domain: impl Fn(RelId) -> bool) -> Kind {
    let free = free_positions(rule, &domain);
    if group.iter().all(|g| free.contains(g)) {
        return Kind::Free;
    }
    let mut vars = Vec::new();
    for &(p, dom) in group {
        let Pat::Var(v) = rule.head[p] else { return Kind::Bind };
        if occurrences(rule.head.iter(), v) != 1 || filtered(rule, v) {
            return Kind::Bind;
        }
        vars.push((v, dom));
    }
    // Exactly one body literal carries them, at its wildcard positions, domains kept.
    let carriers: Vec<usize> = (0..rule.pos.len())
        .filter(|&i| !domain(rule.pos[i].rel) && vars.iter().any(|&(v, _)| occurrences(rule.pos[i].args.iter(), v) > 0))
        .collect();
    let [i] = carriers[..] else { return Kind::Bind };
    let l = &rule.pos[i];
    let Some(target) = &groups[l.rel as usize] else { return Kind::Bind };
    if target.len() != vars.len() {
        return Kind::Bind;
    }
    for &(q, dom) in target {
        let Pat::Var(v) = l.args[q] else { return Kind::Bind };
        if !vars.contains(&(v, dom)) || occurrences(l.args.iter(), v) != 1 {
            return Kind::Bind;
        }
    }
    let negated = rule.neg.iter().flat_map(|l| l.args.iter());
    if vars.iter().any(|&(v, _)| occurrences(negated.clone(), v) > 0) {
        return Kind::Bind;
    }
    // Besides, only domain literals of the variable's own domain.
    for other in rule.pos.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, l)| l) {
        for &(v, dom) in &vars {
            if occurrences(other.args.iter(), v) > 0 && !(other.rel == dom && other.args.len() == 1) {
                return Kind::Bind;
            }
        }
    }
    Kind::Pass(i)
}

#[cfg(test)]
mod tests {
    use super::super::{ground, relaxed_model, Limits};
    use gdl::Sym;

    /// A row of eight cells: a rook, a piece `w` that may leave its cell unless that uncovers
    /// the king to the rook, and the king. `(clear_ig ?u ?x ?i)`: every cell between `?u` and
    /// `?x` is blank or is `?i`, written as chess writes its ignored square. `BLOCKER` is a
    /// cell holding another piece, or nothing.
    fn row(blocker: &str) -> String {
        let coordinates: String = (1..=8).map(|i| format!("(coordinate {i}) ")).collect();
        let files: String = (1..8).map(|i| format!("(next_file {i} {}) ", i + 1)).collect();
        let blanks: String =
            (2..=7).filter(|i| *i != 4 && blocker != format!("{i}")).map(|i| format!("(init (cell {i} b)) ")).collect();
        let blocked = if blocker.is_empty() { String::new() } else { format!("(init (cell {blocker} x))") };
        format!(
            "(role p) {coordinates} {files}
            (init (cell 1 r)) (init (cell 4 w)) (init (cell 8 k)) {blanks} {blocked}
            (<= (clear_ig ?u ?x ?i) (next_file ?u ?x) (coordinate ?i))
            (<= (clear_ig ?u ?x ?i) (next_file ?u ?i) (clear_ig ?i ?x ?i))
            (<= (clear_ig ?u ?x ?i) (next_file ?u ?v) (true (cell ?v b)) (clear_ig ?v ?x ?i))
            (<= (attacked ?k ?i) (true (cell ?r r)) (clear_ig ?r ?k ?i))
            (<= (legal p (leave ?w)) (true (cell ?w w)) (true (cell ?k k)) (not (attacked ?k ?w)))
            (legal p stay)
            (<= (next (cell ?w b)) (does p (leave ?w)))
            (<= (next (cell ?c ?x)) (true (cell ?c ?x)) (not (does p (leave ?c))))
            (<= (next moved) (does p (leave ?w)))
            (<= terminal (true moved))
            (<= (goal p 100) (true moved))
            (<= (goal p 0) (not (true moved)))"
        )
    }

    #[test]
    fn an_ignored_cell_is_grounded_only_where_it_lies_inside_a_segment() {
        let desc = gdl::parse("row", &row("")).expect("parses");
        let g = ground(&desc, &Limits::default()).expect("grounds");
        let count = |g: &super::super::Grounded| {
            g.relations[g.relation(Sym::new("clear_ig")).expect("clear_ig") as usize].count
        };
        // As written: each of the 28 segments for each of the 8 ignored cells. Wildcard: each
        // segment once for every ignored cell, and once more for each of the cells inside it
        // (56 in all).
        let written = relaxed_model(&desc, &Limits::default()).expect("model");
        assert_eq!(count(&written), 28 * 8);
        assert_eq!(count(&g), 28 + 56);
    }

    /// [`row`] with the king's cell of the attack test inside a function term, `(sq ?k)`.
    fn row_of_squares(blocker: &str) -> String {
        row(blocker)
            .replace("(attacked ?k ?i)", "(attacked (sq ?k) ?i)")
            .replace("(attacked ?k ?w)", "(attacked (sq ?k) ?w)")
    }

    #[test]
    fn a_negated_read_reads_the_relation_at_the_value_and_at_the_wildcard() {
        for (rules, king) in [(row(""), "8"), (row_of_squares(""), "(sq 8)")] {
            let desc = gdl::parse("row", &rules).expect("parses");
            let g = ground(&desc, &Limits::default()).expect("grounds");
            let leave: Vec<_> = g.rules.iter().filter(|r| g.atom_text(r.head) == "(legal p (leave 4))").collect();
            assert!(!leave.is_empty());
            // No relation of the grounder's own stands between the move and the attack test: the
            // rule reads the attack with the piece's cell ignored, and whatever cell is ignored.
            for rule in leave {
                let mut neg: Vec<String> = rule.neg.iter().map(|&a| g.atom_text(a)).collect();
                neg.sort();
                assert_eq!(neg, [format!("(attacked {king} (*))"), format!("(attacked {king} 4)")]);
            }
        }
    }

    #[test]
    fn a_piece_may_leave_its_cell_only_where_that_uncovers_nothing() {
        let rows = [row as fn(&str) -> String, row_of_squares];
        for (rules, (blocker, legal)) in
            rows.iter().flat_map(|r| [("", false), ("6", true), ("3", true)].map(|b| (r, b)))
        {
            let desc = gdl::parse("row", &rules(blocker)).expect("parses");
            let net = crate::build(&desc, &Limits::default()).expect("builds");
            let init: Vec<String> = desc
                .rules
                .iter()
                .filter(|r| r.head.rel == Sym::INIT)
                .map(|r| format!("(true {})", r.head.args[0]))
                .collect();
            let base: Vec<bool> = net.bases.iter().map(|b| init.contains(&format!("(true {})", b.name))).collect();
            let value = net.evaluate(&base, &vec![false; net.moves.len()]);
            let leave = net.moves.iter().find(|m| m.name == "(leave 4)").expect("a move of the net");
            assert_eq!(value[leave.legal as usize], legal, "blocker {blocker:?}");
        }
    }
}
