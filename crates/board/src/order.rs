//! The orders a game gives its constants: whole numbers count, and a static relation whose facts
//! chain values one after another (`(succ 1 2) (succ 2 3)`, `(nextfile a b)`) orders them along
//! the chain. An argument whose values all fall in one such order can be an axis of a board.

use gdl::{Description, Sym, Term};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// How an axis' values are ordered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum Order {
    /// Whole numbers, in numeric order.
    Numerals,
    /// Along the facts of a static relation that chain them, first to last.
    Chain {
        /// The chaining relation, e.g. `succ`.
        relation: String,
    },
}

/// The chains a description's static facts make: each static relation of two constants whose
/// facts form one path of at least three values, with the path.
#[derive(Debug, Clone, Default)]
pub struct Chains(Vec<(String, Vec<String>)>);

impl Chains {
    /// The chains of `desc`. A relation is static when no rule with a body concludes it and it is
    /// not a GDL keyword; it chains when every value has at most one successor and one
    /// predecessor, one value starts the path, and the path visits every value.
    pub fn of(desc: &Description) -> Chains {
        let derived: BTreeSet<Sym> = desc.rules.iter().filter(|r| !r.is_fact()).map(|r| r.head.rel).collect();
        let mut edges: BTreeMap<Sym, Vec<(String, String)>> = BTreeMap::new();
        for rule in desc.rules.iter().filter(|r| r.is_fact() && !r.head.rel.is_keyword()) {
            if derived.contains(&rule.head.rel) {
                continue;
            }
            if let [Term::Const(a), Term::Const(b)] = rule.head.args.as_slice() {
                edges.entry(rule.head.rel).or_default().push((a.to_string(), b.to_string()));
            }
        }
        let mut chains: Vec<(String, Vec<String>)> =
            edges.into_iter().filter_map(|(rel, e)| path(&e).map(|p| (rel.to_string(), p))).collect();
        // Longest first, so that a domain finds the chain that covers most.
        chains.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(&b.0)));
        Chains(chains)
    }

    /// `values` in the game's order, and which order that is: numerically where every value is
    /// a whole number, else along the longest chain that holds them all; `None` where neither
    /// orders them or there are fewer than two. Values the order puts between two of `values`
    /// join them where that at most doubles them: a column random games never reached is still
    /// a column, but a score seen at 0 and 100 does not become a hundred and one.
    pub fn order(&self, values: &BTreeSet<&str>) -> Option<(Order, Vec<String>)> {
        if values.len() < 2 {
            return None;
        }
        let numbers: Option<Vec<(i64, &str)>> = values.iter().map(|v| v.parse().ok().map(|n| (n, *v))).collect();
        if let Some(mut numbers) = numbers {
            numbers.sort_unstable();
            let (low, high) = (numbers[0].0, numbers[numbers.len() - 1].0);
            // Filled in only where every value is written plainly, so that the filled-in values
            // are spelled as the rules spell them.
            let plain = numbers.iter().all(|(n, v)| n.to_string() == *v);
            let values = match plain && high - low < 2 * numbers.len() as i64 {
                true => (low..=high).map(|n| n.to_string()).collect(),
                false => numbers.into_iter().map(|(_, v)| v.to_owned()).collect(),
            };
            return Some((Order::Numerals, values));
        }
        let (relation, path) = self.0.iter().find(|(_, path)| values.iter().all(|v| path.iter().any(|p| p == v)))?;
        let seen: Vec<usize> = (0..path.len()).filter(|&i| values.contains(path[i].as_str())).collect();
        let (first, last) = (seen[0], seen[seen.len() - 1]);
        let ordered = match last - first < 2 * seen.len() {
            true => path[first..=last].to_vec(),
            false => seen.iter().map(|&i| path[i].clone()).collect(),
        };
        Some((Order::Chain { relation: relation.clone() }, ordered))
    }
}

/// The one path the `edges` make through all their values, if they make one of three values
/// or more.
fn path(edges: &[(String, String)]) -> Option<Vec<String>> {
    let mut next: BTreeMap<&str, &str> = BTreeMap::new();
    let mut has_pred: BTreeSet<&str> = BTreeSet::new();
    let mut values: BTreeSet<&str> = BTreeSet::new();
    for (a, b) in edges {
        match next.get(a.as_str()) {
            Some(&old) if old == b => continue,
            Some(_) => return None,
            None if a == b || !has_pred.insert(b) => return None,
            None => next.insert(a, b),
        };
        values.insert(a);
        values.insert(b);
    }
    let starts: Vec<&str> = values.iter().copied().filter(|v| !has_pred.contains(v)).collect();
    let [start] = starts.as_slice() else { return None };
    let mut path = vec![start.to_string()];
    let mut at = *start;
    while let Some(&n) = next.get(at) {
        if path.len() > values.len() {
            return None;
        }
        path.push(n.to_owned());
        at = n;
    }
    (path.len() == values.len() && path.len() >= 3).then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chains(text: &str) -> Chains {
        Chains::of(&gdl::load("t.kif", text).expect("valid").0)
    }

    fn set<'a>(values: &[&'a str]) -> BTreeSet<&'a str> {
        values.iter().copied().collect()
    }

    #[test]
    fn numbers_count_and_chains_order_the_rest() {
        let c = chains("(role a) (succ x y) (succ y z) (succ w x) (<= terminal (true (p)))");
        let (order, values) = c.order(&set(&["10", "9", "1"])).expect("numbers");
        assert_eq!((order, values), (Order::Numerals, vec!["1".into(), "9".into(), "10".into()]));
        let (order, values) = c.order(&set(&["z", "x", "w"])).expect("a chain");
        assert_eq!(order, Order::Chain { relation: "succ".into() });
        assert_eq!(values, ["w", "x", "y", "z"], "the value between two seen joins them");
        let (_, values) = c.order(&set(&["1", "4", "3"])).expect("numbers");
        assert_eq!(values, ["1", "2", "3", "4"]);
        let (_, values) = c.order(&set(&["0", "100", "50"])).expect("numbers");
        assert_eq!(values, ["0", "50", "100"], "a gap much wider than what was seen stays a gap");
        let (_, values) = c.order(&set(&["01", "2"])).expect("numbers");
        assert_eq!(values, ["01", "2"], "numbers written with leading zeros keep their spelling");
        assert_eq!(c.order(&set(&["x", "q"])), None);
        assert_eq!(c.order(&set(&["x"])), None);
    }

    #[test]
    fn branching_cyclic_and_derived_relations_do_not_chain() {
        let branching = chains("(role a) (s 1 2) (s 1 3) (s 3 4)");
        let cyclic = chains("(role a) (s a b) (s b c) (s c a)");
        let derived = chains("(role a) (s a b) (s b c) (<= (s ?x ?y) (q ?x ?y))");
        let two = chains("(role a) (s a b)");
        for c in [branching, cyclic, derived, two] {
            assert!(c.0.is_empty(), "{:?}", c.0);
        }
    }
}
