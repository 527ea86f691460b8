//! Random RQL programs for the bound property: queries built from every construct in every position its type allows, over a fixed schema with a large table, an island, column values and a small table.
//!
//! The generator writes text by target type (an integer, a stream of `A`
//! rows, a list of `A` rows, a function on `A` rows), mixing what the
//! soundness rules are about: signed and extreme arithmetic, values from
//! columns, streams inside records, lists, lets, `if`s and generic
//! functions, functions chosen by `if` or held in lists and records,
//! lambdas over lists, and the predicates over indexes (keys from a list,
//! `starts_with` ranges, unions) and `none` typed by its context; and
//! mutations that update rows from their own values and upsert, nested in
//! the same positions. Many programs are rejected; the property concerns
//! the accepted ones.

use crate::Rng;

#[path = "programs_narrowing.rs"]
mod narrowing;

#[path = "programs_prelude.rs"]
mod prelude;
pub use prelude::PRELUDE;

/// The parameters of every generated query: `x` (any), `n <= 6`, `m <= 3`,
/// `p` in `[-2, 4]`.
pub const PARAMS: &str = "x: Int, n: Int <= 6, m: Int <= 3, p: Int >= -2 <= 4";

/// Values the generator draws for literals and arguments: small, negative,
/// and extreme.
pub const EXTREMES: [i64; 9] = [0, 1, 2, 5, -1, -7, i64::MAX, i64::MIN, 4_294_967_297];

/// A program of `queries` generated queries `q0`, `q1`, … after [`PRELUDE`],
/// and as many mutations `w0`, `w1`, … ([`write`]).
pub fn program(rng: &mut Rng, queries: usize) -> String {
    let mut out = PRELUDE.to_string();
    for i in 0..queries {
        let body = match rng.below(3) {
            0 => int(rng, 3),
            1 => list(rng, 3),
            _ => format!("({}) |> count()", list(rng, 3)),
        };
        out.push_str(&format!("query q{i}({PARAMS}) = {body}\n"));
    }
    for i in 0..queries {
        out.push_str(&format!("mutation w{i}({PARAMS}) = {}\n", write(rng, 2)));
    }
    out
}

/// A write computed from the rows it changes (`as r`, `+=`, `-=`) or an
/// `upsert`, over a key, an island or a bounded list, alone or nested in a
/// block, an `if`, a `map` or another write's changes; its values are the
/// generator's integers (extremes among them: a step may overflow).
pub fn write(rng: &mut Rng, depth: u32) -> String {
    let d = depth.saturating_sub(1);
    let value = |rng: &mut Rng| int(rng, 1);
    match rng.below(if depth == 0 { 17 } else { 23 }) {
        0 => format!("update A[x] {{ v += {} }}", value(rng)),
        // A row's key columns as its access fixed them (`b.n` is `m`,
        // `b.a` is `m`), read as a count after a nested write may have
        // changed the row's other columns (`updated_row`).
        21 => format!(
            "update B[x, m] as b {{ w: {{ {}; A.by_g[x] |> take(b.n) |> count() }} }}",
            write(rng, d)
        ),
        22 => format!(
            "update B[m] as b {{ w: {{ {}; A.by_g[b.n] |> take(b.a + b.w % 2) |> count() }} }}",
            write(rng, d)
        ),
        1 => format!(
            "update C[{}] as r {{ lim: r.lim - {} }}",
            value(rng),
            value(rng)
        ),
        2 => format!("update C[x] {{ lim -= {} }}", value(rng)),
        // Every row of an island, and of a bounded list, in turn.
        3 => format!("update B[x] {{ w += {} }}", value(rng)),
        4 => "update B[x] as b { w: b.w * 2 - b.n }".into(),
        5 => format!(
            "update (A.by_g[x] |> take(n)) as a {{ v: a.v + a.g, g: a.g - {} }}",
            value(rng)
        ),
        6 => format!("upsert C {{ id: {}, lim: {} }}", value(rng), value(rng)),
        7 => format!(
            "upsert B {{ a: x, n: {}, w: {} }}",
            pick(rng, &["n", "m", "p", "0"]),
            value(rng)
        ),
        8 => format!("upsert S {{ id: {}, k: {} }}", value(rng), value(rng)),
        9 => format!("upsert A {{ id: {}, g: m, v: {} }}", value(rng), value(rng)),
        // Generated keys: left out (the defaults too), given (an extreme
        // moves the counter to its end, E0660 after), upserted, deleted;
        // the insert's value is the key, used in the same mutation.
        10 => format!("insert K {{ t: now() % 5 + {} }}", value(rng)),
        11 => format!("insert K {{ id: {}, v: {} }}", value(rng), value(rng)),
        12 => format!("upsert K {{ id: {}, v: {} }}", value(rng), value(rng)),
        13 => format!(
            "{{ let k = insert K {{ v: {} }}; delete K[k - {}] }}",
            value(rng),
            pick(rng, &["0", "1", "m"])
        ),
        // Cascading deletes over islands: a `P` row (its `Q` rows and
        // their `Z` rows deleted, its `R` rows set to `none`), a `Q` row,
        // a bounded list of `P` rows naming some twice.
        14 => format!("delete P[{}]", pick(rng, &["x", "m", "p", "0"])),
        15 => format!("delete Q[{}]", pick(rng, &["x", "n", "p"])),
        16 => "delete ([m, p, m] |> map(i => P[i]) |> flatten())".into(),
        // Nested: in a block, an `if`, a `map` over a bounded list, and
        // a write inside an update's changes (the row is read again).
        17 => format!("{{ {}; {} }}", write(rng, d), write(rng, d)),
        18 => format!(
            "(if x > {} {{ {} }} else {{ {} }})",
            value(rng),
            write(rng, d),
            write(rng, d)
        ),
        19 => format!(
            "([m, n, p, {}] |> map(i => upsert B {{ a: x, n: i, w: {} }}) |> count())",
            value(rng),
            value(rng)
        ),
        _ => format!(
            "update C[x] as r {{ lim: {{ {}; r.lim + 1 }} }}",
            write(rng, d)
        ),
    }
}

