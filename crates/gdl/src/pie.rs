//! The pie rule, written into a game's rules: after the first player's first turn, the second
//! player may `swap` instead of replying. A swap leaves the position as it is and exchanges the
//! roles the two seats play: from then on each seat moves, and is scored, as the other's
//! original role.
//!
//! The variant keeps every rule of the game, with `legal`, `goal`, `next`, `does` and `input`
//! renamed so that they speak of the original roles, and adds a fluent saying which original
//! role each seat plays. A seat's legal moves and goal are its role's; what a seat does, its role
//! does; the game's own `next` runs on every joint move but the swap, which carries the position
//! over unchanged. Which role moves first, and which move is the waiting role's, are the
//! caller's to find (they come from play, not from the rules); the transform assumes two roles.

use crate::ast::{Atom, Description, Literal, Rule, Term};
use crate::symbol::Sym;
use std::collections::BTreeSet;

/// The names the variant adds, chosen not to clash with any symbol of the game.
struct Names {
    /// Prefix of the added relations and the renamed keywords.
    prefix: String,
    /// The swap move.
    swap: String,
}

impl Names {
    fn new(desc: &Description) -> Names {
        let used = symbols(desc);
        let taken = |prefix: &str| used.iter().any(|s| s.starts_with(prefix));
        let prefix = (0..).map(|k| if k == 0 { "pie_".to_owned() } else { format!("pie{k}_") }).find(|p| !taken(p));
        let prefix = prefix.expect("some prefix is free");
        let swap = if used.contains("swap") { format!("{prefix}swap") } else { "swap".to_owned() };
        Names { prefix, swap }
    }

    fn renamed(&self, rel: Sym) -> Sym {
        match rel {
            Sym::LEGAL | Sym::GOAL | Sym::NEXT | Sym::DOES | Sym::INPUT => Sym::new(&format!("{}{rel}", self.prefix)),
            _ => rel,
        }
    }
}

/// Every symbol the rules use, in lower case as they are read.
fn symbols(desc: &Description) -> BTreeSet<String> {
    fn term(t: &Term, out: &mut BTreeSet<String>) {
        match t {
            Term::Const(c) => {
                out.insert(c.to_string());
            }
            Term::Var(_) => {}
            Term::Func(f, args) => {
                out.insert(f.to_string());
                args.iter().for_each(|a| term(a, out));
            }
        }
    }
    let mut out = BTreeSet::new();
    for rule in &desc.rules {
        let mut atoms = vec![&rule.head];
        for literal in &rule.body {
            literal.for_each_atom(true, &mut |a, _| atoms.push(a));
            if let Literal::Distinct(s, t) = literal {
                term(s, &mut out);
                term(t, &mut out);
            }
        }
        for atom in atoms {
            out.insert(atom.rel.to_string());
            atom.args.iter().for_each(|a| term(a, &mut out));
        }
    }
    out
}

/// Why a game's rules cannot take the pie rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PieError {
    /// The game does not have exactly two roles.
    #[error("the pie rule is for games of two roles; this game has {0}")]
    Roles(usize),
    /// The game uses GDL-II's `sees` or `random`.
    #[error("the game uses GDL-II ({0}); the pie rule is written for games of complete information")]
    Incomplete(&'static str),
}

