//! The names visible in one module and what each stands for: found by hash (every name of every body is looked up, most of them locals that are not there), listed in name order.

use super::modules::Symbol;
use crate::cost::NameHash;
use std::collections::HashMap;

/// One module's scope. Lookups hash the name; listings (suggestions,
/// completion, the prelude's names) come sorted, so that what a person
/// sees does not depend on the hash.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ModuleScope(HashMap<String, Symbol, NameHash>);

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
        self.0.get(name)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    /// Binds `name`, replacing what it stood for.
    pub fn insert(&mut self, name: String, symbol: Symbol) {
        self.0.insert(name, symbol);
    }

    /// Binds `name` unless it is bound already (own items before imports,
    /// imports before the prelude).
    pub fn insert_if_absent(&mut self, name: String, symbol: Symbol) {
        self.0.entry(name).or_insert(symbol);
    }

    /// Every binding, in name order.
    pub fn sorted(&self) -> Vec<(&String, &Symbol)> {
        let mut all: Vec<(&String, &Symbol)> = self.0.iter().collect();
        all.sort_unstable_by(|a, b| a.0.cmp(b.0));
        all
    }
}

impl std::fmt::Debug for ModuleScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.sorted()).finish()
    }
}