/// A value with both ends: a literal, or a parameter declared with them.
fn bounded(rng: &mut Rng) -> String {
    match rng.below(3) {
        0 => literal(rng),
        _ => pick(rng, &["n", "m", "p"]).into(),
    }
}

fn pick<'a>(rng: &mut Rng, options: &[&'a str]) -> &'a str {
    options[rng.below(options.len() as u64) as usize]
}

fn literal(rng: &mut Rng) -> String {
    let value = EXTREMES[rng.below(EXTREMES.len() as u64) as usize];
    if value < 0 {
        // `-9223372036854775808` does not lex as one literal.
        format!("(0 - {})", value.unsigned_abs().min(i64::MAX as u64))
    } else {
        value.to_string()
    }
}

/// An integer expression.
pub fn int(rng: &mut Rng, depth: u32) -> String {
    if depth == 0 {
        return match rng.below(5) {
            0 => literal(rng),
            1 => "n".into(),
            2 => "m".into(),
            3 => "p".into(),
            _ => "x".into(),
        };
    }
    let d = depth - 1;
    match rng.below(35) {
        0 => literal(rng),
        1 => pick(rng, &["n", "m", "x"]).into(),
        2 => format!(
            "({} {} {})",
            int(rng, d),
            pick(rng, &["+", "-", "*", "/", "%"]),
            int(rng, d)
        ),
        3 => format!("(-{})", int(rng, d)),
        4 => "(B[x] |> count())".into(),
        5 => "(B[x] |> map(b => b.w) |> sum())".into(),
        6 => format!("(C[x] |> map(c => c.lim) |> unwrap_or({}))", int(rng, d)),
        7 => format!("(if x > 0 {{ {} }} else {{ {} }})", int(rng, d), int(rng, d)),
        8 => format!(
            "([{}, {}] |> first() |> unwrap_or({}))",
            int(rng, d),
            int(rng, d),
            int(rng, d)
        ),
        9 => format!("({{ k: {} }}.k)", int(rng, d)),
        10 => format!("apply({}, v => v + {})", int(rng, d), int(rng, d)),
        11 => format!("id({})", int(rng, d)),
        12 => pick(
            rng,
            &[
                "(S |> map(s => s.k) |> max() |> unwrap_or(0))",
                // An index nested loop over an island, batched.
                "(B[x] |> map(b => C[b.w] |> map(c => c.lim) |> unwrap_or(0)) |> sum())",
                "(S |> map(s => C[s.k]) |> flatten() |> map(c => c.lim) |> sum())",
            ],
        )
        .into(),
        13 => format!("(({}) |> count())", list(rng, d)),
        14 => format!("twice(v => v * {}, {})", int(rng, d), int(rng, d)),
        // One lambda applied with counts of different ranges, and a lambda
        // made anew inside another at each application.
        15 => format!(
            "{{ let t = k => (A.by_g[x] |> take(k) |> count()); t({}) + t({}) }}",
            int(rng, d),
            int(rng, d)
        ),
        16 => format!(
            "{{ let t = k => {{ let u = j => (A.by_g[n] |> take(j) |> count()); u(k) + u(2) }}; t({}) + t({}) }}",
            int(rng, d),
            int(rng, d)
        ),
        // Maintained aggregates: read with any key, in a lambda over an
        // island, through a generic function.
        17 => match rng.below(6) {
            0 => format!("a_count[{}]", int(rng, d)),
            1 => format!("(a_sum[x] + b_total[{}])", int(rng, d)),
            2 => "(B[x] |> map(b => b_total[b.a] + a_count[b.n]) |> sum())".into(),
            3 => format!("apply({}, v => lims[v])", int(rng, d)),
            4 => format!("(top_v[{}] |> unwrap_or({}))", int(rng, d), int(rng, d)),
            _ => "(B[x] |> map(b => low_w[b.a] |> unwrap_or(b.n)) |> sum())".into(),
        },
        // A function of one value: a length nothing bounds from above.
        18 => format!("length(upper(\"ab\") |> lower()) * {}", int(rng, d)),
        // The mean of an island, read in full, turned back into an Int.
        19 => format!(
            "(B[x] |> avg(b => b.w) |> map(f => {}) |> unwrap_or({}))",
            int(rng, d),
            int(rng, d)
        ),
        // A prefix's key range, alone and after an equality prefix.
        20 => format!(
            "(W[starts_with(s, {})] |> take({}) |> count())",
            prefix(rng),
            int(rng, d)
        ),
        21 => format!(
            "(W.by_k[{}, starts_with(s, {})] |> take({}) |> map(w => w.k) |> sum())",
            int(rng, d),
            prefix(rng),
            int(rng, d)
        ),
        22 => format!("(A[id in [{}, {}, x]] |> count())", int(rng, d), int(rng, d)),
        // Whole keys after an equality prefix computed by a read (bound
        // once, then one batch), and islands per element of a list.
        25 => format!(
            "(B[C[x] |> map(c => c.lim) |> unwrap_or({}), n in [{}, {}, m]] |> map(b => b.w) |> sum())",
            int(rng, d),
            int(rng, d),
            int(rng, d)
        ),
        26 => format!("(B[a in [x, {}, {}]] |> count())", int(rng, d), int(rng, d)),
        // `none` typed by a list's other element and by an `if`'s branch.
        23 => format!(
            "([none, {}] |> flatten() |> first() |> unwrap_or({}))",
            int(rng, d),
            int(rng, d)
        ),
        24 => format!(
            "((if x > 0 {{ none }} else {{ C[x] |> map(c => c.lim) }}) |> unwrap_or({}))",
            int(rng, d)
        ),
        // What an `if` proves of the names it compares: each comparison,
        // either side, under `!`, `&&`, `||`, through a `let`, and of a
        // field of a name (a record's, a row's column).
        27 => narrowing::form(rng, d),
        // Remainders: by a literal (signed), by a parameter, of anything.
        28 => format!(
            "({} % {})",
            int(rng, d),
            pick(rng, &["10", "3", "1", "(0 - 4)", "m", "p", "n"])
        ),
        // The least or greatest of a list literal, where the list's value
        // goes unchanged (a `let`, a field, an `if`, a function's list
        // parameter) and after operations that drop or change elements.
        29 => {
            let list = format!("[{}, {}]", int(rng, d), int(rng, d));
            let list = match rng.below(9) {
                // Through a generic function's `[T]`: passed on, or joined
                // with a list it makes.
                7 => format!("rev_of({list})"),
                8 => format!("own_of(x > 0, {list}, {})", int(rng, d)),
                0 => format!("{{ let l = {list}; l }}"),
                1 => format!("({{ l: {list} }}.l)"),
                2 => format!("(if x > 0 {{ {list} }} else {{ [{}] }})", int(rng, d)),
                3 => format!("(if x > 0 {{ {list} }} else {{ [] }})"),
                4 => format!("({list} |> filter(v => v > {}))", int(rng, d)),
                5 => format!("({list} |> {})", pick(rng, &["take(1)", "skip(1)", "reverse()"])),
                _ => list,
            };
            let extreme = pick(rng, &["min", "max"]);
            match rng.below(3) {
                0 => format!(
                    "{}({list})",
                    if extreme == "min" { "least_of" } else { "most_of" }
                ),
                _ => format!("({list} |> {extreme}() |> unwrap_or({}))", int(rng, d)),
            }
        }
        // The length of a bounded string (`W.s <= 4`) and of a literal;
        // a length compared by an `if` (of a row's column, of a `let`).
        30 => match rng.below(3) {
            0 => {
                let op = pick(rng, &["<", "<=", ">", ">=", "==", "!="]);
                let (a, b) = (int(rng, d), int(rng, d));
                format!(
                    "(W.by_k[{}] |> first() |> map(w => if length(w.s) {op} {a} {{ length(w.s) }} else {{ {b} }}) |> unwrap_or({b}))",
                    int(rng, d)
                )
            }
            1 => {
                let op = pick(rng, &["<", "<=", ">", ">="]);
                let (a, b) = (int(rng, d), int(rng, d));
                format!(
                    "(W.by_k[{}] |> first() |> map(w => {{ let t = \"é\" + w.s; if t |> length() - 1 {op} {a} {{ 9 - length(t) }} else {{ {b} }} }}) |> unwrap_or({b}))",
                    int(rng, d)
                )
            }
            _ => format!(
                "(W.by_k[{}] |> first() |> map(w => length(w.s + \"é\")) |> unwrap_or({}))",
                int(rng, d),
                int(rng, d)
            ),
        },
        // Functions with declared ends, and functions returned by functions.
        31 => match rng.below(6) {
            0 => format!("clamp({})", int(rng, d)),
            // A returned function whose reads grow with its own argument:
            // applied at once, by `let`, through `twice` (its count is at
            // most its argument) or over a list.
            4 => format!(
                "{}({})({})",
                pick(rng, &["reads_by", "skips_by"]),
                int(rng, d),
                int(rng, d)
            ),
            5 => match rng.below(3) {
                0 => format!("twice(reads_by({}), {})", int(rng, d), int(rng, d)),
                1 => format!(
                    "{{ let f = skips_by({}); f({}) + f({}) }}",
                    int(rng, d),
                    int(rng, d),
                    int(rng, d)
                ),
                _ => format!(
                    "([{}, {}] |> map(reads_by({})) |> sum())",
                    int(rng, d),
                    int(rng, d),
                    int(rng, d)
                ),
            },
            1 => match rng.below(5) {
                // The greatest of two measures a call fixes, two functions
                // fed one `T`, a producer past an argument's `T`, and a
                // returned lambda's least of its own argument and another.
                0 => format!(
                    "either_len(x > {}, [{}, {}], [{}])",
                    int(rng, d),
                    bounded(rng),
                    int(rng, d),
                    bounded(rng)
                ),
                1 => format!(
                    "both(v => if v > {} {{ {} }} else {{ v + 1 }}, v => if v > {} {{ {} }} else {{ v + 2 }}, {})",
                    bounded(rng),
                    bounded(rng),
                    bounded(rng),
                    bounded(rng),
                    bounded(rng)
                ),
                2 => format!("produced(u => u * {}, {}, {})", bounded(rng), bounded(rng), int(rng, d)),
                3 => format!("least_by({})({})({})", int(rng, d), int(rng, d), bounded(rng)),
                _ => format!("{{ let f = reads({}); f({}) }}", int(rng, d), int(rng, d)),
            },
            2 => format!("{{ let f = either(x > {}); f({}) }}", int(rng, d), int(rng, d)),
            _ => format!(
                "{{ let g = pass_fn(v => A.by_g[v] |> take({}) |> count()); g({}) }}",
                int(rng, d),
                int(rng, d)
            ),
        },
        32 => format!(
            "(if p >= 0 && p <= 3 {{ {{ let f = reads(p); f({}) }} }} else {{ clamp(if {} > 6 {{ 6 }} else if {} < 0 {{ 0 }} else {{ {} }}) }})",
            int(rng, d),
            "n",
            "n",
            "n"
        ),
        // A group of `F` keyed by a float that arithmetic makes `-0.0`
        // (`x * 0.0 * -1.0`, `-(x * 0.0)`, `0.0 / -5.0`, an underflow).
        33 => format!(
            "(F.by_x[{}] |> count())",
            pick(
                rng,
                &[
                    "float(x) * 0.0 * -1.0",
                    "-(float(m) * 0.0)",
                    "0.0 / -5.0",
                    "-5e-324 / 5.0",
                    "float(n)",
                    "-float(m)",
                ]
            )
        ),
        34 => format!(
            "(f_count[{}] + (F.by_x[-(float({}) * 0.0)] |> map(f => f.id) |> sum()))",
            pick(rng, &["0.0 * -1.0", "float(x)", "-0.0 + 0.0", "float(m) * -1.0"]),
            int(rng, d)
        ),
        _ => format!("{{ let k = {}; k + k }}", int(rng, d)),
    }
}

