//! The compiled, read-only form of a net that every runtime engine executes.
//!
//! Every gate becomes an AND over *literals* (a slot index and a negation bit): an OR is the
//! negated AND of its negated inputs and a NOT is just a negated edge, so the evaluator has a
//! single, branch-free gate shape. While translating, constants are folded (every node that
//! reads no base or input proposition is evaluated once), single-input gates become aliases,
//! identical gates are shared, and a literal common to many conjunctions of an OR is factored
//! out of them. Gates nobody's output needs are dropped.
//!
//! Slots are laid out as: the constant false, the base propositions, the input propositions,
//! then the gates in evaluation order, in three consecutive phases:
//!
//! * *core*: gates that read no input and are needed for `legal`, `terminal` or `next`;
//! * *goal*: gates that read no input and are needed only for `goal` (evaluated only when a
//!   goal is asked for: a random playout needs them once, at its end);
//! * *move*: gates that read an input (needed only for `next` in valid GDL).
//!
//! A phase reads only earlier slots, so evaluating the phases in order evaluates the whole net.
//! Ground recursion (a cyclic SCC of the net) stays a contiguous *block* of gates that is
//! re-evaluated from its initial values until nothing changes (the least fixpoint).
//!
//! When only `next` reads moves (always, for valid GDL), the move phase is only ever evaluated
//! with exactly one move per role, and conjunctions over moves are simplified on that premise:
//! "none of these moves" becomes "one of the other moves" when that is shorter. Frame axioms are
//! the reason: a cell keeps its piece when any of the ~300 moves that do not touch it is played,
//! i.e. when none of the few that do is. With the factoring above this shrinks breakthrough's
//! net from 21,000 to 2,700 edges and chineseCheckers6's from 220,000 to 24,000 (random playouts
//! 2.2 and 9 times faster).

use super::native::{self, Code, Fallback};
use super::turns::{self, Turns};
use crate::net::{Kind, Net, NodeId};
use hashbrown::HashTable;
use rustc_hash::FxHashMap;
use std::ops::Range;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

/// A literal: `slot << 1 | negated`.
pub(crate) type Lit = u32;

/// The literal that is always false (slot 0, the constant false).
pub(crate) const FALSE: Lit = 0;
/// The literal that is always true.
pub(crate) const TRUE: Lit = 1;

/// A run of gates in evaluation order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Segment {
    /// The gates (indices into the gate arrays, i.e. slot minus [`Program::first_gate`]).
    pub gates: Range<usize>,
    /// Whether the run is a recursive block to iterate to its least fixpoint.
    pub cyclic: bool,
}

/// Sizes of a compiled program, for reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct ProgramStats {
    /// Gates evaluated for `legal`, `terminal` and the state-only part of `next`.
    pub core_gates: usize,
    /// Gates evaluated only for goals.
    pub goal_gates: usize,
    /// Gates that read a move.
    pub move_gates: usize,
    /// Gate inputs (edges) over all gates.
    pub edges: usize,
    /// Gates inside recursive blocks.
    pub cyclic_gates: usize,
    /// Native functions generated for the acyclic gate runs (0: the program runs interpreted);
    /// filled in by [`Program::stats`].
    pub native_functions: usize,
    /// Microseconds spent generating them.
    pub native_micros: u64,
    /// Turns of the cycle the program was specialised to (0: none, see `turns`).
    pub turns: usize,
    /// The largest turn program's gates for every state of its turn.
    pub turn_core_gates: usize,
}

/// A net compiled for fast evaluation: flat arrays, CSR fan-in and fan-out, gates in evaluation
/// order split into phases. Immutable; share it between threads with an `Arc`.
#[derive(Debug, Clone)]
pub struct Program {
    pub(crate) roles: Vec<String>,
    /// Base proposition names (index = base index).
    pub(crate) base_names: Vec<String>,
    /// The base indices sorted by the byte order of their names.
    pub(crate) base_order: Vec<u32>,
    /// Initial value of each base proposition.
    pub(crate) init: Vec<bool>,
    /// Input proposition names and roles.
    pub(crate) move_names: Vec<String>,
    pub(crate) move_role: Vec<u32>,
    /// Per role, its input indices in net order.
    pub(crate) role_moves: Vec<Vec<u32>>,
    /// Per input, the literal that says it is legal.
    pub(crate) legal: Vec<Lit>,
    /// Per base, the literal computing its next value.
    pub(crate) next: Vec<Lit>,
    /// The bases whose next value is read straight from a base's slot (a copy of another base
    /// or itself): a pass that writes next values over the bases in place reads these first.
    pub(crate) next_copies: Vec<u32>,
    /// Per role, (value, literal), sorted by value.
    pub(crate) goals: Vec<Vec<(u32, Lit)>>,
    pub(crate) terminal: Lit,
    /// Number of slots (constant, bases, inputs, gates).
    pub(crate) slots: usize,
    /// Slot of the first gate.
    pub(crate) first_gate: usize,
    /// Gate fan-in, CSR: gate g reads `fanin[fanin_start[g]..fanin_start[g + 1]]`.
    pub(crate) fanin_start: Vec<u32>,
    pub(crate) fanin: Vec<Lit>,
    /// Per gate, the slot it writes: `first_gate + g`, but in a packed program (see `packed`),
    /// where gates share slots.
    pub(crate) out_slot: Vec<u32>,
    /// Initial value of each gate in a recursive block (true for gates computing a negated OR).
    pub(crate) block_init: Vec<bool>,
    /// Recursive blocks as gate ranges, in evaluation order.
    pub(crate) blocks: Vec<Range<usize>>,
    /// Slot fan-out to gates outside recursive blocks (goal gates left out), CSR: slot s is read
    /// by the literals `fanout[fanout_start[s]..fanout_start[s + 1]]`, each stored as
    /// `gate << 1 | negated`.
    pub(crate) fanout_start: Vec<u32>,
    pub(crate) fanout: Vec<u32>,
    /// Slot fan-out to recursive blocks, CSR like `fanout`: the blocks (indices into `blocks`)
    /// with a gate reading slot s, each once, the slot's own block left out.
    pub(crate) block_fanout_start: Vec<u32>,
    pub(crate) block_fanout: Vec<u32>,
    /// Per slot, the outputs whose literal reads it as is, CSR like `fanout`: each entry is
    /// `index << 2 | legal << 1 | negated`, the index a base's (its `next`) or an input's (its
    /// `legal`), so that forward propagation keeps both sets up to date as slots change.
    pub(crate) outputs_start: Vec<u32>,
    pub(crate) outputs: Vec<u32>,
    /// Gate ranges of the phases (indices into the gate arrays).
    pub(crate) core: Vec<Segment>,
    /// How many of `core`'s segments, the first, compute every state gate the move phase and the
    /// next state read (whole recursive blocks with them): all a state loaded only to be
    /// expanded needs, without its legal moves, terminal flag or what only they read.
    pub(crate) support: usize,
    pub(crate) goal_phase: Vec<Segment>,
    pub(crate) move_phase: Vec<Segment>,
    /// Whether some legal, goal or terminal output reads an input (invalid GDL, but handled: such
    /// outputs are evaluated with every input false, like [`Net::evaluate`] would).
    pub(crate) outputs_read_inputs: bool,
    /// Whether the move phase was simplified assuming exactly one move per role is set.
    pub(crate) exclusive: bool,
    pub(crate) stats: ProgramStats,
    /// The acyclic gate runs as native code, or why they run interpreted.
    pub(crate) native: Result<Arc<Code>, Fallback>,
    /// The program specialised to each turn of the game's cycle of turns, where it has one
    /// (see `turns`): the same bases and inputs, the gates of one turn only.
    pub(crate) turns: Option<Arc<Turns>>,
    /// The same program packed for wide passes (see `packed`), made when first asked for:
    /// `None` inside where it cannot be packed.
    pub(crate) wide: OnceLock<Option<Arc<Program>>>,
}

