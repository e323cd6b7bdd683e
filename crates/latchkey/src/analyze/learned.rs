//! The report's sections on what the `mcts` player learns at the start of a match, beyond the
//! analysis: they come from the player's own preparation ([`metagame::prepare_with`]) with its default
//! options and the same shares of the clock, so they show what it would use.

use analysis::{Analysis, Phase};
use metagame::{prepare_with, Budget, Curve, Knowledge, Material, MoveVariety, Pieces, Prepared, TacticsCost};
use player::{MctsOptions, Propnet};
use propnet::Net;
use serde::Serialize;
use std::time::Instant;

/// What the player learns, as the report's sections (flattened into it).
#[derive(Serialize, Default)]
pub(super) struct Learned {
    /// Absent when the player does not measure them.
    pub playout_tactics: Option<TacticsEntry>,
    /// Absent when the player does not measure them.
    pub move_averages: Option<VarietyEntry>,
    /// Absent when the clock left no time to look for it (the player does not use it).
    pub material: Option<Material>,
    /// Absent when the player does not look for them; `found` is absent where random games
    /// did not show every role's pieces, and `rejected` then says why.
    pub pieces: Option<PiecesEntry>,
    /// Absent where the roles have pieces (which give `mcts` its priors) or the player does
    /// not look for it; `found` is absent where random games did not confirm it.
    pub outlook: Option<OutlookEntry>,
    /// Each step's time.
    #[serde(skip)]
    pub phases: Vec<Phase>,
    /// What was cut short, and whether a player would have waited for it all.
    #[serde(skip)]
    pub notes: Vec<String>,
}

#[derive(Serialize)]
pub(super) struct TacticsEntry {
    #[serde(flatten)]
    cost: TacticsCost,
    /// Whether the `mcts` player would use them (the measure it takes at the start of a match).
    used: bool,
}

#[derive(Serialize)]
pub(super) struct VarietyEntry {
    #[serde(flatten)]
    variety: MoveVariety,
    /// Whether the `mcts` player would steer its playouts by move averages.
    used: bool,
    /// Whether the game suits all-moves-as-first statistics (RAVE), which the `mcts` player
    /// keeps where `rave=N` turns them on.
    rave: bool,
}

/// The roles' pieces, if random games showed them, and where they stand better.
#[derive(Serialize)]
pub(super) struct PiecesEntry {
    found: Option<Pieces>,
    /// Why not, where they were not found.
    rejected: Option<String>,
    /// Per role, every piece proposition and the score it adds there (the placement's table),
    /// where a placement was confirmed.
    placement_weights: Option<Vec<Vec<PlacedEntry>>>,
    /// Whether `mcts`'s guided playouts prefer captures with these pieces: they were found and
    /// the playouts run guided (tactics used, or goal latches).
    captures_in_playouts: bool,
}

/// A heuristic's fit to the score (the fuzzy goal heuristic's or a latch heuristic's), for
/// `mcts`'s priors where there are no pieces.
#[derive(Serialize)]
pub(super) struct OutlookEntry {
    found: Option<OutlookFound>,
    /// Why not, where it was not confirmed.
    rejected: Option<String>,
}

/// A confirmed outlook.
#[derive(Serialize)]
struct OutlookFound {
    /// What its leads are read from: "fuzzy goal heuristic" or "latch heuristic".
    source: &'static str,
    /// Per role, the logistic curve of its score on its lead.
    curves: Vec<Curve>,
    games: usize,
    /// Microseconds to evaluate one state.
    eval_micros: f64,
    /// The share of a game's time that evaluating a node's successors takes.
    cost: f64,
}

/// A piece proposition and the score (0..1) a piece standing there adds for one role.
#[derive(Serialize)]
struct PlacedEntry {
    proposition: String,
    weight: f64,
}

