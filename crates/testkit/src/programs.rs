//! Random small GDL programs for property tests: safe and stratified by construction, with self
//! and mutual recursion, recursion through function terms, stratified negation, `distinct`,
//! `or`, `true` and `does`, each with a few scenarios (a state and a joint move) to evaluate in.

use crate::oracle::Scenario;
use gdl::{normal_bodies, Atom, Description, Lit, Literal, Rule, Sym, Term};
use proptest::prelude::*;
use std::collections::{BTreeSet, HashSet};

/// A generated program, the scenarios to evaluate it in, and a seed for whatever else the test
/// draws at random (query orders).
#[derive(Debug, Clone)]
pub struct Generated {
    /// The program (roles `r1` and `r2`; `true` reads `cell`, `on` and `ctl`; no game keywords
    /// beyond `role`, `true` and `does`).
    pub desc: Description,
    /// The scenarios: two states, three joint moves.
    pub scenarios: Vec<Scenario>,
    /// A seed for the test's own random choices.
    pub seed: u64,
}

impl Generated {
    /// The program as text, with every positive `(true ?x)` (a bare variable) reading `(st ?x)`
    /// instead, `st` being the state restricted to the scenarios' propositions. Made a game whose
    /// outputs show the program's relations, a bare `(true ?x)` would read those outputs back
    /// (`(obs (obs ...))`, without end); in the scenarios the two mean the same, so a test
    /// evaluates this text on both sides.
    pub fn bounded_text(&self) -> String {
        let mut text = String::new();
        for r in &self.desc.rules {
            let body = r.body.iter().map(|l| bounded(l, true)).collect();
            text.push_str(&format!("{}\n", Rule { body, ..r.clone() }));
        }
        text.push_str("(<= (st ?x) (true ?x) (state_atom ?x))\n");
        for s in self.state_props() {
            text.push_str(&format!("(state_atom {s})\n"));
        }
        text
    }

    /// Facts that make the program part of a game in which every scenario can be set up: each
    /// state proposition initially true (so each is a base proposition) and each move always
    /// legal.
    pub fn game_facts(&self) -> String {
        let moves: BTreeSet<String> =
            self.scenarios.iter().flat_map(|sc| sc.moves.iter().map(|(r, m)| format!("{r} {m}"))).collect();
        let mut text = String::new();
        for s in self.state_props() {
            text.push_str(&format!("(init {s})\n"));
        }
        for m in &moves {
            text.push_str(&format!("(legal {m})\n"));
        }
        text
    }

    /// Every state proposition of the scenarios, printed.
    pub fn state_props(&self) -> BTreeSet<String> {
        self.scenarios.iter().flat_map(|sc| sc.state.iter().map(Term::to_string)).collect()
    }
}

/// `lit` with every positive `(true ?x)` reading `(st ?x)`.
fn bounded(lit: &Literal, positive: bool) -> Literal {
    match lit {
        Literal::Atom(a) if positive && a.rel == Sym::TRUE && matches!(a.args[0], Term::Var(_)) => {
            Literal::Atom(Atom { rel: Sym::new("st"), args: a.args.clone() })
        }
        Literal::Not(l) => Literal::Not(Box::new(bounded(l, !positive))),
        Literal::Or(ls) => Literal::Or(ls.iter().map(|l| bounded(l, positive)).collect()),
        l => l.clone(),
    }
}

/// The generator of programs.
pub fn programs() -> impl Strategy<Value = Generated> {
    prog_spec().prop_map(|spec| build(&spec))
}

const CONSTS: [&str; 4] = ["0", "1", "2", "3"];
const VARS: [&str; 3] = ["x", "y", "z"];

#[derive(Debug, Clone)]
enum ArgSpec {
    Var(u8),
    Const(u8),
    F(Box<ArgSpec>),
    G(Box<ArgSpec>, Box<ArgSpec>),
}

