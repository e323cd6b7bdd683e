//! What a few known values of base propositions force through the proved state invariants, in
//! any reachable state that has them: a member of a group true makes the rest of the group
//! false, an exactly-one group with all members but one false makes that one true, and an
//! implication's first true makes its second true (its second false, its first false). The
//! propagations over the net (inhibitors, goal inhibitors, goal latches) assume these too.

use crate::Group;

/// The proved groups indexed by base, to work out what a few known values force in any
/// reachable state that has them: a member that has the value at which it counts makes the
/// rest of its groups take the other value, and an exactly-one group with all members but one
/// ruled out makes that one count. (For most groups a member counts when true; an
/// implication's second counts when false.)
pub(crate) struct Consequences<'a> {
    groups: &'a [Group],
    /// Per base, the groups it belongs to, with the value at which it counts in each.
    of: Vec<Vec<(u32, bool)>>,
    value: Vec<Option<bool>>,
    /// Per group, its members known not to count, and whether one is known to count.
    ruled_out: Vec<u32>,
    settled: Vec<bool>,
    touched: Vec<usize>,
    touched_groups: Vec<u32>,
}

impl<'a> Consequences<'a> {
    /// The index of `groups` over `bases` base propositions.
    pub fn new(bases: usize, groups: &'a [Group]) -> Consequences<'a> {
        let mut of = vec![Vec::new(); bases];
        for (g, group) in groups.iter().enumerate() {
            for (b, counts) in group.literals() {
                of[b].push((g as u32, counts));
            }
        }
        Consequences {
            groups,
            of,
            value: vec![None; bases],
            ruled_out: vec![0; groups.len()],
            settled: vec![false; groups.len()],
            touched: Vec::new(),
            touched_groups: Vec::new(),
        }
    }

    /// `base` and the other members of every group it belongs to.
    pub fn partners(&self, base: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::once(base)
            .chain(self.of[base].iter().flat_map(|&(g, _)| self.groups[g as usize].bases.iter().copied()))
    }

    /// `facts` and what the groups force with them, in the order found; `None` when no state
    /// that satisfies the groups has them all (then no reachable state does).
    pub fn close(&mut self, facts: &[(usize, bool)]) -> Option<Vec<(usize, bool)>> {
        let out = self.propagate(facts);
        for b in self.touched.drain(..) {
            self.value[b] = None;
        }
        for g in self.touched_groups.drain(..) {
            self.ruled_out[g as usize] = 0;
            self.settled[g as usize] = false;
        }
        out
    }

    fn propagate(&mut self, facts: &[(usize, bool)]) -> Option<Vec<(usize, bool)>> {
        let mut queue: Vec<(usize, bool)> = facts.iter().rev().copied().collect();
        let mut out = Vec::new();
        while let Some((b, v)) = queue.pop() {
            match self.value[b] {
                Some(known) if known == v => continue,
                Some(_) => return None,
                None => {}
            }
            self.value[b] = Some(v);
            self.touched.push(b);
            out.push((b, v));
            for &(g, counts) in &self.of[b] {
                let group = &self.groups[g as usize];
                let g = g as usize;
                if self.ruled_out[g] == 0 && !self.settled[g] {
                    self.touched_groups.push(g as u32);
                }
                if v == counts {
                    if std::mem::replace(&mut self.settled[g], true) {
                        return None;
                    }
                    queue.extend(group.literals().filter(|&(m, _)| m != b).map(|(m, c)| (m, !c)));
                    continue;
                }
                self.ruled_out[g] += 1;
                let left = group.bases.len() - self.ruled_out[g] as usize;
                if group.exactly_one && !self.settled[g] {
                    match left {
                        0 => return None,
                        1 => {
                            let last = group.literals().find(|&(m, c)| self.value[m] != Some(!c));
                            queue.extend(last);
                        }
                        _ => {}
                    }
                }
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_true_member_clears_its_groups_and_a_last_open_member_of_an_exactly_one_group_holds() {
        let g = |bases: &[usize], exactly_one| Group { bases: bases.to_vec(), exactly_one, ..Default::default() };
        // A cell with three contents, a turn between two roles, and a pair at most one of.
        let groups = [g(&[0, 1, 2], true), g(&[3, 4], true), g(&[2, 5], false)];
        let mut c = Consequences::new(6, &groups);
        let sorted = |mut v: Vec<(usize, bool)>| {
            v.sort_unstable();
            v
        };
        let close = |c: &mut Consequences, facts: &[(usize, bool)]| c.close(facts).map(sorted);
        assert_eq!(close(&mut c, &[(2, true)]), Some(vec![(0, false), (1, false), (2, true), (5, false)]));
        assert_eq!(close(&mut c, &[(3, false)]), Some(vec![(3, false), (4, true)]));
        // Two members false leave the third; through it, the other group's member is false.
        assert_eq!(close(&mut c, &[(0, false), (1, false)]), Some(vec![(0, false), (1, false), (2, true), (5, false)]));
        // Facts that no state satisfying the groups has, and nothing left over from them.
        assert_eq!(close(&mut c, &[(0, true), (1, true)]), None);
        assert_eq!(close(&mut c, &[(3, false), (4, false)]), None);
        assert_eq!(close(&mut c, &[(5, true), (0, false), (1, false)]), None);
        // A group that is only at most one needs none of its members.
        assert_eq!(close(&mut c, &[(5, false)]), Some(vec![(5, false)]));
        assert_eq!(close(&mut c, &[(1, true)]), Some(vec![(0, false), (1, true), (2, false)]));
    }

    #[test]
    fn an_implication_carries_its_first_forward_and_its_second_back() {
        // 0 implies 1; 1 is one of an exactly-one pair with 2.
        let implies = Group { bases: vec![0, 1], implies: true, ..Default::default() };
        let groups = [implies, Group { bases: vec![1, 2], exactly_one: true, ..Default::default() }];
        let mut c = Consequences::new(3, &groups);
        let mut close = |facts: &[(usize, bool)]| {
            c.close(facts).map(|mut v| {
                v.sort_unstable();
                v
            })
        };
        assert_eq!(close(&[(0, true)]), Some(vec![(0, true), (1, true), (2, false)]));
        assert_eq!(close(&[(2, true)]), Some(vec![(0, false), (1, false), (2, true)]));
        // Neither says anything about the other where the first is false or the second true.
        assert_eq!(close(&[(0, false)]), Some(vec![(0, false)]));
        assert_eq!(close(&[(1, true)]), Some(vec![(1, true), (2, false)]));
        assert_eq!(close(&[(0, true), (1, false)]), None);
    }
}
