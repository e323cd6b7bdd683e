//! Small data structures the engine's crates share, so that each is written once.

mod scc;
mod union_find;

pub use self::scc::Components;
pub use self::union_find::UnionFind;
