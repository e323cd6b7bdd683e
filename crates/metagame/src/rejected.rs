//! Why random games did not confirm what was looked for: a role's pieces or an outlook.

use std::time::Duration;

/// Why games did not confirm the roles' pieces or an outlook.
#[derive(Debug, Clone, PartialEq)]
pub enum Rejected {
    /// The game has one role: a lead needs others.
    OneRole,
    /// No group of base propositions is counted as pieces are (pieces only).
    NoCandidates,
    /// Too few games finished in the time (this many).
    FewGames(usize),
    /// Evaluating a node's successors costs more than a fifth of a game (outlooks only).
    Costly {
        /// The evaluations of one node's successors.
        node: Duration,
        /// One game, played and replayed.
        game: Duration,
    },
    /// A role's lead does not go with its score clearly enough in the games fitted on
    /// (outlooks only).
    Weak {
        /// The role.
        role: usize,
        /// The lead's correlation with the score.
        correlation: f64,
        /// The least that counts.
        threshold: f64,
    },
    /// No counted group goes with a role's score clearly enough in the games fitted on
    /// (pieces only).
    Uncounted {
        /// The role.
        role: usize,
        /// The best group's correlation with the score.
        correlation: f64,
        /// The least that counts.
        threshold: f64,
    },
    /// A role's lead does not predict the score in the other games.
    NotHeldOut {
        /// The role.
        role: usize,
        /// The lead's (or the outlook's curve's) correlation with the score.
        correlation: f64,
        /// The least that confirms.
        threshold: f64,
    },
    /// Every role's pieces are the same group, so no balance between them (pieces only).
    Alike,
    /// No lead to confirm: the goal formulas could not be instantiated in the time, and the
    /// goal forms confirmed no latch heuristic (outlooks only).
    NoLead,
}

impl Rejected {
    /// Why, in words, naming the roles by `roles` (or by number past its end).
    pub fn explain(&self, roles: &[String]) -> String {
        let name = |r: &usize| roles.get(*r).cloned().unwrap_or_else(|| format!("role {r}"));
        match self {
            Rejected::OneRole => "the game has one role".to_owned(),
            Rejected::NoCandidates => "no group of propositions is counted as pieces are".to_owned(),
            Rejected::FewGames(n) => format!("only {n} games finished in the time"),
            Rejected::Costly { node, game } => {
                format!("a node's successors take {node:.1?} to evaluate, over a fifth of a game's {game:.1?}")
            }
            Rejected::Weak { role, correlation, threshold } => {
                format!("{}'s lead correlates {correlation:.3} with its score, under {threshold:.3}", name(role))
            }
            Rejected::Uncounted { role, correlation, threshold } => format!(
                "no counted group goes with {}'s score: the best correlates {correlation:.3}, under {threshold:.3}",
                name(role)
            ),
            Rejected::NotHeldOut { role, correlation, threshold } => format!(
                "{}'s lead correlates {correlation:.3} with its score in the games held out, under {threshold:.3}",
                name(role)
            ),
            Rejected::Alike => "every role's pieces are the same propositions".to_owned(),
            Rejected::NoLead => {
                "the goal formulas could not be instantiated in the time, and no latch heuristic was confirmed"
                    .to_owned()
            }
        }
    }
}

impl std::fmt::Display for Rejected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.explain(&[]))
    }
}
