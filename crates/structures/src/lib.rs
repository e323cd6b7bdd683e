//! Small data structures the engine's crates share, so that each is written once.

pub mod bits;
mod scc;
mod union_find;

pub use self::bits::Bits;
pub use self::scc::Components;
pub use self::union_find::UnionFind;
