//! Goal emulation (the Sancho blog's "state machine feature emulation"): hypotheses about how a
//! game's goals are computed, formed from its base propositions, and kept only where every
//! terminal state of random games agrees with the goal net.
//!
//! The forms tried are the blog's: a role's goal value is the cardinality of a set of base
//! propositions; or it follows from whether the role's tally is ahead of, level with or behind
//! the others' — a majority of a set of propositions split between the roles, who has more discs
//! (Reversi), or who has the higher counter held in the state (dots and boxes). Tallies come
//! from the propositions' names ([`Tally`]); a comparison pairs tallies of one family (one
//! relation split at one position), one per role, and learns each role's value per standing from
//! the games. A form is confirmed when it reproduces the goals of every sampled terminal state and
//! of every state on the way where the goal net computes goals at all, the goals vary over the
//! sample, the sample is large enough to make a chance fit unlikely, and (for a comparison) the
//! tallies differ by more than one somewhere, so that the form says more than who moved last.
//!
//! Confirmation is statistical, as in the blog: a confirmed form is a hypothesis that has
//! survived every game tried, and the emulator falls back to the goal net where the form has no
//! answer (a standing random play never produced, a counter with no value).

mod decided;
mod latched;
mod tally;

pub use decided::Decider;
pub use latched::LatchHeuristic;
pub use tally::{Tally, TallyKind, Trend};

use crate::{Latch, LatchKind};
use machine::playout::PlayoutEnd;
use machine::StateMachine;
use propnet::net::Net;
use propnet::{PropnetMachine, PropnetState};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Instant;
use structures::Bits;

/// Terminal states sampled, at most.
const MAX_GAMES: usize = 1024;

/// Terminal states a form must reproduce before it is believed.
pub const MIN_GAMES: usize = 64;

/// Joint moves after which a sampled game is abandoned.
const MAX_STEPS: u32 = 2000;

/// Most tally assignments tried per family for comparisons.
const MAX_ASSIGNMENTS: usize = 4096;

/// Most forms kept (the first is the emulator).
const MAX_FORMS: usize = 8;

/// Where a role's tally stands against the others' in a state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Standing {
    /// Strictly more than every other role's.
    Ahead,
    /// Tied for the most.
    Level,
    /// Some other role has more.
    Behind,
}

impl Standing {
    /// The standing of `role` among `tallies` (one per role).
    pub fn of(tallies: &[u32], role: usize) -> Standing {
        let others = tallies.iter().enumerate().filter(|&(r, _)| r != role).map(|(_, &t)| t).max();
        match others {
            Some(o) if tallies[role] < o => Standing::Behind,
            Some(o) if tallies[role] == o => Standing::Level,
            _ => Standing::Ahead,
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// How a form turns tallies into goal values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum FormRule {
    /// Each role's goal value is its tally.
    Cardinality,
    /// Each role's goal value follows from its standing: per role, the value when ahead, level
    /// and behind (`None` for a standing random play never produced).
    Comparison {
        /// Per role, `[ahead, level, behind]`.
        values: Vec<[Option<u32>; 3]>,
    },
}

impl FormRule {
    fn same_kind(&self, other: &FormRule) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other)
    }
}

/// A confirmed hypothesis about the goals.
#[derive(Debug, Clone, Serialize)]
pub struct GoalForm {
    /// How the tallies give goal values.
    #[serde(flatten)]
    pub rule: FormRule,
    /// One tally per role.
    pub tallies: Vec<Tally>,
    /// Whether the goal net reads every tally's propositions (the form then restates the goal
    /// logic; otherwise it found other propositions that decide the goals the same way).
    pub goal_read: bool,
}

impl GoalForm {
    /// Every role's goal value in terminal `state` (propnet state words), if the form knows it.
    pub fn scores(&self, state: &[u64]) -> Option<Vec<u32>> {
        let mut out = vec![0; self.tallies.len()];
        self.write(state, &mut out).then_some(out)
    }

    /// Writes every role's goal value in terminal `state` to `out` (one per role) and returns
    /// true, if the form knows them; allocates nothing (playouts ask it once each).
    pub fn write(&self, state: &[u64], out: &mut [u32]) -> bool {
        const MOST: usize = 16;
        let mut tallies = [0u32; MOST];
        let roles = self.tallies.len();
        // More roles than that: the goal net answers.
        if roles > MOST {
            return false;
        }
        for (t, tally) in tallies.iter_mut().zip(&self.tallies) {
            let Some(v) = tally.read(state) else { return false };
            *t = v;
        }
        let tallies = &tallies[..roles];
        match &self.rule {
            FormRule::Cardinality => out.copy_from_slice(tallies),
            FormRule::Comparison { values } => {
                for (r, o) in out.iter_mut().enumerate() {
                    let Some(v) = values[r][Standing::of(tallies, r).index()] else { return false };
                    *o = v;
                }
            }
        }
        true
    }

