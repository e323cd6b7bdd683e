//! Tree search by factors (the Sancho blog's factorisation, for games of any number of roles):
//! where a game splits into several sub-games that each can end or score it, one tree per
//! sub-game, each blind to the others.
//!
//! A factor's tree plays the game as the factor sees it ([`FactorView`]): a role's moves are
//! its moves in the factor and its passes, plus one pseudo-move, *elsewhere*, standing for
//! every move it could make in another factor when it has no pass to stand for them. Whatever
//! is played, the bases of the other factors keep the values they had, so the tree is a game
//! on one factor and the control logic alone, far smaller than the whole (its transpositions
//! meet, and its playouts are not diluted by play on the other boards).
//!
//! A move is chosen by comparing factors: in each tree, what the role's best move there is
//! worth against what staying out of the factor is worth (its pass, or elsewhere). The factor
//! with the largest gain is played; where none gains and the role can pass, it passes.
//! Independence makes each tree's picture exact for its factor as long as the others stand
//! still; what it leaves out is the interplay of tempo between factors, which the elsewhere
//! move approximates.
//!
//! Neighbourhoods (the analysis' approximate split) are searched the same way. Their shared
//! bases, a score tally say, change with the tree's own play as in the game; play elsewhere
//! changes them only in the real game, and a tree that no longer matches it there starts
//! afresh from the real state.

use crate::mcts::{Mcts, MctsConfig, MoveStats, SearchMachine, SearchStats};
use analysis::Factors;
use machine::{MachineError, StateMachine};
use metagame::playout::{self, Outcome, Settings};
use propnet::{Program, PropnetMachine, PropnetState};
use rand::rngs::SmallRng;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long one tree searches before the next takes its turn.
const SLICE: Duration = Duration::from_millis(20);

/// Leaves per batch at most: a factor's playouts run one at a time, so a larger batch only
/// makes its selections staler.
const BATCH: usize = 4;

/// The game as one factor sees it: its own moves and the passes, with the other factors'
/// bases frozen (see the module header).
#[derive(Debug)]
pub struct FactorView {
    inner: PropnetMachine,
    /// Per move of the net, whether it belongs to this factor.
    own: Arc<[bool]>,
    /// Per move of the net, whether it is a pass (in no factor).
    pass: Arc<[bool]>,
    /// Bits of the bases that keep their values: those of the other factors.
    frozen: Arc<[u64]>,
    /// Bits of the bases linking neighbourhoods (none for exact factors): they keep their values
    /// too when a role plays elsewhere, since what the stand-in move does to them is arbitrary.
    shared: Arc<[u64]>,
    /// The state the view starts from.
    start: PropnetState,
}

impl FactorView {
    /// The view of factor `f` of `factors` on `program`'s net, starting from `start`.
    pub fn new(program: Arc<Program>, factors: &Factors, f: usize, start: PropnetState) -> FactorView {
        let own: Arc<[bool]> = factors.factor_of.iter().map(|&x| x == Some(f as u32)).collect();
        let pass: Arc<[bool]> = factors.factor_of.iter().map(Option::is_none).collect();
        let count = start.words().len() * 64;
        let mask = |bases: Vec<u32>| -> Arc<[u64]> {
            PropnetState::from_bases(count, bases.into_iter().map(|b| b as usize)).words().into()
        };
        let others = factors.factors.iter().enumerate().filter(|&(x, _)| x != f);
        let frozen = mask(others.flat_map(|(_, factor)| factor.bases.iter().copied()).collect());
        let shared = mask(factors.shared.clone());
        FactorView { inner: PropnetMachine::from_program(program), own, pass, frozen, shared, start }
    }

    /// The pseudo-move standing for play in another factor.
    pub fn elsewhere(&self) -> u32 {
        self.inner.program().move_count() as u32
    }

    /// Whether `mv` is one of this factor's own moves (not a pass, not elsewhere).
    pub fn owns(&self, mv: u32) -> bool {
        self.own.get(mv as usize).copied().unwrap_or(false)
    }

    /// Whether `state` of this view holds the same values as `real`, a state of the game, in
    /// every base that is not frozen (its own, the control and any shared ones).
    fn agrees(&self, state: &PropnetState, real: &PropnetState) -> bool {
        let words = state.words().iter().zip(real.words()).zip(self.frozen.iter());
        words.into_iter().all(|((&a, &b), &keep)| (a ^ b) & !keep == 0)
    }