#[derive(Debug, Clone)]
enum LitSpec {
    Pos(u8, Vec<ArgSpec>),
    Neg(u8, Vec<ArgSpec>),
    True(bool, u8, Vec<ArgSpec>),
    Does(bool, u8, u8, ArgSpec),
    Distinct(bool, ArgSpec, ArgSpec),
    Or(Vec<LitSpec>),
}

#[derive(Debug, Clone)]
struct RuleSpec {
    head: u8,
    args: Vec<ArgSpec>,
    body: Vec<LitSpec>,
}

#[derive(Debug, Clone)]
enum Template {
    /// Transitive closure: shape 0 left, 1 right, 2 doubly recursive; over `edge`, the state's
    /// `on` or both.
    Closure { shape: u8, source: u8 },
    /// `even`/`odd` over `succ`, each calling the other with the argument bound or free.
    EvenOdd { even_bound: bool, odd_bound: bool },
    /// A counter inside a function term, bounded by `succ`.
    Count { bound: bool },
    /// A three-relation cycle seeded by the state.
    Cycle { variant: u8 },
    /// Random rules among five relations of arity 0 or 1 (head, first call, optional second
    /// call, shape) and a few facts: dense cycles of every shape.
    Graph { unary: bool, rules: Vec<(u8, u8, Option<u8>, u8)>, facts: Vec<(u8, u8)> },
}

#[derive(Debug, Clone)]
struct StateSpec {
    cells: Vec<bool>,
    on: Vec<(u8, u8)>,
    ctl: u8,
}

#[derive(Debug, Clone)]
struct ProgSpec {
    /// (arity, stratum) of each generated relation.
    preds: Vec<(usize, usize)>,
    templates: Vec<Template>,
    edges: Vec<(u8, u8)>,
    facts: Vec<(u8, Vec<ArgSpec>)>,
    rules: Vec<RuleSpec>,
    states: Vec<StateSpec>,
    moves: Vec<[(u8, u8); 2]>,
    seed: u64,
}

fn arg_leaf() -> impl Strategy<Value = ArgSpec> {
    prop_oneof![4 => (0u8..3).prop_map(ArgSpec::Var), 1 => (0u8..4).prop_map(ArgSpec::Const)]
}

fn arg() -> impl Strategy<Value = ArgSpec> {
    prop_oneof![
        12 => arg_leaf(),
        1 => arg_leaf().prop_map(|a| ArgSpec::F(Box::new(a))),
        1 => (arg_leaf(), arg_leaf()).prop_map(|(a, b)| ArgSpec::G(Box::new(a), Box::new(b))),
    ]
}

fn args() -> impl Strategy<Value = Vec<ArgSpec>> {
    proptest::collection::vec(arg(), 3)
}

fn simple_lit() -> impl Strategy<Value = LitSpec> {
    prop_oneof![
        8 => (any::<u8>(), args()).prop_map(|(p, a)| LitSpec::Pos(p, a)),
        2 => (any::<u8>(), args()).prop_map(|(p, a)| LitSpec::Neg(p, a)),
        3 => (any::<bool>(), 0u8..4, args()).prop_map(|(n, k, a)| LitSpec::True(n, k, a)),
        1 => (any::<bool>(), 0u8..4, 0u8..3, arg()).prop_map(|(n, r, k, a)| LitSpec::Does(n, r, k, a)),
        2 => (any::<bool>(), arg(), arg()).prop_map(|(n, a, b)| LitSpec::Distinct(n, a, b)),
    ]
}

fn lit() -> impl Strategy<Value = LitSpec> {
    prop_oneof![8 => simple_lit(), 1 => proptest::collection::vec(simple_lit(), 2..=3).prop_map(LitSpec::Or)]
}

fn template() -> impl Strategy<Value = Template> {
    prop_oneof![
        1 => (0u8..3, 0u8..3).prop_map(|(shape, source)| Template::Closure { shape, source }),
        1 => (any::<bool>(), any::<bool>()).prop_map(|(even_bound, odd_bound)| Template::EvenOdd { even_bound, odd_bound }),
        1 => any::<bool>().prop_map(|bound| Template::Count { bound }),
        1 => (0u8..3).prop_map(|variant| Template::Cycle { variant }),
        2 => graph(),
    ]
}

