//! The bound pass: each plan run abstractly, every operator's cost recomputed with the cost calculus (`rqc-cost`) and held to the bound it claims, every application's nesting held to a limit so that no run recurses.
//!
//! The abstract run follows the executor (`interp.rs`, `combinators.rs`,
//! `scan.rs`, `constraints.rs`) operator by operator, with the rules of
//! spec/cost.md: a node's cost is what evaluating it may read, from what
//! the plan itself says (its keys, prefixes, ranges and limits, the
//! parameters' declared ends, the schema's bounds), never from the bound
//! it claims. A lambda is analysed where it is applied, with the values it
//! is applied to, as the checker checks a delayed lambda (`apply.rs`).
//! Reads here; writes and access paths in `access.rs`; combinators in
//! `combinators.rs`; what an `if` narrows in `narrowing.rs`; each claim
//! held to the cost recomputed in `claims.rs`.

use super::abstract_value::{Abs, Clash, Closure, Kind, RecordAbs};
use super::columns::Read;
use super::inputs::{contains_stream, param, row};
use super::narrowing::{Comparison, Narrowed};
use super::plan_fault;
use super::scalars::string_steps;
use super::scope::{find, Binding, Scope};
// Applications nest bodies, each as deep as a plan: the stack grows on
// demand.
use crate::bound::{STACK_RED_ZONE, STACK_SEGMENT};
use crate::error::Result;
use rqc_cost::{Cost, Interval, Poly, Relation, CEILING};
use rqc_plan::{BinOp, Bound, Entry, EntryKind, Node, Op, Schema, UnOp, COMMIT_ROUND_TRIPS};
use std::rc::Rc;
use std::sync::Arc;

/// The most operators the abstract run of one entry point may evaluate
/// (each application of a lambda evaluates its body again): a plan has at
/// most 100,000 operators, so this is room for every honest one, and a
/// plan built to take exponential time to analyse is refused instead.
pub const MAX_VERIFY_STEPS: u64 = 2_000_000;

/// What evaluating a node gives: its value, its cost, and whether it may
/// write.
pub(super) struct Eval<'p> {
    pub value: Abs<'p>,
    pub cost: Cost,
    pub writes: bool,
}

