//! Boards inferred on real games, checked against what a person sees: the board relation and
//! its axes, the pieces and their owners, and the cells of the initial state and of a state a
//! few moves on.

mod common;

use board::{Inference, Lean, Order, Style};
use common::{after, game, inferred};
use propnet::PropnetMachine;

/// The game's inference and the true propositions after `moves` (one printed move per role per
/// joint move) from the initial state; `None` where the game is in the corpus and it is absent.
fn read(name: &str, moves: &[&[&str]]) -> Option<(Inference, Vec<String>)> {
    let (desc, net) = game(name)?;
    let mut m = PropnetMachine::new(&net);
    let inference = inferred(&desc, &mut m);
    Some((inference, after(&mut m, moves)))
}

/// The text board without colour.
fn drawn(inference: &Inference, props: &[String]) -> String {
    board::text(inference.board(), props, Style::default())
}

#[test]
fn tictactoe_is_three_by_three_with_x_and_o() {
    let (inference, props) = read("tictactoe", &[&["(mark 1 1)", "noop"], &["noop", "(mark 2 2)"]]).expect("bundled");
    let board = inference.board().expect("a board");
    assert_eq!((board.relation.as_str(), board.arity, board.contents.as_slice()), ("cell", 3, &[2][..]));
    assert_eq!(board.axes[0].values, ["1", "2", "3"]);
    assert_eq!(board.axes[0].order, Order::Numerals);
    assert_eq!(board.empty.as_deref(), Some("b"));
    let owner = |c: &str| board.pieces.iter().find(|p| p.content == c).and_then(|p| p.owner);
    assert_eq!((owner("x"), owner("o"), owner("b")), (Some(0), Some(1), None));
    assert_eq!(drawn(&inference, &props), "3  . . .\n2  . o .\n1  x . .\n   1 2 3\ncontrol: xplayer\n");
}

#[test]
fn connect_four_drops_to_the_bottom_row() {
    let (inference, props) = read("connectfour", &[&["(drop 3)", "noop"], &["noop", "(drop 3)"]]).expect("bundled");
    let board = inference.board().expect("a board");
    assert_eq!(board.relation, "cell");
    let view = board.view(&props);
    // Column 3 is the third column; row 1 is the bottom row.
    assert_eq!(view.content(&[2, 0]), Some("red"));
    assert_eq!(view.content(&[2, 1]), Some("black"));
    assert_eq!(view.cells.len(), 2, "{view:?}");
    assert_eq!((board.owner("red"), board.owner("black")), (Some(0), Some(1)));
}

#[test]
fn breakthrough_has_two_armies_facing_each_other() {
    let (inference, props) = read("breakthrough", &[]).expect("bundled");
    let board = inference.board().expect("a board");
    assert_eq!(board.axes.iter().map(|a| a.values.len()).collect::<Vec<_>>(), [8, 8]);
    assert_eq!(board.empty, None);
    let text = drawn(&inference, &props);
    let lines: Vec<&str> = text.lines().collect();
    // Rows run from 8 at the top to 1 at the bottom: black starts on 7 and 8, white on 1 and 2.
    assert_eq!(lines[0], "8  B B B B B B B B");
    assert_eq!(lines[2], "6  . . . . . . . .");
    assert_eq!(lines[7], "1  W W W W W W W W");
    assert_eq!(lines[8], "   1 2 3 4 5 6 7 8");
    assert_eq!(lines[9], "control: white");
}

#[test]
fn a_game_without_an_ordered_argument_falls_back_and_says_why() {
    let (inference, props) = read("buttonsandlights", &[]).expect("bundled");
    let Inference::Fallback { why } = &inference else { panic!("{inference:?}") };
    assert!(why.contains("step"), "the counter is named as the one ordered argument: {why}");
    let text = drawn(&inference, &props);
    assert!(!text.is_empty() && text.lines().all(|l| !l.contains('(')), "{text}");
}

/// The inference of the corpus game `name` and the text board after `moves`; `None` where the
/// corpus is absent.
fn corpus(name: &str, moves: &[&[&str]]) -> Option<(Inference, String)> {
    let (inference, props) = read(name, moves)?;
    let text = drawn(&inference, &props);
    Some((inference, text))
}

