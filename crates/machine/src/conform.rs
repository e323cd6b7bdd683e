//! The conformance harness: replay reference trajectories (recorded from the GGP-Base prover) on
//! an engine and compare everything it says with what the prover said.
//!
//! For each trajectory, from the initial state, each step compares the state, the terminal flag
//! and every role's legal moves (printed, lower-cased, sorted by byte order), then looks the
//! recorded joint move up among our legal moves by its printed text and applies it. The final
//! record compares the state, the terminal flag when recorded, that the named role has no legal
//! move when the recording stopped for that reason, and the goals: a role's goal value, or, for a
//! role whose recorded goal is `null`, every goal value the rules derive. The first mismatch in a
//! trajectory ends that trajectory, since the states diverge from there. Finally the perft counts
//! of every recorded depth are compared.
//!
//! Counting: every trajectory step compared, every final record compared and every perft depth
//! compared is one check ("steps checked"); each check that finds a difference is one mismatch
//! (listing all the differences found in it). A role list that differs from the reference's is a
//! mismatch on its own and stops everything else (nothing is comparable then).
//!
//! Nothing here panics on a bad reference or a failing engine: an illegal reference move, an engine
//! error, a missing entry all become mismatches.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use crate::perft::{perft, PerftLevel, PerftLimits};
use crate::reference::{Final, Reference, Step, Trajectory};
use crate::{MachineError, StateMachine};

/// How many items of a list difference a mismatch shows before summarising the rest.
const SHOWN_ITEMS: usize = 8;
/// How many mismatches the [`Display`](fmt::Display) rendering of a report details.
const SHOWN_MISMATCHES: usize = 5;

/// What [`conform`] checks besides the trajectories.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConformOptions {
    /// Whether to compare the recorded perft counts.
    pub perft: bool,
    /// Limits for our perft run; a depth it cannot finish is noted, not counted as a mismatch.
    pub perft_limits: PerftLimits,
}

impl Default for ConformOptions {
    /// Perft on, capped at 1,000,000 joint-move applications (the reference recorded no depth
    /// needing more than 200,000, so only a wrong engine reaches the cap).
    fn default() -> Self {
        ConformOptions { perft: true, perft_limits: PerftLimits { max_expansions: Some(1_000_000), deadline: None } }
    }
}

/// Where a mismatch was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "at", rename_all = "snake_case")]
pub enum Location {
    /// The list of roles.
    Roles,
    /// Step `step` (0-based) of the trajectory with seed `seed`.
    Step {
        /// The trajectory's seed.
        seed: i64,
        /// The step index.
        step: usize,
    },
    /// The final record of the trajectory with seed `seed`, reached after `step` steps.
    Final {
        /// The trajectory's seed.
        seed: i64,
        /// The number of steps before it.
        step: usize,
    },
    /// Perft depth `depth`, or the perft run as a whole when it failed (`None`).
    Perft {
        /// The depth compared.
        depth: Option<u32>,
    },
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Roles => write!(f, "roles"),
            Location::Step { seed, step } => write!(f, "seed {seed} step {step}"),
            Location::Final { seed, step } => write!(f, "seed {seed} final (after {step} steps)"),
            Location::Perft { depth: Some(d) } => write!(f, "perft depth {d}"),
            Location::Perft { depth: None } => write!(f, "perft"),
        }
    }
}

/// One check that found differences.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mismatch {
    /// Where it was found.
    #[serde(flatten)]
    pub location: Location,
    /// Each difference, e.g. `state: missing [(cell 1 1 x)] extra [(cell 1 1 b)]`.
    pub diffs: Vec<String>,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.diffs.join("; "))
    }
}

/// The outcome of [`conform`]; serialisable for `--json` output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConformReport {
    /// The game named by the reference header.
    pub game: String,
    /// Checks performed: trajectory steps, final records and perft depths compared.
    pub steps_checked: u64,
    /// Trajectories replayed.
    pub trajectories: usize,
    /// Trajectories replayed to the end without a mismatch.
    pub trajectories_matched: usize,
    /// Perft depths compared.
    pub perft_depths_checked: u32,
    /// Every mismatch, in the order found.
    pub mismatches: Vec<Mismatch>,
    /// Remarks that are not mismatches, e.g. a perft depth our limits did not let us finish.
    pub notes: Vec<String>,
}

