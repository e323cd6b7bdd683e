use super::work::STEPS_LEFT;
use super::*;
use crate::net::{BaseProp, Kind, MoveProp, Net, NodeId};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::time::Duration;

/// A net with `bases` base propositions (nodes 0..bases, `next` unset) and one input per entry
/// of `moves` (the role playing it), two roles, no goals.
fn skeleton(bases: usize, moves: &[usize]) -> Net {
    let mut net = Net {
        kinds: Vec::new(),
        inputs: Vec::new(),
        labels: Vec::new(),
        roles: vec!["a".into(), "b".into()],
        bases: Vec::new(),
        moves: Vec::new(),
        goals: vec![Vec::new(), Vec::new()],
        terminal: 0,
    };
    for i in 0..bases {
        let node = net.add(Kind::Base(i as u32), Vec::new(), Some(format!("(true (p{i}))")));
        net.bases.push(BaseProp::new(format!("(p{i})"), node, node, false));
    }
    for (j, &role) in moves.iter().enumerate() {
        let node = net.add(Kind::Input(j as u32), Vec::new(), Some(format!("(does r{role} m{j})")));
        net.moves.push(MoveProp { role, name: format!("m{j}"), node, legal: node });
    }
    net
}

fn all_markings(n: usize) -> impl Iterator<Item = Vec<bool>> {
    (0..1u32 << n).map(move |m| (0..n).map(|i| m >> i & 1 == 1).collect())
}

/// Every output and init, for one marking.
fn outputs(net: &Net, base: &[bool], input: &[bool]) -> Vec<bool> {
    let v = net.evaluate(base, input);
    let mut out: Vec<bool> = net.bases.iter().flat_map(|b| [v[b.next as usize], b.init]).collect();
    out.extend(net.moves.iter().map(|m| v[m.legal as usize]));
    out.extend(net.goals.iter().flatten().map(|&(_, g)| v[g as usize]));
    out.push(v[net.terminal as usize]);
    out
}

/// The interface must survive: same bases, moves and goals, base/input nodes of their kind.
fn check_interface(a: &Net, b: &Net) {
    assert_eq!(a.bases.len(), b.bases.len());
    for (i, (x, y)) in a.bases.iter().zip(&b.bases).enumerate() {
        assert_eq!((&x.name, x.init), (&y.name, y.init));
        assert_eq!(b.kinds[y.node as usize], Kind::Base(i as u32));
    }
    for (j, (x, y)) in a.moves.iter().zip(&b.moves).enumerate() {
        assert_eq!((&x.name, x.role), (&y.name, y.role));
        assert_eq!(b.kinds[y.node as usize], Kind::Input(j as u32));
    }
    let values = |n: &Net| n.goals.iter().map(|g| g.iter().map(|x| x.0).collect::<Vec<_>>()).collect::<Vec<_>>();
    assert_eq!(values(a), values(b));
    for (k, ins) in b.kinds.iter().zip(&b.inputs) {
        match k {
            Kind::Not => assert_eq!(ins.len(), 1),
            Kind::And | Kind::Or => {}
            _ => assert!(ins.is_empty()),
        }
    }
}

/// Exhaustive equivalence on every base and input marking.
fn check_exact(a: &Net, b: &Net) {
    check_interface(a, b);
    for base in all_markings(a.bases.len()) {
        for input in all_markings(a.moves.len()) {
            assert_eq!(outputs(a, &base, &input), outputs(b, &base, &input), "base {base:?} input {input:?}");
        }
    }
}

/// Every reachable state, and with it every legal joint move (one move per role that has any),
/// found by exhaustive search in `a`.
fn reachable(a: &Net) -> Vec<(Vec<bool>, Vec<bool>)> {
    let zeros = vec![false; a.moves.len()];
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![a.bases.iter().map(|b| b.init).collect::<Vec<bool>>()];
    let mut out = Vec::new();
    while let Some(s) = stack.pop() {
        if !seen.insert(s.clone()) {
            continue;
        }
        out.push((s.clone(), zeros.clone()));
        let v = a.evaluate(&s, &zeros);
        let legal: Vec<Vec<usize>> = (0..a.roles.len())
            .map(|r| (0..a.moves.len()).filter(|&j| a.moves[j].role == r && v[a.moves[j].legal as usize]).collect())
            .collect();
        let mut joint = vec![zeros.clone()];
        for ms in legal.iter().filter(|ms| !ms.is_empty()) {
            joint = joint
                .iter()
                .flat_map(|input| {
                    ms.iter().map(move |&j| {
                        let mut i = input.clone();
                        i[j] = true;
                        i
                    })
                })
                .collect();
        }
        for input in joint {
            let v = a.evaluate(&s, &input);
            stack.push(a.bases.iter().map(|b| v[b.next as usize]).collect());
            out.push((s.clone(), input));
        }
    }
    out
}

