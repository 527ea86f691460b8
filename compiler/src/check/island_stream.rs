//! Limited islands: an island access (`Follow[u]`), read backwards or mapped by a function that reads nothing, as the stream it also is, for a limit right after it; and any list given where a stream is taken (spec/cost.md, "Limited islands").

use super::expr::Checked;
use super::tir::TExpr;
use super::types::{StreamSource, StreamTy, Ty};
use crate::cost::Cost;
use crate::span::Span;
use rqc_plan::{Builtin, Shape};

/// An island access (`Follow[u]`) as the stream it also is: read as a
/// list it costs its bound in rows; a `take(k)` below the bound, `first()`
/// or `exists()` right after it reads it as a stream instead, `k` rows or
/// one (spec/cost.md, "Limited islands").
#[derive(Clone, Debug)]
pub struct IslandStream {
    /// The access's span: only a consumer of this very expression reads it.
    pub span: Span,
    /// The cost of the access's values (the seek is the stream's opening).
    pub prefix_cost: Cost,
    pub stream: StreamTy,
}

impl IslandStream {
    /// The access mapped (`Follow[u] |> map(f => f.followee)`, spanning
    /// `span`) by a function that reads nothing: a stream whose elements
    /// are the function's results, each costing its steps more.
    pub fn mapped(mut self, span: Span, elem: Ty, each: &Cost) -> IslandStream {
        self.span = span;
        self.stream.elem = elem;
        self.stream.per_element = self.stream.per_element.plus(each);
        // Its elements are no longer the rows a `sort_by` could order.
        self.stream.source.order = None;
        self
    }

    /// The access read backwards (`Follow[u] |> reverse()`, spanning
    /// `span`): a stream too, from its other end, whose ties come out
    /// backwards (`reverse.rs`).
    pub fn reversed(mut self, span: Span) -> IslandStream {
        self.span = span;
        if let Some(order) = &self.stream.source.order {
            if !order.identifies_row {
                self.stream.source.order = None;
            }
        }
        self
    }

    /// The access as a stream scan, given it as checked (`list`: the scan
    /// under its cost, and the stages `reversed` and `mapped` made over
    /// it): its plan reads what a limit lets it.
    pub fn checked(&self, list: TExpr) -> Option<Checked> {
        let TExpr::Costed(node, _) = list else {
            return None;
        };
        match *node {
            // A `map` by a function that reads nothing: the stream mapped,
            // each element read then applied.
            TExpr::Builtin(Builtin::Map, Shape::List, inner) => {
                let [access, function]: [TExpr; 2] = inner.try_into().ok()?;
                Some(stage_of(self.checked(access)?, |tir| {
                    TExpr::Builtin(Builtin::Map, Shape::Stream, vec![tir, function])
                }))
            }
            // `reverse()`: the stream read from its other end.
            TExpr::Builtin(Builtin::Reverse, Shape::List, inner) => {
                let [access]: [TExpr; 1] = inner.try_into().ok()?;
                Some(stage_of(self.checked(access)?, |tir| {
                    TExpr::Builtin(Builtin::Reverse, Shape::Stream, vec![tir])
                }))
            }
            TExpr::Scan {
                table,
                index,
                prefix,
                range,
                bounded: true,
            } => {
                let tir = TExpr::Scan {
                    table,
                    index,
                    prefix,
                    range,
                    bounded: false,
                };
                // As `check` costs a stream access: its values, and itself
                // a step. Its type is the island's final one (after every
                // stage), which the outermost stage returns.
                let mut cost = self.prefix_cost.clone();
                cost.add_steps(1);
                Some(Checked::new(
                    Ty::Stream(Box::new(self.stream.clone())),
                    cost.clone(),
                    TExpr::Costed(Box::new(tir), std::sync::Arc::new(cost)),
                ))
            }
            _ => None,
        }
    }
}

/// A stage over a limited island's stream (`wrap` of its plan): the
/// stream's type (the island's final one) and cost, a step more, as
/// `check` costs an operator.
fn stage_of(stream: Checked, wrap: impl FnOnce(TExpr) -> TExpr) -> Checked {
    let mut cost = stream.cost;
    cost.add_steps(1);
    Checked::new(
        stream.ty,
        cost.clone(),
        TExpr::Costed(Box::new(wrap(stream.tir)), std::sync::Arc::new(cost)),
    )
}

