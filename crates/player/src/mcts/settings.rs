//! The `mcts` player's options and its one table of settings: each part a `no-NAME` switch
//! turns off and each number a `NAME=VALUE` switch sets, with its default, the values it takes
//! and what it means. The defaults, the parser and the settings reference in docs/match.md
//! (a test keeps it in step) all read the table.

use super::PlayerError;
use metagame::{Knowledge, MoveVariety, Wanted};
use search::mcts::MctsConfig;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

/// How the player prepares and searches.
#[derive(Debug, Clone)]
pub struct MctsOptions {
    /// Analyse the game at the start and let the search use its goal latches.
    pub analysis: bool,
    /// Keep searching between move requests (on the opponents' time).
    pub ponder: bool,
    /// Playouts take decisive moves and avoid anti-decisive ones (see [`metagame::Knowledge`]).
    pub tactics: bool,
    /// Run the local forced-win search beside the tree where the analysis finds the game's
    /// moves local enough (see [`crate::local`]).
    pub local: bool,
    /// The share of processor time the local search's thread keeps to while its searches prove
    /// something (it pauses the search whenever it is ahead), since it takes the time from the
    /// tree where they share a core.
    pub local_share: f64,
    /// The share it keeps to while its searches have proved nothing at the last two roots.
    pub local_idle: f64,
    /// Hand the search the goal forms the analysis confirms: goal emulation, virtual terminals
    /// and latch heuristics.
    pub forms: bool,
    /// Let the search leave aside the factors the analysis finds irrelevant.
    pub factors: bool,
    /// In a game of several roles where several factors (or, failing those, neighbourhoods
    /// joined by a few shared propositions) can each end or score the game, search each in a
    /// tree of its own (see [`search::factored::Factored`]).
    pub factored: bool,
    /// Look for the roles' pieces (see [`metagame::Pieces`]): where random games find them, they give the
    /// tree its priors (and, with `search.placement`, where they stand too) and score the
    /// playouts cut off after `search.cutoff` joint moves.
    pub pieces: bool,
    /// Where the roles have no pieces, give the tree priors from chapter 16's fuzzy goal
    /// heuristic, once random games confirm that it predicts the score (see [`metagame::Outlook`]).
    pub outlook: bool,
    /// Steer playouts by move averages (`search.mast` is the greedy chance) where the game's
    /// moves say where they are played (see [`MoveVariety`]).
    pub mast: bool,
    /// Where every joint move from the current state ends the game and several roles choose
    /// (a one-shot game, a last round), draw the move from an equilibrium of the payoffs
    /// instead of taking the tree's most visited (see [`search::matrix`]).
    pub matrix: bool,
    /// Where several roles choose at once and regret matching picks their moves, draw the move
    /// from the tree's mixed strategy instead of taking the most visited (see
    /// [`search::mcts::Mcts::checked_best_move`]).
    pub mixed: bool,
    /// Where several roles choose at once, take the others to see our move before they choose
    /// theirs, valuing each of our moves at their best replies to it (see
    /// [`MctsConfig::leader`]), in place of regret matching and the mixed strategy's draw.
    pub paranoid: bool,
    /// The search's own settings (threads, seed, pool size, exploration).
    pub search: MctsConfig,
}

/// The chance that a playout plays the move of best average where the player uses move
/// averages: an ε-greedy choice with ε = 0.4, the setting Tak, Winands and Björnsson found
/// best for MAST across games ("N-Grams and the Last-Good-Reply Policy Applied in General Game
/// Playing", IEEE TCIAIG 2012).
const MAST_GREEDY: f64 = 0.6;

/// How fast a move's all-moves-as-first statistics give way to its own visits, where the
/// player keeps them (`MctsConfig::rave`): none by default. With the Sancho player's weight,
/// 0.05, the player lost to random play in Dual Tic-Tac-Toe at 300 ms a move in two of four
/// six-game series that it won without them five times of five, and went 11–9 in
/// nineBoardTicTacToe self-play (BENCHMARKS.md).
const RAVE: f64 = 0.0;

