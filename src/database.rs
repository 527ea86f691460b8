//! The embedding API: open a database, install a program, run its entry points.

use crate::error::Error;
use crate::sources::read_program;
use rqc_compiler::{compile, Compilation};
use rqc_plan::{CompiledProgram, Value};
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
/// assert_eq!(found.rows[0].field("name"), Some(&"lamp".into()));
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

    pub fn program(&self) -> Option<&CompiledProgram> {
        self.engine.program()
    }
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
