//! Selection and backup: the descent that picks every role's move by UCB at each node (or,
//! where several roles choose at once and the search asks for it, by regret matching or by UCB
//! under a leader's move) and expands the first new joint move, and the statistics added (or
//! taken back) along its path.

use super::solver::{dominated, sure};
use super::tree::{Edge, Kind, Node, NodeRef, Pool};
use super::{Leaf, Mcts, MctsConfig, Plan, SearchMachine, Selected, MAX_PATH};
use crate::matrix::matched_share;
use machine::MachineError;
use metagame::playout::Best;
use rand::rngs::SmallRng;
use rand::Rng;

impl<M: SearchMachine> Mcts<M> {
    /// Descends from the root choosing every role's move at each node, expands the first joint
    /// move that has no node yet, and passes through nodes where nobody has a choice.
    pub(super) fn select(&mut self) -> Result<Selected<M>, MachineError> {
        self.tick += 1;
        let now = self.tick;
        let mut leaf = Leaf::default();
        let mut at = self.root;
        let mut fresh = false;
        let mut choice = Vec::with_capacity(self.roles);
        let priors = self.seeds_priors();
        // A proven root still open to sampling is descended through like any other node.
        let open_root = (!self.settled()).then_some(self.root);
        loop {
            self.pool.visit(at, now);
            let node = self.pool.get_mut(at).expect("a node on the path was visited this tick");
            node.visits += 1;
            if let Some(p) = node.proof.as_ref().filter(|_| Some(at) != open_root) {
                let scores = p.scores.clone();
                leaf.node = Some(at);
                return Ok(Selected::Known(leaf, scores));
            }
            if (fresh && node.kind != Kind::Forced) || leaf.path.len() >= MAX_PATH || node.joint_count.is_none() {
                leaf.node = Some(at);
                leaf.state = Some(node.state.clone());
                return Ok(Selected::Playout(leaf));
            }
            if self.prove_from_children(at) {
                let proof = self.pool.get(at).and_then(|n| n.proof.as_ref());
                let scores = proof.expect("just proven").scores.clone();
                leaf.node = Some(at);
                return Ok(Selected::Known(leaf, scores));
            }
            let node = self.pool.get(at).expect("just visited");
            if priors && matches!(node.kind, Kind::Mover(_)) && node.priors.is_empty() {
                self.seed_priors(at)?;
            }
            let node = self.pool.get(at).expect("just visited");
            choice.clear();
            choice.resize(self.roles, 0);
            let chances = leaf.chances.len();
            leaf.chances.resize(chances + self.roles, 1.0);
            // The leader chooses first, where the others answer its move.
            let leading = leader(&self.config, node);
            for r in leading.into_iter().chain((0..self.roles).filter(|&r| Some(r) != leading)) {
                let (c, chance) = match leading {
                    Some(l) if r != l => (answer(&self.config, &mut self.rng, node, l, choice[l] as usize, r), 1.0),
                    _ if node.regrets.is_empty() => {
                        (choose(&self.pool, &mut self.rng, &self.config, self.dominance, node, r), 1.0)
                    }
                    _ => match_regret(node, r, self.config.regret as f32, &mut self.rng),
                };
                choice[r] = c as u32;
                leaf.chances[chances + r] = chance;
            }
            let key = node.key(&choice);
            let next = node.child(key).filter(|&c| self.pool.get(c).is_some());
            let joint: Vec<M::Move> = choice.iter().enumerate().map(|(r, &c)| node.role_move(r, c as usize)).collect();
            let node = self.pool.get_mut(at).expect("just visited");
            for (r, &c) in choice.iter().enumerate() {
                node.edges[node.starts[r] as usize + c as usize].visits += 1;
            }
            if let Some(l) = leading {
                node.answered(l, &choice, |_, edge| edge.visits += 1);
            }
            leaf.path.push(at);
            leaf.choices.extend_from_slice(&choice);
            if self.roles == 1 {
                leaf.moves.push(joint[0]);
            }
            if let Some(next) = next {
                at = next;
                fresh = false;
                continue;
            }
            let state = node.state.clone();
            let next = self.machine.next_state(&state, &joint)?;
            let child = match self.pool.find(&next) {
                Some(found) => found,
                None => match self.describe(next).map(|fresh| self.pool.insert(fresh, self.root, now))? {
                    Ok(made) => {
                        fresh = true;
                        made
                    }
                    // No room: the leaf has no node, but its scores or its playout still count.
                    Err(lost) => {
                        return Ok(match lost.proof {
                            Some(p) => Selected::Known(leaf, p.scores),
                            None => {
                                leaf.state = Some(lost.state);
                                Selected::Playout(leaf)
                            }
                        });
                    }
                },
            };
            if let Some(node) = self.pool.get_mut(at) {
                node.set_child(key, child);
            }
            at = child;
        }
    }