/// Which phase a gate belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    Unneeded,
    Core,
    /// The first segments of the core: what the move phase and the next state read
    /// ([`Program::support`]).
    Support,
    Goal,
    Move,
}

impl Phase {
    /// The phases that are evaluated, in evaluation order.
    pub const EVALUATED: [Phase; 3] = [Phase::Core, Phase::Goal, Phase::Move];

    /// The phase's place in [`Phase::EVALUATED`] (the unneeded gates share the core's).
    #[inline]
    pub fn index(self) -> usize {
        match self {
            Phase::Unneeded | Phase::Core | Phase::Support => 0,
            Phase::Goal => 1,
            Phase::Move => 2,
        }
    }
}

/// A gate while compiling, before renumbering.
struct TempGate {
    lits: Vec<Lit>,
    block: u32,
    init: bool,
}

impl Program {
    /// Compiles a net, with native code for its acyclic gate runs where the host allows.
    pub fn new(net: &Net) -> Program {
        match Self::within(net, None) {
            Some(program) => program,
            None => unreachable!("no deadline to miss"),
        }
    }

    /// Compiles a net without native code, for programs only ever run one state at a time
    /// (forward propagation, which native code does not speed up), where compiling it would be
    /// start-clock time spent for nothing.
    pub fn for_one_state(net: &Net) -> Program {
        match Self::compile(net, None, false) {
            Some(program) => program,
            None => unreachable!("no deadline to miss"),
        }
    }

    /// Compiles a net, with native code for its acyclic gate runs where the host allows and the
    /// deadline leaves time (the program is interpreted otherwise), or gives up (`None`) within a
    /// few milliseconds of `deadline`.
    pub fn within(net: &Net, deadline: Option<Instant>) -> Option<Program> {
        let mut program = Self::compile(net, deadline, true)?;
        program.turns = Self::specialise(net, &program, deadline).map(Arc::new);
        Some(program)
    }

    /// The programs of each turn of `net`'s cycle of turns (see `turns`), where it has one and
    /// the deadline leaves time; `None` also where no turn program is smaller than `whole`.
    fn specialise(net: &Net, whole: &Program, deadline: Option<Instant>) -> Option<Turns> {
        if !whole.exclusive || whole.outputs_read_inputs {
            return None;
        }
        let (bases, keys) = turns::cycle(whole)?;
        let fixed =
            |key: u64| -> Vec<(u32, bool)> { bases.iter().enumerate().map(|(k, &b)| (b, key >> k & 1 == 1)).collect() };
        // Turn programs that would evaluate nearly as much as the whole are not worth a layout
        // each and the switch between them.
        let left = keys.iter().map(|&key| turns::core_gates_left(whole, &fixed(key))).max()?;
        if left * 10 >= whole.stats.core_gates * 9 {
            return None;
        }
        let mut programs = Vec::with_capacity(keys.len());
        for &key in &keys {
            programs.push((key, whole.fold(net, &fixed(key), deadline)?));
        }
        Some(Turns::new(bases, programs))
    }