/// The pie-rule variant of `desc`, as GDL text, where `idle` (canonical KIF, e.g. `noop`) is
/// the move of the role waiting for the other's and `first` (0 or 1) the role that opens. The
/// swap is offered in the first state where the other role has a move other than `idle`: after
/// the opener's whole first turn, however many joint moves it takes (pentago's placing and
/// turning).
pub fn pie_variant(desc: &Description, idle: &str, first: usize) -> Result<String, PieError> {
    let roles = desc.roles();
    if roles.len() != 2 {
        return Err(PieError::Roles(roles.len()));
    }
    let second = roles[1 - first.min(1)];
    let used = symbols(desc);
    if used.contains("sees") {
        return Err(PieError::Incomplete("sees"));
    }
    if roles.contains(&Sym::RANDOM) {
        return Err(PieError::Incomplete("the random role"));
    }
    let names = Names::new(desc);
    let declares = |rel: Sym| desc.rules.iter().any(|r| r.head.rel == rel);
    let mut out = String::new();
    out.push_str(&format!(
        "; The pie rule: after the first player's first turn, the player to reply may play {swap}\n\
         ; instead; the position stays, and each player plays the other's role from then on (the\n\
         ; roles' own rules follow, with legal, goal, next, does and input renamed {p}legal and so on).\n",
        swap = names.swap,
        p = names.prefix
    ));
    for rule in &desc.rules {
        out.push_str(&rename_rule(rule, &names).to_string());
        out.push('\n');
    }
    let (p, swap) = (&names.prefix, &names.swap);
    let [a, b] = [roles[0], roles[1]];
    let mut added = format!(
        "
; Which role each player plays: its own until a swap, the other's after.
(init ({p}plays {a} {a}))
(init ({p}plays {b} {b}))
({p}other {a} {b})
({p}other {b} {a})
(<= (next ({p}plays ?seat ?role)) (true ({p}plays ?seat ?role)) (not {p}swapping))
(<= (next ({p}plays ?seat ?role)) (true ({p}plays ?seat ?mine)) ({p}other ?mine ?role) {p}swapping)
; The swap is offered once, to {second}, when it first has a move to make.
(init {p}start)
(<= {p}offered (true {p}start) ({p}legal {second} ?move) (distinct ?move {idle}))
(<= (next {p}start) (true {p}start) (not {p}offered))
(<= (legal ?seat {swap}) {p}offered (true ({p}plays ?seat {second})))
(<= {p}swapping (does ?seat {swap}))
; A player's moves and goals are its role's; what it does, its role does.
(<= (legal ?seat ?move) (true ({p}plays ?seat ?role)) ({p}legal ?role ?move))
(<= (goal ?seat ?value) (true ({p}plays ?seat ?role)) ({p}goal ?role ?value))
(<= ({p}does ?role ?move) (does ?seat ?move) (true ({p}plays ?seat ?role)))
; The game's own next, but on the swap, which leaves the position as it is.
(<= (next ?fluent) ({p}next ?fluent) (not {p}swapping))
(<= (next ?fluent) (true ?fluent) {p}swapping (not ({p}own ?fluent)))
(<= ({p}own ({p}plays ?seat ?role)) (role ?seat) (role ?role))
({p}own {p}start)
"
    );
    if declares(Sym::BASE) {
        added.push_str(&format!("(<= (base ({p}plays ?seat ?role)) (role ?seat) (role ?role))\n(base {p}start)\n"));
    }
    if declares(Sym::INPUT) {
        added.push_str(&format!(
            "(<= (input ?seat ?move) (role ?seat) ({p}input ?role ?move))\n(<= (input ?seat {swap}) (role ?seat))\n"
        ));
    }
    out.push_str(&added);
    Ok(out)
}

fn rename_rule(rule: &Rule, names: &Names) -> Rule {
    Rule {
        head: rename_atom(&rule.head, names),
        body: rule.body.iter().map(|l| rename_literal(l, names)).collect(),
        pos: rule.pos,
        body_pos: rule.body_pos.clone(),
    }
}

fn rename_atom(atom: &Atom, names: &Names) -> Atom {
    Atom { rel: names.renamed(atom.rel), args: atom.args.clone() }
}

fn rename_literal(literal: &Literal, names: &Names) -> Literal {
    match literal {
        Literal::Atom(a) => Literal::Atom(rename_atom(a, names)),
        Literal::Not(l) => Literal::Not(Box::new(rename_literal(l, names))),
        Literal::Distinct(s, t) => Literal::Distinct(s.clone(), t.clone()),
        Literal::Or(ls) => Literal::Or(ls.iter().map(|l| rename_literal(l, names)).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    const GAME: &str = "(role a) (role b) (init (turn a)) (<= (legal ?r (go)) (true (turn ?r))) \
        (<= (legal ?r noop) (role ?r) (not (true (turn ?r)))) (<= (next (turn b)) (does a (go))) \
        (<= terminal (true (turn b))) (goal a 100) (goal b 0)";

    #[test]
    fn the_variant_is_valid_and_renames_the_game_s_own_keywords() {
        let text = pie_variant(&parse("g", GAME).expect("parses"), "noop", 0).expect("two roles");
        let (desc, problems) = crate::load("pie", &text).expect("valid GDL");
        assert!(problems.is_empty(), "{problems:?}");
        let printed = desc.to_string();
        assert!(printed.contains("(<= (pie_next (turn b)) (pie_does a (go)))"), "{printed}");
        assert!(printed.contains("(<= (legal ?seat swap) pie_offered (true (pie_plays ?seat b)))"), "{printed}");
    }

    #[test]
    fn added_names_never_clash_with_the_game_s() {
        let clashing = GAME.replace("(go)", "(swap pie_go)");
        let text = pie_variant(&parse("g", &clashing).expect("parses"), "noop", 0).expect("two roles");
        assert!(text.contains("(<= (legal ?seat pie1_swap) pie1_offered"), "{text}");
        assert!(!text.contains("(pie_plays"), "{text}");
        crate::load("pie", &text).expect("valid GDL");
    }

    #[test]
    fn games_of_other_than_two_roles_or_incomplete_information_are_refused() {
        let three = parse("g", &format!("{GAME} (role c)")).expect("parses");
        assert_eq!(pie_variant(&three, "noop", 0), Err(PieError::Roles(3)));
        let seeing = parse("g", &format!("{GAME} (<= (sees a (turn ?r)) (true (turn ?r)))")).expect("parses");
        assert_eq!(pie_variant(&seeing, "noop", 0), Err(PieError::Incomplete("sees")));
    }
}