/// The points a role's score at the end gains for each other role it ties, twice that for each
/// it beats, where the goals are not proved zero-sum (`MctsConfig::rivalry`): the Sancho player's
/// competitiveness bonus.
const RIVALRY: f64 = 2.0;

/// Joint moves after which a guided playout stops and is scored by the roles' piece balance,
/// where the game has pieces: long enough for the exchanges a move starts to play out, short
/// enough that the material is still the leaf's. Measured in Breakthrough self-play
/// (BENCHMARKS.md).
const CUTOFF: u32 = 10;

/// How much the pieces' placement counts beside their number, where random games confirmed
/// one: the score it predicts, as is. Against Sancho in Breakthrough 26–24 over 50 matches with
/// it, 3–7 over 10 without it (BENCHMARKS.md).
const PLACEMENT: f64 = 1.0;

/// The chance that a guided playout's move is the one gaining the most material, where the
/// game has pieces. Against the player without it, 16–4 in Knightthrough and 14–6 in
/// Breakthrough self-play at a 1 s clock (BENCHMARKS.md).
const CAPTURES: f64 = 0.5;

/// The share of the time the local search's thread searches by default. On one core, all of it
/// cost Breakthrough 11–19 against no local search over 30 matches, a quarter went 16–14
/// (BENCHMARKS.md). Those shares were nominal: the thread rested between iterations, a new root
/// ended the rest, and an iteration ran on until the root moved, so it had 28–44% of the core
/// at a nominal quarter (mean 34%) and 30–48% through most of a match even at a tenth. It now
/// keeps to its share inside iterations too (see `local::Governor`).
const LOCAL_SHARE: f64 = 0.25;

/// The share of the time the local search's thread searches while it has proved nothing at
/// the last two roots (the opening, and a middlegame whose forced lines run past its horizon),
/// so that the tree has the core there; at a twentieth the shallow iterations that see a
/// tactic beginning still run, and the first proof gives the thread its full share again.
const LOCAL_IDLE: f64 = 0.05;

/// What a setting is.
#[derive(Clone, Copy)]
pub enum Kind {
    /// A part of the player, on by default unless `on` is false: `no-NAME` turns it off,
    /// `NAME` on.
    Part { flag: fn(&mut MctsOptions) -> &mut bool, on: bool },
    /// A number within `range`, listed in the reference under `topic`.
    Number { field: fn(&mut MctsOptions) -> Field<'_>, range: Range, default: Default, topic: Topic },
}

/// What a number setting tunes: the reference lists each topic's settings in a table of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topic {
    /// How the search runs: threads and batches.
    Running,
    /// Selection in the tree.
    Tree,
    /// The local forced-win search.
    Local,
    /// The other roles' scores and choices.
    Others,
    /// Playouts and the material check.
    Playouts,
}

impl Topic {
    /// The topics in the reference's order.
    const ALL: [Topic; 5] = [Topic::Running, Topic::Tree, Topic::Local, Topic::Others, Topic::Playouts];

    /// The heading of the topic's table.
    fn heading(self) -> &'static str {
        match self {
            Topic::Running => "Threads and batches",
            Topic::Tree => "Selection in the tree",
            Topic::Local => "The local search",
            Topic::Others => "The other roles",
            Topic::Playouts => "Playouts and the material check",
        }
    }
}

/// Where a number's default comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Default {
    /// The search's own ([`MctsConfig::default`]).
    Search,
    /// The player's, this value.
    Player(f64),
    /// The machine's, as the search finds it (the text says what it is).
    Machine(&'static str),
}

