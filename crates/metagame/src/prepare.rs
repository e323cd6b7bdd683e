//! The one way the start clock is spent learning a game: the analysis, then what games played
//! with its findings show, bundled into [`Knowledge`] for the search.

use crate::{Knowledge, LeadSource, Outlook, Pieces, Rejected, TacticsCost};
use analysis::{Analysis, AnalysisConfig, Factors, Locality, Phase};
use gdl::Description;
use propnet::{Net, Program};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Which parts of what can be learned the search will use; the others are not looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wanted {
    /// Measure whether the playouts' tactics pay, and keep them if they do.
    pub tactics: bool,
    /// Keep the goal forms the analysis confirms.
    pub forms: bool,
    /// Keep the game's factors, exact and approximate (neighbourhoods).
    pub factors: bool,
    /// Find where moves act (the local search reads it, and the factors are found from it).
    pub locality: bool,
    /// Look for the roles' pieces.
    pub pieces: bool,
    /// Where there are no pieces, look for an outlook.
    pub outlook: bool,
}

impl Wanted {
    /// What a search that reads only the goals takes: the goal latches (always kept) and the
    /// goal forms.
    pub const FORMS: Wanted =
        Wanted { tactics: false, forms: true, factors: false, locality: false, pieces: false, outlook: false };
}

/// How the start clock's time is shared out: when the analysis starts its last phase, when the
/// player stops waiting for the preparation, and how long a measuring trial takes.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Analysis phases start until then.
    pub phases: Instant,
    /// The player stops waiting then (a phase under way runs to its end).
    pub wait: Instant,
    /// A measuring trial's length (the tactics'), and the least time games are sampled for.
    pub trial: Duration,
}

impl Budget {
    /// The share of the time until the player must be ready after which no new analysis phase
    /// starts.
    pub const PHASES: f64 = 0.4;

    /// The share after which the player stops waiting for the preparation and plays without
    /// it: a machine loaded by other players can slow a phase several-fold.
    pub const WAIT: f64 = 0.6;

    /// The budget of a player that starts now and must be ready by `end`: phases start in the
    /// first [`Budget::PHASES`] of the time, it waits until [`Budget::WAIT`], and a trial takes a
    /// quarter of the time between the two, [`TacticsCost::TRIAL`] at most.
    pub fn start(now: Instant, end: Instant) -> Budget {
        let share = |f: f64| now + end.saturating_duration_since(now).mul_f64(f);
        let (phases, wait) = (share(Budget::PHASES), share(Budget::WAIT));
        Budget { phases, wait, trial: (wait - phases).mul_f64(0.25).min(TacticsCost::TRIAL) }
    }

    /// When sampling games that may take up to `most` ends: `most`, or half the time left
    /// before the player stops waiting, and a trial's length at least.
    fn sampling(&self, most: Duration) -> Instant {
        let now = Instant::now();
        now + most.min(self.wait.saturating_duration_since(now) / 2).max(self.trial)
    }
}

/// What the preparation found for the search, and its report.
#[derive(Debug, Default)]
pub struct Prepared {
    /// What the search and its playouts use; none if it would tell them nothing.
    pub knowledge: Option<Arc<Knowledge>>,
    /// The locality of moves, where the local search should run.
    pub locality: Option<Arc<Locality>>,
    /// The game's approximate split, where it has one and no exact one.
    pub neighbourhoods: Option<Factors>,
    /// What each step after the analysis came to.
    pub report: Report,
}

/// What each step of the preparation after the analysis came to, for a person to read: the
/// steps that were not wanted are `None`; what was found is in [`Prepared::knowledge`].
#[derive(Debug, Default)]
pub struct Report {
    /// The tactics' measure (they are kept if it [pays](TacticsCost::pays)).
    pub tactics: Option<TacticsCost>,
    /// Whether random games showed every role's pieces, or why not.
    pub pieces: Option<Result<(), Rejected>>,
    /// Where there were no pieces, whether games confirmed an outlook, or why not.
    pub outlook: Option<Result<(), Rejected>>,
    /// Each step's time, in the order they ran.
    pub phases: Vec<Phase>,
    /// Whether the preparation ended after the player stops waiting ([`Budget::wait`]), so
    /// that a player would have played without it.
    pub late: bool,
}

