//! Criterion benchmark: board inference with the commands' budget (`Budget::standard`: eight
//! random games of 200 joint moves at most, two seconds at most), on the propnet, for every
//! corpus game whose net builds. The net is built before the clock starts.
//! `cargo bench -p board --bench infer`.

use board::Budget;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use propnet::PropnetMachine;
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
        group.bench_function(BenchmarkId::from_parameter(&stem), |b| {
            b.iter(|| board::infer(&desc, &mut PropnetMachine::new(&net), Budget::standard()).expect("the rules run"))
        });
    }
    group.finish();
}

criterion_group!(benches, inference);
criterion_main!(benches);