    /// Whether selection fills in a mover's priors when it first comes through a node: only the
    /// roles' pieces and a confirmed outlook give them, so elsewhere nodes are never seeded.
    pub(super) fn seeds_priors(&self) -> bool {
        let pieces = self.knowledge.as_ref().is_some_and(|g| g.pieces().is_some());
        self.config.prior_visits > 0.0 && (pieces || self.outlook.is_some())
    }

    /// Fills in the priors of the moves at `at`, where one role alone moves, from the state
    /// after each. Where the knowledge knows the roles' pieces: the mover's piece balance there,
    /// taken towards the root's mean score as far as it is from even (once the root has enough
    /// visits to have one): the root's mean is a better start for a move than the prior alone,
    /// and the prior says which way to move it. Otherwise, from the outlook: the root's mean
    /// (or, before it has one, the outlook's prediction there) shifted by the change in the
    /// mover's lead since the root.
    fn seed_priors(&mut self, at: NodeRef) -> Result<(), MachineError> {
        let Some(knowledge) = self.knowledge.clone() else { return Ok(()) };
        // The pool alone is borrowed, so that the outlook's scratch can be too.
        let root = self.pool.get(self.root).expect("the root is never trimmed");
        let node = self.pool.get(at).expect("on the path");
        let Kind::Mover(mover) = node.kind else { return Ok(()) };
        let count = node.move_count(mover);
        let around = (root.visits > MIN_ROOT_VISITS).then(|| mean_score(root, mover)).flatten();
        let found = M::bits(&node.state)
            .zip(M::bits(&root.state))
            .and_then(|(here, root)| knowledge.priors(here, root, self.config.placement));
        // The outlook's level: the mover's lead at the root and its score there.
        let outlook = match (&found, self.outlook.as_mut(), M::bits(&root.state)) {
            (None, Some(o), Some(bits)) => {
                let lead = o.lead(bits, mover);
                Some((lead, around.unwrap_or_else(|| o.predict(mover, lead))))
            }
            _ => None,
        };
        let mut priors = Vec::with_capacity(count);
        let weight = match found.as_ref().map(|(_, w)| *w).or(outlook.map(|_| 1.0)) {
            Some(weight) => {
                let state = node.state.clone();
                let mut joint: Vec<M::Move> = (0..self.roles).map(|r| node.role_move(r, 0)).collect();
                let moves: Vec<M::Move> = (0..count).map(|i| node.role_move(mover, i)).collect();
                for mv in moves {
                    joint[mover] = mv;
                    let next = self.machine.next_state(&state, &joint)?;
                    let bits = M::bits(&next);
                    let value = match (&found, outlook, self.outlook.as_mut(), bits) {
                        (Some((balance, _)), _, _, Some(bits)) => {
                            let value = balance.value(bits, mover);
                            match around {
                                Some(mean) if value > 0.5 => mean + (1.0 - mean) * (value - 0.5) * 2.0,
                                Some(mean) => mean - mean * (0.5 - value) * 2.0,
                                None => value,
                            }
                        }
                        (None, Some((lead, base)), Some(o), Some(bits)) => {
                            let to = o.lead(bits, mover);
                            o.shifted(mover, base, lead, to)
                        }
                        _ => around.unwrap_or(0.5),
                    };
                    priors.push((value * 100.0).round() as u8);
                }
                weight * self.config.prior_visits
            }
            // A node without priors is marked as seeded all the same, with no weight.
            None => {
                priors.resize(count, 50);
                0.0
            }
        };
        let node = self.pool.get_mut(at).expect("on the path");
        node.prior_weight = weight as f32;
        node.priors = priors;
        Ok(())
    }

