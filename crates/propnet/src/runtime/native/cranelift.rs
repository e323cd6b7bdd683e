//! The portable backend: Cranelift's JIT, for every host it generates code for.
//!
//! Code comes in functions of at most [`CHUNK`] gate inputs (Cranelift compiles about a
//! millisecond's worth at a time, and the deadline is read between functions).

use super::{offset, Code, Fallback, Memory, Run};
use crate::runtime::program::{Lit, Phase, Program};
use cranelift_codegen::ir::{types, AbiParam, InstBuilder, MemFlagsData};
use cranelift_codegen::isa::TargetFrontendConfig;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, FuncId, Module};
use std::sync::Mutex;
use std::time::Instant;

/// Owns a JIT module's code memory (the module is not `Sync`, hence the lock) and frees it when
/// dropped.
pub(super) struct CodeMemory(Mutex<Option<JITModule>>);

impl Drop for CodeMemory {
    fn drop(&mut self) {
        let module = self.0.get_mut().map_or(None, |m| m.take());
        if let Some(module) = module {
            // SAFETY: the function pointers into this memory live in the same `Code` as the
            // module, dropped with it, and a `Code` is dropped only when nothing can call them
            // any more (the program owns it).
            unsafe { module.free_memory() };
        }
    }
}

/// Gate inputs per generated function.
pub(super) const CHUNK: usize = 4096;

/// Cranelift's code for `p`'s acyclic gate runs, giving up at `deadline`.
pub(super) fn compile(p: &Program, deadline: Option<Instant>) -> Result<Code, Fallback> {
    compile_in_chunks(p, deadline, CHUNK)
}

/// [`compile`] with functions of at most `chunk` gate inputs (or one gate with more).
pub(super) fn compile_in_chunks(p: &Program, deadline: Option<Instant>, chunk: usize) -> Result<Code, Fallback> {
    let started = Instant::now();
    let failed = |e: &dyn std::fmt::Debug| Fallback::Failed(format!("{e:?}"));
    let mut flags = settings::builder();
    // Straight-line code gains nothing from Cranelift's optimiser and its fastest register
    // allocator: both compile several times faster, and the code ran as fast or faster.
    let settings = [
        ("opt_level", "none"),
        ("regalloc_algorithm", "single_pass"),
        ("enable_verifier", "false"),
        ("is_pic", "false"),
        ("use_colocated_libcalls", "false"),
    ];
    for (k, v) in settings {
        flags.set(k, v).map_err(|e| failed(&e))?;
    }
    let isa = cranelift_native::builder()
        .map_err(|e| Fallback::Unsupported(e.to_string()))?
        .finish(settings::Flags::new(flags))
        .map_err(|e| Fallback::Unsupported(e.to_string()))?;
    let mut module = JITModule::new(JITBuilder::with_isa(isa, default_libcall_names()));
    let mut ctx = module.make_context();
    let mut scratch = FunctionBuilderContext::new();
    let mut sig = module.make_signature();
    sig.params.push(AbiParam::new(module.target_config().pointer_type()));

    // Per phase and segment, the ids of its functions.
    let mut ids: [Vec<Vec<FuncId>>; 3] = Default::default();
    let mut functions = 0;
    for phase in Phase::EVALUATED {
        for seg in p.segments(phase) {
            let mut funcs = Vec::new();
            for gates in chunks(p, seg.gates.clone(), chunk).filter(|_| !seg.cyclic) {
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    return Err(Fallback::OutOfTime);
                }
                let id = module.declare_anonymous_function(&sig).map_err(|e| failed(&e))?;
                ctx.func.signature = sig.clone();
                emit(p, gates, FunctionBuilder::new(&mut ctx.func, &mut scratch), module.target_config());
                module.define_function(id, &mut ctx).map_err(|e| failed(&e))?;
                module.clear_context(&mut ctx);
                funcs.push(id);
                functions += 1;
            }
            ids[phase.index()].push(funcs);
        }
    }
    module.finalize_definitions().map_err(|e| failed(&e))?;
    let run = |id: &FuncId| {
        // SAFETY: the function was declared with one pointer argument and no result, in the
        // host's C calling convention (`make_signature`).
        unsafe { std::mem::transmute::<*const u8, Run>(module.get_finalized_function(*id)) }
    };
    let phases = ids.map(|segments| segments.iter().map(|funcs| funcs.iter().map(run).collect()).collect());
    let memory = Memory::Cranelift(Box::new(CodeMemory(Mutex::new(Some(module)))));
    Ok(Code { memory, phases, functions, micros: started.elapsed().as_micros() as u64 })
}

