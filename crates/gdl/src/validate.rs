//! Checks that a description is well-formed GDL: keyword arities and placement, safety (range
//! restriction), stratified negation and the recursion restriction. Each problem names the file,
//! the line and column, the rule, and why it breaks the GDL specification.

use crate::ast::{Atom, Description, Literal, Pos, Rule, Term};
use crate::normal::{normal_bodies, variant_count, Lit, MAX_VARIANTS};
use crate::symbol::Sym;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;
use std::fmt;
use std::hash::Hash;
use std::sync::Arc;
use structures::Components;

/// How bad a problem is: errors make the rules unplayable, warnings are likely mistakes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Likely a mistake, but the game can still be played.
    Warning,
    /// The rules are valid GDL but not a whole game: nothing defines `legal`, `terminal` or
    /// `goal`. An error for a game ([`crate::load_game`]), not for a set of rules read for
    /// their relations ([`crate::load`]).
    Incomplete,
    /// The rules are not valid GDL.
    Error,
}

/// One problem found in a description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Error or warning.
    pub severity: Severity,
    /// The file the rule came from.
    pub file: Arc<str>,
    /// Where the offending rule or literal starts.
    pub pos: Pos,
    /// What is wrong and why.
    pub message: String,
    /// The offending rule, printed (shortened when long).
    pub rule: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.severity {
            Severity::Error | Severity::Incomplete => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{}:{}: {kind}: {}", self.file, self.pos, self.message)?;
        if !self.rule.is_empty() {
            write!(f, "\n    in rule: {}", self.rule)?;
        }
        Ok(())
    }
}

/// Every problem in `desc`, errors first, each group in file order.
pub fn validate(desc: &Description) -> Vec<Problem> {
    let mut v = Validator { desc, problems: Vec::new() };
    v.check_roles();
    v.check_outputs();
    v.check_imperfect_information();
    for rule in &desc.rules {
        v.check_keywords(rule);
        v.check_safety(rule);
    }
    v.check_arities();
    let graph = Graph::new(desc);
    v.check_undefined(&graph);
    v.check_stratification(&graph);
    v.check_recursion_restriction(&graph);
    v.check_dependencies(&graph);
    let mut problems = v.problems;
    problems.sort_by(|a, b| b.severity.cmp(&a.severity).then(a.pos.cmp(&b.pos)));
    problems
}

/// The declared arity of each GDL keyword relation.
fn keyword_arity(rel: Sym) -> Option<usize> {
    Some(match rel {
        Sym::ROLE | Sym::INIT | Sym::TRUE | Sym::NEXT | Sym::BASE => 1,
        Sym::LEGAL | Sym::DOES | Sym::GOAL | Sym::INPUT | Sym::SEES => 2,
        Sym::TERMINAL => 0,
        _ => return None,
    })
}

struct Validator<'a> {
    desc: &'a Description,
    problems: Vec<Problem>,
}