    /// What kind of form it is, in the words of the blog's list.
    pub fn kind(&self) -> &'static str {
        let counters = self.tallies.iter().all(|t| t.kind == TallyKind::Counter);
        match (&self.rule, counters) {
            (FormRule::Cardinality, false) => "cardinality of a set",
            (FormRule::Cardinality, true) => "value of a counter",
            (FormRule::Comparison { .. }, true) => "who has the higher counter",
            (FormRule::Comparison { .. }, false) => "who has more of a set",
        }
    }

    /// One line for people: the kind, each role's tally and, for comparisons, its values.
    pub fn describe(&self, roles: &[String]) -> String {
        let per_role: Vec<String> = roles
            .iter()
            .zip(&self.tallies)
            .enumerate()
            .map(|(r, (role, t))| match &self.rule {
                FormRule::Cardinality => format!("{role} = {}", t.name),
                FormRule::Comparison { values } => {
                    let show = |v: Option<u32>| v.map_or("?".to_owned(), |v| v.to_string());
                    let [a, l, b] = values[r];
                    format!("{role} {} (ahead {}, level {}, behind {})", t.name, show(a), show(l), show(b))
                }
            })
            .collect();
        format!("{}: {}", self.kind(), per_role.join("; "))
    }
}

/// The goal forms confirmed for a game.
#[derive(Debug, Clone, Default, Serialize)]
pub struct GoalForms {
    /// The confirmed forms, those that restate the goal net's own logic first.
    pub forms: Vec<GoalForm>,
    /// Terminal states of random games they were checked against.
    pub games: usize,
    /// States on the way (where the goal net gives every role a value) they were checked against.
    pub states: usize,
    /// Candidate tallies formed from the propositions' names.
    pub tallies: usize,
    /// Where a form's outcome can be decided before the game ends (virtual terminals).
    pub deciders: Vec<Decider>,
    /// "Owning these latches is good", per form that counts latches, with how random games
    /// judged it (confirmed or not).
    pub latch_heuristics: Vec<LatchHeuristic>,
    /// The sampled states, reachable ones, the `games` terminal ones first: support from play for
    /// the proofs, and the states the emulator is timed on.
    #[serde(skip)]
    samples: Vec<PropnetState>,
}

/// Time per terminal state to compute every role's goal, by the goal net and by the emulator.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Speed {
    /// Nanoseconds per state by the compiled goal net (one state at a time, as the tree asks).
    pub net_ns: f64,
    /// Nanoseconds per state by the emulator.
    pub emulator_ns: f64,
}

/// One sampled state of a game and every role's goal value in it.
pub(crate) struct End {
    pub state: PropnetState,
    pub goals: Vec<u32>,
    /// Whether the game was over.
    pub terminal: bool,
}

impl GoalForms {
    /// Samples random games of `net` until `deadline` (at most [`MAX_GAMES`]) and keeps the
    /// forms their states confirm, as the module header describes.
    pub fn discover(net: &Net, deadline: Option<Instant>, seed: u64) -> GoalForms {
        let tallies = tally::candidates(net);
        if tallies.is_empty() || net.roles.is_empty() {
            return GoalForms { tallies: tallies.len(), ..GoalForms::default() };
        }
        let ends = sample(net, deadline, seed);
        let games = ends.iter().filter(|e| e.terminal).count();
        let forms = if games < MIN_GAMES { Vec::new() } else { confirm(net, &tallies, &ends) };
        GoalForms {
            forms,
            games,
            states: ends.len() - games,
            tallies: tallies.len(),
            samples: ends.into_iter().map(|e| e.state).collect(),
            ..GoalForms::default()
        }
    }

    /// What the forms' counted latches (of `latches`, found by any method) and their counters'
    /// trends (proved here) give, until `deadline`: virtual terminals, and, with `heuristics`,
    /// latch heuristics checked on random games.
    pub fn use_latches(
        &mut self,
        net: &Net,
        latches: &[Latch],
        heuristics: bool,
        deadline: Option<Instant>,
        seed: u64,
    ) {
        let mut positive = vec![false; net.bases.len()];
        for l in latches.iter().filter(|l| l.kind == LatchKind::Positive) {
            positive[l.base] = true;
        }
        let samples: Vec<&[u64]> = self.samples.iter().map(PropnetState::words).collect();
        for t in self.forms.iter_mut().flat_map(|f| f.tallies.iter_mut()) {
            t.prove_trend(net, &samples, deadline);
        }
        let forms = &self.forms;
        self.deciders =
            (0..forms.len()).filter_map(|f| Decider::new(net, forms, f, &positive, &samples, deadline)).collect();
        if heuristics {
            self.latch_heuristics = (0..forms.len())
                .filter_map(|f| LatchHeuristic::check(net, forms, f, &positive, deadline, seed))
                .collect();
        }
    }