fn check_reachable(a: &Net, b: &Net) {
    check_interface(a, b);
    for (s, input) in reachable(a) {
        assert_eq!(outputs(a, &s, &input), outputs(b, &s, &input), "state {s:?} input {input:?}");
    }
}

fn exact() -> Passes {
    Passes { reachability: false, ..Passes::default() }
}

#[test]
fn constants_fold_away() {
    let mut net = skeleton(2, &[0]);
    let f = net.add(Kind::Const(false), vec![], None);
    let t = net.add(Kind::Const(true), vec![], None);
    let and_f = net.add(Kind::And, vec![0, f], Some("(dead)".into()));
    let and_t = net.add(Kind::And, vec![0, t], None);
    let or_t = net.add(Kind::Or, vec![and_f, t], None);
    let not_f = net.add(Kind::Not, vec![f], None);
    let empty_and = net.add(Kind::And, vec![], None);
    let empty_or = net.add(Kind::Or, vec![], None);
    net.bases[0].next = and_t;
    net.bases[1].next = and_f;
    net.moves[0].legal = or_t;
    net.goals[0] = vec![(0, not_f), (50, empty_or), (100, empty_and)];
    net.terminal = empty_or;
    let (opt, stats) = optimize_with(&net, &exact());
    check_exact(&net, &opt);
    // AND(p0, true) is p0; everything else is a constant.
    assert_eq!(opt.bases[0].next, opt.bases[0].node);
    assert_eq!(opt.kinds[opt.bases[1].next as usize], Kind::Const(false));
    assert_eq!(opt.kinds[opt.moves[0].legal as usize], Kind::Const(true));
    assert_eq!(opt.kinds[opt.terminal as usize], Kind::Const(false));
    assert_eq!(opt.kinds.len(), 2 + 2 + 1, "two constants, two bases, one input: {opt:?}");
    assert!(stats.to_string().contains("fold"));
}

#[test]
fn cycles_fold_to_their_least_fixpoint() {
    let mut net = skeleton(2, &[0]);
    let f = net.add(Kind::Const(false), vec![], None);
    // x = OR(y, false), y = AND(x, x'), x' = OR(x, y): a cycle with only constant outside inputs.
    let x = net.add(Kind::Or, vec![], Some("(x)".into()));
    let y = net.add(Kind::And, vec![], Some("(y)".into()));
    let x2 = net.add(Kind::Or, vec![x, y], None);
    net.inputs[x as usize] = vec![y, f];
    net.inputs[y as usize] = vec![x, x2];
    // r = OR(r, p0): a self-loop whose least fixpoint is p0. s = AND(s, p1): always false.
    let r = net.add(Kind::Or, vec![], Some("(r)".into()));
    net.inputs[r as usize] = vec![r, 0];
    let s = net.add(Kind::And, vec![], None);
    net.inputs[s as usize] = vec![s, 1];
    // u = OR(v, p1), v = OR(u, input): a cycle that depends on its outside.
    let u = net.add(Kind::Or, vec![], Some("(u)".into()));
    let v = net.add(Kind::Or, vec![u, 2], None);
    net.inputs[u as usize] = vec![v, 1];
    net.bases[0].next = x;
    net.bases[1].next = r;
    net.moves[0].legal = s;
    net.goals[0] = vec![(100, u)];
    net.goals[1] = vec![(100, y)];
    net.terminal = x2;
    let (opt, _) = optimize_with(&net, &exact());
    check_exact(&net, &opt);
    assert_eq!(opt.kinds[opt.bases[0].next as usize], Kind::Const(false));
    assert_eq!(opt.kinds[opt.terminal as usize], Kind::Const(false));
    assert_eq!(opt.bases[1].next, opt.bases[0].node, "r = OR(r, p0) is p0");
    assert_eq!(opt.kinds[opt.moves[0].legal as usize], Kind::Const(false));
    // u = OR(u, p1, input) after collapsing v; the cycle is now a self-loop that drops away.
    let g = opt.goals[0][0].1 as usize;
    assert_eq!(opt.kinds[g], Kind::Or);
    assert_eq!(opt.inputs[g].len(), 2);
    assert_eq!(opt.labels[g].as_deref(), Some("(u)"));
}

