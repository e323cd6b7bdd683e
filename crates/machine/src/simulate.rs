//! Random games that look for broken rules: a role without a legal move in a state that has not
//! ended, an ended state where a role has no goal value, several, or one outside 0–100, games
//! that do not end, roles that never get a choice, and states or moves the game's `base` and
//! `input` declarations leave out. Each finding comes with the shortest line of play seen to
//! reach it, so that an author can replay it.

use std::collections::BTreeSet;
use std::time::Instant;

use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use rand::SeedableRng;
use serde::Serialize;

use crate::StateMachine;

/// How many random games to play, and for how long.
#[derive(Debug, Clone)]
pub struct SimulateOptions {
    /// Games to play.
    pub games: usize,
    /// Joint moves after which a game that has not ended counts as not ending.
    pub max_steps: u32,
    /// When to stop even if fewer games were played.
    pub deadline: Option<Instant>,
    /// The seed of the random moves.
    pub seed: u64,
}

impl Default for SimulateOptions {
    fn default() -> Self {
        SimulateOptions { games: 300, max_steps: 1000, deadline: None, seed: 0x6368_6563_6b21 }
    }
}

/// What the game declares with `base` and `input`, in canonical KIF: `None` where it declares
/// nothing of the kind.
#[derive(Debug, Clone, Default)]
pub struct Declared {
    /// The base propositions.
    pub base: Option<BTreeSet<String>>,
    /// Per role, its moves.
    pub input: Option<Vec<BTreeSet<String>>>,
}

/// A kind of broken rule found in play.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Fault {
    /// A role has no legal move in a state that has not ended.
    NoLegalMove {
        /// The role.
        role: String,
    },
    /// A role has no goal value in an ended state.
    NoGoal {
        /// The role.
        role: String,
    },
    /// A role has several goal values in an ended state.
    SeveralGoals {
        /// The role.
        role: String,
        /// The values, ascending.
        values: Vec<u32>,
    },
    /// A role's goal value in an ended state is above 100.
    GoalOutOfRange {
        /// The role.
        role: String,
        /// The value.
        value: u32,
    },
    /// A game had not ended after the step limit.
    NoEnd {
        /// The limit.
        steps: u32,
    },
    /// A role never had more than one legal move in any game played.
    NeverChooses {
        /// The role.
        role: String,
    },
    /// A state held a proposition the `base` declarations leave out.
    UndeclaredBase {
        /// The proposition.
        proposition: String,
    },
    /// A role had a legal move its `input` declarations leave out.
    UndeclaredInput {
        /// The role.
        role: String,
        /// The move.
        #[serde(rename = "move")]
        mv: String,
    },
    /// The engine could not answer about a state the rules reached.
    Engine {
        /// What it said.
        message: String,
    },
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::NoLegalMove { role } => write!(f, "{role} has no legal move in a state that has not ended"),
            Fault::NoGoal { role } => write!(f, "{role} has no goal value in an ended state"),
            Fault::SeveralGoals { role, values } => {
                let values: Vec<String> = values.iter().map(u32::to_string).collect();
                write!(f, "{role} has several goal values in an ended state: {}", values.join(", "))
            }
            Fault::GoalOutOfRange { role, value } => write!(f, "{role}'s goal value {value} is above 100"),
            Fault::NoEnd { steps } => write!(f, "the game had not ended after {steps} joint moves"),
            Fault::NeverChooses { role } => write!(f, "{role} never had more than one legal move"),
            Fault::UndeclaredBase { proposition } => write!(f, "{proposition} held but is not declared by base"),
            Fault::UndeclaredInput { role, mv } => write!(f, "{role} could play {mv}, which input does not declare"),
            Fault::Engine { message } => write!(f, "the rules could not be run: {message}"),
        }
    }
}

/// One fault and where it was seen.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// What is wrong.
    pub fault: Fault,
    /// In how many of the games played it was seen.
    pub games: usize,
    /// The shortest line of play seen reaching it: per joint move, each role's move in KIF.
    /// Empty for the initial state, and for a role that never chose (no one line shows that).
    pub line: Vec<Vec<String>>,
}

/// What the random games showed.
#[derive(Debug, Clone, Serialize)]
pub struct Simulation {
    /// Games asked for.
    pub asked: usize,
    /// Games played to their end, to the step limit or to a fault.
    pub played: usize,
    /// Of those, the games that reached an ended state.
    pub ended: usize,
    /// The shortest and longest of those games, in joint moves, and the mean.
    pub length: Option<(u32, u32, f64)>,
    /// The time the games took.
    pub seconds: f64,
    /// Every fault found, in the order first seen.
    pub findings: Vec<Finding>,
}

impl Simulation {
    /// Whether the games found nothing wrong.
    pub fn is_clean(&self) -> bool {
        self.findings.is_empty()
    }
}

