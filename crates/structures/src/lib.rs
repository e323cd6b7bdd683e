//! Small data structures the engine's crates share, so that each is written once.

mod union_find;

pub use self::union_find::UnionFind;
