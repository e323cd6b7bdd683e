//! The reference data recorded from the GGP-Base prover: serde types for its JSON Lines format and
//! a loader that validates it (`/work/shared/reference/README.md` describes the format).
//!
//! A file holds one header line (game, roles, perft counts, notes) and then one line per
//! trajectory. The loader lower-cases every role name (roles, `legal`, `goals`, `goal_values` keys
//! and the role in a `"no legal move for <role>"` reason) and checks that the per-role maps and lists
//! agree with the header's roles, so that consumers may rely on that shape. Malformed input is
//! reported with the file name and the 1-based line number.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::perft::PerftLevel;

/// Why a reference file could not be loaded.
#[derive(Debug, Error)]
pub enum ReferenceError {
    /// The file could not be read.
    #[error("{file}: {source}")]
    Io {
        /// The file name.
        file: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A line is not valid JSON of the expected shape.
    #[error("{file}:{line}: {source}")]
    Json {
        /// The file name.
        file: String,
        /// The 1-based line number.
        line: usize,
        /// The underlying error.
        #[source]
        source: serde_json::Error,
    },
    /// A line parses but contradicts the header or the format.
    #[error("{file}:{line}: {message}")]
    Invalid {
        /// The file name.
        file: String,
        /// The 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The file holds no header line.
    #[error("{file}: empty reference file (no header line)")]
    Empty {
        /// The file name.
        file: String,
    },
}

/// A whole reference file: its header and its trajectories in file order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reference {
    /// The first line.
    pub header: Header,
    /// The remaining lines.
    pub trajectories: Vec<Trajectory>,
}

/// The header line: which game, its roles and its perft counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// The game's file stem, e.g. `ticTacToe`.
    pub game: String,
    /// Which engine recorded the data.
    #[serde(default)]
    pub source: String,
    /// Role names (lower case) in the order of the game's `role` facts.
    pub roles: Vec<String>,
    /// Perft counts for depths 1, 2, ... as far as they were completed (possibly none).
    #[serde(default)]
    pub perft: Vec<PerftLevel>,
    /// Remarks on anything cut short or odd.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One recorded game: the states and moves along the way and where it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trajectory {
    /// The `java.util.Random` seed the moves were chosen with.
    pub seed: i64,
    /// One record per joint move played.
    pub steps: Vec<Step>,
    /// The state after the last step (the JSON key `final`).
    #[serde(rename = "final")]
    pub end: Final,
}

/// A non-terminal state of a trajectory and the joint move played in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    /// The true base propositions, sorted, without the `true` wrapper.
    pub state: Vec<String>,
    /// Each role's sorted legal moves, keyed by (lower-case) role name.
    pub legal: BTreeMap<String, Vec<String>>,
    /// The joint move played, one move per role in role order.
    pub moves: Vec<String>,
    /// Whether the state is terminal (always `false` in recorded data).
    #[serde(default)]
    pub terminal: bool,
}

/// The last state of a trajectory and how the trajectory ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Final {
    /// The true base propositions, sorted, without the `true` wrapper.
    pub state: Vec<String>,
    /// Whether the state is terminal; absent when a time limit stopped the recording first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal: Option<bool>,
    /// Set when the trajectory was cut off before a terminal state.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// Why it was cut off: `"time"` or `"no legal move for <role>"` (absent for the step limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Each role's goal value at a normal end; `None` (JSON `null`) when not unique.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goals: Option<BTreeMap<String, Option<u32>>>,
    /// For each role whose goal is `null`: every value the prover derives, sorted.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub goal_values: BTreeMap<String, Vec<u32>>,
}

/// The prefix of the reason recorded when a role had no legal move.
pub const NO_LEGAL_MOVE_PREFIX: &str = "no legal move for ";

impl Final {
    /// The role named by a `"no legal move for <role>"` reason, if that is how it ended.
    pub fn no_legal_move_role(&self) -> Option<&str> {
        self.reason.as_deref()?.strip_prefix(NO_LEGAL_MOVE_PREFIX)
    }
}

impl Reference {
    /// The reference as JSON Lines text (header line, then one line per trajectory).
    pub fn to_jsonl(&self) -> Result<String, serde_json::Error> {
        let mut out = serde_json::to_string(&self.header)?;
        out.push('\n');
        for t in &self.trajectories {
            out.push_str(&serde_json::to_string(t)?);
            out.push('\n');
        }
        Ok(out)
    }
}