#[test]
fn checkers_files_are_ordered_by_the_rules_and_blanks_are_empty() {
    let Some((inference, text)) = corpus("checkers", &[&["(move wp d 3 e 4)", "noop"]]) else { return };
    let board = inference.board().expect("a board");
    assert_eq!(board.axes[0].order, Order::Chain { relation: "next_file".into() }, "{:?}", board.axes[0]);
    assert_eq!(board.axes[0].values, ["a", "b", "c", "d", "e", "f", "g", "h"]);
    assert_eq!(board.empty.as_deref(), Some("b"));
    assert_eq!((board.owner("wp"), board.owner("bp")), (Some(0), Some(1)));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "8  bp  . bp  . bp  . bp  .");
    assert_eq!(lines[4], "4   .  .  .  . wp  .  .  .");
    assert_eq!(lines[5], "3   . wp  .  .  . wp  . wp");
    assert_eq!(lines[8], "    a  b  c  d  e  f  g  h");
}

#[test]
fn chess_pieces_are_named_after_their_owners_and_told_apart() {
    let Some((inference, text)) = corpus("speedChess", &[&["(move pawn e 2 e 4)", "noop"]]) else { return };
    let board = inference.board().expect("a board");
    assert_eq!(board.contents, [2, 3]);
    assert_eq!(board.owner("white rook"), Some(0));
    assert_eq!(board.owner("black pawn"), Some(1));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "8   r kn  b  q ki  b kn  r");
    assert_eq!(lines[4], "4   .  .  .  .  P  .  .  .");
    assert_eq!(lines[6], "2   P  P  P  P  .  P  P  P");
    assert_eq!(lines[7], "1   R Kn  B  Q Ki  B Kn  R");
}

#[test]
fn nine_board_tictactoe_is_a_board_of_boards() {
    let Some((inference, text)) = corpus("nineBoardTicTacToe", &[&["(play 1 1 2 3 x)", "noop"]]) else { return };
    let board = inference.board().expect("a board");
    assert_eq!(board.axes.len(), 4);
    let lines: Vec<&str> = text.lines().collect();
    // The outer row 1 is the last of three blocks of four lines; inner (2 3) is its top row.
    assert_eq!(lines[10], "3  . x .   3  . . .   3  . . .", "{text}");
    assert_eq!(lines[13], "   1 2 3      1 2 3      1 2 3");
}

#[test]
fn pentago_draws_its_quadrants_side_by_side() {
    let Some((inference, text)) = corpus("pentago", &[]) else { return };
    let board = inference.board().expect("a board");
    assert_eq!(board.axes.iter().map(|a| (a.argument, a.values.len())).collect::<Vec<_>>(), [(1, 3), (2, 3), (0, 4)]);
    assert!(text.starts_with("1          2          3          4\n3  . . .   3  . . ."), "{text}");
}

#[test]
fn one_players_pieces_are_not_taken_for_empty_cells() {
    let Some((inference, text)) = corpus("peg", &[]) else { return };
    let board = inference.board().expect("a board");
    assert_eq!(board.empty, None);
    assert!(text.contains("c4   p  p  p  e  p  p  p\n"), "{text}");
}

#[test]
fn the_reasoner_shows_the_same_board_as_the_propnet() {
    let (desc, net) = game("connectfour").expect("bundled");
    let on_net = inferred(&desc, &mut PropnetMachine::new(&net));
    let on_reasoner = inferred(&desc, &mut reasoner::Reasoner::new(&desc));
    assert_eq!(on_net, on_reasoner);
}

#[test]
fn dots_and_boxes_lines_are_drawn_between_the_boxes_corners() {
    // Four lines close the box at (1 1), which o closed, so o takes it.
    let moves: &[&[&str]] = &[
        &["(draw 1 1 1 2)", "noop"],
        &["noop", "(draw 1 1 2 1)"],
        &["(draw 2 1 2 2)", "noop"],
        &["noop", "(draw 1 2 2 2)"],
    ];
    let Some((inference, props)) = read("dotsAndBoxes", moves) else { return };
    let board = inference.board().expect("a board");
    assert_eq!((board.relation.as_str(), board.axes.len()), ("box", 2));
    let [lines] = board.lines.as_slice() else { panic!("{:?}", board.lines) };
    assert_eq!(lines.relation, "line");
    assert!(lines.corners, "six points along each axis for five boxes");
    assert_eq!(lines.points[0], ["1", "2", "3", "4", "5", "6"]);
    // The text lists the lines beneath; the SVG draws them, and the box taken.
    let text = drawn(&inference, &props);
    assert!(text.ends_with("\nline: 1 1 1 2, 1 1 2 1, 1 2 2 2, 2 1 2 2\n"), "{text}");
    assert!(text.starts_with("5  . . . . .\n4  . . . . .\n3  . . . . .\n2  . . . . .\n1  o . . . .\n"), "{text}");
    let svg = board::svg(inference.board(), &props);
    let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
    let class = |n: &roxmltree::Node, c: &str| n.attribute("class") == Some(c);
    let mut drawn: Vec<(&str, &str)> = doc
        .descendants()
        .filter(|n| class(n, "line"))
        .map(|n| (n.attribute("data-from").expect("from"), n.attribute("data-to").expect("to")))
        .collect();
    drawn.sort();
    assert_eq!(drawn, [("1 1", "1 2"), ("1 1", "2 1"), ("1 2", "2 2"), ("2 1", "2 2")]);
    assert_eq!(doc.descendants().filter(|n| class(n, "point")).count(), 36);
    // A line from the corner (1 1) to (1 2) runs up the left side of the box at (1 1).
    let cell = doc.descendants().find(|n| class(n, "cell") && n.attribute("data-at") == Some("1 1")).expect("cell");
    let line = doc.descendants().find(|n| class(n, "line") && n.attribute("data-to") == Some("1 2")).expect("line");
    let num = |n: &roxmltree::Node, a: &str| n.attribute(a).expect(a).parse::<i64>().expect(a);
    let (left, top, side) = (num(&cell, "x"), num(&cell, "y"), num(&cell, "width"));
    assert_eq!((num(&line, "x1"), num(&line, "y1"), num(&line, "x2"), num(&line, "y2")), (left, top + side, left, top));
    let panel: Vec<&str> = doc.descendants().filter(|n| class(n, "panel")).filter_map(|n| n.text()).collect();
    assert!(!panel.iter().any(|l| l.starts_with("line")), "drawn, not listed: {panel:?}");
}

