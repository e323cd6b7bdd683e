//! GDL rules to an ASP program for the two-step latch proof, as plain clingo text.
//!
//! Relations that depend on `true` or `does` (and `legal` and `next` always) take a time argument
//! `T`, bound by `p_time(T)` in every such rule so that rules whose body reads no state stay safe.
//! `(next F)` at `T` says `F` holds at `T+1`; it becomes `p_next(F,T)` rather than
//! `true(F,T+1)`, because only time 1 is needed and a `true` defined from itself would put every
//! state-dependent relation in one cycle through negation at the predicate level, where clingo
//! keeps every negated instance it cannot rule out (87,000 useless atoms in checkers). Static
//! relations keep their arity. Only relations that `next` or `legal` depend on are kept: goals,
//! terminal, `init` and the game's own `base` and `input` declarations cannot affect the proof,
//! and grounding them could cost more than the rest.
//!
//! GDL names become clingo names injectively. A name made of lower-case letters and digits,
//! starting with a letter (and not clingo's `not`), is kept; a canonical numeral becomes an
//! integer (only as a constant); anything else becomes `q_` followed by the name with every other
//! character written `_<hex>_`. Kept names never contain `_`, so they cannot meet an escaped one,
//! nor the translation's own predicates and functions, which all contain `_` and do not start with
//! `q_` (`p_time`, `p_next`, `p_base`, `p_role`, `p_input`, `p_aux…`, `p_nullary`, `p_open`,
//! `p_some`, `p_member`, `p_exactly`, `p_held`, `pos_cex`, `neg_cex`), except `true/2` and
//! `does/3`, which stand for GDL's own.

use crate::Error;
use gdl::{normal_bodies, Atom, Description, Lit, Rule, Sym, Term};
use std::collections::{HashMap, HashSet};
use std::fmt::Write;

/// What the generator ranges over: the roles, every base proposition and every move, e.g. taken
/// from a propnet, which keeps every base that can ever be true and every move.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// The roles.
    pub roles: Vec<Sym>,
    /// The base propositions; a base is referred to by its index here.
    pub bases: Vec<Term>,
    /// The moves, each with the role that may play it.
    pub inputs: Vec<(Sym, Term)>,
    /// Bases known to have this value in every reachable state (they are fixed at time 1).
    pub fixed: Vec<(usize, bool)>,
    /// Groups of bases of which at most one counts in every reachable state, and whether exactly
    /// one does (the state at time 1 satisfies them). Each member comes with the value at which
    /// it counts: true for most, false for the second of an implication (`[(p, true), (q,
    /// false)]`: never `p` without `q`).
    pub groups: Vec<(Vec<(usize, bool)>, bool)>,
}

/// Reads one ground GDL term written in KIF, such as `(cell 1 1 x)` or `noop`.
pub fn parse_term(text: &str) -> Result<Term, Error> {
    let fail = |reason: &str| Error::Term { text: text.to_owned(), reason: reason.to_owned() };
    // Wrapped as the argument of a fact, the GDL parser reads exactly one term or fails.
    let desc = gdl::parse("term", &format!("(term {text})")).map_err(|e| fail(&e.to_string()))?;
    match desc.rules.as_slice() {
        [rule] if rule.is_fact() && rule.head.args.len() == 1 => {
            let term = rule.head.args[0].clone();
            if term.is_ground() {
                Ok(term)
            } else {
                Err(fail("it contains a variable"))
            }
        }
        _ => Err(fail("it is not exactly one term")),
    }
}

