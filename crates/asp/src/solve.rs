//! Grounds the latch program once and answers every latch question with one solve call.
//!
//! The call assumes `p_some` (some open question has a counterexample) and enumerates answer
//! sets. Each is read in full and refutes every question it shows a counterexample for, which
//! closes them for the rest of the call (a clause making their `p_open` false), so the next
//! answer set must refute a question still open. When the enumeration is exhausted, no open
//! question has a counterexample left: every one is a latch, all proved at once (the chapter's
//! `:- not counterexample`, for all remaining questions together). So a game costs one grounding
//! and one answer set per handful of non-latches; a caller that has refuted questions by other
//! means (random play) passes them in as known and saves most of those. A question whose
//! counterexample atom the grounder never produced is a latch without any search.
//!
//! One call rather than one per question because clingo prepares the whole ground program again
//! for every call, which costs more than finding an answer set in all but the largest games. The
//! call runs in the background so that the deadline bounds the wait for every answer set;
//! grounding cannot be interrupted, so it is the one cost the deadline does not bound.

use crate::translate::{translate, Facts};
use crate::{Error, Verdict, Verdicts};
use clingo::{Part, ShowType, Signature, SolveMode, SolveResult, SolverLiteral, Symbol};
use gdl::Description;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Held while clingo grounds and solves.
static CLINGO: Mutex<()> = Mutex::new(());

/// The verdicts and what they cost.
#[derive(Debug, Clone)]
pub struct Report {
    /// The verdicts.
    pub verdicts: Verdicts,
    /// Time spent translating and grounding.
    pub ground: Duration,
    /// Time spent solving.
    pub solve: Duration,
    /// Answer sets read.
    pub models: usize,
}

fn clingo_error(e: clingo::ClingoError) -> Error {
    Error::Clingo(e.to_string())
}

/// Answers every question that `known` leaves [`Verdict::Unknown`]: whether each base of `facts`
/// is a positive and a negative latch under the rules of `desc`. Answers in `known` are taken as
/// given. Past `deadline` (checked after grounding and bounding the wait for every answer set)
/// the questions still open stay unknown.
pub fn prove_latches(
    desc: &Description,
    facts: &Facts,
    known: Verdicts,
    deadline: Option<Instant>,
) -> Result<Report, Error> {
    let n = facts.bases.len();
    if known.positive.len() != n || known.negative.len() != n {
        return Err(Error::Translate { rule: "known verdicts".into(), reason: format!("need {n} in each direction") });
    }
    // One solve at a time in a process. CI once crashed (SIGSEGV) in this crate's tests, which
    // run these calls on parallel threads, and 600 local runs could not reproduce it; real use
    // makes one call per analysis, so serialising costs nothing there.
    let _one_at_a_time = CLINGO.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let start = Instant::now();
    let mut report = Report { verdicts: known, ground: Duration::ZERO, solve: Duration::ZERO, models: 0 };
    let program = translate(desc, facts)?;
    // Every answer set of one solve call is wanted (`--models=0`). A random default sign makes
    // the generated state about half true, so that one answer set shows counterexamples in both
    // directions for many bases at once.
    let args = ["--warn=none", "--models=0", "--sign-def=rnd"].map(String::from).to_vec();
    let mut ctl = clingo::control(args).map_err(clingo_error)?;
    ctl.add("base", &[], &program).map_err(clingo_error)?;
    ctl.ground(&[Part::new("base", vec![]).map_err(clingo_error)?]).map_err(clingo_error)?;
    let cex = [literals(&ctl, "pos_cex", &[], n)?, literals(&ctl, "neg_cex", &[], n)?];
    let open = [literals(&ctl, "p_open", &[0], n)?, literals(&ctl, "p_open", &[1], n)?];
    let some = literals(&ctl, "p_some", &[], 1)?.pop().flatten();
    report.ground = start.elapsed();
    let solving = Instant::now();
    // Questions answered already are closed from the start; the grounder answered those whose
    // counterexample atom it never produced.
    let mut assumptions = Vec::new();
    let mut unknown = 0;
    for dir in 0..2 {
        for i in 0..n {
            let Some(v) = report.verdicts.get_mut(dir == 0, i) else { continue };
            if *v == Verdict::Unknown && cex[dir][i].is_none() {
                *v = Verdict::Latch;
            }
            match (*v, open[dir][i]) {
                (Verdict::Unknown, _) => unknown += 1,
                (_, Some(lit)) => assumptions.push(lit.negate()),
                (_, None) => {}
            }
        }
    }
    match some {
        // Without `p_some` in the ground program no open question has a counterexample.
        None => close_all(&mut report.verdicts, Verdict::Latch),
        _ if unknown == 0 || deadline.is_some_and(|d| Instant::now() >= d) => {}
        Some(some) => {
            assumptions.push(some);
            let handle = ctl.solve(SolveMode::ASYNC | SolveMode::YIELD, &assumptions).map_err(clingo_error)?;
            report.models = enumerate(handle, &open, &mut report.verdicts, deadline)?;
        }
    }
    report.solve = solving.elapsed();
    Ok(report)
}