impl ConformReport {
    /// An empty report for `game`.
    fn new(game: &str) -> Self {
        ConformReport {
            game: game.to_owned(),
            steps_checked: 0,
            trajectories: 0,
            trajectories_matched: 0,
            perft_depths_checked: 0,
            mismatches: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Whether no mismatch was found.
    pub fn is_ok(&self) -> bool {
        self.mismatches.is_empty()
    }

    /// The summary line `N steps checked, M mismatches`.
    pub fn summary(&self) -> String {
        let m = self.mismatches.len();
        format!("{} steps checked, {m} mismatch{}", self.steps_checked, if m == 1 { "" } else { "es" })
    }

    /// The summary line, the notes, and the first `max_mismatches` mismatches in detail.
    pub fn render(&self, max_mismatches: usize) -> String {
        let mut out = self.summary();
        for note in &self.notes {
            out.push_str(&format!("\n  note: {note}"));
        }
        for m in self.mismatches.iter().take(max_mismatches) {
            out.push_str(&format!("\n  {}:", m.location));
            for d in &m.diffs {
                out.push_str(&format!("\n    {d}"));
            }
        }
        if self.mismatches.len() > max_mismatches {
            out.push_str(&format!("\n  ... and {} more mismatches", self.mismatches.len() - max_mismatches));
        }
        out
    }

    /// Records a mismatch at `location` unless `diffs` is empty; true when there was none.
    fn record(&mut self, location: Location, diffs: Vec<String>) -> bool {
        if diffs.is_empty() {
            return true;
        }
        self.mismatches.push(Mismatch { location, diffs });
        false
    }
}

impl fmt::Display for ConformReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(SHOWN_MISMATCHES))
    }
}

/// Replays every trajectory of `reference` on `m` and compares perft counts; never panics.
pub fn conform<M: StateMachine>(m: &mut M, reference: &Reference, options: &ConformOptions) -> ConformReport {
    let mut report = ConformReport::new(&reference.header.game);
    let roles: Vec<String> = reference.header.roles.iter().map(|r| r.to_lowercase()).collect();
    if let Some(diff) = diff_roles(m.roles(), &roles) {
        report.record(Location::Roles, vec![diff]);
        return report;
    }
    for t in &reference.trajectories {
        report.trajectories += 1;
        if replay(m, t, &roles, &mut report) {
            report.trajectories_matched += 1;
        }
    }
    if options.perft {
        check_perft(m, &reference.header.perft, &options.perft_limits, &mut report);
    }
    report
}

/// The difference between our roles and the (lower-cased) reference roles, compared lower-cased.
fn diff_roles(ours: &[String], expected: &[String]) -> Option<String> {
    let ours: Vec<String> = ours.iter().map(|r| r.to_lowercase()).collect();
    (ours != expected).then(|| format!("roles: expected [{}], engine has [{}]", expected.join(", "), ours.join(", ")))
}

/// Replays one trajectory; returns whether it matched to the end.
fn replay<M: StateMachine>(m: &mut M, t: &Trajectory, roles: &[String], report: &mut ConformReport) -> bool {
    let mut state = m.initial_state();
    for (i, step) in t.steps.iter().enumerate() {
        report.steps_checked += 1;
        match check_step(m, &state, step, roles) {
            Ok(next) => state = next,
            Err(diffs) => return report.record(Location::Step { seed: t.seed, step: i }, diffs),
        }
    }
    report.steps_checked += 1;
    let diffs = check_final(m, &state, &t.end, roles);
    report.record(Location::Final { seed: t.seed, step: t.steps.len() }, diffs)
}

/// Compares one step, then plays its joint move: the next state, or every difference found.
fn check_step<M: StateMachine>(
    m: &mut M,
    state: &M::State,
    step: &Step,
    roles: &[String],
) -> Result<M::State, Vec<String>> {
    let mut diffs = Vec::new();
    diffs.extend(diff_state(m, state, &step.state));
    diffs.extend(diff_terminal(m, state, step.terminal));
    let legal: Vec<_> = (0..roles.len()).map(|r| printed_legal(m, state, r)).collect();
    for (role, ours) in roles.iter().zip(&legal) {
        diffs.extend(diff_legal(role, ours, step.legal.get(role)));
    }
    if !diffs.is_empty() {
        return Err(diffs);
    }
    let joint = reference_joint_move(&legal, &step.moves, roles)?;
    m.next_state(state, &joint).map_err(|e| vec![format!("next state: engine error: {e}")])
}