    /// The time the goal net and the emulator take per sampled terminal state, if there is an
    /// emulator.
    pub fn time(&self, net: &Net) -> Option<Speed> {
        let emulator = self.emulator()?;
        let terminal = &self.samples[..self.games];
        let mut m = PropnetMachine::new(net);
        let per_state = |start: Instant| start.elapsed().as_secs_f64() * 1e9 / terminal.len().max(1) as f64;
        let start = Instant::now();
        let mut sum = 0u64;
        for s in terminal {
            sum += (0..net.roles.len()).map(|r| u64::from(m.goal(s, r).unwrap_or(0))).sum::<u64>();
        }
        let net_ns = per_state(start);
        let start = Instant::now();
        for s in terminal {
            sum += emulator.scores(s.words()).map_or(0, |v| v.iter().map(|&x| u64::from(x)).sum());
        }
        let emulator_ns = per_state(start);
        std::hint::black_box(sum);
        Some(Speed { net_ns, emulator_ns })
    }

    /// Per role, the confirmed latch heuristics' value of `state` (0..1, a half at no lead;
    /// the mean where several are confirmed), or `None` where none is.
    pub fn latch_value(&self, state: &[u64]) -> Option<Vec<f64>> {
        // Asked of every node the tree expands: no allocation but the answer.
        let confirmed = || self.latch_heuristics.iter().filter(|h| h.confirmed);
        let (count, roles) = (confirmed().count(), confirmed().next()?.latches.len());
        let mean = |r| confirmed().map(|h| h.value(state, r)).sum::<f64>() / count as f64;
        Some((0..roles).map(mean).collect())
    }

    /// The confirmed latch heuristic that random games bore out best (the highest correlation),
    /// if there is one.
    pub fn best_latch_heuristic(&self) -> Option<&LatchHeuristic> {
        let confirmed = self.latch_heuristics.iter().filter(|h| h.confirmed);
        confirmed.max_by(|a, b| a.correlation.total_cmp(&b.correlation))
    }

    /// Every role's score, if some form's outcome is already decided in `state` (propnet state
    /// words): the state is virtually terminal.
    pub fn decided(&self, state: &[u64]) -> Option<Vec<u32>> {
        self.deciders.iter().find_map(|d| d.decided(&self.forms[d.form], state))
    }

    /// The form the emulator uses: the first confirmed one over propositions the goal net
    /// reads. Another form that fits is a regularity of the game (the boxes drawn in dots and
    /// boxes as well as the score counters), good for reasoning about it but not trusted to
    /// stand in for the goal logic.
    pub fn emulator(&self) -> Option<&GoalForm> {
        self.emulator_index().map(|i| &self.forms[i])
    }

    /// The emulator's index in [`forms`](Self::forms).
    pub fn emulator_index(&self) -> Option<usize> {
        self.forms.iter().position(|f| f.goal_read)
    }

    /// Every role's goal value in terminal `state` by the emulator, if it has one and knows.
    pub fn scores(&self, state: &[u64]) -> Option<Vec<u32>> {
        self.emulator()?.scores(state)
    }
}