/// The option a number sets.
pub enum Field<'a> {
    Real(&'a mut f64),
    Whole(&'a mut usize),
    Count(&'a mut u32),
}

/// The values a number takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Range {
    /// A whole number from the first to the second.
    Whole(u32, u32),
    /// Any finite number of at least 0.
    NonNegative,
    /// A share that must not vanish: over 0, at most 1.
    Share,
    /// A chance: 0 to 1.
    Chance,
}

impl Range {
    /// `v` if it lies in the range, or why not.
    fn check(self, v: f64) -> Result<f64, &'static str> {
        let ok = match self {
            Range::Whole(lo, hi) => v.fract() == 0.0 && v >= f64::from(lo) && v <= f64::from(hi),
            Range::NonNegative => v.is_finite() && v >= 0.0,
            Range::Share => v > 0.0 && v <= 1.0,
            Range::Chance => (0.0..=1.0).contains(&v),
        };
        ok.then_some(v).ok_or(match self {
            Range::Whole(..) => "out of range or not a whole number",
            Range::NonNegative => "must be a number of at least 0",
            Range::Share => "must be a number over 0 and at most 1",
            Range::Chance => "must be a number from 0 to 1",
        })
    }

    /// The range as the settings reference writes it.
    fn describe(self) -> String {
        match self {
            Range::Whole(lo, hi) => format!("{lo}–{hi}"),
            Range::NonNegative => "≥ 0".to_owned(),
            Range::Share => "over 0, ≤ 1".to_owned(),
            Range::Chance => "0–1".to_owned(),
        }
    }
}

/// One setting of the `mcts` player.
#[derive(Clone, Copy)]
pub struct Setting {
    /// Its name in a spec: `mcts:no-NAME` for a part, `mcts:NAME=VALUE` for a number.
    pub name: &'static str,
    pub kind: Kind,
    /// What it does, in a line.
    pub meaning: &'static str,
}

impl Setting {
    /// Sets a number to `v`, or says why it cannot take it.
    fn set(&self, options: &mut MctsOptions, v: f64) -> Result<(), &'static str> {
        let Kind::Number { field, range, .. } = self.kind else { return Err("not a number setting") };
        let v = range.check(v)?;
        match field(options) {
            Field::Real(x) => *x = v,
            Field::Whole(x) => *x = v as usize,
            Field::Count(x) => *x = v as u32,
        }
        Ok(())
    }
}

