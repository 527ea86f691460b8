//! The plan executor: evaluates a plan's operator tree against a session,
//! counting the seeks, rows and round trips of every operator and holding
//! each to its static bound.
//!
//! Evaluation gives an [`Eval`]: a value, or a [`Halt`] (an error, or the
//! control value a dry read-ahead pass stops with; see `halt`).

use crate::arithmetic::{binary, unary};
use crate::bound::{Access, BoundTable, Tables, STACK_RED_ZONE, STACK_SEGMENT};
use crate::combinators::{combinator, sort_by_key};
use crate::error::{Result, RuntimeError};
use crate::halt::{Eval, Halt};
use crate::read_ahead::Read;
use crate::rows::*;
use crate::session::Session;
pub use crate::values::{Closure, Env, Part, Val};
use rqc_plan::{BinOp, Node, NodeStats, Op, Value};
use std::rc::Rc;

/// The most a run may still read: absolute counter values, the tightest of
/// the bounds of the operators being evaluated. Every read is checked
/// against it, and a range read asks for at most one row past it, so an
/// operator that would exceed its bound stops there (E0599) instead of
/// reading on.
#[derive(Clone, Copy)]
struct Deadline {
    seeks: u64,
    rows: u64,
    trips: u64,
}

pub struct Interp<'p, 's> {
    pub bound: &'p Tables,
    /// What each operator reads or writes, by node id.
    accesses: &'p [Access],
    pub params: &'p [Value],
    /// Borrowed for the evaluation (not moved in and out: a session is a
    /// few hundred bytes, copied at every move).
    pub session: &'p mut Session<'s>,
    /// Per operator, by node id (nodes never evaluated may be missing).
    pub stats: Vec<NodeStats>,
    /// Whether to keep `stats` (for `explain --analyze`; a plain run needs
    /// only the totals).
    pub analyzing: bool,
    deadline: Deadline,
    /// Whether every read of the applications being evaluated was read
    /// ahead by an enclosing batch (see `batch`).
    pub(crate) read_ahead_covered: bool,
    /// The store's operation limit, when its batches may be split.
    split: Option<u64>,
    /// Whether a function body is read ahead, by body (see `batch`).
    read_ahead_bodies: std::collections::HashMap<*const Node, bool>,
    /// The scan a paged run walks, where it resumes and where it ended
    /// (`page`); `None` for a plain run.
    pub(crate) page: Option<crate::scan::PageCursor>,
    /// Long string parameters, shared once first used (`Interp::param`).
    shared_params: Vec<Option<Rc<Value>>>,
}

impl<'p, 's> Interp<'p, 's> {
    pub fn new(
        bound: &'p Tables,
        accesses: &'p [Access],
        params: &'p [Value],
        session: &'p mut Session<'s>,
        split: Option<u64>,
    ) -> Interp<'p, 's> {
        Interp {
            bound,
            accesses,
            params,
            session,
            stats: Vec::new(),
            analyzing: false,
            deadline: Deadline {
                seeks: u64::MAX,
                rows: u64::MAX,
                trips: u64::MAX,
            },
            read_ahead_covered: false,
            split,
            read_ahead_bodies: std::collections::HashMap::new(),
            page: None,
            shared_params: Vec::new(),
        }
    }

