//! What a condition's names are: values compared, one possibly a part of another (a record's field, a row's column, a string's length), so that `all` proves of each element's part what its predicate proves of its element's (spec/cost.md §3.1).

/// What identifies a compared value ([`crate::Condition`]'s `N`): a name may be a
/// part of another (a record's field, a row's column, a string's length),
/// so that what `all(list, element => says)` proves of a part of its
/// element it proves of that part of each element of the list.
pub trait Name: Clone + PartialEq {
    /// The same part in each element of `list` that `self` is of
    /// `element`; `None` when `self` is no part of `element` (or is
    /// `element` itself, which is `list`'s elements as a whole).
    fn in_each(&self, element: &Self, list: &Self) -> Option<Self>;
}

/// The step of a dotted path that stands for each element of a list: the
/// part `p.at` of an element `p` of `ps` is `ps.[].at` (the checker's
/// names, and its declared lengths of elements, `|rs[].xs|`).
pub const EACH_ELEMENT: &str = "[]";

/// The steps of the dotted path `path` below `root`: `Some("")` for
/// `root` itself, `Some("at")` for `root.at`, `None` for a path that does
/// not start at `root` (`pq.at` is not below `p`). The one reading of a
/// dotted path's parts (the checker's names and a row type's facts).
pub fn path_below<'p>(path: &'p str, root: &str) -> Option<&'p str> {
    match path.strip_prefix(root)? {
        "" => Some(""),
        rest => rest.strip_prefix('.'),
    }
}

/// A dotted path (`p.at`): a part of another is that path and more.
impl Name for String {
    fn in_each(&self, element: &Self, list: &Self) -> Option<Self> {
        let below = path_below(self, element).filter(|below| !below.is_empty())?;
        Some(format!("{list}.{EACH_ELEMENT}.{below}"))
    }
}

/// A name that cannot be taken apart (tests): no parts.
impl Name for &str {
    fn in_each(&self, _element: &Self, _list: &Self) -> Option<Self> {
        None
    }
}

/// A name and the identity of its binding (the checker's): a part of one
/// binding's value is a part of that binding.
impl<P: Name, B: Clone + PartialEq> Name for (P, B) {
    fn in_each(&self, element: &Self, list: &Self) -> Option<Self> {
        if self.1 != element.1 {
            return None;
        }
        let path = self.0.in_each(&element.0, &list.0)?;
        Some((path, list.1.clone()))
    }
}