/// Compares the final record of a trajectory.
fn check_final<M: StateMachine>(m: &mut M, state: &M::State, end: &Final, roles: &[String]) -> Vec<String> {
    let mut diffs = Vec::new();
    diffs.extend(diff_state(m, state, &end.state));
    if let Some(terminal) = end.terminal {
        diffs.extend(diff_terminal(m, state, terminal));
    }
    if let Some(role) = end.no_legal_move_role() {
        diffs.extend(check_no_legal_move(m, state, role, roles));
    }
    if let Some(goals) = &end.goals {
        diffs.extend(diff_goals(m, state, goals, &end.goal_values, roles));
    }
    diffs
}

/// The differences between our goals and the recorded ones: a value per role, or for a `null`
/// goal every value the rules derive.
fn diff_goals<M: StateMachine>(
    m: &mut M,
    state: &M::State,
    goals: &BTreeMap<String, Option<u32>>,
    goal_values: &BTreeMap<String, Vec<u32>>,
    roles: &[String],
) -> Vec<String> {
    let mut diffs = Vec::new();
    for (r, role) in roles.iter().enumerate() {
        let diff = match goals.get(role) {
            Some(Some(expected)) => diff_goal(m, state, r, role, *expected),
            Some(None) => diff_goal_values(m, state, r, role, goal_values.get(role)),
            None => Some(format!("goal {role}: missing in the reference")),
        };
        diffs.extend(diff);
    }
    diffs
}

/// The state as printed by `m`: lower-cased (GDL constants are case-insensitive) and sorted.
pub fn printed_state<M: StateMachine>(m: &M, state: &M::State) -> Vec<String> {
    let mut props: Vec<String> = m.state_props(state).iter().map(|p| p.to_lowercase()).collect();
    props.sort_unstable();
    props
}

/// The legal moves of `role` with their printed text (lower-cased), sorted by that text.
pub fn printed_legal<M: StateMachine>(
    m: &mut M,
    state: &M::State,
    role: usize,
) -> Result<Vec<(String, M::Move)>, MachineError> {
    let moves = m.legal_moves(state, role)?;
    let mut printed: Vec<(String, M::Move)> =
        moves.into_iter().map(|mv| (m.format_move(&mv).to_lowercase(), mv)).collect();
    printed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    Ok(printed)
}

/// The difference between our state and the recorded one.
fn diff_state<M: StateMachine>(m: &M, state: &M::State, expected: &[String]) -> Option<String> {
    diff_lists("state", expected, &printed_state(m, state))
}

/// The difference between our terminal flag and the recorded one.
fn diff_terminal<M: StateMachine>(m: &mut M, state: &M::State, expected: bool) -> Option<String> {
    match m.is_terminal(state) {
        Ok(t) if t == expected => None,
        Ok(t) => Some(format!("terminal: expected {expected}, engine says {t}")),
        Err(e) => Some(format!("terminal: engine error: {e}")),
    }
}

/// The difference between our legal moves for `role` and the recorded ones.
fn diff_legal<Mv>(
    role: &str,
    ours: &Result<Vec<(String, Mv)>, MachineError>,
    expected: Option<&Vec<String>>,
) -> Option<String> {
    let Some(expected) = expected else {
        return Some(format!("legal {role}: missing in the reference"));
    };
    match ours {
        Ok(ours) => {
            let texts: Vec<String> = ours.iter().map(|(text, _)| text.clone()).collect();
            diff_lists(&format!("legal {role}"), expected, &texts)
        }
        Err(e) => Some(format!("legal {role}: engine error: {e}")),
    }
}

