//! Plan execution on random data, on a backend the first byte picks
//! (memory, sled or redb): random rows (refused ones included) and random
//! arguments never panic, every run stays within its bound, and afterwards
//! every index and counter equals its table's rows.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rqc_plan::Value;
use std::sync::OnceLock;

const PROGRAM: &str = "
table User { id: Int key  handle: String unique  age: Int }
table Follow {
  a: Int ref User
  b: Int ref User
  key (a, b)
  bound a <= 8
}
table Post { id: Int key  author: Int ref User  at: Int  index by_author (author, at desc) }
mutation add_user(id: Int, handle: String, age: Int) = insert User { id, handle, age }
mutation follow(a: Int, b: Int) = insert Follow { a, b }
mutation post(id: Int, author: Int, at: Int) = insert Post { id, author, at }
mutation unfollow_all(a: Int) = delete Follow[a]
mutation drop_user(id: Int) = delete User[id]
query timeline(u: Int, n: Int <= 20) =
  Follow[u] |> flat_map(f => Post.by_author[f.b] |> take(3)) |> sort_by(p => p.at, desc) |> take(n)
query older(u: Int, t: Int) = Post.by_author[u, at < t] |> take(5)
query followers(u: Int) = Follow[u] |> map(f => User[f.b]) |> flatten() |> count()
";

fn program() -> &'static rqc_plan::CompiledProgram {
    static PROGRAM_PLANS: OnceLock<rqc_plan::CompiledProgram> = OnceLock::new();
    PROGRAM_PLANS.get_or_init(|| {
        let compilation = rqc_compiler::compile(&[("p.rq".to_string(), PROGRAM.to_string())]);
        assert!(compilation.diagnostics.is_empty(), "{:?}", compilation.diagnostics);
        compilation.program
    })
}

/// The engine for this input: in memory, or a fresh database on disk.
fn engine(choice: u8, dir: &std::path::Path) -> rqc_runtime::Engine {
    let backend = match choice % 3 {
        0 => return rqc_runtime::Engine::in_memory(),
        1 => rqc_runtime::Backend::Sled,
        _ => rqc_runtime::Backend::Redb,
    };
    let options = rqc_runtime::OpenOptions {
        backend: Some(backend),
        durability: rqc_runtime::Durability::None,
        ..rqc_runtime::OpenOptions::default()
    };
    rqc_runtime::Engine::open(dir, options).unwrap()
}

fuzz_target!(|data: &[u8]| {
    let Some((&choice, data)) = data.split_first() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut engine = engine(choice, dir.path());
    engine.install(program().clone()).unwrap();
    for chunk in data.chunks(4) {
        let b = |i: usize| *chunk.get(i).unwrap_or(&0) as i64;
        let (name, args): (&str, Vec<Value>) = match b(0) % 8 {
            0 => ("add_user", vec![b(1).into(), format!("h{}", b(2) % 16).into(), b(3).into()]),
            1 => ("follow", vec![(b(1) % 16).into(), (b(2) % 16).into()]),
            2 => ("post", vec![b(1).into(), (b(2) % 16).into(), b(3).into()]),
            3 => ("unfollow_all", vec![(b(1) % 16).into()]),
            4 => ("drop_user", vec![(b(1) % 16).into()]),
            5 => ("timeline", vec![(b(1) % 16).into(), (b(2) % 21).into()]),
            6 => ("older", vec![(b(1) % 16).into(), b(2).into()]),
            _ => ("followers", vec![(b(1) % 16).into()]),
        };
        if let Ok(output) = engine.run(name, &args) {
            assert!(output.stats.seeks <= output.bound.seeks && output.stats.rows <= output.bound.rows);
        }
    }
    let integrity = rqc_tests::state::check_integrity(engine.store(), &program().schema);
    assert_eq!(integrity, Ok(()));
});
