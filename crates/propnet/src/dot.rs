//! Graphviz DOT export, drawn the way chapter 13 draws propnets: propositions as circles labelled
//! with their GDL names, connectives as gates (AND, OR, NOT), and a transition box between each
//! base proposition and the node computing its next value.

use crate::net::{Kind, Net, NodeId};
use std::fmt::Write;

/// The net in DOT. Meant for small nets: a few hundred nodes stay readable.
pub fn to_dot(net: &Net) -> String {
    let mut out = String::from("digraph propnet {\n  rankdir=LR;\n  node [fontname=\"Helvetica\", fontsize=10];\n");
    for (n, kind) in net.kinds.iter().enumerate() {
        let label = net.labels[n].as_deref();
        let (shape, text, extra) = match kind {
            Kind::Base(_) => ("circle", label.unwrap_or("base").to_owned(), ", style=bold"),
            Kind::Input(_) => ("circle", label.unwrap_or("input").to_owned(), ", style=filled, fillcolor=lightgrey"),
            Kind::Const(c) => ("box", c.to_string(), ""),
            Kind::And => ("invhouse", "AND".to_owned(), ""),
            Kind::Or => ("invtriangle", "OR".to_owned(), ""),
            Kind::Not => ("triangle", "NOT".to_owned(), ""),
        };
        let _ = writeln!(out, "  n{n} [shape={shape}, label=\"{}\"{extra}];", escape(&text));
        // A gate that computes a named proposition feeds a circle carrying the name.
        if let (Some(name), Kind::And | Kind::Or | Kind::Not | Kind::Const(_)) = (label, kind) {
            let _ = writeln!(out, "  p{n} [shape=circle, label=\"{}\"];\n  n{n} -> p{n};", escape(name));
        }
    }
    for (n, inputs) in net.inputs.iter().enumerate() {
        for &i in inputs {
            let _ = writeln!(out, "  {} -> n{n};", source(net, i));
        }
    }
    for (i, base) in net.bases.iter().enumerate() {
        let _ = writeln!(
            out,
            "  t{i} [shape=box, label=\"T\"];\n  {} -> t{i};\n  t{i} -> n{};",
            source(net, base.next),
            base.node
        );
    }
    out.push_str("}\n");
    out
}

/// The DOT node that carries a node's value: its proposition circle if it has one.
fn source(net: &Net, n: NodeId) -> String {
    match (net.labels[n as usize].is_some(), net.kinds[n as usize]) {
        (true, Kind::And | Kind::Or | Kind::Not | Kind::Const(_)) => format!("p{n}"),
        _ => format!("n{n}"),
    }
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_propositions_gates_and_transitions() {
        let (desc, _) = gdl::load(
            "t.kif",
            "(role r) (init p) (<= (legal r a) (true p)) (<= (next q) (does r a) (not (true q)))
             (<= (next p) (true p)) (<= terminal (true q)) (<= (goal r 100) (true q)) (<= (goal r 0) (not (true q)))",
        )
        .expect("valid");
        let net = crate::build(&desc, &crate::Limits::default()).expect("builds");
        let dot = to_dot(&net);
        assert!(dot.starts_with("digraph propnet {"), "{dot}");
        assert!(dot.contains("label=\"(true p)\", style=bold"), "{dot}");
        assert!(dot.contains("label=\"(does r a)\", style=filled"), "{dot}");
        assert!(dot.contains("shape=invhouse, label=\"AND\""), "{dot}");
        assert!(dot.contains("shape=triangle, label=\"NOT\""), "{dot}");
        assert!(
            dot.contains("[shape=circle, label=\"(legal r a)\"]") || dot.contains("label=\"(legal r a)\""),
            "{dot}"
        );
        assert_eq!(dot.matches("label=\"T\"").count(), net.bases.len());
        assert!(dot.trim_end().ends_with('}'));
    }
}
