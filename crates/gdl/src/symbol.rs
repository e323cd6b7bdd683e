//! Interned symbols: every constant, function name, relation name and variable name in GDL.
//!
//! GDL is case-insensitive, so names are lower-cased when interned. The table is global and
//! append-only (a game has a few thousand symbols at most), which keeps [`Sym`] a `Copy` integer
//! that prints itself without a context object. The GDL keywords are pre-interned at fixed
//! indices so engines can match on them as constants.

use rustc_hash::FxHashMap;
use std::fmt;
use std::sync::{OnceLock, RwLock};

/// An interned, lower-case GDL name.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym(u32);

struct Interner {
    ids: FxHashMap<&'static str, Sym>,
    names: Vec<&'static str>,
}

/// Names interned first, in this order, so that the constants below are stable.
const KEYWORDS: [&str; 17] = [
    "role", "init", "true", "next", "legal", "does", "goal", "terminal", "base", "input", "sees", "random", "distinct",
    "not", "or", "<=", "noop",
];

impl Sym {
    /// `role`
    pub const ROLE: Sym = Sym(0);
    /// `init`
    pub const INIT: Sym = Sym(1);
    /// `true`
    pub const TRUE: Sym = Sym(2);
    /// `next`
    pub const NEXT: Sym = Sym(3);
    /// `legal`
    pub const LEGAL: Sym = Sym(4);
    /// `does`
    pub const DOES: Sym = Sym(5);
    /// `goal`
    pub const GOAL: Sym = Sym(6);
    /// `terminal`
    pub const TERMINAL: Sym = Sym(7);
    /// `base`
    pub const BASE: Sym = Sym(8);
    /// `input`
    pub const INPUT: Sym = Sym(9);
    /// `sees` (GDL-II)
    pub const SEES: Sym = Sym(10);
    /// `random` (the GDL-II chance role)
    pub const RANDOM: Sym = Sym(11);
    /// `distinct`
    pub const DISTINCT: Sym = Sym(12);
    /// `not`
    pub const NOT: Sym = Sym(13);
    /// `or`
    pub const OR: Sym = Sym(14);
    /// `<=`
    pub const IMPLIES: Sym = Sym(15);
    /// `noop`
    pub const NOOP: Sym = Sym(16);

    /// Interns `name`, lower-cased.
    pub fn new(name: &str) -> Sym {
        let lower;
        let name = if name.bytes().any(|b| b.is_ascii_uppercase()) {
            lower = name.to_ascii_lowercase();
            lower.as_str()
        } else {
            name
        };
        if let Some(&sym) = table().read().unwrap_or_else(|e| e.into_inner()).ids.get(name) {
            return sym;
        }
        let mut guard = table().write().unwrap_or_else(|e| e.into_inner());
        guard.intern(name)
    }

    /// The name this symbol stands for.
    pub fn as_str(self) -> &'static str {
        table().read().unwrap_or_else(|e| e.into_inner()).names[self.0 as usize]
    }

    /// The symbol's index in the global table (dense, starting at 0).
    pub fn index(self) -> u32 {
        self.0
    }

    /// Whether this is one of the reserved GDL words (`role`, `true`, `distinct`, ...).
    pub fn is_keyword(self) -> bool {
        (self.0 as usize) < KEYWORDS.len() && self != Sym::NOOP && self != Sym::RANDOM
    }

    /// The integer this symbol spells, if it is a non-negative decimal number (goal values).
    pub fn as_number(self) -> Option<u32> {
        let s = self.as_str();
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    }
}

impl Interner {
    fn intern(&mut self, name: &str) -> Sym {
        if let Some(&sym) = self.ids.get(name) {
            return sym;
        }
        let name: &'static str = Box::leak(name.to_owned().into_boxed_str());
        let sym = Sym(self.names.len() as u32);
        self.names.push(name);
        self.ids.insert(name, sym);
        sym
    }
}

fn table() -> &'static RwLock<Interner> {
    static TABLE: OnceLock<RwLock<Interner>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut interner = Interner { ids: FxHashMap::default(), names: Vec::new() };
        for word in KEYWORDS {
            interner.intern(word);
        }
        RwLock::new(interner)
    })
}

impl fmt::Display for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_have_fixed_indices() {
        for (i, word) in KEYWORDS.iter().enumerate() {
            assert_eq!(Sym::new(word).index() as usize, i);
        }
        assert_eq!(Sym::new("DOES"), Sym::DOES);
        assert!(Sym::DISTINCT.is_keyword());
        assert!(!Sym::NOOP.is_keyword());
    }

    #[test]
    fn interning_is_case_insensitive() {
        let a = Sym::new("xPlayer");
        assert_eq!(a, Sym::new("XPLAYER"));
        assert_eq!(a.as_str(), "xplayer");
        assert_ne!(a, Sym::new("oplayer"));
    }

    #[test]
    fn numbers() {
        assert_eq!(Sym::new("100").as_number(), Some(100));
        assert_eq!(Sym::new("-1").as_number(), None);
        assert_eq!(Sym::new("x1").as_number(), None);
    }
}
