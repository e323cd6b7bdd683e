//! Propnet optimisation: shrinks a net without changing what its outputs compute.
//!
//! Passes, run in rounds until neither flatten nor reach (the two that open new opportunities for
//! the others) finds anything:
//!
//! * **fold** — constant folding by three-valued evaluation (bases and inputs unknown). A cycle
//!   (ground recursion, meaning its least fixpoint) is evaluated twice, unknowns read as false and
//!   as true; a node with the same value both times is constant. Then constant inputs are dropped
//!   (true from AND, false from OR) and `x AND NOT x` / `x OR NOT x` fold.
//! * **prune** — everything no output (`next`, `legal`, `goal`, `terminal`) depends on goes; every
//!   base and input node stays, so the state and the moves remain addressable.
//! * **collapse** — single-input AND/OR gates become their input, `NOT (NOT x)` becomes `x`, and
//!   a gate reading itself is reduced by the least-fixpoint rules (`x = x OR r` is `r`,
//!   `x = x AND r` is false).
//! * **merge** — hash-consing: gates of one kind over the same input set become one node.
//! * **flatten** — an AND read only by an AND (or OR by an OR), not an output, is spliced into its
//!   reader (losing its label, if it had one, unless [`Passes::flatten_labelled`] is off).
//! * **reach** — abstract interpretation of the game over three-valued states: bases start at their
//!   initial value and become unknown once their `next` may differ; an input is known false until
//!   its `legal` may hold. Every node constant in the resulting over-approximation of the reachable
//!   (state, legal joint move) pairs is replaced by that constant: this includes a base whose
//!   `next` is false (true) and whose `init` is false (true), and a move that is never legal.
//!   Such base and input nodes stay in the net (of kind `Base`/`Input`, so a runtime can still set
//!   them), but whatever read them reads the constant instead.
//!
//! Passes fold, prune, collapse, merge and flatten are equivalences: the optimised net computes the
//! same outputs for *every* base and input marking. Pass reach is only valid on reachable states
//! and legal moves (on those it is exact), so [`Passes::reachability`] can turn it off.
//!
//! The rewrites assume a stratified net (no NOT inside a cycle), as every net [`crate::build()`]
//! makes from valid GDL is. Constant folding leaves a cycle through a NOT alone, but the other
//! rewrites rely on least-fixpoint semantics, which such a cycle does not have.
//!
//! Merged nodes keep one label (the representative's, else the first merged one's); constants carry
//! none. The result is compacted and renumbered: constants first, then every base node (in base
//! order), every input node (in move order), then the gates in evaluation order, so every edge
//! outside a cycle goes from a lower id to a higher one.
//!
//! Every pass is linear or nearly so in the size of the net (sorting each gate's inputs aside):
//! breakthrough (33k nodes, 121k edges) takes about 5 ms, amazons (1.5M nodes) under a second.

mod reach;
#[cfg(test)]
mod tests;
mod work;

use crate::net::{Counts, Net};
use serde::Serialize;
use std::borrow::Cow;
use std::fmt;
use std::time::Instant;
use work::Work;

/// Which passes [`optimize_with`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Passes {
    /// Run pass reach (valid on reachable states only); off, the result is an exact equivalent.
    pub reachability: bool,
    /// Run pass flatten.
    pub flatten: bool,
    /// Let pass flatten splice gates that carry a GDL name (a view proposition such as
    /// `(line x)`), losing the name; off, only unnamed gates (rule bodies) are spliced.
    pub flatten_labelled: bool,
    /// The most rounds of flatten and reach, even if the last one still changed something.
    pub max_rounds: usize,
    /// Passes stop at this, each where it stands, and no pass begins past it: the net optimised
    /// so far is as correct, only larger (a build that ran out of time must stop, and may still
    /// be used).
    #[serde(skip)]
    pub deadline: Option<Instant>,
}

impl Default for Passes {
    fn default() -> Self {
        Passes { reachability: true, flatten: true, flatten_labelled: true, max_rounds: 20, deadline: None }
    }
}