    /// This program with the base propositions `fixed` read as the constants given there: its
    /// gates folded (constant inputs dropped, gates left with one input replaced by it, equal
    /// gates shared) and laid out again, which leaves out what no output needs any more; native
    /// code where this program has it, until `deadline`. Starting from the laid-out program
    /// rather than the net saves the net's schedule and translation (most of a layout).
    fn fold(&self, net: &Net, fixed: &[(u32, bool)], deadline: Option<Instant>) -> Option<Program> {
        let late = |k: usize| crate::past(deadline, k, 4096);
        let first_gate = self.first_gate;
        // What each of this program's slots is in the folded one.
        let mut lit_of: Vec<Lit> = (0..self.slots as Lit).map(|s| s << 1).collect();
        for &(b, value) in fixed {
            lit_of[Self::base_slot(b as usize)] = Lit::from(value);
        }
        let large = self.slots > 1 << 16;
        let builder = Builder::new(first_gate, self.move_role.clone(), self.roles.len(), self.exclusive);
        let mut b = crate::Aside::new(builder, large);
        let map = |lit_of: &[Lit], l: Lit| lit_of[(l >> 1) as usize] ^ (l & 1);
        let mut blocks = self.blocks.iter().peekable();
        let (mut g, mut block_ids) = (0, 0);
        while g < self.slots - first_gate {
            if late(g) {
                return None;
            }
            match blocks.peek() {
                // A recursive block: copied gate for gate, as the layout from the net makes it.
                Some(&block) if block.start == g => {
                    let id = block_ids;
                    block_ids += 1;
                    for (k, h) in block.clone().enumerate() {
                        lit_of[first_gate + h] = ((first_gate + b.gates.len() + k) as Lit) << 1;
                    }
                    for h in block.clone() {
                        let lits = self.gate_inputs(h).iter().map(|&l| map(&lit_of, l)).collect();
                        b.gates.push(TempGate { lits, block: id, init: self.block_init[h] });
                    }
                    g = block.end;
                    blocks.next();
                }
                _ => {
                    let lits: Vec<Lit> = self.gate_inputs(g).iter().map(|&l| map(&lit_of, l)).collect();
                    // A gate of negated inputs only is the complement of an OR (as the layout
                    // makes ORs): built as one, so that its disjuncts are factored again now that
                    // some of their conjuncts are constants.
                    lit_of[first_gate + g] = if lits.len() > 1 && lits.iter().all(|l| l & 1 == 1) {
                        b.or(lits.into_iter().map(|l| l ^ 1).collect()) ^ 1
                    } else {
                        b.and(lits)
                    };
                    g += 1;
                }
            }
        }
        let l = |l: Lit| map(&lit_of, l);
        let outputs = Outputs {
            legal: self.legal.iter().map(|&x| l(x)).collect(),
            next: self.next.iter().map(|&x| l(x)).collect(),
            goals: self.goals.iter().map(|gs| gs.iter().map(|&(v, x)| (v, l(x))).collect()).collect(),
            terminal: l(self.terminal),
        };
        let mut program = Self::layout(net, &b.gates, outputs, first_gate, &late)?;
        program.exclusive = self.exclusive;
        if self.native.is_ok() {
            program.native = native::compile(&program, deadline).map(Arc::new);
        }
        Some(program)
    }

    /// Lays out `net` and, with `native`, compiles native code until `deadline`.
    fn compile(net: &Net, deadline: Option<Instant>, native: bool) -> Option<Program> {
        // The clock is read every 4,096 components, and between the steps of the layout.
        let late = |k: usize| crate::past(deadline, k, 4096);
        let nb = net.bases.len();
        let ni = net.moves.len();
        let first_gate = 1 + nb + ni;
        if late(0) {
            return None;
        }
        // A large net's components and gates are an allocation each: freeing them takes a
        // fifth of a second on a net of 400,000 gates, after the last reading of the clock.
        let large = net.kinds.len() > 1 << 16;
        let schedule = crate::Aside::new(net.schedule_until(&mut |k| crate::past(deadline, k, 1 << 16))?, large);
        if late(0) {
            return None;
        }

        // Nodes that read no base or input are constants: evaluate them once.
        let n = net.kinds.len();
        let mut is_static = vec![false; n];
        let mut comp_of = vec![0u32; n];
        for (c, comp) in schedule.iter().enumerate() {
            for &v in comp {
                comp_of[v as usize] = c as u32;
            }
        }
        for (c, comp) in schedule.iter().enumerate() {
            let ok = comp.iter().all(|&v| {
                !matches!(net.kinds[v as usize], Kind::Base(_) | Kind::Input(_))
                    && net.inputs[v as usize].iter().all(|&w| comp_of[w as usize] == c as u32 || is_static[w as usize])
            });
            for &v in comp {
                is_static[v as usize] = ok;
            }
        }
        let static_values = net.evaluate_with(&schedule, &vec![false; nb], &vec![false; ni]);
        if late(0) {
            return None;
        }

        // Only `next` may read a move in valid GDL. When that holds, the move phase is only ever
        // evaluated with exactly one move per role, which the translation exploits.
        let mut reads_input = vec![false; n];
        for (c, comp) in schedule.iter().enumerate() {
            let any = comp.iter().any(|&v| {
                matches!(net.kinds[v as usize], Kind::Input(_))
                    || net.inputs[v as usize]
                        .iter()
                        .any(|&w| comp_of[w as usize] != c as u32 && reads_input[w as usize])
            });
            for &v in comp {
                reads_input[v as usize] = any;
            }
        }
        let queried = net.moves.iter().map(|m| m.legal).chain(net.goals.iter().flatten().map(|&(_, g)| g));
        let exclusive = !queried.chain([net.terminal]).any(|v| reads_input[v as usize]);

        // Translate to literals in schedule order.
        let move_role = net.moves.iter().map(|m| m.role as u32).collect();
        let mut b = crate::Aside::new(Builder::new(first_gate, move_role, net.roles.len(), exclusive), large);
        let mut lit_of = vec![FALSE; n];
        let mut blocks = 0u32;
        for (k, comp) in schedule.iter().enumerate() {
            if late(k) {
                return None;
            }
            let first = comp[0] as usize;
            let cyclic = comp.len() > 1 || net.inputs[first].contains(&comp[0]);
            if comp.iter().all(|&v| is_static[v as usize]) {
                for &v in comp {
                    lit_of[v as usize] = if static_values[v as usize] { TRUE } else { FALSE };
                }
                continue;
            }
            if !cyclic {
                let ins = || net.inputs[first].iter().map(|&w| lit_of[w as usize]);
                lit_of[first] = match net.kinds[first] {
                    Kind::Base(i) => ((1 + i as usize) as Lit) << 1,
                    Kind::Input(j) => ((1 + nb + j as usize) as Lit) << 1,
                    Kind::Const(c) => Lit::from(c),
                    Kind::Not => ins().next().unwrap_or(FALSE) ^ 1,
                    Kind::And => b.and(ins().collect()),
                    Kind::Or => b.or(ins().collect()),
                };
                continue;
            }
            // A recursive block: one gate per node, no sharing, so the fixpoint iteration
            // sees exactly the node structure the reference evaluator iterates.
            let block = blocks;
            blocks += 1;
            for (k, &v) in comp.iter().enumerate() {
                // An OR node's gate computes its complement.
                let or = Lit::from(matches!(net.kinds[v as usize], Kind::Or));
                lit_of[v as usize] = (((first_gate + b.gates.len() + k) as Lit) << 1) | or;
            }
            for &v in comp {
                let ins = net.inputs[v as usize].iter().map(|&w| lit_of[w as usize]);
                let (lits, init): (Vec<Lit>, bool) = match net.kinds[v as usize] {
                    Kind::And => (ins.collect(), false),
                    // An OR is the complement of the AND of the complements; its gate starts
                    // true so that the OR starts false.
                    Kind::Or => (ins.map(|l| l ^ 1).collect(), true),
                    Kind::Not => (ins.map(|l| l ^ 1).collect(), false),
                    // Constants, bases and inputs have no inputs, so they are never cyclic.
                    Kind::Const(_) | Kind::Base(_) | Kind::Input(_) => (vec![FALSE], false),
                };
                b.gates.push(TempGate { lits, block, init });
            }
        }

        let outputs = Outputs::new(net, &lit_of);
        let mut program = Self::layout(net, &b.gates, outputs, first_gate, &late)?;
        program.exclusive = exclusive;
        if native {
            program.native = native::compile(&program, deadline).map(Arc::new);
        }
        Some(program)
    }