#[test]
fn duplicates_merge_and_single_inputs_collapse() {
    let mut net = skeleton(3, &[0, 1]);
    let a1 = net.add(Kind::And, vec![0, 1, 2], None);
    let a2 = net.add(Kind::And, vec![2, 1, 0, 1], Some("(a)".into()));
    let n1 = net.add(Kind::Not, vec![a1], None);
    let n2 = net.add(Kind::Not, vec![a2], None);
    let nn = net.add(Kind::Not, vec![n1], Some("(nn)".into()));
    let o1 = net.add(Kind::Or, vec![n1, 3], None);
    let o2 = net.add(Kind::Or, vec![4, n2, 3], None);
    let o3 = net.add(Kind::Or, vec![3, n1], Some("(o3)".into()));
    let single = net.add(Kind::Or, vec![o3], Some("(single)".into()));
    net.bases[0].next = o1;
    net.bases[1].next = o2;
    net.bases[2].next = nn;
    net.moves[0].legal = single;
    net.moves[1].legal = a1;
    let (opt, stats) = optimize_with(&net, &exact());
    check_exact(&net, &opt);
    // a1 and a2 merged (label kept), NOT NOT a1 is a1, o1 and o3 merged, single collapsed.
    assert_eq!(opt.bases[2].next, opt.moves[1].legal);
    assert!(opt.labels[opt.moves[1].legal as usize].is_some(), "a name is kept");
    assert_eq!(opt.bases[0].next, opt.moves[0].legal);
    assert_ne!(opt.bases[0].next, opt.bases[1].next);
    // 3 bases, 2 inputs, AND, NOT, two ORs.
    assert_eq!(opt.kinds.len(), 9, "{opt:?}");
    let merge = stats.passes.iter().find(|p| p.pass == Pass::Merge).unwrap();
    assert!(merge.nodes_removed >= 3, "{stats}");
}

#[test]
fn complements_and_flattening() {
    let mut net = skeleton(3, &[0]);
    let not0 = net.add(Kind::Not, vec![0], None);
    let contradiction = net.add(Kind::And, vec![0, 1, not0], None);
    let tautology = net.add(Kind::Or, vec![not0, 2, 0], None);
    let inner = net.add(Kind::And, vec![1, 2], Some("(inner)".into()));
    let outer = net.add(Kind::And, vec![inner, 0], None);
    net.bases[0].next = contradiction;
    net.bases[1].next = tautology;
    net.bases[2].next = outer;
    net.moves[0].legal = tautology;
    let (opt, _) = optimize_with(&net, &exact());
    check_exact(&net, &opt);
    assert_eq!(opt.kinds[opt.bases[0].next as usize], Kind::Const(false));
    assert_eq!(opt.kinds[opt.bases[1].next as usize], Kind::Const(true));
    assert_eq!(opt.inputs[opt.bases[2].next as usize].len(), 3, "inner spliced into outer");
    let keep = Passes { flatten_labelled: false, ..exact() };
    let (opt, _) = optimize_with(&net, &keep);
    check_exact(&net, &opt);
    assert_eq!(opt.inputs[opt.bases[2].next as usize].len(), 2, "named inner kept");
}

#[test]
fn reachability_finds_constant_bases_and_unplayable_moves() {
    // p0 keeps its value (next is itself) and starts true; p1 and p2 feed each other and start
    // false; p3 is set by move m0, which is legal when p2 holds (never); p4 toggles.
    let mut net = skeleton(5, &[0, 1]);
    net.bases[0].init = true;
    net.bases[0].next = 0;
    net.bases[1].next = 2;
    net.bases[2].next = 1;
    let set = net.add(Kind::Or, vec![5, 3], Some("(set)".into()));
    net.bases[3].next = set;
    let toggle = net.add(Kind::Not, vec![4], None);
    net.bases[4].next = toggle;
    net.moves[0].legal = 2;
    let t = net.add(Kind::Const(true), vec![], None);
    net.moves[1].legal = t;
    let win = net.add(Kind::And, vec![0, 4], Some("(win)".into()));
    let lose = net.add(Kind::And, vec![3, 1], Some("(lose)".into()));
    net.goals[0] = vec![(0, lose), (100, win)];
    net.terminal = lose;
    let (opt, stats) = optimize(&net);
    check_reachable(&net, &opt);
    assert!(stats.reachability);
    let kind = |n: NodeId| opt.kinds[n as usize];
    assert_eq!(kind(opt.bases[0].next), Kind::Const(true));
    assert_eq!(kind(opt.bases[1].next), Kind::Const(false));
    assert_eq!(kind(opt.bases[3].next), Kind::Const(false));
    assert_eq!(kind(opt.moves[0].legal), Kind::Const(false));
    assert_eq!(kind(opt.terminal), Kind::Const(false));
    assert_eq!(opt.goals[0][1].1, opt.bases[4].node, "win = p0 AND p4 = p4");
    // Every base and input node is still there, of its kind.
    assert_eq!(opt.counts().bases, 5);
    assert_eq!(opt.counts().inputs, 2);
    // Without reachability the net is exactly equivalent and keeps the dynamics.
    let (eq, _) = optimize_with(&net, &exact());
    check_exact(&net, &eq);
    assert_ne!(eq.kinds[eq.terminal as usize], Kind::Const(false));
}

