//! `latchkey analyze`: the game structure latchkey discovers, reported for the person who wrote
//! the rules. The JSON form is documented in docs/analyze.md; its `schema` number changes
//! whenever a field changes meaning or goes away.

use crate::game;

mod factors;
mod goal_forms;
mod learned;

use analysis::{Analysis, AnalysisConfig, Effect, Junction, LatchKind, Locality, Method, Prover, FAR, MAX_DISTANCE};
use anyhow::{bail, Result};
use clap::ValueEnum;
use factors::{factors_entry, print_factors, print_neighbourhoods, FactorsEntry};
use goal_forms::{goal_forms_entry, print_goal_forms, GoalFormsEntry};
use indicatif::{ProgressBar, ProgressStyle};
use learned::{learned, print_learned, Learned};
use metagame::Budget;
use propnet::{Net, PropnetState};
use serde::Serialize;
use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Which latch-detection methods to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Methods {
    /// Only the shape of the next-value gates.
    Structural,
    /// Only enumeration of small upstream cones.
    Exact,
    /// Only the two-step proofs.
    Proof,
    /// Every method.
    All,
}

/// Which solver proves latches by the two-step question.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProverArg {
    /// A SAT solver over the optimised propnet (always built).
    Sat,
    /// The answer-set solver clingo over the rules (builds with the `clingo` feature).
    Clingo,
}

impl From<ProverArg> for Prover {
    fn from(p: ProverArg) -> Prover {
        match p {
            ProverArg::Sat => Prover::Sat,
            ProverArg::Clingo => Prover::Clingo,
        }
    }
}

/// The version of the JSON report's shape.
pub(crate) const SCHEMA: u32 = 2;

/// What `latchkey analyze --json` prints.
#[derive(Serialize)]
pub(crate) struct Report {
    game: String,
    #[serde(skip)]
    roles: Vec<String>,
    propnet: NetSize,
    latches: Vec<LatchEntry>,
    composite_latches: Vec<CompositeEntry>,
    /// Absent when the analysis left no time to look for them.
    invariants: Option<InvariantsEntry>,
    inhibitors: Vec<InhibitorEntry>,
    goal_inhibitors: Vec<GoalInhibitorEntry>,
    goal_latches: Vec<GoalLatchEntry>,
    dead_propositions: Vec<DeadEntry>,
    initial_scores: Vec<ScoreEntry>,
    proof: Option<ProofEntry>,
    /// Absent when the analysis left no time for it.
    locality: Option<LocalityEntry>,
    /// Absent when the analysis left no time to find them.
    factors: Option<FactorsEntry>,
    /// Present only where the game has no exact split into several factors that matter but
    /// splits into neighbourhoods joined by a few shared propositions.
    #[serde(skip_serializing_if = "Option::is_none")]
    neighbourhoods: Option<FactorsEntry>,
    /// Absent when the analysis left no time to play the games that confirm them.
    goal_forms: Option<GoalFormsEntry>,
    #[serde(flatten)]
    learned: Learned,
    timings: Vec<analysis::Phase>,
    notes: Vec<String>,
}

#[derive(Serialize)]
struct NetSize {
    nodes: usize,
    bases: usize,
    inputs: usize,
}

#[derive(Serialize)]
struct LatchEntry {
    proposition: String,
    kind: LatchKind,
    methods: Vec<Method>,
}

#[derive(Serialize)]
struct CompositeEntry {
    propositions: Vec<String>,
    junction: Junction,
    kind: LatchKind,
}

#[derive(Serialize)]
struct InvariantsEntry {
    groups: Vec<GroupEntry>,
    candidates: usize,
    refuted: usize,
    open: usize,
    samples: usize,
}

#[derive(Serialize)]
struct GroupEntry {
    /// `exactly_one`, `at_most_one`, `never_together` for a pair of any relations, or
    /// `implies` where the first proposition never holds without the second.
    kind: &'static str,
    /// The propositions in one line: `(cell 1 1 x|o|b)`.
    pattern: String,
    propositions: Vec<String>,
}

