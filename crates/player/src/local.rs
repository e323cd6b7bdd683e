//! The local search's thread beside the tree search (the Sancho blog, July 2015). Between
//! slices of tree search the thinking thread hands it the "interesting" positions — the current
//! state, and the state after the move the tree thinks most likely among those not yet decided,
//! searched around that move — and marks the tree with what comes back: a move that wins by
//! force gets a bonus in selection, one that loses by force a discount (see
//! `MctsConfig::local_weight`). A forced win proved after the likeliest move marks that move at
//! the root too, as the blog marks the seed move's node: it wins there if its own player wins,
//! and loses if the other does; the next likeliest move is then searched around at once.
//!
//! The blog locates the current state's search around the move that led to it. Here it covers
//! the whole board: there it judges every move of the player to move, and the threat a move
//! lets in lies around that move, not around the opponent's last one. Over the closing moves of
//! ten Breakthrough matches against the Sancho player, the whole-board search proved 888 of our
//! moves losing within half a second each where the located one proved 714 (BENCHMARKS.md).
//! Requests are small and rare (a few states a second), so the two threads share nothing but
//! two channels and a flag.

use analysis::Locality;
use machine::StateMachine;
use propnet::{Net, Program, PropnetMachine, PropnetState};
use search::mcts::{Mcts, MoveStats};
use search::{LocalResult, LocalSearch};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often the targets are looked at again while the root stays the same.
const RETARGET: Duration = Duration::from_secs(2);

/// How long one iteration may run when nothing newer stops it.
const PER_ITERATION: Duration = Duration::from_secs(30);

/// The deepest iteration, in the searching role's own moves.
const MAX_DEPTH: u32 = 24;

/// How many roots in a row the searches must prove nothing at before the thread keeps to its
/// idle share.
const QUIET_ROOTS: u32 = 2;

/// The shares of processor time the local search's thread keeps to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Share {
    /// While its searches prove something: a move won or lost by force at one of the last
    /// [`QUIET_ROOTS`] roots.
    pub busy: f64,
    /// While they have proved nothing at the last [`QUIET_ROOTS`] roots (the middlegame, where
    /// the forced lines are longer than its horizon and the time is the tree's).
    pub idle: f64,
}

/// A position to search and the move that locates it (none: the whole board).
#[derive(Clone, PartialEq, Eq)]
struct Target {
    state: PropnetState,
    seed: Option<u32>,
}

/// What a search proved at a state: moves of the player to move there, and whether each wins
/// (else loses) by force; and the role that wins from the state by force, once one is proved to.
struct Found {
    state: PropnetState,
    marks: Vec<(u32, bool)>,
    winner: Option<usize>,
}

/// A state searched around the move that leads to it from the root: a forced win there decides
/// that move at the root.
struct Seeded {
    root: PropnetState,
    mover: usize,
    mv: u32,
    state: PropnetState,
}

/// One search the thread runs: a target, a role, and what its iterations proved so far.
struct Job {
    target: Target,
    role: usize,
    /// The target's place in the latest request (the root's first).
    rank: u32,
    result: LocalResult,
    /// How many of `result.decided` have been sent.
    sent: usize,
    done: bool,
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
    /// Results for targeted states whose tree node did not exist yet when they came.
    pending: Vec<Found>,
    /// The states after the current root's likeliest moves that were searched around them.
    seeded: Vec<Seeded>,
}

impl LocalWorker {
    /// Starts the local search's thread for the game of `net`, searching at most `share` of
    /// the time.
    pub fn spawn(
        net: Arc<Net>,
        program: Arc<Program>,
        locality: Arc<Locality>,
        share: Share,
    ) -> std::io::Result<LocalWorker> {
        let (requests, inbox) = mpsc::channel::<Vec<Target>>();
        let (outbox, results) = mpsc::channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let mut search = LocalSearch::new(net, Arc::clone(&program), locality);
        search.set_cancel(Arc::clone(&cancel));
        let flag = Arc::clone(&cancel);
        let thread = std::thread::Builder::new().name("local search".to_owned()).spawn(move || {
            serve(&mut search, &inbox, &outbox, &flag, share);
        })?;
        Ok(LocalWorker {
            requests: Some(requests),
            results,
            cancel,
            thread: Some(thread),
            machine: PropnetMachine::from_program(program),
            targets: Vec::new(),
            targeted: Instant::now(),
            pending: Vec::new(),
            seeded: Vec::new(),
        })
    }