fn graph() -> impl Strategy<Value = Template> {
    (
        any::<bool>(),
        proptest::collection::vec((0u8..6, 0u8..6, proptest::option::of(0u8..6), 0u8..4), 2..=16),
        proptest::collection::vec((0u8..6, 0u8..4), 1..=3),
    )
        .prop_map(|(unary, rules, facts)| Template::Graph { unary, rules, facts })
}

fn state_spec() -> impl Strategy<Value = StateSpec> {
    (proptest::collection::vec(any::<bool>(), 4), proptest::collection::vec((0u8..4, 0u8..4), 0..6), 0u8..5)
        .prop_map(|(cells, on, ctl)| StateSpec { cells, on, ctl })
}

fn prog_spec() -> impl Strategy<Value = ProgSpec> {
    use proptest::collection::vec;
    (
        vec((prop_oneof![2 => Just(0usize), 3 => Just(1), 3 => Just(2), 1 => Just(3)], 0usize..3), 1..=6),
        // Every program has a dense random graph of rules, the best finder of recursion bugs.
        (graph(), vec(template(), 0..=2)).prop_map(|(g, mut t)| {
            t.insert(0, g);
            t
        }),
        vec((0u8..4, 0u8..4), 0..=6),
        vec((any::<u8>(), args()), 0..=5),
        vec(
            (any::<u8>(), args(), vec(lit(), 1..=4)).prop_map(|(head, args, body)| RuleSpec { head, args, body }),
            1..=12,
        ),
        vec(state_spec(), 2),
        vec([(0u8..3, 0u8..4), (0u8..3, 0u8..4)], 3),
        any::<u64>(),
    )
        .prop_map(|(preds, templates, edges, facts, rules, states, moves, seed)| ProgSpec {
            preds,
            templates,
            edges,
            facts,
            rules,
            states,
            moves,
            seed,
        })
}

fn c(name: &str) -> Term {
    Term::Const(Sym::new(name))
}

fn v(name: &str) -> Term {
    Term::Var(Sym::new(name))
}

fn func(name: &str, args: Vec<Term>) -> Term {
    Term::Func(Sym::new(name), args)
}

fn atom(rel: Sym, args: Vec<Term>) -> Atom {
    Atom { rel, args }
}

fn term(a: &ArgSpec, ground: bool, flat: bool) -> Term {
    match a {
        ArgSpec::Var(i) if ground => c(CONSTS[*i as usize % CONSTS.len()]),
        ArgSpec::Var(i) => v(VARS[*i as usize % VARS.len()]),
        ArgSpec::Const(i) => c(CONSTS[*i as usize % CONSTS.len()]),
        ArgSpec::F(x) | ArgSpec::G(x, _) if flat => term(x, ground, flat),
        ArgSpec::F(x) => func("f", vec![term(x, ground, flat)]),
        ArgSpec::G(x, y) => func("g", vec![term(x, ground, flat), term(y, ground, flat)]),
    }
}

/// The first `n` arguments of a spec, padded with variables.
fn arg_terms(spec: &[ArgSpec], n: usize, ground: bool, flat: bool) -> Vec<Term> {
    (0..n)
        .map(|i| spec.get(i).map_or_else(|| term(&ArgSpec::Var(i as u8), ground, flat), |a| term(a, ground, flat)))
        .collect()
}

/// A relation of the generated program.
#[derive(Clone, Copy)]
struct RelInfo {
    rel: Sym,
    arity: usize,
    /// `None` for the fact-only (EDB) relations, which are below every stratum.
    stratum: Option<usize>,
}

fn true_atom(kind: u8, a: &[ArgSpec]) -> Atom {
    let arg = match kind {
        0 => func("cell", arg_terms(a, 1, false, false)),
        1 => func("on", arg_terms(a, 2, false, false)),
        2 => func("ctl", arg_terms(a, 1, false, false)),
        _ => arg_terms(a, 1, false, true).remove(0),
    };
    atom(Sym::TRUE, vec![arg])
}

