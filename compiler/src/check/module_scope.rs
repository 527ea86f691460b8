//! The names visible in one module and what each stands for: found by hash (every name of every body is looked up, most of them locals that are not there), listed in name order.

use super::modules::Symbol;
use super::names::Signature;
use crate::cost::NameHash;
use std::collections::HashMap;

/// One module's scope. Lookups hash the name; listings (suggestions,
/// completion, the prelude's names) come sorted, so that what a person
/// sees does not depend on the hash.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ModuleScope(HashMap<String, (Symbol, Signature), NameHash>);

impl ModuleScope {
    /// Room for `names` bindings (a module's items), so that it does not
    /// grow by steps.
    pub fn with_capacity(names: usize) -> ModuleScope {
        ModuleScope(HashMap::with_capacity_and_hasher(
            names,
            NameHash::default(),
        ))
    }

    pub fn get(&self, name: &str) -> Option<&Symbol> {
        self.0.get(name).map(|(symbol, _)| symbol)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    /// Binds `name`, replacing what it stood for.
    pub fn insert(&mut self, name: String, symbol: Symbol) {
        let signature = Signature::of(&name);
        self.0.insert(name, (symbol, signature));
    }

    /// Binds `name` unless it is bound already (own items before imports,
    /// imports before the prelude).
    pub fn insert_if_absent(&mut self, name: String, symbol: Symbol) {
        if let std::collections::hash_map::Entry::Vacant(entry) = self.0.entry(name) {
            let signature = Signature::of(entry.key());
            entry.insert((symbol, signature));
        }
    }

    /// Every binding with its name's signature, in the hash's order: for
    /// the search of a near name, which does not depend on the order
    /// ([`super::names::Nearest::any_order`]).
    pub fn unordered(&self) -> impl Iterator<Item = (&str, &Symbol, Signature)> {
        self.0
            .iter()
            .map(|(name, (symbol, signature))| (name.as_str(), symbol, *signature))
    }

    /// Every binding, in name order.
    pub fn sorted(&self) -> Vec<(&String, &Symbol)> {
        let mut all: Vec<(&String, &Symbol)> = self
            .0
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