    /// Marks the tree with the results that arrived, and sends new targets when the root moved
    /// on, the likeliest next move changed, or the one searched around was decided.
    pub fn between(&mut self, mcts: &mut Mcts<PropnetMachine>) {
        for found in self.results.try_iter() {
            // The Sancho blog marks the seed move's node with the result: a forced win after the
            // likeliest move is a forced win or loss of that move at the root, where the
            // marks alone would only steer the reply below it.
            let winner = found.winner;
            let seeds = self.seeded.iter().filter(|s| s.state == found.state);
            for seed in seeds.filter(|_| winner.is_some()) {
                mcts.mark_local(&seed.root, &[(seed.mv, winner == Some(seed.mover))]);
            }
            self.pending.push(found);
        }
        let targets = &self.targets;
        self.pending.retain(|f| !mcts.mark_local(&f.state, &f.marks) && targets.iter().any(|t| t.state == f.state));
        let root = mcts.root_state().clone();
        let moved = self.targets.first().is_none_or(|t| t.state != root);
        if moved {
            self.seeded.clear();
        }
        let Some(mover) = mcts.root_mover() else { return };
        let stats = mcts.move_stats(mover);
        // A move the solver or the local search has decided needs no search around it: the
        // next most visited one does, as soon as the one searched is decided.
        let open = |s: &&MoveStats<u32>| s.proven.is_none() && s.local.is_none();
        let searched = self.targets.get(1).and_then(|t| t.seed);
        let decided = searched.is_some_and(|mv| stats.iter().any(|s| s.mv == mv && !open(&s)));
        if !moved && !decided && self.targeted.elapsed() < RETARGET {
            return;
        }
        let mut targets = vec![Target { state: root.clone(), seed: None }];
        let likeliest = stats.iter().filter(open).max_by_key(|s| s.visits).map(|s| s.mv);
        if let Some(mv) = likeliest {
            let others: Option<Vec<u32>> = (0..mcts.machine().roles().len())
                .map(|r| if r == mover { Some(mv) } else { self.machine.legal_moves(&root, r).ok()?.first().copied() })
                .collect();
            if let Some(next) = others.and_then(|joint| self.machine.next_state(&root, &joint).ok()) {
                if !self.seeded.iter().any(|s| s.state == next) {
                    self.seeded.push(Seeded { root: root.clone(), mover, mv, state: next.clone() });
                }
                targets.push(Target { state: next, seed: Some(mv) });
            }
        }
        self.targeted = Instant::now();
        if targets == self.targets {
            return;
        }
        self.targets = targets.clone();
        // A new root makes the iteration under way moot; a new likeliest move only adds a
        // target, so the thread takes it up when its iteration ends. Set before sending: the
        // thread clears it once it has the new targets.
        if moved {
            self.cancel.store(true, Ordering::Relaxed);
        }
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

/// The thread: deepens the searches of the latest targets, both roles at each, shallowest
/// first (the root's a step ahead of the rest, and at a state the mover's search before the
/// waiting role's), until new targets come or the channel closes. The mover's goes first because
/// a win it proves is played at once and costs a ply less at the same depth: after the root
/// moves, the waiting role's next iteration can take a second or more, and the pause after it
/// (then reckoned at three times that) longer, while the mover's finds a win in milliseconds
/// (a Breakthrough position where the player missed a forced win against the Sancho player,
/// replayed: 223 ms and its pause before a 17 ms win).
/// A search whose target is requested again resumes where it stopped. The thread keeps its
/// processor time to a share of the wall-clock time (see [`Governor`]): `share.busy` while a
/// search proved a move won or lost at this root or the one before, and `share.idle`
/// otherwise, so that the opening and a middlegame whose forced lines run past its horizon
/// leave the core to the tree.
fn serve(
    search: &mut LocalSearch,
    inbox: &Receiver<Vec<Target>>,
    outbox: &Sender<Found>,
    cancel: &Arc<AtomicBool>,
    share: Share,
) {
    let mut jobs: Vec<Job> = Vec::new();
    let mut pace = Pace::default();
    let governed = Arc::new(AtomicU64::new(pace.share(share).to_bits()));
    let mut governor = Governor::new(Arc::clone(&governed), Arc::clone(cancel));
    search.set_throttle(Box::new(move || governor.pause()));
    let mut newest = match inbox.recv() {
        Ok(targets) => Some(targets),
        Err(_) => return,
    };
    loop {
        loop {
            match inbox.try_recv() {
                Ok(targets) => newest = Some(targets),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => return,
            }
        }
        if let Some(targets) = newest.take() {
            cancel.store(false, Ordering::Relaxed);
            pace.targeted(&targets);
            jobs = retarget(search, jobs, targets);
        }
        let next =
            jobs.iter_mut().filter(|j| !j.done).min_by_key(|j| (j.result.depth + j.rank, j.rank, !j.result.to_move));
        let Some(job) = next else {
            // Everything searched as deep as it goes: wait for the next targets.
            match inbox.recv() {
                Ok(targets) => newest = Some(targets),
                Err(_) => return,
            }
            continue;
        };
        governed.store(pace.share(share).to_bits(), Ordering::Relaxed);
        let deadline = Instant::now() + PER_ITERATION;
        match search.deepen(&job.target.state, job.role, job.target.seed, &mut job.result, deadline) {
            Ok(finished) => {
                job.done = job.result.win.is_some() || job.result.depth >= MAX_DEPTH;
                // Stopped by the deadline rather than by new targets: deeper is out of reach.
                job.done |= !finished && !cancel.load(Ordering::Relaxed);
            }
            Err(_) => job.done = true,
        }
        // A search stops once it wins, so a win is new here.
        let won = job.result.win.is_some();
        if job.result.decided.len() > job.sent || won {
            let to_move = job.result.to_move;
            let marks = job.result.decided[job.sent..].iter().map(|&(mv, _)| (mv, to_move)).collect();
            job.sent = job.result.decided.len();
            let winner = won.then_some(job.role);
            pace.proved();
            if outbox.send(Found { state: job.target.state.clone(), marks, winner }).is_err() {
                return;
            }
        }
    }
}

/// Whether the searches have proved anything lately, which sets the share the thread keeps to.
struct Pace {
    /// Roots since the searches last proved a move won or lost.
    quiet: u32,
    /// The latest root targeted.
    root: Option<PropnetState>,
}

impl Default for Pace {
    /// Idle: the opening proves nothing.
    fn default() -> Pace {
        Pace { quiet: QUIET_ROOTS, root: None }
    }
}

impl Pace {
    /// Counts a new root when `targets` have one.
    fn targeted(&mut self, targets: &[Target]) {
        let first = targets.first().map(|t| &t.state);
        if first != self.root.as_ref() {
            self.root = first.cloned();
            self.quiet = self.quiet.saturating_add(1);
        }
    }

    /// A search proved a move won or lost at the current root.
    fn proved(&mut self) {
        self.quiet = 0;
    }

    /// The share to keep to now.
    fn share(&self, share: Share) -> f64 {
        if self.quiet < QUIET_ROOTS {
            share.busy
        } else {
            share.idle
        }
    }
}

/// The most processor time the thread saves up while it waits, so that a new root's first
/// iterations, where the quick wins are found, run at once.
const BURST: Duration = Duration::from_millis(250);

/// The longest the thread sleeps before it looks at its cancel flag again.
const NAP: Duration = Duration::from_millis(10);

/// Keeps the thread's processor time to a share of the wall-clock time, inside iterations as
/// well as between them: the search calls [`Governor::pause`] every thousand positions or so,
/// and it sleeps while the thread is ahead of its share. Resting between iterations instead
/// did not keep to it: a new root ended the rest, and an iteration ran until the root moved,
/// so at a nominal quarter, and at a tenth, the thread had 30–48% of the core through most of a
/// Breakthrough match (BENCHMARKS.md).
struct Governor {
    /// The share to keep to, as the bits of an `f64`: the thread changes it as its searches
    /// prove something or nothing.
    share: Arc<AtomicU64>,
    /// Set when the root moves: a pause ends at once.
    cancel: Arc<AtomicBool>,
    /// Seconds of processor time the thread may still use (negative: ahead of its share).
    credit: f64,
    /// When the credit was last reckoned, and the thread's processor time then.
    reckoned: Option<(Instant, Option<Duration>)>,
}

impl Governor {
    /// A governor keeping to the share in `share`, with a full burst to spend.
    fn new(share: Arc<AtomicU64>, cancel: Arc<AtomicBool>) -> Governor {
        Governor { share, cancel, credit: BURST.as_secs_f64(), reckoned: None }
    }

    /// Sleeps, in naps, while the thread has used more than its share, or until the cancel
    /// flag is set. Reckons from the first call, so it must be called on the governed thread.
    fn pause(&mut self) {
        self.reckon(false);
        while self.credit < 0.0 && !self.cancel.load(Ordering::Relaxed) {
            let share = f64::from_bits(self.share.load(Ordering::Relaxed));
            std::thread::sleep(Duration::from_secs_f64(-self.credit / share).min(NAP));
            self.reckon(true);
        }
    }

    /// Adds the share of the wall-clock time since the last reckoning to the credit and takes
    /// off the processor time used meanwhile (where the platform does not tell it, the time
    /// awake: none after a nap).
    fn reckon(&mut self, napped: bool) {
        let (now, cpu) = (Instant::now(), thread_time());
        if let Some((then, before)) = self.reckoned {
            let awake = if napped { Duration::ZERO } else { now - then };
            let used = cpu.zip(before).map_or(awake, |(cpu, before)| cpu.saturating_sub(before));
            let share = f64::from_bits(self.share.load(Ordering::Relaxed));
            let earned = share * (now - then).as_secs_f64();
            self.credit = (self.credit + earned - used.as_secs_f64()).min(BURST.as_secs_f64());
        }
        self.reckoned = Some((now, cpu));
    }
}

/// The processor time the calling thread has used, where the platform tells it.
fn thread_time() -> Option<Duration> {
    #[cfg(unix)]
    {
        let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `clock_gettime` only writes the `timespec` it is handed.
        let read = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) } == 0;
        read.then(|| Duration::new(u64::try_from(now.tv_sec).unwrap_or(0), u32::try_from(now.tv_nsec).unwrap_or(0)))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// The searches for `targets`: those of `jobs` whose target (state and region) is still
/// targeted, the rest begun afresh. A search around a move does not carry over to the same
/// state searched over the whole board (the root, once the likeliest move is played): its depth
/// says nothing of the moves outside its region.
fn retarget(search: &mut LocalSearch, mut jobs: Vec<Job>, targets: Vec<Target>) -> Vec<Job> {
    let mut kept = Vec::new();
    for (rank, target) in targets.into_iter().enumerate() {
        for role in 0..2 {
            let rank = rank as u32;
            if let Some(at) = jobs.iter().position(|j| j.role == role && j.target == target) {
                let mut job = jobs.swap_remove(at);
                job.rank = rank;
                kept.push(job);
                continue;
            }
            // A search that can prove nothing at the state (or cannot read it) is left out.
            if let Ok(Some(result)) = search.begin(&target.state, role) {
                kept.push(Job { target: target.clone(), role, rank, result, sent: 0, done: false });
            }
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use search::mcts::MctsConfig;

    /// A worker for `program`'s game without a thread: the test hands it results itself.
    fn idle_worker(program: Arc<Program>) -> (LocalWorker, Sender<Found>) {
        let (outbox, results) = mpsc::channel();
        let worker = LocalWorker {
            requests: None,
            results,
            cancel: Arc::new(AtomicBool::new(false)),
            thread: None,
            machine: PropnetMachine::from_program(program),
            targets: Vec::new(),
            targeted: Instant::now(),
            pending: Vec::new(),
            seeded: Vec::new(),
        };
        (worker, outbox)
    }

    #[test]
    fn a_forced_win_after_the_likeliest_move_decides_it_and_the_next_is_searched() {
        let net = testkit::bundled("breakthroughsmall").1;
        let program = Arc::new(Program::new(&net));
        let config = MctsConfig { threads: 1, seed: 7, ..MctsConfig::default() };
        let mut mcts = Mcts::new(Arc::clone(&program), None, config).unwrap();
        mcts.search_iterations(2_000).unwrap();
        let (mut worker, outbox) = idle_worker(Arc::clone(&program));
        worker.between(&mut mcts);
        assert_eq!(worker.seeded.len(), 1);
        let likeliest = worker.seeded[0].mv;
        let after = worker.seeded[0].state.clone();
        let mut m = PropnetMachine::from_program(program);
        let root = mcts.root_state().clone();
        let noop = m.legal_moves(&root, 1).unwrap()[0];
        assert_eq!(after, m.next_state(&root, &[likeliest, noop]).unwrap());
        assert_eq!(mcts.best_move(0), Some(likeliest));
        // Black, to move after it, is proved to win there: the move loses at the root, and the
        // next most visited move is searched around at once.
        outbox.send(Found { state: after.clone(), marks: Vec::new(), winner: Some(1) }).unwrap();
        worker.between(&mut mcts);
        assert_ne!(mcts.best_move(0), Some(likeliest));
        let stats = mcts.move_stats(0);
        assert_eq!(stats.iter().find(|s| s.mv == likeliest).unwrap().local, Some(false));
        let runner_up = stats.iter().filter(|s| s.mv != likeliest).max_by_key(|s| s.visits).unwrap().mv;
        assert_eq!(worker.targets[1].seed, Some(runner_up));
        assert_eq!(worker.seeded.len(), 2);
        // White is proved to win there whatever black plays: the move wins at the root.
        outbox.send(Found { state: after.clone(), marks: Vec::new(), winner: Some(0) }).unwrap();
        worker.between(&mut mcts);
        assert_eq!(mcts.best_move(0), Some(likeliest));
        // A win in a state not searched around a move, and a result without a winner, decide
        // nothing at the root.
        let other = stats.iter().map(|s| s.mv).find(|&mv| worker.seeded.iter().all(|s| s.mv != mv)).unwrap();
        let beside = m.next_state(&root, &[other, noop]).unwrap();
        outbox.send(Found { state: beside, marks: Vec::new(), winner: Some(0) }).unwrap();
        outbox.send(Found { state: after, marks: Vec::new(), winner: None }).unwrap();
        worker.between(&mut mcts);
        assert_eq!(mcts.best_move(0), Some(likeliest));
        assert!(mcts.move_stats(0).iter().all(|s| s.local.is_none() || s.mv == likeliest));
    }

    #[test]
    fn the_share_is_busy_from_a_proof_until_two_roots_prove_nothing() {
        let net = testkit::bundled("breakthroughsmall").1;
        let mut m = PropnetMachine::from_program(Arc::new(Program::new(&net)));
        let first = m.initial_state();
        let moves = m.legal_moves(&first, 0).unwrap();
        let noop = m.legal_moves(&first, 1).unwrap()[0];
        let roots: Vec<PropnetState> =
            moves[..2].iter().map(|&mv| m.next_state(&first, &[mv, noop]).unwrap()).collect();
        let at = |root: &PropnetState, seed: Option<u32>| {
            let mut targets = vec![Target { state: root.clone(), seed: None }];
            targets.extend(seed.map(|mv| Target { state: first.clone(), seed: Some(mv) }));
            targets
        };
        let share = Share { busy: 0.25, idle: 0.05 };
        let mut pace = Pace::default();
        assert_eq!(pace.share(share), 0.05, "the opening starts idle");
        pace.targeted(&at(&first, None));
        pace.proved();
        assert_eq!(pace.share(share), 0.25);
        // Another likeliest move at the same root is not a new root.
        pace.targeted(&at(&first, Some(moves[0])));
        pace.targeted(&at(&roots[0], None));
        assert_eq!(pace.share(share), 0.25, "busy at the root after a proof");
        pace.targeted(&at(&roots[1], Some(moves[1])));
        assert_eq!(pace.share(share), 0.05, "idle after two roots without one");
        pace.proved();
        assert_eq!(pace.share(share), 0.25);
    }

    #[cfg(unix)]
    #[test]
    fn the_governor_keeps_a_busy_thread_to_its_share_and_a_cancel_ends_a_pause() {
        let share = Arc::new(AtomicU64::new(0.25f64.to_bits()));
        let cancel = Arc::new(AtomicBool::new(false));
        let mut governor = Governor::new(Arc::clone(&share), Arc::clone(&cancel));
        let (started, before) = (Instant::now(), thread_time().expect("read on Unix"));
        let mut x = 0u64;
        while started.elapsed() < Duration::from_millis(1500) {
            for i in 0..20_000u64 {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
            }
            governor.pause();
        }
        // Busy work that pauses as the search does uses its share and its burst at most (a
        // loaded machine can only give it less); without the governor it would use all of it.
        let used = thread_time().unwrap().saturating_sub(before).as_secs_f64();
        let allowed = 0.25 * started.elapsed().as_secs_f64() + BURST.as_secs_f64() + 0.05;
        assert!(used <= allowed, "{used:.3} s of processor time in {:?}", started.elapsed());
        // Far ahead of its share, a pause still ends at once when the root moves.
        governor.credit = -100.0;
        cancel.store(true, Ordering::Relaxed);
        let paused = Instant::now();
        governor.pause();
        assert!(paused.elapsed() < Duration::from_secs(5));
    }

    #[cfg(unix)]
    #[test]
    fn a_threads_processor_time_is_read_and_grows_with_its_work() {
        let before = thread_time().expect("read on Unix");
        let mut x = 0u64;
        for i in 0..5_000_000u64 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
        }
        assert!(thread_time().expect("read on Unix") > before);
    }

    #[test]
    fn the_thread_says_who_wins_a_state_searched_around_a_move() {
        // White's pawn has just stepped to c5, from where it runs home unhindered.
        let net = Arc::new(testkit::bundled("breakthrough").1);
        let state = testkit::state_of(&net, &testkit::BREAKTHROUGH_FREE_RUN);
        let locality = Arc::new(Locality::analyse(&net, None).expect("no deadline"));
        let program = Arc::new(Program::new(&net));
        let step = PropnetMachine::from_program(Arc::clone(&program)).find_move(0, "(move 3 4 3 5)").unwrap();
        let mut search = LocalSearch::new(net, program, locality);
        let (requests, inbox) = mpsc::channel();
        let (outbox, results) = mpsc::channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&cancel);
        let thread =
            std::thread::spawn(move || serve(&mut search, &inbox, &outbox, &flag, Share { busy: 1.0, idle: 1.0 }));
        requests.send(vec![Target { state: state.clone(), seed: Some(step) }]).unwrap();
        let winner = loop {
            let found = results.recv_timeout(Duration::from_secs(60)).expect("a result within a minute");
            assert_eq!(found.state, state);
            if found.winner.is_some() {
                break found.winner;
            }
        };
        assert_eq!(winner, Some(0));
        drop(requests);
        cancel.store(true, Ordering::Relaxed);
        thread.join().unwrap();
    }

    #[test]
    fn a_search_around_a_move_is_not_carried_over_to_the_whole_board() {
        let net = Arc::new(testkit::bundled("breakthroughsmall").1);
        let locality = Arc::new(Locality::analyse(&net, None).expect("no deadline"));
        let program = Arc::new(Program::new(&net));
        let mut search = LocalSearch::new(Arc::clone(&net), Arc::clone(&program), locality);
        let mut m = PropnetMachine::from_program(program);
        let state = m.initial_state();
        let seed = m.legal_moves(&state, 0).unwrap()[0];
        let around = Target { state: state.clone(), seed: Some(seed) };
        let mut jobs = retarget(&mut search, Vec::new(), vec![around.clone()]);
        assert_eq!(jobs.len(), 2);
        let far = Instant::now() + Duration::from_secs(60);
        for job in &mut jobs {
            search.deepen(&job.target.state, job.role, job.target.seed, &mut job.result, far).unwrap();
            assert_eq!(job.result.depth, 1);
        }
        // Targeted again the same way, both searches resume where they stopped ...
        let jobs = retarget(&mut search, jobs, vec![around]);
        assert!(jobs.iter().all(|j| j.result.depth == 1 && j.target.seed == Some(seed)));
        // ... but the same state over the whole board starts afresh.
        let whole = Target { state, seed: None };
        let jobs = retarget(&mut search, jobs, vec![whole]);
        assert_eq!(jobs.len(), 2);
        assert!(jobs.iter().all(|j| j.result.depth == 0 && j.target.seed.is_none()));
    }
}