fn does_atom(role: u8, kind: u8, a: &ArgSpec) -> Atom {
    let role = match role {
        0 => c("r1"),
        1 => c("r2"),
        r => v(VARS[r as usize % VARS.len()]),
    };
    let mv = match kind {
        0 => func("mv", vec![term(a, false, true)]),
        1 => c("noop"),
        _ => term(a, false, true),
    };
    atom(Sym::DOES, vec![role, mv])
}

fn literal(spec: &LitSpec, head: &RelInfo, rels: &[RelInfo]) -> Literal {
    let level = head.stratum.expect("heads are generated relations");
    let pick = |p: u8, strict: bool| {
        let allowed: Vec<&RelInfo> =
            rels.iter().filter(|r| r.stratum.is_none_or(|s| if strict { s < level } else { s <= level })).collect();
        *allowed[p as usize % allowed.len()]
    };
    match spec {
        LitSpec::Pos(p, a) => {
            // Half the calls go to the head's own stratum, where the cycles are.
            let same: Vec<&RelInfo> = rels.iter().filter(|r| r.stratum == Some(level)).collect();
            let r =
                if p % 2 == 0 && !same.is_empty() { *same[(p / 2) as usize % same.len()] } else { pick(p / 2, false) };
            // The recursion restriction allows no function term with variables in a call that
            // may be recursive.
            let flat = r.stratum == Some(level);
            Literal::Atom(atom(r.rel, arg_terms(a, r.arity, false, flat)))
        }
        LitSpec::Neg(p, a) => {
            let r = pick(*p, true);
            Literal::Not(Box::new(Literal::Atom(atom(r.rel, arg_terms(a, r.arity, false, false)))))
        }
        LitSpec::True(neg, kind, a) => {
            let l = Literal::Atom(true_atom(*kind, a));
            if *neg {
                Literal::Not(Box::new(l))
            } else {
                l
            }
        }
        LitSpec::Does(neg, role, kind, a) => {
            let l = Literal::Atom(does_atom(*role, *kind, a));
            if *neg {
                Literal::Not(Box::new(l))
            } else {
                l
            }
        }
        LitSpec::Distinct(neg, a, b) => {
            let l = Literal::Distinct(term(a, false, false), term(b, false, false));
            if *neg {
                Literal::Not(Box::new(l))
            } else {
                l
            }
        }
        LitSpec::Or(ls) => Literal::Or(ls.iter().map(|l| literal(l, head, rels)).collect()),
    }
}

fn rule(head: Atom, body: Vec<Literal>) -> Rule {
    let body_pos = vec![Default::default(); body.len()];
    Rule { head, body, pos: Default::default(), body_pos }
}

/// Makes a generated rule safe and recursion-restricted by adding `(dom ?v)` for every variable
/// that needs a binding it lacks; `recursive` holds the relations that may be recursive with the
/// head (those of its stratum).
fn make_safe(mut r: Rule, recursive: &HashSet<Sym>) -> Rule {
    let mut extra = BTreeSet::new();
    for body in normal_bodies(&r) {
        let mut bound = HashSet::new();
        for l in &body {
            if let Lit::Pos(a) = l {
                a.for_each_var(&mut |v| {
                    bound.insert(v);
                });
            }
        }
        let mut need = |v: Sym| {
            if !bound.contains(&v) {
                extra.insert(v.as_str());
            }
        };
        r.head.for_each_var(&mut need);
        for l in &body {
            if !matches!(l, Lit::Pos(_)) {
                l.for_each_var(&mut need);
            }
        }
    }
    let mut grounded = HashSet::new();
    r.head.for_each_var(&mut |v| {
        grounded.insert(v);
    });
    for l in &r.body {
        if let Literal::Atom(a) = l {
            if !recursive.contains(&a.rel) {
                a.for_each_var(&mut |v| {
                    grounded.insert(v);
                });
            }
        }
    }
    for l in &r.body {
        l.for_each_atom(true, &mut |a, positive| {
            if positive && recursive.contains(&a.rel) {
                a.for_each_var(&mut |v| {
                    if !grounded.contains(&v) {
                        extra.insert(v.as_str());
                    }
                });
            }
        });
    }
    for name in extra {
        r.body.push(Literal::Atom(atom(Sym::new("dom"), vec![v(name)])));
    }
    rule(r.head, r.body)
}

