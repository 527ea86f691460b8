//! The built-in combinators and their cost rules (spec/cost.md, "Combinators").
//!
//! On a bounded list every combinator is allowed and its cost multiplies
//! through the list's size. On a stream only the limiting consumers
//! (`take` with a bounded count, `first`, `exists`) and `map` are allowed;
//! everything else may read unboundedly many rows and is rejected. A
//! consumer pays the stream's opening cost and its per-element cost for
//! each element it may read.

use super::expr::{Checked, Checker};
use super::tir::TExpr;
use super::types::{StreamSource, StreamTy, Ty};
use crate::cost::Interval;
use crate::cost::Poly;
use crate::span::Span;
use crate::syntax::ast::{BinaryOp, Expr, ExprKind, Ident, UnaryOp};
use crate::syntax::printer::print_expr;
use rqc_plan::{Builtin, Shape};

/// What the first argument of a combinator is.
pub(super) enum Input {
    List(Ty, Poly),
    Stream(Box<StreamTy>),
    Option(Ty),
    Error,
}

impl Input {
    /// The shape the runtime is told (an option of a list is a list at run
    /// time, so it cannot tell by itself).
    pub(super) fn kind(&self) -> Shape {
        match self {
            Input::Stream(_) => Shape::Stream,
            Input::Option(_) => Shape::Option,
            Input::List(..) | Input::Error => Shape::List,
        }
    }
}

