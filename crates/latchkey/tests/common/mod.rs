//! Running the `latchkey` binary from integration tests.
#![allow(dead_code)] // each test file uses its own part

use std::process::{Command, Output};
#[allow(unused_imports)] // as dead_code above: not every test file writes files
pub use testkit::Scratch;

/// Runs `latchkey` with `args`.
pub fn latchkey(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_latchkey")).args(args).output().expect("the binary runs")
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs `latchkey` with `args`, which must succeed and print JSON.
pub fn json(args: &[&str]) -> serde_json::Value {
    let o = latchkey(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).expect("JSON")
}