/// A String prefix: empty, escaped in a key (`\0`), multi-byte, and one
/// longer than any key of `W` (asked for clamped: `entry_bytes`).
fn prefix(rng: &mut Rng) -> &'static str {
    pick(
        rng,
        &[
            "\"\"",
            "\"a\"",
            "\"a\\u{0}\"",
            "\"é\"",
            "\"b\"",
            "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"",
        ],
    )
}

/// A stream of `A` rows (never read by itself).
pub fn stream(rng: &mut Rng, depth: u32) -> String {
    if depth == 0 {
        return pick(
            rng,
            &[
                "A.by_g[x]",
                "A",
                "A.by_g",
                "A.by_g[n]",
                "A.by_gv[x, (v, id) < (n, x)]",
            ],
        )
        .into();
    }
    let d = depth - 1;
    match rng.below(12) {
        0 => format!("A.by_g[{}]", int(rng, d)),
        // Reverse reads: any stream backwards (refused after a `skip`,
        // E0457), and sorts that are an index or the key read in its
        // order or, where the column identifies a row, backwards.
        10 => format!("({} |> reverse())", stream(rng, d)),
        11 => match rng.below(3) {
            0 => format!("(A.by_g[{}] |> sort_by(a => a.v, desc))", int(rng, d)),
            1 => "(A |> sort_by(a => a.id, desc))".into(),
            _ => format!("(A.by_gv[x, {}] |> sort_by(a => a.id, asc))", int(rng, d)),
        },
        8 => format!("({} |> skip({}))", stream(rng, d), int(rng, d)),
        1 => format!("A.by_g[x, v < {}]", int(rng, d)),
        9 => match rng.below(3) {
            // Tuple ranges: after an equality, over the whole index, and
            // over the columns from the first.
            0 => format!("A.by_gv[x, (v, id) < ({}, {})]", int(rng, d), int(rng, d)),
            1 => format!(
                "A.by_gv[(g, v, id) >= ({}, {}, {})]",
                int(rng, d),
                int(rng, d),
                int(rng, d)
            ),
            _ => format!("A.by_gv[(g, v) > (n, {})]", int(rng, d)),
        },
        2 => format!("id({})", stream(rng, d)),
        3 => format!("({{ s: {}, t: 1 }}.s)", stream(rng, d)),
        4 => format!(
            "(if x > 1 {{ {} }} else {{ {} }})",
            stream(rng, d),
            stream(rng, d)
        ),
        5 => format!("({} |> map({}))", stream(rng, d), function(rng, d)),
        6 => format!("{{ let s = {}; s }}", stream(rng, d)),
        7 => format!("([{}] |> first() |> unwrap_or(A))", stream(rng, d)),
        _ => stream(rng, 0),
    }
}