impl Report {
    /// Runs `step` as the phase `name`, timing it.
    fn phase<T>(&mut self, name: &str, step: impl FnOnce() -> T) -> T {
        let started = Instant::now();
        let done = step();
        self.phases.push(Phase { phase: name.to_owned(), seconds: started.elapsed().as_secs_f64() });
        done
    }
}

/// Learns `net`'s game (described by `desc`, compiled to `program`) within `budget`: the
/// analysis, its phases starting until the budget's phases end, then [`prepare_with`].
pub fn prepare(net: &Net, program: &Arc<Program>, desc: &Description, wanted: Wanted, budget: Budget) -> Prepared {
    let config =
        AnalysisConfig { deadline: Some(budget.phases), locality: wanted.locality, ..AnalysisConfig::default() };
    let found = Analysis::run(net, desc, &config, &mut |_| {});
    prepare_with(net, program, desc, &found, wanted, budget)
}

/// What the search takes from the analysis `found` of `net`'s game (described by `desc`,
/// compiled to `program`) and what games played with it show, within `budget`: its goal
/// latches, and its goal forms and factors where `wanted`; if tactics are wanted and measuring
/// them for a trial shows that they pay, the playouts' tactics; and, where pieces are wanted,
/// the roles' pieces that random games find (for [`Pieces::TIME`] at most, half the time left
/// before the player stops waiting, and a trial at least), or where there are none and an
/// outlook is wanted, an outlook that games confirm: of the fuzzy goal heuristic's (built in a
/// quarter of the time left before the wait ends) and the goal forms' best latch heuristic's,
/// each confirmed for [`Outlook::TIME`] at most, half the time then left, and a trial at least,
/// the one that predicts the games held out best.
pub fn prepare_with(
    net: &Net,
    program: &Arc<Program>,
    desc: &Description,
    found: &Analysis,
    wanted: Wanted,
    budget: Budget,
) -> Prepared {
    let mut report = Report::default();
    let goals = found.goals.clone();
    let mut knowledge = match wanted.tactics {
        true => {
            let (knowledge, cost) =
                report.phase("playout tactics", || TacticsCost::choose(net, program, goals, budget.trial));
            report.tactics = Some(cost);
            knowledge
        }
        false => Knowledge::new(net, goals, false),
    };
    if let Some(forms) = found.goal_forms.as_ref().filter(|_| wanted.forms).cloned() {
        knowledge = knowledge.with_forms(forms);
    }
    if let Some(factors) = found.factors.as_ref().filter(|_| wanted.factors).cloned() {
        knowledge = knowledge.with_factors(factors);
    }
    if wanted.pieces {
        let pieces = report.phase("pieces", || Pieces::discover(net, budget.sampling(Pieces::TIME), 0));
        report.pieces = Some(pieces.as_ref().map(|_| ()).map_err(Clone::clone));
        if let Ok(pieces) = pieces {
            knowledge = knowledge.with_pieces(net, pieces);
        }
        // The tactics' trial (made where tactics are wanted) measured the plain playouts' rate.
        let unguided = knowledge.pieces().is_some() && !knowledge.steers_playouts();
        if let Some(random_per_s) = report.tactics.filter(|_| unguided).map(|t| t.random_per_s) {
            let guided = knowledge.with_guided_captures(net);
            let trial = budget.trial / 2;
            let cost =
                report.phase("guided captures", || TacticsCost::against(program, &guided, trial, 0, random_per_s));
            knowledge = match cost.affordable() {
                true => guided,
                false => guided.without_guided_captures(),
            };
        }
    }
    if wanted.outlook && knowledge.pieces().is_none() {
        let outlook = report.phase("outlook", || outlook(net, desc, found, &knowledge, budget));
        report.outlook = Some(outlook.as_ref().map(|_| ()).map_err(Clone::clone));
        if let Ok(outlook) = outlook {
            knowledge = knowledge.with_outlook(outlook);
        }
    }
    report.late = Instant::now() > budget.wait;
    let locality = found.locality.as_ref().filter(|l| l.verdict.enabled).cloned().map(Arc::new);
    let neighbourhoods = found.neighbourhoods.as_ref().filter(|_| wanted.factors).cloned();
    let knowledge = Some(Arc::new(knowledge)).filter(|k| !k.is_empty());
    Prepared { knowledge, locality, neighbourhoods, report }
}

