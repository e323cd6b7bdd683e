//! The factors section of `latchkey analyze`: the independent sub-games a game splits into once
//! control logic is set aside, and which of them the terminal condition and the goals read; or,
//! where there is no such split, the neighbourhoods joined only through a few shared
//! propositions that the search treats as factors.

use analysis::Factors;
use propnet::Net;
use serde::Serialize;

/// How the game splits.
#[derive(Serialize)]
pub(super) struct FactorsEntry {
    /// Propositions no move changes (turn order, step counters), set aside.
    control: Vec<String>,
    /// Propositions linking neighbourhoods (empty for independent sub-games).
    shared: Vec<String>,
    /// Moves that change and read nothing but control, playable beside any factor.
    passes: Vec<String>,
    factors: Vec<FactorEntry>,
    /// Whether search leaves some factor aside.
    pruned: bool,
}

/// One independent sub-game.
#[derive(Serialize)]
struct FactorEntry {
    propositions: Vec<String>,
    moves: Vec<String>,
    /// Whether the terminal condition reads it.
    terminal: bool,
    /// The roles whose goals read it.
    goals: Vec<String>,
    /// Whether the terminal condition or some goal reads it.
    relevant: bool,
    /// Whether its moves' legality reads only control.
    open: bool,
    /// Whether search leaves it aside (irrelevant and open).
    pruned: bool,
}

pub(super) fn factors_entry(net: &Net, f: &Factors) -> FactorsEntry {
    let base = |b: &u32| net.bases[*b as usize].name.clone();
    let mv = |j: &u32| {
        let m = &net.moves[*j as usize];
        format!("{} {}", net.roles[m.role], m.name)
    };
    FactorsEntry {
        control: f.control.iter().map(base).collect(),
        shared: f.shared.iter().map(base).collect(),
        passes: f.passes.iter().map(mv).collect(),
        factors: f
            .factors
            .iter()
            .map(|x| FactorEntry {
                propositions: x.bases.iter().map(base).collect(),
                moves: x.moves.iter().map(mv).collect(),
                terminal: x.terminal,
                goals: net.roles.iter().zip(&x.goals).filter(|(_, &g)| g).map(|(r, _)| r.clone()).collect(),
                relevant: x.relevant(),
                open: x.open,
                pruned: x.prunable(),
            })
            .collect(),
        pruned: f.prunable(),
    }
}

/// At most `n` of `items`, and how many more there are.
pub(super) fn some<S: AsRef<str>>(items: &[S], n: usize) -> String {
    let mut out = items.iter().take(n).map(AsRef::as_ref).collect::<Vec<_>>().join(" ");
    if items.len() > n {
        out.push_str(&format!(" and {} more", items.len() - n));
    }
    out
}

pub(super) fn print_factors(f: &FactorsEntry) {
    if f.factors.len() < 2 {
        println!("\nfactors: the game does not split into independent sub-games");
        return;
    }
    println!(
        "\nfactors: {} independent sub-games ({} control propositions set aside{}; passes: {})",
        f.factors.len(),
        f.control.len(),
        if f.control.is_empty() { String::new() } else { format!(", such as {}", some(&f.control, 2)) },
        if f.passes.is_empty() { "none".to_owned() } else { some(&f.passes, 4) },
    );
    print_parts(f);
    if f.pruned {
        let pruned = f.factors.iter().filter(|x| x.pruned).count();
        println!("  search leaves {pruned} irrelevant factors aside: one of their moves stands for all of them");
    }
}

pub(super) fn print_neighbourhoods(f: &FactorsEntry) {
    println!(
        "\nneighbourhoods: {} sub-games joined only through {} shared propositions ({}); the search \
         treats them as factors",
        f.factors.len(),
        f.shared.len(),
        some(&f.shared, 3),
    );
    print_parts(f);
}

/// One line per factor or neighbourhood: its moves and propositions, and what reads it.
fn print_parts(f: &FactorsEntry) {
    for (i, x) in f.factors.iter().enumerate() {
        let read = match (x.terminal, x.goals.is_empty()) {
            (true, false) => format!("terminal and goals of {} read it", x.goals.join(", ")),
            (true, true) => "the terminal condition reads it".to_owned(),
            (false, false) => format!("goals of {} read it", x.goals.join(", ")),
            (false, true) if x.pruned => {
                "irrelevant: neither the terminal condition nor any goal reads it; left aside".to_owned()
            }
            (false, true) => "neither the terminal condition nor any goal reads it, but its play can close its \
                              moves, so it is searched"
                .to_owned(),
        };
        println!(
            "  {:>2}  {} moves ({}), {} propositions ({}); {read}",
            i + 1,
            x.moves.len(),
            some(&x.moves, 3),
            x.propositions.len(),
            some(&x.propositions, 3)
        );
    }
}
