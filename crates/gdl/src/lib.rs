//! The Game Description Language front end: reading KIF text into rules with source positions,
//! interning symbols, normalising bodies, and validating the rules against the GDL specification.

mod ast;
mod normal;
mod parse;
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
    let errors = problems.iter().filter(|p| p.severity == Severity::Error).count();
    let mut out = format!("the rules are not valid GDL ({errors} error{}):", if errors == 1 { "" } else { "s" });
    for p in problems.iter().filter(|p| p.severity == Severity::Error) {
        out.push('\n');
        out.push_str(&p.to_string());
    }
    out
}

/// Parses and validates `text`; fails if it has any error (warnings are returned alongside).
pub fn load(file: &str, text: &str) -> Result<(Description, Vec<Problem>), GdlError> {
    let desc = parse(file, text)?;
    let problems = validate(&desc);
    if problems.iter().any(|p| p.severity == Severity::Error) {
        return Err(GdlError::Invalid(problems));
    }
    Ok((desc, problems))
}