/// The invariants section of the report.
fn invariants_entry(net: &Net, found: &analysis::Exclusive) -> InvariantsEntry {
    let groups = found
        .groups
        .iter()
        .map(|g| {
            let propositions: Vec<String> = g.bases.iter().map(|&b| net.bases[b].name.clone()).collect();
            GroupEntry {
                kind: match (g.implies, g.pair, g.exactly_one) {
                    (true, _, _) => "implies",
                    (_, true, _) => "never_together",
                    (_, false, true) => "exactly_one",
                    (_, false, false) => "at_most_one",
                },
                pattern: match (g.implies, g.pair) {
                    (true, _) => propositions.join(" implies "),
                    (_, true) => propositions.join(" "),
                    _ => pattern(&propositions),
                },
                propositions,
            }
        })
        .collect();
    InvariantsEntry {
        groups,
        candidates: found.candidates,
        refuted: found.refuted,
        open: found.open,
        samples: found.samples,
    }
}

/// Propositions of one relation in one line, each argument's values joined by `|`:
/// `(cell 1 1 x|o|b)`, `(control xplayer|oplayer)`; otherwise listed.
fn pattern(propositions: &[String]) -> String {
    let parts: Vec<Vec<&str>> = propositions.iter().map(|p| propnet::net::name_parts(p)).collect();
    let shape = parts[0].len();
    if shape < 2 || parts.iter().any(|p| p.len() != shape || p[0] != parts[0][0]) {
        return propositions.join(" ");
    }
    let args: Vec<String> = (1..shape)
        .map(|i| {
            let mut values: Vec<&str> = Vec::new();
            for p in &parts {
                if !values.contains(&p[i]) {
                    values.push(p[i]);
                }
            }
            values.join("|")
        })
        .collect();
    format!("({} {})", parts[0][0], args.join(" "))
}

#[derive(Serialize)]
struct InhibitorEntry {
    inhibitor: String,
    inhibited: String,
    methods: Vec<Method>,
}

#[derive(Serialize)]
struct GoalInhibitorEntry {
    proposition: String,
    role: String,
    value: u32,
    when: analysis::When,
}

#[derive(Serialize)]
struct GoalLatchEntry {
    proposition: String,
    kind: LatchKind,
    role: String,
    value: u32,
    effect: Effect,
}

#[derive(Serialize)]
struct DeadEntry {
    role: String,
    proposition: String,
    kind: LatchKind,
}

#[derive(Serialize)]
struct ScoreEntry {
    role: String,
    /// Absent when the latches set initially leave no value (an unreachable corner).
    min: Option<u32>,
    max: Option<u32>,
}

#[derive(Serialize)]
struct ProofEntry {
    prover: Prover,
    proved: usize,
    refuted: usize,
    unknown: usize,
    ground_seconds: f64,
    solve_seconds: f64,
}

#[derive(Serialize)]
struct LocalityEntry {
    /// Whether the local search would run.
    local_search: bool,
    reason: String,
    average_distance: f64,
    /// Pairs of moves of one role (that other moves can affect) at each distance, the nearer way
    /// round, from 1; the last entry counts pairs out of reach.
    distances: Vec<u64>,
    /// Moves at each goal distance, from 0; the last entry counts moves out of reach.
    goal_distances: Vec<u64>,
    conditions: Vec<ConditionEntry>,
    moves: Vec<MoveLocalityEntry>,
}

#[derive(Serialize)]
struct ConditionEntry {
    condition: String,
    /// Absent when the condition could not be expanded into disjuncts.
    disjuncts: Option<usize>,
    coupled: usize,
    /// The fewest moves any coupled disjunct needs from the initial state.
    nearest_coupled: Option<u32>,
}

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
struct MoveLocalityEntry {
    role: String,
    #[serde(rename = "move")]
    name: String,
    changes: usize,
    reads: usize,
    /// Moves its effects reach directly.
    successors: usize,
    /// Absent when no goal-completing move is in reach.
    goal_distance: Option<u8>,
}