    /// The same program without native code: every gate interpreted.
    pub fn interpreted(&self) -> Program {
        let turns = self.turns.as_ref().map(|t| Arc::new(t.map(Program::interpreted)));
        Program { native: Err(Fallback::Disabled), turns, ..self.clone() }
    }

    /// Why the program runs interpreted, or `None` when its acyclic gates run as native code.
    pub fn interpreted_because(&self) -> Option<String> {
        self.native.as_ref().err().map(|f| f.to_string())
    }

    /// The native code for markings one word wide, if compiled.
    #[inline]
    pub(crate) fn native(&self) -> Option<&Code> {
        self.native.as_ref().ok().map(|c| &**c)
    }

    /// The segments of `phase`, in evaluation order (none for the unneeded gates).
    #[inline]
    pub(crate) fn segments(&self, phase: Phase) -> &[Segment] {
        match phase {
            Phase::Unneeded => &[],
            Phase::Core => &self.core,
            Phase::Support => &self.core[..self.support],
            Phase::Goal => &self.goal_phase,
            Phase::Move => &self.move_phase,
        }
    }

    /// Drops unneeded gates, assigns phases and renumbers slots; gives up when `late(0)` says so.
    fn layout(
        net: &Net,
        gates: &[TempGate],
        out: Outputs,
        first_gate: usize,
        late: &dyn Fn(usize) -> bool,
    ) -> Option<Program> {
        let ng = gates.len();
        let gate_of = |l: Lit| ((l >> 1) as usize).checked_sub(first_gate);

        let (phase, outputs_read_inputs) = phases(gates, &out, 1 + net.bases.len()..first_gate, first_gate);
        if late(0) {
            return None;
        }
        let support = next_support(gates, &out, &phase, first_gate);

        // Legal outputs that no other core gate reads go last in the core phase, in move order:
        // choosing moves reads every legal output at every step, and then reads them in one
        // sweep instead of one cache miss each (a third of speedChess's playout time).
        let mut read_by_core = vec![false; ng];
        for g in (0..ng).filter(|&g| phase[g] == Phase::Core) {
            gates[g].lits.iter().filter_map(|&l| gate_of(l)).for_each(|h| read_by_core[h] = true);
        }
        let mut last = vec![false; ng];
        let legal_gates: Vec<usize> = (out.legal.iter().filter_map(|&l| gate_of(l)))
            .filter(|&g| phase[g] == Phase::Core && gates[g].block == u32::MAX && !read_by_core[g] && !support[g])
            .filter(|&g| !std::mem::replace(&mut last[g], true))
            .collect();

        // Renumber: core (what the next state reads first), goal, move, each in the original
        // (evaluation) order but for those.
        let mut new_slot = vec![u32::MAX; ng];
        let mut order: Vec<usize> = Vec::with_capacity(ng);
        let mut ranges = Vec::new();
        let mut support_end = 0;
        for p in [Phase::Core, Phase::Goal, Phase::Move] {
            let start = order.len();
            if p == Phase::Core {
                for g in (0..ng).filter(|&g| support[g]) {
                    new_slot[g] = (first_gate + order.len()) as u32;
                    order.push(g);
                }
                support_end = order.len();
            }
            let tail = if p == Phase::Core { &legal_gates[..] } else { &[] };
            for g in (0..ng).filter(|&g| phase[g] == p && !last[g] && !support[g]).chain(tail.iter().copied()) {
                new_slot[g] = (first_gate + order.len()) as u32;
                order.push(g);
            }
            ranges.push(start..order.len());
        }
        let relit = |l: Lit| match gate_of(l) {
            Some(g) => (new_slot[g] << 1) | (l & 1),
            None => l,
        };

        let mut fanin_start = Vec::with_capacity(order.len() + 1);
        let mut fanin = Vec::new();
        let mut block_init = Vec::with_capacity(order.len());
        let mut gate_block = Vec::with_capacity(order.len());
        let mut block_ids: FxHashMap<u32, u32> = FxHashMap::default();
        let mut blocks: Vec<Range<usize>> = Vec::new();
        fanin_start.push(0);
        for (k, &g) in order.iter().enumerate() {
            fanin.extend(gates[g].lits.iter().map(|&l| relit(l)));
            fanin_start.push(fanin.len() as u32);
            block_init.push(gates[g].init);
            if gates[g].block == u32::MAX {
                gate_block.push(u32::MAX);
            } else {
                let id = *block_ids.entry(gates[g].block).or_insert_with(|| {
                    blocks.push(k..k);
                    (blocks.len() - 1) as u32
                });
                blocks[id as usize].end = k + 1;
                gate_block.push(id);
            }
        }
        let segments = |r: &Range<usize>| {
            let mut segs: Vec<Segment> = Vec::new();
            let mut k = r.start;
            while k < r.end {
                let b = gate_block[k];
                let end = if b == u32::MAX {
                    (k..r.end).find(|&h| gate_block[h] != u32::MAX).unwrap_or(r.end)
                } else {
                    blocks[b as usize].end
                };
                segs.push(Segment { gates: k..end, cyclic: b != u32::MAX });
                k = end;
            }
            segs
        };
        let (support, rest) = (segments(&(ranges[0].start..support_end)), segments(&(support_end..ranges[0].end)));
        let (goal_phase, move_phase) = (segments(&ranges[1]), segments(&ranges[2]));

        // Fan-out for forward propagation leaves out the goal gates: they are evaluated on demand.
        let slots = first_gate + order.len();
        // The evaluator reads gate inputs without bounds checks on the strength of this.
        assert!(fanin.iter().all(|&l| ((l >> 1) as usize) < slots), "a gate input names no slot");
        if late(0) {
            return None;
        }
        let propagated: Vec<usize> = (0..order.len()).filter(|g| !ranges[1].contains(g)).collect();
        let (acyclic, cyclic): (Vec<usize>, Vec<usize>) =
            propagated.into_iter().partition(|&g| gate_block[g] == u32::MAX);
        let (fanout_start, fanout) = fanout(&fanin_start, &fanin, slots, &acyclic);
        let (block_fanout_start, block_fanout) = block_fanout(&fanin_start, &fanin, first_gate, &gate_block, &cyclic);

        let stats = ProgramStats {
            core_gates: ranges[0].len(),
            goal_gates: ranges[1].len(),
            move_gates: ranges[2].len(),
            edges: fanin.len(),
            cyclic_gates: blocks.iter().map(|b| b.len()).sum(),
            native_functions: 0,
            native_micros: 0,
            turns: 0,
            turn_core_gates: 0,
        };
        let legal: Vec<Lit> = out.legal.iter().map(|&l| relit(l)).collect();
        let next: Vec<Lit> = out.next.iter().map(|&l| relit(l)).collect();
        let (outputs_start, outputs) = outputs(slots, &next, &legal);
        let roles = net.roles.clone();
        let mut role_moves = vec![Vec::new(); roles.len()];
        for (j, m) in net.moves.iter().enumerate() {
            role_moves[m.role].push(j as u32);
        }
        let base_names: Vec<String> = net.bases.iter().map(|b| b.name.clone()).collect();
        let mut base_order: Vec<u32> = (0..base_names.len() as u32).collect();
        base_order.sort_by(|&a, &b| base_names[a as usize].as_bytes().cmp(base_names[b as usize].as_bytes()));
        Some(Program {
            roles,
            base_names,
            base_order,
            init: net.bases.iter().map(|b| b.init).collect(),
            move_names: net.moves.iter().map(|m| m.name.clone()).collect(),
            move_role: net.moves.iter().map(|m| m.role as u32).collect(),
            role_moves,
            legal,
            next_copies: copies(&next, net.bases.len()),
            next,
            goals: out.goals.iter().map(|gs| gs.iter().map(|&(v, l)| (v, relit(l))).collect()).collect(),
            terminal: relit(out.terminal),
            slots,
            first_gate,
            fanin_start,
            fanin,
            out_slot: (first_gate..slots).map(|s| s as u32).collect(),
            block_init,
            blocks,
            fanout_start,
            fanout,
            block_fanout_start,
            block_fanout,
            outputs_start,
            outputs,
            support: support.len(),
            core: [support, rest].concat(),
            goal_phase,
            move_phase,
            outputs_read_inputs,
            exclusive: false,
            stats,
            native: Err(Fallback::Disabled),
            turns: None,
            wide: OnceLock::new(),
        })
    }