    /// A real legal move of `role` in `state` that the elsewhere move stands for.
    fn stand_in(&mut self, state: &PropnetState, role: usize) -> Result<u32, MachineError> {
        let legal = self.inner.legal_moves(state, role)?;
        legal.into_iter().find(|&m| !self.own[m as usize] && !self.pass[m as usize]).ok_or_else(|| {
            MachineError::IllegalMove { role: self.inner.roles()[role].clone(), mv: "elsewhere".to_owned() }
        })
    }
}

impl StateMachine for FactorView {
    type State = PropnetState;
    type Move = u32;

    fn roles(&self) -> &[String] {
        self.inner.roles()
    }

    fn initial_state(&mut self) -> PropnetState {
        self.start.clone()
    }

    fn legal_moves(&mut self, state: &PropnetState, role: usize) -> Result<Vec<u32>, MachineError> {
        let legal = self.inner.legal_moves(state, role)?;
        let (mut away, mut pass) = (false, false);
        let mut moves = Vec::with_capacity(legal.len());
        for m in legal {
            if self.own[m as usize] {
                moves.push(m);
            } else if self.pass[m as usize] {
                pass = true;
                moves.push(m);
            } else {
                away = true;
            }
        }
        if away && !pass {
            moves.push(self.elsewhere());
        }
        Ok(moves)
    }

    fn next_state(&mut self, state: &PropnetState, moves: &[u32]) -> Result<PropnetState, MachineError> {
        let elsewhere = self.elsewhere();
        let mut joint = moves.to_vec();
        let mut away = false;
        for (role, mv) in joint.iter_mut().enumerate() {
            if *mv == elsewhere {
                *mv = self.stand_in(state, role)?;
                away = true;
            }
        }
        let next = self.inner.next_state(state, &joint)?;
        let words = next.words().iter().zip(state.words()).zip(self.frozen.iter().zip(self.shared.iter()));
        let kept = |((&n, &s), (&frozen, &shared)): ((&u64, &u64), (&u64, &u64))| {
            let keep = if away { frozen | shared } else { frozen };
            (n & !keep) | (s & keep)
        };
        Ok(PropnetState::from_words(words.map(kept).collect()))
    }

    fn is_terminal(&mut self, state: &PropnetState) -> Result<bool, MachineError> {
        self.inner.is_terminal(state)
    }

    fn goal_values(&mut self, state: &PropnetState, role: usize) -> Result<Vec<u32>, MachineError> {
        self.inner.goal_values(state, role)
    }

    fn state_props(&self, state: &PropnetState) -> Vec<String> {
        self.inner.state_props(state)
    }

    fn format_move(&self, mv: &u32) -> String {
        match *mv == self.elsewhere() {
            true => "elsewhere".to_owned(),
            false => self.inner.format_move(mv),
        }
    }
}

impl SearchMachine for FactorView {
    type Scratch = ();

    fn fork(&self) -> Option<FactorView> {
        Some(FactorView {
            inner: self.inner.sibling(),
            own: Arc::clone(&self.own),
            pass: Arc::clone(&self.pass),
            frozen: Arc::clone(&self.frozen),
            shared: Arc::clone(&self.shared),
            start: self.start.clone(),
        })
    }

    fn bits(_: &PropnetState) -> Option<&[u64]> {
        // The knowledge's latches and pieces read whole states of the real game.
        None
    }

    fn move_index(mv: &u32) -> Option<u32> {
        Some(*mv)
    }

    fn move_count(&self) -> usize {
        self.inner.program().move_count() + 1
    }

    fn state_bytes(state: &PropnetState) -> usize {
        std::mem::size_of_val(state.words())
    }

    fn goal_range(&self, role: usize) -> Option<(u32, u32)> {
        self.inner.goal_range(role)
    }

    fn play_out(
        &mut self,
        _: &mut (),
        starts: &[PropnetState],
        rng: &mut SmallRng,
        settings: &Settings,
    ) -> Result<Vec<Option<Outcome<u32>>>, MachineError> {
        starts.iter().map(|start| playout::random(self, start, rng, settings)).collect()
    }
}

