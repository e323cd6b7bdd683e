//! A picture of a propnet, or of the part of it around one proposition, as SVG: chapter 13's
//! drawing, laid out in layers (the `rust-sugiyama` crate) running left to right, from the
//! state and the moves to the chosen proposition. Propositions are pills with their GDL names
//! (the state's bold, the moves' grey), connectives small gates (AND, OR, NOT), and a dashed
//! arrow marked T runs from the node computing a base proposition's next value to the base
//! proposition, where both are drawn.

use anyhow::{bail, Result};
use board::escape;
use propnet::net::{Kind, Net, NodeId};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write;

/// The most nodes a picture shows: past this the nodes further from the chosen one are left
/// out, and the nodes whose inputs were left out are drawn dashed.
pub const MOST_NODES: usize = 60;

/// A picture of the net.
#[derive(Serialize)]
pub struct Picture {
    /// What it shows: `the whole net`, or the proposition it is drawn around.
    pub around: String,
    /// Nodes drawn, and nodes in the net.
    pub shown: usize,
    pub nodes: usize,
    /// Nodes drawn whose inputs are not all drawn.
    pub cut: usize,
    /// The SVG document.
    pub svg: String,
}

/// The names a person may give each node: its label, and the names of the parts it plays
/// (`terminal`, `(goal r 100)`, `(legal r m)`, `(next p)`, `(true p)`, `(does r m)`).
fn names(net: &Net) -> Vec<Vec<String>> {
    let mut names: Vec<Vec<String>> = net.labels.iter().map(|l| l.iter().cloned().collect()).collect();
    let mut add = |n: NodeId, name: String| {
        let list = &mut names[n as usize];
        if !list.contains(&name) {
            list.push(name);
        }
    };
    add(net.terminal, "terminal".to_owned());
    for (r, goals) in net.goals.iter().enumerate() {
        for &(value, n) in goals {
            add(n, format!("(goal {} {value})", net.roles[r]));
        }
    }
    for m in &net.moves {
        add(m.node, format!("(does {} {})", net.roles[m.role], m.name));
        add(m.legal, format!("(legal {} {})", net.roles[m.role], m.name));
    }
    for b in &net.bases {
        add(b.node, format!("(true {})", b.name));
        add(b.next, format!("(next {})", b.name));
    }
    names
}

/// The node named `name` (a label, a part's name as [`names`] gives them, or a base
/// proposition without `true`), in a message naming some that exist where there is none.
fn find(net: &Net, names: &[Vec<String>], name: &str) -> Result<(NodeId, String)> {
    let Some(wanted) = gdl::canonical_term(name) else { bail!("{name} is not a proposition: one ground term") };
    let with_true = format!("(true {wanted})");
    for (n, list) in names.iter().enumerate() {
        if list.iter().any(|l| *l == wanted || *l == with_true) {
            return Ok((n as NodeId, wanted));
        }
    }
    let some: Vec<&str> = [net.terminal]
        .into_iter()
        .chain(net.goals.iter().flatten().map(|&(_, n)| n))
        .take(4)
        .filter_map(|n| names[n as usize].first().map(String::as_str))
        .collect();
    bail!("no proposition {name} in the net (for example: {})", some.join(", "))
}

/// The picture of the whole net where it has at most [`MOST_NODES`] nodes, else of the part
/// around the node named `around` (by default the first role's highest goal): the nodes it
/// reads, nearest first, and those that read it directly.
pub fn picture(net: &Net, around: Option<&str>) -> Result<Picture> {
    let names = names(net);
    let total = net.kinds.len();
    let (chosen, title) = match around {
        Some(name) => {
            let (n, canonical) = find(net, &names, name)?;
            (Some(n), canonical)
        }
        None if total <= MOST_NODES => (None, "the whole net".to_owned()),
        None => match net.goals.first().and_then(|g| g.iter().max_by_key(|(v, _)| *v)) {
            Some(&(value, n)) => (Some(n), format!("(goal {} {value})", net.roles[0])),
            None => (Some(net.terminal), "terminal".to_owned()),
        },
    };
    let shown: BTreeSet<NodeId> = match chosen {
        None => (0..total as NodeId).collect(),
        Some(n) => neighbourhood(net, n),
    };
    let cut = shown.iter().filter(|&&n| net.inputs[n as usize].iter().any(|i| !shown.contains(i))).count();
    let svg = draw(net, &names, &shown, chosen);
    Ok(Picture { around: title, shown: shown.len(), nodes: total, cut, svg })
}

