//! Disjoint sets of the numbers `0..n`.

/// Disjoint sets of `0..n`, joined by [`UnionFind::union`]. Each set is represented by its
/// smallest member, so representatives do not depend on the order of the unions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnionFind {
    parent: Vec<u32>,
}

impl UnionFind {
    /// `n` sets of one member each.
    pub fn new(n: usize) -> UnionFind {
        UnionFind { parent: (0..n as u32).collect() }
    }

    /// How many numbers the sets hold.
    pub fn len(&self) -> usize {
        self.parent.len()
    }

    /// Whether the sets hold no number.
    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    /// The representative of `x`'s set: its smallest member. Halves the paths it walks.
    pub fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            self.parent[x as usize] = self.parent[self.parent[x as usize] as usize];
            x = self.parent[x as usize];
        }
        x
    }

    /// Joins the sets of `a` and `b`; whether they were apart.
    pub fn union(&mut self, a: u32, b: u32) -> bool {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent[ra.max(rb) as usize] = ra.min(rb);
        }
        ra != rb
    }

    /// Joins every member of `members` into one set.
    pub fn union_all(&mut self, members: impl IntoIterator<Item = u32>) {
        let mut members = members.into_iter();
        if let Some(first) = members.next() {
            members.for_each(|m| {
                self.union(first, m);
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The sets agree with the connected components of the pairs joined, computed by
        /// flooding, and each is represented by its smallest member.
        #[test]
        fn sets_are_the_components_of_the_pairs(n in 1usize..40, pairs in prop::collection::vec((0u32..40, 0u32..40), 0..60)) {
            let pairs: Vec<(u32, u32)> = pairs.into_iter().map(|(a, b)| (a % n as u32, b % n as u32)).collect();
            let mut sets = UnionFind::new(n);
            for &(a, b) in &pairs {
                sets.union(a, b);
            }
            let mut component = vec![u32::MAX; n];
            for start in 0..n as u32 {
                if component[start as usize] != u32::MAX {
                    continue;
                }
                let mut stack = vec![start];
                component[start as usize] = start;
                while let Some(x) = stack.pop() {
                    for &(a, b) in &pairs {
                        for (from, to) in [(a, b), (b, a)] {
                            if from == x && component[to as usize] == u32::MAX {
                                component[to as usize] = start;
                                stack.push(to);
                            }
                        }
                    }
                }
            }
            for x in 0..n as u32 {
                prop_assert_eq!(sets.find(x), component[x as usize]);
            }
        }
    }

    #[test]
    fn union_says_whether_the_sets_were_apart() {
        let mut sets = UnionFind::new(4);
        assert!(sets.union(3, 1));
        assert!(!sets.union(1, 3));
        sets.union_all([2, 3]);
        assert_eq!((sets.find(2), sets.find(0)), (1, 0));
        assert_eq!(sets.len(), 4);
    }
}