    /// Sizes, for reports (the native code's from the code itself).
    pub fn stats(&self) -> ProgramStats {
        let mut stats = match self.native() {
            Some(code) => ProgramStats { native_functions: code.functions, native_micros: code.micros, ..self.stats },
            None => self.stats,
        };
        if let Some(turns) = &self.turns {
            stats.turns = turns.programs().count();
            stats.turn_core_gates = turns.programs().map(|p| p.stats.core_gates).max().unwrap_or(0);
            for p in turns.programs() {
                let s = p.stats();
                stats.native_functions += s.native_functions;
                stats.native_micros += s.native_micros;
            }
        }
        stats
    }

    /// Slots a marking needs to run this program and each of its turn programs.
    pub(crate) fn marking_slots(&self) -> usize {
        self.turns.iter().flat_map(|t| t.programs()).map(|p| p.slots).fold(self.slots, usize::max)
    }

    /// The program wide passes evaluate: the packed one (made on the first call: 0.2–0.3 s
    /// on chess, so never on the start clock of a match that plays no wide playouts), or this one
    /// where it cannot be packed.
    pub(crate) fn wide(&self) -> &Program {
        self.wide.get_or_init(|| self.packed().map(Arc::new)).as_deref().unwrap_or(self)
    }

    /// The program to evaluate for the `lanes` of `bases` (one entry per base proposition):
    /// the program of their turn where they all stand at one turn of the game's cycle, else the
    /// whole program.
    #[inline]
    pub(crate) fn for_lanes<const W: usize>(&self, bases: &[[u64; W]], lanes: [u64; W]) -> &Program {
        self.turns.as_ref().and_then(|t| t.program(bases, lanes)).unwrap_or(self)
    }