/// The locality section of the report.
fn locality_entry(net: &Net, l: &Locality) -> LocalityEntry {
    let n = net.moves.len();
    let cap = usize::from(MAX_DISTANCE);
    let mut distances = l.pair_distances.clone();
    distances.resize(cap + 1, 0);
    let mut goal_distances = vec![0u64; cap + 2];
    for &g in &l.goal_distance {
        goal_distances[usize::from(g).min(cap + 1)] += 1;
    }
    while goal_distances.len() > 1 && goal_distances[goal_distances.len() - 2] == 0 {
        goal_distances.remove(goal_distances.len() - 2);
    }
    while distances.len() > 1 && distances[distances.len() - 2] == 0 {
        distances.remove(distances.len() - 2);
    }
    let conditions = l
        .conditions
        .iter()
        .map(|c| {
            let coupled: Vec<&analysis::Disjunct> = c.disjuncts.iter().flatten().filter(|d| d.coupled).collect();
            ConditionEntry {
                condition: analysis::describe(net, c.outcome),
                disjuncts: c.disjuncts.as_ref().map(Vec::len),
                coupled: coupled.len(),
                nearest_coupled: coupled.iter().map(|d| d.initial_moves).min(),
            }
        })
        .collect();
    let moves = (0..n)
        .map(|j| MoveLocalityEntry {
            role: net.roles[net.moves[j].role].clone(),
            name: net.moves[j].name.clone(),
            changes: l.footprint[j].len(),
            reads: l.reads[j].len(),
            successors: l.successors[j].len(),
            goal_distance: (l.goal_distance[j] != FAR).then_some(l.goal_distance[j]),
        })
        .collect();
    LocalityEntry {
        local_search: l.verdict.enabled,
        reason: l.verdict.reason.clone(),
        average_distance: l.average_distance,
        distances,
        goal_distances,
        conditions,
        moves,
    }
}

/// `latchkey analyze`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// A GDL file, or the name of a bundled game.
    game: String,
    /// Which methods to run.
    #[arg(long, value_enum, default_value_t = Methods::All)]
    method: Methods,
    /// Which solver proves latches by the two-step question.
    #[arg(long, value_enum, default_value_t = ProverArg::Sat)]
    prover: ProverArg,
    /// The start clock, in seconds: the propnet is built and the time left is shared out as
    /// the `mcts` player shares it (analysis phases start in its first 40%); phases that would
    /// start later are skipped, and proofs still open are counted, in the notes.
    #[arg(long, default_value_t = 10.0, value_parser = crate::output::seconds)]
    time: f64,
    /// Do not look for state invariants: every method then ranges over every marking of the
    /// base propositions, as without them (to see what the invariants add).
    #[arg(long)]
    no_invariants: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs the analysis of the game within its time, propnet build included (a start clock), and
/// prints it.
pub fn run(args: Args) -> Result<ExitCode> {
    let prover = Prover::from(args.prover);
    anyhow::ensure!(
        prover.available(),
        "this latchkey was built without the {} prover (cargo feature `clingo`)",
        prover.name()
    );
    let bar = progress_bar();
    bar.set_message("propnet");
    let start = Instant::now();
    let game = game::prepare(&args.game, start + Duration::from_secs_f64(args.time))?;
    let methods = args.method;
    let chosen = AnalysisConfig {
        structural: matches!(methods, Methods::Structural | Methods::All),
        exact: matches!(methods, Methods::Exact | Methods::All),
        proof: matches!(methods, Methods::Proof | Methods::All),
        prover,
        invariants: !args.no_invariants,
        ..AnalysisConfig::default()
    };
    let report = analyse(&game, start, args.time, chosen, &mut |phase| {
        bar.inc(1);
        bar.set_message(phase.to_owned());
    });
    bar.finish_and_clear();
    let report = report?;
    if args.json {
        crate::output::print_json(SCHEMA, &report)?;
    } else {
        print(&report);
    }
    Ok(ExitCode::SUCCESS)
}

