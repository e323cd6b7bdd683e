//! The goal-forms section of `latchkey analyze`: confirmed forms of the goal calculation, the
//! virtual terminals they give and the latch heuristics random games judged.

use analysis::GoalForms;
use propnet::Net;
use serde::Serialize;

/// The goal forms random games confirmed.
#[derive(Serialize)]
pub(super) struct GoalFormsEntry {
    /// Terminal states every form reproduced.
    games: usize,
    /// States on the way they were checked against.
    states: usize,
    /// Candidate tallies tried.
    tallies: usize,
    /// Time per terminal state by the goal net and by the emulator, where there is one.
    speed: Option<analysis::GoalSpeed>,
    forms: Vec<GoalFormEntry>,
    /// "Owning these latches is good", per form counting latches, and how random games judged it.
    latch_heuristics: Vec<LatchHeuristicEntry>,
}

#[derive(Serialize)]
struct LatchHeuristicEntry {
    /// Index into `forms`.
    form: usize,
    /// Per role, the latches it counts.
    latches: Vec<Vec<String>>,
    games: usize,
    correlation: f64,
    threshold: f64,
    confirmed: bool,
}

/// Where a form's outcome is decided before the game ends.
#[derive(Serialize)]
struct VirtualTerminalEntry {
    /// Whether counters (rather than counts of latches) decide it.
    counters: bool,
    /// Pairs of counted propositions proved never true together (one place, two roles).
    exclusive_pairs: usize,
}

#[derive(Serialize)]
struct GoalFormEntry {
    kind: &'static str,
    description: String,
    /// Whether the player computes goals with it instead of the goal net.
    emulator: bool,
    goal_read: bool,
    #[serde(flatten)]
    rule: analysis::FormRule,
    tallies: Vec<TallyEntry>,
    /// Present where counts that only grow, or counters proved to move one way, decide the outcome
    /// before the game ends.
    virtual_terminal: Option<VirtualTerminalEntry>,
}

#[derive(Serialize)]
struct TallyEntry {
    role: String,
    name: String,
    kind: analysis::TallyKind,
    propositions: usize,
    /// For a counter, which way play was proved to move it.
    trend: analysis::Trend,
}

pub(super) fn goal_forms_entry(net: &Net, g: &GoalForms) -> GoalFormsEntry {
    GoalFormsEntry {
        games: g.games,
        states: g.states,
        tallies: g.tallies,
        speed: g.time(net),
        latch_heuristics: g
            .latch_heuristics
            .iter()
            .map(|h| LatchHeuristicEntry {
                form: h.form,
                latches: h.latches.iter().map(|l| l.iter().map(|&b| net.bases[b].name.clone()).collect()).collect(),
                games: h.games,
                correlation: h.correlation,
                threshold: h.threshold,
                confirmed: h.confirmed,
            })
            .collect(),
        forms: g
            .forms
            .iter()
            .enumerate()
            .map(|(i, f)| GoalFormEntry {
                kind: f.kind(),
                description: f.describe(&net.roles),
                emulator: g.emulator_index() == Some(i),
                goal_read: f.goal_read,
                rule: f.rule.clone(),
                virtual_terminal: g.deciders.iter().find(|d| d.form == i).map(|d| VirtualTerminalEntry {
                    counters: f.tallies.iter().all(|t| t.kind == analysis::TallyKind::Counter),
                    exclusive_pairs: d.exclusive,
                }),
                tallies: net
                    .roles
                    .iter()
                    .zip(&f.tallies)
                    .map(|(role, t)| TallyEntry {
                        role: role.clone(),
                        name: t.name.clone(),
                        kind: t.kind,
                        propositions: t.bases.len(),
                        trend: t.trend,
                    })
                    .collect(),
            })
            .collect(),
    }
}

pub(super) fn print_goal_forms(g: &GoalFormsEntry) {
    println!(
        "\ngoal forms (confirmed by {} terminal states of random games and {} on the way): {}",
        g.games,
        g.states,
        g.forms.len()
    );
    for (i, f) in g.forms.iter().enumerate() {
        let role = if f.emulator {
            "emulates the goals"
        } else if f.goal_read {
            "restates the goals"
        } else {
            "agrees with the goals"
        };
        println!("  {}  [{role}]", f.description);
        if let Some(s) = g.speed.filter(|_| f.emulator) {
            println!(
                "    goals of a terminal state: {:.0} ns by the goal net, {:.0} ns emulated ({:.1} times faster)",
                s.net_ns,
                s.emulator_ns,
                s.net_ns / s.emulator_ns.max(1.0)
            );
        }
        for h in g.latch_heuristics.iter().filter(|h| h.form == i) {
            let verdict = if h.confirmed { "confirmed" } else { "not confirmed" };
            let counted: Vec<String> = h.latches.iter().map(|l| l.len().to_string()).collect();
            println!(
                "    latch heuristic (owning its counted latches is good; {} latches per role): {verdict}, \
                 correlation {:.2} over {} random games (needed {:.2})",
                counted.join("/"),
                h.correlation,
                h.games,
                h.threshold
            );
        }
        let trends: Vec<String> = f
            .tallies
            .iter()
            .filter(|t| t.trend != analysis::Trend::Unknown)
            .map(|t| {
                let way = if t.trend == analysis::Trend::Rises { "never goes down" } else { "never goes up" };
                format!("{} {way}", t.name)
            })
            .collect();
        if !trends.is_empty() {
            println!("    counters (proved): {}", trends.join("; "));
        }
        match &f.virtual_terminal {
            Some(v) if v.counters => {
                println!("    virtual terminal: decided once a counter's least at the end passes the others' most")
            }
            Some(v) => println!(
                "    virtual terminal: the counts only grow; decided once a count passes what the others can still \
                 reach ({} pairs of counted propositions proved never true together)",
                v.exclusive_pairs
            ),
            None => {}
        }
    }
}
