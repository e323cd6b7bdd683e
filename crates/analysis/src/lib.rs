//! Game structure discovered from a game's propnet. For now: latches (chapter 12) — base
//! propositions that, once true (positive) or once false (negative), keep that value whatever the
//! players do — found by two sound methods, each result reporting the method that proved it.

mod latches;

pub use latches::{exact_latches, structural_latches, Latch, LatchKind, Method};
