//! How commands print JSON: one object per run, carrying the `schema` number of its shape, which
//! changes whenever a field changes meaning or goes away, so scripts can tell what they read.

use anyhow::{Context, Result};
use serde::Serialize;

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