/// States of uniformly random games from the initial state with their goals: terminal ones, and
/// as many on the way where the goal net gives every role a value (a form must hold there too,
/// which rules out facts that only random play's endings share, such as the player who moved
/// last having one piece more when four in a row ends the game).
pub(crate) fn sample(net: &Net, deadline: Option<Instant>, seed: u64) -> Vec<End> {
    let mut m = PropnetMachine::new(net);
    let mut rng = SmallRng::seed_from_u64(seed);
    let initial = PropnetState::from_bases(net.bases.len(), (0..net.bases.len()).filter(|&i| net.bases[i].init));
    let going = || deadline.is_none_or(|d| Instant::now() < d);
    let lane_state = |words: &[u64], lane: usize| PropnetState::from_lane(words, net.bases.len(), lane);
    let starts = vec![&initial; 64];
    let mut out: Vec<End> = Vec::new();
    let mut batches = 0;
    while out.len() < MAX_GAMES && going() {
        let before = out.len();
        m.playout_each(&starts, &mut rng, MAX_STEPS, false, None, &mut || going(), &mut |end| {
            let goals: Option<Vec<u32>> = end.goals.iter().map(|g| g.as_ref().ok().copied()).collect();
            if let (PlayoutEnd::Terminal, Some(goals)) = (end.end, goals) {
                out.push(End { state: end.final_state(), goals, terminal: true });
            }
        });
        batches += 1;
        // Games that never end within the step limit give nothing to learn from.
        if out.len() == before && batches >= 4 {
            break;
        }
    }
    out.truncate(MAX_GAMES);
    let terminal = out.len();
    // States on the way: one lane of every step of 64 games at a time.
    let mut on_the_way = Vec::new();
    let mut turn = 0usize;
    m.watch_transitions(&initial, u64::MAX, &mut rng, MAX_STEPS, &mut |step| {
        turn += 1;
        if step.moving != 0 {
            let lanes: Vec<u32> = (0..64).filter(|&l| step.moving >> l & 1 == 1).collect();
            on_the_way.push(lane_state(step.next, lanes[turn % lanes.len()] as usize));
        }
        on_the_way.len() < terminal && going()
    });
    for state in on_the_way {
        if m.is_terminal(&state).unwrap_or(true) {
            continue;
        }
        let goals: Option<Vec<u32>> = (0..net.roles.len()).map(|r| m.goal(&state, r).ok()).collect();
        if let Some(goals) = goals {
            out.push(End { state, goals, terminal: false });
        }
    }
    out
}

/// Whether base `b` holds in `state` (propnet state words).
pub(crate) fn holds(state: &[u64], b: usize) -> bool {
    state.bit(b)
}

impl propnet::GoalOracle for GoalForms {
    fn goals(&self, state: &[u64], out: &mut [u32]) -> bool {
        self.emulator().is_some_and(|e| e.write(state, out))
    }
}

/// The forms every sampled end confirms, those over propositions the goal net reads first.
fn confirm(net: &Net, tallies: &[Tally], ends: &[End]) -> Vec<GoalForm> {
    let roles = net.roles.len();
    // States on the way count only where the goal net computes something there: many games
    // give every role a placeholder (0 until the game is over).
    let on_the_way: Vec<&End> = ends.iter().filter(|e| !e.terminal).collect();
    let placeholder = on_the_way.iter().all(|e| e.goals == on_the_way[0].goals);
    let ends: Vec<&End> = ends.iter().filter(|e| e.terminal || !placeholder).collect();
    // Goals that never vary leave nothing to emulate.
    if (0..roles).all(|r| ends.iter().all(|e| e.goals[r] == ends[0].goals[r])) {
        return Vec::new();
    }
    let read = {
        let mut read = vec![false; net.bases.len()];
        for b in net.bases_read(net.goals.iter().flatten().map(|&(_, n)| n)) {
            read[b] = true;
        }
        read
    };
    // Each tally's value at each end; tallies that never vary or lack a value are no use.
    let table: Vec<Option<Vec<u32>>> = tallies
        .iter()
        .map(|t| {
            let column: Option<Vec<u32>> = ends.iter().map(|e| t.read(e.state.words())).collect();
            column.filter(|c| c.iter().any(|&v| v != c[0]))
        })
        .collect();
    let mut forms = Vec::new();
    // Cardinality: each role's own tally equals its goal at every end.
    let own: Option<Vec<usize>> = (0..roles)
        .map(|r| {
            let fits =
                |&i: &usize| table[i].as_ref().is_some_and(|c| c.iter().zip(&ends).all(|(&v, e)| v == e.goals[r]));
            let all: Vec<usize> = (0..tallies.len()).filter(fits).collect();
            all.iter().copied().find(|&i| tallies[i].read_by(&read)).or(all.first().copied())
        })
        .collect();
    if let Some(own) = own {
        forms.push(form(FormRule::Cardinality, own.iter().map(|&i| tallies[i].clone()).collect(), &read));
    }
    // Comparisons: one tally per role from one family.
    if roles >= 2 {
        let mut families: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (i, t) in tallies.iter().enumerate() {
            if table[i].is_some() {
                families.entry(t.family).or_default().push(i);
            }
        }
        for members in families.values() {
            for assignment in assignments(members, roles) {
                if let Some(values) = comparison(&assignment, &table, &ends) {
                    let chosen = assignment.iter().map(|&i| tallies[i].clone()).collect();
                    forms.push(form(FormRule::Comparison { values }, chosen, &read));
                }
            }
        }
    }
    // A single proposition (whose turn it is) is no count: it fits only as the goal's own logic.
    forms.retain(|f| f.goal_read || f.tallies.iter().all(|t| t.bases.len() >= 2));
    // The goal net's own logic first; then the fewest unknown standings; then the reading where
    // being ahead is good, of the two that swap the roles' tallies (which say the same).
    forms.sort_by_key(|f| (!f.goal_read, unknowns(f), backwards(f)));
    let mut kept: Vec<GoalForm> = Vec::new();
    for f in forms {
        let names = |f: &GoalForm| {
            let mut n: Vec<&str> = f.tallies.iter().map(|t| t.name.as_str()).collect();
            n.sort_unstable();
            n.join(" ")
        };
        if !kept.iter().any(|k| k.rule.same_kind(&f.rule) && names(k) == names(&f)) {
            kept.push(f);
        }
    }
    kept.truncate(MAX_FORMS);
    kept
}