fn has_var(t: &Term, vars: &HashSet<Sym>) -> bool {
    let mut found = false;
    t.for_each_var(&mut |v| found |= vars.contains(&v));
    found
}

fn leaf(t: Term) -> Term {
    match t {
        Term::Func(_, args) => leaf(args.into_iter().next().expect("generated functions have arguments")),
        t => t,
    }
}

/// Replaces function terms holding a head variable in recursive calls by their first leaf.
fn no_growth(l: Literal, recursive: &HashSet<Sym>, head_vars: &HashSet<Sym>) -> Literal {
    match l {
        Literal::Atom(mut a) if recursive.contains(&a.rel) => {
            for t in &mut a.args {
                if matches!(t, Term::Func(..)) && has_var(t, head_vars) {
                    *t = leaf(t.clone());
                }
            }
            Literal::Atom(a)
        }
        Literal::Or(ls) => Literal::Or(ls.into_iter().map(|l| no_growth(l, recursive, head_vars)).collect()),
        l => l,
    }
}

/// The rules of a [`Template::Graph`].
fn graph_rules(
    k: usize,
    unary: bool,
    rules: &[(u8, u8, Option<u8>, u8)],
    facts: &[(u8, u8)],
    out: &mut Vec<Rule>,
    rels: &mut Vec<RelInfo>,
) {
    let name = |i: &u8| format!("g{k}x{i}");
    let mut text = String::new();
    for (h, j, second, shape) in rules {
        let (h, j) = (name(h), name(j));
        text += &if unary {
            let (body, var) = match shape {
                0 => (format!("({j} ?y)"), "?y"),
                1 => (format!("({j} ?x) (edge ?x ?y)"), "?x"),
                2 => (format!("(edge ?x ?y) ({j} ?x)"), "?y"),
                _ => (format!("(dom ?y) ({j} 1)"), "?y"),
            };
            let extra = second.map(|k| format!(" ({} {var})", name(&k))).unwrap_or_default();
            format!("(<= ({h} ?y) {body}{extra})\n")
        } else {
            let extra = second.map(|k| format!(" {}", name(&k))).unwrap_or_default();
            format!("(<= {h} {j}{extra})\n")
        };
    }
    // Facts last: base cases that arrive late keep cycles incomplete for longer.
    for (i, n) in facts {
        text += &if unary { format!("({} {n})\n", name(i)) } else { format!("{}\n", name(i)) };
    }
    for i in 0..6u8 {
        rels.push(RelInfo { rel: Sym::new(&name(&i)), arity: usize::from(unary), stratum: Some(0) });
    }
    out.extend(gdl::parse("template", &text).expect("template parses").rules);
}

