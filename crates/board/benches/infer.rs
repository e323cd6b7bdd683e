//! Criterion benchmark: board inference with the commands' budget (`Budget::standard`: eight
//! random games of 200 joint moves at most, two seconds at most), on the propnet, for every
//! corpus game whose net builds. The net is built and compiled before the clock starts, as a
//! player's game is (the commands infer on the game's machine); each run gets a fresh machine
//! over the compiled program.
//! `cargo bench -p board --bench infer`.

use board::Budget;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use propnet::{Program, PropnetMachine};
use std::sync::Arc;
use std::time::Duration;

fn inference(c: &mut Criterion) {
    let Some(shared) = testkit::shared::locate(env!("CARGO_MANIFEST_DIR"), "board inference benchmark") else {
        return;
    };
    let mut group = c.benchmark_group("board/infer");
    group.sample_size(10).measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(500));
    for path in testkit::shared::games_with_propnet(&shared) {
        let stem = testkit::shared::stem(&path);
        let text = testkit::shared::read_text(&path).expect("readable game");
        let Ok((desc, _)) = gdl::load(&stem, &text) else { continue };
        let Some(net) = testkit::shared::compile(&path) else { continue };
        let program = Arc::new(Program::new(&net));
        group.bench_function(BenchmarkId::from_parameter(&stem), |b| {
            b.iter(|| {
                let mut m = PropnetMachine::from_program(Arc::clone(&program));
                board::infer(&desc, &mut m, Budget::standard()).expect("the rules run")
            })
        });
    }
    group.finish();
}

criterion_group!(benches, inference);
criterion_main!(benches);