/// The findings of one game, before they join the others'.
struct Game {
    faults: Vec<(Fault, Vec<Vec<String>>)>,
}

impl Game {
    fn found(&mut self, fault: Fault, line: &[Vec<String>]) {
        if !self.faults.iter().any(|(f, _)| *f == fault) {
            self.faults.push((fault, line.to_vec()));
        }
    }
}

/// Plays `options.games` uniformly random games on `m` (fewer where the deadline comes first)
/// and reports what is wrong with the rules, checking states and moves against `declared`.
pub fn simulate<M: StateMachine>(m: &mut M, options: &SimulateOptions, declared: &Declared) -> Simulation {
    let start = Instant::now();
    let roles = m.roles().to_vec();
    let mut rng = SmallRng::seed_from_u64(options.seed);
    let mut findings: Vec<Finding> = Vec::new();
    let mut chose = vec![false; roles.len()];
    let (mut played, mut lengths) = (0, Vec::new());
    for _ in 0..options.games {
        if options.deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        let mut game = Game { faults: Vec::new() };
        let mut line: Vec<Vec<String>> = Vec::new();
        let mut state = m.initial_state();
        loop {
            check_declared(m, &state, declared, &line, &mut game);
            let terminal = match m.is_terminal(&state) {
                Ok(t) => t,
                Err(e) => break game.found(Fault::Engine { message: e.to_string() }, &line),
            };
            if terminal {
                check_goals(m, &state, &roles, &line, &mut game);
                lengths.push(line.len() as u32);
                break;
            }
            if line.len() as u32 >= options.max_steps {
                break game.found(Fault::NoEnd { steps: options.max_steps }, &line);
            }
            let mut joint = Vec::with_capacity(roles.len());
            let mut printed = Vec::with_capacity(roles.len());
            for (r, role) in roles.iter().enumerate() {
                let moves = match m.legal_moves(&state, r) {
                    Ok(moves) => moves,
                    Err(e) => {
                        game.found(Fault::Engine { message: e.to_string() }, &line);
                        continue;
                    }
                };
                chose[r] |= moves.len() > 1;
                if let Some(input) = &declared.input {
                    for mv in &moves {
                        let mv = m.format_move(mv);
                        if !input[r].contains(&mv) {
                            game.found(Fault::UndeclaredInput { role: role.clone(), mv }, &line);
                        }
                    }
                }
                match moves.choose(&mut rng) {
                    Some(mv) => {
                        printed.push(m.format_move(mv));
                        joint.push(mv.clone());
                    }
                    None => game.found(Fault::NoLegalMove { role: role.clone() }, &line),
                }
            }
            if joint.len() < roles.len() {
                break;
            }
            match m.next_state(&state, &joint) {
                Ok(next) => state = next,
                Err(e) => break game.found(Fault::Engine { message: e.to_string() }, &line),
            }
            line.push(printed);
        }
        played += 1;
        for (fault, line) in game.faults {
            match findings.iter_mut().find(|f| f.fault == fault) {
                Some(f) => {
                    f.games += 1;
                    if line.len() < f.line.len() {
                        f.line = line;
                    }
                }
                None => findings.push(Finding { fault, games: 1, line }),
            }
        }
    }
    if played > 0 {
        for (role, _) in roles.iter().zip(&chose).filter(|(_, &chose)| !chose) {
            findings.push(Finding {
                fault: Fault::NeverChooses { role: role.clone() },
                games: played,
                line: Vec::new(),
            });
        }
    }
    let length = (!lengths.is_empty()).then(|| {
        let (lo, hi) = (*lengths.iter().min().expect("some"), *lengths.iter().max().expect("some"));
        (lo, hi, lengths.iter().map(|&l| f64::from(l)).sum::<f64>() / lengths.len() as f64)
    });
    let seconds = start.elapsed().as_secs_f64();
    Simulation { asked: options.games, played, ended: lengths.len(), length, seconds, findings }
}

/// Reports the propositions of `state` its game's `base` declarations leave out.
fn check_declared<M: StateMachine>(
    m: &mut M,
    state: &M::State,
    declared: &Declared,
    line: &[Vec<String>],
    game: &mut Game,
) {
    let Some(base) = &declared.base else { return };
    for proposition in m.state_props(state) {
        if !base.contains(&proposition) {
            game.found(Fault::UndeclaredBase { proposition }, line);
        }
    }
}

