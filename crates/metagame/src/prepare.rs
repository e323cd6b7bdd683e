//! The one way the start clock is spent learning a game: the analysis, then what games played
//! with its findings show, bundled into [`Knowledge`] for the search.

use crate::{Knowledge, LeadSource, Outlook, Pieces, TacticsCost};
use analysis::{Analysis, AnalysisConfig, Factors, Locality};
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
    /// Look for the roles' pieces.
    pub pieces: bool,
    /// Where there are no pieces, look for an outlook.
    pub outlook: bool,
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

/// What the preparation found for the search.
#[derive(Debug, Default)]
pub struct Prepared {
    /// What the search and its playouts use; none if it would tell them nothing.
    pub knowledge: Option<Arc<Knowledge>>,
    /// The locality of moves, where the local search should run.
    pub locality: Option<Arc<Locality>>,
    /// The game's approximate split, where it has one and no exact one.
    pub neighbourhoods: Option<Factors>,
}

/// Learns `net`'s game (described by `desc`, compiled to `program`) within `budget`: the
/// analysis' goal latches, and the goal forms and factors where `wanted`, searched for until
/// the budget's phases end; if tactics are wanted and measuring them for a trial shows that
/// they pay, the playouts' tactics; and, where pieces are wanted, the roles' pieces that random
/// games find (for [`Pieces::TIME`] at most, half the time left before the player stops
/// waiting, and a trial at least), or where there are none and an outlook is wanted, an outlook
/// that games confirm: of the fuzzy goal heuristic's (built in a quarter of the time left
/// before the wait ends) and the goal forms' best latch heuristic's, each confirmed for
/// [`Outlook::TIME`] at most, half the time then left, and a trial at least, the one that
/// predicts the games held out best.
pub fn prepare(net: &Net, program: &Arc<Program>, desc: &Description, wanted: Wanted, budget: Budget) -> Prepared {
    let config = AnalysisConfig { deadline: Some(budget.phases), ..AnalysisConfig::default() };
    let mut found = Analysis::run(net, desc, &config, &mut |_| {});
    let locality = found.locality.take().filter(|l| l.verdict.enabled).map(Arc::new);
    // The goal latches are copied rather than taken: the outlook's heuristic reads the latches.
    let goals = found.goals.clone();
    let mut knowledge = match wanted.tactics {
        true => TacticsCost::choose(net, program, goals, budget.trial).0,
        false => Knowledge::new(net, goals, false),
    };
    if let Some(forms) = found.goal_forms.take().filter(|_| wanted.forms) {
        knowledge = knowledge.with_forms(forms);
    }
    if let Some(factors) = found.factors.take().filter(|_| wanted.factors) {
        knowledge = knowledge.with_factors(factors);
    }
    let pieces = wanted.pieces.then(|| Pieces::discover(net, budget.sampling(Pieces::TIME), 0)).flatten();
    if let Some(pieces) = pieces {
        knowledge = knowledge.with_pieces(net, pieces);
    } else if wanted.outlook {
        let building = Instant::now() + budget.wait.saturating_duration_since(Instant::now()) / 4;
        let fuzzy = Outlook::heuristic(desc, net, &found, building).map(LeadSource::Fuzzy);
        let latches = knowledge.latch_heuristic().cloned().map(LeadSource::Latches);
        let tried = [fuzzy, latches]
            .into_iter()
            .flatten()
            .map(|source| Outlook::discover(net, source, Some(&knowledge), budget.sampling(Outlook::TIME), 0))
            .collect();
        if let Some(Ok(outlook)) = Outlook::best(tried) {
            knowledge = knowledge.with_outlook(outlook);
        }
    }
    let neighbourhoods = found.neighbourhoods.take().filter(|_| wanted.factors);
    Prepared { knowledge: Some(Arc::new(knowledge)).filter(|k| !k.is_empty()), locality, neighbourhoods }
}