/// Reads and validates the reference file at `path`.
pub fn load(path: impl AsRef<Path>) -> Result<Reference, ReferenceError> {
    let path = path.as_ref();
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| ReferenceError::Io { file: file.clone(), source })?;
    parse(&text, &file)
}

/// Parses and validates reference text; `file` names it in errors. Blank lines are ignored.
pub fn parse(text: &str, file: &str) -> Result<Reference, ReferenceError> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l)).filter(|(_, l)| !l.trim().is_empty());
    let (line, header_text) = lines.next().ok_or_else(|| ReferenceError::Empty { file: file.to_owned() })?;
    let mut header: Header = from_json(header_text, file, line)?;
    check_header(&mut header).map_err(|message| invalid(file, line, message))?;
    let mut trajectories = Vec::new();
    for (line, text) in lines {
        let mut t: Trajectory = from_json(text, file, line)?;
        check_trajectory(&mut t, &header.roles).map_err(|message| invalid(file, line, message))?;
        trajectories.push(t);
    }
    Ok(Reference { header, trajectories })
}

/// Deserialises one line.
fn from_json<T: serde::de::DeserializeOwned>(text: &str, file: &str, line: usize) -> Result<T, ReferenceError> {
    serde_json::from_str(text).map_err(|source| ReferenceError::Json { file: file.to_owned(), line, source })
}

/// An [`ReferenceError::Invalid`] for `file:line`.
fn invalid(file: &str, line: usize, message: String) -> ReferenceError {
    ReferenceError::Invalid { file: file.to_owned(), line, message }
}

/// Lower-cases the roles and checks they are distinct and the perft depths run 1, 2, ...
fn check_header(header: &mut Header) -> Result<(), String> {
    for role in &mut header.roles {
        *role = role.to_lowercase();
    }
    for (i, role) in header.roles.iter().enumerate() {
        if header.roles[..i].contains(role) {
            return Err(format!("role {role} is listed twice"));
        }
    }
    for (i, level) in header.perft.iter().enumerate() {
        if usize::try_from(level.depth).ok() != Some(i + 1) {
            return Err(format!("perft entry {} has depth {}, expected {}", i + 1, level.depth, i + 1));
        }
    }
    Ok(())
}

/// Lower-cases role names and checks every per-role map and list against `roles`.
fn check_trajectory(t: &mut Trajectory, roles: &[String]) -> Result<(), String> {
    for (i, step) in t.steps.iter_mut().enumerate() {
        check_step(step, roles).map_err(|e| format!("seed {} step {i}: {e}", t.seed))?;
    }
    check_final(&mut t.end, roles).map_err(|e| format!("seed {} final: {e}", t.seed))
}

/// Checks one step: a legal list per role, one move per role.
fn check_step(step: &mut Step, roles: &[String]) -> Result<(), String> {
    lowercase_keys(&mut step.legal);
    check_keys(&step.legal, roles, "legal")?;
    if step.moves.len() != roles.len() {
        return Err(format!("{} moves for {} roles", step.moves.len(), roles.len()));
    }
    Ok(())
}

/// Checks the final record: goals per role, goal values for every `null` goal, a known role in
/// a "no legal move" reason.
fn check_final(end: &mut Final, roles: &[String]) -> Result<(), String> {
    lowercase_keys(&mut end.goal_values);
    if let Some(goals) = &mut end.goals {
        lowercase_keys(goals);
        check_keys(goals, roles, "goals")?;
        let mut unset = goals.iter().filter(|(_, v)| v.is_none()).map(|(role, _)| role);
        if let Some(role) = unset.find(|role| !end.goal_values.contains_key(*role)) {
            return Err(format!("goal of {role} is null but goal_values has no entry for it"));
        }
    }
    if let Some(reason) = &mut end.reason {
        *reason = reason.to_lowercase();
    }
    match end.no_legal_move_role() {
        Some(role) if !roles.iter().any(|r| r == role) => Err(format!("reason names unknown role {role}")),
        _ => Ok(()),
    }
}

/// Re-keys a per-role map with lower-case role names.
fn lowercase_keys<V>(map: &mut BTreeMap<String, V>) {
    if map.keys().any(|k| k.chars().any(char::is_uppercase)) {
        *map = std::mem::take(map).into_iter().map(|(k, v)| (k.to_lowercase(), v)).collect();
    }
}

