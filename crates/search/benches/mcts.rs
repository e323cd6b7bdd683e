//! Criterion benchmark: MCTS iterations per second from the initial state, one thread, with
//! and without the analysis, the playouts' tactics, move averages (MAST) steering them and the
//! roles' pieces as the tree's priors (where random games find them), guided playouts cut off
//! after [`CUTOFF`] joint moves and scored by those pieces, the pieces' placement beside their
//! number (the player's configuration), the same with playouts preferring captures, and with
//! playouts guided for the pieces alone (no tactics); where
//! there are no pieces, the fuzzy goal
//! heuristic's outlook as the priors instead; and with all-moves-as-first statistics (RAVE)
//! and the rivalry bonus, each on plain and tactical search; where several roles choose at
//! once from the start, with the others answering the first role's move (criterion's
//! "elements/s" are iterations/s). Each sample searches a fresh tree.
//! `cargo bench -p search --bench mcts`.

use analysis::{Analysis, AnalysisConfig};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use machine::StateMachine;
use metagame::{Knowledge, LeadSource, Outlook, Pieces};
use propnet::{Program, PropnetMachine};
use search::mcts::{Mcts, MctsConfig};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The corpus games measured (stems of `../shared/games/*.kif`) and iterations per sample.
/// escortLatch is breakthrough with kings, and goal latches (Sancho's example); alquerque and
/// skirmish have goal latches too, skirmish a terminal that reads the whole board.
const GAMES: &[(&str, u64)] = &[
    ("ticTacToe", 2_000),
    ("ticTacToeParallel", 2_000),
    ("tron_10x10", 500),
    ("nineBoardTicTacToe", 500),
    ("connectFour", 2_000),
    ("breakthrough", 500),
    ("knightThrough", 500),
    ("escortLatch", 200),
    ("alquerque", 200),
    ("skirmish", 200),
    ("dotsAndBoxes", 500),
    ("englishDraughts", 200),
    ("speedChess", 200),
];

/// The weight of the all-moves-as-first variants (the player's setting).
const RAVE: f64 = 0.05;

/// The bonus of the rivalry variants (the player's setting).
const RIVALRY: f64 = 2.0;

/// The greedy chance of the move-average variants.
const MAST: f64 = 0.6;

/// Joint moves after which the cutoff variant's guided playouts stop (the player's setting).
const CUTOFF: u32 = 10;

/// The placement weight of the player's variant (the player's setting).
const PLACEMENT: f64 = 1.0;

/// The chance of the capturing variant's playouts playing the move that gains the most
/// material.
const CAPTURES: f64 = 0.5;