/// Of the fuzzy goal heuristic's outlook (the heuristic built in a quarter of the time left
/// before the wait ends) and the goal forms' best latch heuristic's, each confirmed by games
/// played with `knowledge`, the one that predicts the games held out best.
fn outlook(
    net: &Net,
    desc: &Description,
    found: &Analysis,
    knowledge: &Knowledge,
    budget: Budget,
) -> Result<Outlook, Rejected> {
    let building = Instant::now() + budget.wait.saturating_duration_since(Instant::now()) / 4;
    let fuzzy = Outlook::heuristic(desc, net, found, building).map(LeadSource::Fuzzy);
    let latches = knowledge.latch_heuristic().cloned().map(LeadSource::Latches);
    let tried = [fuzzy, latches]
        .into_iter()
        .flatten()
        .map(|source| Outlook::discover(net, source, Some(knowledge), budget.sampling(Outlook::TIME), 0))
        .collect();
    Outlook::best(tried).unwrap_or(Err(Rejected::NoLead))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Everything wanted, as the default `mcts` player does in a game with pieces.
    const ALL: Wanted =
        Wanted { tactics: true, forms: true, factors: true, locality: true, pieces: true, outlook: true };

    #[test]
    fn a_preparation_with_time_keeps_breakthroughs_pawns_and_is_not_late() {
        let (desc, net) = testkit::bundled("breakthrough");
        let program = Arc::new(Program::new(&net));
        let budget = Budget::start(Instant::now(), Instant::now() + Duration::from_secs(60));
        let prepared = prepare(&net, &program, &desc, ALL, budget);
        let knowledge = prepared.knowledge.expect("knowledge");
        assert!(knowledge.pieces().is_some() && prepared.report.pieces == Some(Ok(())));
        assert!(prepared.report.tactics.is_some() && prepared.report.outlook.is_none(), "{:?}", prepared.report);
        assert!(prepared.locality.is_some() && !prepared.report.late);
        let steps: Vec<&str> = prepared.report.phases.iter().map(|p| p.phase.as_str()).collect();
        assert_eq!(steps, ["playout tactics", "pieces"]);
    }

    #[test]
    fn a_preparation_past_its_clock_says_what_was_cut_short() {
        let (desc, net) = testkit::bundled("breakthrough");
        let program = Arc::new(Program::new(&net));
        let now = Instant::now();
        let budget = Budget { phases: now, wait: now, trial: Duration::from_millis(2) };
        let found =
            Analysis::run(&net, &desc, &AnalysisConfig { deadline: Some(now), ..Default::default() }, &mut |_| {});
        assert!(found.notes.iter().any(|n| n.contains("skipped, out of time")), "{:?}", found.notes);
        let prepared = prepare_with(&net, &program, &desc, &found, ALL, budget);
        // A few milliseconds of random games cannot confirm the pawns: the report says so,
        // rather than that the game has none.
        assert!(matches!(prepared.report.pieces, Some(Err(Rejected::FewGames(_)))), "{:?}", prepared.report);
        assert!(prepared.report.late);
    }
}