#[test]
fn the_svg_drawing_is_well_formed_and_places_each_piece_on_its_cell() {
    let moves: &[&[&str]] = &[&["(move pawn e 2 e 4)", "noop"]];
    let Some((inference, props)) = read("speedChess", moves) else { return };
    let svg = board::svg(inference.board(), &props);
    let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
    let class = |n: &roxmltree::Node, c: &str| n.attribute("class") == Some(c);
    assert_eq!(doc.descendants().filter(|n| class(n, "cell")).count(), 64);
    let pieces: Vec<(&str, &str)> = doc
        .descendants()
        .filter(|n| class(n, "piece"))
        .map(|n| (n.attribute("data-at").expect("at"), n.attribute("data-content").expect("content")))
        .collect();
    assert_eq!(pieces.len(), 32);
    assert!(pieces.contains(&("e 4", "white pawn")) && !pieces.iter().any(|(at, _)| *at == "e 2"), "{pieces:?}");
    assert!(pieces.contains(&("d 8", "black queen")), "{pieces:?}");
    let panel: Vec<&str> = doc.descendants().filter(|n| class(n, "panel")).filter_map(|n| n.text()).collect();
    assert_eq!(panel, ["canenpassantcapture: e", "control: black", "step: 2"]);
    // Without a board, the propositions alone, and still a document.
    let (inference, props) = read("buttonsandlights", &[]).expect("bundled");
    let svg = board::svg(inference.board(), &props);
    let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
    assert!(doc.descendants().any(|n| class(&n, "panel")));
    assert!(!doc.descendants().any(|n| class(&n, "cell")));
}

/// The hex fixture's rules, with `edit` applied, read as the game `hex5`: its inference and the
/// true propositions after `moves`.
fn hex5(edit: impl Fn(String) -> String, moves: &[&[&str]]) -> (Inference, Vec<String>) {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/hex5.kif")).expect("fixture");
    let desc = testkit::load("hex5", &edit(text));
    let net = testkit::compile(&desc);
    let mut m = PropnetMachine::new(&net);
    let inference = inferred(&desc, &mut m);
    (inference, after(&mut m, moves))
}

/// The diagonal rules of the fixture's `touches`, and the same rules for the other diagonal.
const RISING: &str = "(plus1 ?x ?u) (plus1 ?y ?v))\n(<= (touches ?x ?y ?u ?v) (plus1 ?u ?x) (plus1 ?v ?y))";
const FALLING: &str = "(plus1 ?x ?u) (plus1 ?v ?y))\n(<= (touches ?x ?y ?u ?v) (plus1 ?u ?x) (plus1 ?y ?v))";

