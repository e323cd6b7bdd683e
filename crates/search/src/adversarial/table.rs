//! The transposition table: what earlier searches learned about a state, found by a hash of its
//! bitset, in a fixed number of slots.
//!
//! Each slot holds one entry. A new entry replaces the old one when it is for the same state,
//! when the old one was stored by an earlier search (an earlier move of the game: its depths
//! mean less now), or when the new one was searched at least as deeply, so the expensive
//! results of this search survive the flood of shallow ones.

use rustc_hash::FxHasher;
use std::hash::{Hash, Hasher};

/// What a stored value says about the state's true value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Bound {
    /// The value itself.
    Exact,
    /// At least the value (the search failed high).
    Lower,
    /// At most the value (the search failed low).
    Upper,
}

/// The depth stored for results that no deeper search can change: every line below them ended
/// in a terminal state.
pub(super) const SOLVED: u32 = u32::MAX;

/// One stored result.
#[derive(Debug, Clone, Copy)]
pub(super) struct Entry {
    key: u64,
    generation: u32,
    /// Plies searched below the state, or [`SOLVED`].
    pub depth: u32,
    pub value: i32,
    pub bound: Bound,
    /// Our best move there (its index among our legal moves), and the index of the others' best reply to it among the joint
    /// replies in the order they are enumerated (to try them first next time).
    pub best: u32,
    pub reply: u32,
}

/// A bounded table of [`Entry`]s.
#[derive(Debug)]
pub(super) struct Table {
    slots: Vec<Option<Entry>>,
    generation: u32,
}

impl Table {
    /// A table of `entries` slots rounded up to a power of two; zero disables it.
    pub fn new(entries: usize) -> Table {
        let size = if entries == 0 { 0 } else { entries.next_power_of_two() };
        Table { slots: vec![None; size], generation: 0 }
    }

    /// Marks the start of a new search: entries stored so far become replaceable.
    pub fn next_generation(&mut self) {
        self.generation = self.generation.wrapping_add(1);
    }

    /// The hash key of a state.
    pub fn key<S: Hash>(state: &S) -> u64 {
        let mut h = FxHasher::default();
        state.hash(&mut h);
        // Fx leaves the low bits (the slot index) poorly mixed; finish with a multiply-xorshift.
        let x = h.finish();
        let x = (x ^ (x >> 31)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        x ^ (x >> 29)
    }

    fn slot(&self, key: u64) -> Option<usize> {
        (!self.slots.is_empty()).then(|| (key as usize) & (self.slots.len() - 1))
    }

    /// The entry for the state with hash `key`, if the table holds one.
    pub fn probe(&self, key: u64) -> Option<Entry> {
        self.slots[self.slot(key)?].filter(|e| e.key == key)
    }

    /// Stores a result for the state with hash `key`, subject to the replacement scheme.
    pub fn store(&mut self, key: u64, depth: u32, value: i32, bound: Bound, best: u32, reply: u32) {
        let Some(i) = self.slot(key) else { return };
        let keep = self.slots[i].is_some_and(|e| e.key != key && e.generation == self.generation && e.depth > depth);
        if !keep {
            self.slots[i] = Some(Entry { key, generation: self.generation, depth, value, bound, best, reply });
        }
    }
}