/// An optimisation pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Pass {
    /// Constant folding, cycles included.
    Fold,
    /// Removal of what no output depends on.
    Prune,
    /// Single-input gates, double negations and self-reading gates.
    Collapse,
    /// Merging of duplicate gates (hash-consing).
    Merge,
    /// Splicing of single-reader AND-into-AND and OR-into-OR.
    Flatten,
    /// Constants over the reachable states.
    Reach,
}

impl Pass {
    const ALL: [Pass; 6] = [Pass::Fold, Pass::Prune, Pass::Collapse, Pass::Merge, Pass::Flatten, Pass::Reach];

    /// The pass's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Pass::Fold => "fold",
            Pass::Prune => "prune",
            Pass::Collapse => "collapse",
            Pass::Merge => "merge",
            Pass::Flatten => "flatten",
            Pass::Reach => "reach",
        }
    }
}

/// What one pass did, summed over its runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PassStats {
    /// The pass.
    pub pass: Pass,
    /// How many times it ran.
    pub runs: usize,
    /// Nodes it removed (net of any it added).
    pub nodes_removed: i64,
    /// Edges it removed (net of any it added).
    pub edges_removed: i64,
    /// Time spent in it, in microseconds.
    pub micros: u64,
}

/// What [`optimize`] did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OptimizeStats {
    /// The net given.
    pub before: Counts,
    /// The net returned.
    pub after: Counts,
    /// Per pass, in pipeline order.
    pub passes: Vec<PassStats>,
    /// Rounds of flatten and reach run (another follows one in which either changed something).
    pub rounds: usize,
    /// Whether pass reach ran (the result is then only equivalent on reachable states).
    pub reachability: bool,
    /// Total time, in microseconds.
    pub micros: u64,
    /// Whether the deadline cut a pass short or left passes out.
    pub cut_short: bool,
}

impl fmt::Display for OptimizeStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "optimised in {:.1} ms, {} rounds{}: {} nodes, {} edges -> {} nodes, {} edges",
            self.micros as f64 / 1000.0,
            self.rounds,
            if self.reachability { "" } else { " (no reachability)" },
            self.before.nodes,
            self.before.edges,
            self.after.nodes,
            self.after.edges
        )?;
        for p in &self.passes {
            writeln!(
                f,
                "  {:9} {:>9} nodes {:>10} edges removed  ({} runs, {:.1} ms)",
                p.pass.name(),
                p.nodes_removed,
                p.edges_removed,
                p.runs,
                p.micros as f64 / 1000.0
            )?;
        }
        write!(f, "  after: {}", self.after)
    }
}

/// Optimises `net` with every pass (see the module documentation). The result agrees with `net` on
/// every reachable state and legal joint move; use [`optimize_with`] for an exact equivalent.
pub fn optimize(net: &Net) -> (Net, OptimizeStats) {
    optimize_with(net, &Passes::default())
}
/// Optimises `net` with the passes `options` selects. A pass the deadline catches stops where it
/// stands, and no pass begins after it: the net is returned as far as it was optimised.
pub fn optimize_with(net: &Net, options: &Passes) -> (Net, OptimizeStats) {
    match run(Cow::Borrowed(net), options, true) {
        Some(done) => done,
        None => unreachable!("a net as far as it was optimised is always returned"),
    }
}

/// Optimises `net`, taking it over, unless the deadline of `options` cuts the passes short
/// (`None`, within milliseconds of it): for builds that must be done by their deadline, which
/// need not spend it on what they then throw away.
pub fn optimize_by(net: Net, options: &Passes) -> Option<(Net, OptimizeStats)> {
    run(Cow::Owned(net), options, false)
}