/// The analysis of `game`, prepared from `start` within a start clock of `secs` seconds (its
/// propnet built already), with what `chosen` asks for (its deadline is set here); `phase` hears
/// each phase's name as it begins. Fails where the game has no propnet.
pub(crate) fn analyse(
    game: &player::Game,
    start: Instant,
    secs: f64,
    chosen: AnalysisConfig,
    phase: &mut dyn FnMut(&str),
) -> Result<Report> {
    let built = game.prepared.as_secs_f64();
    let Some(propnet) = game.net() else {
        bail!("cannot analyse {} without a propnet, and none was built in {built:.1} s", game.name);
    };
    let net = &propnet.net;
    // As the player: the analysis' phases start within its share of the clock left after the
    // build, and what it learns beyond them gets the same shares.
    let end = start + Duration::from_secs_f64(secs);
    let budget = Budget::start(Instant::now(), end);
    let options = AnalysisConfig { deadline: Some(budget.phases), ..chosen };
    let result = Analysis::run(net, &game.desc, &options, phase);
    phase("what the player learns");
    let learned = learned(propnet, &game.desc, &result, budget, end);
    let mut report = report(net, &result, game.name.clone());
    report.timings.insert(0, analysis::Phase { phase: "propnet".to_owned(), seconds: built });
    report.timings.extend(learned.phases.iter().cloned());
    report.notes.extend(learned.notes.iter().cloned());
    report.learned = learned;
    Ok(report)
}