/// Checks that `map` has exactly one entry per role.
fn check_keys<V>(map: &BTreeMap<String, V>, roles: &[String], what: &str) -> Result<(), String> {
    if let Some(role) = roles.iter().find(|r| !map.contains_key(*r)) {
        return Err(format!("{what} has no entry for role {role}"));
    }
    if let Some(key) = map.keys().find(|k| !roles.contains(k)) {
        return Err(format!("{what} has an entry for unknown role {key}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = r#"{"game":"nim","source":"test","roles":["White","black"],"perft":[{"depth":1,"states":2,"paths":2,"terminal_states":0}]}"#;
    const NORMAL: &str = r#"{"seed":1,"steps":[{"state":["(control white)","(pile 1)"],"legal":{"white":["(take 1)"],"black":["noop"]},"moves":["(take 1)","noop"],"terminal":false}],"final":{"state":["(control black)","(pile 0)"],"terminal":true,"goals":{"white":100,"black":null},"goal_values":{"black":[0,100]}}}"#;
    const TIMED: &str = r#"{"seed":2,"steps":[],"final":{"state":["(pile 1)"],"truncated":true,"reason":"time"}}"#;
    const STUCK: &str = r#"{"seed":3,"steps":[],"final":{"state":["(pile 1)"],"terminal":false,"truncated":true,"reason":"no legal move for BLACK"}}"#;

    fn parse_lines(lines: &[&str]) -> Result<Reference, ReferenceError> {
        parse(&lines.join("\n"), "test.jsonl")
    }

    #[test]
    fn parses_every_variant() {
        let r = parse_lines(&[HEADER, NORMAL, "", TIMED, STUCK]).expect("valid reference");
        assert_eq!(r.header.roles, ["white", "black"]);
        assert_eq!(r.header.perft.len(), 1);
        assert!(r.header.notes.is_empty());
        let [normal, timed, stuck] = &r.trajectories[..] else { panic!("three trajectories") };
        let goals = normal.end.goals.as_ref().expect("goals");
        assert_eq!(goals.get("white"), Some(&Some(100)));
        assert_eq!(goals.get("black"), Some(&None));
        assert_eq!(normal.end.goal_values.get("black").map(Vec::as_slice), Some(&[0, 100][..]));
        assert_eq!(timed.end.terminal, None);
        assert_eq!(timed.end.reason.as_deref(), Some("time"));
        assert_eq!(stuck.end.no_legal_move_role(), Some("black"));
    }

    #[test]
    fn roundtrips_through_jsonl() {
        let r = parse_lines(&[HEADER, NORMAL, TIMED, STUCK]).expect("valid reference");
        let text = r.to_jsonl().expect("serialise");
        assert_eq!(parse(&text, "again.jsonl").expect("reparse"), r);
    }

    #[test]
    fn errors_name_file_and_line() {
        let err = parse_lines(&[HEADER, NORMAL, "{\"seed\": 2, \"steps\": ["]).expect_err("truncated JSON");
        assert!(matches!(err, ReferenceError::Json { line: 3, .. }), "{err}");
        assert!(err.to_string().starts_with("test.jsonl:3: "), "{err}");

        let wrong_moves = NORMAL.replace(r#""moves":["(take 1)","noop"]"#, r#""moves":["(take 1)"]"#);
        let err = parse_lines(&[HEADER, &wrong_moves]).expect_err("one move for two roles");
        assert_eq!(err.to_string(), "test.jsonl:2: seed 1 step 0: 1 moves for 2 roles");

        let unknown_role = NORMAL.replace(r#""black":["noop"]"#, r#""red":["noop"]"#);
        let err = parse_lines(&[HEADER, &unknown_role]).expect_err("legal for an unknown role");
        assert!(matches!(err, ReferenceError::Invalid { line: 2, .. }), "{err}");

        let no_values = NORMAL.replace(r#","goal_values":{"black":[0,100]}"#, "");
        let err = parse_lines(&[HEADER, &no_values]).expect_err("null goal without values");
        assert!(err.to_string().contains("goal_values"), "{err}");
    }

    #[test]
    fn bad_headers_are_refused() {
        assert!(matches!(parse("\n \n", "e.jsonl"), Err(ReferenceError::Empty { .. })));
        let twice = HEADER.replace(r#""black""#, r#""white""#);
        assert!(matches!(parse(&twice, "h.jsonl"), Err(ReferenceError::Invalid { line: 1, .. })));
        let gap = HEADER.replace(r#""depth":1"#, r#""depth":2"#);
        assert!(matches!(parse(&gap, "h.jsonl"), Err(ReferenceError::Invalid { line: 1, .. })));
        let err = load("/nonexistent/ref.jsonl").expect_err("missing file");
        assert!(err.to_string().starts_with("/nonexistent/ref.jsonl: "), "{err}");
    }
}