    /// Propagates proofs up from a proven leaf, then adds `scores` to the statistics along
    /// `leaf`'s path (above a node whose mover has a better proven move, that move's scores
    /// instead), and keeps a better single-player plan. Where the search keeps
    /// all-moves-as-first statistics, the moves of `playout` (every role's, joint move after
    /// joint move) and those chosen along the path count for each node they come at or after.
    pub(super) fn backup(&mut self, leaf: &Leaf<M>, scores: &[u8], complete: bool, playout: &[M::Move]) {
        self.iterations += 1;
        let proven = leaf.node.and_then(|n| self.pool.get(n)).is_some_and(|n| n.proof.is_some());
        if proven {
            for &at in leaf.path.iter().rev() {
                if !self.prove(at) {
                    break;
                }
            }
        }
        if complete && self.roles == 1 {
            self.offer_plan(Plan { moves: leaf.moves.clone(), score: u32::from(scores[0]) });
        }
        let roles = self.roles;
        if !self.played.is_empty() {
            self.next_stamp();
            for mv in playout {
                mark_played::<M>(&mut self.played, self.stamp, mv);
            }
        }
        let mut scores: Box<[u8]> = scores.into();
        for (k, &at) in leaf.path.iter().enumerate().rev() {
            let Some(node) = self.pool.get_mut(at) else { continue };
            let choices = &leaf.choices[k * roles..(k + 1) * roles];
            for (r, &c) in choices.iter().enumerate() {
                node.edges[node.starts[r] as usize + c as usize].sum += f64::from(scores[r]);
                if !node.regrets.is_empty() {
                    learn_regret(node, r, c as usize, leaf.chances[k * roles + r], scores[r]);
                }
                mark_played::<M>(&mut self.played, self.stamp, &node.role_move(r, c as usize));
            }
            if let Some(l) = leader(&self.config, node) {
                node.answered(l, choices, |r, edge| edge.sum += f64::from(scores[r]));
            }
            if let Kind::Mover(m) = node.kind {
                for (i, amaf) in node.amaf.iter_mut().enumerate() {
                    let mv = node.moves[node.starts[m] as usize + i];
                    if M::move_index(&mv).and_then(|x| self.played.get(x as usize)) == Some(&self.stamp) {
                        amaf.visits += 1;
                        amaf.sum += f64::from(scores[m]);
                    }
                }
            }
            if let (Kind::Mover(m), Some(floor)) = (node.kind, &node.floor) {
                if floor[m] > scores[m] {
                    scores.clone_from(floor);
                }
            }
        }
    }

    /// Starts a new backup's record of the moves played (clearing the record when the stamps
    /// wrap round).
    fn next_stamp(&mut self) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.played.fill(0);
            self.stamp = 1;
        }
    }

    /// Undoes the visits of a leaf whose playout never finished.
    pub(super) fn take_back(&mut self, leaf: &Leaf<M>) {
        let roles = self.roles;
        for (k, &at) in leaf.path.iter().enumerate() {
            if let Some(node) = self.pool.get_mut(at) {
                node.visits = node.visits.saturating_sub(1);
                let choices = &leaf.choices[k * roles..(k + 1) * roles];
                for (r, &c) in choices.iter().enumerate() {
                    let edge = &mut node.edges[node.starts[r] as usize + c as usize];
                    edge.visits = edge.visits.saturating_sub(1);
                }
                if let Some(l) = leader(&self.config, node) {
                    node.answered(l, choices, |_, edge| edge.visits = edge.visits.saturating_sub(1));
                }
            }
        }
        if let Some(node) = leaf.node.and_then(|n| self.pool.get_mut(n)) {
            node.visits = node.visits.saturating_sub(1);
        }
    }
}