/// The ASP program for the latch proof: the rules that `next` and `legal` depend on, the state
/// and move generators over `facts`, and `pos_cex(I)` / `neg_cex(I)`, true in an answer set
/// where base `I` goes from true to false / from false to true. `p_some` holds in answer sets
/// that refute a latch question `(D,I)` (direction 0 positive, 1 negative) whose free atom
/// `p_open(D,I)` is true, so that a solver can close the questions already answered by making
/// those atoms false, without constraining the game itself.
pub fn translate(desc: &Description, facts: &Facts) -> Result<String, Error> {
    let (relevant, timed) = classify(desc);
    let mut writer = Writer::default();
    writer.out.push_str("% GDL rules that next and legal depend on\n");
    for rule in &desc.rules {
        if relevant.contains(&rule.head.rel) {
            for body in normal_bodies(rule) {
                writer.gdl_rule(rule, &body, &timed)?;
            }
        }
    }
    let mut out = writer.out;
    out.push_str("% what exists: the time point, bases, roles and moves\np_time(1).\n");
    for (i, base) in facts.bases.iter().enumerate() {
        out.push_str(&format!("p_base({i},"));
        ground_term(&mut out, base, "base proposition")?;
        out.push_str(").\n");
    }
    for role in &facts.roles {
        out.push_str("p_role(");
        constant(&mut out, *role);
        out.push_str(").\n");
    }
    for (role, input) in &facts.inputs {
        out.push_str("p_input(");
        constant(&mut out, *role);
        out.push(',');
        ground_term(&mut out, input, "move")?;
        out.push_str(").\n");
    }
    out.push_str(concat!(
        "% any state at time 1, one legal move per role\n",
        "{ true(F,1) : p_base(_,F) }.\n",
        "1 { does(R,M,1) : p_input(R,M) } 1 :- p_role(R).\n",
        ":- does(R,M,1), not legal(R,M,1).\n",
    ));
    for &(i, value) in &facts.fixed {
        let Some(base) = facts.bases.get(i) else {
            return Err(Error::Translate { rule: format!("fixed base {i}"), reason: "no such base".into() });
        };
        out.push_str(if value { ":- not true(" } else { ":- true(" });
        ground_term(&mut out, base, "base proposition")?;
        out.push_str(",1).\n");
    }
    if !facts.groups.is_empty() {
        out.push_str(concat!(
            "% the state at time 1 satisfies the proved invariants\n",
            "p_counts(K,I) :- p_member(K,I), p_base(I,F), true(F,1).\n",
            "p_counts(K,I) :- p_negated(K,I), p_base(I,F), not true(F,1).\n",
            ":- p_group(K), #count { I : p_counts(K,I) } > 1.\n",
            "p_held(K) :- p_counts(K,_).\n",
            ":- p_exactly(K), not p_held(K).\n",
        ));
    }
    for (k, (members, exactly)) in facts.groups.iter().enumerate() {
        out.push_str(&format!("p_group({k}).\n"));
        for &(i, counts) in members {
            if i >= facts.bases.len() {
                return Err(Error::Translate { rule: format!("group {k}"), reason: format!("no base {i}") });
            }
            let kind = if counts { "p_member" } else { "p_negated" };
            out.push_str(&format!("{kind}({k},{i}).\n"));
        }
        if *exactly {
            out.push_str(&format!("p_exactly({k}).\n"));
        }
    }
    out.push_str(concat!(
        "% a counterexample to base I being a positive / negative latch\n",
        "pos_cex(I) :- p_base(I,F), true(F,1), not p_next(F,1).\n",
        "neg_cex(I) :- p_base(I,F), not true(F,1), p_next(F,1).\n",
        "% questions (0 positive, 1 negative) a solver may still answer, and an answer to one\n",
        "{ p_open(0,I) } :- p_base(I,_).\n",
        "{ p_open(1,I) } :- p_base(I,_).\n",
        "p_some :- pos_cex(I), p_open(0,I).\n",
        "p_some :- neg_cex(I), p_open(1,I).\n",
        "#show pos_cex/1.\n#show neg_cex/1.\n",
    ));
    Ok(out)
}

/// The relations `next` and `legal` depend on, and those that take a time argument.
fn classify(desc: &Description) -> (HashSet<Sym>, HashSet<Sym>) {
    let mut deps: HashMap<Sym, HashSet<Sym>> = HashMap::new();
    for rule in &desc.rules {
        let reads = deps.entry(rule.head.rel).or_default();
        for lit in &rule.body {
            lit.for_each_atom(true, &mut |atom, _| {
                reads.insert(atom.rel);
            });
        }
    }
    let mut relevant = HashSet::new();
    let mut stack = vec![Sym::NEXT, Sym::LEGAL];
    while let Some(rel) = stack.pop() {
        if relevant.insert(rel) {
            stack.extend(deps.get(&rel).into_iter().flatten().copied());
        }
    }
    // `legal` is timed even when it reads no state, because the move constraint reads it at 1.
    let mut timed: HashSet<Sym> = [Sym::NEXT, Sym::LEGAL, Sym::TRUE, Sym::DOES].into_iter().collect();
    loop {
        let before = timed.len();
        for (rel, reads) in &deps {
            if !timed.contains(rel) && reads.iter().any(|r| timed.contains(r)) {
                timed.insert(*rel);
            }
        }
        if timed.len() == before {
            return (relevant, timed);
        }
    }
}

