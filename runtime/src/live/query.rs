//! A subscription's query — the plan it runs, under the program it was planned with — and its planning again when another program is installed (spec/live.md, "Across installs").
//!
//! A plan's bound was proved under the schema of the program it came
//! from; data written under another schema may break it (a `bound`
//! loosened, then the group grown past the old limit). So a subscription
//! never runs a plan of a program other than the one the catalog holds at
//! the state it reads: each install records its changelog position in the
//! catalog (`catalog::installed_at`), every program bound to the store
//! carries it, and a query whose program's position differs from the
//! catalog's is planned again first, by [`replan`], or ends.

use crate::bound::{bind_entry, Access};
use crate::catalog;
use crate::engine::{bind, check_args, Installed};
use crate::error::{Result, RuntimeError};
use crate::store::{ReadTxn, Store};
use rqc_plan::{CompiledProgram, Entry, EntryKind, ParamSpec, Value};
use std::sync::Arc;

/// Compiles a watched expression's text again against a newly installed
/// program (the REPL's `:watch EXPR`): the entry point, or why it does not
/// compile there.
pub type Recompile = dyn Fn(&CompiledProgram) -> std::result::Result<Entry, String> + Send + Sync;

/// A query as one subscription runs it, again and again.
pub(crate) struct Query {
    pub installed: Arc<Installed>,
    pub plan: Plan,
    pub args: Vec<Value>,
}

/// The entry point a subscription runs: one of the installed program's,
/// shared (many subscriptions to one query hold no copy of its plan), or
/// one given beside it (the REPL's expressions).
pub(crate) enum Plan {
    Installed(usize),
    Given(Box<(Entry, Vec<Access>)>),
}

impl Query {
    pub fn entry(&self) -> (&Entry, &[Access]) {
        match &self.plan {
            Plan::Installed(i) => (
                &self.installed.program.entries[*i],
                &self.installed.accesses[*i],
            ),
            Plan::Given(given) => (&given.0, &given.1),
        }
    }
}

/// The program the catalog holds at the state `txn` reads: one of
/// `known` when it was installed at the same position, else read from the
/// catalog and bound to `store`.
pub(crate) fn program_at<'k>(
    store: &dyn Store,
    txn: &dyn ReadTxn,
    known: impl IntoIterator<Item = &'k Arc<Installed>>,
) -> Result<Arc<Installed>> {
    let tree = catalog::catalog(store);
    let at = catalog::installed_at(txn, tree)?;
    if let Some(same) = known.into_iter().find(|k| k.installed_at == at) {
        return Ok(Arc::clone(same));
    }
    let program = catalog::installed_program(txn, tree)?.ok_or_else(|| {
        RuntimeError::damaged(
            "the catalog holds no program, though a live query was planned under one".to_string(),
        )
    })?;
    let generation = catalog::generation(txn, tree)?;
    Ok(Arc::new(bind(store, program, generation, at)?))
}

/// `query` planned again under `program`, installed at the changelog
/// position `program.installed_at` (spec/live.md, "Across installs"):
///
/// - an installed entry point is the new program's entry point of the same
///   module and name ([`same_entry`]), when it is still a query whose parameters have the
///   same names and types in the same order, and the subscription's
///   arguments fit their declared bounds (which may change): E0587 when it
///   is gone (removed, or rejected when the program was installed), E0588
///   when its parameters changed;
/// - an entry point given beside the program is compiled again from its
///   text by `recompile`; without a text, it is bound again as it is when
///   the schema is unchanged (its plan and proof depend on nothing else):
///   E0589 when it does not compile, or has no text and the schema changed.
pub(crate) fn replan(
    query: &Query,
    recompile: Option<&Recompile>,
    program: &Arc<Installed>,
) -> Result<Query> {
    let at = program.installed_at;
    let (old, _) = query.entry();
    let plan = match &query.plan {
        Plan::Installed(_) => {
            let found = same_entry(&program.program, old).ok_or_else(|| gone(old, at))?;
            within(old, &program.program.entries[found], &query.args, at)?;
            Plan::Installed(found)
        }
        Plan::Given(_) => {
            let entry = match recompile {
                Some(recompile) => recompile(&program.program)
                    .map_err(|reason| not_compiled(&reason, at))?,
                None if program.program.schema == query.installed.program.schema => old.clone(),
                None => {
                    return Err(not_compiled(
                        "it was compiled against the schema the install changed, and has no text to compile again",
                        at,
                    ))
                }
            };
            within(old, &entry, &query.args, at)?;
            let accesses = bind_entry(&program.bound, &entry)?;
            Plan::Given(Box::new((entry, accesses)))
        }
    };
    Ok(Query {
        installed: Arc::clone(program),
        plan,
        args: query.args.clone(),
    })
}

/// The entry point of `program` that `old` is: the one of the same
/// module and name; or, when no entry point of `program` is in `old`'s
/// module any more (a module renamed: a file without a `module` line is
/// named after the file), the only one of that name.
fn same_entry(program: &CompiledProgram, old: &Entry) -> Option<usize> {
    let entries = &program.entries;
    if let Some(same) = entries
        .iter()
        .position(|e| e.module == old.module && e.name == old.name)
    {
        return Some(same);
    }
    if entries.iter().any(|e| e.module == old.module) {
        return None;
    }
    let mut named = entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.name == old.name);
    match (named.next(), named.next()) {
        (Some((only, _)), None) => Some(only),
        _ => None,
    }
}

/// E0588 unless `new` is a query with `old`'s parameters (names and types,
/// in order) that takes `args` within its declared bounds.
fn within(old: &Entry, new: &Entry, args: &[Value], at: u64) -> Result<()> {
    let shape =
        |params: &[ParamSpec]| -> Vec<String> { params.iter().map(ToString::to_string).collect() };
    let same = |a: &ParamSpec, b: &ParamSpec| a.name == b.name && a.ty == b.ty;
    let reason = if new.kind != EntryKind::Query {
        Some("it is a mutation now".to_string())
    } else if old.params.len() != new.params.len()
        || !old.params.iter().zip(&new.params).all(|(a, b)| same(a, b))
    {
        Some(format!(
            "its parameters were ({}) and are ({})",
            shape(&old.params).join(", "),
            shape(&new.params).join(", ")
        ))
    } else {
        check_args(new, args)
            .err()
            .map(|refused| format!("the watched arguments no longer fit: {}", refused.message))
    };
    match reason {
        None => Ok(()),
        Some(reason) => Err(RuntimeError::new(
            "E0588",
            format!(
                "the watched query `{}` changed under the subscription at position {at}: {reason}",
                old.name
            ),
            "subscribe again, with arguments its new parameters take",
        )),
    }
}

/// E0587: the watched entry point is not in the program installed at `at`.
fn gone(old: &Entry, at: u64) -> RuntimeError {
    RuntimeError::new(
        "E0587",
        format!(
            "the watched query `{}` is not in the program installed at position {at} (removed, or rejected when it was installed)",
            old.name
        ),
        "install a program that declares it again (`rqc check` says why one was rejected), then subscribe again",
    )
}

/// E0589: a watched expression that does not run under the program
/// installed at `at`.
fn not_compiled(reason: &str, at: u64) -> RuntimeError {
    RuntimeError::new(
        "E0589",
        format!("the watched expression cannot run under the program installed at position {at}: {reason}"),
        "watch it again (`:watch EXPR`), changed to fit the new program",
    )
}
