//! The scope a REPL expression is checked in: every table, aggregate and definition of the loaded program, private ones too, as inside a file of it.
//!
//! An expression is the body of `query it()` in a module of its own,
//! `repl`, that imports every name the program declares. A definition
//! declared without `pub` could not be imported, so the copy of the
//! sources the expressions are checked against declares every definition
//! `pub`: a private query or function is then a value like any other
//! (`tagged("rust", 2) |> map(q => q.id)`, `:bound tagged("rust", 2)`).
//! The database keeps the program as written; this copy is only checked.

use rqc_compiler::syntax::ast::Item;

/// The sources an expression is checked against, and the imports that
/// bring their names into its module.
#[derive(Default)]
pub struct Scope {
    /// The sources, every definition in them public.
    files: Vec<(String, String)>,
    /// `import m.{…}` lines: each name once, from the first module that
    /// declares it.
    imports: String,
    /// The definitions an expression can call.
    definitions: std::collections::HashSet<String>,
}

impl Scope {
    pub fn new(files: &[(String, String)]) -> Scope {
        let mut scope = Scope::default();
        let mut seen = std::collections::HashSet::new();
        for (name, source) in files {
            let (module, _) = rqc_compiler::syntax::parse(name, source);
            let mut opened = source.clone();
            // From the last, so that each offset still holds when it is used.
            let private = module.items.iter().rev().filter_map(|item| match item {
                Item::Def(d) if !d.public => Some(d.span.start as usize),
                _ => None,
            });
            for start in private {
                opened.insert_str(start, "pub ");
            }
            scope.files.push((name.clone(), opened));
            // A file without a `module` line is the module of its stem, as
            // the compiler names it; a stem no import can name (`my-app`)
            // leaves its names to be imported by hand.
            let module = rqc_compiler::check::SourceModule {
                file: name.clone(),
                module: std::sync::Arc::new(module),
            };
            let module_name = module.module_name();
            let module = &module.module;
            if !is_module_path(&module_name) {
                continue;
            }
            let mut names = Vec::new();
            for item in &module.items {
                let name = match item {
                    Item::Table(t) => &t.name.name,
                    Item::Aggregate(a) => &a.name.name,
                    Item::Def(d) => {
                        scope.definitions.insert(d.name.name.clone());
                        &d.name.name
                    }
                    Item::Import(_) => continue,
                };
                if seen.insert(name.clone()) {
                    names.push(name.clone());
                }
            }
            if !names.is_empty() {
                let names = names.join(", ");
                scope
                    .imports
                    .push_str(&format!("import {module_name}.{{{names}}}\n"));
            }
        }
        scope
    }

    /// Whether the program declares a definition named `name` (an
    /// expression can call it).
    pub fn declares(&self, name: &str) -> bool {
        self.definitions.contains(name)
    }

    /// Whether there are no sources (nothing loaded).
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The module an expression is checked in, as the body of a `kind`
    /// (`query` or `mutation`) named `it`, and where the expression starts.
    pub fn wrap(&self, expression: &str, kind: &str) -> (String, usize) {
        let mut text = format!("module repl\n{}{kind} it() =\n", self.imports);
        let start = text.len();
        text.push_str(expression);
        text.push('\n');
        (text, start)
    }

    /// The sources with `module` (a wrapped expression) in file `name`.
    pub fn files_with(&self, name: &str, module: String) -> Vec<(String, String)> {
        let mut files = self.files.clone();
        files.push((name.to_string(), module));
        files
    }
}

/// Whether `name` can be written after `import`: dotted identifiers.
fn is_module_path(name: &str) -> bool {
    name.split('.').all(|part| {
        let mut chars = part.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

#[cfg(test)]
mod tests {
    use super::Scope;

    #[test]
    fn private_definitions_are_imported_and_made_public_in_the_copy() {
        let source = "module qa\ntable Q {\n  id: Int key\n}\nquery one(i: Int) = Q[i]\npub fn two(x: Int) = x * 2\nfn three(x: Int) = x * 3\n";
        let scope = Scope::new(&[("qa.rq".into(), source.into())]);
        assert!(scope.declares("one") && scope.declares("two") && scope.declares("three"));
        assert!(!scope.declares("Q"), "a table is not a definition");
        let (text, start) = scope.wrap("one(1)", "query");
        assert_eq!(
            text,
            "module repl\nimport qa.{Q, one, two, three}\nquery it() =\none(1)\n"
        );
        assert_eq!(&text[start..], "one(1)\n");
        let files = scope.files_with("<repl>", text);
        assert_eq!(
            files[0].1,
            "module qa\ntable Q {\n  id: Int key\n}\npub query one(i: Int) = Q[i]\npub fn two(x: Int) = x * 2\npub fn three(x: Int) = x * 3\n"
        );
        assert_eq!(files[1].0, "<repl>");
    }

    #[test]
    fn a_file_without_a_module_line_is_imported_by_its_stem() {
        let source = "table Item {\n  id: Int key\n}\nquery one(i: Int) = Item[i]\n";
        let scope = Scope::new(&[
            ("dir/f1.rq".into(), source.into()),
            ("my-app.rq".into(), "fn two() = 2\n".into()),
        ]);
        let (text, _) = scope.wrap("Item[1]", "query");
        assert_eq!(
            text,
            "module repl\nimport f1.{Item, one}\nquery it() =\nItem[1]\n"
        );
        assert!(scope.declares("one"));
    }
}