impl Validator<'_> {
    fn report(&mut self, severity: Severity, pos: Pos, rule: Option<&Rule>, message: String) {
        let rule = rule.map(|r| shorten(&r.to_string())).unwrap_or_default();
        self.problems.push(Problem { severity, file: self.desc.file.clone(), pos, message, rule });
    }

    fn error(&mut self, pos: Pos, rule: &Rule, message: String) {
        self.report(Severity::Error, pos, Some(rule), message);
    }

    fn check_roles(&mut self) {
        let mut seen = FxHashSet::default();
        for rule in &self.desc.rules {
            if rule.head.rel != Sym::ROLE {
                continue;
            }
            if !rule.is_fact() {
                self.error(rule.pos, rule, "'role' must be given by facts, not derived by rules".into());
            } else if let [Term::Const(r)] = rule.head.args.as_slice() {
                if !seen.insert(*r) {
                    self.error(rule.pos, rule, format!("role '{r}' is declared twice"));
                }
            } else if rule.head.args.len() == 1 {
                self.error(rule.pos, rule, "a role must be a constant".into());
            }
        }
        if seen.is_empty() {
            self.report(Severity::Error, Pos { line: 1, col: 1 }, None, "the game declares no role".into());
        }
    }

    /// A game is played by its `legal` moves until `terminal`, for its `goal` values: rules that
    /// never define one of them leave the game unplayable, unending or unscored.
    fn check_outputs(&mut self) {
        let defined = |rel: Sym| self.desc.rules.iter().any(|r| r.head.rel == rel);
        let missing: Vec<(Sym, &str)> = [
            (Sym::LEGAL, "no role ever has a legal move"),
            (Sym::TERMINAL, "no game ever ends"),
            (Sym::GOAL, "no role is ever scored"),
        ]
        .into_iter()
        .filter(|&(rel, _)| !defined(rel))
        .collect();
        for (rel, effect) in missing {
            let msg = format!("no rule defines '{rel}': {effect}");
            self.report(Severity::Incomplete, Pos { line: 1, col: 1 }, None, msg);
        }
    }

    /// GDL-II describes games of imperfect information and chance: `sees` rules say what each
    /// role perceives, and a role `random` is nature, whose moves are drawn at random. The GDL
    /// protocol sends every role every move and has no nature. Without a `random` role the
    /// game can still be played as GDL, its `sees` rules unused and every move seen by every
    /// role (a warning); with one, nature would be played as a role choosing its moves (an
    /// error). A role named `random` in a game without `sees` rules is an ordinary role, as
    /// GDL games of the public repository use it.
    fn check_imperfect_information(&mut self) {
        let sees: Vec<&Rule> = self.desc.rules.iter().filter(|r| r.head.rel == Sym::SEES).collect();
        let Some(&first) = sees.first() else { return };
        let lines: Vec<String> = sees.iter().map(|r| r.pos.line.to_string()).collect();
        let lines = format!("line{} {}", if lines.len() == 1 { "" } else { "s" }, lines.join(", "));
        let nature =
            self.desc.rules.iter().find(|r| r.head.rel == Sym::ROLE && r.head.args == [Term::Const(Sym::RANDOM)]);
        match nature {
            Some(role) => {
                let msg = format!(
                    "GDL-II: role 'random' is nature, whose moves are chance, and 'sees' rules ({lines}) say \
                     what each role perceives; GDL has neither, so the game cannot be played as GDL"
                );
                self.error(role.pos, role, msg);
            }
            None => {
                let msg = format!(
                    "GDL-II: 'sees' rules ({lines}) say what each role perceives; played as GDL they are \
                     unused and every role sees every move"
                );
                self.report(Severity::Warning, first.pos, Some(first), msg);
            }
        }
    }

    fn check_keywords(&mut self, rule: &Rule) {
        if matches!(rule.head.rel, Sym::TRUE | Sym::DOES) {
            let msg =
                format!("'{}' cannot be the head of a rule: it is given by the game state or the moves", rule.head.rel);
            self.error(rule.pos, rule, msg);
        }
        self.check_atom_arity(&rule.head, rule.pos, rule);
        for (lit, pos) in rule.body.iter().zip(&rule.body_pos) {
            let mut atoms = Vec::new();
            lit.for_each_atom(true, &mut |a, _| atoms.push(a));
            for atom in atoms {
                self.check_atom_arity(atom, *pos, rule);
            }
        }
        if rule.head.rel == Sym::GOAL && rule.head.args.len() == 2 {
            if let Term::Const(v) = &rule.head.args[1] {
                if v.as_number().is_none_or(|n| n > 100) {
                    let msg = format!("goal value '{v}' is not an integer from 0 to 100");
                    self.report(Severity::Warning, rule.pos, Some(rule), msg);
                }
            }
        }
    }

    fn check_atom_arity(&mut self, atom: &Atom, pos: Pos, rule: &Rule) {
        if let Some(n) = keyword_arity(atom.rel) {
            if atom.args.len() != n {
                let msg = format!("'{}' takes {n} argument{}, found {}", atom.rel, plural(n), atom.args.len());
                self.error(pos, rule, msg);
            }
        }
    }

    /// Every variable in the head, in a negation or in a `distinct` must occur in a positive
    /// literal of the same (or-free) body.
    fn check_safety(&mut self, rule: &Rule) {
        if variant_count(rule) > MAX_VARIANTS {
            let msg = format!(
                "the rule's 'or's expand into more than {MAX_VARIANTS} alternatives; split it into several rules"
            );
            self.error(rule.pos, rule, msg);
            return;
        }
        for body in normal_bodies(rule) {
            let mut bound = FxHashSet::default();
            for lit in &body {
                if let Lit::Pos(a) = lit {
                    a.for_each_var(&mut |v| {
                        bound.insert(v);
                    });
                }
            }
            let mut unsafe_vars = Vec::new();
            let mut need = |v: Sym, place: &'static str| {
                if !bound.contains(&v) && !unsafe_vars.iter().any(|(u, _)| *u == v) {
                    unsafe_vars.push((v, place));
                }
            };
            rule.head.for_each_var(&mut |v| need(v, "the head"));
            for lit in &body {
                match lit {
                    Lit::Pos(_) => {}
                    Lit::Neg(_) => lit.for_each_var(&mut |v| need(v, "a negation")),
                    Lit::Distinct(..) | Lit::Same(..) => lit.for_each_var(&mut |v| need(v, "a 'distinct'")),
                }
            }
            if let Some((v, place)) = unsafe_vars.first() {
                let msg = format!(
                    "unsafe rule: variable ?{v} occurs in {place} but in no positive literal of the body{}",
                    if rule.body.iter().any(|l| matches!(l, Literal::Or(_))) {
                        " (in some branch of an 'or')"
                    } else {
                        ""
                    }
                );
                self.error(rule.pos, rule, msg);
                return;
            }
        }
    }

    /// A relation used with two different arities is almost always a typo.
    fn check_arities(&mut self) {
        let mut arity: FxHashMap<Sym, (usize, Pos)> = FxHashMap::default();
        for rule in &self.desc.rules {
            let mut atoms = vec![(&rule.head, rule.pos)];
            for (lit, pos) in rule.body.iter().zip(&rule.body_pos) {
                lit.for_each_atom(true, &mut |a, _| atoms.push((a, *pos)));
            }
            for (atom, pos) in atoms {
                if keyword_arity(atom.rel).is_some() {
                    continue;
                }
                let (n, first) = *arity.entry(atom.rel).or_insert((atom.args.len(), pos));
                if n != atom.args.len() {
                    let msg = format!(
                        "relation '{}' is used with {} argument{} here but with {n} at {first}",
                        atom.rel,
                        atom.args.len(),
                        plural(atom.args.len())
                    );
                    self.error(pos, rule, msg);
                }
            }
        }
    }

    fn check_undefined(&mut self, graph: &Graph) {
        let mut reported = FxHashSet::default();
        for rule in &self.desc.rules {
            for (lit, pos) in rule.body.iter().zip(&rule.body_pos) {
                let mut missing = Vec::new();
                lit.for_each_atom(true, &mut |a, _| {
                    if !graph.defined.contains(&a.rel) && !matches!(a.rel, Sym::TRUE | Sym::DOES) {
                        missing.push(a.rel);
                    }
                });
                for rel in missing {
                    if reported.insert(rel) {
                        let msg = format!("relation '{rel}' is never defined, so it is always false");
                        self.report(Severity::Warning, *pos, Some(rule), msg);
                    }
                }
            }
        }
    }

    /// No atom may depend on its own negation, directly or through a cycle. Checked on relations
    /// first; where a relation depends negatively on itself, on atoms ([`crate::strata`]).
    fn check_stratification(&mut self, graph: &Graph) {
        let mut suspect = Vec::new();
        for rule in &self.desc.rules {
            for lit in &rule.body {
                lit.for_each_atom(true, &mut |a, positive| {
                    if !positive && graph.same_scc(rule.head.rel, a.rel) && !suspect.contains(&a.rel) {
                        suspect.push(a.rel);
                    }
                });
            }
        }
        if suspect.is_empty() {
            return;
        }
        if let Some(cycle) = crate::strata::negative_cycle(self.desc, |a, b| graph.same_scc(a, b), &suspect) {
            let rule = &self.desc.rules[cycle.rule];
            let msg = format!("negation is not stratified: {}", cycle.describe());
            self.error(rule.body_pos[cycle.literal], rule, msg);
        }
    }

    /// GDL's recursion restriction: in a rule for `p`, each argument of a body atom whose relation
    /// is recursive with `p` must be ground, one of the head's arguments, or a variable or an
    /// argument of a positive body atom whose relation is not recursive with `p`. This bounds
    /// recursion: a recursive call can never build ever larger terms such as `(f ?x)`.
    fn check_recursion_restriction(&mut self, graph: &Graph) {
        for rule in &self.desc.rules {
            let head = rule.head.rel;
            let mut head_vars = FxHashSet::default();
            rule.head.for_each_var(&mut |v| {
                head_vars.insert(v);
            });
            let mut outside_vars = FxHashSet::default();
            let mut outside_args = Vec::new();
            for lit in &rule.body {
                if let Literal::Atom(a) = lit {
                    if !graph.same_scc(head, a.rel) {
                        a.for_each_var(&mut |v| {
                            outside_vars.insert(v);
                        });
                        outside_args.extend(a.args.iter());
                    }
                }
            }
            let allowed = |arg: &Term| match arg {
                Term::Var(v) => head_vars.contains(v) || outside_vars.contains(v),
                _ => arg.is_ground() || rule.head.args.contains(arg) || outside_args.contains(&arg),
            };
            for (lit, pos) in rule.body.iter().zip(&rule.body_pos) {
                let mut offending: Option<(Sym, String)> = None;
                lit.for_each_atom(true, &mut |a, positive| {
                    if positive && offending.is_none() && graph.same_scc(head, a.rel) {
                        offending = a.args.iter().find(|arg| !allowed(arg)).map(|t| (a.rel, t.to_string()));
                    }
                });
                if let Some((rel, arg)) = offending {
                    let msg = format!(
                        "recursion restriction violated: '{rel}' is recursive with '{head}', so its argument {arg} must be ground, a head argument, or a variable or argument of a positive literal of a non-recursive relation"
                    );
                    self.error(*pos, rule, msg);
                }
            }
        }
    }

    /// Keyword placement: what `init`, `role`, `base`, `input`, `legal`, `goal` and `terminal`
    /// may depend on.
    fn check_dependencies(&mut self, graph: &Graph) {
        let forbidden: &[(Sym, &[Sym])] = &[
            (Sym::ROLE, &[Sym::TRUE, Sym::DOES]),
            (Sym::BASE, &[Sym::TRUE, Sym::DOES]),
            (Sym::INPUT, &[Sym::TRUE, Sym::DOES]),
            (Sym::INIT, &[Sym::TRUE, Sym::DOES, Sym::NEXT, Sym::LEGAL, Sym::GOAL, Sym::TERMINAL]),
            (Sym::LEGAL, &[Sym::DOES]),
            (Sym::GOAL, &[Sym::DOES]),
            (Sym::TERMINAL, &[Sym::DOES]),
        ];
        let mut reported = FxHashSet::default();
        for rule in &self.desc.rules {
            let Some((_, banned)) = forbidden.iter().find(|(k, _)| *k == rule.head.rel) else {
                continue;
            };
            for (lit, pos) in rule.body.iter().zip(&rule.body_pos) {
                let mut atoms = Vec::new();
                lit.for_each_atom(true, &mut |a, _| atoms.push(a.rel));
                for rel in atoms {
                    if let Some(path) = banned.iter().find_map(|b| graph.path(rel, *b)) {
                        let target = path[path.len() - 1];
                        // One report per keyword and forbidden target is enough to find the cause.
                        if !reported.insert((rule.head.rel, target)) {
                            continue;
                        }
                        let via =
                            if path.len() > 1 { format!(" (through {})", show_path(&path)) } else { String::new() };
                        let msg = format!("'{}' must not depend on '{target}'{via}", rule.head.rel);
                        self.error(*pos, rule, msg);
                    }
                }
            }
        }
    }
}