    /// Role names in order.
    pub fn roles(&self) -> &[String] {
        &self.roles
    }

    /// The goal values the rules give `role` in some state, ascending (empty for no such role).
    pub fn goal_values(&self, role: usize) -> Vec<u32> {
        let mut values: Vec<u32> = self.goals.get(role).map_or(Vec::new(), |g| g.iter().map(|&(v, _)| v).collect());
        values.dedup();
        values
    }

    /// Number of base propositions (bits in a state).
    pub fn base_count(&self) -> usize {
        self.base_names.len()
    }

    /// Number of input propositions (moves over all roles).
    pub fn move_count(&self) -> usize {
        self.move_names.len()
    }

    /// The most moves one role has whose legality is not constantly false: at most that many
    /// legal moves in any state.
    pub fn most_moves(&self) -> usize {
        let mut per_role = vec![0; self.roles.len()];
        for (&r, _) in self.move_role.iter().zip(&self.legal).filter(|&(_, &l)| l != FALSE) {
            per_role[r as usize] += 1;
        }
        per_role.into_iter().max().unwrap_or(0)
    }

    /// The slot of base proposition `i`.
    pub(crate) fn base_slot(i: usize) -> usize {
        1 + i
    }

    /// The slot of input proposition `j`.
    pub(crate) fn input_slot(&self, j: usize) -> usize {
        1 + self.base_names.len() + j
    }

    /// The fan-in literals of gate `g`.
    #[inline]
    pub(crate) fn gate_inputs(&self, g: usize) -> &[Lit] {
        &self.fanin[self.fanin_start[g] as usize..self.fanin_start[g + 1] as usize]
    }

    /// The readers of slot `s` outside recursive blocks, each `gate << 1 | negated`.
    #[inline]
    pub(crate) fn readers(&self, s: usize) -> &[u32] {
        &self.fanout[self.fanout_start[s] as usize..self.fanout_start[s + 1] as usize]
    }

    /// The `next` and `legal` outputs that are slot `s`, each `index << 2 | legal << 1 |
    /// negated`.
    #[inline]
    pub(crate) fn outputs_of(&self, s: usize) -> &[u32] {
        &self.outputs[self.outputs_start[s] as usize..self.outputs_start[s + 1] as usize]
    }

    /// The recursive blocks that read slot `s`, but its own.
    #[inline]
    pub(crate) fn reading_blocks(&self, s: usize) -> &[u32] {
        &self.block_fanout[self.block_fanout_start[s] as usize..self.block_fanout_start[s + 1] as usize]
    }
}

/// Translation state: the gates so far and the index that shares identical ones.
struct Builder {
    gates: Vec<TempGate>,
    /// The gates by their inputs (indexes into `gates`, hashed by [`lits_hash`]).
    shared: HashTable<u32>,
    /// The conjuncts of an OR's disjuncts while [`Builder::or`] counts them.
    conjunct_scratch: Vec<Lit>,
    first_gate: usize,
    /// The input slots.
    inputs: Range<usize>,
    /// The role of each input.
    move_role: Vec<u32>,
    /// Per role, the positive literals of its inputs, ascending.
    role_inputs: Vec<Vec<Lit>>,
    /// Whether inputs are only read with exactly one move per role set.
    exclusive: bool,
}

impl Builder {
    /// An empty builder for a program whose inputs (one per move, each of role `move_role[j]`)
    /// end at slot `first_gate`; with `exclusive`, conjunctions of moves are simplified knowing
    /// that each role plays one.
    fn new(first_gate: usize, move_role: Vec<u32>, roles: usize, exclusive: bool) -> Builder {
        let inputs = first_gate - move_role.len()..first_gate;
        let mut role_inputs: Vec<Vec<Lit>> = vec![Vec::new(); roles];
        for (j, &role) in move_role.iter().enumerate() {
            role_inputs[role as usize].push(((inputs.start + j) as Lit) << 1);
        }
        Builder {
            gates: Vec::new(),
            shared: HashTable::new(),
            conjunct_scratch: Vec::new(),
            first_gate,
            inputs,
            move_role,
            role_inputs,
            exclusive,
        }
    }

    /// The literal of the OR of `lits`. Disjuncts that are conjunctions sharing a literal are
    /// factored, `(c and r1) or (c and r2) or ...` becoming `c and (r1 or r2 or ...)`: grounded
    /// frame axioms are such ORs over every move (`does m and true cell`), and once the moves are
    /// alone in their OR, [`Self::one_move_per_role`] shrinks it to the few moves that matter.
    fn or(&mut self, mut lits: Vec<Lit>) -> Lit {
        // Repeatedly factor out the literal shared by most conjunctions, while it is shared by
        // at least three (fewer saves nothing).
        for _ in 0..4 {
            if lits.len() < 3 {
                break;
            }
            // The conjuncts sorted, so that each one's count is the length of its run.
            let mut all = std::mem::take(&mut self.conjunct_scratch);
            all.clear();
            for &l in &lits {
                all.extend_from_slice(self.conjuncts(l));
            }
            all.sort_unstable();
            let mut best: Option<(Lit, usize)> = None;
            for run in all.chunk_by(|a, b| a == b) {
                if best.is_none_or(|(_, n)| run.len() > n) {
                    best = Some((run[0], run.len()));
                }
            }
            self.conjunct_scratch = all;
            let Some((common, n)) = best else { break };
            if n < 3 {
                break;
            }
            let (with, without): (Vec<Lit>, Vec<Lit>) =
                lits.iter().partition(|&&l| self.conjuncts(l).contains(&common));
            let rests: Vec<Lit> = with
                .iter()
                .map(|&l| {
                    let rest: Vec<Lit> = self.conjuncts(l).iter().copied().filter(|&c| c != common).collect();
                    self.and(rest)
                })
                .collect();
            let inner = self.and(rests.into_iter().map(|l| l ^ 1).collect()) ^ 1;
            lits = without;
            lits.push(self.and(vec![common, inner]));
        }
        self.and(lits.into_iter().map(|l| l ^ 1).collect()) ^ 1
    }