/// Looks each recorded move up among our legal moves by its printed text.
fn reference_joint_move<Mv: Clone>(
    legal: &[Result<Vec<(String, Mv)>, MachineError>],
    moves: &[String],
    roles: &[String],
) -> Result<Vec<Mv>, Vec<String>> {
    if moves.len() != roles.len() {
        return Err(vec![format!("moves: the reference has {} moves for {} roles", moves.len(), roles.len())]);
    }
    let mut joint = Vec::with_capacity(roles.len());
    for ((role, text), ours) in roles.iter().zip(moves).zip(legal) {
        let wanted = text.to_lowercase();
        let found = ours.as_ref().ok().and_then(|l| l.iter().find(|(t, _)| *t == wanted));
        match found {
            Some((_, mv)) => joint.push(mv.clone()),
            None => return Err(vec![format!("move {role}: {text} is not among our legal moves")]),
        }
    }
    Ok(joint)
}

/// Checks that `role` has no legal move, as the recording says.
fn check_no_legal_move<M: StateMachine>(m: &mut M, state: &M::State, role: &str, roles: &[String]) -> Option<String> {
    let Some(r) = roles.iter().position(|x| x == role) else {
        return Some(format!("reason names unknown role {role}"));
    };
    match printed_legal(m, state, r) {
        Ok(ours) if ours.is_empty() => None,
        Ok(ours) => {
            Some(format!("legal {role}: expected no legal move, engine has {}", show(ours.iter().map(|x| &x.0))))
        }
        Err(e) => Some(format!("legal {role}: engine error: {e}")),
    }
}

/// The difference between our goal for `role` and the recorded value.
fn diff_goal<M: StateMachine>(m: &mut M, state: &M::State, r: usize, role: &str, expected: u32) -> Option<String> {
    match m.goal(state, r) {
        Ok(v) if v == expected => None,
        Ok(v) => Some(format!("goal {role}: expected {expected}, engine says {v}")),
        Err(e) => Some(format!("goal {role}: expected {expected}, engine error: {e}")),
    }
}

/// For a role without a unique recorded goal: the difference between every goal value we derive
/// and every value the prover derived (compared as sets).
fn diff_goal_values<M: StateMachine>(
    m: &mut M,
    state: &M::State,
    r: usize,
    role: &str,
    expected: Option<&Vec<u32>>,
) -> Option<String> {
    let mut expected = expected.cloned().unwrap_or_default();
    expected.sort_unstable();
    expected.dedup();
    match m.goal_values(state, r) {
        Ok(mut ours) => {
            ours.sort_unstable();
            ours.dedup();
            (ours != expected).then(|| format!("goal values {role}: expected {expected:?}, engine says {ours:?}"))
        }
        Err(e) => Some(format!("goal values {role}: expected {expected:?}, engine error: {e}")),
    }
}

/// `what: missing [..] extra [..]` when the sorted multisets `expected` and `ours` differ.
fn diff_lists(what: &str, expected: &[String], ours: &[String]) -> Option<String> {
    let (missing, extra) = sorted_difference(expected, ours);
    if missing.is_empty() && extra.is_empty() {
        return None;
    }
    let mut parts = vec![what.to_owned() + ":"];
    if !missing.is_empty() {
        parts.push(format!("missing {}", show(missing)));
    }
    if !extra.is_empty() {
        parts.push(format!("extra {}", show(extra)));
    }
    Some(parts.join(" "))
}

/// The items only in `expected` and only in `ours`, counting duplicates.
fn sorted_difference<'a>(expected: &'a [String], ours: &'a [String]) -> (Vec<&'a String>, Vec<&'a String>) {
    let mut a: Vec<&String> = expected.iter().collect();
    let mut b: Vec<&String> = ours.iter().collect();
    a.sort_unstable();
    b.sort_unstable();
    let (mut missing, mut extra) = (Vec::new(), Vec::new());
    let (mut i, mut j) = (0, 0);
    loop {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x == y => {
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x < y => {
                missing.push(*x);
                i += 1;
            }
            (Some(x), None) => {
                missing.push(*x);
                i += 1;
            }
            (_, Some(y)) => {
                extra.push(*y);
                j += 1;
            }
            (None, None) => break,
        }
    }
    (missing, extra)
}

/// A short bracketed list: the first few items, then how many more.
fn show<T: AsRef<str>>(items: impl IntoIterator<Item = T>) -> String {
    let items: Vec<T> = items.into_iter().collect();
    let shown: Vec<&str> = items.iter().take(SHOWN_ITEMS).map(AsRef::as_ref).collect();
    let more = items.len().saturating_sub(SHOWN_ITEMS);
    if more == 0 {
        format!("[{}]", shown.join(", "))
    } else {
        format!("[{}, ... {more} more]", shown.join(", "))
    }
}