fn form(rule: FormRule, tallies: Vec<Tally>, read: &[bool]) -> GoalForm {
    let goal_read = tallies.iter().all(|t| t.read_by(read));
    GoalForm { rule, tallies, goal_read }
}

/// Standings a comparison has no value for.
fn unknowns(f: &GoalForm) -> usize {
    match &f.rule {
        FormRule::Cardinality => 0,
        FormRule::Comparison { values } => values.iter().flatten().filter(|v| v.is_none()).count(),
    }
}

/// Roles whose value is lower ahead than behind.
fn backwards(f: &GoalForm) -> usize {
    match &f.rule {
        FormRule::Cardinality => 0,
        FormRule::Comparison { values } => values.iter().filter(|[a, _, b]| a < b).count(),
    }
}

/// Every way of giving each of `roles` roles a different tally of `members`, up to
/// [`MAX_ASSIGNMENTS`].
fn assignments(members: &[usize], roles: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut current = Vec::with_capacity(roles);
    fn extend(members: &[usize], roles: usize, current: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if out.len() >= MAX_ASSIGNMENTS {
            return;
        }
        if current.len() == roles {
            out.push(current.clone());
            return;
        }
        for &m in members {
            if !current.contains(&m) {
                current.push(m);
                extend(members, roles, current, out);
                current.pop();
            }
        }
    }
    if members.len() >= roles {
        extend(members, roles, &mut current, &mut out);
    }
    out
}

/// Each role's value per standing, if the standings of `assignment`'s tallies decide every
/// sampled end's goals and some role's value depends on its standing.
fn comparison(assignment: &[usize], table: &[Option<Vec<u32>>], ends: &[&End]) -> Option<Vec<[Option<u32>; 3]>> {
    let roles = assignment.len();
    let columns: Vec<&Vec<u32>> = assignment.iter().map(|&i| table[i].as_ref()).collect::<Option<_>>()?;
    let mut values = vec![[None; 3]; roles];
    let mut tallies = vec![0; roles];
    let mut spread = 0;
    for (k, e) in ends.iter().enumerate() {
        for (t, c) in tallies.iter_mut().zip(&columns) {
            *t = c[k];
        }
        spread = spread.max(tallies.iter().max().unwrap_or(&0) - tallies.iter().min().unwrap_or(&0));
        for (r, slot) in values.iter_mut().enumerate() {
            let s = &mut slot[Standing::of(&tallies, r).index()];
            match *s {
                None => *s = Some(e.goals[r]),
                Some(v) if v != e.goals[r] => return None,
                Some(_) => {}
            }
        }
    }
    let informative = values.iter().any(|v| {
        let seen: Vec<u32> = v.iter().flatten().copied().collect();
        seen.iter().any(|&x| x != seen[0])
    });
    // Tallies that never differ by more than one are who moved last in a game of alternating
    // placements (four in a row: the winner's discs lead by one or none), which random play
    // cannot tell apart from any other rule that favours the last mover.
    (informative && spread >= 2).then_some(values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::net;

    #[test]
    fn standings_rank_a_role_against_the_best_other() {
        assert_eq!(Standing::of(&[3, 2], 0), Standing::Ahead);
        assert_eq!(Standing::of(&[3, 2], 1), Standing::Behind);
        assert_eq!(Standing::of(&[2, 2, 1], 1), Standing::Level);
        assert_eq!(Standing::of(&[1, 2, 2], 0), Standing::Behind);
    }

    #[test]
    fn tictactoe_has_no_counting_form() {
        // Three in a row is not a count of marks: no form survives random games.
        let net = net("tictactoe");
        let forms = GoalForms::discover(&net, None, 1);
        assert!(forms.games >= MIN_GAMES);
        assert!(forms.forms.is_empty(), "{:?}", forms.forms.iter().map(|f| f.describe(&net.roles)).collect::<Vec<_>>());
    }
}
