//! The answer-set prover: the rules translated by the `asp` crate and solved by clingo.
//!
//! Clingo's grounding cannot be interrupted, so the solver runs on a thread of its own: shortly
//! after the deadline ([`CANCEL_GRACE`]) the answer is read if it is there, and otherwise the
//! thread is left to finish its grounding (it then sees the deadline has passed and stops without
//! solving; [`wait_for_abandoned_proofs`] collects it) while every question counts as unknown.
//! The caller gets its answer on time either way.

use crate::Group;
use propnet::net::{Kind, Net};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Mutex;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long after the deadline a solver thread may still deliver: cancelling a solve call in
/// progress takes a moment, and its partial answers are worth the wait.
pub(crate) const CANCEL_GRACE: Duration = Duration::from_millis(100);

/// Solver threads whose answer came too late, still grounding.
static ABANDONED: Mutex<Vec<JoinHandle<()>>> = Mutex::new(Vec::new());

/// Waits for solver threads left behind at a deadline. A process must call this before it exits:
/// exiting tears down the solver's global state under a thread that still uses it.
pub fn wait_for_abandoned_proofs() {
    let threads = std::mem::take(&mut *ABANDONED.lock().unwrap_or_else(|e| e.into_inner()));
    for t in threads {
        // A thread that panicked has nothing left to clean up.
        let _ = t.join();
    }
}

/// Runs `asp::prove_latches` on the bases of `net`, with those `fixed` held at their values and
/// the state satisfying the proved `groups`, on a thread of its own, and waits for it until
/// `deadline` (and a moment); `None` if it has not answered by then.
pub(super) fn prove(
    desc: &gdl::Description,
    net: &Net,
    fixed: Vec<(usize, bool)>,
    groups: &[Group],
    known: asp::Verdicts,
    deadline: Option<Instant>,
) -> Result<Option<asp::Report>, asp::Error> {
    let (desc, facts) = (desc.clone(), facts(net, fixed, groups)?);
    let (tx, rx) = mpsc::channel();
    let spawned = std::thread::Builder::new().name("latch proofs".into()).spawn(move || {
        // The receiver is gone if the caller stopped waiting; the answer is then wasted.
        let _ = tx.send(asp::prove_latches(&desc, &facts, known, deadline));
    });
    let thread = spawned.map_err(|e| asp::Error::Clingo(format!("cannot start the solver thread: {e}")))?;
    let answer = match deadline {
        Some(d) => rx.recv_timeout(d.saturating_duration_since(Instant::now()) + CANCEL_GRACE),
        None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
    };
    match answer {
        Ok(report) => report.map(Some),
        Err(RecvTimeoutError::Timeout) => {
            ABANDONED.lock().unwrap_or_else(|e| e.into_inner()).push(thread);
            Ok(None)
        }
        Err(RecvTimeoutError::Disconnected) => Err(asp::Error::Clingo("the solver thread failed".into())),
    }
}

/// The generator's domain, read off the optimised net.
fn facts(net: &Net, fixed: Vec<(usize, bool)>, groups: &[Group]) -> Result<asp::Facts, asp::Error> {
    let roles: Vec<gdl::Sym> = net.roles.iter().map(|r| gdl::Sym::new(r)).collect();
    let bases = net.bases.iter().map(|b| asp::parse_term(&b.name)).collect::<Result<_, _>>()?;
    let mut inputs = Vec::with_capacity(net.moves.len());
    for m in net.moves.iter().filter(|m| net.kinds[m.legal as usize] != Kind::Const(false)) {
        inputs.push((roles[m.role], asp::parse_term(&m.name)?));
    }
    let groups = groups.iter().map(|g| (g.literals().collect(), g.exactly_one)).collect();
    Ok(asp::Facts { roles, bases, inputs, fixed, groups })
}