/// Every setting of the `mcts` player: its parts first, then its numbers.
pub const SETTINGS: [Setting; 33] = [
    part("analysis", |o| &mut o.analysis, "analyse the game during the start clock and hand the search what it finds"),
    part("ponder", |o| &mut o.ponder, "keep searching between move requests, on the opponents' time"),
    part(
        "tactics",
        |o| &mut o.tactics,
        "playouts take decisive moves and take back anti-decisive ones, where measuring shows they pay",
    ),
    part(
        "local",
        |o| &mut o.local,
        "run the local forced-win search beside the tree where the analysis finds the moves local",
    ),
    part(
        "forms",
        |o| &mut o.forms,
        "use the goal forms the analysis confirms: goal emulation, virtual terminals, latch heuristics",
    ),
    part("factors", |o| &mut o.factors, "leave aside the factors the analysis finds irrelevant"),
    part(
        "factored",
        |o| &mut o.factored,
        "search each factor (or neighbourhood) of a game of several roles in a tree of its own",
    ),
    part("mast", |o| &mut o.mast, "steer playouts by move averages where the game's moves say where they are played"),
    part(
        "pieces",
        |o| &mut o.pieces,
        "look for the roles' pieces, for the tree's priors and the cut-off playouts' scores",
    ),
    part(
        "outlook",
        |o| &mut o.outlook,
        "where there are no pieces, take the tree's priors from an outlook random games confirm",
    ),
    part(
        "matrix",
        |o| &mut o.matrix,
        "where every joint move ends the game and several roles choose, draw from an equilibrium",
    ),
    part(
        "mixed",
        |o| &mut o.mixed,
        "where several roles choose at once, draw the move from the tree's mixed strategy, not its most visited",
    ),
    Setting {
        name: "paranoid",
        kind: Kind::Part { flag: |o| &mut o.paranoid, on: false },
        meaning: "where several roles choose at once, value each of our moves at the others' best replies to it",
    },
    part(
        "check",
        |o| &mut o.search.material_check,
        "check the move played against the piece balance three to five plies deep",
    ),
    part(
        "transpositions",
        |o| &mut o.search.transpositions,
        "value a move by every iteration through the state it leads to",
    ),
    part(
        "dominance",
        |o| &mut o.search.dominance,
        "leave alone moves whose goal latches keep them below what another move is sure of",
    ),
    number(
        "batch",
        Topic::Running,
        |o| Field::Whole(&mut o.search.batch),
        Range::Whole(1, 64),
        Default::Search,
        "leaves selected before their playouts run (guided playouts take at most 4)",
    ),
    number(
        "threads",
        Topic::Running,
        |o| Field::Whole(&mut o.search.threads),
        Range::Whole(1, 256),
        Default::Machine("one per core"),
        "search threads",
    ),
    number(
        "exploration",
        Topic::Tree,
        |o| Field::Real(&mut o.search.exploration),
        Range::NonNegative,
        Default::Search,
        "UCB's exploration constant, for scores scaled to 0–1",
    ),
    number(
        "latch-bias",
        Topic::Tree,
        |o| Field::Real(&mut o.search.latch_bias),
        Range::NonNegative,
        Default::Search,
        "weight of the goal latches' hint in selection",
    ),
    number(
        "heuristic-bias",
        Topic::Tree,
        |o| Field::Real(&mut o.search.heuristic_bias),
        Range::NonNegative,
        Default::Search,
        "weight of the latch heuristics' progressive bias in selection",
    ),
    number(
        "local-weight",
        Topic::Local,
        |o| Field::Real(&mut o.search.local_weight),
        Range::NonNegative,
        Default::Search,
        "what a local forced win adds to a move's value and a forced loss takes away",
    ),
    number(
        "local-share",
        Topic::Local,
        |o| Field::Real(&mut o.local_share),
        Range::Share,
        Default::Player(LOCAL_SHARE),
        "the local search thread's share of processor time while it proves something",
    ),
    number(
        "local-idle",
        Topic::Local,
        |o| Field::Real(&mut o.local_idle),
        Range::Share,
        Default::Player(LOCAL_IDLE),
        "its share while it has proved nothing at the last two roots",
    ),
    number(
        "mast",
        Topic::Playouts,
        |o| Field::Real(&mut o.search.mast),
        Range::Chance,
        Default::Player(MAST_GREEDY),
        "the chance that a playout plays the move of best average, where averages are used",
    ),
    number(
        "rave",
        Topic::Tree,
        |o| Field::Real(&mut o.search.rave),
        Range::NonNegative,
        Default::Player(RAVE),
        "keep all-moves-as-first statistics in games of marks without pieces, at this weight (0: none)",
    ),
    number(
        "rivalry",
        Topic::Others,
        |o| Field::Real(&mut o.search.rivalry),
        Range::NonNegative,
        Default::Player(RIVALRY),
        "points a role's final score gains per role it ties, twice per role it beats, unless zero-sum",
    ),
    number(
        "prior",
        Topic::Tree,
        |o| Field::Real(&mut o.search.prior_visits),
        Range::NonNegative,
        Default::Search,
        "how many playouts a move's prior counts as (0 leaves the priors out)",
    ),
    number(
        "cutoff",
        Topic::Playouts,
        |o| Field::Count(&mut o.search.cutoff),
        Range::Whole(0, 100_000),
        Default::Player(CUTOFF as f64),
        "joint moves after which a guided playout stops and is scored by the pieces (0: never)",
    ),
    number(
        "placement",
        Topic::Playouts,
        |o| Field::Real(&mut o.search.placement),
        Range::NonNegative,
        Default::Player(PLACEMENT),
        "how much where the pieces stand counts beside how many there are",
    ),
    number(
        "regret",
        Topic::Others,
        |o| Field::Real(&mut o.search.regret),
        Range::Chance,
        Default::Search,
        "where several roles choose at once, uniform choice mixed into regret matching (0: decoupled UCB)",
    ),
    number(
        "check-plies",
        Topic::Playouts,
        |o| Field::Count(&mut o.search.check_plies),
        Range::Whole(1, 15),
        Default::Search,
        "how deep the material check goes at most",
    ),
    number(
        "captures",
        Topic::Playouts,
        |o| Field::Real(&mut o.search.captures),
        Range::Chance,
        Default::Player(CAPTURES),
        "the chance that a guided playout plays the move that gains the most material",
    ),
];