impl super::expr::Checker<'_> {
    /// `list` (the value at `span`) where a stream is taken: the island
    /// it is, read as its stream, or any other list read as a stream
    /// ([`read_list`]); noted, so that the definition returns no stream
    /// (`definition.rs`).
    pub(super) fn read_as_stream_at(&mut self, list: Checked, span: Span) -> Checked {
        let island = self.island_stream.take().filter(|s| s.span == span);
        self.read_as_stream.get_or_insert(span);
        match island.and_then(|island| island.checked(list.tir.clone())) {
            Some(stream) => stream,
            // Any other list (an island bound by `let`, chosen by an `if`,
            // a list built on the spot) is a stream whose every element is
            // read already: it costs what making the list cost.
            None => read_list(list),
        }
    }
}

impl super::expr::Checker<'_> {
    /// The note and help of the last diagnostic, an E0401 for a list given
    /// where a stream is taken where something may write: why it is not
    /// read as a stream there, and the list parameter (`declare`) to take.
    pub(super) fn explain_no_stream_where_writes(&mut self, declare: &str) {
        // Once: a list refused where applied and again where called.
        let explained = |d: &crate::diagnostics::Diagnostic| {
            d.notes
                .iter()
                .any(|n| n.starts_with("a list or an island given where"))
        };
        if let Some(d) = self
            .diagnostics
            .last_mut()
            .filter(|d| d.code == "E0401" && !explained(d))
        {
            d.notes.push("a list or an island given where a stream is taken is read as a stream only where nothing may write: not in a mutation, nor in a function given a function, a stream or a type parameter (any of which may bring a mutation's writes); there a `map` over a list is counted for every element".into());
            d.help.push(format!(
                "here give it to a function that takes a list ({declare}, whose length then bounds what is written), or read it as a stream in a query, or in a function given no function, stream or type parameter"
            ));
        }
    }
}

/// The description of the stream a list is read as (for messages).
pub const LIST_READ_AS_STREAM: &str = "a list";

/// A list given where a stream is taken (`first_five(fs)` with `let fs =
/// Follow[u]`): a stream over elements already read, so opening it costs
/// nothing more than making the list did (its cost stays the argument's)
/// and reading an element a step. The plan passes the list; a stream's
/// consumers read it as a stream, `map` and `skip` waiting for the limit
/// (`runtime/src/combinators.rs`, `on_listed`; the plan verifier alike).
pub fn read_list(list: Checked) -> Checked {
    match list_as_stream(&list.ty) {
        Some(stream) => Checked::new(stream, list.cost, list.tir),
        None => list,
    }
}

/// The stream type a list of type `list` is read as: its elements, each
/// a step (the executor reads one, `runtime/src/combinators.rs`,
/// `on_listed`), opening it nothing. `None` for any other type.
pub fn list_as_stream(list: &Ty) -> Option<Ty> {
    let Ty::List(elem, _, _) = list else {
        return None;
    };
    let mut each = Cost::zero();
    each.add_steps(1);
    let stream = StreamTy {
        elem: (**elem).clone(),
        open: Cost::zero(),
        per_element: each,
        source: StreamSource::unnamed(LIST_READ_AS_STREAM),
    };
    Some(Ty::Stream(Box::new(stream)))
}

impl super::expr::Checker<'_> {
    /// `arg`, a type given where a function value's parameter `param` is
    /// taken: a list where a stream is taken is read as one (its type
    /// [`list_as_stream`]; the plan passes the list, which the stream's
    /// consumers read one element at a time) where nothing may write, as
    /// a list given to a named function's stream parameter is (`calls.rs`).
    /// Noted, so that the definition returns no stream (`definition.rs`).
    pub(super) fn list_where_stream_taken(&mut self, param: &Ty, arg: &Ty, span: Span) -> Ty {
        if let (Ty::Stream(_), false) = (param, self.may_write) {
            if let Some(stream) = list_as_stream(arg) {
                self.read_as_stream.get_or_insert(span);
                return stream;
            }
        }
        arg.clone()
    }
}