/// What the default `mcts` player learns of `propnet`'s game (described by `desc`, analysed as
/// `found`) within `budget`, the clock ending at `end`; then, in whatever time is left before
/// `end`, the material random games show (for the reader: the player does not use it).
pub(super) fn learned(
    propnet: &Propnet,
    desc: &gdl::Description,
    found: &Analysis,
    budget: Budget,
    end: Instant,
) -> Learned {
    let options = MctsOptions::default();
    let net = &propnet.net;
    let Prepared { knowledge, report, .. } = prepare_with(net, &propnet.program, desc, found, options.wanted(), budget);
    let mut learned = Learned { phases: report.phases, ..Learned::default() };
    if report.late {
        learned.notes.push(format!(
            "the preparation ended {:.1} s after a player stops waiting for it, so a player would have played \
             without what it learnt",
            Instant::now().saturating_duration_since(budget.wait).as_secs_f64()
        ));
    }
    let guided = knowledge.as_deref().is_some_and(Knowledge::steers_playouts);
    learned.playout_tactics = report.tactics.map(|cost| TacticsEntry { cost, used: cost.pays() });
    learned.pieces = report.pieces.map(|result| {
        let found = knowledge.as_deref().and_then(Knowledge::pieces);
        PiecesEntry::new(net, found, result.err().map(|why| why.explain(&net.roles)), guided)
    });
    learned.outlook = report.outlook.map(|result| OutlookEntry {
        found: knowledge.as_deref().and_then(Knowledge::outlook).map(|o| OutlookFound {
            source: o.source.describe(),
            eval_micros: o.eval_time.as_secs_f64() * 1e6,
            cost: o.cost,
            curves: o.curves.clone(),
            games: o.games,
        }),
        rejected: result.err().map(|why| why.explain(&net.roles)),
    });
    // The player measures its moves' variety while the preparation runs, for a twentieth of
    // its time.
    let started = Instant::now();
    let variety = MoveVariety::measure(&propnet.program, MoveVariety::trial(end.saturating_duration_since(started)), 0);
    learned.phases.push(Phase { phase: "move variety".to_owned(), seconds: started.elapsed().as_secs_f64() });
    let used = options.wants_move_averages() && variety.pays();
    let rave = MctsOptions::suits_rave(net.roles.len(), knowledge.as_deref(), Some(&variety));
    learned.move_averages = Some(VarietyEntry { variety, used, rave });
    let started = Instant::now();
    let left = end.saturating_duration_since(started);
    if left.is_zero() {
        learned.notes.push("material: skipped, out of time".to_owned());
    } else {
        let deadline = started + left.min(TacticsCost::TRIAL);
        learned.material = Some(Material::discover(net, knowledge.as_deref(), deadline, 0));
        learned.phases.push(Phase { phase: "material".to_owned(), seconds: started.elapsed().as_secs_f64() });
    }
    learned
}

impl PiecesEntry {
    /// The entry for `found` (or why not: `rejected`) in `net`, where `mcts`'s playouts run
    /// guided if `guided`.
    fn new(net: &Net, found: Option<&Pieces>, rejected: Option<String>, guided: bool) -> PiecesEntry {
        let placement_weights = found.and_then(|f| f.placement.as_ref()).map(|p| {
            (0..p.holdout_correlation.len())
                .map(|r| {
                    let row =
                        p.weights(r).map(|(b, weight)| PlacedEntry { proposition: net.bases[b].name.clone(), weight });
                    row.collect()
                })
                .collect()
        });
        let captures_in_playouts = guided && found.is_some();
        PiecesEntry { found: found.cloned(), rejected, placement_weights, captures_in_playouts }
    }
}

/// Prints the sections, naming the roles `roles`.
pub(super) fn print_learned(roles: &[String], l: &Learned) {
    if let Some(t) = &l.playout_tactics {
        let c = &t.cost;
        let used = if t.used { "used by mcts" } else { "not used by mcts" };
        println!("\nplayout tactics (decisive and anti-decisive moves): {used}");
        println!("  changed {:.0}% of {} playouts", 100.0 * c.fired, c.playouts);
        println!(
            "  {:.0} playouts/s with them, {:.0} without ({:.1} times slower)",
            c.tactical_per_s,
            c.random_per_s,
            c.random_per_s / c.tactical_per_s.max(f64::MIN_POSITIVE)
        );
        if let Some(gain) = c.score_gain {
            println!("  their mean score against plain playouts': {gain:+.1} standard errors (one role)");
        }
    }
    if let Some(v) = &l.move_averages {
        let used = if v.used { "used by mcts" } else { "not used by mcts" };
        println!("\nmove averages (MAST): {used}");
        println!(
            "  a role's moves legal where it chooses: {:.0}% on average over {} choices (used up to {:.0}%)",
            100.0 * v.variety.legal_share,
            v.variety.choices,
            100.0 * MoveVariety::MAX_LEGAL_SHARE
        );
        println!(
            "  chosen moves whose name fixes what they make true: {:.0}% (used from {:.0}%)",
            100.0 * v.variety.fixed_share,
            100.0 * MoveVariety::MIN_FIXED_SHARE
        );
        let rave = if v.rave { "kept by mcts with rave=N" } else { "not kept by mcts" };
        println!("all-moves-as-first statistics (RAVE): {rave}");
        println!(
            "  chosen moves their role had played before in the game: {:.1}% (suits up to {:.0}%, \
             where the roles have no pieces)",
            100.0 * v.variety.repeat_share,
            100.0 * MoveVariety::MAX_REPEAT_SHARE
        );
    }
    if let Some(m) = &l.material {
        print_material(roles, m);
    }
    if let Some(p) = &l.pieces {
        print_pieces(roles, p);
    }
    if let Some(o) = &l.outlook {
        print_outlook(roles, o);
    }
}

