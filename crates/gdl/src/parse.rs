//! Reading KIF text into a [`Description`]: a lexer, an s-expression reader and the conversion of
//! s-expressions into rules. Every error names the file, line and column.

use crate::ast::{Atom, Description, Literal, Pos, Rule, Term};
use crate::symbol::Sym;
use std::fmt;
use std::sync::Arc;
use thiserror::Error;

/// A syntax error, located in its file.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub struct ParseError {
    /// The file or label the text came from.
    pub file: Arc<str>,
    /// Where the problem is.
    pub pos: Pos,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: syntax error: {}", self.file, self.pos, self.message)
    }
}

/// Parses GDL `text`; `file` names it in error messages.
pub fn parse(file: &str, text: &str) -> Result<Description, ParseError> {
    let name: Arc<str> = Arc::from(file);
    let rules = read_sexprs(file, text)?
        .iter()
        .map(|sexpr| to_rule(sexpr).map_err(|(pos, message)| ParseError { file: name.clone(), pos, message }))
        .collect::<Result<_, _>>()?;
    Ok(Description { file: name, rules })
}

/// How deeply parentheses may nest; real games stay far below, and the bound keeps every later
/// recursive pass over terms safe from stack overflow.
const MAX_DEPTH: usize = 200;

/// An s-expression with the position where it starts: KIF before it is read as rules (the GGP
/// protocol's messages are s-expressions too).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SExpr {
    /// A word: a constant, number or keyword, as written.
    Atom(String, Pos),
    /// A variable, without its `?`.
    Var(String, Pos),
    /// A parenthesised list.
    List(Vec<SExpr>, Pos),
}

impl SExpr {
    /// Where the expression starts.
    pub fn pos(&self) -> Pos {
        match self {
            SExpr::Atom(_, p) | SExpr::Var(_, p) | SExpr::List(_, p) => *p,
        }
    }

    /// The word, if this is an atom.
    pub fn atom(&self) -> Option<&str> {
        match self {
            SExpr::Atom(word, _) => Some(word),
            _ => None,
        }
    }

    /// The items, if this is a list.
    pub fn list(&self) -> Option<&[SExpr]> {
        match self {
            SExpr::List(items, _) => Some(items),
            _ => None,
        }
    }
}

/// Prints KIF: single spaces, variables with their `?`, words as written.
impl fmt::Display for SExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SExpr::Atom(word, _) => f.write_str(word),
            SExpr::Var(name, _) => write!(f, "?{name}"),
            SExpr::List(items, _) => {
                f.write_str("(")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// Reads every s-expression in `text`; `file` names it in error messages.
pub fn read_sexprs(file: &str, text: &str) -> Result<Vec<SExpr>, ParseError> {
    // A byte-order mark, which some editors write at the start of a UTF-8 file, is not text.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut reader = Reader { chars: text.chars().peekable(), pos: Pos { line: 1, col: 1 }, file: Arc::from(file) };
    let mut out = Vec::new();
    while let Some(sexpr) = reader.read()? {
        out.push(sexpr);
    }
    Ok(out)
}

struct Reader<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    pos: Pos,
    file: Arc<str>,
}

impl Reader<'_> {
    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.pos.line += 1;
            self.pos.col = 1;
        } else {
            self.pos.col += 1;
        }
        Some(c)
    }

    fn error(&self, pos: Pos, message: impl Into<String>) -> ParseError {
        ParseError { file: self.file.clone(), pos, message: message.into() }
    }

    fn skip_blank(&mut self) {
        while let Some(&c) = self.chars.peek() {
            if c == ';' {
                while let Some(c) = self.bump() {
                    if c == '\n' {
                        break;
                    }
                }
            } else if c.is_whitespace() {
                self.bump();
            } else {
                break;
            }
        }
    }

    fn word(&mut self) -> String {
        let mut word = String::new();
        while let Some(&c) = self.chars.peek() {
            if c.is_whitespace() || c == '(' || c == ')' || c == ';' {
                break;
            }
            word.push(c);
            self.bump();
        }
        word
    }

    /// Reads the next top-level s-expression, or `None` at the end of the text.
    fn read(&mut self) -> Result<Option<SExpr>, ParseError> {
        self.skip_blank();
        if self.chars.peek().is_none() {
            return Ok(None);
        }
        self.read_one().map(Some)
    }

    /// Reads one s-expression; lists are read with an explicit stack so that deeply nested input
    /// cannot overflow the call stack.
    fn read_one(&mut self) -> Result<SExpr, ParseError> {
        let mut open: Vec<(Vec<SExpr>, Pos)> = Vec::new();
        loop {
            self.skip_blank();
            let pos = self.pos;
            let item = match self.chars.peek().copied() {
                None => {
                    let start = open.last().map(|(_, p)| *p).unwrap_or_default();
                    return Err(self.error(start, "unclosed '(': the file ends before its ')'"));
                }
                Some('(') => {
                    if open.len() >= MAX_DEPTH {
                        return Err(self.error(pos, format!("expressions nest deeper than {MAX_DEPTH} levels")));
                    }
                    self.bump();
                    open.push((Vec::new(), pos));
                    continue;
                }
                Some(')') => {
                    self.bump();
                    match open.pop() {
                        Some((items, start)) => SExpr::List(items, start),
                        None => return Err(self.error(pos, "unexpected ')' with no matching '('")),
                    }
                }
                Some(_) => {
                    let word = self.word();
                    if let Some(name) = word.strip_prefix('?') {
                        if name.is_empty() {
                            return Err(self.error(pos, "'?' must be followed by a variable name"));
                        }
                        SExpr::Var(name.to_owned(), pos)
                    } else {
                        SExpr::Atom(word, pos)
                    }
                }
            };
            match open.last_mut() {
                Some((items, _)) => items.push(item),
                None => return Ok(item),
            }
        }
    }
}

