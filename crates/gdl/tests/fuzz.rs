//! Fuzz-style property tests for the promise the `gdl` crate makes to its users: no input text,
//! however malformed, makes `parse`, `validate`, `load`, `normal_bodies` or the printer panic or
//! overflow the stack, and every error names `file:line:col` inside the text.

use gdl::{normal_bodies, parse, validate, Atom, Description, Literal, Pos, Rule, Severity, Sym, Term};
use proptest::prelude::*;
use proptest::sample::Index;
use std::fmt::Write as _;

/// The games bundled with the project, as `(file name, text)`.
const GAMES: [(&str, &str); 6] = [
    ("tictactoe.kif", include_str!("../../../games/tictactoe.kif")),
    ("connectfour.kif", include_str!("../../../games/connectfour.kif")),
    ("buttonsandlights.kif", include_str!("../../../games/buttonsandlights.kif")),
    ("untwistycorridor.kif", include_str!("../../../games/untwistycorridor.kif")),
    ("eightpuzzle.kif", include_str!("../../../games/eightpuzzle.kif")),
    ("fifteenpuzzle.kif", include_str!("../../../games/fifteenpuzzle.kif")),
];

/// A config with `cases` cases that writes no regression files into the source tree (failures
/// found here become explicit regression tests instead).
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(cases) }
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// Whether `pos` lies in `text`: a line that exists, and a column at most one past its end
/// (columns count characters; only '\n' ends a line, as in the parser).
fn pos_in_text(text: &str, pos: Pos) -> bool {
    let lines: Vec<&str> = text.split('\n').collect();
    pos.line >= 1
        && pos.col >= 1
        && (pos.line as usize) <= lines.len()
        && (pos.col as usize) <= lines[pos.line as usize - 1].chars().count() + 1
}

/// Runs every entry point on `text` and checks that whatever it reports is located in `text`.
/// Returns the description when the text parses.
fn exercise(file: &str, text: &str) -> Result<Option<Description>, TestCaseError> {
    let desc = match parse(file, text) {
        Ok(desc) => desc,
        Err(e) => {
            prop_assert!(pos_in_text(text, e.pos), "error position {} outside the text: {e}", e.pos);
            let prefix = format!("{file}:{}:{}: ", e.pos.line, e.pos.col);
            prop_assert!(e.to_string().starts_with(&prefix), "error does not start with {prefix:?}: {e}");
            prop_assert!(gdl::load(file, text).is_err());
            return Ok(None);
        }
    };
    for rule in &desc.rules {
        prop_assert!(pos_in_text(text, rule.pos), "rule position {} outside the text", rule.pos);
        prop_assert_eq!(rule.body.len(), rule.body_pos.len());
        for p in &rule.body_pos {
            prop_assert!(pos_in_text(text, *p), "literal position {} outside the text", p);
        }
        let _ = normal_bodies(rule);
        let _ = rule.to_string();
    }
    let problems = validate(&desc);
    for p in &problems {
        prop_assert!(pos_in_text(text, p.pos), "problem position {} outside the text: {p}", p.pos);
        let prefix = format!("{file}:{}:{}: ", p.pos.line, p.pos.col);
        prop_assert!(p.to_string().starts_with(&prefix), "problem does not start with {prefix:?}: {p}");
    }
    let has_error = problems.iter().any(|p| p.severity == Severity::Error);
    prop_assert_eq!(gdl::load(file, text).is_err(), has_error);
    Ok(Some(desc))
}

/// The rules with every position cleared, so that descriptions read from differently laid out
/// texts can be compared.
fn without_positions(rules: &[Rule]) -> Vec<Rule> {
    rules
        .iter()
        .map(|r| Rule { pos: Pos::default(), body_pos: vec![Pos::default(); r.body.len()], ..r.clone() })
        .collect()
}

/// Printing `desc` and reading the printed text back gives the same rules, and printing those
/// gives the same text again.
fn check_round_trip(desc: &Description) -> Result<(), TestCaseError> {
    let printed = desc.to_string();
    let again = parse("printed.kif", &printed)
        .map_err(|e| TestCaseError::fail(format!("printed text does not parse: {e}\n{printed}")))?;
    prop_assert_eq!(without_positions(&again.rules), without_positions(&desc.rules));
    prop_assert_eq!(again.to_string(), printed);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// 1. Arbitrary strings
// ---------------------------------------------------------------------------------------------

/// Pieces that make parentheses-heavy, keyword-rich and layout-odd strings likely.
const ALPHABET: &[&str] = &[
    "(", "(", "(", ")", ")", ")", "?", ";", "a", "b", " ", " ", "\n", "<=", "not", "or", "distinct", "true", "does",
    "?x", "\r\n", "\t", "é", "\u{2028}", "\u{85}", "Z", "(p", "role",
];

fn soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(ALPHABET), 0..120).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(config(1500))]

    /// Guards the parser against panics on any text at all, and checks that every error (syntax
    /// or validation) is located inside the text it describes.
    #[test]
    fn arbitrary_text_never_panics(text in prop_oneof![soup(), any::<String>(), "[()?; \\na-z<=\u{e9}\u{1F600}]{0,80}"]) {
        exercise("fuzz.kif", &text)?;
    }
}

