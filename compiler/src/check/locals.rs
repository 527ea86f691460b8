//! The names a definition binds (parameters, `let`s, lambda parameters), as a stack a lookup by name reads in one probe and a delayed lambda keeps whole at no cost.
//!
//! A plain list made each use of a name search the list, and each delayed
//! lambda copy it: a definition of 16,000 parameters or `let`s took
//! seconds. Both parts here are persistent (`imbl`): a copy shares them,
//! and a push or a pop changes a path, not the whole.

use std::sync::Arc;

use super::expr::Local;

/// The bindings in scope, innermost last.
#[derive(Clone, Default)]
pub struct Locals {
    /// Each binding, and the position of the one of its name it shadows.
    stack: imbl::Vector<(Arc<Local>, Option<usize>)>,
    /// Each name's innermost binding, by position in `stack`.
    innermost: imbl::HashMap<String, usize>,
}

impl Locals {
    /// How many bindings are in scope: a mark to [`Locals::truncate`] to.
    pub fn len(&self) -> usize {
        self.stack.len()
    }

    pub fn push(&mut self, local: Arc<Local>) {
        let position = self.stack.len();
        let shadowed = self.innermost.insert(local.name.clone(), position);
        self.stack.push_back((local, shadowed));
    }

    /// Leaves the bindings made since the scope had `depth` of them.
    pub fn truncate(&mut self, depth: usize) {
        while self.stack.len() > depth {
            let Some((local, shadowed)) = self.stack.pop_back() else {
                break;
            };
            match shadowed {
                Some(outer) => self.innermost.insert(local.name.clone(), outer),
                None => self.innermost.remove(local.name.as_str()),
            };
        }
    }

    /// The innermost binding of `name`.
    pub fn get(&self, name: &str) -> Option<&Local> {
        let &position = self.innermost.get(name)?;
        self.stack.get(position).map(|(local, _)| &**local)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.innermost.contains_key(name)
    }

    /// The names bound, outermost first (shadowed ones too).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.stack.iter().map(|(local, _)| local.name.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::tir::TExpr;
    use crate::check::types::Ty;

    fn local(name: &str, n: i64) -> Arc<Local> {
        Arc::new(Local {
            name: name.into(),
            span: Default::default(),
            ty: Ty::Bool,
            tir: TExpr::Const(rqc_plan::Value::Int(n)),
        })
    }

    fn value(locals: &Locals, name: &str) -> Option<i64> {
        match &locals.get(name)?.tir {
            TExpr::Const(rqc_plan::Value::Int(n)) => Some(*n),
            _ => None,
        }
    }

    #[test]
    fn the_innermost_binding_is_found_and_the_outer_one_returns_when_it_ends() {
        let mut locals = Locals::default();
        locals.push(local("x", 1));
        locals.push(local("y", 2));
        let mark = locals.len();
        locals.push(local("x", 3));
        locals.push(local("z", 4));
        assert_eq!(value(&locals, "x"), Some(3));
        assert_eq!(locals.names().collect::<Vec<_>>(), ["x", "y", "x", "z"]);
        let kept = locals.clone();
        locals.truncate(mark);
        assert_eq!(value(&locals, "x"), Some(1));
        assert_eq!(value(&locals, "y"), Some(2));
        assert!(!locals.contains("z"));
        assert_eq!(value(&locals, "z"), None);
        // A copy taken before (a delayed lambda's scope) keeps its bindings.
        assert_eq!(value(&kept, "x"), Some(3));
        assert_eq!(value(&kept, "z"), Some(4));
        locals.truncate(0);
        assert_eq!(locals.len(), 0);
        assert!(!locals.contains("x"));
    }
}