    /// The literals a positive literal of an acyclic gate is the AND of (none for anything else).
    fn conjuncts(&self, l: Lit) -> &[Lit] {
        let gate = ((l >> 1) as usize).checked_sub(self.first_gate).map(|g| &self.gates[g]);
        match gate {
            Some(g) if l & 1 == 0 && g.block == u32::MAX => &g.lits,
            _ => &[],
        }
    }

    /// A new or shared AND gate over `lits`, simplified; returns its literal.
    fn and(&mut self, mut lits: Vec<Lit>) -> Lit {
        lits.retain(|&l| l != TRUE);
        if lits.contains(&FALSE) {
            return FALSE;
        }
        lits.sort_unstable();
        lits.dedup();
        if lits.windows(2).any(|w| w[0] ^ 1 == w[1]) {
            return FALSE;
        }
        if self.exclusive && !self.one_move_per_role(&mut lits) {
            return FALSE;
        }
        match lits.len() {
            0 => TRUE,
            1 => lits[0],
            _ => {
                let hash = lits_hash(&lits);
                let gates = &self.gates;
                let g = match self.shared.find(hash, |&g| gates[g as usize].lits == lits) {
                    Some(&g) => g as usize,
                    None => {
                        self.gates.push(TempGate { lits, block: u32::MAX, init: false });
                        let gates = &self.gates;
                        self.shared
                            .insert_unique(hash, gates.len() as u32 - 1, |&g| lits_hash(&gates[g as usize].lits));
                        self.gates.len() - 1
                    }
                };
                ((self.first_gate + g) as Lit) << 1
            }
        }
    }

    /// Simplifies a sorted conjunction knowing that each role plays exactly one move: two moves
    /// of one role cannot both hold, one move implies that no other of its role does, and "none
    /// of these moves" is "one of the others", which is much shorter when the list names most of
    /// a role's moves (frame axioms: a cell keeps its piece unless one of the few moves that touch
    /// it is played). Returns false when the conjunction cannot hold.
    fn one_move_per_role(&mut self, lits: &mut Vec<Lit>) -> bool {
        let role_of = |b: &Builder, l: Lit| {
            let s = (l >> 1) as usize;
            b.inputs.contains(&s).then(|| b.move_role[s - b.inputs.start] as usize)
        };
        let mut roles: Vec<usize> = lits.iter().filter_map(|&l| role_of(self, l)).collect();
        roles.sort_unstable();
        roles.dedup();
        for role in roles {
            let (mine, rest): (Vec<Lit>, Vec<Lit>) = lits.iter().partition(|&&l| role_of(self, l) == Some(role));
            let positive: Vec<Lit> = mine.iter().copied().filter(|l| l & 1 == 0).collect();
            match positive.len() {
                0 => {}
                1 => {
                    *lits = rest;
                    lits.push(positive[0]);
                    lits.sort_unstable();
                    continue;
                }
                _ => return false,
            }
            // `mine` is sorted, all negated and distinct here: the others are all the role's
            // moves but `mine.len()`. Only worth it when fewer (asked before they are listed:
            // amazons' roles have 87,000 moves each, and most conjunctions name a few).
            if self.role_inputs[role].len() + 1 >= 2 * mine.len() {
                continue;
            }
            let others: Vec<Lit> =
                self.role_inputs[role].iter().copied().filter(|l| mine.binary_search(&(l ^ 1)).is_err()).collect();
            let one_of_others = match others.as_slice() {
                [] => return false,
                [l] => *l,
                _ => self.and(others.iter().map(|l| l ^ 1).collect()) ^ 1,
            };
            *lits = rest;
            lits.push(one_of_others);
            lits.sort_unstable();
        }
        true
    }
}

/// The hash of a gate's inputs in [`Builder::shared`].
fn lits_hash(lits: &[Lit]) -> u64 {
    std::hash::BuildHasher::hash_one(&rustc_hash::FxBuildHasher, lits)
}

/// The output literals before renumbering.
struct Outputs {
    legal: Vec<Lit>,
    next: Vec<Lit>,
    goals: Vec<Vec<(u32, Lit)>>,
    terminal: Lit,
}

impl Outputs {
    fn new(net: &Net, lit_of: &[Lit]) -> Outputs {
        let l = |n: NodeId| lit_of[n as usize];
        Outputs {
            legal: net.moves.iter().map(|m| l(m.legal)).collect(),
            next: net.bases.iter().map(|b| l(b.next)).collect(),
            goals: net.goals.iter().map(|gs| gs.iter().map(|&(v, n)| (v, l(n))).collect()).collect(),
            terminal: l(net.terminal),
        }
    }
}
/// Each gate's phase, and whether an output other than `next` reads a move (which valid GDL
/// never does): a gate is needed by the state phase if the legal, next or terminal outputs read
/// it, by the goals if they do, and it is a move gate if it reads an input (slots
/// `input_slots`), transitively, blocks as a whole.
fn phases(gates: &[TempGate], out: &Outputs, input_slots: Range<usize>, first_gate: usize) -> (Vec<Phase>, bool) {
    let ng = gates.len();
    let gate_of = |l: Lit| ((l >> 1) as usize).checked_sub(first_gate);
    let mut reads_input = vec![false; ng];
    let mut g = 0;
    while g < ng {
        let end = match gates[g].block {
            u32::MAX => g + 1,
            b => (g..ng).find(|&h| gates[h].block != b).unwrap_or(ng),
        };
        let mut any = false;
        for gate in &gates[g..end] {
            any |= gate.lits.iter().any(|&l| {
                input_slots.contains(&((l >> 1) as usize)) || gate_of(l).is_some_and(|h| h < g && reads_input[h])
            });
        }
        reads_input[g..end].iter_mut().for_each(|r| *r = any);
        g = end;
    }
    // Which gates each kind of output needs.
    let mark = |roots: &mut dyn Iterator<Item = Lit>| {
        let mut seen = vec![false; ng];
        let mut stack: Vec<usize> = roots.filter_map(gate_of).collect();
        while let Some(g) = stack.pop() {
            if !std::mem::replace(&mut seen[g], true) {
                stack.extend(gates[g].lits.iter().filter_map(|&l| gate_of(l)));
            }
        }
        seen
    };
    let for_state = mark(&mut out.legal.iter().chain(&out.next).chain([&out.terminal]).copied());
    let for_goals = mark(&mut out.goals.iter().flatten().map(|&(_, l)| l));
    let queried = mark(&mut out.legal.iter().chain([&out.terminal]).copied());
    let outputs_read_inputs = (0..ng).any(|g| reads_input[g] && (queried[g] || for_goals[g]));
    let phase = (0..ng)
        .map(|g| match (for_state[g], for_goals[g], reads_input[g]) {
            (false, false, _) => Phase::Unneeded,
            (_, _, true) => Phase::Move,
            (true, _, false) => Phase::Core,
            (false, true, false) => Phase::Goal,
        })
        .collect();
    (phase, outputs_read_inputs)
}