/// Reports each role of the ended `state` without exactly one goal value from 0 to 100.
fn check_goals<M: StateMachine>(m: &mut M, state: &M::State, roles: &[String], line: &[Vec<String>], game: &mut Game) {
    for (r, role) in roles.iter().enumerate() {
        let role = role.clone();
        match m.goal_values(state, r) {
            Ok(values) => match values.as_slice() {
                [] => game.found(Fault::NoGoal { role }, line),
                [value] if *value > 100 => game.found(Fault::GoalOutOfRange { role, value: *value }, line),
                [_] => {}
                _ => game.found(Fault::SeveralGoals { role, values }, line),
            },
            Err(e) => game.found(Fault::Engine { message: e.to_string() }, line),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mock::{Counter, Nim};

    fn run<M: StateMachine>(m: &mut M, declared: &Declared) -> Simulation {
        simulate(m, &SimulateOptions { games: 50, ..SimulateOptions::default() }, declared)
    }

    fn faults(s: &Simulation) -> Vec<&Fault> {
        s.findings.iter().map(|f| &f.fault).collect()
    }

    #[test]
    fn sound_rules_show_nothing() {
        let s = run(&mut Nim::new(7), &Declared::default());
        assert!(s.is_clean(), "{:?}", s.findings);
        assert_eq!((s.played, s.ended), (50, 50));
        let (lo, hi, mean) = s.length.expect("games ended");
        assert!(4 <= lo && lo as f64 <= mean && mean <= hi as f64 && hi <= 7, "{lo} {hi} {mean}");
    }

    #[test]
    fn a_role_left_without_a_move_is_found_with_the_shortest_line_to_it() {
        // With 5 counters left the waiting role has no legal move: white, after it took 2 of
        // 7; black, after each took 1.
        let s = run(&mut Nim::new(7).stuck_at(5), &Declared::default());
        let line = |f: &Fault| s.findings.iter().find(|x| x.fault == *f).map(|x| x.line.clone());
        let take = |n: u32| format!("(take {n})");
        let white = Fault::NoLegalMove { role: "white".into() };
        let black = Fault::NoLegalMove { role: "black".into() };
        assert_eq!(s.findings.len(), 2, "{:?}", s.findings);
        assert_eq!(line(&white), Some(vec![vec![take(2), "noop".into()]]));
        assert_eq!(line(&black), Some(vec![vec![take(1), "noop".into()], vec!["noop".into(), take(1)]]));
        assert!(s.findings.iter().all(|f| f.games > 0 && f.games < 50), "{:?}", s.findings);
        assert_eq!(s.played, 50);
    }

    #[test]
    fn goals_that_are_not_one_value_are_found() {
        let s = run(&mut Nim::new(3).ambiguous_goal(), &Declared::default());
        assert_eq!(faults(&s), [&Fault::SeveralGoals { role: "black".into(), values: vec![0, 100] }]);
        assert_eq!(s.findings[0].games, 50);
    }

    #[test]
    fn engine_failures_games_without_end_and_roles_without_choice_are_found() {
        let s = run(&mut Nim::new(4).broken_at(2), &Declared::default());
        assert!(matches!(faults(&s)[..], [Fault::Engine { message }] if message.contains("broken at pile 2")));
        let options = SimulateOptions { games: 5, max_steps: 3, ..SimulateOptions::default() };
        let s = simulate(&mut Counter::new(100), &options, &Declared::default());
        assert_eq!(faults(&s), [&Fault::NoEnd { steps: 3 }]);
        assert_eq!(s.findings[0].line.len(), 3);
        // One counter: white takes it at once, and black never has more than a noop.
        let s = run(&mut Nim::new(1), &Declared::default());
        let never = [&Fault::NeverChooses { role: "white".into() }, &Fault::NeverChooses { role: "black".into() }];
        assert_eq!(faults(&s), never);
    }

    #[test]
    fn what_base_and_input_leave_out_is_found() {
        let base: BTreeSet<String> = (1..=3).map(|n| format!("(pile {n})")).chain(["(control white)".into()]).collect();
        let input = vec![["(take 1)".to_owned()].into(), ["noop".to_owned()].into()];
        let s = run(&mut Nim::new(3), &Declared { base: Some(base), input: Some(input) });
        let found = faults(&s);
        assert!(found.contains(&&Fault::UndeclaredBase { proposition: "(control black)".into() }), "{found:?}");
        assert!(found.contains(&&Fault::UndeclaredBase { proposition: "(pile 0)".into() }), "{found:?}");
        assert!(found.contains(&&Fault::UndeclaredInput { role: "white".into(), mv: "(take 2)".into() }), "{found:?}");
        assert!(!found.contains(&&Fault::UndeclaredBase { proposition: "(pile 3)".into() }), "{found:?}");
        // A move legal in the initial state is found with an empty line.
        let take2 = s
            .findings
            .iter()
            .find(|f| f.fault == Fault::UndeclaredInput { role: "white".into(), mv: "(take 2)".into() });
        assert_eq!(take2.expect("found").line, Vec::<Vec<String>>::new());
    }
}