/// A search with one tree per factor that can end or score the game.
pub struct Factored {
    program: Arc<Program>,
    factors: Factors,
    machine: PropnetMachine,
    state: PropnetState,
    /// Per tree, the factor it searches.
    factor_ids: Vec<usize>,
    trees: Vec<Mcts<FactorView>>,
    /// Per tree, how it searches.
    configs: Vec<MctsConfig>,
    /// Which tree searches next.
    turn: usize,
}

impl std::fmt::Debug for Factored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Factored").field("factors", &self.factor_ids).finish_non_exhaustive()
    }
}

impl Factored {
    /// A search of `program`'s game from its initial state with a tree per factor of
    /// `factors` that matters, each with `config` (its memory shared out among them); `None`
    /// unless at least two factors matter.
    pub fn new(
        program: Arc<Program>,
        factors: &Factors,
        config: &MctsConfig,
    ) -> Result<Option<Factored>, MachineError> {
        let relevant: Vec<usize> = factors.relevant().into_iter().map(|f| f as usize).collect();
        if relevant.len() < 2 {
            return Ok(None);
        }
        let mut machine = PropnetMachine::from_program(Arc::clone(&program));
        let state = machine.initial_state();
        let k = relevant.len();
        let configs: Vec<MctsConfig> = (0..k as u64)
            .map(|i| MctsConfig {
                seed: config.seed.wrapping_add(i.wrapping_mul(0x9e37_79b9)),
                max_nodes: config.max_nodes / k,
                max_bytes: config.max_bytes / k,
                batch: config.batch.min(BATCH),
                // Moves are chosen by comparing a tree's best move with staying out of it.
                open_root: true,
                ..config.clone()
            })
            .collect();
        let mut trees = Vec::with_capacity(k);
        for (&f, config) in relevant.iter().zip(&configs) {
            let view = FactorView::new(Arc::clone(&program), factors, f, state.clone());
            trees.push(Mcts::on(view, None, config.clone())?);
        }
        let factors = factors.clone();
        Ok(Some(Factored { program, factors, machine, state, factor_ids: relevant, trees, configs, turn: 0 }))
    }

    /// The real game's machine (to print and find moves).
    pub fn machine(&self) -> &PropnetMachine {
        &self.machine
    }

    /// The factors searched, one per tree, as indices into the analysis' factors.
    pub fn factors(&self) -> &[usize] {
        &self.factor_ids
    }

    /// Each tree's statistics, in the order of [`factors`](Self::factors).
    pub fn stats(&self) -> Vec<SearchStats> {
        self.trees.iter().map(Mcts::stats).collect()
    }

    /// Whether every tree is settled (its root proven, and every move there): searching more
    /// changes nothing.
    pub fn settled(&self) -> bool {
        self.trees.iter().all(Mcts::settled)
    }

    /// Searches until `until`, the trees taking turns in short slices; stops early once every
    /// tree is settled.
    pub fn search(&mut self, until: Instant) -> Result<(), MachineError> {
        while Instant::now() < until && !self.settled() {
            let k = self.trees.len();
            let tree = &mut self.trees[self.turn];
            self.turn = (self.turn + 1) % k;
            if !tree.settled() {
                tree.search(until.min(Instant::now() + SLICE))?;
            }
        }
        Ok(())
    }

    /// Runs `iterations` iterations in each tree (for tests and benchmarks; reproducible).
    pub fn search_iterations(&mut self, iterations: u64) -> Result<(), MachineError> {
        for tree in &mut self.trees {
            tree.search_iterations(iterations)?;
        }
        Ok(())
    }

    /// The legal moves of `role` in the current state of the real game.
    pub fn legal_moves(&mut self, role: usize) -> Result<Vec<u32>, MachineError> {
        self.machine.legal_moves(&self.state, role)
    }

