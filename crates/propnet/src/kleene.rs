//! Three-valued (Kleene) logic over the net's gates: the one evaluator that constant folding,
//! the reachability pass and the analyses' implication queries share.

use crate::net::{Kind, NodeId};

/// A three-valued truth value: known false, known true, or unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tri {
    /// Known false.
    F,
    /// Known true.
    T,
    /// Unknown: either value is possible.
    X,
}

impl Tri {
    /// The known value `b`.
    pub fn of(b: bool) -> Tri {
        if b {
            Tri::T
        } else {
            Tri::F
        }
    }

    /// The value if known.
    pub fn known(self) -> Option<bool> {
        match self {
            Tri::F => Some(false),
            Tri::T => Some(true),
            Tri::X => None,
        }
    }

    /// The value of a node of `kind` reading `ins`, whose values `value` gives. Base and input
    /// nodes are unknown: only the caller knows what it assumes of them.
    pub fn gate(kind: Kind, ins: &[NodeId], value: impl Fn(NodeId) -> Tri) -> Tri {
        match kind {
            Kind::And | Kind::Or => {
                let (zero, unit) = if kind == Kind::And { (Tri::F, Tri::T) } else { (Tri::T, Tri::F) };
                let mut all_unit = true;
                for &i in ins {
                    let v = value(i);
                    if v == zero {
                        return zero;
                    }
                    all_unit &= v == unit;
                }
                if all_unit {
                    unit
                } else {
                    Tri::X
                }
            }
            Kind::Not => match value(ins[0]) {
                Tri::F => Tri::T,
                Tri::T => Tri::F,
                Tri::X => Tri::X,
            },
            Kind::Const(c) => Tri::of(c),
            Kind::Base(_) | Kind::Input(_) => Tri::X,
        }
    }
}

impl From<Option<bool>> for Tri {
    fn from(v: Option<bool>) -> Tri {
        v.map_or(Tri::X, Tri::of)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gates_follow_kleene_logic() {
        let vals = [Tri::F, Tri::T, Tri::X];
        let v = |i: NodeId| vals[i as usize];
        assert_eq!(Tri::gate(Kind::And, &[1, 2], v), Tri::X);
        assert_eq!(Tri::gate(Kind::And, &[0, 2], v), Tri::F);
        assert_eq!(Tri::gate(Kind::And, &[1, 1], v), Tri::T);
        assert_eq!(Tri::gate(Kind::Or, &[0, 2], v), Tri::X);
        assert_eq!(Tri::gate(Kind::Or, &[2, 1], v), Tri::T);
        assert_eq!(Tri::gate(Kind::Or, &[0], v), Tri::F);
        assert_eq!(Tri::gate(Kind::Not, &[2], v), Tri::X);
        assert_eq!(Tri::gate(Kind::Not, &[0], v), Tri::T);
        assert_eq!(Tri::gate(Kind::Base(0), &[], v), Tri::X);
        assert_eq!(Tri::gate(Kind::Const(true), &[], v), Tri::T);
        assert_eq!(Tri::from(None), Tri::X);
        assert_eq!(Tri::from(Some(false)).known(), Some(false));
    }
}
