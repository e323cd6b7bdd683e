//! The whole analysis of one game, phase by phase, as the player's meta-gaming and
//! `latchkey analyze` run it.

use crate::{
    composite_latches, exact_inhibitors, exact_latches, proof_latches, structural_inhibitors, structural_latches,
    CompositeLatch, Exclusive, Factors, GoalForms, GoalInhibitor, GoalLatches, Group, Inhibitor, Junction, Latch,
    LatchKind, Locality, ProofLatches, Prover,
};
use propnet::net::Net;
use serde::Serialize;
use std::time::{Duration, Instant};

/// What to run and how much effort to spend.
#[derive(Debug, Clone)]
pub struct AnalysisConfig {
    /// Latches from the shape of the next-value gates.
    pub structural: bool,
    /// Latches and inhibitors by enumerating small cones.
    pub exact: bool,
    /// Latches proved by the two-step question.
    pub proof: bool,
    /// The solver that answers it.
    pub prover: Prover,
    /// Groups of propositions that hold one at a time, proved by induction.
    pub invariants: bool,
    /// The locality of moves' effects, for the local search.
    pub locality: bool,
    /// The independent sub-games the game splits into.
    pub factors: bool,
    /// Forms of the goal calculation confirmed on random games, for goal emulation.
    pub goal_forms: bool,
    /// With the goal forms, latch heuristics checked on random games (the tree search's
    /// progressive bias).
    pub latch_heuristics: bool,
    /// Cones with more than `2^exact_bits` markings are left alone.
    pub exact_bits: u32,
    /// The same bound for the joint cones of composite-latch candidates.
    pub composite_bits: u32,
    /// Phases that have not started by then are skipped (and say so in the notes).
    pub deadline: Option<Instant>,
}

impl Default for AnalysisConfig {
    fn default() -> AnalysisConfig {
        AnalysisConfig {
            structural: true,
            exact: true,
            proof: true,
            prover: Prover::default(),
            invariants: true,
            locality: true,
            factors: true,
            goal_forms: true,
            latch_heuristics: true,
            exact_bits: 16,
            composite_bits: 12,
            deadline: None,
        }
    }
}

/// The least time the proof leaves before the deadline: the answer-set solver may answer a little
/// late (it is cancelled, not stopped), and the goal latches and the caller need a moment too.
const PROOF_RESERVE: Duration = Duration::from_millis(250);

/// The seed of the goal forms' random games.
const GOAL_SEED: u64 = 0x90a1_f0e5;

/// The seed of the invariants' random games.
const INVARIANT_SEED: u64 = 0x1a7a_c0de;

/// The most time the goal forms' random games take.
const GOAL_FORMS_TIME: Duration = Duration::from_secs(2);

/// Time spent in one phase.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Phase {
    /// What the phase found.
    pub phase: String,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// Everything the analysis found in one game.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// Latches, each once per method that proved it, sorted by base, kind and method.
    pub latches: Vec<Latch>,
    /// Propositions that latch together but not alone: pairs, and sets inside a state invariant.
    pub composite: Vec<CompositeLatch>,
    /// The groups of propositions proved to hold one at a time, if they were looked for in time.
    pub invariants: Option<Exclusive>,
    /// Inhibitors, each once per method that proved it.
    pub inhibitors: Vec<Inhibitor>,
    /// Base propositions that rule out a goal value in the next state.
    pub goal_inhibitors: Vec<GoalInhibitor>,
    /// The latches' effect on every goal, ready to bound scores in any state.
    pub goals: GoalLatches,
    /// The locality of moves' effects, if it was asked for and finished in time.
    pub locality: Option<Locality>,
    /// The factors, if they were looked for and found in time.
    pub factors: Option<Factors>,
    /// The approximate split into neighbourhoods joined by a few shared bases, where the game
    /// has no exact split into several factors that matter and the moves' effects are known.
    pub neighbourhoods: Option<Factors>,
    /// The forms of the goal calculation random games confirm, if they were looked for.
    pub goal_forms: Option<GoalForms>,
    /// How the proof method fared (its latches are in `latches`), if it ran.
    pub proof: Option<ProofLatches>,
    /// Time per phase, in order.
    pub phases: Vec<Phase>,
    /// Phases skipped or cut short, and why.
    pub notes: Vec<String>,
}