/// `role`'s move index at `node` by UCB on its own statistics: untried moves first (a random
/// one; a move with a prior counts as tried), others at mean (blended with the prior) plus
/// exploration plus the fading goal-latch hint and latch-heuristic gain, blended with the
/// move's all-moves-as-first mean where the node keeps those (and there untried moves are
/// valued as once visited at the node's mean instead of coming first), plus the local search's
/// verdict. Moves whose result is proven are left alone while any other is open: playing them
/// again teaches nothing, and the open ones are what stands between the node and its proof
/// (their value reaches the ancestors through the node's floor instead). So are moves another
/// move dominates (see [`dominated`], where the search compares ranges): some move is always
/// left, the one whose bound is the bar.
fn choose<M: SearchMachine>(
    pool: &Pool<M>,
    rng: &mut SmallRng,
    config: &MctsConfig,
    dominance: bool,
    node: &Node<M>,
    role: usize,
) -> usize {
    let count = node.move_count(role);
    if count <= 1 {
        return 0;
    }
    let alone = node.kind == Kind::Mover(role);
    let log_n = f64::from(node.visits.max(1)).ln();
    // With all-moves-as-first statistics an untried move is valued, not tried first: as a
    // move visited once that scored the node's mean, blended with its statistics.
    let amaf = |i: usize| node.amaf.get(i).filter(|_| alone);
    let local = |i: usize| node.local.get(i).filter(|_| alone).map_or(0.0, |&v| f64::from(v) * config.local_weight);
    let first = (!node.amaf.is_empty() && alone)
        .then(|| mean_score(node, role).unwrap_or(0.5) + config.exploration * log_n.sqrt());
    let mut best: Option<(usize, f64)> = None;
    let mut proven: Option<(usize, u8)> = None;
    let mut untried = Best::new();
    let sure = (alone && dominance).then(|| sure(pool, node, role));
    for i in 0..count {
        let child = node.child(i as u64).filter(|_| alone).and_then(|c| pool.get(c));
        if sure.is_some_and(|s| dominated(child, role, s)) {
            continue;
        }
        let edge = node.edge(role, i);
        let prior = node.priors.get(i).filter(|_| alone && node.prior_weight > 0.0);
        let prior = prior.map(|&p| (f64::from(p), f64::from(node.prior_weight)));
        if let Some(p) = child.and_then(|c| c.proof.as_ref()) {
            if proven.is_none_or(|(_, v)| p.scores[role] > v) {
                proven = Some((i, p.scores[role]));
            }
        } else if edge.visits > 0 || prior.is_some() {
            // The move's own visits set how much it is explored, whatever its value is
            // taken from (with a visit it has samples, from the move or from its state).
            let (sum, samples) = samples(config, edge, child, role);
            // A prior counts as a few playouts that scored it.
            let (mean, visits) = match prior {
                Some((p, w)) => ((sum + w * p) / (samples + w), f64::from(edge.visits) + w),
                None => (sum / samples, f64::from(edge.visits)),
            };
            let hint = child.map_or(0.0, |c| {
                let (lo, hi) = (node.range[role], c.range[role]);
                (f64::from(hi.0) - f64::from(lo.0) + f64::from(hi.1) - f64::from(lo.1)) / 100.0
            });
            let gain = match (node.heuristic.get(role), child.and_then(|c| c.heuristic.get(role))) {
                (Some(&here), Some(&there)) => (f64::from(there) - f64::from(here)) / 100.0,
                _ => 0.0,
            };
            let bias = (config.latch_bias * hint + config.heuristic_bias * gain) / visits;
            let value = mean / 100.0 + config.exploration * (log_n / visits).sqrt() + bias;
            let value = with_amaf(config.rave, value, visits, amaf(i)) + local(i);
            if best.is_none_or(|(_, v)| value > v) {
                best = Some((i, value));
            }
        } else if let Some(first) = first {
            // Ties among moves without statistics are broken at random.
            let value = with_amaf(config.rave, first, 0.0, amaf(i)) + local(i) + rng.random::<f64>() * 1e-9;
            if best.is_none_or(|(_, v)| value > v) {
                best = Some((i, value));
            }
        } else {
            // Untried moves come first, in random order.
            untried.offer(i, 0.0, rng);
        }
    }
    untried.get().or(best.map(|b| b.0)).or(proven.map(|p| p.0)).unwrap_or(0)
}

