//! `latchkey analyze`: the game structure latchkey discovers, reported for the person who wrote
//! the rules.

use crate::engine::build_propnet;
use crate::game;
use analysis::{Latch, LatchKind, Method};
use anyhow::{Context, Result};
use clap::ValueEnum;
use serde::Serialize;
use std::process::ExitCode;
use std::time::Instant;

/// Which latch-detection methods to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Methods {
    /// Only the shape of the next-value gates.
    Structural,
    /// Only enumeration of small upstream cones.
    Exact,
    /// Every method.
    All,
}

/// Cones with more than 2^EXACT_BITS markings are left to the other methods.
const EXACT_BITS: u32 = 16;

/// What `latchkey analyze` reports.
#[derive(Serialize)]
struct Report {
    game: String,
    /// Seconds spent per phase.
    timings: Vec<(String, f64)>,
    /// Every latch found, with every method that proved it.
    latches: Vec<Latch>,
}

/// Runs the analysis of `spec` and prints it.
pub fn run(spec: &str, methods: Methods, json: bool) -> Result<ExitCode> {
    let game = game::load(spec)?;
    let start = Instant::now();
    let net = build_propnet(&game).with_context(|| format!("cannot analyse {spec} without a propnet"))?;
    let mut timings = vec![("propnet".to_owned(), start.elapsed().as_secs_f64())];
    let mut latches = Vec::new();
    if methods != Methods::Exact {
        let t = Instant::now();
        latches.extend(analysis::structural_latches(&net));
        timings.push(("structural latches".to_owned(), t.elapsed().as_secs_f64()));
    }
    if methods != Methods::Structural {
        let t = Instant::now();
        latches.extend(analysis::exact_latches(&net, EXACT_BITS));
        timings.push(("exact latches".to_owned(), t.elapsed().as_secs_f64()));
    }
    latches.sort_by(|a, b| (a.kind, &a.name, a.method).cmp(&(b.kind, &b.name, b.method)));
    let report = Report { game: game.name, timings, latches };
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print(&report);
    }
    Ok(ExitCode::SUCCESS)
}

fn print(r: &Report) {
    println!("game       {}", r.game);
    for kind in [LatchKind::Positive, LatchKind::Negative] {
        let mut names: Vec<(&str, Vec<Method>)> = Vec::new();
        for l in r.latches.iter().filter(|l| l.kind == kind) {
            match names.last_mut() {
                Some((name, methods)) if *name == l.name => methods.push(l.method),
                _ => names.push((&l.name, vec![l.method])),
            }
        }
        let title = match kind {
            LatchKind::Positive => "positive latches (once true, true for good)",
            LatchKind::Negative => "negative latches (once false, false for good)",
        };
        println!("{title}: {}", names.len());
        for (name, methods) in names {
            let how: Vec<&str> = methods
                .iter()
                .map(|m| match m {
                    Method::Structural => "structural",
                    Method::Exact => "exact",
                })
                .collect();
            println!("  {name:<40} {}", how.join(", "));
        }
    }
    for (phase, secs) in &r.timings {
        println!("{phase:<20} {secs:.3} s");
    }
}