#[test]
fn a_board_whose_cells_touch_six_others_is_drawn_as_hexagons() {
    let moves: &[&[&str]] = &[&["(place 3 3)", "noop"], &["noop", "(place 4 2)"]];
    let (inference, props) = hex5(|t| t, moves);
    let board = inference.board().expect("a board");
    assert_eq!((board.relation.as_str(), board.hex), ("stone", Some(Lean::Left)));
    // Each row up is half a cell further left: (3 3) touches (4 4) up and to the right.
    let text = drawn(&inference, &props);
    assert!(
        text.starts_with(
            "5  . . . . .\n4   . . . . .\n3    . . W . .\n2     . . . B .\n1      . . . . .\n       1 2 3 4 5\n"
        ),
        "{text}"
    );
    // Leaning the other way, each row up is half a cell further right.
    let (inference, props) = hex5(|t| t.replace(RISING, FALLING), moves);
    assert_eq!(inference.board().expect("a board").hex, Some(Lean::Right));
    let text = drawn(&inference, &props);
    assert!(
        text.starts_with(
            "5      . . . . .\n4     . . . . .\n3    . . W . .\n2   . . . B .\n1  . . . . .\n   1 2 3 4 5\n"
        ),
        "{text}"
    );
}

#[test]
fn the_hexagons_drawn_touch_where_the_rules_say_the_cells_do() {
    for (edit, diagonal) in [(false, (1, 1)), (true, (1, -1))] {
        let (inference, props) =
            hex5(|t| if edit { t.replace(RISING, FALLING) } else { t }, &[&["(place 2 4)", "noop"]]);
        let svg = board::svg(inference.board(), &props);
        let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
        let class = |n: &roxmltree::Node, c: &str| n.attribute("class") == Some(c);
        // Each hexagon's centre, by its cell.
        let cells: Vec<((i64, i64), (f64, f64))> = doc
            .descendants()
            .filter(|n| class(n, "cell"))
            .map(|n| {
                let at: Vec<i64> =
                    n.attribute("data-at").expect("at").split(' ').map(|v| v.parse().expect("number")).collect();
                let corners: Vec<(f64, f64)> = n
                    .attribute("points")
                    .expect("a polygon")
                    .split(' ')
                    .map(|p| {
                        p.split_once(',').map(|(x, y)| (x.parse().expect("x"), y.parse().expect("y"))).expect("x,y")
                    })
                    .collect();
                assert_eq!(corners.len(), 6);
                let centre = corners.iter().fold((0.0, 0.0), |(x, y), (a, b)| (x + a / 6.0, y + b / 6.0));
                ((at[0], at[1]), centre)
            })
            .collect();
        assert_eq!(cells.len(), 25);
        let pitch = 40.0;
        for &((x, y), (cx, cy)) in &cells {
            for &((u, v), (du, dv)) in &cells {
                let step = (u - x, v - y);
                let touches = [(1, 0), (-1, 0), (0, 1), (0, -1), diagonal, (-diagonal.0, -diagonal.1)].contains(&step);
                let apart = ((du - cx).powi(2) + (dv - cy).powi(2)).sqrt();
                assert_eq!((apart - pitch).abs() < 0.5, touches, "({x} {y}) and ({u} {v}) are {apart:.1} apart");
            }
        }
        // The stone stands on its hexagon.
        let piece = doc.descendants().find(|n| class(n, "piece")).expect("a stone");
        assert_eq!(piece.attribute("data-at"), Some("2 4"));
        let circle = piece.children().find(|n| n.has_tag_name("circle")).expect("a disc");
        let (_, (cx, cy)) = cells.iter().find(|(at, _)| *at == (2, 4)).expect("the cell");
        let num = |a: &str| circle.attribute(a).expect(a).parse::<f64>().expect(a);
        assert!((num("cx") - cx).abs() < 1.0 && (num("cy") - cy).abs() < 1.0, "{cx} {cy}");
    }
}

#[test]
fn square_neighbours_are_not_taken_for_hexagons() {
    // Eight neighbours (both diagonals), or four (none): a square board.
    let both = |t: String| t.replace(RISING, &format!("{RISING}\n(<= (touches ?x ?y ?u ?v) {FALLING}"));
    let (inference, _) = hex5(both, &[]);
    assert_eq!(inference.board().expect("a board").hex, None);
    let none = |t: String| t.replace(RISING, "(plus1 ?x ?u) (plus1 ?y ?v) (distinct ?x ?x))");
    let (inference, _) = hex5(none, &[]);
    assert_eq!(inference.board().expect("a board").hex, None);
}

#[test]
fn a_proposition_reads_as_what_stands_where() {
    let (inference, _) = read("tictactoe", &[]).expect("bundled");
    let b = inference.board();
    assert_eq!(board::reading(b, "(cell 2 3 x)"), "x on 2 3");
    assert_eq!(board::reading(b, "(cell 2 3 b)"), "2 3 empty");
    assert_eq!(board::reading(b, "(control oplayer)"), "control: oplayer");
    assert_eq!(board::reading(None, "(cell 2 3 x)"), "cell: 2 3 x");
    assert_eq!(board::reading(b, "terminal"), "terminal");
}