/// The role the others answer at `node`, where the search has one (`MctsConfig::leader`) and
/// the node keeps their replies (several roles choose there, the leader among them).
fn leader<M: SearchMachine>(config: &MctsConfig, node: &Node<M>) -> Option<usize> {
    config.leader.filter(|_| !node.replies.is_empty())
}

/// `role`'s move index at `node` answering `leader`'s move `led`, by UCB on its statistics
/// under that move (untried moves first, in random order).
fn answer<M: SearchMachine>(
    config: &MctsConfig,
    rng: &mut SmallRng,
    node: &Node<M>,
    leader: usize,
    led: usize,
    role: usize,
) -> usize {
    let count = node.move_count(role);
    let log_n = f64::from(node.edge(leader, led).visits.max(1)).ln();
    let mut best: Option<(usize, f64)> = None;
    let mut untried = Best::new();
    for j in 0..count {
        let edge = &node.replies[node.reply(leader, led, role, j)];
        match edge.mean() {
            None => untried.offer(j, 0.0, rng),
            Some(mean) => {
                let value = mean / 100.0 + config.exploration * (log_n / f64::from(edge.visits)).sqrt();
                if best.is_none_or(|(_, v)| value > v) {
                    best = Some((j, value));
                }
            }
        }
    }
    untried.get().or(best.map(|b| b.0)).unwrap_or(0)
}

/// Records in `played` (per move index, the stamp of the last backup that saw it) that the
/// iteration under backup, stamped `stamp`, played `mv` at the node being backed up or later;
/// nothing where the search keeps no record (`played` empty).
fn mark_played<M: SearchMachine>(played: &mut [u32], stamp: u32, mv: &M::Move) {
    if let Some(slot) = M::move_index(mv).and_then(|i| played.get_mut(i as usize)) {
        *slot = stamp;
    }
}

/// `value` (scores scaled to 0..=1) of a move that has `visits` of its own, blended with its
/// all-moves-as-first mean where it has samples (see [`MctsConfig::rave`]).
fn with_amaf(rave: f64, value: f64, visits: f64, amaf: Option<&Edge>) -> f64 {
    let Some((mean, samples)) = amaf.and_then(|a| Some((a.mean()?, f64::from(a.visits)))) else { return value };
    let weight = samples / (samples + visits + rave * visits * samples + 1.0);
    (1.0 - weight) * value + weight * mean / 100.0
}

/// What `role`'s value of a move (whose statistics are `edge`, leading where one role alone
/// moves to `child`, if it has a node) is taken from: its summed scores and how many
/// iterations they are. The state after the move, reached by other orders of the same moves
/// too, can hold more samples of its value than the move does: its own statistics are used
/// where they hold at least as many (they lack the playout that made the node, so where only
/// this move leads to it they hold one fewer), unless a proven move there changes what its
/// value is above it (its floor) or the configuration leaves transpositions out.
pub(super) fn samples<M: SearchMachine>(
    config: &MctsConfig,
    edge: &Edge,
    child: Option<&Node<M>>,
    role: usize,
) -> (f64, f64) {
    let pooled = child.filter(|c| config.transpositions && c.floor.is_none()).map(|c| totals(c, role));
    match pooled {
        Some((sum, samples)) if samples >= edge.visits.max(1) => (sum, f64::from(samples)),
        _ => (edge.sum, f64::from(edge.visits)),
    }
}