/// A part of the player, on by default.
const fn part(name: &'static str, flag: fn(&mut MctsOptions) -> &mut bool, meaning: &'static str) -> Setting {
    Setting { name, kind: Kind::Part { flag, on: true }, meaning }
}

/// A number setting.
const fn number(
    name: &'static str,
    topic: Topic,
    field: fn(&mut MctsOptions) -> Field<'_>,
    range: Range,
    default: Default,
    meaning: &'static str,
) -> Setting {
    Setting { name, kind: Kind::Number { field, range, default, topic }, meaning }
}

impl std::default::Default for MctsOptions {
    /// Every part on and every number at its default in [`SETTINGS`]; the search's other
    /// settings (pool size, seed) and the numbers the player leaves to the search at
    /// [`MctsConfig`]'s defaults.
    fn default() -> MctsOptions {
        // Every field the table names is set from it below.
        let mut options = MctsOptions {
            analysis: false,
            ponder: false,
            tactics: false,
            local: false,
            local_share: 0.0,
            local_idle: 0.0,
            forms: false,
            factors: false,
            factored: false,
            mast: false,
            pieces: false,
            outlook: false,
            matrix: false,
            mixed: false,
            paranoid: false,
            search: MctsConfig::default(),
        };
        for setting in &SETTINGS {
            match setting.kind {
                Kind::Part { flag, on } => *flag(&mut options) = on,
                Kind::Number { default: Default::Player(v), .. } => {
                    setting.set(&mut options, v).expect("defaults lie in range");
                }
                Kind::Number { default: Default::Search | Default::Machine(_), .. } => {}
            }
        }
        options
    }
}

/// The switches that turn the parts off (`no-NAME`) or, for those off by default, on
/// (`NAME`), for messages.
pub fn mcts_switches() -> impl Iterator<Item = String> {
    SETTINGS.iter().filter_map(|s| match s.kind {
        Kind::Part { on: true, .. } => Some(format!("no-{}", s.name)),
        Kind::Part { on: false, .. } => Some(s.name.to_owned()),
        Kind::Number { .. } => None,
    })
}

/// The names of the settings a `NAME=VALUE` switch sets, for messages.
pub fn mcts_settings() -> impl Iterator<Item = &'static str> {
    SETTINGS.iter().filter(|s| matches!(s.kind, Kind::Number { .. })).map(|s| s.name)
}

/// The settings reference, Markdown tables (the parts, then the numbers, a table per
/// [`Topic`]): docs/match.md holds it as written here. Defaults are read from the default
/// options, except the machine's, which are described.
pub fn settings_reference() -> String {
    let mut defaults = MctsOptions::default();
    let header = "| setting | values | default | what it does |\n|---|---|---|---|\n";
    let mut parts = String::from("| part | switch | default | what it does |\n|---|---|---|---|\n");
    let mut numbers: Vec<String> = Topic::ALL.iter().map(|t| format!("{}:\n\n{header}", t.heading())).collect();
    for s in &SETTINGS {
        let _ = match s.kind {
            Kind::Part { on: true, .. } => writeln!(parts, "| {0} | `no-{0}` | on | {1} |", s.name, s.meaning),
            Kind::Part { on: false, .. } => writeln!(parts, "| {0} | `{0}` | off | {1} |", s.name, s.meaning),
            Kind::Number { range, field, default, topic } => {
                let value = match (default, field(&mut defaults)) {
                    (Default::Machine(text), _) => text.to_owned(),
                    (_, Field::Real(x)) => x.to_string(),
                    (_, Field::Whole(x)) => x.to_string(),
                    (_, Field::Count(x)) => x.to_string(),
                };
                let table = &mut numbers[Topic::ALL.iter().position(|&t| t == topic).expect("every topic listed")];
                writeln!(table, "| `{}=N` | {} | {value} | {} |", s.name, range.describe(), s.meaning)
            }
        };
    }
    format!("{parts}\n{}", numbers.join("\n"))
}