/// A dependency path `a -> b -> c`, with the middle elided when it is long.
fn show_path(path: &[Sym]) -> String {
    const KEEP: usize = 3;
    let names: Vec<&str> = path.iter().map(|s| s.as_str()).collect();
    if names.len() <= 2 * KEEP + 1 {
        return names.join(" -> ");
    }
    format!(
        "{} -> ... ({} more) ... -> {}",
        names[..KEEP].join(" -> "),
        names.len() - 2 * KEEP,
        names[names.len() - KEEP..].join(" -> ")
    )
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn shorten(text: &str) -> String {
    const MAX: usize = 160;
    if text.chars().count() <= MAX {
        text.to_owned()
    } else {
        let mut s: String = text.chars().take(MAX).collect();
        s.push_str(" ...");
        s
    }
}

/// The relation dependency graph: an edge from each rule head to each relation in its body.
struct Graph {
    edges: FxHashMap<Sym, Vec<Sym>>,
    scc: FxHashMap<Sym, usize>,
    defined: FxHashSet<Sym>,
}

impl Graph {
    fn new(desc: &Description) -> Graph {
        let mut edges: FxHashMap<Sym, Vec<Sym>> = FxHashMap::default();
        let mut defined = FxHashSet::default();
        for rule in &desc.rules {
            defined.insert(rule.head.rel);
            let out = edges.entry(rule.head.rel).or_default();
            for lit in &rule.body {
                lit.for_each_atom(true, &mut |a, _| {
                    if !out.contains(&a.rel) {
                        out.push(a.rel);
                    }
                });
            }
        }
        let scc = strongly_connected(&edges);
        Graph { edges, scc, defined }
    }

    /// Whether `a` and `b` are mutually recursive (or the same relation with a self-loop cycle).
    fn same_scc(&self, a: Sym, b: Sym) -> bool {
        match (self.scc.get(&a), self.scc.get(&b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        }
    }

    /// A shortest dependency path from `from` to `to` (inclusive), if `from` depends on `to`.
    fn path(&self, from: Sym, to: Sym) -> Option<Vec<Sym>> {
        let mut parent: FxHashMap<Sym, Sym> = FxHashMap::default();
        let mut queue = VecDeque::from([from]);
        let mut seen = FxHashSet::from_iter([from]);
        while let Some(n) = queue.pop_front() {
            if n == to {
                let mut path = vec![n];
                let mut cur = n;
                while let Some(&p) = parent.get(&cur) {
                    path.push(p);
                    cur = p;
                }
                path.reverse();
                return Some(path);
            }
            for &m in self.edges.get(&n).map(Vec::as_slice).unwrap_or(&[]) {
                if seen.insert(m) {
                    parent.insert(m, n);
                    queue.push_back(m);
                }
            }
        }
        None
    }
}

/// A component number for every node that lies on a cycle of `edges` (nodes outside any
/// cycle get no entry, so `same_scc` is false for them).
pub(crate) fn strongly_connected<N: Copy + Eq + Hash + Ord>(edges: &FxHashMap<N, Vec<N>>) -> FxHashMap<N, usize> {
    let mut nodes: Vec<N> = edges.keys().chain(edges.values().flatten()).copied().collect();
    nodes.sort();
    nodes.dedup();
    let index = |n: &N| nodes.binary_search(n).expect("listed") as u32;
    let inputs: Vec<Vec<u32>> =
        nodes.iter().map(|n| edges.get(n).map_or(Vec::new(), |e| e.iter().map(index).collect())).collect();
    let components = Components::of(&inputs, nodes.len(), 0..nodes.len() as u32);
    let mut result = FxHashMap::default();
    for (i, n) in nodes.iter().enumerate() {
        let c = components.group_of[i] as usize;
        if components.cyclic[c] {
            result.insert(*n, c);
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    const HEADER: &str = "(role r)\n(init (p))\n(<= (legal r a) (true (p)))\n(<= (next (p)) (does r a))\n(<= terminal (true (p)))\n(goal r 100)\n";

    fn problems(extra: &str) -> Vec<Problem> {
        let text = format!("{HEADER}{extra}");
        validate(&parse("g.kif", &text).expect("parses"))
    }

    fn errors(extra: &str) -> Vec<String> {
        problems(extra).into_iter().filter(|p| p.severity == Severity::Error).map(|p| p.to_string()).collect()
    }

    #[test]
    fn a_clean_game_has_no_problems() {
        assert!(problems("").is_empty(), "{:?}", problems(""));
    }

    #[test]
    fn unsafe_rules() {
        let e = errors("(<= (q ?x) (true (p)))");
        assert_eq!(e.len(), 1);
        assert!(e[0].starts_with("g.kif:7:1: error: unsafe rule: variable ?x occurs in the head"), "{}", e[0]);
        assert!(errors("(<= (q ?x) (s ?x) (not (t ?y)))\n(s a)\n(t a)")[0].contains("?y occurs in a negation"));
        assert!(errors("(<= (q ?x) (s ?x) (distinct ?x ?z))\n(s a)")[0].contains("?z occurs in a 'distinct'"));
        assert!(errors("(<= (q ?x) (or (s ?x) (t a)))\n(s a)\n(t a)")[0].contains("some branch of an 'or'"));
        assert!(errors("(<= (q ?x) (or (s ?x) (t ?x)))\n(s a)\n(t a)").is_empty());
    }

    #[test]
    fn unstratified_negation() {
        let e = errors("(<= (q ?x) (s ?x) (not (t ?x)))\n(<= (t ?x) (s ?x) (q ?x))\n(s a)");
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(
            e[0].contains(
                "g.kif:7:19: error: negation is not stratified: (q ?x) depends on not (t ?x), (t ?x) depends on \
                 (q ?x) again"
            ),
            "{}",
            e[0]
        );
        assert!(errors("(<= (q ?x) (s ?x) (not (t ?x)))\n(<= (t ?x) (s ?x))\n(s a)").is_empty());
    }

    #[test]
    fn negation_of_another_atom_of_the_same_relation_is_stratified() {
        // As published games write their goals: a relation negating itself, but no atom.
        let goals = "(<= (goal ?r 0) (role ?r) (not (goal ?r 100)) (not (goal ?r 50)))
            (<= (goal ?r 100) (role ?r) (true win))
            (<= (goal ?r 50) (role ?r) (true draw))";
        assert!(errors(goals).is_empty(), "{:?}", errors(goals));
        let chain = "(<= (goal robot 100) (not (goal robot 0)))\n(<= (goal robot 0) (true lost))";
        assert!(errors(chain).is_empty(), "{:?}", errors(chain));
    }

    #[test]
    fn a_ground_atom_negating_itself_is_named() {
        let e = errors("(<= (p a) (s a) (not (p b)))\n(<= (p b) (p c))\n(<= (p c) (not (p a)))\n(s a)");
        assert_eq!(e.len(), 1, "{e:?}");
        let cycle = "(p a) depends on not (p b), (p b) depends on (p c), (p c) depends on not (p a) again";
        assert!(e[0].contains(&format!("g.kif:7:17: error: negation is not stratified: {cycle}")), "{}", e[0]);
        // A variable bound to the negated atom's own value makes a cycle too.
        let e = errors("(<= (p ?x) (s ?x) (not (p a)))\n(s a)");
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].contains("(p ?x) depends on not (p a), which (p ?x) defines"), "{}", e[0]);
    }

    #[test]
    fn recursion_restriction() {
        let ok = "(<= (reach ?x) (s ?x))\n(<= (reach ?y) (reach ?x) (edge ?x ?y))\n(s a)\n(edge a b)";
        assert!(errors(ok).is_empty(), "{:?}", errors(ok));
        let bad = "(<= (q ?x) (s ?x) (q ?y))\n(s a)";
        assert!(
            errors(bad)[0].contains("recursion restriction violated: 'q' is recursive with 'q', so its argument ?y")
        );
        // A recursive call may not build a larger term from a head variable.
        let growing = "(<= (q ?x) (s ?x))\n(<= (q ?x) (q (f ?x)) (r ?x))\n(s a)\n(r a)";
        assert!(errors(growing)[0].contains("so its argument (f ?x) must be ground"), "{:?}", errors(growing));
        let bounded = "(<= (q ?fy) (q ?fx) (s ?fx ?fy))\n(<= (q (f ?y)) (q (f ?y)) (s ?y ?y))\n(s a b)\n(q (f a))";
        assert!(errors(bounded).is_empty(), "{:?}", errors(bounded));
        let inner = "(<= (q ?x) (q (f ?x)) (s ?x ?x))\n(s a a)";
        assert!(errors(inner)[0].contains("its argument (f ?x) must be ground"), "{:?}", errors(inner));
    }

    #[test]
    fn keyword_placement() {
        let e = errors("(<= (legal r b) (helper))\n(<= (helper) (does r a))");
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].contains("'legal' must not depend on 'does' (through helper -> does)"), "{}", e[0]);
        assert!(errors("(<= (init (q)) (true (p)))")[0].contains("'init' must not depend on 'true'"));
        assert!(errors("(<= (true (q)) (s))\n(s)")[0].contains("'true' cannot be the head"));
        assert!(errors("(<= (role q) (s))\n(s)")[0].contains("'role' must be given by facts"));
        assert!(errors("(role r)")[0].contains("role 'r' is declared twice"));
        assert!(errors("(<= (legal r) (true (p)))")[0].contains("'legal' takes 2 arguments, found 1"));
    }

    #[test]
    fn arity_mismatch_and_warnings() {
        assert!(errors("(s a)\n(<= (q) (s a b))")[0]
            .contains("relation 's' is used with 2 arguments here but with 1 at 7:1"));
        let p = problems("(<= (q) (undefined a))\n(goal r high)");
        assert!(p.iter().all(|p| p.severity == Severity::Warning));
        assert!(p.iter().any(|p| p.message.contains("'undefined' is never defined")));
        assert!(p.iter().any(|p| p.message.contains("goal value 'high'")));
    }

    #[test]
    fn a_game_without_legal_terminal_or_goal_rules_is_incomplete() {
        let errors = |text: &str| -> Vec<String> {
            let problems = validate(&parse("g.kif", text).expect("parses"));
            problems.into_iter().filter(|p| p.severity == Severity::Incomplete).map(|p| p.message).collect()
        };
        assert_eq!(errors(HEADER), Vec::<String>::new());
        assert_eq!(
            errors("(role r) (init (p)) (legal r a)"),
            ["no rule defines 'terminal': no game ever ends", "no rule defines 'goal': no role is ever scored"]
        );
        assert_eq!(
            errors("(role r) (<= terminal (true (p))) (goal r 100)"),
            ["no rule defines 'legal': no role ever has a legal move"]
        );
    }

    #[test]
    fn gdl_ii_is_named_and_refused_only_with_nature() {
        let hidden = "(role a) (role b) (<= (sees a (saw ?m)) (does b ?m))";
        let problems = |extra: &str| validate(&parse("g.kif", &format!("{HEADER} {hidden} {extra}")).unwrap());
        let without_nature = problems("");
        let [p] = &without_nature[..] else { panic!("{without_nature:?}") };
        assert_eq!(p.severity, Severity::Warning);
        assert!(p.message.starts_with("GDL-II: 'sees' rules (line 7)"), "{}", p.message);
        let with_nature = problems("(role random)");
        assert!(
            with_nature
                .iter()
                .any(|p| p.severity == Severity::Error && p.message.starts_with("GDL-II: role 'random' is nature")),
            "{with_nature:?}"
        );
        // A role named random is nature only in GDL-II.
        let plain = validate(&parse("g.kif", &format!("{HEADER} (role a) (role random)")).unwrap());
        assert!(plain.is_empty(), "{plain:?}");
    }

    #[test]
    fn no_roles() {
        let d = parse("e.kif", "(init (p))").unwrap();
        assert!(validate(&d).iter().any(|p| p.message == "the game declares no role"));
    }

    #[test]
    fn exploding_or_is_refused_quickly() {
        let ors = "(or (q a) (q b)) ".repeat(20);
        let e = errors(&format!("(q a) (q b) (<= (z ?x) (q ?x) {ors})"));
        assert!(e.iter().any(|e| e.contains("expand into more than 4096 alternatives")), "{e:?}");
    }

    #[test]
    fn dependency_violations_are_reported_once_with_a_short_path() {
        let mut chain = String::new();
        for i in 0..20 {
            chain.push_str(&format!("(<= (c{i}) (c{}))\n", i + 1));
        }
        chain.push_str("(<= (c20) (does r a))\n(<= (goal r 1) (c0))\n(<= (goal r 2) (c0))\n");
        let e = errors(&chain);
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].contains("(through c0 -> c1 -> c2 -> ... (16 more) ... -> c19 -> c20 -> does)"), "{}", e[0]);
    }
}
