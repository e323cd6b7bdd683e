//! Criterion benchmark: random playouts from the initial state, one thread, for the reference
//! reasoner and both propnet strategies, reported as playouts per second (criterion's
//! "elements/s"). `cargo bench -p propnet --bench playouts`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use propnet::runtime::{PropnetMachine, Strategy};
use std::path::Path;
use std::time::Duration;

/// The corpus games measured (stems of `../shared/games/*.kif`).
const GAMES: &[&str] = &["ticTacToe", "connectFour", "breakthrough", "speedChess"];

fn playouts(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/games");
    for game in GAMES {
        let Ok(bytes) = std::fs::read(dir.join(format!("{game}.kif"))) else {
            eprintln!("WARNING: ../shared/games/{game}.kif not found: not benchmarked");
            continue;
        };
        let (desc, _) = gdl::load(game, &String::from_utf8_lossy(&bytes)).expect("valid game");
        let net = propnet::compile(&desc, &propnet::Limits::default()).expect("net builds");
        let mut group = c.benchmark_group(format!("playouts/{game}"));
        group.sample_size(10).measurement_time(Duration::from_secs(4)).warm_up_time(Duration::from_secs(1));

        let mut r = reasoner::Reasoner::new(&desc);
        group.throughput(Throughput::Elements(8));
        group.bench_function(BenchmarkId::new("reasoner", 8), |b| {
            let mut seed = 0;
            b.iter(|| {
                seed += 1;
                machine::run_playouts(&mut r, 8, seed, 10_000).expect("playouts")
            })
        });

        let mut m = PropnetMachine::new(&net);
        // 1,024 bit-sliced playouts a run take the wide marking (on nets of 512 slots or more),
        // 64 one word.
        let runs = [
            ("bitsliced", Strategy::BitSliced, 1024),
            ("bitsliced", Strategy::BitSliced, 64),
            ("forward", Strategy::Forward, 64),
        ];
        for (name, strategy, count) in runs {
            m.set_strategy(strategy);
            group.throughput(Throughput::Elements(count));
            group.bench_function(BenchmarkId::new(name, count), |b| {
                let mut seed = 0;
                b.iter(|| {
                    seed += 1;
                    m.run_playouts(count, seed, 10_000).expect("playouts")
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, playouts);
criterion_main!(benches);