/// The passes, over `net` (borrowed or taken over); past the deadline, the net as far as it was
/// optimised if `partial`, else nothing.
fn run(net: Cow<'_, Net>, options: &Passes, partial: bool) -> Option<(Net, OptimizeStats)> {
    let start = Instant::now();
    let before = net.counts();
    let over = || crate::past(options.deadline, 0, 1);
    let mut passes: Vec<PassStats> = Pass::ALL
        .iter()
        .map(|&pass| PassStats { pass, runs: 0, nodes_removed: 0, edges_removed: 0, micros: 0 })
        .collect();
    let stats = |after: Counts, passes: Vec<PassStats>, rounds: usize, cut_short: bool| OptimizeStats {
        before,
        after,
        passes: passes.into_iter().filter(|p| p.runs > 0).collect(),
        rounds,
        reachability: options.reachability,
        micros: start.elapsed().as_micros() as u64,
        cut_short,
    };
    if over() {
        return partial.then(|| (net.into_owned(), stats(before, passes, 0, true)));
    }
    // The labels stay where they are: the work refers to them by index.
    let (net, src_labels): (Cow<'_, Net>, Cow<'_, [Option<String>]>) = match net {
        Cow::Borrowed(net) => (Cow::Borrowed(net), Cow::Borrowed(&net.labels)),
        Cow::Owned(mut net) => {
            let labels = std::mem::take(&mut net.labels);
            (Cow::Owned(net), Cow::Owned(labels))
        }
    };
    // Taking the net in and giving it back read the clock too, but only where a build cut
    // short gives up: a partial optimisation always has a net to return.
    let abandon = if partial { None } else { options.deadline };
    let mut w = Work::new(net, None, &src_labels, abandon)?;
    w.deadline = options.deadline;
    // What the outputs cannot reach is left behind by the copy: that is pass prune's work.
    passes[1].nodes_removed = (before.nodes + 2) as i64 - w.live_nodes as i64;
    passes[1].edges_removed = before.edges as i64 - w.live_edges as i64;
    // Runs a pass, or says (`None`) that the deadline has come: then none runs after it.
    let mut run = |w: &mut Work, pass: Pass| -> Option<bool> {
        if over() {
            return None;
        }
        let t = Instant::now();
        let (n0, e0) = (w.live_nodes, w.live_edges);
        let changed = match pass {
            Pass::Fold => w.fold(false),
            Pass::Prune => w.prune(),
            Pass::Collapse => w.collapse(),
            Pass::Merge => w.merge(),
            Pass::Flatten => w.flatten(options.flatten_labelled),
            Pass::Reach => w.fold(true),
        };
        let (n1, e1) = (w.live_nodes, w.live_edges);
        let s = &mut passes[Pass::ALL.iter().position(|&p| p == pass).unwrap_or(0)];
        s.runs += 1;
        s.nodes_removed += n0 as i64 - n1 as i64;
        s.edges_removed += e0 as i64 - e1 as i64;
        s.micros += t.elapsed().as_micros() as u64;
        Some(changed)
    };
    // Fold, prune, collapse and merge each finish their job in one run (merge repeats itself
    // while merges inside cycles expose more). Then rounds of flatten and reach, the two that can
    // open new opportunities, each followed by what it may have enabled, until neither finds any.
    let mut done = run(&mut w, Pass::Fold).and_then(|_| run(&mut w, Pass::Prune)).is_some();
    // The renumbering does not begin past the deadline.
    if done && !over() && w.live_nodes < w.net.kinds.len() / 2 {
        // Mostly garbage (typical of a fresh net): renumber so that later passes scan less.
        let (compact, labels) = w.compact(abandon)?;
        w = Work::new(Cow::Owned(compact), Some(&labels), &src_labels, abandon)?;
        w.deadline = options.deadline;
    }
    let mut rounds = 0;
    let mut rest = || -> Option<()> {
        run(&mut w, Pass::Collapse)?;
        run(&mut w, Pass::Merge)?;
        let mut reach = options.reachability;
        while rounds < options.max_rounds.max(1) {
            rounds += 1;
            let mut changed = false;
            if options.flatten && run(&mut w, Pass::Flatten)? {
                run(&mut w, Pass::Merge)?;
                changed = true;
            }
            if reach {
                // Reach folds its constants itself; what they cut loose goes, then new duplicates.
                reach = run(&mut w, Pass::Reach)?;
                if reach {
                    run(&mut w, Pass::Prune)?;
                    run(&mut w, Pass::Merge)?;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        Some(())
    };
    done = done && rest().is_some();
    // A pass the deadline caught stopped where it stood.
    let cut_short = !done || over();
    if cut_short && !partial {
        crate::drop_aside(w);
        return None;
    }
    let (mut out, labels) = w.compact(abandon)?;
    out.labels = labels.into_iter().map(|l| src_labels.get(l as usize).cloned().flatten()).collect();
    let after = out.counts();
    Some((out, stats(after, passes, rounds, cut_short)))
}