/// Runs our perft to the deepest recorded depth and compares every recorded depth.
fn check_perft<M: StateMachine>(m: &mut M, expected: &[PerftLevel], limits: &PerftLimits, report: &mut ConformReport) {
    let Some(deepest) = expected.iter().map(|l| l.depth).max() else {
        return;
    };
    let result = match perft(m, deepest, limits) {
        Ok(result) => result,
        Err(e) => {
            report.steps_checked += 1;
            report.record(Location::Perft { depth: None }, vec![format!("engine error: {e}")]);
            return;
        }
    };
    for want in expected {
        match result.levels.iter().find(|l| l.depth == want.depth) {
            Some(ours) => {
                report.steps_checked += 1;
                report.perft_depths_checked += 1;
                report.record(Location::Perft { depth: Some(want.depth) }, diff_perft(want, ours));
            }
            None => report.notes.push(match &result.cut {
                Some(cut) => format!("{cut}; recorded depth {} not checked", want.depth),
                None => format!("perft depth {} not checked", want.depth),
            }),
        }
    }
}

/// The differing counts of one perft depth.
fn diff_perft(want: &PerftLevel, ours: &PerftLevel) -> Vec<String> {
    let counts = [
        ("states", u128::from(want.states), u128::from(ours.states)),
        ("paths", want.paths, ours.paths),
        ("terminal_states", u128::from(want.terminal_states), u128::from(ours.terminal_states)),
    ];
    counts
        .iter()
        .filter(|(_, w, o)| w != o)
        .map(|(name, w, o)| format!("{name}: expected {w}, engine has {o}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mock::{Counter, Nim};
    use crate::record::record;
    use crate::reference;

    /// A reference recorded from `m` (seeds 1..=6) with perft counted to depth 3 by hand-checked
    /// code; conforming `m` against it must pass.
    fn recorded<M: StateMachine>(m: &mut M, max_steps: usize) -> Reference {
        let mut r = record(m, "mock", 1..=6, max_steps).expect("record");
        r.header.perft = perft(m, 3, &PerftLimits::default()).expect("perft").levels;
        r
    }

    fn check<M: StateMachine>(m: &mut M, r: &Reference) -> ConformReport {
        conform(m, r, &ConformOptions::default())
    }

    /// Total steps + final records of all trajectories, plus the perft depths.
    fn all_checks(r: &Reference) -> u64 {
        let trajectories: usize = r.trajectories.iter().map(|t| t.steps.len() + 1).sum();
        (trajectories + r.header.perft.len()) as u64
    }

    /// The only mismatch of a report.
    fn single(report: &ConformReport) -> &Mismatch {
        assert_eq!(report.mismatches.len(), 1, "{}", report.render(10));
        &report.mismatches[0]
    }

    #[test]
    fn an_engine_conforms_to_its_own_recording() {
        for game in [Nim::new(9), Nim::new(9).ambiguous_goal(), Nim::new(9).stuck_at(5)] {
            // Through the JSON Lines text and the loader, as a reference file would be.
            let text = recorded(&mut game.clone(), 300).to_jsonl().expect("serialise");
            let r = reference::parse(&text, "nim.jsonl").expect("parse");
            let report = check(&mut game.clone(), &r);
            assert!(report.is_ok(), "{report}");
            assert_eq!(report.steps_checked, all_checks(&r));
        }
        let r = recorded(&mut Counter::new(12), 300);
        let report = check(&mut Counter::new(12), &r);
        assert!(report.is_ok(), "{report}");
        assert_eq!(report.steps_checked, all_checks(&r));
        assert_eq!((report.trajectories, report.trajectories_matched, report.perft_depths_checked), (6, 6, 3));
        assert_eq!(report.summary(), format!("{} steps checked, 0 mismatches", all_checks(&r)));
    }

    #[test]
    fn a_wrong_state_is_reported_and_stops_its_trajectory() {
        let mut r = recorded(&mut Nim::new(9), 300);
        r.trajectories[0].steps[2].state[1] = "(pile 42)".into();
        let report = check(&mut Nim::new(9), &r);
        let m = single(&report);
        assert_eq!(m.location, Location::Step { seed: 1, step: 2 });
        assert_eq!(m.diffs.len(), 1);
        assert!(m.diffs[0].starts_with("state: missing [(pile 42)] extra [(pile "), "{m}");
        let skipped = r.trajectories[0].steps.len() + 1 - 3;
        assert_eq!(report.steps_checked, all_checks(&r) - skipped as u64);
        assert_eq!(report.trajectories_matched, 5);
        assert!(report.to_string().starts_with(&format!("{} steps checked, 1 mismatch\n", report.steps_checked)));
    }

    #[test]
    fn wrong_legal_moves_are_listed_per_role() {
        let mut r = recorded(&mut Nim::new(9), 300);
        let legal = &mut r.trajectories[1].steps[0].legal;
        legal.insert("white".into(), vec!["(take 1)".into(), "(take 3)".into()]);
        legal.insert("black".into(), vec![]);
        let report = check(&mut Nim::new(9), &r);
        let m = single(&report);
        assert_eq!(m.location, Location::Step { seed: 2, step: 0 });
        assert_eq!(m.diffs, ["legal white: missing [(take 3)] extra [(take 2)]", "legal black: extra [noop]"]);
    }

    #[test]
    fn an_illegal_reference_move_is_a_mismatch() {
        let mut r = recorded(&mut Nim::new(9), 300);
        r.trajectories[2].steps[1].moves[1] = "(take 9)".into();
        let report = check(&mut Nim::new(9), &r);
        let m = single(&report);
        assert_eq!(m.location, Location::Step { seed: 3, step: 1 });
        assert_eq!(m.diffs, ["move black: (take 9) is not among our legal moves"]);
    }

    #[test]
    fn wrong_terminal_flag_and_goals_are_reported() {
        let mut r = recorded(&mut Nim::new(9), 300);
        r.trajectories[3].steps[0].terminal = true;
        let end = &mut r.trajectories[4].end;
        let goals = end.goals.as_mut().expect("terminal trajectory");
        let white = goals.get("white").copied().flatten().expect("white goal");
        goals.insert("white".into(), Some(100 - white));
        let report = check(&mut Nim::new(9), &r);
        assert_eq!(report.mismatches.len(), 2, "{report}");
        assert_eq!(report.mismatches[0].diffs, ["terminal: expected true, engine says false"]);
        let m = &report.mismatches[1];
        assert_eq!(m.location, Location::Final { seed: 5, step: r.trajectories[4].steps.len() });
        assert_eq!(m.diffs, [format!("goal white: expected {}, engine says {white}", 100 - white)]);
    }

    #[test]
    fn null_goals_compare_all_goal_values() {
        let mut r = recorded(&mut Nim::new(9).ambiguous_goal(), 300);
        let report = check(&mut Nim::new(9).ambiguous_goal(), &r);
        assert!(report.is_ok(), "{report}");
        // The plain game has a unique goal where the reference has none.
        let report = check(&mut Nim::new(9), &r);
        assert_eq!(report.mismatches.len(), 6, "{report}");
        assert!(report.mismatches[0].diffs[0].starts_with("goal values black: expected [0, 100], engine says ["));
        r.trajectories[0].end.goal_values.insert("black".into(), vec![100]);
        let report = check(&mut Nim::new(9).ambiguous_goal(), &r);
        assert_eq!(single(&report).diffs, ["goal values black: expected [100], engine says [0, 100]"]);
    }

    #[test]
    fn no_legal_move_endings_are_checked() {
        let r = recorded(&mut Nim::new(9).stuck_at(4), 300);
        let stuck = r.trajectories.iter().filter(|t| t.end.no_legal_move_role().is_some()).count();
        assert!(stuck > 0, "some seed passes pile 4");
        assert!(check(&mut Nim::new(9).stuck_at(4), &r).is_ok());
        let report = check(&mut Nim::new(9), &r);
        // Perft differs too (pile 4 is reachable at depth 2 and 3).
        let finals: Vec<&Mismatch> =
            report.mismatches.iter().filter(|m| matches!(m.location, Location::Final { .. })).collect();
        assert_eq!(finals.len(), stuck, "{report}");
        assert!(finals[0].diffs[0].ends_with("expected no legal move, engine has [noop]"), "{report}");
    }

    #[test]
    fn truncated_trajectories_compare_what_was_recorded() {
        let mut r = recorded(&mut Nim::new(40), 5);
        assert!(r.trajectories.iter().all(|t| t.end.truncated && t.steps.len() == 5));
        assert!(check(&mut Nim::new(40), &r).is_ok());
        // A time-limited recording may lack the terminal flag; then it is not compared.
        let end = &mut r.trajectories[0].end;
        (end.terminal, end.reason) = (None, Some("time".into()));
        assert!(check(&mut Nim::new(40), &r).is_ok());
        r.trajectories[1].end.terminal = Some(true);
        let report = check(&mut Nim::new(40), &r);
        assert_eq!(single(&report).diffs, ["terminal: expected true, engine says false"]);
    }

    #[test]
    fn perft_counts_are_compared_per_depth() {
        let mut r = recorded(&mut Nim::new(9), 300);
        r.header.perft[1].states += 1;
        r.header.perft[2].paths = 1;
        let report = check(&mut Nim::new(9), &r);
        assert_eq!(report.mismatches.len(), 2, "{report}");
        assert_eq!(report.mismatches[0].location, Location::Perft { depth: Some(2) });
        let states = r.header.perft[1].states;
        assert_eq!(report.mismatches[0].diffs, [format!("states: expected {states}, engine has {}", states - 1)]);
        assert!(report.mismatches[1].diffs[0].starts_with("paths: expected 1, engine has "));
        let off = ConformOptions { perft: false, ..ConformOptions::default() };
        assert_eq!(conform(&mut Nim::new(9), &r, &off).perft_depths_checked, 0);
    }

    #[test]
    fn perft_cut_by_limits_is_a_note() {
        let r = recorded(&mut Nim::new(9), 300);
        let options =
            ConformOptions { perft: true, perft_limits: PerftLimits { max_expansions: Some(3), deadline: None } };
        let report = conform(&mut Nim::new(9), &r, &options);
        assert!(report.is_ok(), "{report}");
        assert_eq!(report.perft_depths_checked, 1);
        assert_eq!(report.notes.len(), 2, "{report}");
        assert!(report.notes[0].contains("more than 3 joint-move applications"));
    }

    #[test]
    fn engine_errors_become_mismatches() {
        let r = recorded(&mut Nim::new(9), 300);
        let report = check(&mut Nim::new(9).broken_at(7), &r);
        assert!(!report.is_ok());
        assert!(report.mismatches.iter().any(|m| m.diffs.iter().any(|d| d.contains("engine error: broken at pile 7"))));
        assert!(report.mismatches.iter().any(|m| m.location == Location::Perft { depth: None }), "{report}");
    }

    #[test]
    fn roles_must_match() {
        let mut r = recorded(&mut Nim::new(3), 300);
        r.header.roles[1] = "red".into();
        let report = check(&mut Nim::new(3), &r);
        assert_eq!(single(&report).diffs, ["roles: expected [white, red], engine has [white, black]"]);
        assert_eq!(report.steps_checked, 0);
        r.header.roles = vec!["WHITE".into(), "Black".into()];
        assert!(check(&mut Nim::new(3), &r).is_ok());
    }

    #[test]
    fn report_serialises_to_json() {
        let mut r = recorded(&mut Nim::new(9), 300);
        r.header.perft[0].terminal_states = 5;
        let json = serde_json::to_value(check(&mut Nim::new(9), &r)).expect("json");
        assert_eq!(json["mismatches"][0]["at"], "perft");
        assert_eq!(json["mismatches"][0]["depth"], 1);
        assert_eq!(json["mismatches"][0]["diffs"][0], "terminal_states: expected 5, engine has 0");
    }

    #[test]
    fn long_differences_are_abbreviated() {
        let expected: Vec<String> = (0..20).map(|i| format!("(p {i:02})")).collect();
        let diff = diff_lists("state", &expected, &[]).expect("differs");
        assert!(diff.ends_with("(p 07), ... 12 more]"), "{diff}");
        assert_eq!(diff_lists("state", &expected, &expected), None);
        let dup = vec!["a".to_owned(), "a".to_owned()];
        assert_eq!(diff_lists("x", &dup[..1], &dup).as_deref(), Some("x: extra [a]"));
    }
}
