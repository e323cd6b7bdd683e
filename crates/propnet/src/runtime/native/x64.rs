//! The x86-64 backend: each segment's gates assembled straight into one function.
//!
//! The marking's address arrives in the first argument register (`rdi`, or `rcx` on Windows);
//! a gate is the AND of its positive inputs in `rax` and the OR of its negated ones in `rdx`,
//! each input one instruction reading the marking in place, then a `not`, an `and` and a store.
//! Both registers are scratch in either calling convention, so the functions save nothing.

use super::{offset, Code, Fallback, Memory, Run};
use crate::runtime::program::{Lit, Phase, Program};
use dynasmrt::x64::{Assembler, Rq};
use dynasmrt::{dynasm, DynasmApi};
use std::time::Instant;

/// The register holding the marking's address: the first integer argument.
#[cfg(not(windows))]
const MARKING: Rq = Rq::RDI;
#[cfg(windows)]
const MARKING: Rq = Rq::RCX;

/// Gates assembled between two readings of the deadline (a fraction of a millisecond).
const BETWEEN_CHECKS: usize = 16_384;

/// The code for `p`'s acyclic gate runs, one function per segment, giving up at `deadline`.
pub(super) fn compile(p: &Program, deadline: Option<Instant>) -> Result<Code, Fallback> {
    let started = Instant::now();
    let mut ops = Assembler::new().map_err(|e| Fallback::Unsupported(e.to_string()))?;
    // Per phase and segment, where its function starts (none for a recursive block).
    let mut starts: [Vec<Option<dynasmrt::AssemblyOffset>>; 3] = Default::default();
    let mut since_check = 0;
    for phase in Phase::EVALUATED {
        for seg in p.segments(phase) {
            if seg.cyclic {
                starts[phase.index()].push(None);
                continue;
            }
            starts[phase.index()].push(Some(ops.offset()));
            for g in seg.gates.clone() {
                if since_check == 0 && deadline.is_some_and(|d| Instant::now() >= d) {
                    return Err(Fallback::OutOfTime);
                }
                since_check = (since_check + 1) % BETWEEN_CHECKS;
                gate(&mut ops, p.gate_inputs(g), offset((p.first_gate + g) as u32));
            }
            dynasm!(ops ; .arch x64 ; ret);
        }
    }
    let buffer =
        ops.finalize().map_err(|_| Fallback::Failed("the assembled code could not be made executable".into()))?;
    let mut functions = 0;
    let phases = starts.map(|segments| {
        segments
            .into_iter()
            .map(|start| {
                start
                    .map(|at| {
                        functions += 1;
                        // SAFETY: the code at `at` is a function of one pointer argument and no
                        // result in the host's C calling convention (the argument register
                        // chosen above), and `buffer`, kept with the pointers in `Code`, holds
                        // it.
                        unsafe { std::mem::transmute::<*const u8, Run>(buffer.ptr(at)) }
                    })
                    .into_iter()
                    .collect()
            })
            .collect()
    });
    Ok(Code { memory: Memory::Assembled(buffer), phases, functions, micros: started.elapsed().as_micros() as u64 })
}

/// Assembles one gate: the AND of `lits` stored at byte offset `out` of the marking, as the
/// AND of its positive inputs (into `rax`) and the complement of the OR of its negated ones
/// (into `rdx`): one instruction per input, each reading the marking in place.
fn gate(ops: &mut Assembler, lits: &[Lit], out: i32) {
    let (mut pos, mut neg) = (lits.iter().filter(|&&l| l & 1 == 0), lits.iter().filter(|&&l| l & 1 == 1));
    let positive = pos.next().map(|&l| dynasm!(ops ; .arch x64 ; mov rax, QWORD [Rq(MARKING) + offset(l >> 1)]));
    for &l in pos {
        dynasm!(ops ; .arch x64 ; and rax, QWORD [Rq(MARKING) + offset(l >> 1)]);
    }
    let negated = neg.next().map(|&l| dynasm!(ops ; .arch x64 ; mov rdx, QWORD [Rq(MARKING) + offset(l >> 1)]));
    for &l in neg {
        dynasm!(ops ; .arch x64 ; or rdx, QWORD [Rq(MARKING) + offset(l >> 1)]);
    }
    match (positive, negated) {
        (Some(()), Some(())) => dynasm!(ops ; .arch x64 ; not rdx ; and rax, rdx ; mov QWORD [Rq(MARKING) + out], rax),
        (Some(()), None) => dynasm!(ops ; .arch x64 ; mov QWORD [Rq(MARKING) + out], rax),
        (None, Some(())) => dynasm!(ops ; .arch x64 ; not rdx ; mov QWORD [Rq(MARKING) + out], rdx),
        // An empty AND is true (the layout makes none, but that is what it would mean).
        (None, None) => dynasm!(ops ; .arch x64 ; mov QWORD [Rq(MARKING) + out], -1),
    }
}