/// A random stratified net: blocks of AND/OR gates with arbitrary edges among themselves
/// (cycles included) and into earlier blocks, NOT gates only reading earlier blocks.
fn random_net(rng: &mut SmallRng) -> Net {
    let bases = rng.random_range(1..=4);
    let moves: Vec<usize> = (0..rng.random_range(1..=3)).map(|_| rng.random_range(0..2)).collect();
    let mut net = skeleton(bases, &moves);
    for b in &mut net.bases {
        b.init = rng.random_bool(0.4);
    }
    if rng.random_bool(0.5) {
        net.add(Kind::Const(rng.random_bool(0.5)), vec![], None);
    }
    for _block in 0..rng.random_range(1..=4) {
        let before = net.kinds.len() as NodeId;
        for _ in 0..rng.random_range(0..3) {
            let i = rng.random_range(0..before);
            net.add(Kind::Not, vec![i], None);
        }
        let start = net.kinds.len() as NodeId;
        let size = rng.random_range(1..=5);
        for _ in 0..size {
            let kind = if rng.random_bool(0.5) { Kind::And } else { Kind::Or };
            let label = rng.random_bool(0.3).then(|| format!("(v{})", net.kinds.len()));
            net.add(kind, vec![], label);
        }
        let end = net.kinds.len() as NodeId;
        for g in start..end {
            let k = rng.random_range(0..=4);
            let ins = (0..k)
                .map(|_| if rng.random_bool(0.3) { rng.random_range(start..end) } else { rng.random_range(0..start) })
                .collect();
            net.inputs[g as usize] = ins;
        }
    }
    let n = net.kinds.len() as NodeId;
    for b in 0..bases {
        net.bases[b].next = rng.random_range(0..n);
    }
    for j in 0..moves.len() {
        // Legal never reads inputs in GDL; keep it so here half of the time.
        let lo = if rng.random_bool(0.5) { 0 } else { bases as NodeId + moves.len() as NodeId };
        net.moves[j].legal = rng.random_range(lo.min(n - 1)..n);
    }
    for r in 0..2 {
        net.goals[r] = (0..rng.random_range(0..3)).map(|v| (v * 50, rng.random_range(0..n))).collect();
    }
    net.terminal = rng.random_range(0..n);
    net
}

#[test]
fn random_nets_exact() {
    let mut rng = SmallRng::seed_from_u64(1);
    for _ in 0..3000 {
        let net = random_net(&mut rng);
        let (opt, _) = optimize_with(&net, &exact());
        check_exact(&net, &opt);
        // Optimising again changes nothing.
        let (again, _) = optimize_with(&opt, &exact());
        assert_eq!(again.kinds.len(), opt.kinds.len());
    }
}

#[test]
fn a_deadline_stops_the_passes_where_they_stand_and_the_net_is_still_right() {
    // Between passes, by the clock.
    let mut rng = SmallRng::seed_from_u64(3);
    let mut cut = 0;
    for k in 0..600u64 {
        let net = random_net(&mut rng);
        let deadline = Some(Instant::now() + Duration::from_nanos(k % 30 * 500));
        let (opt, stats) = optimize_with(&net, &Passes { deadline, ..exact() });
        check_exact(&net, &opt);
        cut += usize::from(stats.cut_short);
    }
    assert!(cut > 0, "no deadline cut a pass short");
    let (_, stats) = optimize_with(&random_net(&mut rng), &exact());
    assert!(!stats.cut_short);

    // Inside a pass, at every step in turn: a sweep stops between two gates, the analysis of pass
    // reach before its end.
    let mut stopped = 0;
    for _ in 0..60 {
        let net = random_net(&mut rng);
        for steps in 0..150 {
            let mut late = false;
            for reach in [false, true] {
                STEPS_LEFT.set(Some(steps));
                let (opt, _) = optimize_with(&net, &Passes { reachability: reach, ..Passes::default() });
                if reach {
                    check_reachable(&net, &opt);
                } else {
                    check_exact(&net, &opt);
                }
                late |= STEPS_LEFT.replace(None) == Some(0);
            }
            if !late {
                break;
            }
            stopped += 1;
        }
    }
    assert!(stopped > 1000, "{stopped}");
}

#[test]
fn random_nets_reachable() {
    let mut rng = SmallRng::seed_from_u64(2);
    for _ in 0..3000 {
        let net = random_net(&mut rng);
        let (opt, _) = optimize(&net);
        check_reachable(&net, &opt);
    }
}