/// A bar over the analysis phases on standard error (indicatif hides it when standard error is
/// not a terminal, so JSON and piped output stay clean).
fn progress_bar() -> ProgressBar {
    let bar = ProgressBar::new(7);
    bar.set_style(ProgressStyle::with_template("{spinner} analysing: {msg} [{pos}/{len}] {elapsed}").expect("valid"));
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

fn report(net: &Net, a: &Analysis, game: String) -> Report {
    let base = |i: usize| net.bases[i].name.clone();
    let role = |r: usize| net.roles[r].clone();
    let mut latches: BTreeMap<(usize, LatchKind), Vec<Method>> = BTreeMap::new();
    for l in &a.latches {
        latches.entry((l.base, l.kind)).or_default().push(l.method);
    }
    let mut inhibitors: BTreeMap<(usize, usize), Vec<Method>> = BTreeMap::new();
    for i in &a.inhibitors {
        inhibitors.entry((i.inhibitor, i.target)).or_default().push(i.method);
    }
    let initial = PropnetState::from_bases(net.bases.len(), (0..net.bases.len()).filter(|&i| net.bases[i].init));
    Report {
        game,
        roles: net.roles.clone(),
        propnet: NetSize { nodes: net.kinds.len(), bases: net.bases.len(), inputs: net.moves.len() },
        latches: sorted(latches.into_iter().map(|((b, kind), methods)| LatchEntry {
            proposition: base(b),
            kind,
            methods,
        })),
        composite_latches: a
            .composite
            .iter()
            .map(|c| CompositeEntry {
                propositions: c.bases.iter().map(|&b| base(b)).collect(),
                junction: c.junction,
                kind: c.kind,
            })
            .collect(),
        invariants: a.invariants.as_ref().map(|f| invariants_entry(net, f)),
        inhibitors: inhibitors
            .into_iter()
            .map(|((p, q), methods)| InhibitorEntry { inhibitor: base(p), inhibited: base(q), methods })
            .collect(),
        goal_inhibitors: a
            .goal_inhibitors
            .iter()
            .map(|g| GoalInhibitorEntry { proposition: base(g.base), role: role(g.role), value: g.value, when: g.when })
            .collect(),
        goal_latches: a
            .goals
            .latches
            .iter()
            .map(|g| GoalLatchEntry {
                proposition: base(g.base),
                kind: g.kind,
                role: role(g.role),
                value: g.value,
                effect: g.effect,
            })
            .collect(),
        dead_propositions: (0..net.roles.len())
            .flat_map(|r| a.goals.dead_literals(r).into_iter().map(move |(b, kind)| (r, b, kind)))
            .map(|(r, b, kind)| DeadEntry { role: role(r), proposition: base(b), kind })
            .collect(),
        initial_scores: (0..net.roles.len())
            .map(|r| {
                let range = a.goals.range(initial.words(), r);
                ScoreEntry { role: role(r), min: range.map(|s| s.min), max: range.map(|s| s.max) }
            })
            .collect(),
        locality: a.locality.as_ref().map(|l| locality_entry(net, l)),
        factors: a.factors.as_ref().map(|f| factors_entry(net, f)),
        neighbourhoods: a.neighbourhoods.as_ref().map(|f| factors_entry(net, f)),
        goal_forms: a.goal_forms.as_ref().map(|g| goal_forms_entry(net, g)),
        learned: Learned::default(),
        proof: a.proof.as_ref().map(|p| ProofEntry {
            prover: p.prover,
            proved: a.latches.iter().filter(|l| l.method == Method::Proof).count(),
            refuted: p.refuted,
            unknown: p.unknown,
            ground_seconds: p.ground.as_secs_f64(),
            solve_seconds: p.solve.as_secs_f64(),
        }),
        timings: a.phases.clone(),
        notes: a.notes.clone(),
    }
}

fn print_locality(l: &LocalityEntry) {
    let verdict = if l.local_search { "local search on" } else { "local search off" };
    println!("\nlocality of moves: {verdict}: {}", l.reason);
    if l.conditions.is_empty() {
        return;
    }
    let counts = |v: &[u64], first: usize| {
        let (last, head) = v.split_last().expect("never empty");
        let mut parts: Vec<String> = head.iter().enumerate().map(|(d, c)| format!("{}:{c}", d + first)).collect();
        parts.push(format!("far:{last}"));
        parts.join(" ")
    };
    println!("  distance between two moves of a role (mean {:.2}): {}", l.average_distance, counts(&l.distances, 1));
    println!("  moves by distance to a goal: {}", counts(&l.goal_distances, 0));
    for c in &l.conditions {
        match (c.disjuncts, c.nearest_coupled) {
            (None, _) => println!("  {:<30} not expanded", c.condition),
            (Some(d), None) => println!("  {:<30} {d} disjuncts, none coupled", c.condition),
            (Some(d), Some(near)) => println!(
                "  {:<30} {d} disjuncts, {} coupled (the nearest {} moves from the start)",
                c.condition,
                c.coupled,
                if near == u32::MAX { "never".to_owned() } else { near.to_string() }
            ),
        }
    }
    let mut changes: Vec<usize> = l.moves.iter().map(|m| m.changes).filter(|&c| c > 0).collect();
    changes.sort_unstable();
    if let Some(median) = changes.get(changes.len() / 2) {
        println!(
            "  {} of {} moves change something, {median} propositions at the median",
            changes.len(),
            l.moves.len()
        );
    }
}

/// Latches in reading order: by kind, then by name.
fn sorted(latches: impl Iterator<Item = LatchEntry>) -> Vec<LatchEntry> {
    let mut out: Vec<LatchEntry> = latches.collect();
    out.sort_by(|a, b| (a.kind, &a.proposition).cmp(&(b.kind, &b.proposition)));
    out
}

fn method_names(methods: &[Method]) -> String {
    let name = |m: &Method| match m {
        Method::Structural => "structural",
        Method::Exact => "exact",
        Method::Proof => "proof",
    };
    methods.iter().map(name).collect::<Vec<_>>().join(", ")
}

/// The most lines (and items on a line) a list of the text report shows; `--json` has them all.
const LISTED: usize = 40;

/// Says how many of `total` things the text report left out of a list of [`LISTED`].
fn more(total: usize, what: &str) {
    if total > LISTED {
        println!("  … and {} more {what} (--json lists every one)", total - LISTED);
    }
}

/// How a latch literal reads: "p" for a positive latch (it acts once true), "not p" otherwise.
fn literal(name: &str, kind: LatchKind) -> String {
    match kind {
        LatchKind::Positive => name.to_owned(),
        LatchKind::Negative => format!("(not {name})"),
    }
}

fn print(r: &Report) {
    println!("game     {}", r.game);
    println!("propnet  {} nodes, {} base propositions, {} moves", r.propnet.nodes, r.propnet.bases, r.propnet.inputs);
    for (kind, title) in [
        (LatchKind::Positive, "positive latches (once true, true for good)"),
        (LatchKind::Negative, "negative latches (once false, false for good)"),
    ] {
        let of_kind: Vec<&LatchEntry> = r.latches.iter().filter(|l| l.kind == kind).collect();
        println!("\n{title}: {}", of_kind.len());
        for l in of_kind {
            println!("  {:<40} {}", l.proposition, method_names(&l.methods));
        }
    }
    println!("\ncomposite latches (together they latch, no one alone): {}", r.composite_latches.len());
    for c in r.composite_latches.iter().take(LISTED) {
        let op = if c.junction == Junction::Or { "or" } else { "and" };
        let how = if c.kind == LatchKind::Positive { "once true, true for good" } else { "once false, false for good" };
        println!("  ({op} {})  {how}", c.propositions.join(" "));
    }
    more(r.composite_latches.len(), "composite latches");
    match &r.invariants {
        Some(i) => {
            println!(
                "\ninvariants (proved by induction; {} candidate groups from {} sampled states, {} refuted{}): {}",
                i.candidates,
                i.samples,
                i.refuted,
                if i.open > 0 { format!(", {} open at the deadline", i.open) } else { String::new() },
                i.groups.len()
            );
            let of = |kind: &'static str| i.groups.iter().filter(move |g| g.kind == kind);
            for g in of("exactly_one") {
                println!("  exactly one of {}", g.pattern);
            }
            for g in of("at_most_one") {
                println!("  at most one of {}", g.pattern);
            }
            for g in of("never_together").take(LISTED) {
                println!("  never together: {}", g.pattern);
            }
            more(of("never_together").count(), "pairs never together");
            for g in of("implies").take(LISTED) {
                println!("  {}", g.pattern);
            }
            more(of("implies").count(), "implications");
        }
        None => println!("\ninvariants: not looked for in time"),
    }
    println!("\ninhibitors (true now forces the other false next): {}", r.inhibitors.len());
    let mut by_inhibitor: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for i in &r.inhibitors {
        by_inhibitor.entry(&i.inhibitor).or_default().push(&i.inhibited);
    }
    for (p, qs) in by_inhibitor.iter().take(LISTED) {
        println!("  {p} inhibits {}", factors::some(qs, LISTED));
    }
    more(by_inhibitor.len(), "inhibiting propositions");
    println!(
        "\ngoal inhibitors (while true, or in the state after, the role cannot get the value): {}",
        r.goal_inhibitors.len()
    );
    for g in r.goal_inhibitors.iter().take(LISTED) {
        let when = if g.when == analysis::When::Now { "now" } else { "next" };
        println!("  {:<40} {} cannot get {} {when}", g.proposition, g.role, g.value);
    }
    more(r.goal_inhibitors.len(), "goal inhibitors");
    println!("\ngoal latches (once set, for the rest of the game): {}", r.goal_latches.len());
    for g in &r.goal_latches {
        let effect = if g.effect == Effect::RulesOut { "rules out" } else { "guarantees" };
        println!("  {:<40} {effect} {} {}", literal(&g.proposition, g.kind), g.role, g.value);
    }
    println!("\ndead propositions (once set, the role cannot reach its best score): {}", r.dead_propositions.len());
    for d in &r.dead_propositions {
        println!("  {:<40} dead for {}", literal(&d.proposition, d.kind), d.role);
    }
    println!("\nachievable scores in the initial state");
    for s in &r.initial_scores {
        match (s.min, s.max) {
            (Some(min), Some(max)) => println!("  {:<40} {min}..{max}", s.role),
            _ => println!("  {:<40} none", s.role),
        }
    }
    if let Some(p) = &r.proof {
        println!(
            "\nproof method ({}): {} latches proved, {} refuted, {} open (set-up {:.3} s, solve {:.3} s)",
            p.prover.name(),
            p.proved,
            p.refuted,
            p.unknown,
            p.ground_seconds,
            p.solve_seconds
        );
    }
    if let Some(l) = &r.locality {
        print_locality(l);
    }
    if let Some(f) = &r.factors {
        print_factors(f);
    }
    if let Some(f) = &r.neighbourhoods {
        print_neighbourhoods(f);
    }
    if let Some(g) = &r.goal_forms {
        print_goal_forms(g);
    }
    print_learned(&r.roles, &r.learned);
    println!("\ntime per phase");
    for p in &r.timings {
        println!("  {:<40} {:.3} s", p.phase, p.seconds);
    }
    for note in &r.notes {
        println!("note: {note}");
    }
}