type Failure = (Pos, String);

fn to_rule(sexpr: &SExpr) -> Result<Rule, Failure> {
    let pos = sexpr.pos();
    if let SExpr::List(items, _) = sexpr {
        if let Some(SExpr::Atom(word, _)) = items.first() {
            if word == "<=" {
                let Some(head) = items.get(1) else {
                    return Err((pos, "a rule '(<= head body...)' needs a head".into()));
                };
                let head = to_atom(head, "rule head")?;
                let mut body = Vec::new();
                let mut body_pos = Vec::new();
                for lit in &items[2..] {
                    body.push(to_literal(lit)?);
                    body_pos.push(lit.pos());
                }
                return Ok(Rule { head, body, pos, body_pos });
            }
        }
    }
    let head = to_atom(sexpr, "fact")?;
    Ok(Rule { head, body: Vec::new(), pos, body_pos: Vec::new() })
}

/// Reads a relational sentence such as `(cell 1 1 b)` or `terminal`.
fn to_atom(sexpr: &SExpr, what: &str) -> Result<Atom, Failure> {
    match sexpr {
        SExpr::Atom(name, pos) => Ok(Atom { rel: relation_name(name, *pos, what)?, args: Vec::new() }),
        SExpr::Var(name, pos) => Err((*pos, format!("a {what} cannot be the variable ?{name}"))),
        SExpr::List(items, pos) => match items.split_first() {
            None => Err((*pos, format!("a {what} cannot be the empty list '()'"))),
            Some((SExpr::Atom(name, npos), args)) => {
                let rel = relation_name(name, *npos, what)?;
                let args = args.iter().map(to_term).collect::<Result<_, _>>()?;
                Ok(Atom { rel, args })
            }
            Some((other, _)) => Err((other.pos(), format!("a {what} must start with a relation name"))),
        },
    }
}

fn relation_name(name: &str, pos: Pos, what: &str) -> Result<Sym, Failure> {
    let sym = Sym::new(name);
    if matches!(sym, Sym::NOT | Sym::OR | Sym::DISTINCT | Sym::IMPLIES) {
        return Err((pos, format!("'{name}' cannot be used as a {what}")));
    }
    Ok(sym)
}

fn to_literal(sexpr: &SExpr) -> Result<Literal, Failure> {
    if let SExpr::List(items, pos) = sexpr {
        if let Some((SExpr::Atom(name, _), args)) = items.split_first() {
            match Sym::new(name) {
                Sym::NOT => {
                    return match args {
                        [inner] => Ok(Literal::Not(Box::new(to_literal(inner)?))),
                        _ => Err((*pos, format!("'not' takes exactly one literal, found {}", args.len()))),
                    }
                }
                Sym::OR => {
                    if args.is_empty() {
                        return Err((*pos, "'or' needs at least one literal".into()));
                    }
                    return Ok(Literal::Or(args.iter().map(to_literal).collect::<Result<_, _>>()?));
                }
                Sym::DISTINCT => {
                    return match args {
                        [s, t] => Ok(Literal::Distinct(to_term(s)?, to_term(t)?)),
                        _ => Err((*pos, format!("'distinct' takes exactly two terms, found {}", args.len()))),
                    }
                }
                _ => {}
            }
        }
    }
    to_atom(sexpr, "literal").map(Literal::Atom)
}