/// A list of `A` rows.
pub fn list(rng: &mut Rng, depth: u32) -> String {
    if depth == 0 {
        return format!("({} |> take({}))", stream(rng, 0), int(rng, 0));
    }
    let d = depth - 1;
    match rng.below(16) {
        0 => format!("({} |> take({}))", stream(rng, d), int(rng, d)),
        11 => format!("({} |> skip({}))", list(rng, d), int(rng, d)),
        1 => format!("apply({}, s => s |> take({}))", stream(rng, d), int(rng, d)),
        2 => format!(
            "([{}, {}] |> map(s => s |> take({})) |> flatten())",
            stream(rng, d),
            stream(rng, d),
            int(rng, d)
        ),
        3 => format!(
            "{{ let s = {}; (s |> take({})) |> map(a => a) }}",
            stream(rng, d),
            int(rng, d)
        ),
        4 => format!("({} |> filter(a => a.v > {}))", list(rng, d), int(rng, d)),
        5 => format!("({} |> sort_by(a => a.v, desc))", list(rng, d)),
        6 => format!(
            "(if x > 0 {{ {} }} else {{ {} }})",
            list(rng, d),
            list(rng, d)
        ),
        7 => format!("({} |> map({}))", list(rng, d), function(rng, d)),
        8 => format!(
            "{{ let f = {}; {} |> map(a => f(a)) }}",
            function(rng, d),
            list(rng, d)
        ),
        9 => format!(
            "app_list(ys => ys |> map({}), {})",
            function(rng, d),
            list(rng, d)
        ),
        10 => format!(
            "(B[x] |> flat_map(b => {} |> take({})))",
            stream(rng, d),
            int(rng, d)
        ),
        // Keys from a list (one batch), and the union of two lists.
        13 => format!(
            "A[id in [{}, {}, {}]]",
            int(rng, d),
            int(rng, d),
            int(rng, d)
        ),
        14 => format!("({} || {})", list(rng, d), list(rng, d)),
        15 => format!("A[id in ({} |> map(a => a.g))]", list(rng, d)),
        _ => format!("{{ {}; {} }}", int(rng, d), list(rng, d)),
    }
}