impl MctsOptions {
    /// The default options with the search's random choices seeded by `seed`.
    pub fn seeded(seed: u64) -> MctsOptions {
        let mut options = MctsOptions::default();
        options.search.seed = seed;
        options
    }

    /// The search's settings for playing `role`: with `paranoid`, the role the others answer.
    pub(super) fn search_as(&self, role: usize) -> MctsConfig {
        MctsConfig { leader: self.paranoid.then_some(role), ..self.search.clone() }
    }

    /// The search's settings for playing `role` in a game compiled as `program` about which the
    /// preparation learned `knowledge`: move averages and all-moves-as-first statistics are left
    /// off unless the options ask for them and random games of it (within `budget`) show what
    /// they need.
    pub(super) fn search_for(
        &self,
        role: usize,
        program: &Arc<propnet::Program>,
        knowledge: Option<&Knowledge>,
        budget: Duration,
    ) -> MctsConfig {
        let mut config = self.search_as(role);
        let variety = (self.wants_move_averages() || self.wants_rave())
            .then(|| MoveVariety::measure(program, budget, config.seed));
        if !self.wants_move_averages() || !variety.is_some_and(|v| v.pays()) {
            config.mast = 0.0;
        }
        if !self.keeps_rave(program.roles().len(), knowledge, variety.as_ref()) {
            config.rave = 0.0;
        }
        config
    }

    /// Whether these options steer the playouts by move averages where the game's moves show
    /// the variety they need ([`MoveVariety::pays`]).
    pub fn wants_move_averages(&self) -> bool {
        self.mast && self.search.mast != 0.0
    }

    /// Whether these options keep all-moves-as-first statistics where the game allows.
    pub fn wants_rave(&self) -> bool {
        self.search.rave > 0.0
    }

    /// Whether these options keep all-moves-as-first statistics in a game of `roles` roles with
    /// `knowledge` and the moves' `variety`: where they are wanted and the game suits them
    /// ([`MctsOptions::suits_rave`]).
    pub fn keeps_rave(&self, roles: usize, knowledge: Option<&Knowledge>, variety: Option<&MoveVariety>) -> bool {
        self.wants_rave() && Self::suits_rave(roles, knowledge, variety)
    }

    /// Whether a game of `roles` roles with `knowledge` and the moves' `variety` suits
    /// all-moves-as-first statistics: a game of marks ([`MoveVariety::marks`]) with an
    /// opponent, whose roles have no pieces (their material gives the tree's priors; the
    /// statistics would swamp them).
    pub fn suits_rave(roles: usize, knowledge: Option<&Knowledge>, variety: Option<&MoveVariety>) -> bool {
        let pieces = knowledge.is_some_and(|k| k.pieces().is_some());
        roles > 1 && !pieces && variety.is_some_and(MoveVariety::marks)
    }

    /// What the preparation should learn for these options: pieces only where the priors or the
    /// cut-off playouts read them, and an outlook only for the priors.
    pub fn wanted(&self) -> Wanted {
        let s = &self.search;
        let balance = s.prior_visits > 0.0 || s.cutoff > 0;
        Wanted {
            tactics: self.tactics,
            forms: self.forms,
            factors: self.factors,
            locality: true,
            pieces: self.pieces && balance,
            outlook: self.outlook && s.prior_visits > 0.0,
        }
    }