    /// Moves every tree's root along the joint move the game took; a tree whose factor the
    /// move did not touch follows the role's pass or elsewhere move.
    pub fn advance(&mut self, joint: &[u32]) -> Result<(), MachineError> {
        let next = self.machine.next_state(&self.state, joint)?;
        for ((tree, &f), config) in self.trees.iter_mut().zip(&self.factor_ids).zip(&self.configs) {
            let mapped: Vec<u32> = joint
                .iter()
                .enumerate()
                .map(|(role, &mv)| {
                    let view = tree.machine();
                    if view.owns(mv) || view.pass[mv as usize] {
                        return mv;
                    }
                    // Play in another factor: the tree's elsewhere move, or the pass that
                    // stands for it where the role has one.
                    let stats = tree.move_stats(role);
                    let stay = stats.iter().map(|s| s.mv).find(|&m| m == view.elsewhere() || view.pass[m as usize]);
                    stay.unwrap_or(view.elsewhere())
                })
                .collect();
            // The tree's frozen picture of the other factors may no longer offer the move (play
            // there closed it), and in neighbourhoods play elsewhere may have changed a shared
            // base the tree did not see change: then start the tree afresh from the real state.
            let moved = tree.advance(&mapped).is_ok();
            if !moved || !tree.machine().agrees(tree.root_state(), &next) {
                let view = FactorView::new(Arc::clone(&self.program), &self.factors, f, next.clone());
                *tree = Mcts::on(view, None, config.clone())?;
            }
        }
        self.state = next;
        Ok(())
    }

    /// The first of `candidates` (moves of `role`) that ends the game at once with the role's
    /// highest goal value, where every other role has a single move.
    fn winning(&mut self, role: usize, candidates: &[u32]) -> Result<Option<u32>, MachineError> {
        let roles = self.machine.roles().len();
        let mut joint = Vec::with_capacity(roles);
        for r in 0..roles {
            if r == role {
                joint.push(0);
                continue;
            }
            match self.legal_moves(r)?.as_slice() {
                [only] => joint.push(*only),
                _ => return Ok(None),
            }
        }
        let top = self.machine.goal_range(role).map_or(100, |(_, hi)| hi);
        for &mv in candidates {
            joint[role] = mv;
            let next = self.machine.next_state(&self.state, &joint)?;
            if self.machine.is_terminal(&next)? && self.machine.goal_values(&next, role)? == [top] {
                return Ok(Some(mv));
            }
        }
        Ok(None)
    }