fn template_rules(k: usize, t: &Template, out: &mut Vec<Rule>, rels: &mut Vec<RelInfo>) {
    let text = match t {
        Template::Closure { shape, source } => {
            let mut s = String::new();
            if *source != 1 {
                s += "(<= (tc ?x ?y) (edge ?x ?y))\n";
            }
            if *source != 0 {
                s += "(<= (tc ?x ?y) (true (on ?x ?y)))\n";
            }
            s += match shape {
                0 => "(<= (tc ?x ?y) (tc ?x ?z) (edge ?z ?y))\n",
                1 => "(<= (tc ?x ?y) (edge ?x ?z) (tc ?z ?y))\n",
                _ => "(<= (tc ?x ?y) (tc ?x ?z) (tc ?z ?y) (dom ?z))\n",
            };
            s
        }
        Template::EvenOdd { even_bound, odd_bound } => format!(
            "(ev 0)\n(<= (ev ?y) {})\n(<= (od ?y) {})\n",
            if *even_bound { "(succ ?x ?y) (od ?x)" } else { "(od ?x) (succ ?x ?y)" },
            if *odd_bound { "(succ ?x ?y) (ev ?x)" } else { "(ev ?x) (succ ?x ?y)" },
        ),
        // The recursion restriction forbids `(cnt (f ?x))` in a recursive call, so the function
        // terms are looked up in the non-recursive `ff` instead.
        Template::Count { bound } => format!(
            "(ff 0 (f 0))\n(ff 1 (f 1))\n(ff 2 (f 2))\n(ff 3 (f 3))\n(cnt (f 0))\n(<= (cnt ?fy) {})\n(<= (cnt (g ?x ?x)) (cnt ?fx) (ff ?x ?fx) (true (cell ?x)))\n",
            if *bound {
                "(ff ?y ?fy) (succ ?x ?y) (ff ?x ?fx) (cnt ?fx)"
            } else {
                "(cnt ?fx) (ff ?x ?fx) (succ ?x ?y) (ff ?y ?fy)"
            }
        ),
        Template::Graph { unary, rules, facts } => return graph_rules(k, *unary, rules, facts, out, rels),
        Template::Cycle { variant } => {
            let mut s = "(<= (ca ?x) (true (cell ?x)))\n(<= (cb ?x) (ca ?x))\n".to_owned();
            s += match variant {
                0 => "(<= (cc ?y) (cb ?x) (edge ?x ?y))\n(<= (ca ?x) (cc ?x))\n",
                1 => "(<= (cc ?y) (edge ?x ?y) (cb ?x))\n(<= (ca ?x) (cc ?x) (not (true (ctl ?x))))\n",
                _ => "(<= (cc ?y) (cb ?x) (succ ?x ?y))\n(<= (ca ?y) (cc ?x) (cb ?y) (edge ?x ?y))\n(<= (cb ?x) (cc ?x) (distinct ?x 3))\n",
            };
            s
        }
    };
    // Give every relation of the template a name of its own.
    let mut text = text;
    for (name, arity) in [("tc", 2), ("ev", 1), ("od", 1), ("cnt", 1), ("ca", 1), ("cb", 1), ("cc", 1)] {
        if text.contains(&format!("({name} ")) {
            let fresh = format!("{name}{k}");
            text = text.replace(&format!("({name} "), &format!("({fresh} "));
            rels.push(RelInfo { rel: Sym::new(&fresh), arity, stratum: Some(0) });
        }
    }
    out.extend(gdl::parse("template", &text).expect("template parses").rules);
}