impl<'p> Eval<'p> {
    pub fn free(value: Abs<'p>) -> Eval<'p> {
        Eval {
            value,
            cost: Cost::zero(),
            writes: false,
        }
    }
}

pub(super) struct Verifier<'p> {
    pub schema: &'p Schema,
    pub entry: &'p Entry,
    /// The entry point's parameters as the evaluation knows them here
    /// (narrowed in an `if` branch; a lambda sees them as where it was
    /// made).
    pub params: Rc<Vec<Abs<'p>>>,
    /// Each table's row, by position.
    rows: Vec<Abs<'p>>,
    steps: u64,
    /// The most values of one value the plan walks whole (flattens,
    /// compares, groups, returns), held to the value room at the end
    /// ([`Verifier::steps_within`]).
    pub largest_walk: u64,
    /// The lambdas being applied, outermost first.
    pub applying: Vec<&'p Node>,
    /// The last binding identity given.
    bindings: u64,
    /// Comparisons evaluated in the conditions open (`narrowing.rs`).
    pub comparisons: Vec<Comparison<'p>>,
    /// The comparisons the conditions open may read, each with how many
    /// of them may read it.
    pub wanted: std::collections::HashMap<*const Node, u32>,
    /// The conditions of the `if` branches being evaluated, outermost
    /// first, each with whether it held there (`narrowing.rs`).
    pub facts: Vec<(std::sync::Arc<super::narrowing::Condition<'p>>, bool)>,
    /// Which evaluation of a body is in progress, and the bindings with
    /// one value per run (`apply.rs`).
    pub frames: rqc_cost::Frames,
    /// The bindings the parameters of the last lambda applied got: a
    /// `filter`'s predicate narrows the elements by what it proves of its
    /// parameter's binding (as the checker's `last_lambda_params`).
    pub last_lambda_params: Vec<u64>,
    /// The `min()` or `max()` evaluated last, where its list is known to
    /// hold an element (`rqc_cost::Extremes::nonempty`): never `none`, so
    /// an `unwrap_or` of it is its value alone (as the checker's
    /// `present_extreme`).
    pub present_extreme: Option<*const Node>,
}

/// Recomputes every claimed bound of `entry`'s plan (see the module's
/// comment), and holds the entry point's bound, its commit counted for a
/// mutation, within the ceiling. Returns the bound recomputed.
pub(super) fn check_bounds(schema: &Schema, entry: &Entry) -> Result<Bound> {
    let mut verifier = Verifier {
        schema,
        entry,
        params: Rc::new(
            entry
                .params
                .iter()
                .enumerate()
                .map(|(i, _)| param(entry, i))
                .collect(),
        ),
        rows: (0..schema.tables.len()).map(|t| row(schema, t)).collect(),
        steps: 0,
        largest_walk: 0,
        applying: Vec::new(),
        bindings: 0,
        comparisons: Vec::new(),
        wanted: Default::default(),
        facts: Vec::new(),
        frames: Default::default(),
        last_lambda_params: Vec::new(),
        present_extreme: None,
    };
    let root = &entry.root;
    let out = verifier.eval(root, &None)?;
    if !out.value.is_data() {
        let (code, what) = if contains_stream(&out.value) {
            ("E0630", "an unread stream, which nothing limits")
        } else {
            ("E0625", "a function")
        };
        return verifier.fault(code, root, format!("its result holds {what}"));
    }
    // A mutation's commit reads the changelog's head and commits: two
    // round trips more (spec/cost.md §11).
    let commit = match entry.kind {
        EntryKind::Mutation => COMMIT_ROUND_TRIPS,
        EntryKind::Query => 0,
    };
    // The result is encoded whole.
    let result = verifier.walked(&out.value);
    let total = out
        .cost
        .plus(&Cost::constant(0, 0, commit))
        .plus(&Cost::steps(result));
    let Some(claim) = root.bound else {
        return verifier.fault("E0632", root, "the plan's root claims no bound".into());
    };
    verifier.within(root, &claim, &total)?;
    verifier.within(root, &entry.bound, &total)?;
    verifier.steps_within(root, &total)?;
    let figure = |poly: &Poly| poly.max_value().unwrap_or(u64::MAX);
    Ok(Bound {
        seeks: figure(&total.seeks),
        rows: figure(&total.rows),
        round_trips: figure(&total.trips),
    })
}

impl<'p> Verifier<'p> {
    pub fn fault<T>(&self, code: &'static str, node: &Node, what: String) -> Result<T> {
        Err(plan_fault(code, self.entry, Some(node), what))
    }

    /// E0625 for two kinds of value that cannot meet.
    pub fn clash<T>(&self, node: &Node, clash: Clash) -> Result<T> {
        self.fault(
            "E0625",
            node,
            format!(
                "a value is {} in one place and {} in another",
                clash.0, clash.1
            ),
        )
    }

    /// The value as data: E0625 for a stream or a function in it.
    pub fn data(&self, node: &Node, out: &Eval<'p>) -> Result<()> {
        if out.value.is_data() {
            return Ok(());
        }
        self.fault(
            "E0625",
            node,
            format!("it reads {} whole, where only data goes", out.value.kind()),
        )
    }

    /// The row of table `t`.
    pub fn row(&self, t: usize) -> Abs<'p> {
        self.rows[t].clone()
    }

