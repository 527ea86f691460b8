//! The embedding API: open a database, install a program, run its entry points.

use crate::error::Error;
use crate::sources::read_program;
use rqc_compiler::{compile, Compilation};
use rqc_plan::{CompiledProgram, Entry, Value};
use rqc_runtime::Engine;
pub use rqc_runtime::{Backend, OpenOptions, Output};
use std::path::{Path, PathBuf};

/// An open rqc database with (once installed) a program to run.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let mut db = rqc::Database::open(dir.path()).unwrap();
/// db.install_source("app.rq", "
///     table Item { id: Int key  name: String }
///     mutation add(id: Int, name: String) = insert Item { id: id, name: name }
///     query item(id: Int) = Item[id]
/// ").unwrap();
/// db.run("add", &[7.into(), "lamp".into()]).unwrap();
/// let found = db.run("item", &[7.into()]).unwrap();
/// assert_eq!(found.rows()[0].field("name"), Some(&"lamp".into()));
/// ```
pub struct Database {
    engine: Engine,
}

impl Database {
    /// Opens (or creates) the database in `dir` with the default options:
    /// the redb backend, every commit durable before it returns.
    pub fn open(dir: impl AsRef<Path>) -> Result<Database, Error> {
        Database::open_with(dir, OpenOptions::default())
    }

    pub fn open_with(dir: impl AsRef<Path>, options: OpenOptions) -> Result<Database, Error> {
        Ok(Database {
            engine: Engine::open(dir.as_ref(), options)?,
        })
    }

    /// A database that lives in memory only.
    pub fn in_memory() -> Database {
        Database {
            engine: Engine::in_memory(),
        }
    }

    /// Compiles one source text and installs it.
    pub fn install_source(&mut self, name: &str, text: &str) -> Result<(), Error> {
        self.install_files(&[(name.to_string(), text.to_string())])
    }

    /// Compiles the `.rq` files and directories at `paths` and installs them.
    pub fn install_paths(&mut self, paths: &[PathBuf]) -> Result<(), Error> {
        let files = read_program(paths)?;
        self.install_files(&files)
    }

    fn install_files(&mut self, files: &[(String, String)]) -> Result<(), Error> {
        let compilation = compile_checked(files)?;
        self.install(compilation.program)
    }

    /// Installs an already compiled program.
    pub fn install(&mut self, program: CompiledProgram) -> Result<(), Error> {
        Ok(self.engine.install(program)?)
    }

    /// Runs a query or mutation by name with positional arguments.
    pub fn run(&self, name: &str, args: &[Value]) -> Result<Output, Error> {
        Ok(self.engine.run(name, args)?)
    }

    /// Loads rows into `table` as one transaction: all of them, or — when
    /// any is refused — none, with every refusal reported by line.
    pub fn load(
        &self,
        table: &str,
        rows: crate::rowfile::ParsedRows,
        progress: &mut dyn FnMut(usize),
    ) -> Result<rqc_runtime::LoadReport, Error> {
        Ok(self.engine.load(table, rows, progress)?)
    }

    /// Runs an entry point to measure it, per operator; a mutation's writes
    /// are discarded.
    pub fn analyze(&self, name: &str, args: &[Value]) -> Result<Output, Error> {
        let entry = self.engine.entry(name)?;
        Ok(self.engine.analyze(entry, args)?)
    }

    /// Looks an entry point up once, to run it many times.
    pub fn prepare(&self, name: &str) -> Result<Prepared<'_>, Error> {
        let entry = self.engine.entry(name)?;
        Ok(Prepared { db: self, entry })
    }

    pub fn program(&self) -> Option<&CompiledProgram> {
        self.engine.program()
    }
}