fn print_material(roles: &[String], m: &Material) {
    let found = m.fits.iter().filter(|f| f.is_some()).count();
    println!("\nmaterial (counts that predict a role's score in {} sampled games; not used by mcts): {found}", m.games);
    for (role, fit) in roles.iter().zip(&m.fits) {
        let Some(fit) = fit else { continue };
        let terms: Vec<String> =
            fit.terms.iter().map(|t| format!("{} {:+.3}", m.groups[t.group].name, t.weight)).collect();
        println!(
            "  {role:<20} {} (per standard deviation; held-out correlation {:.2})",
            terms.join(", "),
            fit.holdout_correlation
        );
    }
}

fn print_pieces(roles: &[String], p: &PiecesEntry) {
    let Some(found) = &p.found else {
        let why = p.rejected.as_deref().unwrap_or("no reason given");
        println!("\npieces (for mcts's priors): none found: {why}");
        return;
    };
    println!("\npieces (for mcts's priors, from {} random games):", found.games);
    for (role, set) in roles.iter().zip(&found.sets) {
        println!(
            "  {role:<20} {} (final count's correlation with the score {:.2}, held out {:.2})",
            set.group.name, set.correlation, set.holdout_correlation
        );
        if !set.kinds.is_empty() {
            let worth: Vec<String> = set.kinds.iter().map(|k| format!("{} {:.1}", k.group.name, k.value)).collect();
            println!("  {:<20} worth by kind: {}", "", worth.join(", "));
        }
    }
    match (&found.placement, &p.placement_weights) {
        (Some(placement), Some(tables)) => {
            println!("  where they stand better ({} positions; best and worst squares per role):", placement.positions);
            for ((role, table), c) in roles.iter().zip(tables).zip(&placement.holdout_correlation) {
                let mut sorted: Vec<&PlacedEntry> = table.iter().collect();
                sorted.sort_by(|a, b| b.weight.total_cmp(&a.weight));
                let show = |e: &&PlacedEntry| format!("{} {:+.3}", e.proposition, e.weight);
                let best: Vec<String> = sorted.iter().take(3).map(show).collect();
                let worst: Vec<String> = sorted.iter().rev().take(3).map(show).collect();
                println!(
                    "    {role:<18} held-out correlation {c:.2}; best {}; worst {}",
                    best.join(", "),
                    worst.join(", ")
                );
            }
        }
        _ => println!("  where they stand better: nothing confirmed"),
    }
    match p.captures_in_playouts {
        true => println!("  mcts's guided playouts prefer moves that gain material (mcts:captures)"),
        false => println!("  mcts's playouts run unguided here, so they take no captures by preference"),
    }
}

fn print_outlook(roles: &[String], o: &OutlookEntry) {
    let Some(found) = &o.found else {
        let why = o.rejected.as_deref().unwrap_or("no reason given");
        println!("\noutlook (for mcts's priors): not confirmed: {why}");
        return;
    };
    println!(
        "\noutlook ({}, for mcts's priors, from {} games; {:.1} µs a state, a node's successors {:.0}% of a game's \
         time):",
        found.source,
        found.games,
        found.eval_micros,
        100.0 * found.cost
    );
    for (role, c) in roles.iter().zip(&found.curves) {
        println!(
            "  {role:<20} score ≈ logistic({:+.3} {:+.3} × lead) (lead's correlation with the score {:.2}, the \
             curve's held out {:.2})",
            c.intercept, c.slope, c.correlation, c.holdout_correlation
        );
    }
}