impl Checker<'_> {
    /// `now()`: the transaction's time in microseconds since the Unix
    /// epoch, in a mutation only (E0441): a query's result, live ones
    /// included, must not change with the clock.
    fn check_now(&mut self, span: Span, args: &[&Expr]) -> Checked {
        if !args.is_empty() {
            self.error(
                "E0414",
                format!("`now` takes no arguments, {} given", args.len()),
                span,
                "wrong number of arguments",
            )
            .help
            .push("write `now()`".into());
            return Checked::error();
        }
        if self.kind != crate::syntax::ast::DefKind::Mutation {
            let kind = self.kind.keyword();
            self.error(
                "E0441",
                format!("a {kind} cannot call `now()`: only a mutation reads the clock"),
                span,
                "the clock read here",
            )
            .help
            .push("a query's answer (a live one's too) must not change with the clock: take the time as a parameter (`t: Int`) and pass it, or call `now()` in the mutation that writes it".into());
            return Checked::error();
        }
        Checked::new(
            Ty::Int(Interval::unbounded("now()")),
            crate::cost::Cost::zero(),
            TExpr::Now,
        )
    }

    pub fn check_builtin(&mut self, span: Span, name: &Ident, args: &[&Expr]) -> Option<Checked> {
        let op = name.name.as_str();
        if let Some(function) = UnaryOp::function(op) {
            return Some(match args {
                [arg] => self.check_unary(function, arg),
                _ => {
                    self.error(
                        "E0414",
                        format!("`{op}` takes 1 argument, {} given", args.len()),
                        span,
                        "wrong number of arguments",
                    )
                    .help
                    .push(format!("write `{op}(x)`, or `x |> {op}()`"));
                    Checked::error()
                }
            });
        }
        if op == "now" {
            return Some(self.check_now(span, args));
        }
        if op == "starts_with" {
            return Some(match args {
                [s, prefix] => self.check_binary(BinaryOp::StartsWith, s, prefix),
                _ => {
                    self.error(
                        "E0414",
                        format!("`starts_with` takes 2 arguments, {} given", args.len()),
                        span,
                        "wrong number of arguments",
                    )
                    .help
                    .push("write `starts_with(s, prefix)`, or `s |> starts_with(prefix)`".into());
                    Checked::error()
                }
            });
        }
        let builtin = Builtin::named(op)?;
        let (min_args, max_args) = builtin.arity();
        if args.len() < min_args || args.len() > max_args {
            let wanted = if min_args == max_args {
                format!("{min_args}")
            } else {
                format!("{min_args} or {max_args}")
            };
            self.error(
                "E0414",
                format!("`{op}` takes {wanted} arguments, {} given", args.len()),
                span,
                "wrong number of arguments",
            )
            .help
            .push(format!(
                "the input counts as the first: `xs |> {op}({})`",
                match builtin {
                    Builtin::Take | Builtin::Skip => "n",
                    Builtin::Map
                    | Builtin::Filter
                    | Builtin::FlatMap
                    | Builtin::Any
                    | Builtin::All
                    | Builtin::GroupBy => "x => …",
                    Builtin::SortBy => "x => x.key, desc",
                    Builtin::UnwrapOr => "default",
                    _ => "",
                }
            ));
            return Some(Checked::error());
        }
        let counted = match &args[0].kind {
            ExprKind::Pipe(_, stage) if builtin == Builtin::Count => match &stage.kind {
                ExprKind::Call(callee, _) if matches!(&callee.kind, ExprKind::Name(n) if n.name == "filter") => {
                    Some(stage.span)
                }
                _ => None,
            },
            _ => None,
        };
        let outer = std::mem::replace(&mut self.counted_filter, counted);
        self.island_stream = None;
        let mut input = self.check(args[0]);
        self.counted_filter = outer;
        // An island access right before a limit: read as a stream when the
        // limit is below its bound (`take`), or is one row.
        let island = self
            .island_stream
            .take()
            .filter(|island| island.span == args[0].span);
        if let (Some(island), Builtin::First | Builtin::Exists) = (&island, builtin) {
            let more_than_one = match &input.ty {
                Ty::List(_, size, _) => size.max_value().is_none_or(|n| n > 1),
                _ => false,
            };
            if more_than_one {
                if let Some(stream) = island.checked(input.tir.clone()) {
                    input = stream;
                }
            }
        }
        // A combinator over a list goes through its elements in memory:
        // one step each (a stream's elements are rows, counted as read).
        // An element taken out is copied where it is not shared (its
        // strings outside lists: `Ty::copy_steps`).
        if let Ty::List(elem, size, _) = &input.ty {
            let each = Poly::constant(1).plus(&elem.copy_steps());
            input.cost = input
                .cost
                .plus(&crate::cost::Cost::steps(size.times(&each)));
        }
        // The least or greatest of a list of `Int`s lies where its type
        // says (`extremes.rs`: `[n, 10] |> min()` is at most 10).
        let extremes = input.ty.extremes();
        let extreme = match (builtin, args.len(), &extremes) {
            (Builtin::Min, 1, Some(extremes)) => Some(extremes.least.clone()),
            (Builtin::Max, 1, Some(extremes)) => Some(extremes.greatest.clone()),
            _ => None,
        };
        // Of a list known to hold an element: never `none`.
        if matches!(builtin, Builtin::Min | Builtin::Max) {
            let present = extreme.is_some() && extremes.is_some_and(|e| e.nonempty);
            self.present_extreme = present.then_some(span);
        }
        let shape = match &input.ty {
            Ty::List(elem, size, _) => Input::List((**elem).clone(), size.clone()),
            Ty::Stream(stream) => Input::Stream(stream.clone()),
            Ty::Option(inner) => Input::Option((**inner).clone()),
            Ty::Error => Input::Error,
            other if builtin == Builtin::UnwrapOr => {
                let other = other.to_string();
                self.error("E0401", format!("`unwrap_or` takes an optional value, and this is `{other}`, which is always present"), args[0].span, format!("this is `{other}`"))
                    .help
                    .push("use the value as it is; to make it optional, declare it so: `let x: Int? = …`, or a function's `-> Int?`".into());
                return Some(Checked::error());
            }
            other => {
                let two_numbers = matches!(builtin, Builtin::Min | Builtin::Max)
                    && args.len() == 2
                    && matches!(other, Ty::Int(_) | Ty::Float);
                let other = other.to_string();
                let help = if two_numbers {
                    // `min(n, 10)`: the lesser of two numbers, as an `if`
                    // (whose branches are narrowed: at most 10).
                    let (a, b) = (print_expr(args[0]), print_expr(args[1]));
                    let keeps = if builtin == Builtin::Min { "<=" } else { ">=" };
                    format!("`{op}` takes one list; for the {} of two numbers write `if {a} {keeps} {b} {{ {a} }} else {{ {b} }}`", if builtin == Builtin::Min { "lesser" } else { "greater" })
                } else {
                    "apply it to a list, such as `Follow[u]`, or a stream, such as `Post.by_author[a]`".into()
                };
                self.error(
                    "E0401",
                    format!("`{op}` works on lists and streams, and this is `{other}`"),
                    args[0].span,
                    format!("this is `{other}`"),
                )
                .help
                .push(help);
                return Some(Checked::error());
            }
        };
        let rest = &args[1..];
        Some(match builtin {
            Builtin::Take => self.take(input, shape, rest[0], island),
            Builtin::Skip => self.skip(input, shape, rest[0]),
            Builtin::First | Builtin::Exists => self.first_or_exists(builtin, input, shape),
            Builtin::Map => {
                let island = island.map(|island| (island, args[0].span.to(span)));
                self.map(input, shape, rest[0], island)
            }
            Builtin::UnwrapOr => {
                // The call (or a pipe's stage) the input is, checked last.
                let called = match &args[0].kind {
                    ExprKind::Pipe(_, stage) => stage.span,
                    _ => args[0].span,
                };
                let present = self.present_extreme.take() == Some(called);
                self.unwrap_or(input, shape, rest[0], present)
            }
            Builtin::Reverse => {
                let reversed = self.reverse(span, input, shape);
                // An island read backwards is still one a limit may stream.
                self.island_stream = island.map(|island| island.reversed(args[0].span.to(span)));
                reversed
            }
            _ => match shape {
                Input::Stream(stream) if builtin == Builtin::SortBy => {
                    self.sort_stream(span, args, stream, input)
                }
                Input::Stream(stream) => {
                    self.reject_stream_consumer(builtin, span, args, &stream, input.cost)
                }
                Input::Error => {
                    for arg in rest {
                        self.check(arg);
                    }
                    Checked::error()
                }
                Input::Option(elem) => {
                    // Every list rule applies to an option as to a list of ≤ 1.
                    self.list_op(
                        builtin,
                        span,
                        input,
                        Shape::Option,
                        elem,
                        Poly::constant(1),
                        args[0],
                        rest,
                    )
                }
                Input::List(elem, size) => {
                    let checked =
                        self.list_op(builtin, span, input, Shape::List, elem, size, args[0], rest);
                    match extreme {
                        Some(extreme) if matches!(checked.ty, Ty::Option(_)) => {
                            Checked::new(Ty::option(Ty::Int(extreme)), checked.cost, checked.tir)
                        }
                        _ => checked,
                    }
                }
            },
        })
    }

    fn first_or_exists(&mut self, builtin: Builtin, input: Checked, shape: Input) -> Checked {
        let kind = shape.kind();
        let (elem, cost) = match shape {
            Input::List(elem, _) | Input::Option(elem) => (elem, input.cost),
            // Opens the range and stops after one element.
            Input::Stream(stream) => (
                stream.elem,
                input.cost.plus(&stream.open).plus(&stream.per_element),
            ),
            Input::Error => return Checked::error(),
        };
        let ty = if builtin == Builtin::First {
            Ty::option(elem)
        } else {
            Ty::Bool
        };
        Checked::new(ty, cost, TExpr::Builtin(builtin, kind, vec![input.tir]))
    }

    /// `map(f)`; over an island access (`island`, with the span of the
    /// mapped expression), by a function that reads nothing, the result
    /// is still one a limit may stream (`IslandStream::mapped`).
    fn map(
        &mut self,
        input: Checked,
        shape: Input,
        f: &Expr,
        island: Option<(super::island_stream::IslandStream, Span)>,
    ) -> Checked {
        let elem = match &shape {
            Input::List(elem, _) | Input::Option(elem) => elem.clone(),
            Input::Stream(stream) => stream.elem.clone(),
            Input::Error => Ty::Error,
        };
        let (func, tir, once) = self.function_argument(f, &[elem], "`map`");
        let input = Checked {
            cost: input.cost.plus(&once),
            ..input
        };
        // A function that cannot write is applied to the whole list one
        // batch per level of reads: one application's round trips.
        let batched = super::batch::batched(self.kind, &tir);
        // Streamed, the function is applied only to the elements a limit
        // takes: so only one that reads nothing and cannot write (a
        // mutation's map applies a write to every element).
        let reads = &func.latent;
        if batched && reads.seeks.is_zero() && reads.rows.is_zero() && reads.trips.is_zero() {
            if let (Some((island, span)), Input::List(..)) = (island, &shape) {
                self.island_stream = Some(island.mapped(span, func.ret.clone(), reads));
            }
        }
        let tir = TExpr::Builtin(Builtin::Map, shape.kind(), vec![input.tir, tir]);
        match shape {
            Input::List(_, size) => Checked::new(
                Ty::list(func.ret, size.clone()),
                input.cost.plus(&if batched {
                    func.latent.batched(&size)
                } else {
                    func.latent.times(&size)
                }),
                tir,
            ),
            Input::Option(_) => {
                Checked::new(Ty::option(func.ret), input.cost.plus(&func.latent), tir)
            }
            // One output per element read, so a later `take` still bounds it.
            // Its elements are no longer the rows a `sort_by` could order.
            Input::Stream(stream) => Checked::new(
                Ty::Stream(Box::new(StreamTy {
                    elem: func.ret,
                    open: stream.open,
                    per_element: stream.per_element.plus(&func.latent),
                    source: StreamSource {
                        order: None,
                        ..stream.source
                    },
                })),
                input.cost,
                tir,
            ),
            Input::Error => Checked::error(),
        }
    }

    /// `input |> unwrap_or(default)`; `present` where `input` is never
    /// `none` (the `min()` or `max()` of a list known to hold an element),
    /// whose value is then the input's alone.
    fn unwrap_or(
        &mut self,
        input: Checked,
        shape: Input,
        default: &Expr,
        present: bool,
    ) -> Checked {
        let Input::Option(elem) = shape else {
            if !matches!(shape, Input::Error) {
                self.error("E0401", "`unwrap_or` takes an optional value", default.span, "here")
                    .help
                    .push("use it after a lookup that may find nothing: `User[k] |> map(u => u.name) |> unwrap_or(\"\")`".into());
            }
            return Checked::error();
        };
        let d = self.check_expected(default, Some(&elem));
        self.expect_type(
            &elem,
            &d.ty,
            default.span,
            "the default has the option's type",
        );
        // The value inside or the default: either one's range (the value's
        // alone where it is always there; the default is still evaluated).
        let ty = match present {
            true => elem,
            false => super::join::join_types(&elem, &d.ty),
        };
        Checked::new(
            ty,
            input.cost.plus(&d.cost),
            TExpr::Builtin(Builtin::UnwrapOr, Shape::Option, vec![input.tir, d.tir]),
        )
    }

    /// `sort_by`'s order, `desc` or `asc` written in the call. The plan
    /// fixes the direction where it sorts: an order computed at run time
    /// (a `let`, an `if`, a helper's result) would have no direction to
    /// fix (E0421).
    pub(super) fn written_order(&mut self, order: &Expr) -> Checked {
        let o = self.check(order);
        let fits = self.expect_type(
            &Ty::Order,
            &o.ty,
            order.span,
            "the order is `desc` or `asc`",
        );
        // `desc` or `asc` written, but a name in scope took it (a
        // parameter or `let` of that name): say so, not only the types.
        if let (false, ExprKind::Name(name)) = (fits, &order.kind) {
            if matches!(name.name.as_str(), "desc" | "asc") {
                if let Some(d) = self.diagnostics.last_mut() {
                    d.notes.push(format!(
                        "`{}` here is the name in scope, which hides the order `{}`",
                        name.name, name.name
                    ));
                    d.help.push(format!(
                        "rename that parameter or `let` (such as `{}_`), so that `{}` is the order again",
                        name.name, name.name
                    ));
                }
            }
        }
        if o.ty == Ty::Order && !matches!(o.tir, TExpr::Order(_)) {
            self.error(
                "E0421",
                "`sort_by`'s order must be written `desc` or `asc` here",
                order.span,
                "an order computed at run time",
            )
            .help
            .push("write `desc` or `asc` in the call; to choose at run time, sort in each branch: `if d { xs |> sort_by(k, desc) } else { xs |> sort_by(k, asc) }`".into());
        }
        o
    }
}