/// Reads the answer sets of one solve call, closing the questions each refutes, until the search
/// is exhausted (every question still open is then a latch) or the deadline comes; returns how
/// many it read.
fn enumerate(
    mut handle: clingo::SolveHandle,
    open: &[Vec<Option<SolverLiteral>>; 2],
    verdicts: &mut Verdicts,
    deadline: Option<Instant>,
) -> Result<usize, Error> {
    let mut models = 0;
    loop {
        let ready = match deadline {
            Some(d) => match d.checked_duration_since(Instant::now()) {
                Some(r) if !r.is_zero() => handle.wait(r),
                _ => false,
            },
            None => true,
        };
        if !ready {
            handle.cancel().map_err(clingo_error)?;
            break;
        }
        let result = handle.get().map_err(clingo_error)?;
        let Some(model) = handle.model().map_err(clingo_error)? else {
            if result.contains(SolveResult::EXHAUSTED) {
                close_all(verdicts, Verdict::Latch);
            }
            break;
        };
        models += 1;
        let (mut refuted, mut closing) = (0, Vec::new());
        for sym in model.symbols(ShowType::SHOWN).map_err(clingo_error)? {
            let (dir, i) = match (sym.name(), index(sym, 0)) {
                (Ok("pos_cex"), Some(i)) => (0, i),
                (Ok("neg_cex"), Some(i)) => (1, i),
                _ => continue,
            };
            if let Some(v @ Verdict::Unknown) = verdicts.get_mut(dir == 0, i) {
                *v = Verdict::NotLatch;
                refuted += 1;
                closing.extend(open[dir][i].map(SolverLiteral::negate));
            }
        }
        if refuted == 0 {
            // Every answer set under `p_some` refutes an open question; without one, the
            // enumeration could go on for ever.
            handle.close().map_err(clingo_error)?;
            return Err(Error::Clingo("an answer set refuted no open question".into()));
        }
        for lit in closing {
            add_clause(model, &[lit])?;
        }
        handle.resume().map_err(clingo_error)?;
    }
    handle.close().map_err(clingo_error)?;
    Ok(models)
}

/// Adds `clause` to the running solve call, for the rest of its enumeration.
///
/// clingo 0.8's `Model::context` hands `clingo_model_context` a null out-pointer, which crashes,
/// so this goes to the C API directly.
fn add_clause(model: &clingo::Model, clause: &[SolverLiteral]) -> Result<(), Error> {
    let lits: Vec<clingo_sys::clingo_literal_t> = clause.iter().map(|l| l.get_integer()).collect();
    // clingo hands out `&Model` by casting the `clingo_model_t` pointer of the C API, so casting
    // back recovers it; the model stays valid while the handle yields it, i.e. during this call.
    let raw = model as *const clingo::Model as *const clingo_sys::clingo_model_t;
    let mut control: *mut clingo_sys::clingo_solve_control_t = std::ptr::null_mut();
    // SAFETY: `raw` is a live model (above), `control` a valid out-pointer, and `lits` outlives
    // the call, which copies the clause.
    let added = unsafe {
        clingo_sys::clingo_model_context(raw, &mut control)
            && !control.is_null()
            && clingo_sys::clingo_solve_control_add_clause(control, lits.as_ptr(), lits.len())
    };
    if added {
        Ok(())
    } else {
        Err(Error::Clingo("could not add a clause during enumeration".into()))
    }
}

fn close_all(verdicts: &mut Verdicts, to: Verdict) {
    for v in verdicts.positive.iter_mut().chain(verdicts.negative.iter_mut()) {
        if *v == Verdict::Unknown {
            *v = to;
        }
    }
}

