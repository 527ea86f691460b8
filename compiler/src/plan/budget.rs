//! The limits on a plan: inlining stops, with E0422, once a query's plan would take more than [`PLAN_STEP_LIMIT`] steps to build or nest deeper than [`MAX_PLAN_DEPTH`] levels.
//!
//! The planner inlines every call (`inline.rs`), so a helper that calls
//! another twice doubles the plan at each level: twenty such levels make a
//! million copies. Each expression the planner copies or lowers is one
//! step, so building a plan takes time and memory in proportion to the
//! steps it was allowed, whatever the program's shape. Inlining also
//! stacks bodies: a chain of helpers each nesting 900 levels nests 900
//! more per call, and every pass over a plan (lowering itself, running it,
//! printing it) recurses over its depth, so plans are held to the depth
//! the parser allows a definition (`syntax::depth::MAX_DEPTH`).

use crate::check::fn_id::FnId;
use crate::check::tir::{size_up_to, TExpr};
use std::collections::HashMap;
use std::fmt;

/// The most steps (expressions copied or lowered) one plan may take. A
/// plan has at most this many operators; real queries take a few hundred.
pub const PLAN_STEP_LIMIT: u32 = 100_000;

/// The deepest a plan may nest: as deep as one definition may, so every
/// pass over plans meets no deeper tree than it meets in the source.
pub use rqc_plan::MAX_PLAN_DEPTH;
const _: () = assert!(MAX_PLAN_DEPTH == crate::syntax::depth::MAX_DEPTH);

/// Why an accepted query or mutation has no plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlanError {
    /// A shape the planner does not expect: a bug in rqc (E0598).
    Internal(String),
    /// The plan passed [`PLAN_STEP_LIMIT`] (E0422). `call`: the function
    /// the entry point calls whose inlining passed it (none when its own
    /// body did); `most_copied`: the function whose body had been copied
    /// most often by then, and how often.
    TooLarge {
        call: Option<String>,
        most_copied: Option<(String, u32)>,
    },
    /// The plan nests deeper than [`MAX_PLAN_DEPTH`] (E0422). `call`: the
    /// function being inlined when it did, outermost first.
    TooDeep { call: Option<String> },
    /// The plan check the front end passed in refused the plan
    /// ([`super::PlanCheck`]): the verifier's code, at the entry point.
    Refused(super::Refusal),
}

impl PlanError {
    /// The stable code its diagnostic and its verdict carry.
    pub fn code(&self) -> &str {
        match self {
            PlanError::Internal(_) => "E0598",
            PlanError::TooLarge { .. } | PlanError::TooDeep { .. } => "E0422",
            PlanError::Refused(refusal) => &refusal.code,
        }
    }
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::Internal(what) => f.write_str(what),
            PlanError::TooLarge { call, most_copied } => {
                match call {
                    Some(call) => write!(f, "inlining its call of `{call}`")?,
                    None => f.write_str("its body")?,
                }
                write!(f, " takes more than {PLAN_STEP_LIMIT} steps to plan")?;
                match most_copied {
                    Some((helper, copies)) if *copies > 1 => {
                        write!(f, " (`{helper}`'s body was copied {copies} times by then)")
                    }
                    _ => Ok(()),
                }
            }
            PlanError::TooDeep { call } => {
                match call {
                    Some(call) => write!(f, "inlining its call of `{call}`")?,
                    None => f.write_str("its body")?,
                }
                write!(f, " nests its plan more than {MAX_PLAN_DEPTH} levels deep")
            }
            PlanError::Refused(refusal) => f.write_str(&refusal.message),
        }
    }
}

/// The steps left to one plan, and which bodies it has copied.
pub(super) struct Budget {
    left: u32,
    /// How deep the lowering is in the tree it builds.
    depth: usize,
    /// How many calls are being inlined, one inside another, and the
    /// outermost of them (the call the entry point makes).
    inlining: usize,
    outermost: Option<FnId>,
    copies: HashMap<FnId, u32>,
}

impl Budget {
    pub(super) fn new() -> Budget {
        Budget {
            left: PLAN_STEP_LIMIT,
            depth: 0,
            inlining: 0,
            outermost: None,
            copies: HashMap::new(),
        }
    }

    /// Takes one step, or reports the plan too large.
    pub(super) fn step(&mut self) -> Result<(), PlanError> {
        if self.left == 0 {
            return Err(self.too_large());
        }
        self.left -= 1;
        Ok(())
    }

    /// Takes a step for each node of `value`, which the planner copies
    /// where a name stands for it (a lambda, each time its parameter is
    /// used), or reports the plan too large without copying it.
    pub(super) fn copy(&mut self, value: &TExpr) -> Result<TExpr, PlanError> {
        let size = size_up_to(value, self.left as usize);
        if size > self.left as usize {
            self.left = 0;
            return Err(self.too_large());
        }
        self.left -= size as u32;
        Ok(value.clone())
    }

    /// Takes one step one level deeper in the tree being built;
    /// [`Budget::ascend`] comes back.
    pub(super) fn descend(&mut self) -> Result<(), PlanError> {
        self.depth += 1;
        if self.depth > MAX_PLAN_DEPTH {
            return Err(self.too_deep());
        }
        self.step()
    }

    pub(super) fn ascend(&mut self) {
        self.depth -= 1;
    }

    /// Starts copying `function`'s body; [`Budget::leave`] ends it.
    pub(super) fn enter(&mut self, function: FnId) -> Result<(), PlanError> {
        *self.copies.entry(function).or_insert(0) += 1;
        if self.inlining == 0 {
            self.outermost = Some(function);
        }
        self.inlining += 1;
        self.step()
    }

    pub(super) fn leave(&mut self) {
        self.inlining -= 1;
    }

    pub(super) fn too_deep(&self) -> PlanError {
        PlanError::TooDeep {
            call: self.outermost_now(),
        }
    }

    /// The entry point's call being inlined now, if any.
    fn outermost_now(&self) -> Option<String> {
        (self.inlining > 0)
            .then(|| self.outermost.map(|id| id.to_string()))
            .flatten()
    }

    fn too_large(&self) -> PlanError {
        let most_copied = self
            .copies
            .iter()
            // The most copies; of equals, the first name, so the message
            // does not depend on the map's order.
            .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.name().cmp(a.0.name())))
            .map(|(id, n)| (id.to_string(), *n));
        PlanError::TooLarge {
            call: self.outermost_now(),
            most_copied,
        }
    }
}
