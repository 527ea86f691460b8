//! One program installed on every backend of the Store trait (each embedded store in a fresh directory, and etcd), each run held to its bound and followed by the integrity check.

use rqc_compiler::compile;
use rqc_plan::Value;
use rqc_runtime::{Backend, Durability, Engine, OpenOptions, Output, RuntimeError};

use crate::state::{check_integrity, store_tables, Tables};

/// A database of one of the backends with the program installed.
pub struct Db {
    pub engine: Engine,
    pub schema: rqc_plan::Schema,
    /// The backend, as messages name it.
    pub on: String,
    /// Keeps an embedded store's directory while the engine uses it.
    _dir: Option<tempfile::TempDir>,
}

impl Db {
    /// Runs an entry: a success is within its bound (seeks, rows and round
    /// trips); after it, committed or refused, every index, counter,
    /// reference and aggregate equals what the rows imply.
    pub fn run(&self, name: &str, args: &[Value]) -> Result<Output, RuntimeError> {
        let output = self.engine.run(name, args);
        if let Ok(output) = &output {
            assert!(
                crate::within(&output.stats, &output.bound),
                "{} {name}{args:?}: {:?} over {:?}",
                self.on,
                output.stats,
                output.bound
            );
        }
        let integrity = check_integrity(self.engine.store(), &self.schema);
        assert_eq!(integrity, Ok(()), "{} after {name}{args:?}", self.on);
        output
    }

    /// The value of a run that must succeed.
    pub fn value(&self, name: &str, args: &[Value]) -> Value {
        self.run(name, args)
            .unwrap_or_else(|e| panic!("{} {name}{args:?}: {e}", self.on))
            .value
    }

    /// The code a run must be refused with; nothing of it is written.
    pub fn refused(&self, name: &str, args: &[Value]) -> &'static str {
        let before = self.tables();
        let code = match self.run(name, args) {
            Err(error) => error.code,
            Ok(output) => panic!(
                "{} {name}{args:?} was not refused: {:?}",
                self.on, output.value
            ),
        };
        assert_eq!(before, self.tables(), "{} {name}{args:?} wrote", self.on);
        code
    }

    /// Every table's rows, in key order.
    pub fn tables(&self) -> Tables {
        store_tables(self.engine.store(), &self.schema)
    }
}

/// Runs `check` on a new database of each embedded backend and of etcd,
/// with `program` installed (it must compile cleanly).
pub fn each_store(program: &str, check: impl Fn(Db)) {
    let compilation = compile(&[("program.rq".into(), program.into())]);
    assert!(
        compilation.diagnostics.is_empty(),
        "{:?}",
        compilation.diagnostics
    );
    for backend in Backend::ALL {
        let dir = tempfile::tempdir().unwrap();
        let options = OpenOptions {
            backend: Some(backend),
            durability: Durability::None,
            ..OpenOptions::default()
        };
        let mut engine = Engine::open(&dir.path().join("db"), options).unwrap();
        engine.install(compilation.program.clone()).unwrap();
        check(Db {
            engine,
            schema: compilation.program.schema.clone(),
            on: format!("{backend:?}"),
            _dir: Some(dir),
        });
    }
    let mut engine = crate::etcd::engine();
    engine.install(compilation.program.clone()).unwrap();
    check(Db {
        engine,
        schema: compilation.program.schema.clone(),
        on: "etcd".into(),
        _dir: None,
    });
}