/// A body literal rendered for clingo, with what the decompositions need to know about it.
#[derive(Debug, Clone)]
struct Piece {
    text: String,
    /// Its GDL variables, without repeats.
    vars: Vec<Sym>,
    /// Whether it binds its variables (a positive atom).
    binds: bool,
    /// Whether it reads the time point `T`.
    timed: bool,
}

/// Writes rules, decomposing their bodies so that clingo's grounder does not join independent
/// choices: a body whose literals fall into groups that share only head variables is split, each
/// group with variables of its own becoming an auxiliary predicate over the head variables it
/// uses; and a positive literal with variables found nowhere else in its rule is replaced by an
/// auxiliary predicate over its other variables. Both move existential quantifiers inward, so the
/// meaning is unchanged; without them a frame rule such as amazons' "every cell the move does not
/// leave stays" joins every cell with all 174k moves, and amazons grounds in 150 s instead of 5.
#[derive(Default)]
struct Writer {
    out: String,
    /// Auxiliary predicates by definition (interface and body), so that equal ones are shared.
    aux: HashMap<String, String>,
}

impl Writer {
    /// Translates one or-free variant of `rule`.
    fn gdl_rule(&mut self, rule: &Rule, body: &[Lit], timed: &HashSet<Sym>) -> Result<(), Error> {
        let fail = |reason: &str| Error::Translate { rule: rule.to_string(), reason: reason.to_owned() };
        let head_timed = timed.contains(&rule.head.rel);
        let mut head = String::new();
        if rule.head.rel == Sym::NEXT {
            let [state] = rule.head.args.as_slice() else { return Err(fail("next takes exactly one argument")) };
            head.push_str("p_next(");
            term(&mut head, state);
            head.push_str(",T)");
        } else if matches!(rule.head.rel, Sym::TRUE | Sym::DOES) {
            return Err(fail("true and does cannot be concluded"));
        } else {
            atom(&mut head, &rule.head, head_timed.then_some("T"));
        }
        let mut pieces = Vec::with_capacity(body.len());
        for lit in body {
            let mut piece = Piece { text: String::new(), vars: Vec::new(), binds: false, timed: false };
            let mut add = |v: Sym| {
                if !piece.vars.contains(&v) {
                    piece.vars.push(v);
                }
            };
            lit.for_each_var(&mut add);
            match lit {
                Lit::Pos(a) | Lit::Neg(a) => {
                    match a.rel {
                        Sym::TRUE if a.args.len() != 1 => return Err(fail("true takes exactly one argument")),
                        Sym::DOES if a.args.len() != 2 => return Err(fail("does takes exactly two arguments")),
                        Sym::NEXT => return Err(fail("next cannot be read in a rule body")),
                        _ => {}
                    }
                    piece.binds = matches!(lit, Lit::Pos(_));
                    piece.timed = timed.contains(&a.rel);
                    if !piece.binds {
                        piece.text.push_str("not ");
                    }
                    atom(&mut piece.text, a, piece.timed.then_some("T"));
                }
                Lit::Distinct(x, y) | Lit::Same(x, y) => {
                    term(&mut piece.text, x);
                    piece.text.push_str(if matches!(lit, Lit::Distinct(..)) { "!=" } else { "=" });
                    term(&mut piece.text, y);
                }
            }
            pieces.push(piece);
        }
        let mut head_vars = Vec::new();
        rule.head.for_each_var(&mut |v| {
            if !head_vars.contains(&v) {
                head_vars.push(v);
            }
        });
        let pieces = self.split(&head_vars, pieces);
        self.rule(&head, &head_vars, head_timed, pieces);
        Ok(())
    }

