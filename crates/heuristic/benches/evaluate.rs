//! Criterion benchmark: fuzzy goal evaluations per second (criterion's "elements/s") on random
//! reachable states of corpus games, for the compiled circuit, the circuit refined by latches,
//! and the plain recursive evaluator it is tested against (the baseline, measured in the same
//! run). linesOfAction, whose goals are recursive (connectivity), shows what iterating to a
//! fixpoint costs; its plain evaluation is too slow to sample. `cargo bench -p heuristic --bench
//! evaluate`.

use analysis::{Analysis, AnalysisConfig};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use heuristic::{Formulas, FuzzyGoals, Params};
use machine::StateMachine;
use propnet::{PropnetMachine, PropnetState};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::hint::black_box;
use std::time::Duration;

/// The corpus games measured (stems of `../shared/games/*.kif`), how many states each iteration
/// evaluates, and whether the plain evaluator is measured too.
const GAMES: &[(&str, usize, bool)] =
    &[("ticTacToe", 256, true), ("connectFour", 256, true), ("breakthrough", 256, true), ("linesOfAction", 16, false)];

/// States of random games from the initial state, every state of each game in turn.
fn random_states(m: &mut PropnetMachine, count: usize) -> Vec<PropnetState> {
    let mut rng = SmallRng::seed_from_u64(1);
    let mut states = Vec::new();
    let mut state = m.initial_state();
    while states.len() < count {
        states.push(state.clone());
        let mut joint = Vec::new();
        for role in 0..m.roles().len() {
            let legal = m.legal_moves(&state, role).expect("legal moves");
            if legal.is_empty() {
                break;
            }
            joint.push(legal[rng.random_range(0..legal.len())]);
        }
        let ended = joint.len() < m.roles().len() || m.is_terminal(&state).expect("terminal");
        state = if ended { m.initial_state() } else { m.next_state(&state, &joint).expect("next state") };
    }
    states
}

fn evaluations(c: &mut Criterion) {
    let Some(shared) = testkit::shared::locate(env!("CARGO_MANIFEST_DIR"), "heuristic benchmark") else { return };
    for &(game, count, plain_too) in GAMES {
        let text = testkit::shared::read_text(&shared.join(format!("games/{game}.kif"))).expect("corpus game");
        let (desc, _) = gdl::load(game, &text).expect("valid game");
        let net = propnet::compile(&desc, &propnet::Limits::default()).expect("net builds");
        let states = random_states(&mut PropnetMachine::new(&net), count);
        let params = Params::default();
        let formulas = Formulas::new(&desc, &net, &propnet::Limits::default()).expect("formulas");
        let analysis =
            Analysis::run(&net, &desc, &AnalysisConfig { proof: false, ..AnalysisConfig::default() }, &mut |_| {});
        let plain = FuzzyGoals::compile(&formulas, &params).expect("compiles");
        let latched = plain.clone().with_latches(&net, &analysis);

        let mut group = c.benchmark_group(format!("evaluate/{game}"));
        group.sample_size(10).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
        group.throughput(Throughput::Elements(count as u64));
        for (name, mut goals) in [("circuit", plain), ("circuit+latches", latched)] {
            group.bench_function(BenchmarkId::new(name, count), |b| {
                b.iter(|| states.iter().map(|s| goals.value(s, 0)).sum::<f64>())
            });
        }
        if plain_too {
            group.bench_function(BenchmarkId::new("recursive", count), |b| {
                b.iter(|| states.iter().map(|s| black_box(formulas.evaluate(s, &params)).len()).sum::<usize>())
            });
        }
        group.finish();
    }
}

criterion_group!(benches, evaluations);
criterion_main!(benches);