/// A function from `A` rows to `A` rows: a lambda, or a value that is one
/// of several.
pub fn function(rng: &mut Rng, depth: u32) -> String {
    // Lookups a `map` over a list reads as one batch (keyed by the
    // element, a parameter, inside a record) and ones it must not batch
    // (keyed by another lookup's row, chosen by `if`, inside a lambda).
    let lambdas = [
        "a => a",
        "a => A[a.id] |> unwrap_or(a)",
        "a => A.by_g[a.g] |> first() |> unwrap_or(a)",
        "a => A.by_g[a.g] |> take(3) |> first() |> unwrap_or(a)",
        "a => A[a.g] |> unwrap_or(a)",
        "a => { r: A[x] |> unwrap_or(a), s: A[a.v] }.r",
        "a => { let b = A[a.id] |> unwrap_or(a); A[b.g] |> unwrap_or(b) }",
        "a => if a.v > 3 { A[a.id] |> unwrap_or(a) } else { a }",
        "a => A[a.id] |> map(b => A[b.g] |> unwrap_or(b)) |> unwrap_or(a)",
    ];
    if depth == 0 {
        return pick(rng, &lambdas).into();
    }
    let d = depth - 1;
    match rng.below(5) {
        0 => format!(
            "(if x > 0 {{ {} }} else {{ {} }})",
            function(rng, d),
            function(rng, d)
        ),
        1 => format!(
            "([{}, {}] |> first() |> unwrap_or({}))",
            function(rng, d),
            function(rng, d),
            function(rng, d)
        ),
        2 => format!("({{ f: {}, k: 1 }}.f)", function(rng, d)),
        3 => format!("(a => apply(a, {}))", function(rng, d)),
        _ => pick(rng, &lambdas).into(),
    }
}
