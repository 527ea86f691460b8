//! The plan of each accepted query or mutation, lowered on demand, and the verdict a refused plan leaves (rejected).

use super::{check_def, program_schema, Db, DefKey, DefResult, Workspace};
use crate::check::Verdict;
use std::sync::Arc;

/// A plan (plain data); equal when the operators and bounds are (floats in
/// constants are never NaN).
#[derive(Clone, Debug, PartialEq)]
pub struct PlanResult(pub Result<Option<Arc<rqc_plan::Entry>>, crate::plan::PlanError>);

impl Eq for PlanResult {}

impl PlanResult {
    /// The plan, when there is one (none for a plan the planner refused).
    pub fn entry(&self) -> Option<Arc<rqc_plan::Entry>> {
        self.0.as_ref().ok()?.clone()
    }
}

/// The plan of an accepted query or mutation: re-lowered only when its
/// checked body, or a body it inlines, changed.
#[salsa::tracked(returns(ref))]
pub fn entry_plan(db: &dyn Db, key: DefKey<'_>) -> PlanResult {
    db.record(&|| format!("entry_plan({}.{})", key.module(db), key.name(db)));
    let Some(result) = check_def(db, key) else {
        return PlanResult(Ok(None));
    };
    let Some(entry) = &result.entry else {
        return PlanResult(Ok(None));
    };
    let functions = |id: crate::check::fn_id::FnId| -> Option<crate::check::tir::FnBody> {
        let (module, name) = id.name().rsplit_once('.')?;
        // Looked up by `&str`: the names are interned already (by
        // `def_keys`), so nothing is copied. (Not through `def_keys`, whose
        // dependence on the program's shape would re-run every plan when a
        // definition is added.)
        let callee = DefKey::new(db, module, name);
        check_def(db, callee).as_ref()?.body.clone()
    };
    let plan = match crate::plan::lower_entry(&functions, entry) {
        Ok(Some(plan)) => plan,
        other => return PlanResult(other.map(|plan| plan.map(Arc::new))),
    };
    if let Some(check) = db.plan_check() {
        let schema = program_schema(db, Workspace::get(db));
        if let Some(refusal) = check.refusal(schema, &plan) {
            return PlanResult(Err(crate::plan::PlanError::Refused(refusal)));
        }
    }
    PlanResult(Ok(Some(Arc::new(plan))))
}

/// The plan of `key` when it is an accepted query or mutation, the only
/// definitions that have one: the tracked query is asked only then, so a
/// function never computes (and keeps) an empty plan.
pub(super) fn plan_of<'db>(db: &'db dyn Db, key: DefKey<'db>) -> Option<&'db PlanResult> {
    check_def(db, key).as_ref()?.entry.as_ref()?;
    Some(entry_plan(db, key))
}

/// A definition's verdict: the checker's, but rejected when the planner
/// refused its plan (`plan`, from [`plan_of`]: E0422, E0598), since an
/// entry without one cannot run.
pub(super) fn planned_verdict(result: &DefResult, plan: Option<&PlanResult>) -> Arc<Verdict> {
    let Some(PlanResult(Err(error))) = plan else {
        return Arc::clone(&result.verdict);
    };
    Arc::new(Verdict {
        accepted: false,
        cause: Some(format!("{}: {error}", error.code())),
        ..(*result.verdict).clone()
    })
}
