//! Nets cut down to a few of their outputs, for looking ahead or judging states at a fraction of
//! the cost of the whole net.

use crate::net::{Kind, Net};
use crate::optimize::{optimize_with, Passes};

/// `net` cut down to what the next values of the bases `keep` read: every other output (legal,
/// goal, terminal, the other bases' next) is made false and whatever only they read is removed,
/// exactly (no reachability). Base and move indices are unchanged, so states and moves of `net`
/// fit it; for looking ahead at a few propositions without propagating the whole net.
pub fn to_next(net: &Net, keep: &[usize]) -> Net {
    cut(net, keep, false)
}

/// `net` cut down to what its goals and terminal read (no legal move, no next value), exactly;
/// for judging states that differ from one another in a few bases at a small cost.
pub fn to_outcome(net: &Net) -> Net {
    cut(net, &[], true)
}

/// `net` with only the next values of `keep` and, if `outcome`, the goals and terminal left.
fn cut(net: &Net, keep: &[usize], outcome: bool) -> Net {
    let mut cut = net.clone();
    let never = cut.add(Kind::Const(false), Vec::new(), None);
    for m in &mut cut.moves {
        m.legal = never;
    }
    if !outcome {
        for g in cut.goals.iter_mut().flatten() {
            g.1 = never;
        }
        cut.terminal = never;
    }
    for (i, b) in cut.bases.iter_mut().enumerate() {
        if !keep.contains(&i) {
            b.next = never;
        }
    }
    let options = Passes { reachability: false, flatten: false, ..Passes::default() };
    optimize_with(&cut, &options).0
}