/// The nodes around `n`: those that read it directly, then what it reads, breadth first, until
/// [`MOST_NODES`] are taken.
fn neighbourhood(net: &Net, n: NodeId) -> BTreeSet<NodeId> {
    let mut taken = BTreeSet::from([n]);
    let mut readers: Vec<NodeId> =
        (0..net.kinds.len() as NodeId).filter(|&m| net.inputs[m as usize].contains(&n)).collect();
    readers.truncate(MOST_NODES / 6);
    taken.extend(readers);
    let mut queue = VecDeque::from([n]);
    while let Some(m) = queue.pop_front() {
        for &i in &net.inputs[m as usize] {
            if taken.len() >= MOST_NODES {
                return taken;
            }
            if taken.insert(i) {
                queue.push_back(i);
            }
        }
    }
    taken
}

/// Pixels per character of a label, and a pill's height.
const CHAR: f64 = 7.0;
const HEIGHT: f64 = 24.0;
/// A gate's width, and the room between columns.
const GATE: f64 = 38.0;
const LAYER: f64 = 60.0;
/// The longest label drawn whole.
const LONGEST: usize = 40;

/// How a node is drawn.
enum Shape {
    /// A proposition: a pill with its name (`state` for a base proposition, `move` for an input).
    Pill { text: String, class: &'static str },
    /// A connective, with the name of the proposition it computes where it has one.
    Gate { text: &'static str, name: Option<String> },
}

fn shape(net: &Net, names: &[Vec<String>], n: NodeId) -> Shape {
    let name = names[n as usize].first().map(|s| shorten(s));
    match net.kinds[n as usize] {
        Kind::Base(_) => Shape::Pill { text: name.unwrap_or_else(|| "base".into()), class: "state" },
        Kind::Input(_) => Shape::Pill { text: name.unwrap_or_else(|| "input".into()), class: "move" },
        Kind::Const(c) => Shape::Pill { text: c.to_string(), class: "constant" },
        Kind::And => Shape::Gate { text: "AND", name },
        Kind::Or => Shape::Gate { text: "OR", name },
        Kind::Not => Shape::Gate { text: "NOT", name },
    }
}

fn shorten(s: &str) -> String {
    match s.chars().count() > LONGEST {
        true => format!("{}…", s.chars().take(LONGEST - 1).collect::<String>()),
        false => s.to_owned(),
    }
}

impl Shape {
    /// The width of what is drawn, and the room the node takes: a gate's name beneath it may be
    /// wider than the gate, and takes a line more.
    fn size(&self) -> (f64, f64) {
        match self {
            Shape::Pill { text, .. } => (text.chars().count() as f64 * CHAR + 16.0, HEIGHT),
            Shape::Gate { name: Some(name), .. } => ((name.chars().count() as f64 * CHAR).max(GATE), HEIGHT + 14.0),
            Shape::Gate { name: None, .. } => (GATE, HEIGHT),
        }
    }

    /// Half the width of the shape drawn, where wires meet it.
    fn reach(&self) -> f64 {
        match self {
            Shape::Pill { .. } => self.size().0 / 2.0,
            Shape::Gate { .. } => GATE / 2.0,
        }
    }
}

/// The SVG of the nodes `shown`, `chosen` outlined.
fn draw(net: &Net, names: &[Vec<String>], shown: &BTreeSet<NodeId>, chosen: Option<NodeId>) -> String {
    let shapes: BTreeMap<NodeId, Shape> = shown.iter().map(|&n| (n, shape(net, names, n))).collect();
    // Laid out top to bottom with each node's height as its width, then turned to run left to
    // right: a layer is a column as wide as its widest label, so long names never spread it.
    let vertices: Vec<(u32, (f64, f64))> = shapes.iter().map(|(&n, s)| (n, (s.size().1, s.size().0))).collect();
    let edges: Vec<(u32, u32)> = shown
        .iter()
        .flat_map(|&n| net.inputs[n as usize].iter().filter(|i| shown.contains(i)).map(move |&i| (i, n)))
        .collect();
    let config = rust_sugiyama::configure::Config { vertex_spacing: 10.0, ..Default::default() };
    let layouts = rust_sugiyama::from_vertices_and_edges(&vertices, &edges, &config);
    // Components one under another. The layout names each vertex by its place in `vertices`.
    let mut at: BTreeMap<NodeId, (f64, f64)> = BTreeMap::new();
    let (mut top, mut right) = (20.0, 0.0f64);
    for (coords, _, _) in &layouts {
        let placed: Vec<(NodeId, f64, f64)> =
            coords.iter().filter_map(|&(i, (along, layer))| vertices.get(i).map(|&(n, _)| (n, along, layer))).collect();
        let mut layers: Vec<f64> = placed.iter().map(|&(_, _, l)| l).collect();
        layers.sort_by(f64::total_cmp);
        layers.dedup();
        let column = |l: f64| layers.iter().position(|&v| v == l).unwrap_or(0);
        let mut widths = vec![0.0f64; layers.len()];
        for &(n, _, l) in &placed {
            widths[column(l)] = widths[column(l)].max(shapes[&n].size().0);
        }
        let lefts: Vec<f64> = widths
            .iter()
            .scan(20.0, |x, w| {
                let left = *x;
                *x += w + LAYER;
                Some(left)
            })
            .collect();
        let first = placed.iter().map(|&(n, along, _)| along - shapes[&n].size().1 / 2.0).fold(f64::INFINITY, f64::min);
        let mut bottom = top;
        for &(n, along, l) in &placed {
            let c = column(l);
            let (x, y) = (lefts[c] + widths[c] / 2.0, top + along - first + HEIGHT / 2.0);
            bottom = bottom.max(y + shapes[&n].size().1);
            right = right.max(lefts[c] + widths[c]);
            at.insert(n, (x, y));
        }
        top = bottom + 30.0;
    }
    let (width, height) = (right.max(200.0) + 60.0, top + 20.0);
    let mut body = String::new();
    for &(from, to) in &edges {
        let ((x1, y1), (x2, y2)) = (at[&from], at[&to]);
        let (x1, x2) = (x1 + shapes[&from].reach(), x2 - shapes[&to].reach());
        let mid = (x1 + x2) / 2.0;
        let _ = writeln!(
            body,
            r##"<path class="wire" d="M{x1:.1},{y1:.1} C{mid:.1},{y1:.1} {mid:.1},{y2:.1} {x2:.1},{y2:.1}" fill="none" stroke="#616161" marker-end="url(#arrow)"/>"##
        );
    }
    // Transitions: from the node computing a base proposition's next value back to the
    // proposition, bowed beneath both.
    for b in &net.bases {
        let (Some(&(x1, y1)), Some(&(x2, y2))) = (at.get(&b.next), at.get(&b.node)) else { continue };
        let (x1, x2) = (x1 + shapes[&b.next].reach(), x2 - shapes[&b.node].reach());
        let low = y1.max(y2) + 50.0;
        let _ = writeln!(
            body,
            r##"<path class="transition" d="M{x1:.1},{y1:.1} C{:.1},{low:.1} {:.1},{low:.1} {x2:.1},{y2:.1}" fill="none" stroke="#8e24aa" stroke-dasharray="5 4" marker-end="url(#arrow)"/><text x="{:.1}" y="{:.1}" font-size="11" fill="#8e24aa">T</text>"##,
            x1 + 60.0,
            x2 - 60.0,
            (x1 + x2) / 2.0,
            low - 8.0
        );
    }
    for (&n, s) in &shapes {
        let (x, y) = at[&n];
        let cut = net.inputs[n as usize].iter().any(|i| !shown.contains(i));
        let stroke = if Some(n) == chosen { "#e65100" } else { "#424242" };
        let width = if Some(n) == chosen { 3 } else { 1 };
        let dash = if cut { r#" stroke-dasharray="4 3""# } else { "" };
        let title = escape(&names[n as usize].join(", "));
        let _ = write!(body, r#"<g class="node" data-node="{n}"><title>{title}</title>"#);
        match s {
            Shape::Pill { text, class } => {
                let w = s.size().0;
                let (fill, weight) = match *class {
                    "state" => ("#e3f2fd", "bold"),
                    "move" => ("#eeeeee", "normal"),
                    _ => ("#fff8e1", "normal"),
                };
                let _ = write!(
                    body,
                    r#"<rect class="{class}" x="{:.1}" y="{:.1}" width="{w:.1}" height="{HEIGHT}" rx="12" fill="{fill}" stroke="{stroke}" stroke-width="{width}"{dash}/><text x="{x:.1}" y="{:.1}" text-anchor="middle" font-weight="{weight}">{}</text>"#,
                    x - w / 2.0,
                    y - HEIGHT / 2.0,
                    y + 4.0,
                    escape(text)
                );
            }
            Shape::Gate { text, name } => {
                let (l, t, r) = (x - GATE / 2.0, y - HEIGHT / 2.0, HEIGHT / 2.0);
                let outline = match *text {
                    // Pointing right, as the signal runs. AND: flat back, round front; OR: a
                    // shield; NOT: a triangle.
                    "AND" => format!("M{l:.1},{t:.1} h{} a{r},{r} 0 0 1 0,{HEIGHT} h-{} z", GATE - r, GATE - r),
                    "OR" => format!(
                        "M{l:.1},{t:.1} q{},0 {GATE},{r} q-{},{r} -{GATE},{r} q8,-{r} 0,-{HEIGHT} z",
                        GATE * 0.6,
                        GATE * 0.4
                    ),
                    _ => format!("M{l:.1},{t:.1} l{GATE},{r} l-{GATE},{r} z"),
                };
                let _ = write!(
                    body,
                    r#"<path class="gate" d="{outline}" fill="white" stroke="{stroke}" stroke-width="{width}"{dash}/><text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="9">{text}</text>"#,
                    x - 3.0,
                    y + 3.0
                );
                if let Some(name) = name {
                    let _ = write!(
                        body,
                        r##"<text class="name" x="{x:.1}" y="{:.1}" text-anchor="middle" font-size="11" fill="#0d47a1">{}</text>"##,
                        y + HEIGHT / 2.0 + 11.0,
                        escape(name)
                    );
                }
            }
        }
        body.push_str("</g>\n");
    }
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="sans-serif" font-size="12">
<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#616161"/></marker></defs>
<rect width="100%" height="100%" fill="white"/>
{body}</svg>
"##
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bundled(name: &str) -> Net {
        let g = games::find(name).expect("bundled");
        let (desc, _) = gdl::load(g.file, g.text).expect("valid");
        propnet::compile(&desc, &propnet::Limits::default()).expect("builds")
    }

    #[test]
    fn names_are_found_however_they_are_spaced() {
        let net = bundled("tictactoe");
        let around = |name: &str| picture(&net, Some(name)).expect("found").around;
        assert_eq!(around(" ( goal  xplayer 100 ) "), "(goal xplayer 100)");
        assert_eq!(around("(legal xplayer (mark 1 1))"), "(legal xplayer (mark 1 1))");
        assert_eq!(around("terminal"), "terminal");
        assert!(picture(&net, Some("(cell ?x 1 b)")).is_err());
    }

    #[test]
    fn the_part_around_a_proposition_holds_it_and_what_it_reads() {
        let net = bundled("tictactoe");
        let p = picture(&net, Some("(legal xplayer  (mark 2 2))")).expect("found");
        assert_eq!(p.around, "(legal xplayer (mark 2 2))");
        assert!(p.shown > 1 && p.shown <= MOST_NODES, "{}", p.shown);
        let doc = roxmltree::Document::parse(&p.svg).expect("well-formed SVG");
        let nodes = doc.descendants().filter(|n| n.attribute("class") == Some("node")).count();
        assert_eq!(nodes, p.shown);
        // What the legality reads: the cell's blank and whose turn it is, as base propositions.
        assert!(p.svg.contains("(true (cell 2 2 b))"), "{}", p.svg);
        assert!(p.svg.contains("(true (control xplayer))"), "{}", p.svg);
        // A base proposition is found without its `true`.
        assert!(picture(&net, Some("(cell 1 1 x)")).is_ok());
        let e = picture(&net, Some("(cell 9 9 x)")).err().expect("no such proposition").to_string();
        assert!(e.contains("no proposition (cell 9 9 x)") && e.contains("terminal"), "{e}");
    }

    #[test]
    fn a_big_net_is_drawn_around_the_first_roles_best_goal_and_cut_where_it_stops() {
        let net = bundled("tictactoe");
        assert!(net.kinds.len() > MOST_NODES);
        let p = picture(&net, None).expect("drawn");
        assert_eq!(p.around, "(goal xplayer 100)");
        // Everything the goal reads, and what reads it (terminal, whose other inputs are cut).
        assert!(p.shown < MOST_NODES && p.cut > 0, "{} {}", p.shown, p.cut);
        let net = bundled("breakthrough");
        let p = picture(&net, None).expect("drawn");
        assert_eq!(p.around, "(goal white 100)");
        assert_eq!(p.shown, MOST_NODES);
        assert!(p.cut > 0 && p.svg.contains("stroke-dasharray=\"4 3\""));
    }

    #[test]
    fn a_small_net_is_drawn_whole_with_its_transitions() {
        let (desc, _) = gdl::load(
            "t.kif",
            "(role r) (init p) (<= (legal r a) (true p)) (<= (next q) (does r a) (not (true q)))
             (<= (next p) (true p)) (<= terminal (true q)) (<= (goal r 100) (true q)) (<= (goal r 0) (not (true q)))",
        )
        .expect("valid");
        let net = propnet::build(&desc, &propnet::Limits::default()).expect("builds");
        let p = picture(&net, None).expect("drawn");
        assert_eq!((p.around.as_str(), p.shown, p.cut), ("the whole net", net.kinds.len(), 0));
        assert!(p.svg.contains("class=\"transition\""), "{}", p.svg);
        roxmltree::Document::parse(&p.svg).expect("well-formed SVG");
    }
}