/// A query or mutation looked up once and run many times.
///
/// ```
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut db = rqc::Database::open(dir.path()).unwrap();
/// # db.install_source("app.rq", "
/// #     table Item { id: Int key  name: String }
/// #     mutation add(id: Int, name: String) = insert Item { id: id, name: name }
/// #     query item(id: Int) = Item[id]
/// # ").unwrap();
/// #[derive(serde::Serialize)]
/// struct NewItem<'a> { id: i64, name: &'a str }
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct Item { id: i64, name: String }
///
/// let add = db.prepare("add").unwrap();
/// add.run_named(&NewItem { id: 1, name: "lamp" }).unwrap();
/// let item = db.prepare("item").unwrap();
/// let found: Option<Item> = item.query_one(&[1.into()]).unwrap();
/// assert_eq!(found, Some(Item { id: 1, name: "lamp".into() }));
/// ```
pub struct Prepared<'db> {
    db: &'db Database,
    entry: &'db Entry,
}

impl Prepared<'_> {
    pub fn params(&self) -> &[rqc_plan::ParamSpec] {
        &self.entry.params
    }

    /// Runs with positional arguments.
    pub fn run(&self, args: &[Value]) -> Result<Output, Error> {
        Ok(self.db.engine.run_entry(self.entry, args)?)
    }

    /// Runs with arguments taken by name from a serializable struct or map.
    pub fn run_named<P: serde::Serialize>(&self, params: &P) -> Result<Output, Error> {
        let args = named_args(self.entry, params)?;
        self.run(&args)
    }

    /// Runs and reads the result rows into `T`.
    pub fn query<T: serde::de::DeserializeOwned>(&self, args: &[Value]) -> Result<Vec<T>, Error> {
        let output = self.run(args)?;
        output
            .rows()
            .iter()
            .map(|row| decode(&self.entry.name, row))
            .collect()
    }

    /// Runs and reads the first row, if any, into `T`.
    pub fn query_one<T: serde::de::DeserializeOwned>(
        &self,
        args: &[Value],
    ) -> Result<Option<T>, Error> {
        let output = self.run(args)?;
        output
            .rows()
            .first()
            .map(|row| decode(&self.entry.name, row))
            .transpose()
    }
}

fn decode<T: serde::de::DeserializeOwned>(entry: &str, row: &Value) -> Result<T, Error> {
    serde_json::from_value(row.to_json()).map_err(|error| {
        Error::Runtime(rqc_runtime::RuntimeError::new(
            "E0523",
            format!("a row of `{entry}` does not fit the requested type: {error}"),
            "make the type's fields match the row's columns (names and types)",
        ))
    })
}

/// Positional arguments from a struct's (or map's) fields, by parameter name.
fn named_args<P: serde::Serialize>(entry: &Entry, params: &P) -> Result<Vec<Value>, Error> {
    let bad = |message: String, help: String| {
        Error::Runtime(rqc_runtime::RuntimeError::new("E0520", message, help))
    };
    let json = serde_json::to_value(params).map_err(|e| {
        bad(
            format!("the arguments do not serialize: {e}"),
            "pass a struct or map of the parameters".into(),
        )
    })?;
    let serde_json::Value::Object(fields) = json else {
        return Err(bad(
            "named arguments must be a struct or a map".into(),
            "pass a struct with one field per parameter".into(),
        ));
    };
    entry
        .params
        .iter()
        .map(|param| {
            let field = fields.get(&param.name).ok_or_else(|| {
                bad(
                    format!("missing argument `{param}`"),
                    format!("add a field `{}`", param.name),
                )
            })?;
            Value::from_json(field).ok_or_else(|| {
                bad(
                    format!("argument `{}` is not a `{}`", param.name, param.ty.name()),
                    format!("give `{}` a `{}` value", param.name, param.ty.name()),
                )
            })
        })
        .collect()
}

/// Compiles, turning any error diagnostic into [`Error::Compile`].
pub fn compile_checked(files: &[(String, String)]) -> Result<Compilation, Error> {
    let compilation = compile(files);
    if compilation.has_errors() {
        return Err(Error::Compile {
            diagnostics: compilation.diagnostics,
            sources: compilation.sources,
        });
    }
    Ok(compilation)
}
