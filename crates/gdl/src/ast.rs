//! The abstract syntax of a game description: terms, atoms, literals and rules, with source
//! positions, printed back in canonical KIF by their `Display` impls.

use crate::symbol::Sym;
use std::fmt;
use std::sync::Arc;

/// A position in a source file (1-based line and column, columns counted in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Pos {
    /// Line number, from 1.
    pub line: u32,
    /// Column number, from 1.
    pub col: u32,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// A GDL term: a constant, a variable or a function applied to terms.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Term {
    /// An object constant such as `x` or `100`.
    Const(Sym),
    /// A variable; the symbol holds its name without the leading `?`.
    Var(Sym),
    /// A function term such as `(cell 1 1 b)`.
    Func(Sym, Vec<Term>),
}

impl Term {
    /// Whether the term contains no variable.
    pub fn is_ground(&self) -> bool {
        match self {
            Term::Const(_) => true,
            Term::Var(_) => false,
            Term::Func(_, args) => args.iter().all(Term::is_ground),
        }
    }

    /// Calls `f` on every variable in the term, left to right, with repeats.
    pub fn for_each_var(&self, f: &mut impl FnMut(Sym)) {
        match self {
            Term::Const(_) => {}
            Term::Var(v) => f(*v),
            Term::Func(_, args) => args.iter().for_each(|a| a.for_each_var(f)),
        }
    }
}

/// A relation applied to arguments: `(cell 1 1 b)` in a rule head, `terminal`, `(true (control x))`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Atom {
    /// The relation name.
    pub rel: Sym,
    /// The arguments; empty for a propositional atom such as `terminal`.
    pub args: Vec<Term>,
}

impl Atom {
    /// Calls `f` on every variable in the atom's arguments.
    pub fn for_each_var(&self, f: &mut impl FnMut(Sym)) {
        self.args.iter().for_each(|a| a.for_each_var(f));
    }

    /// Whether no argument contains a variable.
    pub fn is_ground(&self) -> bool {
        self.args.iter().all(Term::is_ground)
    }
}

/// A body literal.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Literal {
    /// A positive atom, including `(true p)` and `(does r m)`.
    Atom(Atom),
    /// `(not L)`.
    Not(Box<Literal>),
    /// `(distinct s t)`.
    Distinct(Term, Term),
    /// `(or L1 L2 ...)`.
    Or(Vec<Literal>),
}

impl Literal {
    /// Calls `f` on every variable in the literal.
    pub fn for_each_var(&self, f: &mut impl FnMut(Sym)) {
        match self {
            Literal::Atom(a) => a.for_each_var(f),
            Literal::Not(l) => l.for_each_var(f),
            Literal::Distinct(s, t) => {
                s.for_each_var(f);
                t.for_each_var(f);
            }
            Literal::Or(ls) => ls.iter().for_each(|l| l.for_each_var(f)),
        }
    }

    /// Calls `f` on every atom in the literal with its polarity (`true` = positive).
    pub fn for_each_atom<'a>(&'a self, positive: bool, f: &mut impl FnMut(&'a Atom, bool)) {
        match self {
            Literal::Atom(a) => f(a, positive),
            Literal::Not(l) => l.for_each_atom(!positive, f),
            Literal::Distinct(..) => {}
            Literal::Or(ls) => ls.iter().for_each(|l| l.for_each_atom(positive, f)),
        }
    }
}

/// A rule `(<= head body...)`; a fact is a rule with an empty body.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Rule {
    /// The conclusion.
    pub head: Atom,
    /// The conditions, all of which must hold.
    pub body: Vec<Literal>,
    /// Where the rule starts in its file.
    pub pos: Pos,
    /// Where each body literal starts (parallel to `body`).
    pub body_pos: Vec<Pos>,
}

impl Rule {
    /// Whether the rule is a fact (no body).
    pub fn is_fact(&self) -> bool {
        self.body.is_empty()
    }
}

/// A whole game description, as read from one file.
#[derive(Debug, Clone)]
pub struct Description {
    /// The file name or label the rules came from, used in messages.
    pub file: Arc<str>,
    /// Every rule and fact, in file order.
    pub rules: Vec<Rule>,
}

impl Description {
    /// The role names, in the order of the `role` facts.
    pub fn roles(&self) -> Vec<Sym> {
        let mut roles = Vec::new();
        for rule in &self.rules {
            if rule.head.rel == Sym::ROLE && rule.is_fact() {
                if let [Term::Const(r)] = rule.head.args.as_slice() {
                    if !roles.contains(r) {
                        roles.push(*r);
                    }
                }
            }
        }
        roles
    }
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Term::Const(c) => write!(f, "{c}"),
            Term::Var(v) => write!(f, "?{v}"),
            Term::Func(name, args) => write_app(f, *name, args),
        }
    }
}

impl fmt::Display for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.args.is_empty() {
            write!(f, "{}", self.rel)
        } else {
            write_app(f, self.rel, &self.args)
        }
    }
}

fn write_app<T: fmt::Display>(f: &mut fmt::Formatter<'_>, name: Sym, args: &[T]) -> fmt::Result {
    write!(f, "({name}")?;
    for a in args {
        write!(f, " {a}")?;
    }
    write!(f, ")")
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Atom(a) => write!(f, "{a}"),
            Literal::Not(l) => write!(f, "(not {l})"),
            Literal::Distinct(s, t) => write!(f, "(distinct {s} {t})"),
            Literal::Or(ls) => write_app(f, Sym::OR, ls),
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.body.is_empty() {
            return write!(f, "{}", self.head);
        }
        write!(f, "(<= {}", self.head)?;
        for l in &self.body {
            write!(f, " {l}")?;
        }
        write!(f, ")")
    }
}

impl fmt::Display for Description {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rule in &self.rules {
            writeln!(f, "{rule}")?;
        }
        Ok(())
    }
}
