//! The names a definition binds (parameters, `let`s, lambda parameters), as a stack a lookup by name reads in one probe and a delayed lambda keeps whole at no cost.
//!
//! A plain list made each use of a name search the list, and each delayed
//! lambda copy it: a definition of 16,000 parameters or `let`s took
//! seconds. Both parts here are persistent (`imbl`): a copy shares them,
//! and a push or a pop changes a path, not the whole. They are used only
//! while the scope is deep; a shallow one is a list, searched.

use std::sync::Arc;

use super::expr::Local;

/// A scope this deep or shallower is a list searched: a few comparisons
/// cost less than hashing a name (the common definition binds a handful).
const SEARCHED: usize = 16;

/// Each name's innermost binding, by position: hashed as the interner's
/// names are (`crate::cost::NameHash`), and shared by copies.
type Innermost =
    imbl::GenericHashMap<String, usize, crate::cost::NameHash, imbl::shared_ptr::DefaultSharedPtr>;

/// A binding, and the position of the one of its name it shadows (known
/// while the scope is deep).
type Entry = (Arc<Local>, Option<usize>);

/// The bindings in scope, innermost last.
#[derive(Clone, Default)]
pub struct Locals {
    stack: Stack,
}

/// A shallow scope is a list, searched and copied whole (as cheap as the
/// persistent forms' bookkeeping, for the handful most definitions bind);
/// a deep one is persistent, with a map by name.
#[derive(Clone)]
enum Stack {
    Shallow(Vec<Entry>),
    Deep {
        entries: imbl::Vector<Entry>,
        innermost: Innermost,
    },
}

impl Default for Stack {
    fn default() -> Stack {
        Stack::Shallow(Vec::new())
    }
}

impl Locals {
    /// How many bindings are in scope: a mark to [`Locals::truncate`] to.
    pub fn len(&self) -> usize {
        match &self.stack {
            Stack::Shallow(entries) => entries.len(),
            Stack::Deep { entries, .. } => entries.len(),
        }
    }

    pub fn push(&mut self, local: Arc<Local>) {
        let position = self.len();
        if let Stack::Shallow(entries) = &mut self.stack {
            if position < SEARCHED {
                entries.push((local, None));
                return;
            }
            let mut innermost = Innermost::default();
            for (at, (local, _)) in entries.iter().enumerate() {
                innermost.insert(local.name.clone(), at);
            }
            let entries = std::mem::take(entries).into_iter().collect();
            self.stack = Stack::Deep { entries, innermost };
        }
        if let Stack::Deep { entries, innermost } = &mut self.stack {
            let shadowed = innermost.insert(local.name.clone(), position);
            entries.push_back((local, shadowed));
        }
    }

    /// Leaves the bindings made since the scope had `depth` of them.
    pub fn truncate(&mut self, depth: usize) {
        match &mut self.stack {
            Stack::Shallow(entries) => entries.truncate(depth),
            Stack::Deep { entries, innermost } => {
                if depth <= SEARCHED {
                    let kept = entries.iter().take(depth).cloned().collect();
                    self.stack = Stack::Shallow(kept);
                    return;
                }
                while entries.len() > depth {
                    let Some((local, shadowed)) = entries.pop_back() else {
                        break;
                    };
                    match shadowed {
                        Some(outer) => innermost.insert(local.name.clone(), outer),
                        None => innermost.remove(local.name.as_str()),
                    };
                }
            }
        }
    }

    /// The innermost binding of `name`.
    pub fn get(&self, name: &str) -> Option<&Local> {
        let entry = match &self.stack {
            Stack::Shallow(entries) => entries.iter().rev().find(|(l, _)| l.name == name),
            Stack::Deep { entries, innermost } => entries.get(*innermost.get(name)?),
        };
        entry.map(|(local, _)| &**local)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// The names bound, outermost first (shadowed ones too).
    pub fn names(&self) -> Box<dyn Iterator<Item = &str> + '_> {
        match &self.stack {
            Stack::Shallow(entries) => Box::new(entries.iter().map(|(l, _)| l.name.as_str())),
            Stack::Deep { entries, .. } => Box::new(entries.iter().map(|(l, _)| l.name.as_str())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::tir::TExpr;
    use crate::check::types::Ty;

    fn local(name: &str, n: i64) -> Arc<Local> {
        Arc::new(Local::new(
            name.into(),
            Default::default(),
            Ty::Bool,
            TExpr::Const(rqc_plan::Value::Int(n)),
        ))
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

    #[test]
    fn a_deep_scope_finds_by_name_what_a_shallow_one_searches() {
        let mut locals = Locals::default();
        // `v0` … `v29`, then each of `v0` … `v9` again, deeper.
        for n in 0..30 {
            locals.push(local(&format!("v{n}"), n));
        }
        let mark = locals.len();
        for n in 0..10 {
            locals.push(local(&format!("v{n}"), 100 + n));
        }
        assert_eq!(value(&locals, "v3"), Some(103));
        assert_eq!(value(&locals, "v29"), Some(29));
        let kept = locals.clone();
        locals.truncate(mark);
        assert_eq!(value(&locals, "v3"), Some(3), "the outer one is back");
        assert_eq!(value(&kept, "v3"), Some(103));
        // Down to a shallow scope, and past the threshold again.
        locals.truncate(SEARCHED - 1);
        assert_eq!(value(&locals, "v20"), None);
        assert_eq!(value(&locals, "v14"), Some(14));
        for n in 0..20 {
            locals.push(local(&format!("w{n}"), 200 + n));
        }
        assert_eq!(value(&locals, "w19"), Some(219));
        assert_eq!(value(&locals, "v0"), Some(0));
        assert_eq!(value(&locals, "v20"), None);
    }
}