fn to_term(sexpr: &SExpr) -> Result<Term, Failure> {
    match sexpr {
        SExpr::Atom(name, pos) => {
            if name == "<=" {
                return Err((*pos, "'<=' can only start a rule".into()));
            }
            Ok(Term::Const(Sym::new(name)))
        }
        SExpr::Var(name, _) => Ok(Term::Var(Sym::new(name))),
        SExpr::List(items, pos) => match items.split_first() {
            None => Err((*pos, "a term cannot be the empty list '()'".into())),
            Some((SExpr::Atom(name, npos), args)) => {
                if name == "<=" {
                    return Err((*npos, "'<=' can only start a rule".into()));
                }
                Ok(Term::Func(Sym::new(name), args.iter().map(to_term).collect::<Result<_, _>>()?))
            }
            Some((other, _)) => Err((other.pos(), "a function term must start with a function name".into())),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Rule {
        let d = parse("t.kif", text).expect("parses");
        assert_eq!(d.rules.len(), 1);
        d.rules.into_iter().next().unwrap()
    }

    #[test]
    fn a_byte_order_mark_is_not_part_of_the_first_rule() {
        let d = parse("t.kif", "\u{feff}(role white)\n(init (p))").expect("parses");
        assert_eq!(d.rules[0].to_string(), "(role white)");
        assert_eq!(d.rules[0].pos, Pos { line: 1, col: 1 });
        assert_eq!(d.rules[1].pos, Pos { line: 2, col: 1 });
    }

    #[test]
    fn facts_and_rules() {
        let d = parse(
            "t.kif",
            "; comment\n(role xPlayer)\n(<= (legal ?r noop) (role ?r) (not (true (control ?r))))\nterminal",
        )
        .unwrap();
        assert_eq!(d.rules.len(), 3);
        assert_eq!(d.rules[0].to_string(), "(role xplayer)");
        assert_eq!(d.rules[1].to_string(), "(<= (legal ?r noop) (role ?r) (not (true (control ?r))))");
        assert_eq!(d.rules[1].pos, Pos { line: 3, col: 1 });
        assert_eq!(d.rules[1].body_pos[1], Pos { line: 3, col: 31 });
        assert_eq!(d.rules[2].head.rel.as_str(), "terminal");
    }

    #[test]
    fn nested_terms_or_distinct() {
        let r = one("(<= (p (f ?x (g a))) (or (q ?x) (r ?x)) (distinct ?x b))");
        assert_eq!(r.to_string(), "(<= (p (f ?x (g a))) (or (q ?x) (r ?x)) (distinct ?x b))");
        assert!(matches!(r.body[0], Literal::Or(ref v) if v.len() == 2));
    }

    #[test]
    fn odd_symbols_and_crlf() {
        let r = one("(<= (succ ?x ?y)\r\n  (++ ?x ?y) (map+ -1 east-speed))");
        assert_eq!(r.to_string(), "(<= (succ ?x ?y) (++ ?x ?y) (map+ -1 east-speed))");
    }

    #[test]
    fn variables_are_case_insensitive() {
        let r = one("(<= (p ?X) (q ?x))");
        assert_eq!(r.to_string(), "(<= (p ?x) (q ?x))");
    }

    fn error(text: &str) -> ParseError {
        parse("bad.kif", text).expect_err("must fail")
    }

    #[test]
    fn errors_are_located() {
        let e = error("(role a)\n(<= (p ?x)\n  (q ?x)");
        assert_eq!(e.pos, Pos { line: 2, col: 1 });
        assert!(e.to_string().starts_with("bad.kif:2:1: syntax error: unclosed"), "{e}");
        assert_eq!(error("(role a))").pos, Pos { line: 1, col: 9 });
        assert!(error("(<= (p ?x) (not))").message.contains("exactly one"));
        assert!(error("(<= (p ?x) (distinct ?x))").message.contains("two terms"));
        assert!(error("(<= ?x (q ?x))").message.contains("variable"));
        assert!(error("(<= (p ?) (q a))").message.contains("'?'"));
        assert!(error("((p) a)").message.contains("relation name"));
        assert!(error("(<= (not (p)) (q))").message.contains("'not' cannot"));
        assert_eq!(parse("t", "(p (f))").unwrap().rules[0].to_string(), "(p (f))");
        assert!(error("(p ())").message.contains("empty list"));
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let text = format!("(p {}a{})", "(f ".repeat(100_000), ")".repeat(100_000));
        assert!(error(&text).message.contains("nest deeper"));
        let ok = format!("(p {}a{})", "(f ".repeat(100), ")".repeat(100));
        assert!(parse("ok.kif", &ok).is_ok());
    }
}