fn iterations(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/games");
    for &(game, count) in GAMES {
        let Ok(bytes) = std::fs::read(dir.join(format!("{game}.kif"))) else {
            eprintln!("WARNING: ../shared/games/{game}.kif not found: not benchmarked");
            continue;
        };
        let (desc, _) = gdl::load(game, &String::from_utf8_lossy(&bytes)).expect("valid game");
        let net = propnet::compile(&desc, &propnet::Limits::default()).expect("net builds");
        let options =
            AnalysisConfig { deadline: Some(Instant::now() + Duration::from_secs(10)), ..AnalysisConfig::default() };
        let analysis = Analysis::run(&net, &desc, &options, &mut |_| {});
        let program = Arc::new(Program::new(&net));
        let mut group = c.benchmark_group(format!("mcts/{game}"));
        group.sample_size(10).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
        group.throughput(Throughput::Elements(count));
        let knowledge = |tactics| Some(Arc::new(Knowledge::new(&net, analysis.goals.clone(), tactics)));
        let pieces = Pieces::discover(&net, Instant::now() + Pieces::TIME, 0).ok();
        let with_pieces = |tactics| {
            let pieces = pieces.clone()?;
            Some(Some(Arc::new(Knowledge::new(&net, analysis.goals.clone(), tactics).with_pieces(&net, pieces))))
        };
        let plain = MctsConfig { threads: 1, ..MctsConfig::default() };
        let mast = MctsConfig { mast: MAST, ..plain.clone() };
        let mut variants = vec![
            ("plain", None, plain.clone()),
            ("analysis", knowledge(false), plain.clone()),
            ("tactics", knowledge(true), plain.clone()),
            ("plain+mast", None, mast.clone()),
            ("tactics+mast", knowledge(true), mast.clone()),
            ("plain+rave", None, MctsConfig { rave: RAVE, ..plain.clone() }),
            ("tactics+rave", knowledge(true), MctsConfig { rave: RAVE, ..plain.clone() }),
            ("plain+rivalry", None, MctsConfig { rivalry: RIVALRY, ..plain.clone() }),
            ("tactics+rivalry", knowledge(true), MctsConfig { rivalry: RIVALRY, ..plain.clone() }),
        ];
        let mut m = PropnetMachine::from_program(Arc::clone(&program));
        let start = m.initial_state();
        let choosers = (0..m.roles().len()).filter(|&r| m.legal_moves(&start, r).map_or(0, |l| l.len()) > 1);
        if choosers.count() > 1 {
            let paranoid = MctsConfig { leader: Some(0), ..plain.clone() };
            variants.push(("plain+paranoid", None, paranoid.clone()));
            variants.push(("tactics+paranoid", knowledge(true), paranoid));
        }
        if let (Some(untactical), Some(tactics)) = (with_pieces(false), with_pieces(true)) {
            let cutoff = MctsConfig { cutoff: CUTOFF, ..mast.clone() };
            variants.push(("analysis+pieces", untactical, plain));
            variants.push(("tactics+mast+pieces", tactics.clone(), mast));
            variants.push(("tactics+mast+pieces+cutoff", tactics.clone(), cutoff.clone()));
            let placement = MctsConfig { placement: PLACEMENT, ..cutoff.clone() };
            variants.push(("tactics+mast+pieces+cutoff+placement", tactics.clone(), placement.clone()));
            let captures = MctsConfig { captures: CAPTURES, ..placement };
            variants.push(("tactics+mast+pieces+cutoff+placement+captures", tactics, captures.clone()));
            // Playouts guided for the pieces alone (no tactics), as the player runs them where
            // nothing else guides them.
            let alone = pieces.clone().map(|p| {
                let knowledge = Knowledge::new(&net, analysis.goals.clone(), false).with_pieces(&net, p);
                Arc::new(knowledge.with_guided_captures(&net))
            });
            let config = MctsConfig { mast: 0.0, ..captures };
            variants.push(("pieces+guided+cutoff+placement+captures", alone, config));
        } else {
            // The outlook is confirmed on games played as the knowledge's playouts play them, and
            // then joins that knowledge, as in the player.
            let tactics = Knowledge::new(&net, analysis.goals.clone(), true);
            let fuzzy = Outlook::heuristic(&desc, &net, &analysis, Instant::now() + Duration::from_secs(10));
            let deadline = Instant::now() + Outlook::TIME;
            let source = fuzzy.map(LeadSource::Fuzzy);
            if let Some(Ok(outlook)) = source.map(|f| Outlook::discover(&net, f, Some(&tactics), deadline, 0)) {
                variants.push(("tactics+mast+outlook", Some(Arc::new(tactics.with_outlook(outlook))), mast));
            }
        }
        for (name, knowledge, config) in variants {
            group.bench_function(BenchmarkId::new(name, count), |b| {
                let mut seed = 0;
                b.iter(|| {
                    seed += 1;
                    let config = MctsConfig { seed, ..config.clone() };
                    let mut mcts = Mcts::new(Arc::clone(&program), knowledge.clone(), config).expect("starts");
                    mcts.search_iterations(count).expect("searches")
                })
            });
        }
        group.finish();
    }
    analysis::wait_for_abandoned_proofs();
}

criterion_group!(benches, iterations);
criterion_main!(benches);
