//! Criterion benchmark: guided playouts from the initial state, one thread, with the tactics
//! (and where random games find them, the pieces' captures), stepped one state at a time by
//! forward propagation, 64 candidates a pass by a stepper over the game's net, and whichever of
//! the two the playouts' own timing finds faster (the player's way): the same playouts
//! (criterion's "elements/s" are playouts/s). `cargo bench -p metagame --bench guided`.

use analysis::GoalLatches;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use machine::StateMachine;
use metagame::playout::{self, Lookahead, Settings};
use metagame::{Knowledge, Pieces};
use propnet::PropnetMachine;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use std::time::{Duration, Instant};

/// A way of stepping the playouts: the look-ahead tools that take it.
type Way = fn() -> Lookahead;

/// The corpus games measured (stems of `../shared/games/*.kif`) and playouts per sample.
const GAMES: &[(&str, u64)] = &[("connectFour", 200), ("breakthrough", 50), ("checkers", 20), ("skirmish", 10)];

fn playouts(c: &mut Criterion) {
    for &(game, count) in GAMES {
        // Without the corpus it says so and the game is skipped.
        let Some(net) = testkit::shared::net(env!("CARGO_MANIFEST_DIR"), game) else { continue };
        let mut latches = analysis::structural_latches(&net);
        latches.extend(analysis::exact_latches(&net, 16, &[]));
        let mut knowledge = Knowledge::new(&net, GoalLatches::new(&net, &latches, None), true);
        let pieces = Pieces::discover(&net, Instant::now() + Pieces::TIME, 0).ok();
        let captures = if pieces.is_some() { 0.5 } else { 0.0 };
        if let Some(p) = pieces {
            knowledge = knowledge.with_pieces(&net, p);
        }
        let settings = Settings {
            max_steps: 10_000,
            trace: false,
            knowledge: None,
            deadline: None,
            mast: None,
            cutoff: None,
            captures,
        };
        let mut group = c.benchmark_group(format!("guided/{game}"));
        group.sample_size(10).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
        group.throughput(Throughput::Elements(count));
        let ways: [(&str, Way); 3] = [
            ("one state", Lookahead::one_state_at_a_time),
            ("stepped", Lookahead::stepped),
            ("timed", Lookahead::default),
        ];
        for (name, way) in ways {
            let mut m = PropnetMachine::new(&net);
            let start = m.initial_state();
            let mut look = way();
            let mut rng = SmallRng::seed_from_u64(1);
            group.bench_function(BenchmarkId::new(name, count), |b| {
                b.iter(|| {
                    for _ in 0..count {
                        playout::guided(&mut m, &mut look, &start, &knowledge, &mut rng, &settings)
                            .expect("plays")
                            .expect("no deadline");
                    }
                })
            });
        }
        group.finish();
    }
    analysis::wait_for_abandoned_proofs();
}

criterion_group!(benches, playouts);
criterion_main!(benches);