    /// Writes `head :- body` with every literal's own variables projected away and the time
    /// guard where anything reads `T`. Only a GDL rule's body is split into groups: an auxiliary
    /// predicate's body is one group already.
    fn rule(&mut self, head: &str, head_vars: &[Sym], head_timed: bool, body: Vec<Piece>) {
        let body = self.project(head_vars, body);
        let mut text = String::from(head);
        let mut parts: Vec<&str> = body.iter().map(|p| p.text.as_str()).collect();
        if head_timed || body.iter().any(|p| p.timed) {
            parts.push("p_time(T)");
        }
        if !parts.is_empty() {
            text.push_str(" :- ");
            text.push_str(&parts.join(", "));
        }
        self.out.push_str(&text);
        self.out.push_str(".\n");
    }

    /// Replaces every group of literals connected only through non-head variables by an
    /// auxiliary predicate, where the group binds the head variables it uses by itself.
    fn split(&mut self, head_vars: &[Sym], body: Vec<Piece>) -> Vec<Piece> {
        if body.len() < 2 {
            return body;
        }
        let mut group: Vec<usize> = (0..body.len()).collect();
        let mut owner: HashMap<Sym, usize> = HashMap::new();
        for (i, piece) in body.iter().enumerate() {
            for v in piece.vars.iter().filter(|v| !head_vars.contains(v)) {
                match owner.get(v) {
                    Some(&j) => {
                        let (a, b) = (root(&mut group, i), root(&mut group, j));
                        group[a] = b;
                    }
                    None => {
                        owner.insert(*v, i);
                    }
                }
            }
        }
        let mut groups: Vec<(usize, Vec<Piece>)> = Vec::new();
        for (i, piece) in body.into_iter().enumerate() {
            let r = root(&mut group, i);
            match groups.iter_mut().find(|(g, _)| *g == r) {
                Some((_, members)) => members.push(piece),
                None => groups.push((r, vec![piece])),
            }
        }
        if groups.len() < 2 {
            return groups.into_iter().flat_map(|(_, m)| m).collect();
        }
        let groups: Vec<Vec<Piece>> = groups.into_iter().map(|(_, m)| m).collect();
        let mut out = Vec::new();
        for (g, members) in groups.iter().enumerate() {
            let mut members = members.clone();
            let own = members.iter().flat_map(|p| &p.vars).any(|v| !head_vars.contains(v));
            let mut interface: Vec<Sym> = Vec::new();
            for v in members.iter().flat_map(|p| &p.vars).filter(|v| head_vars.contains(v)) {
                if !interface.contains(v) {
                    interface.push(*v);
                }
            }
            if own {
                self.borrow_domains(&interface, &mut members, g, &groups);
            }
            let bound = |v: &Sym| members.iter().any(|p| p.binds && p.vars.contains(v));
            if own && interface.iter().all(bound) {
                out.push(self.define(interface, members));
            } else {
                out.extend(groups[g].iter().cloned());
            }
        }
        out
    }

    /// Where group `g` uses head variables it does not bind (e.g. only in a `distinct`), adds the
    /// projection onto them of a positive literal of another group that binds them, so that the
    /// group can still become an auxiliary predicate. The rule keeps that literal, which implies
    /// its projection, so the meaning is unchanged; kalaha's "every pit but the one played"
    /// becomes pits × moves instead of pit contents × moves.
    fn borrow_domains(&mut self, interface: &[Sym], members: &mut Vec<Piece>, g: usize, groups: &[Vec<Piece>]) {
        loop {
            let bound = |v: &Sym| members.iter().any(|p| p.binds && p.vars.contains(v));
            let unbound: Vec<Sym> = interface.iter().copied().filter(|v| !bound(v)).collect();
            let Some(&u) = unbound.first() else { return };
            let donor = groups
                .iter()
                .enumerate()
                .filter(|&(h, _)| h != g)
                .flat_map(|(_, pieces)| pieces)
                .filter(|p| p.binds && p.vars.contains(&u))
                .min_by_key(|p| p.vars.len());
            let Some(donor) = donor else { return };
            let domain: Vec<Sym> = donor.vars.iter().copied().filter(|v| unbound.contains(v)).collect();
            let piece = donor.clone();
            let borrowed = if domain.len() == piece.vars.len() { piece } else { self.define(domain, vec![piece]) };
            members.push(borrowed);
        }
    }

