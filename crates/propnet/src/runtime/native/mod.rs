//! Native code for the one-word evaluation of the net (see [`eval`](super::eval)), made at run
//! time.
//!
//! Every acyclic run of gates becomes straight-line machine code: each gate input a load from a
//! fixed offset of the marking, each gate a chain of ANDs (`and-not` for negated inputs) and a
//! store. The interpreter's work per input (reading the literal, splitting slot and negation,
//! the negation mask) is gone. Recursive blocks stay interpreted: they iterate to a fixpoint and
//! are rare.
//!
//! Two backends make the same code:
//!
//! | backend | hosts | speed of making it |
//! |---|---|---|
//! | [`x64`]: instructions assembled directly (dynasm) | x86-64 | 0.05 s for chess's 2.2 million gate inputs |
//! | [`cranelift`]: Cranelift's JIT | every host Cranelift supports | about 1 µs a gate input: 3.6–4.7 s on chess with its turn programs |
//!
//! The code is nothing but loads, ANDs and stores, which an assembler emits as fast as it can
//! write bytes; Cranelift builds, checks and allocates registers for an IR first. Hosts other
//! than x86-64 use Cranelift; on x86-64 it is built for the tests only, which hold both backends
//! to the interpreter.
//!
//! Only markings one word wide (64 lanes: node expansion, playouts from several states) run
//! native code. Wider markings are evaluated by a loop over the gate inputs with vector
//! registers ([`simd`](super::simd)): there a gate input's few instructions serve 512 or 1,024
//! lanes, and four words wide native code was no faster than the loop (measured on breakthrough,
//! checkers and reversi).
//!
//! Making the code gives up at its deadline: the program then runs interpreted, as it does on
//! hosts neither backend supports.

#[cfg(any(test, not(target_arch = "x86_64")))]
mod cranelift;
#[cfg(target_arch = "x86_64")]
mod x64;

use super::program::{Phase, Program};
use std::time::Instant;

/// One compiled run of gates: evaluates them in the marking (one word per slot) that starts at
/// its argument.
pub(crate) type Run = unsafe extern "C" fn(*mut u64);

/// What holds a backend's code in memory and frees it when dropped (held, never read).
#[allow(dead_code)]
enum Memory {
    /// Cranelift's module, which frees it when dropped.
    #[cfg(any(test, not(target_arch = "x86_64")))]
    Cranelift(Box<cranelift::CodeMemory>),
    /// The assembler's executable buffer, unmapped when dropped.
    #[cfg(target_arch = "x86_64")]
    Assembled(dynasmrt::ExecutableBuffer),
}

/// Native code for a program's acyclic gate runs, and the memory holding it.
pub(crate) struct Code {
    /// Owns the code's memory, freed when the code is dropped.
    #[allow(dead_code)]
    memory: Memory,
    /// Per phase (indexed by [`Phase::index`]), per segment, the functions that evaluate it in
    /// order; none for recursive blocks.
    phases: [Vec<Vec<Run>>; 3],
    /// Functions generated and the time compiling took, for reports.
    pub functions: usize,
    pub micros: u64,
}

impl std::fmt::Debug for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Code").field("functions", &self.functions).field("micros", &self.micros).finish()
    }
}

impl Code {
    /// The functions evaluating segment `segment` of `phase` (none for a recursive block).
    #[inline]
    pub fn runs(&self, phase: Phase, segment: usize) -> &[Run] {
        &self.phases[phase.index()][segment]
    }
}

/// Why a program runs interpreted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fallback {
    /// Asked for ([`Program::interpreted`], [`Program::for_one_state`]).
    Disabled,
    /// No backend generates code for this host.
    Unsupported(String),
    /// The compilation did not finish before its deadline.
    OutOfTime,
    /// A backend refused the code (not expected: the functions are loads, ANDs and stores).
    Failed(String),
}

impl std::fmt::Display for Fallback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fallback::Disabled => write!(f, "native code turned off"),
            Fallback::Unsupported(why) => write!(f, "no native code for this host ({why})"),
            Fallback::OutOfTime => write!(f, "native code not compiled before the deadline"),
            Fallback::Failed(why) => write!(f, "native code generation failed ({why})"),
        }
    }
}

/// The backends (see the table above).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Backend {
    #[cfg(target_arch = "x86_64")]
    X64,
    #[cfg(any(test, not(target_arch = "x86_64")))]
    Cranelift,
}

impl Backend {
    /// The host's fastest backend.
    pub(crate) const HOST: Backend = {
        #[cfg(target_arch = "x86_64")]
        {
            Backend::X64
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Backend::Cranelift
        }
    };
}

/// Compiles `p`'s acyclic gate runs with the host's fastest backend, giving up at `deadline`.
pub(crate) fn compile(p: &Program, deadline: Option<Instant>) -> Result<Code, Fallback> {
    compile_with(p, deadline, Backend::HOST)
}

/// [`compile`] with the backend `backend`.
pub(crate) fn compile_with(p: &Program, deadline: Option<Instant>, backend: Backend) -> Result<Code, Fallback> {
    match backend {
        #[cfg(target_arch = "x86_64")]
        Backend::X64 => x64::compile(p, deadline),
        #[cfg(any(test, not(target_arch = "x86_64")))]
        Backend::Cranelift => cranelift::compile(p, deadline),
    }
}

/// [`compile`] by Cranelift in functions of at most `chunk` gate inputs (for tests of runs split
/// across functions).
#[cfg(test)]
pub(crate) fn compile_in_chunks(p: &Program, deadline: Option<Instant>, chunk: usize) -> Result<Code, Fallback> {
    cranelift::compile_in_chunks(p, deadline, chunk)
}

/// The byte offset of `slot` in a marking of one word per slot.
fn offset(slot: u32) -> i32 {
    i32::try_from(slot as usize * 8).expect("a marking stays below 2 GB")
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn program(name: &str) -> Program {
        let game = games::find(name).expect("bundled");
        let (desc, _) = gdl::load(game.file, game.text).expect("valid");
        Program::new(&crate::compile(&desc, &Default::default()).expect("builds"))
    }

    #[test]
    fn a_compilation_past_its_deadline_gives_up_and_the_program_says_why() {
        let p = program("breakthrough");
        assert!(p.native().is_some(), "{:?}", p.interpreted_because());
        assert_eq!(compile(&p, Some(Instant::now())).err(), Some(Fallback::OutOfTime));
        let off = p.interpreted();
        assert!(off.native().is_none() && off.stats().native_functions == 0);
        assert_eq!(off.interpreted_because().as_deref(), Some("native code turned off"));
    }
}