    /// Evaluates `node`. A plan nests up to `MAX_PLAN_DEPTH` levels and
    /// evaluation recurses once per level (a debug build takes some 23 KiB
    /// a level), so the stack grows on demand here, on the caller's thread:
    /// a run may not move to another, since its transaction is bound to it.
    pub fn eval(&mut self, node: &'p Node, env: &Env<'p>) -> Eval<Val<'p>> {
        stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || self.eval_here(node, env))
    }

    fn eval_here(&mut self, node: &'p Node, env: &Env<'p>) -> Eval<Val<'p>> {
        crate::interrupt::check()?;
        let before = self.session.meter;
        let (seeks, rows, trips) = (before.seeks, before.rows, before.trips);
        let outer = self.deadline;
        let bound = node
            .bound
            .map(|b| crate::commit_limit::widened(b, self.split));
        if let Some(bound) = bound {
            self.deadline = Deadline {
                seeks: outer.seeks.min(seeks.saturating_add(bound.seeks)),
                rows: outer.rows.min(rows.saturating_add(bound.rows)),
                trips: outer.trips.min(trips.saturating_add(bound.round_trips)),
            };
        }
        let value = self.eval_op(node, env);
        self.deadline = outer;
        let value = value?;
        let counted = self.session.meter.since(&before);
        let (ds, dr, dt) = (counted.seeks, counted.rows, counted.trips);
        if self.analyzing {
            // Grown on demand: counting a plan's nodes first cost more.
            let id = node.id as usize;
            if id >= self.stats.len() {
                self.stats.resize(id + 1, NodeStats::default());
            }
            let stats = &mut self.stats[id];
            stats.evaluations += 1;
            stats.seeks += ds;
            stats.rows += dr;
            stats.round_trips += dt;
        }
        if let Some(bound) = bound {
            if ds > bound.seeks || dr > bound.rows {
                let message = format!(
                    "operator {} read {ds} seeks and {dr} rows, beyond its proved bound of {} and {}",
                    node.id, bound.seeks, bound.rows
                );
                return Err(beyond_bound(message).into());
            }
            if dt > bound.round_trips {
                return Err(beyond_round_trips(format!(
                    "operator {} made {dt} round trips, beyond its proved bound of {}",
                    node.id, bound.round_trips
                ))
                .into());
            }
        }
        Ok(value)
    }

    /// E0599 when the reads so far pass an enclosing operator's bound.
    pub(crate) fn within_deadline(&self) -> Result<()> {
        if self.session.meter.seeks > self.deadline.seeks
            || self.session.meter.rows > self.deadline.rows
        {
            return Err(beyond_bound(format!(
                "the run read {} seeks and {} rows, beyond an operator's proved bound",
                self.session.meter.seeks, self.session.meter.rows
            )));
        }
        if self.session.meter.trips > self.deadline.trips {
            return Err(beyond_round_trips(format!(
                "the run made {} round trips, beyond an operator's proved bound",
                self.session.meter.trips
            )));
        }
        Ok(())
    }

    /// How many rows a range read may ask for: `wanted`, but never more
    /// than one past what the bounds being evaluated still allow.
    pub(crate) fn rows_allowed(&self, wanted: usize) -> usize {
        let left = self.deadline.rows.saturating_sub(self.session.meter.rows);
        wanted.min(usize::try_from(left.saturating_add(1)).unwrap_or(usize::MAX))
    }

    pub fn value(&mut self, node: &'p Node, env: &Env<'p>) -> Eval<Value> {
        Ok(self.eval(node, env)?.data()?)
    }

    pub(crate) fn values(&mut self, nodes: &'p [Node], env: &Env<'p>) -> Eval<Vec<Value>> {
        nodes.iter().map(|n| self.value(n, env)).collect()
    }

    /// The table an operator accesses, and the index it reads (if any).
    pub(crate) fn access(&self, node: &Node) -> Result<(&'p BoundTable, Option<usize>)> {
        let access = self
            .accesses
            .get(node.id as usize)
            .ok_or_else(|| internal("an operator that was not bound"))?;
        let table = self
            .bound
            .tables
            .get(access.table as usize)
            .ok_or_else(|| internal("an operator bound to no table"))?;
        Ok((table, access.index.map(|i| i as usize)))
    }

    fn eval_op(&mut self, node: &'p Node, env: &Env<'p>) -> Eval<Val<'p>> {
        let data = |v: Value| Ok(Val::Data(v));
        match &node.op {
            Op::Const(v) => data(v.clone()),
            Op::Now => data(Value::Int(self.session.now()?)),
            Op::Param(i) => self.param(*i),
            Op::Var(name) => Ok(env
                .get(self.slot(node)?)
                .ok_or_else(|| internal(&format!("unbound name {name}")))?),
            Op::Get { .. } | Op::GetUnique { .. } => {
                let (table, _) = self.access(node)?;
                let key = self.lookup_key(node, env)?;
                let tree = self.lookup_tree(node)?;
                // Only the columns the plan uses, where it uses no other.
                let accesses = self.accesses;
                let wanted = accesses
                    .get(node.id as usize)
                    .and_then(|a| a.columns.as_deref());
                // Decoded where the store keeps it: no copy of the value.
                let mut row = Value::Null;
                if !self.cannot_exist(table, &key) {
                    let read = self.session.get_with_ahead(tree, &key, &mut |found| {
                        if let Some(bytes) = found {
                            row = decode_projected(table, bytes, wanted)?;
                        }
                        Ok(())
                    })?;
                    if read == Read::Wanted {
                        return Err(Halt::Blocked);
                    }
                }
                self.within_deadline()?;
                data(row)
            }
            Op::Aggregate { .. } => {
                let (table, aggregate) = self.access(node)?;
                let schema = aggregate
                    .and_then(|a| table.schema.aggregates.get(a))
                    .ok_or_else(|| internal("an aggregate read bound to no aggregate"))?;
                let key = self.lookup_key(node, env)?;
                // One `get` (answered from a batch read ahead, in a `map`).
                let found = self.point_read(table, self.lookup_tree(node)?, &key)?;
                let value = crate::aggregates::value_of(schema, found)?;
                self.within_deadline()?;
                data(value)
            }
            Op::Scan {
                prefix,
                lower,
                upper,
                stream,
                starts_with,
                ..
            } => {
                let (table, index) = self.access(node)?;
                let mut range = if *starts_with {
                    self.prefix_range(table, index, prefix, lower, env)?
                } else {
                    self.range(table, index, prefix, lower, upper, env)?
                };
                // A paged run reads this scan from where the last page
                // ended (`scan::page_range`), in the direction it is read.
                if self.page.as_ref().is_some_and(|p| p.scan == node.id) {
                    range.paged = true;
                }
                if *stream {
                    // Read by whoever consumes it, as far as it takes.
                    return Ok(Val::Stream(Rc::new(range)));
                }
                // A declared bound limits the range: read it all.
                let rows = self.read(&range, usize::MAX)?;
                Ok(Val::from_items(rows))
            }
            Op::Limit { count, max } => match self.value(count, env)? {
                Value::Int(n) if n > 0 && n as u64 > *max => Err(beyond_bound(format!(
                    "operator {} computed a limit of {n}, above its proved maximum of {max}",
                    node.id
                ))
                .into()),
                Value::Int(n) => data(Value::Int(n)),
                _ => Err(internal("a limit that is not an Int").into()),
            },
            Op::Unreachable => Err(internal("code proved unreachable was reached").into()),
            // Read by the scan whose range end it is (`scan.rs`), never as a value.
            Op::Tuple(_) => Err(internal("a tuple outside a range's end").into()),
            Op::Field(base, name) => self.read_field(base, Part::Named(name), env),
            Op::Column(base, column) => self.read_field(base, Part::At(column.position), env),
            Op::Record(fields) => {
                let mut out = Vec::with_capacity(fields.len());
                for (_, value) in fields {
                    out.push(self.eval(value, env)?);
                }
                let shape = self
                    .accesses
                    .get(node.id as usize)
                    .and_then(|access| access.record.as_deref())
                    .ok_or_else(|| internal("a record literal that was not bound"))?;
                Ok(Val::from_shape(shape, out))
            }
            Op::List(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    out.push(self.eval(item, env)?);
                }
                Ok(Val::from_items(out))
            }
            Op::Unary(op, operand) => data(unary(*op, self.value(operand, env)?)?),
            Op::Binary(op, a, b) => {
                // `&&` and `||` do not evaluate their right side needlessly.
                if matches!(op, BinOp::And | BinOp::Or) {
                    let left = matches!(self.value(a, env)?, Value::Bool(true));
                    if left == (*op == BinOp::Or) {
                        return data(Value::Bool(left));
                    }
                    return data(Value::Bool(matches!(
                        self.value(b, env)?,
                        Value::Bool(true)
                    )));
                }
                let left = self.value(a, env)?;
                let right = self.value(b, env)?;
                data(binary(*op, left, right)?)
            }
            Op::If(c, t, e) => match self.value(c, env)? {
                Value::Bool(true) => self.eval(t, env),
                _ => self.eval(e, env),
            },
            Op::Let(_, value, body) => {
                let value = self.eval(value, env)?;
                let inner = env.bind(value);
                self.eval(body, &inner)
            }
            Op::Seq(items) => {
                let mut last = Val::Data(Value::Null);
                for item in items {
                    last = self.eval(item, env)?;
                }
                Ok(last)
            }
            Op::Lambda(params, body) => Ok(Val::Closure(Rc::new(Closure {
                params,
                body,
                env: env.clone(),
            }))),
            Op::Apply(f, args) => {
                let f = self.eval(f, env)?;
                let mut values = Vec::new();
                for arg in args {
                    values.push(self.eval(arg, env)?);
                }
                self.call(&f, values)
            }
            Op::Combinator(c, shape, args) => combinator(self, *c, *shape, args, env),
            Op::TopK {
                input,
                key,
                descending,
                k,
            } => {
                let items = self.eval(input, env)?.items()?;
                let key = self.eval(key, env)?;
                let k = match self.value(k, env)? {
                    Value::Int(n) => n.max(0) as usize,
                    _ => 0,
                };
                // The keys as `sort_by` computes them: one batch per level.
                let mut keys = crate::batch::apply_all(self, &key, &items, None)?.into_iter();
                let sorted = sort_by_key(items, *descending, |_| {
                    keys.next()
                        .ok_or_else(|| internal("a sort key missing"))?
                        .data()
                })?;
                Ok(Val::from_items(sorted.into_iter().take(k).collect()))
            }
            Op::Insert { row, generated, .. } => self.insert(node, row, *generated, env),
            Op::Update {
                target,
                changes,
                row,
                ..
            } => self.update(node, target, changes, row.is_some(), env),
            Op::Upsert { columns, .. } => self.upsert(node, columns, env),
            Op::Delete { target, .. } => self.delete(node, target, env),
        }
    }

    /// Whether applications of `f` are worth reading ahead: its body may
    /// read, and holds no write of its own (a dry pass would stop there).
    pub(crate) fn reads_ahead(&mut self, f: &Val<'p>) -> bool {
        let Val::Closure(closure) = f else {
            return false;
        };
        *self
            .read_ahead_bodies
            .entry(closure.body as *const Node)
            .or_insert_with(|| {
                rqc_plan::batch::may_read(closure.body) && !rqc_plan::batch::writes(closure.body)
            })
    }

    /// A field of `base`'s value: a variable's read where the variable is
    /// bound, copying only the field.
    fn read_field(&mut self, base: &'p Node, field: Part<'_>, env: &Env<'p>) -> Eval<Val<'p>> {
        Ok(match self.named_field(base)? {
            Some(slot) => env
                .field(slot, field)
                .ok_or_else(|| internal("a field of an unbound name"))??,
            None => self.eval(base, env)?.field_ref(field)?,
        })
    }

    /// The slot of the variable whose field a `Field` over `base` reads,
    /// when it can be read in place: `base` is a variable, evaluating it
    /// counts nothing (no bound to hold, no operator figures kept).
    fn named_field(&self, base: &'p Node) -> Result<Option<u32>> {
        match &base.op {
            Op::Var(_) if base.bound.is_none() && !self.analyzing => Ok(Some(self.slot(base)?)),
            _ => Ok(None),
        }
    }

    /// Parameter `i`: a long string shared from its first use on, as a
    /// name's is (`Env::get`), so that a list made of its uses holds one
    /// copy; any other value copied, as the steps count it.
    fn param(&mut self, i: usize) -> Eval<Val<'p>> {
        let value = self
            .params
            .get(i)
            .ok_or_else(|| internal("missing parameter"))?;
        if !crate::values::shares_string(value) {
            return Ok(Val::Data(value.clone()));
        }
        if self.shared_params.len() <= i {
            self.shared_params.resize(i + 1, None);
        }
        let shared = self.shared_params[i].get_or_insert_with(|| Rc::new(value.clone()));
        Ok(Val::Shared(shared.clone()))
    }

    /// A variable's slot, resolved at install (`bound::bind_slots`).
    fn slot(&self, node: &Node) -> Result<u32> {
        self.accesses
            .get(node.id as usize)
            .map(|access| access.slot)
            .ok_or_else(|| internal("a variable that was not bound"))
    }

    /// `f`'s result for `arg` without a call, when `f` is `x => x.field`
    /// (a record's field or a row's column: a sort, group or extreme's
    /// key) and nothing is counted in it: the field read where `arg` is,
    /// the argument uncloned.
    pub(crate) fn field_of(&self, f: &Val<'p>, arg: &Val<'p>) -> Option<Result<Val<'p>>> {
        let Val::Closure(closure) = f else {
            return None;
        };
        let [_] = closure.params else {
            return None;
        };
        let (base, field) = match &closure.body.op {
            Op::Field(base, name) => (base, Part::Named(name)),
            Op::Column(base, column) => (base, Part::At(column.position)),
            _ => return None,
        };
        // Slot 0 in the body of a lambda of one parameter is that parameter.
        if closure.body.bound.is_some() || self.named_field(base).ok()?? != 0 {
            return None;
        }
        Some(arg.field_ref(field))
    }

    /// Calls a function value.
    pub fn call(&mut self, f: &Val<'p>, args: Vec<Val<'p>>) -> Eval<Val<'p>> {
        let Val::Closure(closure) = f else {
            return Err(internal("a call of something that is not a function").into());
        };
        let mut env = closure.env.clone();
        if args.len() != closure.params.len() {
            return Err(internal("a function called with the wrong number of arguments").into());
        }
        for arg in args {
            env = env.bind(arg);
        }
        self.eval(closure.body, &env)
    }
}

/// E0546: a run made more round trips than its proved bound. Data cannot
/// cause this (every size the bound relies on is enforced on write): it is
/// a bug in rqc.
pub(crate) fn beyond_round_trips(message: String) -> RuntimeError {
    RuntimeError::new(
        "E0546",
        message,
        "this is a bug in rqc; please report it with the program",
    )
}

/// E0599: a run read past a proved bound. Data cannot cause this (every
/// bound it relies on is enforced on write): it is a bug in rqc.
fn beyond_bound(message: String) -> RuntimeError {
    RuntimeError::new(
        "E0599",
        message,
        "this is a bug in rqc; please report it with the program",
    )
}

pub use crate::error::internal;