/// The core gates (by `phase`) that the next-state outputs read, transitively, with every gate
/// of a recursive block one of them is in: the support of [`Phase::Support`].
fn next_support(gates: &[TempGate], out: &Outputs, phase: &[Phase], first_gate: usize) -> Vec<bool> {
    let ng = gates.len();
    let gate_of = |l: Lit| ((l >> 1) as usize).checked_sub(first_gate);
    let mut members: FxHashMap<u32, Vec<usize>> = FxHashMap::default();
    for (g, gate) in gates.iter().enumerate().filter(|(_, gate)| gate.block != u32::MAX) {
        members.entry(gate.block).or_default().push(g);
    }
    let mut seen = vec![false; ng];
    let mut stack: Vec<usize> = out.next.iter().filter_map(|&l| gate_of(l)).collect();
    while let Some(g) = stack.pop() {
        if !std::mem::replace(&mut seen[g], true) {
            stack.extend(gates[g].lits.iter().filter_map(|&l| gate_of(l)));
            stack.extend(members.get(&gates[g].block).into_iter().flatten().copied());
        }
    }
    (0..ng).map(|g| seen[g] && phase[g] == Phase::Core).collect()
}

/// Compressed rows over `rows` rows from `(row, entry)` pairs (`entries` is called twice: to
/// count, then to fill), each row's entries in the order given: `(start, entries)` with row r's
/// entries at `entries[start[r]..start[r + 1]]`.
fn compressed_rows<I: Iterator<Item = (usize, u32)>>(rows: usize, entries: impl Fn() -> I) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; rows + 1];
    for (r, _) in entries() {
        start[r + 1] += 1;
    }
    for r in 0..rows {
        start[r + 1] += start[r];
    }
    let mut fill = start.clone();
    let mut out = vec![0u32; start[rows] as usize];
    for (r, entry) in entries() {
        out[fill[r] as usize] = entry;
        fill[r] += 1;
    }
    (start, out)
}

/// The fan-out of the `propagated` gates' inputs over `slots` slots, for forward propagation
/// (each slot's readers, as `gate << 1 | negated`), from the gates' fan-in.
fn fanout(fanin_start: &[u32], fanin: &[Lit], slots: usize, propagated: &[usize]) -> (Vec<u32>, Vec<u32>) {
    let inputs = |g: usize| &fanin[fanin_start[g] as usize..fanin_start[g + 1] as usize];
    compressed_rows(slots, || {
        propagated
            .iter()
            .flat_map(move |&g| inputs(g).iter().map(move |&l| ((l >> 1) as usize, ((g as u32) << 1) | (l & 1))))
    })
}

/// The recursive blocks reading each of `slots` slots, for forward propagation (each block once
/// per slot, a gate's own block left out), from the fan-in of the `cyclic` gates (every gate
/// inside a block that is propagated).
fn block_fanout(
    fanin_start: &[u32],
    fanin: &[Lit],
    first_gate: usize,
    gate_block: &[u32],
    cyclic: &[usize],
) -> (Vec<u32>, Vec<u32>) {
    let slots = fanin_start.len() - 1 + first_gate;
    let own = |s: usize| s.checked_sub(first_gate).map_or(u32::MAX, |g| gate_block[g]);
    let mut pairs: Vec<(usize, u32)> = Vec::new();
    for &g in cyclic {
        for &l in &fanin[fanin_start[g] as usize..fanin_start[g + 1] as usize] {
            let s = (l >> 1) as usize;
            if own(s) != gate_block[g] {
                pairs.push((s, gate_block[g]));
            }
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    compressed_rows(slots, || pairs.iter().copied())
}

/// The bases whose `next` literal reads a base's slot (of `bases`), in order.
fn copies(next: &[Lit], bases: usize) -> Vec<u32> {
    let base = |l: Lit| (Program::base_slot(0)..=bases).contains(&((l >> 1) as usize));
    (0..next.len() as u32).filter(|&i| base(next[i as usize])).collect()
}

/// Per slot, the bases whose `next` and the inputs whose `legal` literal is that slot (entries
/// `index << 2 | legal << 1 | negated`).
fn outputs(slots: usize, next: &[Lit], legal: &[Lit]) -> (Vec<u32>, Vec<u32>) {
    compressed_rows(slots, || {
        let next = next.iter().enumerate().map(|(i, &l)| (l, (i as u32) << 2));
        let entries = next.chain(legal.iter().enumerate().map(|(j, &l)| (l, (j as u32) << 2 | 2)));
        entries.map(|(l, entry)| ((l >> 1) as usize, entry | (l & 1)))
    })
}
