//! How commands print JSON: one object per run, carrying the `schema` number of its shape, which
//! changes whenever a field changes meaning or goes away, so scripts can tell what they read.

use anyhow::{Context, Result};
use serde::Serialize;
use std::time::Duration;

/// A report with its schema number in front of its own fields.
#[derive(Serialize)]
struct Versioned<'a, T: Serialize> {
    schema: u32,
    #[serde(flatten)]
    report: &'a T,
}

/// Prints `report` (a struct) as pretty JSON with `"schema": schema` as its first field.
pub fn print_json<T: Serialize>(schema: u32, report: &T) -> Result<()> {
    let text = serde_json::to_string_pretty(&Versioned { schema, report }).context("cannot print JSON")?;
    println!("{text}");
    Ok(())
}

/// Parses a time limit: a finite, non-negative number of seconds.
pub fn seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if (0.0..1e9).contains(&s) => Ok(s),
        Ok(_) => Err("must be a number of seconds between 0 and 10^9".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// A game clock's seconds: above 0, since a clock of 0 leaves no time to answer at all.
pub fn clock_seconds(text: &str) -> Result<f64, String> {
    match seconds(text)? {
        s if s > 0.0 => Ok(s),
        _ => Err("must be a number of seconds above 0".into()),
    }
}

/// A number of games or matches: at least one.
pub fn count(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// A clock given in seconds as a duration; `what` names it in the error.
pub fn clock(secs: f64, what: &str) -> Result<Duration> {
    Duration::try_from_secs_f64(secs).with_context(|| format!("the {what} must be a number of seconds, not {secs}"))
}

/// A clock in seconds, to the hundredth where it is not whole.
pub fn seconds_text(d: Duration) -> String {
    match d.subsec_nanos() {
        0 => d.as_secs().to_string(),
        _ => format!("{:.2}", d.as_secs_f64()),
    }
}