/// Runs phases, timing each and skipping those that would start after the deadline.
struct Runner<'a> {
    deadline: Option<Instant>,
    progress: &'a mut dyn FnMut(&str),
    phases: Vec<Phase>,
    notes: Vec<String>,
}

impl Runner<'_> {
    /// Runs `f` as phase `name`, unless the deadline has passed.
    fn phase<T>(&mut self, name: &str, f: impl FnOnce() -> T) -> Option<T> {
        if self.deadline.is_some_and(|d| Instant::now() > d) {
            self.notes.push(format!("{name}: skipped, out of time"));
            return None;
        }
        (self.progress)(name);
        let start = Instant::now();
        let out = f();
        self.phases.push(Phase { phase: name.to_owned(), seconds: start.elapsed().as_secs_f64() });
        Some(out)
    }
}

/// The instant when one `parts`-th of the time left before `deadline` has passed (none without
/// a deadline): a phase's share of what is left.
fn part_of_rest(deadline: Option<Instant>, parts: u32) -> Option<Instant> {
    deadline.map(|d| Instant::now() + d.saturating_duration_since(Instant::now()) / parts)
}

impl Analysis {
    /// Analyses `net`, built from `desc`, telling `progress` each phase as it starts.
    pub fn run(
        net: &Net,
        desc: &gdl::Description,
        options: &AnalysisConfig,
        progress: &mut dyn FnMut(&str),
    ) -> Analysis {
        let mut runner = Runner { deadline: options.deadline, progress, phases: Vec::new(), notes: Vec::new() };
        let deadline = options.deadline;
        let mut invariants = None;
        if options.invariants {
            // A share of what is left: everything after it needs time too, and uses what it proves.
            let share = part_of_rest(deadline, 6);
            invariants = runner.phase("invariants", || Exclusive::discover(net, share, INVARIANT_SEED));
            if let Some(found) = invariants.as_ref().filter(|f| f.open > 0) {
                runner.notes.push(format!("invariants: {} groups left open at the deadline", found.open));
            }
        }
        let groups: &[Group] = invariants.as_ref().map_or(&[], |f| &f.groups);
        let mut latches = Vec::new();
        if options.structural {
            latches.extend(runner.phase("structural latches", || structural_latches(net)).unwrap_or_default());
        }
        if options.exact {
            let exact = runner.phase("exact latches", || exact_latches(net, options.exact_bits, groups));
            latches.extend(exact.unwrap_or_default());
        }
        let mut composite = runner
            .phase("composite latches", || composite_latches(net, &latches, groups, options.composite_bits, deadline))
            .unwrap_or_default();
        // A share of what is left: on a large net with large groups each question is costly.
        let share = part_of_rest(deadline, 6);
        let (mut inhibitors, goal_inhibitors) =
            runner.phase("structural inhibitors", || structural_inhibitors(net, groups, share)).unwrap_or_default();
        if share.is_some_and(|s| Instant::now() >= s) {
            runner.notes.push("structural inhibitors: cut short by the deadline".to_owned());
        }
        if options.exact {
            inhibitors.extend(
                runner
                    .phase("exact inhibitors", || exact_inhibitors(net, options.exact_bits, groups))
                    .unwrap_or_default(),
            );
        }
        inhibitors.sort_by_key(|i| (i.inhibitor, i.target, i.method));
        let mut locality = None;
        if options.locality {
            // A share of what is left: the proofs after it need time too.
            let share = part_of_rest(deadline, 4);
            locality = runner.phase("locality", || Locality::analyse(net, share)).flatten();
            if locality.is_none() && runner.phases.last().is_some_and(|p| p.phase == "locality") {
                runner.notes.push("locality: cut short by the deadline".to_owned());
            }
        }
        let (mut factors, mut neighbourhoods) = (None, None);
        if options.factors {
            match &locality {
                Some(l) => {
                    factors = runner.phase("factors", || Factors::of(net, l));
                    if let Some(exact) = &factors {
                        let share = part_of_rest(deadline, 8);
                        neighbourhoods =
                            runner.phase("neighbourhoods", || exact.neighbourhoods(net, l, share)).flatten();
                    }
                }
                // The moves' effects did not fit in the locality's share: they would not now.
                None if options.locality => runner.notes.push("factors: no time to find the moves' effects".to_owned()),
                None => {
                    let share = part_of_rest(deadline, 4);
                    let found = runner.phase("factors", || Factors::discover_all(net, share)).flatten();
                    (factors, neighbourhoods) = found.map_or((None, None), |(f, n)| (Some(f), n));
                }
            }
        }
        let mut goal_forms = None;
        if options.goal_forms {
            // A share of what is left, and never long: it samples until it has enough games.
            let share = deadline
                .map_or(GOAL_FORMS_TIME, |d| (d.saturating_duration_since(Instant::now()) / 8).min(GOAL_FORMS_TIME));
            goal_forms =
                runner.phase("goal forms", || GoalForms::discover(net, Some(Instant::now() + share), GOAL_SEED));
        }
        // The proof method runs last: it is the costliest, and it gets whatever time is left.
        let mut proof = None;
        if options.proof {
            // The proof stops early enough for what follows it to end by the deadline too.
            let reserve = |d: Instant| d - (d.saturating_duration_since(Instant::now()) / 20).max(PROOF_RESERVE);
            let prover = options.prover;
            match runner.phase("proof latches", || proof_latches(desc, net, prover, groups, deadline.map(reserve))) {
                Some(Ok(mut found)) => {
                    latches.append(&mut found.latches);
                    if !found.set_up {
                        runner.notes.push("proof latches: the prover was still setting up at the deadline".to_owned());
                    } else if found.unknown > 0 {
                        runner
                            .notes
                            .push(format!("proof latches: {} questions left open at the deadline", found.unknown));
                    }
                    proof = Some(found);
                }
                Some(Err(e)) => runner.notes.push(format!("proof latches: not available: {e}")),
                None => {}
            }
        }
        latches.sort_by_key(|l| (l.base, l.kind, l.method));
        latches.dedup();
        // A pair is only a composite latch if neither member latches alone, proofs included.
        composite.retain(|c| !latches.iter().any(|l| c.bases.contains(&l.base)));
        // The sets inside a group that latch as a whole.
        let sets = invariants.iter().flat_map(|i| &i.latches);
        composite.extend(sets.map(|set| CompositeLatch {
            bases: set.clone(),
            junction: Junction::Or,
            kind: LatchKind::Positive,
        }));
        composite.sort_unstable();
        composite.dedup();
        // What the goal forms' counted latches give needs every latch, the proved ones included.
        if let Some(forms) = goal_forms.as_mut().filter(|f| !f.forms.is_empty()) {
            let heuristics = options.latch_heuristics;
            runner.phase("goal forms: latches", || forms.use_latches(net, &latches, heuristics, deadline, GOAL_SEED));
        }
        // Goal latches are cheap and everything downstream needs them: never skipped.
        let start = Instant::now();
        let goals = GoalLatches::new(net, &latches, invariants.as_ref());
        runner.phases.push(Phase { phase: "goal latches".to_owned(), seconds: start.elapsed().as_secs_f64() });
        Analysis {
            latches,
            composite,
            invariants,
            inhibitors,
            goal_inhibitors,
            goals,
            locality,
            factors,
            neighbourhoods,
            goal_forms,
            proof,
            phases: runner.phases,
            notes: runner.notes,
        }
    }
}