// ---------------------------------------------------------------------------------------------
// 2. Mutated real games
// ---------------------------------------------------------------------------------------------

/// Tokens inserted into games: fragments of GDL, broken or whole.
const TOKENS: &[&str] = &[
    "(",
    ")",
    "()",
    "?",
    "?x",
    "?X",
    ";",
    "\n",
    " ",
    "<=",
    "not",
    "or",
    "distinct",
    "true",
    "does",
    "role",
    "next",
    "init",
    "legal",
    "goal",
    "terminal",
    "100",
    "(not",
    "(or",
    "(distinct ?x ?y)",
    "(true (p))",
    "(does ?r ?m)",
    "(<= (p ?x) (q ?x))",
    "(role r)",
    "(not (or (q ?x) (r ?x)))",
    "é",
    "\u{2028}",
    "\t",
];

/// One edit of a game's text (positions are relative, so they fit whatever length the text has).
#[derive(Debug, Clone)]
enum Mutation {
    /// Delete up to `n` characters.
    Delete(Index, usize),
    /// Copy up to `n` characters to another place.
    Duplicate(Index, usize, Index),
    /// Insert a token.
    Insert(Index, &'static str),
    /// Exchange two ranges of up to `n` characters.
    Swap(Index, Index, usize),
    /// Remove one parenthesis.
    DropParen(Index),
    /// Add a parenthesis.
    AddParen(Index, char),
    /// Turn one symbol into a variable of the same name.
    Varify(Index),
    /// Replace one symbol by another word (often a keyword).
    Rename(Index, &'static str),
    /// Delete one parenthesised expression.
    DeleteList(Index),
    /// Copy one parenthesised expression to just before another.
    CopyList(Index, Index),
}

/// Words that replace symbols: keywords, in and out of place, and a few ordinary names.
const WORDS: &[&str] = &[
    "not", "or", "distinct", "<=", "true", "does", "role", "init", "next", "legal", "goal", "terminal", "base",
    "input", "random", "noop", "100", "101", "-1", "p", "x",
];

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        1 => (any::<Index>(), 1..40usize).prop_map(|(i, n)| Mutation::Delete(i, n)),
        1 => (any::<Index>(), 1..60usize, any::<Index>()).prop_map(|(i, n, j)| Mutation::Duplicate(i, n, j)),
        1 => (any::<Index>(), prop::sample::select(TOKENS)).prop_map(|(i, t)| Mutation::Insert(i, t)),
        1 => (any::<Index>(), any::<Index>(), 1..40usize).prop_map(|(i, j, n)| Mutation::Swap(i, j, n)),
        1 => any::<Index>().prop_map(Mutation::DropParen),
        1 => (any::<Index>(), prop::sample::select(&['(', ')'][..])).prop_map(|(i, c)| Mutation::AddParen(i, c)),
        1 => any::<Index>().prop_map(Mutation::Varify),
        2 => (any::<Index>(), prop::sample::select(WORDS)).prop_map(|(i, w)| Mutation::Rename(i, w)),
        1 => any::<Index>().prop_map(Mutation::DeleteList),
        2 => (any::<Index>(), any::<Index>()).prop_map(|(i, j)| Mutation::CopyList(i, j)),
    ]
}

fn is_break(c: char) -> bool {
    c.is_whitespace() || matches!(c, '(' | ')' | ';')
}

/// Where the symbols and variables of `text` start.
fn word_starts(text: &[char]) -> Vec<usize> {
    (0..text.len()).filter(|&k| !is_break(text[k]) && (k == 0 || is_break(text[k - 1]))).collect()
}

/// Where the `(`s of `text` are.
fn opens(text: &[char]) -> Vec<usize> {
    (0..text.len()).filter(|&k| text[k] == '(').collect()
}