/// `gates` split into runs of at most `chunk` inputs (or one gate with more).
fn chunks(
    p: &Program,
    gates: std::ops::Range<usize>,
    chunk: usize,
) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    let mut start = gates.start;
    std::iter::from_fn(move || {
        if start >= gates.end {
            return None;
        }
        let mut end = start + 1;
        while end < gates.end && (p.fanin_start[end + 1] - p.fanin_start[start]) as usize <= chunk {
            end += 1;
        }
        Some(std::mem::replace(&mut start, end)..end)
    })
}

/// Emits the function evaluating `gates` (acyclic, in order) over a marking of one word per slot.
fn emit(p: &Program, gates: std::ops::Range<usize>, mut builder: FunctionBuilder<'_>, config: TargetFrontendConfig) {
    let b = &mut builder;
    let block = b.create_block();
    b.append_block_params_for_function_params(block);
    b.switch_to_block(block);
    b.seal_block(block);
    let marking = b.block_params(block)[0];
    let flags = MemFlagsData::new().with_notrap().with_aligned();
    // Every input is loaded where it is read: keeping values in registers across gates costs
    // more in spills than the loads (measured on breakthrough, checkers and reversi).
    let load = |b: &mut FunctionBuilder<'_>, l: Lit| b.ins().load(types::I64, flags, marking, offset(l >> 1));
    for g in gates {
        let lits: &[Lit] = p.gate_inputs(g);
        // Start from a positive input where there is one, so that the chain of ANDs (`and-not`
        // for the negated inputs) needs no complement.
        let first = lits.iter().position(|l| l & 1 == 0).unwrap_or(0);
        let mut v = match lits.get(first) {
            Some(&l) if l & 1 == 0 => load(b, l),
            Some(&l) => {
                let x = load(b, l);
                b.ins().bnot(x)
            }
            // An empty AND is true (the layout makes none, but that is what it would mean).
            None => b.ins().iconst(types::I64, -1),
        };
        let rest = lits.iter().enumerate().filter(|&(k, _)| k != first).map(|(_, &l)| l);
        for l in rest {
            let x = load(b, l);
            v = if l & 1 == 0 { b.ins().band(v, x) } else { b.ins().band_not(v, x) };
        }
        b.ins().store(flags, v, marking, offset((p.first_gate + g) as u32));
    }
    b.ins().return_(&[]);
    builder.seal_all_blocks();
    builder.finalize(config);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::native::tests::program;

    #[test]
    fn a_compilation_past_its_deadline_gives_up() {
        let p = program("breakthrough");
        assert_eq!(compile(&p, Some(Instant::now())).err(), Some(Fallback::OutOfTime));
    }

    #[test]
    fn runs_are_split_into_chunks_that_cover_every_gate_once() {
        let p = program("breakthrough");
        for phase in Phase::EVALUATED {
            for seg in p.segments(phase).iter().filter(|s| !s.cyclic) {
                let parts: Vec<_> = chunks(&p, seg.gates.clone(), 64).collect();
                assert_eq!(parts.first().map(|r| r.start), Some(seg.gates.start));
                assert_eq!(parts.last().map(|r| r.end), Some(seg.gates.end));
                assert!(parts.windows(2).all(|w| w[0].end == w[1].start));
                for r in &parts {
                    let inputs = (p.fanin_start[r.end] - p.fanin_start[r.start]) as usize;
                    assert!(inputs <= 64 || r.len() == 1, "{r:?}: {inputs} inputs");
                }
            }
        }
        let code = compile_in_chunks(&p, None, 64).expect("compiles");
        assert!(code.functions > p.stats().edges / 64, "{} functions for {} edges", code.functions, p.stats().edges);
    }
}