/// Argument `k` of `sym` as an index, if it is a non-negative number.
fn index(sym: Symbol, k: usize) -> Option<usize> {
    let args = sym.arguments().ok()?;
    usize::try_from(args.get(k)?.number().ok()?).ok()
}

/// The program literal of `name(prefix…, I)` for every `I` below `n` the grounder kept, or, for
/// `p_some`, of the atom itself as entry 0; `None` where the grounder proved the atom false.
fn literals(ctl: &clingo::Control, name: &str, prefix: &[i32], n: usize) -> Result<Vec<Option<SolverLiteral>>, Error> {
    let mut out = vec![None; n];
    let arity = if name == "p_some" { 0 } else { prefix.len() + 1 };
    let sig = Signature::new(name, arity as u32, true).map_err(clingo_error)?;
    let atoms = ctl.symbolic_atoms().map_err(clingo_error)?;
    for atom in atoms.iter_with_signature(sig).map_err(clingo_error)? {
        let sym = atom.symbol().map_err(clingo_error)?;
        let args = sym.arguments().map_err(clingo_error)?;
        if sym.name().map_err(clingo_error)? != name
            || args.len() != arity
            || prefix.iter().zip(&args).any(|(p, a)| a.number().ok() != Some(*p))
        {
            continue;
        }
        let k = if arity == 0 { Some(0) } else { index(sym, prefix.len()) };
        if let Some(slot) = k.and_then(|k| out.get_mut(k)) {
            *slot = Some(atom.literal().map_err(clingo_error)?);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_term;
    use gdl::Sym;

    fn facts(desc: &Description, bases: &[&str], inputs: &[(&str, &str)]) -> Facts {
        Facts {
            roles: desc.roles(),
            bases: bases.iter().map(|b| parse_term(b).unwrap()).collect(),
            inputs: inputs.iter().map(|(r, m)| (Sym::new(r), parse_term(m).unwrap())).collect(),
            fixed: Vec::new(),
            groups: Vec::new(),
        }
    }

    fn prove(rules: &str, bases: &[&str], inputs: &[(&str, &str)]) -> Verdicts {
        let desc = gdl::parse("t", rules).expect("parses");
        let facts = facts(&desc, bases, inputs);
        prove_latches(&desc, &facts, Verdicts::unknown(bases.len()), None).expect("proves").verdicts
    }

    const SWITCH: &str = "
        (role robot)
        (<= (legal robot on) (not (true lit)))
        (legal robot wait)
        (<= (next lit) (does robot on))
        (<= (next lit) (true lit))
        (<= (next (count ?y)) (true (count ?x)) (succ ?x ?y))
        (<= (next 1-up) (true 1-up) (not (does robot wait)))
        (succ 1 2) (succ 2 3)";

    #[test]
    fn a_switch_that_stays_on() {
        let v = prove(SWITCH, &["lit", "(count 1)", "(count 2)", "1-up"], &[("robot", "on"), ("robot", "wait")]);
        use Verdict::*;
        assert_eq!(v.positive, [Latch, NotLatch, NotLatch, NotLatch]);
        // (count 1) never comes back; (count 2) follows (count 1); 1-up is never switched on.
        assert_eq!(v.negative, [NotLatch, Latch, NotLatch, Latch]);
    }

    #[test]
    fn legality_matters() {
        // Waiting switches 1-up off; once waiting is illegal while 1-up holds, 1-up latches.
        let rules = format!("{SWITCH} (<= (legal robot on) (true 1-up))")
            .replace("(legal robot wait)", "(<= (legal robot wait) (not (true 1-up)))");
        let v = prove(&rules, &["1-up"], &[("robot", "on"), ("robot", "wait")]);
        assert_eq!(v.positive, [Verdict::Latch]);
    }

    #[test]
    fn known_answers_are_kept_and_not_asked() {
        let desc = gdl::parse("t", SWITCH).unwrap();
        let facts = facts(&desc, &["lit", "1-up"], &[("robot", "on"), ("robot", "wait")]);
        let mut known = Verdicts::unknown(2);
        known.positive = vec![Verdict::NotLatch, Verdict::NotLatch];
        known.negative[0] = Verdict::NotLatch;
        let r = prove_latches(&desc, &facts, known, None).unwrap();
        // The wrong answer given for lit stands: the caller vouches for what it passes in.
        assert_eq!(r.verdicts.positive, [Verdict::NotLatch, Verdict::NotLatch]);
        assert_eq!(r.verdicts.negative, [Verdict::NotLatch, Verdict::Latch]);
        assert_eq!(r.models, 0, "one unsatisfiable search proves the last question");
    }

    #[test]
    fn a_passed_deadline_leaves_questions_open_but_grounder_proofs() {
        let desc = gdl::parse("t", SWITCH).unwrap();
        let facts = facts(&desc, &["lit", "(count 1)"], &[("robot", "on")]);
        let r = prove_latches(&desc, &facts, Verdicts::unknown(2), Some(Instant::now())).unwrap();
        // Nothing can make (count 1) true: the grounder drops its counterexample atom.
        assert_eq!(r.verdicts.positive, [Verdict::Unknown, Verdict::Unknown]);
        assert_eq!(r.verdicts.negative, [Verdict::Unknown, Verdict::Latch]);
        assert_eq!(r.models, 0);
    }

    #[test]
    fn fixed_bases_are_fixed() {
        let rules = "(role r) (legal r go) (<= (next p) (true p) (true q)) (<= (next q) (true q))";
        let desc = gdl::parse("t", rules).unwrap();
        let mut facts = facts(&desc, &["p", "q"], &[("r", "go")]);
        let positive =
            |facts: &Facts| prove_latches(&desc, facts, Verdicts::unknown(2), None).unwrap().verdicts.positive;
        assert_eq!(positive(&facts), [Verdict::NotLatch, Verdict::Latch]);
        facts.fixed.push((1, true));
        assert_eq!(positive(&facts), [Verdict::Latch, Verdict::Latch]);
    }

    #[test]
    fn states_at_time_one_satisfy_the_groups() {
        // d stays while a and b, which take turns, are not both true.
        let rules = "(role r) (legal r go) (<= (next b) (true a)) (<= (next a) (true b))
            (<= both (true a) (true b)) (<= (next d) (true d) (not both))";
        let desc = gdl::parse("t", rules).unwrap();
        let mut facts = facts(&desc, &["a", "b", "d"], &[("r", "go")]);
        let positive =
            |facts: &Facts| prove_latches(&desc, facts, Verdicts::unknown(3), None).unwrap().verdicts.positive[2];
        assert_eq!(positive(&facts), Verdict::NotLatch);
        facts.groups.push((vec![(0, true), (1, true)], true));
        assert_eq!(positive(&facts), Verdict::Latch);
        // At most one is enough: d needs only that a and b are never both true.
        facts.groups[0].1 = false;
        assert_eq!(positive(&facts), Verdict::Latch);
    }

    #[test]
    fn states_at_time_one_satisfy_the_implications() {
        // d stays while a never holds without b.
        let rules = "(role r) (legal r go) (<= (next b) (true a)) (<= (next a) (true b))
            (<= broken (true a) (not (true b))) (<= (next d) (true d) (not broken))";
        let desc = gdl::parse("t", rules).unwrap();
        let mut facts = facts(&desc, &["a", "b", "d"], &[("r", "go")]);
        let positive =
            |facts: &Facts| prove_latches(&desc, facts, Verdicts::unknown(3), None).unwrap().verdicts.positive[2];
        assert_eq!(positive(&facts), Verdict::NotLatch);
        facts.groups.push((vec![(0, true), (1, false)], false));
        assert_eq!(positive(&facts), Verdict::Latch);
        // The other way round says nothing about a without b.
        facts.groups[0].0 = vec![(1, true), (0, false)];
        assert_eq!(positive(&facts), Verdict::NotLatch);
    }

    #[test]
    fn clingo_errors_are_errors_not_panics() {
        // An unsafe rule (which validation rejects) reaches clingo and must come back as an error.
        let desc = gdl::parse("t", "(role r) (legal r go) (<= (next (p ?x)) (not (true (q ?x))))").unwrap();
        let facts = Facts { roles: desc.roles(), ..Facts::default() };
        assert!(matches!(prove_latches(&desc, &facts, Verdicts::unknown(0), None), Err(Error::Clingo(_))));
        let wrong = Verdicts::unknown(3);
        assert!(prove_latches(&desc, &facts, wrong, None).is_err());
    }
}