/// The end (exclusive) of the expression opened at `start`, or the end of the text if unclosed.
fn list_end(text: &[char], start: usize) -> usize {
    let mut depth = 0usize;
    for (k, &c) in text.iter().enumerate().skip(start) {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return k + 1;
                }
            }
            _ => {}
        }
    }
    text.len()
}

/// `idx` as a position in `0..len` (0 when `len` is 0).
fn at(idx: &Index, len: usize) -> usize {
    if len == 0 {
        0
    } else {
        idx.index(len)
    }
}

fn apply(text: &mut Vec<char>, m: &Mutation) {
    let len = text.len();
    match m {
        Mutation::Delete(i, n) => {
            let start = at(i, len);
            text.drain(start..(start + n).min(len));
        }
        Mutation::Duplicate(i, n, j) => {
            let start = at(i, len);
            let piece: Vec<char> = text[start..(start + n).min(len)].to_vec();
            let to = at(j, len + 1);
            text.splice(to..to, piece);
        }
        Mutation::Insert(i, token) => {
            let to = at(i, len + 1);
            text.splice(to..to, token.chars());
        }
        Mutation::Swap(i, j, n) => {
            let (a, b) = (at(i, len), at(j, len));
            let (s1, s2) = (a.min(b), a.max(b));
            let e1 = (s1 + n).min(s2);
            let e2 = (s2 + n).min(len);
            let mut out = text[..s1].to_vec();
            out.extend_from_slice(&text[s2..e2]);
            out.extend_from_slice(&text[e1..s2]);
            out.extend_from_slice(&text[s1..e1]);
            out.extend_from_slice(&text[e2..]);
            *text = out;
        }
        Mutation::DropParen(i) => {
            let parens: Vec<usize> = (0..len).filter(|&k| matches!(text[k], '(' | ')')).collect();
            if !parens.is_empty() {
                text.remove(parens[at(i, parens.len())]);
            }
        }
        Mutation::AddParen(i, c) => text.insert(at(i, len + 1), *c),
        Mutation::Varify(i) => {
            let starts: Vec<usize> = word_starts(text).into_iter().filter(|&k| text[k] != '?').collect();
            if !starts.is_empty() {
                text.insert(starts[at(i, starts.len())], '?');
            }
        }
        Mutation::Rename(i, word) => {
            let starts = word_starts(text);
            if !starts.is_empty() {
                let start = starts[at(i, starts.len())];
                let end = (start..len).find(|&k| is_break(text[k])).unwrap_or(len);
                text.splice(start..end, word.chars());
            }
        }
        Mutation::DeleteList(i) => {
            let opens = opens(text);
            if !opens.is_empty() {
                let start = opens[at(i, opens.len())];
                text.drain(start..list_end(text, start));
            }
        }
        Mutation::CopyList(i, j) => {
            let opens = opens(text);
            if !opens.is_empty() {
                let start = opens[at(i, opens.len())];
                let mut piece = text[start..list_end(text, start)].to_vec();
                piece.push(' ');
                let to = opens[at(j, opens.len())];
                text.splice(to..to, piece);
            }
        }
    }
}

/// A bundled game with a few mutations applied, as `(file name, text)`.
fn mutated_game() -> impl Strategy<Value = (&'static str, String)> {
    (prop::sample::select(&GAMES[..]), prop::collection::vec(mutation(), 1..6)).prop_map(|((file, text), ms)| {
        let mut chars: Vec<char> = text.chars().collect();
        for m in &ms {
            apply(&mut chars, m);
        }
        (file, chars.into_iter().collect())
    })
}

/// The bundled games themselves must load cleanly, or the mutation test below would start from
/// broken text and prove less than it seems to.
#[test]
fn bundled_games_load() {
    for (file, text) in GAMES {
        let desc = match gdl::load(file, text) {
            Ok((desc, _)) => desc,
            Err(e) => panic!("{e}"),
        };
        check_round_trip(&desc).unwrap();
    }
}

