//! The search loop: batches of leaves selected on the tree's thread, played out here or by worker
//! threads with machines of their own, and backed up as their results come in.

use super::{Leaf, Mcts, SearchMachine, SearchStats, Selected, Worker, GUIDED_BATCH};
use machine::MachineError;
use metagame::playout::{Cutoff, Outcome, Settings};
use std::sync::{mpsc, Arc};
use std::time::Instant;

impl<M: SearchMachine> Mcts<M> {
    /// The search loop: select batches of leaves, play them out, back up, until the deadline,
    /// the iteration budget, or a proven root.
    pub(super) fn run(
        &mut self,
        deadline: Option<Instant>,
        iterations: Option<u64>,
    ) -> Result<SearchStats, MachineError> {
        let settings = Settings {
            max_steps: self.config.max_playout_steps,
            // Plans need the moves of single-player playouts, move averages and all-moves-as-first
            // statistics those of all.
            trace: self.roles == 1 || self.mast.is_some() || !self.played.is_empty(),
            knowledge: self.knowledge.clone().filter(|g| self.config.guided_playouts && g.steers_playouts()),
            deadline,
            mast: None,
            cutoff: None,
            captures: self.config.captures,
        };
        let mut workers = std::mem::take(&mut self.workers);
        let batch = match settings.knowledge {
            Some(_) => {
                let side_by_side = workers.first().map_or(1, |w| self.machine.side_by_side(&w.scratch));
                self.config.batch.clamp(1, GUIDED_BATCH.max(2 * side_by_side))
            }
            None => self.config.batch.clamp(1, 64),
        };
        let target = iterations.map(|n| self.iterations.saturating_add(n));
        self.pool.trim_before(deadline);
        let result = if workers.len() == 1 {
            self.run_here(&mut workers[0], &settings, batch, target)
        } else {
            self.run_threads(&mut workers, &settings, batch, target)
        };
        self.workers = workers;
        self.pool.trim_before(None);
        result?;
        Ok(self.stats())
    }

    /// How many leaves the next batch may take (0: stop), given `in_flight` leaves still out.
    pub(super) fn room(&self, settings: &Settings, batch: usize, target: Option<u64>, in_flight: u64) -> usize {
        if self.settled() || settings.out_of_time() {
            return 0;
        }
        let left = target.map_or(u64::MAX, |t| t.saturating_sub(self.iterations + in_flight));
        batch.min(usize::try_from(left).unwrap_or(usize::MAX))
    }

    /// The loop on one thread: select a batch, play it, back it up.
    pub(super) fn run_here(
        &mut self,
        worker: &mut Worker<M>,
        settings: &Settings,
        batch: usize,
        target: Option<u64>,
    ) -> Result<(), MachineError> {
        loop {
            let room = self.room(settings, batch, target, 0);
            if room == 0 {
                return Ok(());
            }
            let leaves = self.select_batch(room)?;
            let starts: Vec<M::State> = leaves.iter().filter_map(|l| l.state.clone()).collect();
            let settings = self.batch_settings(settings);
            let outcomes = self.machine.play_out(&mut worker.scratch, &starts, &mut worker.rng, &settings)?;
            self.finish(leaves, outcomes)?;
        }
    }

    /// The loop with workers: keep each busy with up to two batches while backing up results.
    pub(super) fn run_threads(
        &mut self,
        workers: &mut [Worker<M>],
        settings: &Settings,
        batch: usize,
        target: Option<u64>,
    ) -> Result<(), MachineError> {
        type Done<Mv> = (usize, usize, Result<Vec<Option<Outcome<Mv>>>, MachineError>);
        let mut helpers = std::mem::take(&mut self.helpers);
        let result = std::thread::scope(|scope| {
            let (done_tx, done_rx) = mpsc::channel::<Done<M::Move>>();
            let mut jobs = Vec::new();
            for (w, (worker, m)) in workers.iter_mut().zip(helpers.iter_mut()).enumerate() {
                let (job_tx, job_rx) = mpsc::channel::<(usize, Vec<M::State>, Settings)>();
                let done_tx = done_tx.clone();
                scope.spawn(move || {
                    for (id, starts, settings) in job_rx {
                        let played = m.play_out(&mut worker.scratch, &starts, &mut worker.rng, &settings);
                        if done_tx.send((w, id, played)).is_err() {
                            break;
                        }
                    }
                });
                jobs.push(job_tx);
            }
            let mut busy = vec![0u8; jobs.len()];
            let mut pending: Vec<Option<Vec<Leaf<M>>>> = Vec::new();
            let mut in_flight = 0u64;
            loop {
                while let Some(w) = (0..busy.len()).min_by_key(|&w| busy[w]).filter(|&w| busy[w] < 2) {
                    let room = self.room(settings, batch, target, in_flight);
                    if room == 0 {
                        break;
                    }
                    let leaves = self.select_batch(room)?;
                    let starts: Vec<M::State> = leaves.iter().filter_map(|l| l.state.clone()).collect();
                    let id = pending.iter().position(Option::is_none).unwrap_or(pending.len());
                    if id == pending.len() {
                        pending.push(None);
                    }
                    in_flight += starts.len() as u64;
                    pending[id] = Some(leaves);
                    busy[w] += 1;
                    // A worker only stops once `jobs` is dropped, so the send cannot fail.
                    let _ = jobs[w].send((id, starts, self.batch_settings(settings)));
                }
                if busy.iter().all(|&b| b == 0) {
                    return Ok(());
                }
                let Ok((w, id, outcomes)) = done_rx.recv() else { return Ok(()) };
                busy[w] -= 1;
                let leaves = pending[id].take().unwrap_or_default();
                in_flight -= leaves.iter().filter(|l| l.state.is_some()).count() as u64;
                self.finish(leaves, outcomes?)?;
            }
        });
        self.helpers = helpers;
        result
    }

