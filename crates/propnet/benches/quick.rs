//! Quick release-mode harness: random playouts per second from the initial state, one thread,
//! for the reference reasoner and each propnet strategy, measured in the same run.
//!
//! `cargo bench -p propnet --bench quick -- [--secs S] [--no-opt] [GAME...]` (corpus stems; by
//! default ticTacToe, connectFour and breakthrough).

use machine::StateMachine;
use propnet::runtime::{PropnetMachine, Strategy};
use std::path::Path;
use std::time::{Duration, Instant};

/// Runs batches of `batch` playouts until `secs` have passed; returns playouts/s.
fn rate(secs: f64, batch: u64, mut run: impl FnMut(u64, u64) -> u64) -> (f64, f64) {
    let start = Instant::now();
    let (mut n, mut states, mut seed) = (0u64, 0u64, 1u64);
    while start.elapsed().as_secs_f64() < secs {
        states += run(batch, seed);
        n += batch;
        seed += 1;
    }
    let t = start.elapsed().as_secs_f64();
    (n as f64 / t, states as f64 / n as f64)
}

/// Joint-move applications per second of perft (legal moves, next state, terminal per node:
/// the single-state query path search uses), up to depth 6 or `secs`.
fn perft_rate<M: StateMachine>(m: &mut M, secs: f64) -> f64 {
    let start = Instant::now();
    let limits = machine::PerftLimits { max_expansions: None, deadline: Some(start + Duration::from_secs_f64(secs)) };
    let result = machine::perft(m, 6, &limits).expect("perft");
    result.expansions as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let mut secs = 3.0;
    let mut optimise = true;
    let mut games = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--secs" => secs = args.next().and_then(|s| s.parse().ok()).expect("--secs S"),
            "--no-opt" => optimise = false,
            "--bench" => {}
            _ => games.push(a),
        }
    }
    if games.is_empty() {
        games = ["ticTacToe", "connectFour", "breakthrough"].map(String::from).to_vec();
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/games");
    println!(
        "{:20} {:>12} {:>12} {:>12} {:>9} {:>9} {:>7}",
        "game", "reasoner/s", "bitsliced/s", "forward/s", "bs/rsn", "fw/rsn", "length"
    );
    for game in games {
        let text =
            String::from_utf8_lossy(&std::fs::read(dir.join(format!("{game}.kif"))).expect("game file")).into_owned();
        let (desc, _) = gdl::load(&game, &text).expect("valid game");
        let t = Instant::now();
        let limits = propnet::Limits { deadline: Some(Instant::now() + Duration::from_secs(60)), ..Default::default() };
        let net = match propnet::build(&desc, &limits) {
            Ok(net) => net,
            Err(e) => {
                println!("{game:20} no net: {e}");
                continue;
            }
        };
        let built = t.elapsed();
        let t = Instant::now();
        let net = if optimise { propnet::optimize::optimize(&net).0 } else { net };
        let optimised = t.elapsed();
        let t = Instant::now();
        let mut m = PropnetMachine::new(&net);
        let compiled = t.elapsed();
        eprintln!(
            "{game}: build {built:.2?}, optimise {optimised:.2?}, compile {compiled:.2?}; {}; {:?}",
            net.counts(),
            m.program().stats()
        );
        let mut r = reasoner::Reasoner::new(&desc);
        let (rsn, rlen) =
            rate(secs, 20, |n, seed| machine::run_playouts(&mut r, n, seed, 10_000).expect("reasoner").states);
        m.set_strategy(Strategy::BitSliced);
        let (bs, blen) = rate(secs, 1024, |n, seed| m.run_playouts(n, seed, 10_000).expect("propnet").states);
        m.set_strategy(Strategy::Forward);
        let (fw, flen) = rate(secs, 256, |n, seed| m.run_playouts(n, seed, 10_000).expect("propnet").states);
        let rp = perft_rate(&mut r, secs);
        let pp = perft_rate(&mut m, secs);
        println!(
            "{game:20} {rsn:>12.0} {bs:>12.0} {fw:>12.0} {:>9.1} {:>9.1} {:>7.1}  (lengths {rlen:.1}/{blen:.1}/{flen:.1}); \
             single-state perft: reasoner {rp:.0}/s, propnet {pp:.0}/s ({:.1}x)",
            bs / rsn,
            fw / rsn,
            blen,
            pp / rp
        );
    }
}