proptest! {
    #![proptest_config(config(600))]

    /// Guards parse, validate, load, normal_bodies and printing against panics on damaged real
    /// games: deleted, duplicated, swapped or inserted text, unbalanced parentheses, symbols
    /// turned into variables. Those that still parse must also survive the round trip.
    #[test]
    fn mutated_games_never_panic((file, text) in mutated_game()) {
        if let Some(desc) = exercise(file, &text)? {
            check_round_trip(&desc)?;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 3. Round trip of printed rules
// ---------------------------------------------------------------------------------------------

/// A separator between tokens: any layout the reader must treat like one space.
fn separator() -> impl Strategy<Value = &'static str> {
    prop::sample::select(&[" ", " ", " ", "\n", "\t", "  ", " ; a comment (with ) parens\n", "\r\n"][..])
}

proptest! {
    #![proptest_config(config(800))]

    /// Guards the printer against writing text that reads back differently: for any text that
    /// parses, print(parse(print(parse(x)))) == print(parse(x)), and the rules are equal apart
    /// from positions. The same holds whatever layout (spaces, newlines, comments, upper case)
    /// the printed text is given.
    #[test]
    fn printed_text_reads_back(text in prop_oneof![soup(), mutated_game().prop_map(|(_, t)| t)],
                               seps in prop::collection::vec(separator(), 64),
                               upper in any::<bool>()) {
        let Ok(desc) = parse("x.kif", &text) else { return Ok(()) };
        check_round_trip(&desc)?;
        // Re-lay the printed text out: each space becomes some other separator.
        let printed = desc.to_string();
        let mut relaid = String::new();
        for (k, piece) in printed.split(' ').enumerate() {
            if k > 0 {
                relaid.push_str(seps[k % seps.len()]);
            }
            relaid.push_str(piece);
        }
        if upper {
            relaid = relaid.to_ascii_uppercase();
        }
        let again = parse("relaid.kif", &relaid)
            .map_err(|e| TestCaseError::fail(format!("re-laid text does not parse: {e}\n{relaid}")))?;
        prop_assert_eq!(again.to_string(), printed);
    }
}

/// Constants, including words that are keywords elsewhere, which must still read as terms.
const CONSTS: &[&str] = &["a", "b", "1", "100", "x-1", "Foo", "not", "or", "distinct", "true", "+", "é"];
/// Function names for compound terms, including keywords.
const FUNCS: &[&str] = &["f", "cell", "not", "or", "distinct", "does", "G"];
/// Relation names usable in heads and atoms (all but not/or/distinct/<=).
const RELS: &[&str] = &["p", "q", "cell", "true", "does", "legal", "next", "terminal", "NEXT", "random", "+"];
const VARS: &[&str] = &["x", "y", "Z", "v1", "a?b", "?"];

fn term() -> impl Strategy<Value = Term> {
    let leaf = prop_oneof![
        prop::sample::select(CONSTS).prop_map(|c| Term::Const(Sym::new(c))),
        prop::sample::select(VARS).prop_map(|v| Term::Var(Sym::new(v))),
    ];
    leaf.prop_recursive(4, 24, 3, |inner| {
        (prop::sample::select(FUNCS), prop::collection::vec(inner, 0..4))
            .prop_map(|(f, args)| Term::Func(Sym::new(f), args))
    })
}

fn atom() -> impl Strategy<Value = Atom> {
    (prop::sample::select(RELS), prop::collection::vec(term(), 0..3))
        .prop_map(|(rel, args)| Atom { rel: Sym::new(rel), args })
}

fn literal() -> impl Strategy<Value = Literal> {
    let leaf = prop_oneof![
        3 => atom().prop_map(Literal::Atom),
        1 => (term(), term()).prop_map(|(s, t)| Literal::Distinct(s, t)),
    ];
    leaf.prop_recursive(4, 12, 3, |inner| {
        prop_oneof![
            inner.clone().prop_map(|l| Literal::Not(Box::new(l))),
            prop::collection::vec(inner, 1..4).prop_map(Literal::Or),
        ]
    })
}

fn rule() -> impl Strategy<Value = Rule> {
    (atom(), prop::collection::vec(literal(), 0..5)).prop_map(|(head, body)| Rule {
        head,
        body_pos: vec![Pos::default(); body.len()],
        body,
        pos: Pos::default(),
    })
}

proptest! {
    #![proptest_config(config(800))]

    /// Guards the printer on rules built directly from a small grammar (nested terms, not, or,
    /// distinct, keywords used as constants and function names): printing and parsing gives the
    /// same rules back, and validating or normalising them does not panic.
    #[test]
    fn generated_rules_round_trip(rules in prop::collection::vec(rule(), 1..6)) {
        let desc = Description { file: "gen.kif".into(), rules };
        check_round_trip(&desc)?;
        let text = desc.to_string();
        exercise("gen.kif", &text)?;
    }
}

// ---------------------------------------------------------------------------------------------
// 4. Deep recursion and long bodies
// ---------------------------------------------------------------------------------------------

/// Runs `f` on a thread with a 2 MiB stack (the test harness's default), so that what the deep
/// tests prove does not depend on `RUST_MIN_STACK` or on the main thread's larger stack.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    let thread = std::thread::Builder::new().stack_size(2 << 20).spawn(f).expect("spawn");
    if let Err(panic) = thread.join() {
        std::panic::resume_unwind(panic);
    }
}

/// A small legal game for the deterministic tests to extend.
const HEADER: &str = "(role r)\n(init (p))\n(<= (legal r a) (true (p)))\n(<= (next (p)) (does r a))\n\
                      (<= terminal (true (p)))\n(goal r 0)\n";

/// Guards validation against stack overflow on legal games whose relations depend on each other
/// in very long chains and cycles (the dependency graph walks must not recurse per relation),
/// with a long rule body and literals and terms nested as deep as the reader allows.
#[test]
fn deep_and_long_legal_game_validates() {
    const N: usize = 40_000;
    const BODY: usize = 2_000;
    let mut text = String::from(HEADER);
    // A chain c0 <- c1 <- ... <- cN, hooked into the goal.
    text.push_str("(<= (goal r 100) (c0 a))\n");
    for i in 0..N {
        writeln!(text, "(<= (c{i} ?x) (c{} ?x))", i + 1).unwrap();
    }
    writeln!(text, "(c{N} a)").unwrap();
    // A cycle d0 -> d1 -> ... -> d(N-1) -> d0 with a base case from c0, obeying the recursion
    // restriction (the recursive variable is in the head).
    text.push_str("(<= (d0 ?x) (c0 ?x))\n");
    for i in 0..N {
        writeln!(text, "(<= (d{i} ?x) (d{} ?x))", (i + 1) % N).unwrap();
    }
    // A long body: many positive literals binding many variables, then negations and distincts.
    text.push_str("(s a)\n(s b)\n(t a)\n(<= (long ?x0)");
    for i in 0..BODY {
        write!(text, " (s ?x{i})").unwrap();
    }
    for i in 0..BODY / 4 {
        write!(text, " (not (t ?x{i})) (distinct ?x{i} ?x{})", i + 1).unwrap();
    }
    text.push_str(")\n");
    // Literals and terms nested right up to the reader's depth limit (200 parentheses).
    let depth = 197;
    let mut lit = String::from("(s a)");
    for k in 0..depth {
        lit = if k % 2 == 0 { format!("(not {lit})") } else { format!("(or {lit} (s b))") };
    }
    writeln!(text, "(<= (nested) (s a) {lit})").unwrap();
    let term = format!("{}a{}", "(f ".repeat(depth), ")".repeat(depth));
    writeln!(text, "(<= (deepterm ?x) (s ?x) (distinct ?x {term}))").unwrap();
    writeln!(text, "(<= (goal r 50) (deepterm a) (nested) (long a))").unwrap();

    on_small_stack(move || {
        let (desc, warnings) = gdl::load("deep.kif", &text).unwrap_or_else(|e| panic!("{e}"));
        assert!(warnings.is_empty(), "{warnings:?}");
        for rule in &desc.rules {
            assert!(!normal_bodies(rule).is_empty());
        }
        let printed = desc.to_string();
        let again = parse("deep-printed.kif", &printed).unwrap();
        assert_eq!(again.to_string(), printed);
    });
}

/// Guards the error path on the same shape of game: an illegal rule at the end of a long
/// dependency chain is still reported, with its position.
#[test]
fn deep_illegal_game_is_reported() {
    const N: usize = 40_000;
    let mut text = String::from(HEADER);
    text.push_str("(<= (goal r 100) (c0 a))\n");
    for i in 0..N {
        writeln!(text, "(<= (c{i} ?x) (c{} ?x))", i + 1).unwrap();
    }
    // cN depends on does, so goal depends on does through the whole chain; and cN negates c0,
    // which makes the chain unstratified.
    let last = format!("(<= (c{N} ?x) (does r ?x) (not (c0 ?x)))");
    writeln!(text, "{last}").unwrap();
    on_small_stack(move || {
        let errors: Vec<String> = validate(&parse("deep.kif", &text).unwrap())
            .into_iter()
            .filter(|p| p.severity == Severity::Error)
            .map(|p| p.to_string())
            .collect();
        let goal = "deep.kif:7:18: error: 'goal' must not depend on 'does'";
        assert!(errors.iter().any(|e| e.starts_with(goal)), "{errors:?}");
        let col = last.find("(not").unwrap() + 1;
        let negation = format!("deep.kif:{}:{col}: error: negation is not stratified", N + 8);
        assert!(errors.iter().any(|e| e.starts_with(&negation)), "{errors:?}");
    });
}