    pub fn eval(&mut self, node: &'p Node, scope: &Scope<'p>) -> Result<Eval<'p>> {
        stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || {
            self.eval_here(node, scope)
        })
    }

    fn eval_here(&mut self, node: &'p Node, scope: &Scope<'p>) -> Result<Eval<'p>> {
        self.steps += 1;
        if self.steps > MAX_VERIFY_STEPS {
            return self.fault(
                super::TOO_MANY_STEPS,
                node,
                format!("verifying it takes more than {MAX_VERIFY_STEPS} steps (lambdas applied to lambdas that apply them, level upon level)"),
            );
        }
        let mut out = self.operator(node, scope)?;
        // Evaluating the node is a step itself (spec/cost.md §2, "Steps").
        out.cost = out.cost.plus(&Cost::steps(Poly::constant(1)));
        for (measure, poly) in out.cost.measures() {
            if poly.max_value().is_none() {
                let mut names = poly.tables();
                names.extend(poly.unbounded_params());
                return self.fault(
                    "E0630",
                    node,
                    format!(
                        "its {measure} grow with {}, which nothing bounds",
                        names.join(", ")
                    ),
                );
            }
        }
        if let Some(claim) = node.bound {
            self.within(node, &claim, &out.cost)?;
        }
        Ok(out)
    }

    /// Evaluates `nodes` in order: their values, and their costs summed.
    pub fn all(
        &mut self,
        nodes: &'p [Node],
        scope: &Scope<'p>,
    ) -> Result<(Vec<Abs<'p>>, Eval<'p>)> {
        let mut values = Vec::with_capacity(nodes.len());
        let mut sum = Eval::free(Abs::Nothing);
        for node in nodes {
            let out = self.eval(node, scope)?;
            sum.cost = sum.cost.plus(&out.cost);
            sum.writes |= out.writes;
            values.push(out.value);
        }
        Ok((values, sum))
    }

    /// As [`Verifier::all`], each value read as data (a key's, a row's).
    pub fn all_data(
        &mut self,
        nodes: &'p [Node],
        scope: &Scope<'p>,
    ) -> Result<(Vec<Abs<'p>>, Eval<'p>)> {
        let mut values = Vec::with_capacity(nodes.len());
        let mut sum = Eval::free(Abs::Nothing);
        for node in nodes {
            let out = self.eval(node, scope)?;
            self.data(node, &out)?;
            sum.cost = sum.cost.plus(&out.cost);
            sum.writes |= out.writes;
            values.push(out.value);
        }
        Ok((values, sum))
    }

    fn operator(&mut self, node: &'p Node, scope: &Scope<'p>) -> Result<Eval<'p>> {
        Ok(match &node.op {
            // A constant and a parameter are copied where they are
            // evaluated: a step per value they may hold.
            Op::Const(value) => match super::scalars::constant(value) {
                Ok(_) if value.longest_string() > rqc_cost::MAX_STRING_BYTES => {
                    return self.fault(
                        "E0635",
                        node,
                        format!(
                            "a string constant of {} bytes, longer than the {} any program makes",
                            value.longest_string(),
                            rqc_cost::MAX_STRING_BYTES
                        ),
                    )
                }
                Ok(value) => {
                    let copied = Cost::steps(value.walk_steps());
                    Eval {
                        cost: copied,
                        ..Eval::free(value)
                    }
                }
                Err(clash) => return self.clash(node, clash),
            },
            Op::Param(i) => {
                let value = self.params[*i].clone();
                Eval {
                    cost: Cost::steps(value.walk_steps()),
                    ..Eval::free(value)
                }
            }
            // The clock: any `Int` (shapes.rs keeps it to mutations).
            Op::Now => Eval::free(super::abstract_value::Abs::int(
                rqc_cost::Interval::unbounded("now()"),
            )),
            // A bound value is shared, but its strings outside lists are
            // copied where it is named.
            Op::Var(name) => match find(scope, name) {
                Some(binding) => Eval {
                    cost: Cost::steps(binding.value.copy_steps()),
                    ..Eval::free(self.defined_now(binding, scope))
                },
                None => {
                    return self.fault("E0624", node, format!("no value is bound to `{name}` here"))
                }
            },
            Op::Get { .. }
            | Op::GetUnique { .. }
            | Op::Aggregate { .. }
            | Op::Scan { .. }
            | Op::Insert { .. }
            | Op::Update { .. }
            | Op::Upsert { .. }
            | Op::Delete { .. } => self.access(node, scope)?,
            Op::Limit { count, max } => {
                let out = self.eval(count, scope)?;
                if *max > CEILING {
                    return self.fault(
                        "E0632",
                        node,
                        format!("its maximum {max} is above the ceiling of {CEILING}"),
                    );
                }
                let int = match (&out.value, out.value.interval()) {
                    (Abs::Scalar(s), Some(int)) if s.kind == Kind::Int => int,
                    (Abs::Nothing, Some(int)) => int,
                    _ => {
                        return self.fault(
                            "E0625",
                            node,
                            format!("its count is {}, not an `Int`", out.value.kind()),
                        )
                    }
                };
                self.limit_holds(node, &int, *max)?;
                // The runtime refuses a count above `max` before the read.
                let most = i64::try_from(*max).unwrap_or(i64::MAX);
                Eval {
                    value: Abs::int(int.assume(Relation::AtMost, &Interval::exact(most))),
                    ..out
                }
            }
            // The body of a lambda nothing applies: reached, the run stops
            // with an internal error.
            Op::Unreachable => {
                return self.fault(
                    "E0621",
                    node,
                    "code the plan marks unreachable is reached".into(),
                )
            }
            Op::Tuple(_) => {
                return self.fault("E0621", node, "a tuple outside a range's end".into())
            }
            Op::Field(base, name) => {
                let mut out = self.eval(base, scope)?;
                // A record's field is found among its fields: a step each.
                if let Abs::Record(record) = out.value.unwrapped() {
                    let width = Poly::constant(record.fields.len() as u64);
                    out.cost = out.cost.plus(&Cost::steps(width));
                }
                let value = self.field(node, &out.value, Read::Field(name))?;
                Eval { value, ..out }
            }
            // A row's column is found by its position: no step.
            Op::Column(base, column) => {
                let out = self.eval(base, scope)?;
                let value = self.field(node, &out.value, Read::Column(column))?;
                Eval { value, ..out }
            }
            Op::Record(fields) => {
                // A step per field made (spec/cost.md §2, "Steps").
                let mut sum = Eval::free(Abs::Nothing);
                sum.cost = Cost::steps(Poly::constant(fields.len() as u64));
                let mut values = Vec::with_capacity(fields.len());
                for (name, value) in fields {
                    let out = self.eval(value, scope)?;
                    sum.cost = sum.cost.plus(&out.cost);
                    sum.writes |= out.writes;
                    values.push((name.clone(), out.value));
                }
                sum.value = Abs::Record(Rc::new(RecordAbs::structural(values)));
                sum
            }
            Op::List(items) => {
                let (values, mut sum) = self.all(items, scope)?;
                // A step per element made.
                sum.cost = sum
                    .cost
                    .plus(&Cost::steps(Poly::constant(items.len() as u64)));
                let literal = Abs::Literal(Rc::new(values));
                // Elements of kinds that cannot meet are refused here.
                if let Err(clash) = literal.as_list() {
                    return self.clash(node, clash);
                }
                sum.value = literal;
                sum
            }
            Op::Unary(op, operand) => {
                let out = self.eval(operand, scope)?;
                self.data(operand, &out)?;
                // `length` reads the string, a case mapping reads and writes.
                let passes = match op {
                    UnOp::Length => 1,
                    UnOp::Lower | UnOp::Upper => 2,
                    _ => 0,
                };
                let read = Cost::steps(Poly::constant(passes * string_steps(&out.value)));
                let value = self.unary(node, *op, &out.value)?;
                Eval {
                    value,
                    cost: out.cost.plus(&read),
                    ..out
                }
            }
            Op::Binary(op, a, b) => {
                let (left, right) = match op {
                    BinOp::And | BinOp::Or => {
                        self.eval_after_condition(*op == BinOp::And, a, b, scope)?
                    }
                    _ => (self.eval(a, scope)?, self.eval(b, scope)?),
                };
                self.data(a, &left)?;
                self.data(b, &right)?;
                self.record_comparison(node, *op, (a, b), (&left.value, &right.value), scope);
                // A comparison walks both values whole: a step per value.
                let walked = match op {
                    BinOp::Eq
                    | BinOp::NotEq
                    | BinOp::Lt
                    | BinOp::LtEq
                    | BinOp::Gt
                    | BinOp::GtEq => Cost::steps(
                        self.walked(&left.value)
                            .plus(&self.walked(&right.value))
                            .plus(&Poly::constant(
                                string_steps(&left.value) + string_steps(&right.value),
                            )),
                    ),
                    // The prefix is compared with the string's start.
                    BinOp::StartsWith => Cost::steps(Poly::constant(string_steps(&right.value))),
                    _ => Cost::zero(),
                };
                let value = self.binary(node, *op, &left.value, &right.value)?;
                let value = self.narrowed_sum(*op, (a, b), scope, value);
                // A join copies both strings: a step per 4 KiB.
                let walked = match op {
                    BinOp::Add => walked.plus(&Cost::steps(Poly::constant(string_steps(&value)))),
                    _ => walked,
                };
                Eval {
                    value,
                    cost: left.cost.plus(&right.cost).plus(&walked),
                    writes: left.writes || right.writes,
                }
            }
            Op::If(c, then, otherwise) => {
                let mark = self.begin_condition(c);
                let condition = self.eval(c, scope);
                let proves = Arc::new(self.condition(c, mark, scope));
                let condition = condition?;
                self.data(c, &condition)?;
                let narrowed = (
                    self.narrowed(&proves, true, scope),
                    self.narrowed(&proves, false, scope),
                );
                // A branch whose condition cannot have its outcome (`9 > 4`
                // failing: a function inlined with a literal) never runs,
                // and is not evaluated (`rqc_cost::infeasible`).
                let a = match rqc_cost::infeasible(&proves, true) {
                    true => Eval::free(Abs::Nothing),
                    false => self.branch(then, narrowed.0)?,
                };
                let b = match rqc_cost::infeasible(&proves, false) {
                    true => Eval::free(Abs::Nothing),
                    false => self.branch(otherwise, narrowed.1)?,
                };
                let value = match a.value.join(&b.value) {
                    Ok(value) => value,
                    Err(clash) => return self.clash(node, clash),
                };
                Eval {
                    value,
                    cost: condition.cost.plus(&a.cost.max(&b.cost)),
                    writes: condition.writes || a.writes || b.writes,
                }
            }
            Op::Let(name, value, body) => {
                let mark = self.begin_condition(value);
                let bound = self.eval(value, scope);
                let says = self.condition(value, mark, scope);
                let bound = bound?;
                let condition = super::narrowing::kept(says, &bound.value);
                let definition = self.definition(value, &bound.value, scope);
                let inner = Some(Rc::new(Binding {
                    name,
                    value: bound.value,
                    id: self.new_binding(),
                    condition,
                    definition,
                    outer: scope.clone(),
                }));
                let out = self.eval(body, &inner)?;
                Eval {
                    value: out.value,
                    cost: bound.cost.plus(&out.cost),
                    writes: bound.writes || out.writes,
                }
            }
            Op::Seq(items) => {
                let (values, mut sum) = self.all(items, scope)?;
                sum.value = values.into_iter().last().unwrap_or(Abs::Null);
                sum
            }
            Op::Lambda(params, body) => Eval::free(Abs::Fns(Rc::new(vec![Rc::new(Closure {
                params,
                body,
                node,
                scope: scope.clone(),
                entry_params: Rc::clone(&self.params),
                facts: self.facts.clone(),
                frame: self.frames.current(),
            })]))),
            Op::Apply(f, args) => {
                let callee = self.eval(f, scope)?;
                let (values, given) = self.all(args, scope)?;
                // The sum each argument is, which its parameter keeps (as
                // the checker's `call_local`).
                let sums = args
                    .iter()
                    .zip(&values)
                    .map(|(arg, value)| self.definition(arg, value, scope))
                    .collect();
                let applied =
                    self.applied_as_condition(node, &callee.value, (values, sums), scope)?;
                Eval {
                    value: applied.value,
                    cost: callee.cost.plus(&given.cost).plus(&applied.cost),
                    writes: callee.writes || given.writes || applied.writes,
                }
            }
            Op::Combinator(..) | Op::TopK { .. } => self.combinator(node, scope)?,
        })
    }

    /// Entry parameter `i` as the evaluation knows it (narrowed in an
    /// `if` branch).
    pub fn param_value(&self, i: usize) -> Option<Abs<'p>> {
        self.params.get(i).cloned()
    }

    /// A new binding's identity.
    pub fn new_binding(&mut self) -> u64 {
        self.bindings += 1;
        self.frames.bound(self.bindings);
        self.bindings
    }

    /// An `if` branch, with what its condition narrows.
    pub(super) fn branch(&mut self, node: &'p Node, narrowed: Narrowed<'p>) -> Result<Eval<'p>> {
        self.facts.push(narrowed.fact);
        let out = if narrowed.params.is_empty() {
            self.eval(node, &narrowed.scope)
        } else {
            let mut params = (*self.params).clone();
            for (i, value) in narrowed.params {
                params[i] = value;
            }
            let outer = std::mem::replace(&mut self.params, Rc::new(params));
            let out = self.eval(node, &narrowed.scope);
            self.params = outer;
            out
        };
        self.facts.pop();
        out
    }
}