    /// Replaces every positive literal with variables of its own by an auxiliary predicate over
    /// its other variables.
    fn project(&mut self, head_vars: &[Sym], mut body: Vec<Piece>) -> Vec<Piece> {
        if body.len() < 2 {
            return body;
        }
        for i in 0..body.len() {
            if !body[i].binds {
                continue;
            }
            let elsewhere =
                |v: &Sym| head_vars.contains(v) || body.iter().enumerate().any(|(j, p)| j != i && p.vars.contains(v));
            let interface: Vec<Sym> = body[i].vars.iter().copied().filter(|v| elsewhere(v)).collect();
            if interface.len() < body[i].vars.len() {
                let piece = body[i].clone();
                body[i] = self.define(interface, vec![piece]);
            }
        }
        body
    }

    /// An auxiliary predicate over `interface` (and `T` if any member reads it) defined by
    /// `members`, written once per distinct definition; returns the literal that reads it.
    fn define(&mut self, interface: Vec<Sym>, members: Vec<Piece>) -> Piece {
        let timed = members.iter().any(|p| p.timed);
        let mut args: Vec<String> = interface.iter().map(|v| variable(*v)).collect();
        if timed {
            args.push("T".to_owned());
        }
        let args = if args.is_empty() { String::new() } else { format!("({})", args.join(",")) };
        let key = format!("{args} :- {}", members.iter().map(|p| p.text.as_str()).collect::<Vec<_>>().join(", "));
        let text = match self.aux.get(&key) {
            Some(name) => format!("{name}{args}"),
            None => {
                let name = format!("p_aux{}", self.aux.len());
                self.aux.insert(key, name.clone());
                let text = format!("{name}{args}");
                self.rule(&text, &interface, timed, members);
                text
            }
        };
        Piece { text, vars: interface, binds: true, timed }
    }
}

/// The representative of `i`'s group (union-find with path halving).
fn root(group: &mut [usize], mut i: usize) -> usize {
    while group[i] != i {
        group[i] = group[group[i]];
        i = group[i];
    }
    i
}

fn variable(v: Sym) -> String {
    let mut s = String::from("V");
    escape(&mut s, v.as_str());
    s
}

/// `rel(args…, time)`, with `true` and `does` keeping their names.
fn atom(out: &mut String, a: &Atom, time: Option<&str>) {
    name(out, a.rel);
    if a.args.is_empty() && time.is_none() {
        return;
    }
    out.push('(');
    for (k, arg) in a.args.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        term(out, arg);
    }
    if let Some(t) = time {
        if !a.args.is_empty() {
            out.push(',');
        }
        out.push_str(t);
    }
    out.push(')');
}

fn ground_term(out: &mut String, t: &Term, what: &str) -> Result<(), Error> {
    if !t.is_ground() {
        return Err(Error::Term { text: t.to_string(), reason: format!("a {what} must be ground") });
    }
    term(out, t);
    Ok(())
}

fn term(out: &mut String, t: &Term) {
    match t {
        Term::Const(c) => constant(out, *c),
        Term::Var(v) => out.push_str(&variable(*v)),
        // `(f)` is a different GDL term from `f`, while clingo reads `f()` as `f`.
        Term::Func(f, args) if args.is_empty() => {
            out.push_str("p_nullary(");
            name(out, *f);
            out.push(')');
        }
        Term::Func(f, args) => {
            name(out, *f);
            out.push('(');
            for (k, arg) in args.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                term(out, arg);
            }
            out.push(')');
        }
    }
}

/// A constant: canonical numerals that fit clingo's integers become integers, which reads well
/// and stays injective (`01` is not canonical, so it is escaped as a name).
fn constant(out: &mut String, c: Sym) {
    let s = c.as_str();
    let numeral =
        !s.is_empty() && s.len() <= 9 && s.bytes().all(|b| b.is_ascii_digit()) && (s == "0" || !s.starts_with('0'));
    if numeral {
        out.push_str(s);
    } else {
        name(out, c);
    }
}

/// A relation or function name.
fn name(out: &mut String, n: Sym) {
    let s = n.as_str();
    let mut bytes = s.bytes();
    let clean = bytes.next().is_some_and(|b| b.is_ascii_lowercase())
        && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && s != "not";
    if clean {
        out.push_str(s);
    } else {
        out.push_str("q_");
        escape(out, s);
    }
}