    /// The options as `switches` change them, joined by colons: `no-NAME` turns off a part,
    /// `NAME` turns on one that is off by default, `NAME=VALUE` sets a number
    /// (`no-forms:batch=8`); see [`SETTINGS`].
    pub fn adjusted(mut self, switches: &str) -> Result<MctsOptions, PlayerError> {
        for switch in switches.split(':') {
            let unknown = || PlayerError::Switch(switch.to_owned());
            if let Some((name, value)) = switch.split_once('=') {
                let numbers = SETTINGS.iter().filter(|s| matches!(s.kind, Kind::Number { .. }));
                let setting = numbers.into_iter().find(|s| s.name == name).ok_or_else(unknown)?;
                let v: f64 = value.parse().map_err(|_| PlayerError::Setting(switch.to_owned(), "not a number"))?;
                setting.set(&mut self, v).map_err(|why| PlayerError::Setting(switch.to_owned(), why))?;
                continue;
            }
            let (name, on) = match switch.strip_prefix("no-") {
                Some(name) => (name, false),
                None => (switch, true),
            };
            // A part on by default is only turned off, one off by default only on.
            let flag = SETTINGS.iter().find_map(|s| match s.kind {
                Kind::Part { flag, on: default } if s.name == name && default != on => Some(flag),
                _ => None,
            });
            *flag.ok_or_else(unknown)?(&mut self) = on;
        }
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/match.md holds the settings reference exactly as the table writes it.
    #[test]
    fn the_settings_reference_in_the_docs_is_the_table() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/match.md");
        let docs = std::fs::read_to_string(path).expect("docs/match.md");
        let start = "<!-- settings: generated -->\n\n";
        let from = docs.find(start).expect("the start marker") + start.len();
        let to = docs[from..].find("<!-- end of settings -->").expect("the end marker") + from;
        assert!(
            docs[from..to] == settings_reference(),
            "docs/match.md's settings are out of date; between the markers put:\n{}",
            settings_reference()
        );
    }

    #[test]
    fn all_moves_as_first_statistics_are_kept_in_games_of_marks_with_an_opponent() {
        let marks = MoveVariety { legal_share: 0.5, choices: 1_000, fixed_share: 1.0, repeat_share: 0.0 };
        assert!(!MctsOptions::default().keeps_rave(2, None, Some(&marks)), "off by default");
        let options = MctsOptions::default().adjusted("rave=0.05").expect("a setting");
        assert!(options.keeps_rave(2, None, Some(&marks)));
        assert!(!options.keeps_rave(1, None, Some(&marks)), "a puzzle");
        assert!(!options.keeps_rave(2, None, None), "not measured");
        let stepping = MoveVariety { repeat_share: 0.3, ..marks };
        assert!(!options.keeps_rave(2, None, Some(&stepping)));
        let unnamed = MoveVariety { fixed_share: 0.5, ..marks };
        assert!(!options.keeps_rave(2, None, Some(&unnamed)));
        let zero = options.adjusted("rave=0").expect("a setting");
        assert!(!zero.keeps_rave(2, None, Some(&marks)));
    }

    #[test]
    fn a_paranoid_player_has_the_search_answer_its_own_role() {
        let options = MctsOptions::default();
        assert_eq!(options.search_as(1).leader, None);
        let paranoid = options.adjusted("paranoid").expect("a part");
        assert_eq!(paranoid.search_as(1).leader, Some(1));
    }

    /// Every number's default lies in its range, and the default options hold it.
    #[test]
    fn defaults_lie_in_range_and_are_the_options_defaults() {
        let mut options = MctsOptions::default();
        for s in &SETTINGS {
            match s.kind {
                Kind::Part { flag, on } => assert_eq!(*flag(&mut options), on, "{}", s.name),
                Kind::Number { field, range, default, .. } => {
                    let value = match field(&mut options) {
                        Field::Real(x) => *x,
                        Field::Whole(x) => *x as f64,
                        Field::Count(x) => f64::from(*x),
                    };
                    assert_eq!(range.check(value), Ok(value), "{}", s.name);
                    if let Default::Player(v) = default {
                        assert_eq!(value, v, "{}", s.name);
                    }
                }
            }
        }
        let names: Vec<_> = SETTINGS.iter().map(|s| (s.name, matches!(s.kind, Kind::Part { .. }))).collect();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "a name is given twice for the same kind");
    }
}