    /// The move to play for `role`: a factor's best move if it wins the game at once; else, in
    /// the factor where its best move gains most over staying out, that move; a pass where no
    /// factor gains and the role has one. `None` when the role has no legal move.
    ///
    /// A gain is counted in proven values where the solver has them (else means), and where
    /// those are equal, in the playouts' means: trees whose every move is proven alike (each
    /// sure of the point on its board, say) still differ in how sure the playouts were.
    pub fn best_move(&mut self, role: usize) -> Result<Option<u32>, MachineError> {
        let legal = self.legal_moves(role)?;
        if legal.len() <= 1 {
            return Ok(legal.first().copied());
        }
        let value = |s: &MoveStats<u32>| {
            let v = s.proven.map(f64::from).or(s.mean)?;
            Some((v, s.mean.unwrap_or(v)))
        };
        let mut best: Option<((f64, f64), u32)> = None;
        let mut picks = Vec::with_capacity(self.trees.len());
        for tree in &self.trees {
            let view = tree.machine();
            let stats = tree.move_stats(role);
            let own: Vec<&MoveStats<u32>> = stats.iter().filter(|s| view.owns(s.mv)).collect();
            if own.is_empty() {
                continue;
            }
            let stays: Vec<&MoveStats<u32>> = stats.iter().filter(|s| !view.owns(s.mv)).collect();
            let stay = stays.iter().copied().filter_map(value).max_by(|a, b| a.0.total_cmp(&b.0));
            let pick = tree.best_move(role).filter(|&m| view.owns(m));
            let pick = pick.or_else(|| own.iter().max_by_key(|s| s.visits).map(|s| s.mv));
            let Some(pick) = pick else { continue };
            let picked = stats.iter().find(|s| s.mv == pick).and_then(value);
            // A role that cannot stay out of the factor must play there; a move or a stay
            // not yet valued gains nothing known.
            let gain = match (picked, stay) {
                _ if stays.is_empty() => (f64::INFINITY, f64::INFINITY),
                (Some(v), Some(s)) => (v.0 - s.0, v.1 - s.1),
                _ => (0.0, 0.0),
            };
            picks.push(pick);
            if best.is_none_or(|(g, _)| gain > g) {
                best = Some((gain, pick));
            }
        }
        // Gains compare what each factor's tree sees with the others frozen; a move that ends
        // the game with the role's best score needs no comparing.
        if let Some(win) = self.winning(role, &picks)? {
            return Ok(Some(win));
        }
        let pass = legal.iter().copied().find(|&m| self.trees[0].machine().pass[m as usize]);
        Ok(match (best, pass) {
            (Some((gain, mv)), _) if gain.0 >= 0.0 => Some(mv),
            (_, Some(pass)) => Some(pass),
            (Some((_, mv)), None) => Some(mv),
            (None, None) => legal.first().copied(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use propnet::Net;
    use rand::{Rng, SeedableRng};

    /// The bundled two-board game's net, its program and its factors.
    fn dual() -> (Net, Arc<Program>, Factors) {
        let net = testkit::bundled("dualtictactoe").1;
        let factors = Factors::discover(&net, None).expect("no deadline");
        let program = Arc::new(Program::new(&net));
        (net, program, factors)
    }

    /// The bundled tally game's net, its program and its neighbourhoods (its two boards).
    fn tally() -> (Net, Arc<Program>, Factors) {
        let net = testkit::bundled("tallytictactoe").1;
        let locality = analysis::Locality::analyse(&net, None).expect("no deadline");
        let factors = Factors::of(&net, &locality).neighbourhoods(&net, &locality, None).expect("two neighbourhoods");
        let program = Arc::new(Program::new(&net));
        (net, program, factors)
    }

    /// A search of the two-board game moved to the state after `marks` (xplayer first,
    /// alternating; each `(board, row, column)`).
    fn after(marks: &[(&str, u32, u32)]) -> Factored {
        after_in(dual(), marks)
    }

    /// A search of `game` (as [`dual`] or [`tally`] give it) moved along `marks` as [`after`].
    fn after_in(game: (Net, Arc<Program>, Factors), marks: &[(&str, u32, u32)]) -> Factored {
        let (_, program, factors) = game;
        let config = MctsConfig { threads: 1, seed: 3, max_nodes: 200_000, ..MctsConfig::default() };
        let mut search = Factored::new(program, &factors, &config).expect("starts").expect("two factors");
        for (i, (board, m, n)) in marks.iter().enumerate() {
            let mover = i % 2;
            let mark = search.machine().find_move(mover, &format!("(mark {board} {m} {n})")).expect("a move");
            let noop = search.machine().find_move(1 - mover, "noop").expect("noop");
            let joint = if mover == 0 { [mark, noop] } else { [noop, mark] };
            search.advance(&joint).expect("legal");
        }
        search
    }

    /// The printed move the search plays for `role` after `iterations` iterations per tree.
    fn choice(search: &mut Factored, role: usize, iterations: u64) -> String {
        search.search_iterations(iterations).expect("searches");
        let mv = search.best_move(role).expect("rules work").expect("a move");
        search.machine().format_move(&mv)
    }

    #[test]
    fn the_two_boards_are_two_factors_that_matter() {
        let (_, _, factors) = dual();
        assert_eq!(factors.relevant().len(), 2, "{factors:?}");
    }

    /// A factor's view plays its own board exactly as the game does and never moves the
    /// other board, whatever is played elsewhere.
    #[test]
    fn a_view_plays_its_board_as_the_game_does_and_freezes_the_other() {
        let (net, program, factors) = dual();
        let mut real = PropnetMachine::new(&net);
        let mut rng = SmallRng::seed_from_u64(11);
        for f in 0..2 {
            let own_bases: Vec<u32> = factors.factors[f].bases.clone();
            let other_bases: Vec<u32> = factors.factors[1 - f].bases.clone();
            for _ in 0..50 {
                let start = real.initial_state();
                let mut view = FactorView::new(Arc::clone(&program), &factors, f, start.clone());
                let (mut game, mut seen) = (start.clone(), start);
                while !real.is_terminal(&game).expect("works") {
                    let joint: Vec<u32> = (0..2)
                        .map(|r| {
                            let legal = real.legal_moves(&game, r).expect("works");
                            legal[rng.random_range(0..legal.len())]
                        })
                        .collect();
                    // The view's own moves and passes are the game's; a move on the other
                    // board is its elsewhere move.
                    let seen_joint: Vec<u32> = (0..2)
                        .map(|r| {
                            let legal = view.legal_moves(&seen, r).expect("works");
                            match legal.contains(&joint[r]) {
                                true => joint[r],
                                false => {
                                    assert!(legal.contains(&view.elsewhere()), "no elsewhere move offered");
                                    view.elsewhere()
                                }
                            }
                        })
                        .collect();
                    let before = seen.clone();
                    game = real.next_state(&game, &joint).expect("legal");
                    seen = view.next_state(&seen, &seen_joint).expect("legal in the view");
                    for &b in &own_bases {
                        assert_eq!(seen.contains(b as usize), game.contains(b as usize), "own base {b}");
                    }
                    for &b in &other_bases {
                        assert_eq!(seen.contains(b as usize), before.contains(b as usize), "frozen base {b}");
                    }
                }
            }
        }
    }

    #[test]
    fn it_takes_a_win_on_the_board_that_offers_one() {
        // x holds two of the right board's top row with its third cell open (o threatens on
        // the left, but x moves first).
        let mut s = after(&[("right", 1, 1), ("left", 2, 2), ("right", 1, 2), ("left", 3, 3)]);
        assert_eq!(choice(&mut s, 0, 3000), "(mark right 1 3)");
    }

    #[test]
    fn it_blocks_on_the_board_where_the_opponent_threatens() {
        // o holds two of the left board's middle column; x has nothing to win at once, so it
        // must take the left board's last cell of that column.
        let mut s = after(&[("right", 1, 1), ("left", 1, 2), ("left", 3, 3), ("left", 2, 2)]);
        assert_eq!(choice(&mut s, 0, 3000), "(mark left 3 2)");
    }

    #[test]
    fn the_trees_follow_the_game_to_its_end() {
        for (game, seed) in [(dual(), 5), (tally(), 6), (tally(), 7)] {
            let (net, program, factors) = game;
            let config = MctsConfig { threads: 1, seed, max_nodes: 100_000, ..MctsConfig::default() };
            let mut search = Factored::new(program, &factors, &config).expect("starts").expect("two factors");
            let mut real = PropnetMachine::new(&net);
            let mut state = real.initial_state();
            while !real.is_terminal(&state).expect("works") {
                search.search_iterations(200).expect("searches");
                let joint: Vec<u32> = (0..2).map(|r| search.best_move(r).expect("works").expect("a move")).collect();
                state = real.next_state(&state, &joint).expect("the search plays legal moves");
                search.advance(&joint).expect("every tree follows");
                // Each tree's root holds the real values of its own bases, the control and the
                // shared tally (a point scored on the other board rebuilds it).
                for tree in &search.trees {
                    assert!(tree.machine().agrees(tree.root_state(), &state));
                }
            }
        }
    }

    #[test]
    fn in_neighbourhoods_it_takes_the_point_its_board_offers() {
        // x holds two of the left board's top row with its third cell open; o has no threat.
        let mut s = after_in(tally(), &[("left", 1, 1), ("right", 1, 1), ("left", 1, 2), ("right", 3, 2)]);
        assert_eq!(choice(&mut s, 0, 3000), "(mark left 1 3)");
    }

    #[test]
    fn in_neighbourhoods_it_blocks_the_point_the_opponent_threatens() {
        // o holds two of the right board's diagonal. x, with nothing on the left board to
        // threaten with, must block there (which also forks o on the right).
        let mut s = after_in(tally(), &[("right", 1, 3), ("right", 1, 1), ("right", 3, 1), ("right", 2, 2)]);
        assert_eq!(choice(&mut s, 0, 3000), "(mark right 3 3)");
    }

    #[test]
    fn in_neighbourhoods_it_takes_the_point_that_also_blocks_one() {
        // On the left board x holds the top row's right two and threatens its first cell, which
        // would also give o the diagonal. The left tree proves that win at once; its value must
        // be set against staying out (which loses the point), not against the one playout the
        // pass had when the proof arrived, while the empty right board offers o a middling gain.
        let marks = [("left", 1, 3), ("left", 2, 2), ("left", 2, 3), ("left", 3, 3), ("left", 1, 2)];
        let mut s = after_in(tally(), &marks);
        assert_eq!(choice(&mut s, 1, 3000), "(mark left 1 1)");
    }
}