/// `role`'s move index at `node`, where several roles choose at once, drawn by regret
/// matching: each move in proportion to its positive cumulative regret (all alike while none
/// has any), mixed with a `gamma` share of uniform choice so that every move keeps being
/// sampled; with the chance the drawn move had.
fn match_regret<M: SearchMachine>(node: &Node<M>, role: usize, gamma: f32, rng: &mut SmallRng) -> (usize, f32) {
    let count = node.move_count(role);
    if count <= 1 {
        return (0, 1.0);
    }
    let start = node.starts[role] as usize;
    let regrets = &node.regrets[start..start + count];
    let positive: f64 = regrets.iter().map(|&r| f64::from(r.max(0.0))).sum();
    let uniform = 1.0 / count as f32;
    let chance =
        |i: usize| (1.0 - gamma) * matched_share(f64::from(regrets[i]), positive, count) as f32 + gamma * uniform;
    let mut draw: f32 = rng.random();
    for i in 0..count - 1 {
        let p = chance(i);
        if draw < p {
            return (i, p);
        }
        draw -= p;
    }
    (count - 1, chance(count - 1))
}

/// Adds to `role`'s regrets at `node` what one iteration taught, the move `chosen` (drawn with
/// `chance`) having scored `score` (0..=100): the score each move would have had, estimated
/// without bias by the drawn move's score divided by its chance and nothing for the others,
/// less the score it had.
fn learn_regret<M: SearchMachine>(node: &mut Node<M>, role: usize, chosen: usize, chance: f32, score: u8) {
    let start = node.starts[role] as usize;
    let count = node.move_count(role);
    if count <= 1 {
        return;
    }
    let score = f32::from(score) / 100.0;
    for regret in &mut node.regrets[start..start + count] {
        *regret -= score;
    }
    node.regrets[start + chosen] += score / chance.max(f32::EPSILON);
}

/// The root needs this many visits before its mean score is a better start for a prior than
/// even.
const MIN_ROOT_VISITS: u32 = 50;

/// `role`'s mean score (0..=1) over the iterations through `node` (running ones count as
/// losses), if there were any.
fn mean_score<M: SearchMachine>(node: &Node<M>, role: usize) -> Option<f64> {
    let (sum, visits) = totals(node, role);
    (visits > 0).then(|| sum / f64::from(visits) / 100.0)
}

/// `role`'s summed scores (0..=100 each) and the number of iterations that chose a move at
/// `node`, by whatever path they came.
pub(super) fn totals<M: SearchMachine>(node: &Node<M>, role: usize) -> (f64, u32) {
    (0..node.move_count(role)).fold((0.0, 0), |(sum, visits), i| {
        let edge = node.edge(role, i);
        (sum + edge.sum, visits + edge.visits)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_moves_as_first_means_lead_a_fresh_move_and_give_way_to_its_own_visits() {
        let amaf = Edge { visits: 100, sum: 8_000.0 };
        let fresh = with_amaf(0.05, 0.3, 0.0, Some(&amaf));
        assert!((fresh - 0.8).abs() < 0.01, "{fresh}");
        let some = with_amaf(0.05, 0.3, 20.0, Some(&amaf));
        assert!(some > 0.3 && some < fresh, "{some}");
        let visited = with_amaf(0.05, 0.3, 1_000.0, Some(&amaf));
        assert!((visited - 0.3).abs() < 0.02, "{visited}");
        assert_eq!(with_amaf(0.05, 0.3, 5.0, Some(&Edge::default())), 0.3, "no samples, no blend");
        assert_eq!(with_amaf(0.05, 0.3, 5.0, None), 0.3);
    }
}
