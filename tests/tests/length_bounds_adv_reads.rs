//! An adversary's check of the "cannot exist" shortcut and the clamped range ends: every read of a program with `String <= n` answers as the same program without the bounds.
//!
//! Rows within the bounds are written to both; then every query runs with
//! arguments short and long (past the table's longest key, escaped `\0`s,
//! multi-byte and the last character of Unicode), and the answers must be
//! equal. Pages are walked to the end on both.

use rqc_plan::Value;
use rqc_runtime::Engine;
use rqc_tests::accepted;
use rqc_tests::rng::Rng;

const BOUNDED: &str = "\
table S {
  name: String <= 3 key
  g: Int
  tag: String? <= 2
  index by_g (g, name desc)
  index by_tag (tag, name)
  index by_desc (name desc, g)
  index by_gd (g desc, name desc)
}
table U {
  id: Int key
  handle: String <= 2 unique
  pair: String <= 2
  other: String? <= 2
  unique (pair, other)
}
aggregate per_tag = count(S) by tag
mutation add(name: String, g: Int, tag: String?) = insert S { name, g, tag }
mutation add_u(id: Int, handle: String, pair: String, other: String?) = insert U { id, handle, pair, other }
query get(p: String, q: String, x: Int) = S[p]
query gt(p: String, q: String, x: Int) = S[name > p] |> take(50)
query ge(p: String, q: String, x: Int) = S[name >= p] |> take(50)
query lt(p: String, q: String, x: Int) = S[name < p] |> take(50)
query le(p: String, q: String, x: Int) = S[name <= p] |> take(50)
query sw(p: String, q: String, x: Int) = S[starts_with(name, p)] |> take(50)
query desc_gt(p: String, q: String, x: Int) = S.by_desc[name > p] |> take(50)
query desc_le(p: String, q: String, x: Int) = S.by_desc[name <= p] |> take(50)
query desc_sw(p: String, q: String, x: Int) = S.by_desc[starts_with(name, p)] |> take(50)
query g_gt(p: String, q: String, x: Int) = S.by_g[x, name > p] |> take(50)
query g_lt(p: String, q: String, x: Int) = S.by_g[x, name < p] |> take(50)
query g_sw(p: String, q: String, x: Int) = S.by_g[x, starts_with(name, p)] |> take(50)
query tup_gt(p: String, q: String, x: Int) = S.by_gd[(g, name) > (x, p)] |> take(50)
query tup_le(p: String, q: String, x: Int) = S.by_gd[(g, name) <= (x, p)] |> take(50)
query tagged(p: String, q: String, x: Int) = S.by_tag[p] |> take(50)
query tag_gt(p: String, q: String, x: Int) = S.by_tag[p, name > q] |> take(50)
query ins(p: String, q: String, x: Int) = S[name in [p, q, \"a\"]]
query either(p: String, q: String, x: Int) = S[p] || S[q]
query counted(p: String, q: String, x: Int) = per_tag[p]
query mapped(p: String, q: String, x: Int) = [p, q, \"ab\"] |> map(n => S[n])
query mapped_ranges(p: String, q: String, x: Int) = [p, q] |> map(n => S[name >= n] |> take(2))
query handle(p: String, q: String, x: Int) = U.handle[p]
query pairs(p: String, q: String, x: Int) = U.pair_other[p, q] |> take(50)
";

const QUERIES: [&str; 23] = [
    "get",
    "gt",
    "ge",
    "lt",
    "le",
    "sw",
    "desc_gt",
    "desc_le",
    "desc_sw",
    "g_gt",
    "g_lt",
    "g_sw",
    "tup_gt",
    "tup_le",
    "tagged",
    "tag_gt",
    "ins",
    "either",
    "counted",
    "mapped",
    "mapped_ranges",
    "handle",
    "pairs",
];

const ALPHABET: [char; 7] = ['a', 'b', '\0', '\u{1}', 'é', '\u{7f}', '\u{10FFFF}'];

fn text(rng: &mut Rng, max_chars: u64) -> String {
    (0..rng.below(max_chars + 1))
        .map(|_| ALPHABET[rng.below(ALPHABET.len() as u64) as usize])
        .collect()
}

/// A text of at most `bytes` bytes.
fn short(rng: &mut Rng, bytes: usize) -> String {
    let mut t = text(rng, bytes as u64);
    while t.len() > bytes {
        t.pop();
    }
    t
}

/// An argument: short, or long (past every key of the tables), often
/// beginning as a stored value does.
fn argument(rng: &mut Rng, stored: &[String]) -> String {
    match rng.below(4) {
        0 => short(rng, 3),
        1 => text(rng, 40),
        2 => {
            let base = &stored[rng.below(stored.len() as u64) as usize];
            format!("{base}{}", text(rng, 40))
        }
        _ => {
            let base = &stored[rng.below(stored.len() as u64) as usize];
            format!("{base}{}", "\0".repeat(rng.below(40) as usize + 1))
        }
    }
}

#[test]
fn reads_with_length_bounds_answer_as_without() {
    compare(40, Engine::in_memory);
}

/// The same on etcd, whose reads go in batches of one transaction each
/// (the unbounded program, whose mutations E0577 refuses there, runs in
/// memory).
#[test]
fn on_etcd_reads_with_length_bounds_answer_as_without() {
    compare(8, rqc_tests::etcd::engine);
}

fn compare(seeds: u64, bounded_engine: fn() -> Engine) {
    let unbounded_source = BOUNDED
        .replace("String <= 3", "String")
        .replace("String <= 2", "String")
        .replace("String? <= 2", "String?");
    assert!(!unbounded_source.contains("<= 2") && !unbounded_source.contains("<= 3"));
    let bounded_source = BOUNDED.replace(
        "  unique (pair, other)\n",
        "  index pair_other (pair, other)\n",
    );
    let unbounded_source = unbounded_source.replace(
        "  unique (pair, other)\n",
        "  index pair_other (pair, other)\n",
    );
    let bounded_program = accepted(&bounded_source);
    let unbounded_program = accepted(&unbounded_source);
    let (mut answered, mut shortcut, mut clamped) = (0, 0, 0);
    for seed in 0..seeds {
        let mut rng = Rng::new(seed);
        let mut bounded = bounded_engine();
        bounded.install(bounded_program.clone()).unwrap();
        let mut unbounded = Engine::in_memory();
        unbounded.install(unbounded_program.clone()).unwrap();
        let mut stored = vec![String::new()];
        for _ in 0..rng.below(30) {
            let name = short(&mut rng, 3);
            let tag: Value = if rng.below(3) == 0 {
                Value::Null
            } else {
                short(&mut rng, 2).as_str().into()
            };
            let args = [name.as_str().into(), (rng.below(3)).into(), tag];
            let a = bounded.run("add", &args).map(|o| o.value);
            let b = unbounded.run("add", &args).map(|o| o.value);
            assert_eq!(a.is_ok(), b.is_ok(), "seed {seed}: add{args:?}");
            stored.push(name);
        }
        for id in 0..rng.below(10) {
            let other: Value = if rng.below(3) == 0 {
                Value::Null
            } else {
                short(&mut rng, 2).as_str().into()
            };
            let args = [
                id.into(),
                short(&mut rng, 2).as_str().into(),
                short(&mut rng, 2).as_str().into(),
                other,
            ];
            let a = bounded.run("add_u", &args).map(|o| o.value);
            let b = unbounded.run("add_u", &args).map(|o| o.value);
            assert_eq!(a.is_ok(), b.is_ok(), "seed {seed}: add_u{args:?}");
        }
        for _ in 0..60 {
            let query = QUERIES[rng.below(QUERIES.len() as u64) as usize];
            let args = [
                argument(&mut rng, &stored).as_str().into(),
                argument(&mut rng, &stored).as_str().into(),
                (rng.below(4) - 1).into(),
            ];
            let a = bounded.run(query, &args);
            let b = unbounded.run(query, &args);
            if let (Ok(a), Ok(b)) = (&a, &b) {
                answered += 1;
                shortcut += usize::from(a.stats.seeks < b.stats.seeks);
                clamped += usize::from(
                    a.stats.seeks == b.stats.seeks
                        && args
                            .iter()
                            .any(|v| matches!(v, Value::Str(s) if s.len() > 20)),
                );
            }
            let a = a.map(|o| o.value).map_err(|e| e.code);
            let b = b.map(|o| o.value).map_err(|e| e.code);
            assert_eq!(a, b, "seed {seed}: {query}{args:?}");
            // Pages: walked to the end, the same rows.
            if let (Ok(entry_a), Ok(entry_b)) = (bounded.entry(query), unbounded.entry(query)) {
                let (entry_a, entry_b) = (entry_a.clone(), entry_b.clone());
                let (Ok(mut pa), Ok(mut pb)) = (
                    bounded.run_page(&entry_a, &args),
                    unbounded.run_page(&entry_b, &args),
                ) else {
                    continue;
                };
                for _ in 0..60 {
                    assert_eq!(
                        pa.output.value, pb.output.value,
                        "seed {seed}: page of {query}{args:?}"
                    );
                    match (pa.token.clone(), pb.token.clone()) {
                        (Some(ta), Some(tb)) => {
                            pa = bounded.next_page(&entry_a, &ta).unwrap();
                            pb = unbounded.next_page(&entry_b, &tb).unwrap();
                        }
                        (None, None) => break,
                        other => panic!("seed {seed}: {query}{args:?} tokens {other:?}"),
                    }
                }
            }
        }
    }
    // The runs met long arguments and mostly answered. A query is never
    // answered by the shortcut: only a mutation's reads on a store of
    // limited requests are (spec/distributed.md, "Request size"), so a
    // process holding an older program reads as it did before bounds.
    let runs = seeds as usize * 60;
    assert!(answered > runs * 3 / 4, "{answered} answered");
    assert!(
        shortcut == 0 && clamped > runs / 20,
        "{shortcut} shortcuts, {clamped} long ranges"
    );
}

/// On a cluster taking 64 KiB requests, the widest bounds the install
/// accepts, then the worst values (keys of `\0`, escaped twice as long):
/// every write the install proved commits (held).
#[test]
fn on_etcd_the_widest_accepted_writes_commit() {
    let cluster = rqc_tests::etcd::cluster_taking(64 * 1024);
    let template = "\
table P {
  k: String <= N key
}
table R {
  id: String <= N key
  a: String <= N
  b: String? <= N
  p: String? <= N ref P
  g: String <= N
  index by_a (a desc, id)
  index by_g (g, a)
  index by_gb (g, id desc)
  unique (b, g)
  bound g <= 3
}
aggregate top = max(R.a) by g
aggregate low = min(R.id) by g
mutation add_p(k: String) = insert P { k }
mutation add(id: String, a: String, b: String?, p: String?, g: String) = insert R { id, a, b, p, g }
mutation change(id: String, a: String, b: String?, p: String?, g: String) = update R[id] { a: a, b: b, p: p, g: g }
mutation drop(id: String) = delete R[id]
";
    let mut n = 20_000u64;
    let (engine, n) = loop {
        let mut engine = Engine::connect(
            &cluster.url(&format!("w{n}")),
            &rqc_runtime::store::EtcdOptions::default(),
        )
        .unwrap();
        match engine.install(accepted(&template.replace("<= N", &format!("<= {n}")))) {
            Ok(()) => break (engine, n),
            Err(e) => {
                assert_eq!(e.code, "E0577", "{e}");
                if n < 45 {
                    eprintln!("n = {n}: {}", e.message);
                }
                n = n * 9 / 10;
                assert!(n > 10, "nothing fits");
            }
        }
    };
    eprintln!("widest accepted: String <= {n}");
    let n = n as usize;
    let worst = |c: char| format!("{c}{}", "\0".repeat(n - c.len_utf8()));
    let run = |name: &str, args: Vec<Value>| {
        engine
            .run(name, &args)
            .unwrap_or_else(|e| panic!("n = {n}: {name}: {}: {}", e.code, e.message));
    };
    run("add_p", vec![worst('p').as_str().into()]);
    run("add_p", vec![worst('q').as_str().into()]);
    for i in 0..3 {
        let c = char::from(b'a' + i);
        run(
            "add",
            vec![
                worst(c).as_str().into(),
                worst(c).as_str().into(),
                Value::Null,
                worst('p').as_str().into(),
                worst('g').as_str().into(),
            ],
        );
    }
    run(
        "change",
        vec![
            worst('a').as_str().into(),
            worst('z').as_str().into(),
            worst('y').as_str().into(),
            worst('q').as_str().into(),
            worst('h').as_str().into(),
        ],
    );
    run(
        "change",
        vec![
            worst('b').as_str().into(),
            worst('x').as_str().into(),
            Value::Null,
            Value::Null,
            worst('h').as_str().into(),
        ],
    );
    run("drop", vec![worst('a').as_str().into()]);
    run("drop", vec![worst('c').as_str().into()]);
}
