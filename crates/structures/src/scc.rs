//! Strongly connected components of a graph whose nodes are the numbers `0..n`, each listed
//! after every component it reads: a propnet's evaluation order, the optimiser's component
//! order, and the recursion among a game's relations.

/// A node of the graph.
pub type NodeId = u32;

/// The strongly connected components reachable from some roots, each listed after every
/// component it reads.
#[derive(Debug, Clone, Default)]
pub struct Components {
    /// The reached nodes, component by component.
    pub order: Vec<NodeId>,
    /// Where each component starts in `order`, plus a final end.
    pub start: Vec<u32>,
    /// Each node's component, or `u32::MAX` if no root reaches it.
    pub group_of: Vec<u32>,
    /// Whether each component may be a cycle (more than one node, or a node reading itself).
    pub cyclic: Vec<bool>,
}

impl Components {
    /// The components of the `n`-node graph with these inputs (nodes past the end of `inputs`
    /// have none), restricted to what `roots` reach. Iterative Tarjan, linear in the edges.
    pub fn of(inputs: &[Vec<NodeId>], n: usize, roots: impl IntoIterator<Item = NodeId>) -> Components {
        Components::of_until(inputs, n, roots, &mut |_| false).expect("never stopped")
    }

    /// [`Components::of`], asking `stop` with a step count as it goes (every node visited and
    /// every input followed is a step): `None` as soon as it says to stop.
    pub fn of_until(
        inputs: &[Vec<NodeId>],
        n: usize,
        roots: impl IntoIterator<Item = NodeId>,
        stop: &mut dyn FnMut(usize) -> bool,
    ) -> Option<Components> {
        let mut steps = 0;
        let none: &[NodeId] = &[];
        let ins_of = |v: NodeId| inputs.get(v as usize).map_or(none, Vec::as_slice);
        let mut t = Tarjan {
            low: vec![u32::MAX; n],
            stack: Vec::new(),
            call: Vec::new(),
            counter: 0,
            out: Components {
                order: Vec::with_capacity(n),
                start: Vec::new(),
                group_of: vec![u32::MAX; n],
                cyclic: Vec::new(),
            },
        };
        for root in roots {
            if t.low[root as usize] != u32::MAX {
                continue;
            }
            t.visit(root, ins_of(root).is_empty());
            while let Some(&mut (v, ref mut next, index)) = t.call.last_mut() {
                steps += 1;
                if stop(steps) {
                    return None;
                }
                let ins = ins_of(v);
                if (*next as usize) < ins.len() {
                    let w = ins[*next as usize];
                    *next += 1;
                    if t.low[w as usize] == u32::MAX {
                        t.visit(w, ins_of(w).is_empty());
                    } else if t.out.group_of[w as usize] == u32::MAX {
                        t.low[v as usize] = t.low[v as usize].min(t.low[w as usize]);
                    }
                    continue;
                }
                t.call.pop();
                if let Some(&(parent, _, _)) = t.call.last() {
                    t.low[parent as usize] = t.low[parent as usize].min(t.low[v as usize]);
                }
                if t.low[v as usize] == index {
                    let out = &mut t.out;
                    let g = out.start.len() as u32;
                    out.start.push(out.order.len() as u32);
                    let size = out.order.len();
                    while let Some(w) = t.stack.pop() {
                        out.group_of[w as usize] = g;
                        out.order.push(w);
                        if w == v {
                            break;
                        }
                    }
                    let cyclic = out.order.len() - size > 1 || ins.contains(&v);
                    out.cyclic.push(cyclic);
                }
            }
        }
        t.out.start.push(t.out.order.len() as u32);
        Some(t.out)
    }

    /// How many components there are.
    pub fn len(&self) -> usize {
        self.cyclic.len()
    }

    /// Whether no node was reached.
    pub fn is_empty(&self) -> bool {
        self.cyclic.is_empty()
    }

    /// The nodes of component `g`.
    pub fn members(&self, g: usize) -> &[NodeId] {
        &self.order[self.start[g] as usize..self.start[g + 1] as usize]
    }
}

/// State of [`Components::of`]. `low` is `u32::MAX` until a node is visited; a visited node is on
/// the stack until it has a component; a node's own index lives in its call frame.
struct Tarjan {
    low: Vec<u32>,
    stack: Vec<NodeId>,
    call: Vec<(NodeId, u32, u32)>,
    counter: u32,
    out: Components,
}

impl Tarjan {
    fn visit(&mut self, w: NodeId, leaf: bool) {
        self.low[w as usize] = self.counter;
        if leaf {
            // A node without inputs is a component of its own at once.
            let out = &mut self.out;
            out.group_of[w as usize] = out.start.len() as u32;
            out.start.push(out.order.len() as u32);
            out.order.push(w);
            out.cyclic.push(false);
        } else {
            self.stack.push(w);
            self.call.push((w, 0, self.counter));
        }
        self.counter += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_come_after_what_they_read() {
        // 0 leaf; 1 <-> 2 a cycle reading 0; 3 reads 2; 4 reads itself; 5 unreached.
        let inputs = vec![vec![], vec![0, 2], vec![1], vec![2], vec![4], vec![0]];
        let c = Components::of(&inputs, 6, [3, 4]);
        assert_eq!(c.len(), 4);
        let pos = |n: NodeId| c.group_of[n as usize];
        assert!(pos(0) < pos(1) && pos(1) == pos(2) && pos(2) < pos(3));
        assert!(c.cyclic[pos(1) as usize] && c.cyclic[pos(4) as usize]);
        assert!(!c.cyclic[pos(0) as usize] && !c.cyclic[pos(3) as usize]);
        assert_eq!(pos(5), u32::MAX);
        let mut cycle = c.members(pos(1) as usize).to_vec();
        cycle.sort_unstable();
        assert_eq!(cycle, [1, 2]);
    }

    #[test]
    fn a_search_told_to_stop_stops_and_one_never_told_agrees() {
        // A chain 0 <- 1 <- ... <- 99 read from its end.
        let inputs: Vec<Vec<NodeId>> = (0..100).map(|i| if i == 0 { vec![] } else { vec![i - 1] }).collect();
        let whole = Components::of(&inputs, 100, [99]);
        let mut asked = 0;
        assert!(Components::of_until(&inputs, 100, [99], &mut |k| {
            asked = k;
            k == 50
        })
        .is_none());
        assert_eq!(asked, 50);
        let never = Components::of_until(&inputs, 100, [99], &mut |_| false).expect("not stopped");
        assert_eq!(never.order, whole.order);
        assert_eq!(never.group_of, whole.group_of);
    }
}