/// The program and scenarios a spec stands for.
fn build(spec: &ProgSpec) -> Generated {
    let mut rules = Vec::new();
    let fact = |rel: &str, args: Vec<Term>| rule(atom(Sym::new(rel), args), Vec::new());
    rules.push(fact("role", vec![c("r1")]));
    rules.push(fact("role", vec![c("r2")]));
    for k in CONSTS {
        rules.push(fact("dom", vec![c(k)]));
    }
    for w in CONSTS.windows(2) {
        rules.push(fact("succ", vec![c(w[0]), c(w[1])]));
    }
    for &(a, b) in &spec.edges {
        rules.push(fact("edge", vec![c(CONSTS[a as usize]), c(CONSTS[b as usize])]));
    }
    let mut rels = vec![
        RelInfo { rel: Sym::new("dom"), arity: 1, stratum: None },
        RelInfo { rel: Sym::new("succ"), arity: 2, stratum: None },
        RelInfo { rel: Sym::new("edge"), arity: 2, stratum: None },
    ];
    if spec.edges.is_empty() {
        // Keep `edge` defined so the templates read it as an EDB relation.
        rules.push(fact("edge", vec![c("3"), c("3")]));
    }
    for (k, t) in spec.templates.iter().enumerate() {
        template_rules(k, t, &mut rules, &mut rels);
    }
    let mut generated: Vec<RelInfo> = spec
        .preds
        .iter()
        .enumerate()
        .map(|(i, &(arity, stratum))| RelInfo { rel: Sym::new(&format!("p{i}")), arity, stratum: Some(stratum) })
        .collect();
    rels.append(&mut generated);
    let heads: Vec<RelInfo> = rels.iter().copied().filter(|r| r.stratum.is_some()).collect();
    for (p, a) in &spec.facts {
        let r = heads[*p as usize % heads.len()];
        rules.push(rule(atom(r.rel, arg_terms(a, r.arity, true, false)), Vec::new()));
    }
    for rs in &spec.rules {
        let h = heads[rs.head as usize % heads.len()];
        let level = h.stratum.expect("generated");
        let recursive: HashSet<Sym> = rels.iter().filter(|r| r.stratum == Some(level)).map(|r| r.rel).collect();
        let body: Vec<Literal> = rs.body.iter().map(|l| literal(l, &h, &rels)).collect();
        // Only rules outside every cycle may build function terms, so the model stays finite.
        let mut in_cycle = false;
        for l in &body {
            l.for_each_atom(true, &mut |a, _| in_cycle |= recursive.contains(&a.rel));
        }
        let head = atom(h.rel, arg_terms(&rs.args, h.arity, false, in_cycle));
        // GDL's recursion restriction (on argument terms, stricter than `gdl::validate`'s check
        // of variables): a recursive call must not wrap a head variable in a function term, or
        // a top-down evaluator meets ever deeper calls (p 0), (p (f 0)), ...
        let mut head_vars = HashSet::new();
        head.for_each_var(&mut |v| {
            head_vars.insert(v);
        });
        let body = body.into_iter().map(|l| no_growth(l, &recursive, &head_vars)).collect();
        rules.push(make_safe(rule(head, body), &recursive));
    }
    let text: String = rules.iter().map(|r| format!("{r}\n")).collect();
    let desc = gdl::parse("generated.kif", &text).expect("generated text parses");
    let state = |s: &StateSpec| {
        let mut props = Vec::new();
        for (i, &on) in s.cells.iter().enumerate() {
            if on {
                props.push(func("cell", vec![c(CONSTS[i])]));
            }
        }
        for &(a, b) in &s.on {
            props.push(func("on", vec![c(CONSTS[a as usize]), c(CONSTS[b as usize])]));
        }
        if let Some(k) = CONSTS.get(s.ctl as usize) {
            props.push(func("ctl", vec![c(k)]));
        }
        props
    };
    let joint = |m: &[(u8, u8); 2]| {
        ["r1", "r2"]
            .iter()
            .zip(m)
            .map(|(r, &(kind, k))| {
                let k = CONSTS[k as usize];
                let mv = match kind {
                    0 => func("mv", vec![c(k)]),
                    1 => c("noop"),
                    _ => c(k),
                };
                (c(r), mv)
            })
            .collect::<Vec<_>>()
    };
    let (s0, s1) = (state(&spec.states[0]), state(&spec.states[1]));
    let scenarios = vec![
        Scenario { state: s0.clone(), moves: joint(&spec.moves[0]) },
        Scenario { state: s0.clone(), moves: joint(&spec.moves[1]) },
        Scenario { state: s1, moves: joint(&spec.moves[2]) },
        Scenario { state: s0, moves: joint(&spec.moves[0]) },
    ];
    Generated { desc, scenarios, seed: spec.seed }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gdl::Severity;
    use proptest::strategy::ValueTree;

    /// The generator must produce valid programs by construction, not by luck.
    #[test]
    fn generated_programs_are_valid() {
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let strategy = programs();
        let mut invalid = Vec::new();
        for _ in 0..300 {
            let desc = strategy.new_tree(&mut runner).expect("value").current().desc;
            let errors: Vec<String> = gdl::validate(&desc)
                .into_iter()
                .filter(|p| p.severity == Severity::Error)
                .map(|p| p.to_string())
                .collect();
            if !errors.is_empty() {
                invalid.push(format!("{errors:?}\n{desc}"));
            }
        }
        assert!(invalid.is_empty(), "{} invalid programs, e.g.\n{}", invalid.len(), invalid[0]);
    }
}
