//! The Game Description Language front end: reading KIF text into rules with source positions,
//! interning symbols, normalising bodies, and validating the rules against the GDL specification.

#![warn(missing_docs)]

mod ast;
mod normal;
mod parse;
pub mod pie;
mod strata;
mod symbol;
pub mod terms;
mod validate;

pub use ast::{Atom, Description, Literal, Pos, Rule, Term};
pub use normal::{normal_bodies, variant_count, Lit, MAX_VARIANTS};
pub use parse::{parse, read_sexprs, ParseError, SExpr};
pub use symbol::Sym;
pub use terms::{Bindings, Lookup, Pat, TermId, TermPool, VarNumbering};
pub use validate::{validate, Problem, Severity};

use thiserror::Error;

/// Why a game could not be loaded.
#[derive(Debug, Clone, Error)]
pub enum GdlError {
    /// The text is not well-formed KIF.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// The text parses but breaks the GDL rules; holds every problem found (errors first).
    #[error("{}", render(.0))]
    Invalid(Vec<Problem>),
}

fn render(problems: &[Problem]) -> String {
    let fatal = |p: &&Problem| p.severity >= Severity::Incomplete;
    let errors = problems.iter().filter(fatal).count();
    let what = if problems.iter().any(|p| p.severity == Severity::Error) { "valid GDL" } else { "a whole game" };
    let mut out = format!("the rules are not {what} ({errors} error{}):", if errors == 1 { "" } else { "s" });
    for p in problems.iter().filter(fatal) {
        out.push('\n');
        out.push_str(&p.to_string());
    }
    out
}

/// Parses and validates `text` as a set of rules; fails if it has any error (warnings, and
/// what keeps it from being a whole game, are returned alongside).
pub fn load(file: &str, text: &str) -> Result<(Description, Vec<Problem>), GdlError> {
    load_at_least(file, text, Severity::Error)
}

/// Parses and validates `text` as a game: fails if it has any error or is not a whole game (no
/// `legal`, `terminal` or `goal` rules); warnings are returned alongside.
pub fn load_game(file: &str, text: &str) -> Result<(Description, Vec<Problem>), GdlError> {
    load_at_least(file, text, Severity::Incomplete)
}

fn load_at_least(file: &str, text: &str, fatal: Severity) -> Result<(Description, Vec<Problem>), GdlError> {
    let desc = parse(file, text)?;
    let problems = validate(&desc);
    if problems.iter().any(|p| p.severity >= fatal) {
        return Err(GdlError::Invalid(problems));
    }
    Ok((desc, problems))
}

/// The canonical KIF of a ground term written in any spacing or case (`( MARK 1  1 )` is
/// `(mark 1 1)`): the one form in which moves and propositions from outside (a game server, the
/// command line) are compared with the names the engines print. `None` if `text` is not exactly
/// one ground term.
pub fn canonical_term(text: &str) -> Option<String> {
    let desc = parse("term", &format!("(term {text})")).ok()?;
    match desc.rules.as_slice() {
        [rule] if rule.body.is_empty() && rule.head.args.len() == 1 && rule.head.args[0].is_ground() => {
            Some(rule.head.args[0].to_string())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn terms_are_read_in_any_spacing_and_case() {
        assert_eq!(super::canonical_term("( MARK 1  1 )").as_deref(), Some("(mark 1 1)"));
        assert_eq!(super::canonical_term(" noop ").as_deref(), Some("noop"));
        assert_eq!(super::canonical_term("(cell (f 1) x)").as_deref(), Some("(cell (f 1) x)"));
        for bad in ["", "(mark 1", "noop) (extra", "?x", "(mark ?x 1)", "a b"] {
            assert_eq!(super::canonical_term(bad), None, "{bad:?}");
        }
    }
}
