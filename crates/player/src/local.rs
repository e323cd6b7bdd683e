//! The local search's thread beside the tree search (the Sancho blog, July 2015). Between
//! slices of tree search the thinking thread hands it the "interesting" positions — the current
//! state with the move that led to it, and the state after the move the tree thinks most likely
//! with that move — and marks the tree with what comes back: a move that wins by force gets a
//! bonus in selection, one that loses by force a discount (see `MctsConfig::local_weight`).
//! Requests are small and rare (a few states a second), so the two threads share nothing but
//! two channels and a flag.

use analysis::Locality;
use machine::StateMachine;
use propnet::{Net, Program, PropnetMachine, PropnetState};
use search::mcts::Mcts;
use search::LocalSearch;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long the local search may spend on one position for one role before it turns to the
/// next (a new request stops it sooner).
const PER_SEARCH: Duration = Duration::from_secs(2);

/// How often the targets are looked at again while the root stays the same.
const RETARGET: Duration = Duration::from_secs(2);

/// The deepest iteration, in the searching role's own moves.
const MAX_DEPTH: u32 = 24;

/// A position to search and the move that locates it.
#[derive(Clone, PartialEq, Eq)]
struct Target {
    state: PropnetState,
    seed: Option<u32>,
}

/// What a search proved at a state: moves of the player to move there, and whether each wins
/// (else loses) by force.
struct Found {
    state: PropnetState,
    marks: Vec<(u32, bool)>,
}

/// The thinking thread's end of the local search.
pub(crate) struct LocalWorker {
    requests: Option<Sender<Vec<Target>>>,
    results: Receiver<Found>,
    cancel: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    machine: PropnetMachine,
    targets: Vec<Target>,
    targeted: Instant,
}

impl LocalWorker {
    /// Starts the local search's thread for the game of `net`.
    pub fn spawn(net: Arc<Net>, program: Arc<Program>, locality: Arc<Locality>) -> std::io::Result<LocalWorker> {
        let (requests, inbox) = mpsc::channel::<Vec<Target>>();
        let (outbox, results) = mpsc::channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let mut search = LocalSearch::new(net, Arc::clone(&program), locality);
        search.set_cancel(Arc::clone(&cancel));
        let flag = Arc::clone(&cancel);
        let thread = std::thread::Builder::new().name("local search".to_owned()).spawn(move || {
            serve(&mut search, &inbox, &outbox, &flag);
        })?;
        Ok(LocalWorker {
            requests: Some(requests),
            results,
            cancel,
            thread: Some(thread),
            machine: PropnetMachine::from_program(program),
            targets: Vec::new(),
            targeted: Instant::now(),
        })
    }

    /// Marks the tree with the results that arrived, and sends new targets when the root moved
    /// on or the likeliest next move changed. `last` is the joint move that led to the root.
    pub fn between(&mut self, mcts: &mut Mcts<PropnetMachine>, last: Option<&[u32]>) {
        while let Ok(found) = self.results.try_recv() {
            mcts.mark_local(&found.state, &found.marks);
        }
        let root = mcts.root_state().clone();
        let moved = self.targets.first().is_none_or(|t| t.state != root);
        if !moved && self.targeted.elapsed() < RETARGET {
            return;
        }
        let Some(mover) = mcts.root_mover() else { return };
        // The other role moved last (the search runs only in two-player games).
        let seed = last.and_then(|joint| joint.get(1 - mover.min(1)).copied());
        let mut targets = vec![Target { state: root.clone(), seed }];
        let likeliest = mcts.move_stats(mover).into_iter().max_by_key(|s| s.visits).map(|s| s.mv);
        if let Some(mv) = likeliest {
            let others: Option<Vec<u32>> = (0..mcts.machine().roles().len())
                .map(|r| if r == mover { Some(mv) } else { self.machine.legal_moves(&root, r).ok()?.first().copied() })
                .collect();
            if let Some(next) = others.and_then(|joint| self.machine.next_state(&root, &joint).ok()) {
                targets.push(Target { state: next, seed: Some(mv) });
            }
        }
        self.targeted = Instant::now();
        if targets == self.targets {
            return;
        }
        self.targets = targets.clone();
        // Set before sending: the thread clears it once it has the new targets.
        self.cancel.store(true, Ordering::Relaxed);
        if let Some(requests) = &self.requests {
            let _ = requests.send(targets);
        }
    }
}

impl Drop for LocalWorker {
    fn drop(&mut self) {
        self.requests = None;
        self.cancel.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The thread: searches the latest targets for each role until new ones come or the channel
/// closes.
fn serve(search: &mut LocalSearch, inbox: &Receiver<Vec<Target>>, outbox: &Sender<Found>, cancel: &AtomicBool) {
    let Ok(mut targets) = inbox.recv() else { return };
    loop {
        loop {
            match inbox.try_recv() {
                Ok(newer) => targets = newer,
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => return,
            }
        }
        cancel.store(false, Ordering::Relaxed);
        'targets: for target in &targets {
            for role in 0..2 {
                let deadline = Instant::now() + PER_SEARCH;
                let Ok(result) = search.search(&target.state, role, target.seed, MAX_DEPTH, deadline) else { continue };
                if !result.decided.is_empty() {
                    let marks = result.decided.iter().map(|&(mv, _)| (mv, result.to_move)).collect();
                    if outbox.send(Found { state: target.state.clone(), marks }).is_err() {
                        return;
                    }
                }
                if cancel.load(Ordering::Relaxed) {
                    break 'targets;
                }
            }
        }
        if cancel.load(Ordering::Relaxed) {
            continue;
        }
        // Everything searched as deep as it went: wait for the next targets.
        match inbox.recv() {
            Ok(newer) => targets = newer,
            Err(_) => return,
        }
    }
}
