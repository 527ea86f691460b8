//! A delayed lambda's typed bodies: those of its applications merged into one (each operator's bound the largest), and put in the lambda's place once the definition is checked (`functions.rs` checks them).

use super::expr::Checker;
use super::functions::LambdaBody;
use super::tir::TExpr;
use std::sync::Arc;

impl Checker<'_> {
    /// Replaces every delayed lambda of `tir` by its merged body (a lambda
    /// never applied keeps a body that says so).
    pub fn resolve_lambdas(&self, tir: TExpr) -> TExpr {
        // Most bodies hold none: then nothing is walked or rebuilt (a
        // delayed lambda's node names one of `self.lambdas`).
        if self.lambdas.is_empty()
            || !super::tir::any_node(&tir, &mut |t| matches!(t, TExpr::DelayedLambda(_)))
        {
            return tir;
        }
        // As in `merge`: the `Err` hands the node back by value, on the
        // path of every node; boxing it would cost more than it saves.
        #[allow(clippy::result_large_err)]
        super::tir::rewrite(tir, &mut |t| match t {
            TExpr::DelayedLambda(id) => {
                let lambda = &self.lambdas[merged_root(&self.lambdas, id)];
                let body = match &lambda.body {
                    Some(body) => self.resolve_lambdas(body.clone()),
                    None => TExpr::Unreachable,
                };
                Ok(TExpr::Lambda(lambda.params.clone(), Box::new(body)))
            }
            other => Err(other),
        })
    }
}

/// One typed body from two applications of the same lambda: the same tree
/// (the body's structure does not depend on its parameters' types), each
/// operator's cost the larger, each limit's static maximum the larger.
/// A lambda written inside the body is a new delayed lambda at each
/// application: the two are merged into the first, whose id the merged
/// body keeps. `conflict` is set where the two apply one combinator to
/// inputs of different shapes: an option and a list the runtime could not
/// tell apart, and a list's combinators (every element, batched) and a
/// stream's (the elements read, one by one) cost differently.
pub(super) fn merge(a: TExpr, b: TExpr, lambdas: &mut [LambdaBody], conflict: &mut bool) -> TExpr {
    // The `Err` hands the two unmatched nodes back to `zip` by value; it is
    // on the path of every node, so boxing it would cost more than it saves.
    #[allow(clippy::result_large_err)]
    super::tir::zip(a, b, &mut |x, y| match (x, y) {
        (TExpr::Costed(inner_a, cost_a), TExpr::Costed(inner_b, cost_b)) => Ok(TExpr::Costed(
            Box::new(merge(*inner_a, *inner_b, lambdas, conflict)),
            Arc::new(cost_a.max(&cost_b)),
        )),
        (TExpr::Limit(count_a, max_a), TExpr::Limit(count_b, max_b)) => Ok(TExpr::Limit(
            Box::new(merge(*count_a, *count_b, lambdas, conflict)),
            max_a.zip(max_b).map(|(a, b)| a.max(b)),
        )),
        (TExpr::DelayedLambda(first), TExpr::DelayedLambda(second)) if first != second => {
            let (first, second) = (merged_root(lambdas, first), merged_root(lambdas, second));
            if first != second {
                let body = match (lambdas[first].body.take(), lambdas[second].body.take()) {
                    (Some(x), Some(y)) => Some(merge(x, y, lambdas, conflict)),
                    (x, y) => x.or(y),
                };
                lambdas[first].body = body;
                // Applied after this (`f(g)(u)`: the lambda `f` returns is
                // applied once `f`'s bodies are merged), its body joins too.
                lambdas[second].merged_into = Some(first);
            }
            Ok(TExpr::DelayedLambda(first))
        }
        // An option, a list and a stream are read apart; a list's `map`
        // applies to every element, batched, a stream's to those read.
        (x @ TExpr::Builtin(_, sa, _), y @ TExpr::Builtin(_, sb, _)) if sa != sb => {
            *conflict = true;
            Err((x, y))
        }
        // A field read that is one table's column at one application and
        // another's (another position), or a record's field, at another:
        // one body serves both, so it reads by name, which finds it in each.
        (TExpr::Column(a, at), TExpr::Column(b, bt)) if at != bt => {
            Ok(by_name(*a, *b, at.name, lambdas, conflict))
        }
        (TExpr::Column(a, at), TExpr::Field(b, _)) => {
            Ok(by_name(*a, *b, at.name, lambdas, conflict))
        }
        (TExpr::Field(a, name), TExpr::Column(b, _)) => {
            Ok(by_name(*a, *b, name, lambdas, conflict))
        }
        (TExpr::Error, other) | (other, TExpr::Error) => Ok(other),
        (x, y) => Err((x, y)),
    })
}

/// The lambda whose body `id`'s was merged into, following the chain.
pub(super) fn merged_root(lambdas: &[LambdaBody], mut id: usize) -> usize {
    while let Some(next) = lambdas[id].merged_into {
        id = next;
    }
    id
}

/// The field `name` of the merged bases `a` and `b`, read by name.
fn by_name(
    a: TExpr,
    b: TExpr,
    name: String,
    lambdas: &mut [LambdaBody],
    conflict: &mut bool,
) -> TExpr {
    TExpr::Field(Box::new(merge(a, b, lambdas, conflict)), name)
}
