//! The names visible in one module and what each stands for: found by hash (every name of every body is looked up, most of them locals that are not there), listed in name order.

use super::modules::Symbol;
use super::names::{Nearest, Signature};
use crate::cost::NameHash;
use rqc_plan::by_name::Lazy;
use rqc_plan::near::{NearIndex, INDEXED};
use std::collections::HashMap;

/// One module's scope. Lookups hash the name; listings (suggestions,
/// completion, the prelude's names) come sorted, so that what a person
/// sees does not depend on the hash.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ModuleScope {
    names: HashMap<String, (Symbol, Signature), NameHash>,
    /// For the near-name search of a large scope: every name, and the
    /// functions alone, each built on first use and forgotten when a name
    /// is bound.
    near: Lazy<NearIndex>,
    near_functions: Lazy<NearIndex>,
}

/// Which of a scope's names a near-name search is offered.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Offered {
    All,
    /// The module's own and imported functions and queries.
    Functions,
}

impl Offered {
    fn admits(self, symbol: &Symbol) -> bool {
        self == Offered::All || matches!(symbol, Symbol::Def(_))
    }
}

impl ModuleScope {
    /// Room for `names` bindings (a module's items), so that it does not
    /// grow by steps.
    pub fn with_capacity(names: usize) -> ModuleScope {
        ModuleScope {
            names: HashMap::with_capacity_and_hasher(names, NameHash::default()),
            ..ModuleScope::default()
        }
    }

    pub fn get(&self, name: &str) -> Option<&Symbol> {
        self.names.get(name).map(|(symbol, _)| symbol)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.names.contains_key(name)
    }

    /// Binds `name`, replacing what it stood for.
    pub fn insert(&mut self, name: String, symbol: Symbol) {
        let signature = Signature::of(&name);
        self.names.insert(name, (symbol, signature));
        self.forget_near();
    }

    /// Binds `name` unless it is bound already (own items before imports,
    /// imports before the prelude).
    pub fn insert_if_absent(&mut self, name: String, symbol: Symbol) {
        if let std::collections::hash_map::Entry::Vacant(entry) = self.names.entry(name) {
            let signature = Signature::of(entry.key());
            entry.insert((symbol, signature));
            self.forget_near();
        }
    }

    fn forget_near(&mut self) {
        self.near = Lazy::default();
        self.near_functions = Lazy::default();
    }

    /// Offers the names `which` admits to a near-name search, as if sorted
    /// ([`Nearest::any_order`]): each of a small scope's, or through an
    /// index of a large one's, built once (a module of thousands of names
    /// may have as many misspellings).
    pub fn offer<'a>(&'a self, nearest: &mut Nearest<'a>, which: Offered) {
        if self.names.len() <= INDEXED {
            let admitted = self.unordered().filter(|(_, s, _)| which.admits(s));
            nearest.any_order(admitted.map(|(name, _, signature)| (name, signature)));
            return;
        }
        let lazy = match which {
            Offered::All => &self.near,
            Offered::Functions => &self.near_functions,
        };
        let index = lazy.get_or_init(|| {
            let admitted = self.unordered().filter(|(_, s, _)| which.admits(s));
            NearIndex::alphabetical(admitted.map(|(name, _, _)| name))
        });
        nearest.indexed(index);
    }

    /// Every binding with its name's signature, in the hash's order: for
    /// the search of a near name, which does not depend on the order
    /// ([`super::names::Nearest::any_order`]).
    pub fn unordered(&self) -> impl Iterator<Item = (&str, &Symbol, Signature)> {
        (self.names.iter()).map(|(name, (symbol, signature))| (name.as_str(), symbol, *signature))
    }

    /// Every binding, in name order.
    pub fn sorted(&self) -> Vec<(&String, &Symbol)> {
        let mut all: Vec<(&String, &Symbol)> = self
            .names
            .iter()
            .map(|(name, (symbol, _))| (name, symbol))
            .collect();
        all.sort_unstable_by(|a, b| a.0.cmp(b.0));
        all
    }
}

impl std::fmt::Debug for ModuleScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.sorted()).finish()
    }
}