/// Lower-case letters and digits as they are; every other character as `_<hex code>_`.
fn escape(out: &mut String, s: &str) {
    for c in s.chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
        } else {
            // Writing to a String cannot fail.
            let _ = write!(out, "_{:x}_", c as u32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(rules: &str, facts: &Facts) -> String {
        let desc = gdl::parse("t", rules).expect("parses");
        translate(&desc, facts).expect("translates")
    }

    fn lines(rules: &str) -> Vec<String> {
        program(rules, &Facts::default()).lines().map(str::to_owned).collect()
    }

    fn has(lines: &[String], line: &str) {
        assert!(lines.iter().any(|l| l == line), "missing {line:?} in:\n{}", lines.join("\n"));
    }

    #[test]
    fn state_dependent_relations_get_a_guarded_time_argument() {
        let l = lines(
            "(<= (next (cell ?x b)) (true (cell ?x b)) (not (marked ?x)))
             (<= (marked ?x) (does ?r (mark ?x)))
             (<= (legal ?r (mark ?x)) (role ?r) (true (cell ?x b)))
             (<= (next p) (adjacent 1 2))
             (adjacent 1 2)
             (role robot)",
        );
        has(&l, "p_next(cell(Vx,b),T) :- true(cell(Vx,b),T), not marked(Vx,T), p_time(T).");
        has(&l, "marked(Vx,T) :- does(Vr,mark(Vx),T), p_time(T).");
        has(&l, "legal(Vr,mark(Vx),T) :- role(Vr), true(cell(Vx,b),T), p_time(T).");
        has(&l, "p_next(p,T) :- adjacent(1,2), p_time(T).");
        has(&l, "adjacent(1,2).");
        has(&l, "role(robot).");
    }

    #[test]
    fn independent_choices_are_decomposed() {
        let l = lines(
            "(<= (next (at ?x ?s)) (true (at ?x ?s)) (does ?p (play ?x1 ?x2)) (other ?x ?x1))
             (<= (next (seen ?x)) (true (at ?x ?s)) (does ?p (play ?x ?y)))
             (<= (next (both ?x)) (cell ?x) (true (at ?y w)) (true (at ?z b)) (distinct ?y ?z))",
        );
        // Only the origin of the move matters to the frame rule; the move's other parts and
        // the player are projected away before the join with the cells.
        has(&l, "p_aux1(Vx1,T) :- does(Vp,play(Vx1,Vx2),T), p_time(T).");
        has(&l, "p_aux0(Vx,T) :- p_aux1(Vx1,T), other(Vx,Vx1), p_time(T).");
        has(&l, "p_next(at(Vx,Vs),T) :- true(at(Vx,Vs),T), p_aux0(Vx,T), p_time(T).");
        has(&l, "p_aux2(Vx,T) :- true(at(Vx,Vs),T), p_time(T).");
        has(&l, "p_aux3(Vx,T) :- does(Vp,play(Vx,Vy),T), p_time(T).");
        has(&l, "p_next(seen(Vx),T) :- p_aux2(Vx,T), p_aux3(Vx,T), p_time(T).");
        // Joined through a distinct, the two pieces stay one group without head variables.
        has(&l, "p_aux4(T) :- true(at(Vy,w),T), true(at(Vz,b),T), Vy!=Vz, p_time(T).");
        has(&l, "p_next(both(Vx),T) :- cell(Vx), p_aux4(T), p_time(T).");
    }

    #[test]
    fn a_group_borrows_what_binds_its_head_variables() {
        // Only the distinct ties the move to the head's cell: the group borrows the cells' domain.
        let l = lines("(<= (next (at ?x ?n)) (true (at ?x ?n)) (does ?r (play ?y)) (distinct ?x ?y))");
        has(&l, "p_aux0(Vx,T) :- true(at(Vx,Vn),T), p_time(T).");
        has(&l, "p_aux2(Vy,T) :- does(Vr,play(Vy),T), p_time(T).");
        has(&l, "p_aux1(Vx,T) :- p_aux2(Vy,T), Vx!=Vy, p_aux0(Vx,T), p_time(T).");
        has(&l, "p_next(at(Vx,Vn),T) :- true(at(Vx,Vn),T), p_aux1(Vx,T), p_time(T).");
        // A literal binding exactly the missing variables is borrowed as it is.
        let l = lines("(<= (next (q ?x)) (true (p ?x)) (true (r ?y)) (not (s ?x ?y)))");
        has(&l, "p_aux0(Vx,T) :- true(r(Vy),T), not s(Vx,Vy), true(p(Vx),T), p_time(T).");
        has(&l, "p_next(q(Vx),T) :- true(p(Vx),T), p_aux0(Vx,T), p_time(T).");
    }

    #[test]
    fn legal_without_state_is_still_timed() {
        let l = lines("(legal robot noop)");
        has(&l, "legal(robot,noop,T) :- p_time(T).");
    }

    #[test]
    fn distinct_or_and_negated_distinct() {
        let l = lines("(<= (next (q ?x)) (true (q ?x)) (or (distinct ?x a) (not (distinct ?x b))))");
        has(&l, "p_next(q(Vx),T) :- true(q(Vx),T), Vx!=a, p_time(T).");
        has(&l, "p_next(q(Vx),T) :- true(q(Vx),T), Vx=b, p_time(T).");
    }

    #[test]
    fn irrelevant_rules_are_dropped() {
        let l = lines(
            "(init (cell 1 b)) (base (cell 1 b)) (input robot noop)
             (<= terminal (true (cell 1 b))) (<= (goal robot 100) (true (cell 1 b)))",
        );
        assert!(!l.iter().any(|l| l.starts_with("init") || l.starts_with("terminal") || l.starts_with("goal")));
        assert!(!l.iter().any(|l| l.starts_with("base(") || l.starts_with("input(")), "{l:?}");
    }

    #[test]
    fn names_are_mangled_injectively() {
        let mut out = String::new();
        for n in ["cell", "x-1", "x_2d_1", "1", "01", "1a", "not", "B", "_", "p_time", "true", "é"] {
            let t = Term::Const(Sym::new(n));
            term(&mut out, &t);
            out.push(' ');
        }
        assert_eq!(out, "cell q_x_2d_1 q_x_5f_2d_5f_1 1 q_01 q_1a q_not b q__5f_ q_p_5f_time true q__e9_ ");
        let mut out = String::new();
        term(&mut out, &Term::Func(Sym::new("f"), vec![]));
        term(&mut out, &Term::Func(Sym::new("1"), vec![Term::Var(Sym::new("x-y"))]));
        assert_eq!(out, "p_nullary(f)q_1(Vx_2d_y)");
    }

    #[test]
    fn facts_and_generator() {
        let facts = Facts {
            roles: vec![Sym::new("white")],
            bases: vec![parse_term("(cell 1 1 x)").unwrap(), parse_term("p").unwrap()],
            inputs: vec![(Sym::new("white"), parse_term("(mark 1 1)").unwrap())],
            fixed: vec![(1, true)],
            groups: vec![(vec![(0, true), (1, false)], true)],
        };
        let l: Vec<String> = program("", &facts).lines().map(str::to_owned).collect();
        has(&l, "p_base(0,cell(1,1,x)).");
        has(&l, "p_base(1,p).");
        has(&l, "p_role(white).");
        has(&l, "p_input(white,mark(1,1)).");
        has(&l, "{ true(F,1) : p_base(_,F) }.");
        has(&l, "1 { does(R,M,1) : p_input(R,M) } 1 :- p_role(R).");
        has(&l, ":- does(R,M,1), not legal(R,M,1).");
        has(&l, ":- not true(p,1).");
        has(&l, "p_group(0).");
        has(&l, "p_member(0,0).");
        has(&l, "p_negated(0,1).");
        has(&l, "p_exactly(0).");
        has(&l, "p_counts(K,I) :- p_negated(K,I), p_base(I,F), not true(F,1).");
        has(&l, ":- p_group(K), #count { I : p_counts(K,I) } > 1.");
        has(&l, ":- p_exactly(K), not p_held(K).");
        has(&l, "pos_cex(I) :- p_base(I,F), true(F,1), not p_next(F,1).");
        has(&l, "neg_cex(I) :- p_base(I,F), not true(F,1), p_next(F,1).");
    }

    #[test]
    fn terms_are_parsed_or_refused() {
        assert_eq!(parse_term("noop").unwrap(), Term::Const(Sym::NOOP));
        assert!(matches!(parse_term("(mark 1 1)").unwrap(), Term::Func(..)));
        for bad in ["", "a b", "(f ?x)", "(a", "a)", "()"] {
            assert!(parse_term(bad).is_err(), "{bad:?}");
        }
    }
}