    /// The settings for the next batch: `settings` with the move averages as they are now, and
    /// the playouts' early end taken against the current root where the search asks for one.
    fn batch_settings(&mut self, settings: &Settings) -> Settings {
        let cut = self.config.cutoff > 0 && settings.knowledge.as_ref().is_some_and(|g| g.pieces().is_some());
        let root = M::bits(&self.root_node().state).filter(|_| cut);
        let cutoff = root.map(|words| Cutoff {
            steps: self.config.cutoff,
            root: Arc::from(words),
            placement: self.config.placement,
        });
        Settings { mast: self.mast.as_mut().map(|m| m.policy()), cutoff, ..settings.clone() }
    }

    /// Selects up to `count` leaves, backing up the decided ones at once; returns the rest (the
    /// playouts to run), stopping early once the root is proven.
    pub(super) fn select_batch(&mut self, count: usize) -> Result<Vec<Leaf<M>>, MachineError> {
        let mut leaves = Vec::with_capacity(count);
        for _ in 0..count {
            match self.select()? {
                Selected::Known(leaf, scores) => {
                    self.backup(&leaf, &scores, true, &[]);
                    if self.settled() {
                        break;
                    }
                }
                Selected::Playout(leaf) => leaves.push(leaf),
            }
        }
        Ok(leaves)
    }

    /// Adds the moves of an iteration, in the tree and in its playout, to the move averages,
    /// each scored for the role that played it.
    fn record_moves(&mut self, leaf: &Leaf<M>, outcome: &Outcome<M::Move>) {
        let Some(mast) = self.mast.as_mut() else { return };
        let roles = self.roles;
        for (k, &at) in leaf.path.iter().enumerate() {
            let Some(node) = self.pool.get(at) else { continue };
            for (r, &c) in leaf.choices[k * roles..(k + 1) * roles].iter().enumerate() {
                if let Some(mv) = M::move_index(&node.role_move(r, c as usize)) {
                    mast.record(mv, outcome.scores[r]);
                }
            }
        }
        for (k, mv) in outcome.moves.iter().enumerate() {
            if let Some(mv) = M::move_index(mv) {
                mast.record(mv, outcome.scores[k % roles]);
            }
        }
        mast.iteration();
    }

    /// Backs up the playouts of `leaves` (those with a start state, in order, as `outcomes`
    /// lists them); a leaf whose playout was cut short is taken back.
    pub(super) fn finish(
        &mut self,
        leaves: Vec<Leaf<M>>,
        outcomes: Vec<Option<Outcome<M::Move>>>,
    ) -> Result<(), MachineError> {
        let mut outcomes = outcomes.into_iter();
        for mut leaf in leaves.into_iter().filter(|l| l.state.is_some()) {
            match outcomes.next().flatten() {
                Some(mut outcome) => {
                    // A playout cut off early is scored by an estimate, not goals to compare.
                    if self.rivalry.is_some() && outcome.complete {
                        outcome.scores = self.score(&outcome.scores).into();
                    }
                    self.playouts += 1;
                    if outcome.complete && outcome.steps == 1 {
                        self.prove_by_playout(&leaf, &outcome.scores)?;
                    }
                    self.record_moves(&leaf, &outcome);
                    if self.roles == 1 {
                        leaf.moves.extend_from_slice(&outcome.moves);
                    }
                    self.backup(&leaf, &outcome.scores, outcome.complete, &outcome.moves);
                }
                None => self.take_back(&leaf),
            }
        }
        Ok(())
    }
}
