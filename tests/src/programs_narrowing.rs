//! The bound property's forms of what an `if` (and a `Bool` one chooses), `&&`, `||` (either part's join), `filter`, `all`, `any` (of an element or a part of one), a list's greatest or least or a lambda's application proves of the integers (and `Int?`s) it compares (spec/cost.md §3.1): each comparison, either side, under `!`, `&&`, `||`, through a `let`, of a field of a name, of sums of names, of lambdas' parameters and across runs of a lambda.

use super::{int, pick};
use crate::Rng;

/// One `Int` form narrowed by a comparison, of depth `d` at most.
pub(super) fn form(rng: &mut Rng, d: u32) -> String {
    let v = pick(rng, &["x", "n", "m", "p"]);
    let op = pick(rng, &["<", "<=", ">", ">=", "==", "!="]);
    let (a, b) = (int(rng, d), int(rng, d));
    // A side that is a sum of names and literals
    // (`rqc_cost::SideSum`), a term narrowed by a later
    // comparison.
    let k = pick(
        rng,
        &["3", "(0 - 2)", "9223372036854775807", "m", "p", "x", "n"],
    );
    let w = pick(rng, &["x", "n", "m", "p"]);
    match rng.below(37) {
        // A call the condition makes and the `if` makes again, computed
        // once (`repeated_calls.rs`), where the condition always makes it
        // and where it may not (the right of `&&`: not shared); a function
        // applied through a call that gives it the arguments only
        // (`applied_through_call`); a function parameter's declared result
        // length (`declared_maxima.rs`).
        36 => match rng.below(5) {
            0 => format!("(if scaled({v}) {op} {a} {{ scaled({v}) }} else {{ {b} }})"),
            1 => format!("(if scaled({v}) {op} {a} && {w} {op} {b} {{ scaled({v}) - {w} }} else {{ {k} }})"),
            2 => format!("(if {w} {op} {b} && scaled({v}) {op} {a} {{ scaled({v}) }} else {{ {b} }})"),
            3 => format!("via_apply(e => e + {a}, {v})"),
            _ => format!("(firsts(e => [e, {a}], {v}) |> map(e => e - {w}) |> sum())"),
        },
        // A `Bool` an `if` chooses (`Condition::chosen`): bound by `let`,
        // written in place, negated, nested, and a `Bool` function whose
        // body is one, given names, sums and literals.
        35 => match rng.below(6) {
            0 => format!("{{ let ok = if {w} {op} {k} {{ {v} {op} {a} }} else {{ {v} {op} {b} }}; if ok {{ {v} - {w} }} else {{ {b} }} }}"),
            1 => format!("(if (if {w} {op} {k} {{ {v} {op} {a} }} else {{ {v} - {w} {op} {b} }}) {{ {v} }} else {{ {b} }})"),
            2 => format!("(if !(if {w} {op} {k} {{ {v} {op} {a} }} else {{ {v} {op} {b} }}) {{ {v} + {w} }} else {{ {b} }})"),
            3 => format!("(if (if {w} {op} {k} {{ if {v} {op} {a} {{ {w} {op} {b} }} else {{ false }} }} else {{ {v} {op} {b} }}) {{ {v} }} else {{ {w} }})"),
            4 => {
                let c = pick(rng, &["true", "false", "x > 3", "(n % 2) == 0"]);
                format!("(if chosen_le({c}, {v}, {a}, {b}) {{ {v} }} else {{ {b} }})")
            }
            _ => format!("(if !chosen_apart({v}, {w}, {a}) {{ {b} }} else {{ {v} - {k} }})"),
        },
        // What a comparison of an `Int?` with an `Int` proves of the
        // option's number (`rqc_cost::Condition::MayBeNone`), and nothing of the
        // other side, which a `none` stands below: of a name, each of a
        // list's `Int?`s kept by `filter` or proved by `all`, and a row's
        // `Int?` column.
        34 => {
            let option = |of: &str| format!("if {w} > {k} {{ {of} }} else {{ none }}");
            let o = option(v);
            let e = option("e");
            let options = format!("[{v}, {a}] |> map(e => {{ let o: Int? = {e}; o }})");
            match rng.below(10) {
                // An option another comparison of the condition shows
                // holds a number, read with the other side.
                9 => format!("{{ let o: Int? = {o}; if o {op} {k} && {w} {op} o {{ {w} - {b} }} else {{ {b} - {w} }} }}"),
                // The other side read where the option stood at or above
                // it (no `none` does), in either branch, alone or in a sum.
                7 => format!("{{ let o: Int? = {o}; if {w} {op} o {{ {w} + {b} }} else {{ {a} - {w} }} }}"),
                8 => format!("{{ let o: Int? = {o}; if {w} - {a} {op} o {{ {w} - {a} }} else {{ {a} - {w} + {b} }} }}"),
                // The other side narrowed by an inner `if`, read with it.
                6 => format!("{{ let o: Int? = {o}; if o {op} {w} {{ if {w} {op} {a} {{ o |> unwrap_or({b}) }} else {{ {b} }} }} else {{ {b} }} }}"),
                0 => format!("{{ let o: Int? = {o}; if o {op} {a} {{ o |> unwrap_or({b}) }} else {{ {b} }} }}"),
                1 => format!("{{ let o: Int? = {o}; if {a} {op} o {{ {b} }} else {{ o |> unwrap_or(0) }} }}"),
                2 => format!("{{ let o: Int? = {o}; if o {op} {w} {{ {w} - {b} }} else {{ {b} }} }}"),
                3 => format!("({options} |> filter(o => o {op} {b}) |> map(o => (o |> unwrap_or(0)) - {w}) |> sum())"),
                4 => format!("{{ let l = {options}; if all(l, o => o {op} {b}) {{ l |> map(o => unwrap_or(o, 0) - {w}) |> sum() }} else {{ {b} }} }}"),
                _ => format!("(K.by_v[{v}] |> take(2) |> filter(r => r.t {op} {a}) |> map(r => A.by_g[x] |> take(r.t |> unwrap_or(0)) |> count()) |> sum())"),
            }
        }
        // What `filter`, `all` or `any` proves of a part of each element
        // (a row's column, a record's field, a string field's length), and
        // what an access proves of the rows it reads.
        33 => match rng.below(6) {
            // A row read by a range or a fixed value: its column there.
            4 => {
                let end = pick(rng, &["<", "<=", ">", ">="]);
                format!("(A.by_g[x, v {end} {a}] |> take(3) |> map(r => A.by_g[x] |> take(r.v) |> count()) |> sum())")
            }
            5 => format!("(B[{a}] |> map(b => A.by_g[x] |> take(b.a - {w}) |> count()) |> sum())"),
            0 => format!("(B[x] |> filter(b => b.w {op} {a}) |> map(b => A.by_g[b.n] |> take(b.w) |> count()) |> sum())"),
            1 => format!("{{ let bs = B[x]; if all(bs, b => b.w {op} {a} && b.n {op} {k}) {{ bs |> map(b => b.w - b.n + {w}) |> sum() }} else {{ {b} }} }}"),
            2 => format!("([{{n: {v}, s: \"ab\"}}, {{n: {a}, s: \"xyz\"}}] |> filter(r => r.n {op} {b} && length(r.s) <= 2) |> map(r => r.n - {w} + length(r.s)) |> sum())"),
            _ => format!("{{ let bs = B[x]; if any(bs, b => b.w {op} {a}) {{ {b} }} else {{ bs |> map(b => A.by_g[x] |> take(b.w) |> count()) |> sum() }} }}"),
        },
        // Either of two parts holding (`||` true, `&&` false): a name both
        // narrow lies in the join of what each proves, a name one
        // narrows in nothing proved.
        32 => match rng.below(10) {
            // A part its literals decide the other way (`Part::ruled_out`):
            // not the one where another can hold; where none can (a
            // branch no run takes), what each says, its own too.
            8 => format!("{{ let c = ({v} % 2) == 0; if c && (true || {w} {op} {a}) {{ {k} }} else if c {{ {w} - {b} }} else {{ {b} }} }}"),
            9 => format!("(if ({v} {op} {a} && false) || {w} {op} {b} {{ {w} - {v} }} else {{ {k} }})"),
            // A `Bool` name (`rqc_cost::Condition::flag`): where it held, a
            // part that needs it false cannot be the one; through an alias
            // and a test against a literal.
            5 => format!("{{ let c = ({v} % 2) == 0; if c && {w} {op} {a} {{ {b} }} else if c {{ {w} - {b} }} else {{ {k} }} }}"),
            6 => format!("{{ let c = {v} {op} {k}; let d = c; if {w} {op} {a} && !d {{ {b} }} else if !c {{ {w} + {b} }} else {{ {k} }} }}"),
            7 => format!("{{ let c = ({v} % 3) == 1; if c == false || {w} {op} {a} {{ if c != true {{ {b} }} else {{ {w} - {b} }} }} else {{ {k} }} }}"),
            0 => format!("(if {v} {op} {a} || {v} {op} {b} {{ {v} }} else {{ {b} }})"),
            1 => format!("(if !({v} {op} {a} && {v} {op} {k}) {{ {v} - {w} }} else {{ {b} }})"),
            2 => format!("(if ({v} >= {a} && {v} <= {b}) || ({v} >= {k} && {v} <= {a}) {{ {v} - {w} }} else {{ 0 }})"),
            3 => format!("{{ let l = [{v}, {a}]; if all(l, e => e {op} {b}) || all(l, e => e {op} {k}) {{ l |> map(e => e - {w}) |> sum() }} else {{ {b} }} }}"),
            _ => format!("(if {v} {op} {a} || {w} {op} {b} {{ {v} + {w} }} else {{ {k} }})"),
        },
        // A `Bool` function testing a list's elements or its greatest or
        // least, given the list or an alias of it (`let`, a lambda's
        // parameter, a name bound again after): the list, the alias and
        // what it names narrowed where it holds; and a greatest whose
        // default is no literal, which narrows the elements only.
        31 => match rng.below(7) {
            0 => format!("{{ let l = [{v}, {a}]; let m2 = l; if small_all(m2) {{ (l |> map(e => e - {w}) |> sum()) + (m2 |> map(e => e + 1) |> sum()) }} else {{ {b} }} }}"),
            1 => format!("{{ let l = [{v}, {a}] |> filter(e => e > {k}); if top_le(l) {{ (l |> max() |> unwrap_or(0)) + (l |> map(e => e - {w}) |> sum()) }} else {{ {b} }} }}"),
            2 => format!("{{ let l = [{v}, {a}]; if any_big(l) {{ {b} }} else {{ l |> map(e => e + {w}) |> sum() }} }}"),
            3 => format!("{{ let l = [{v}, {a}]; let f = ys => if small_all(ys) {{ ys |> map(e => e - {w}) |> sum() }} else {{ {b} }}; f(l) + f([{w}]) }}"),
            4 => format!("{{ let l = [{v}, {a}] |> filter(e => e != {k}); if unwrap_or(max(l), {w}) {op} {b} {{ (l |> map(e => e - {w}) |> sum()) + unwrap_or(max(l), {w}) }} else {{ {b} }} }}"),
            5 => format!("{{ let l = [{v}, {a}]; let m2 = l; let l = [{w}, {b}]; if small_all(m2) {{ l |> map(e => e - {w}) |> sum() }} else {{ {b} }} }}"),
            _ => format!("{{ let l = [{v}, {a}] |> filter(e => e != {k}); if low_all(l) && top_or(l, {w}) {{ l |> map(e => 4 - e) |> sum() }} else {{ {b} }} }}"),
        },
        // `all` or `any` over a list bound by `let`: its elements narrowed
        // where `all` holds (`any` fails), never another name its
        // predicate compares, nor anything where `all` fails.
        30 => match rng.below(8) {
            // Of a list that may be empty, two defaults are two values.
            7 => format!("{{ let l = [{v}, {a}] |> filter(e => e > {k}); if (l |> max() |> unwrap_or(0)) {op} {b} {{ (l |> max() |> unwrap_or(9)) - (l |> max() |> unwrap_or(0)) + (l |> map(e => e - {w}) |> sum()) }} else {{ {b} }} }}"),
            // A list's greatest or least compared alone, or in a sum.
            5 => format!("{{ let l = [{v}, {a}]; if (l |> max() |> unwrap_or({b})) {op} {k} {{ l |> map(e => e - {w}) |> sum() }} else {{ {b} }} }}"),
            6 => format!("{{ let l = [{v}, {a}]; if unwrap_or(min(l), {w}) {op} {k} {{ {w} + (l |> map(e => e + 1) |> sum()) }} else {{ (l |> min() |> unwrap_or(0)) + 1 }} }}"),
            0 => format!("{{ let l = [{v}, {a}]; if l |> all(e => e {op} {b}) {{ l |> map(e => e - {w}) |> sum() }} else {{ {b} }} }}"),
            1 => format!("{{ let l = [{v}, {a}]; if l |> any(e => e {op} {b}) {{ {b} }} else {{ l |> map(e => e + 1) |> sum() }} }}"),
            2 => format!("{{ let l = [{v}]; if l |> all(e => {w} {op} e) {{ {w} }} else {{ {b} }} }}"),
            3 => format!("{{ let l = [{v}, {a}]; if !(l |> all(e => e {op} {b})) {{ l |> map(e => e + 1) |> sum() }} else {{ {b} }} }}"),
            _ => format!("{{ let l = [{v}, {a}] |> filter(e => e != {k}); if all(l, e => e {op} {b} && e - {w} {op} {a}) {{ l |> map(e => e - {w}) |> sum() }} else {{ {b} }} }}"),
        },
        // A predicate a function made (`returned_guards.rs`), applied in a
        // condition or given to `filter`, capturing a constant or a value
        // known by its range only; and a returned function given one.
        29 => match rng.below(6) {
            0 => format!("(if le({a})({v}) {{ {v} }} else {{ {b} }})"),
            1 => format!("(if !le({k})({v} - {w}) {{ {b} }} else {{ {v} }})"),
            2 => format!("([{v}, {a}] |> filter(le({b})) |> map(e => e + 1) |> sum())"),
            3 => format!("pass_fn(twice_of())(z => if le({a})(z + {v}) {{ {v} }} else {{ {b} }})"),
            4 => format!("twice_of()(reads_by({v}))"),
            _ => format!("twice_of()(z => if le({a})(z + {v}) {{ {v} }} else {{ {b} }})"),
        },
        // A name both sides add or subtract (or one adds and the other
        // subtracts, which does not cancel), or one bound again inside a
        // side: taken from both where it is the same binding.
        28 => match rng.below(5) {
            0 => format!("(if {v} + {w} {op} {a} + {w} {{ {v} }} else {{ {b} }})"),
            1 => format!("(if {v} - {w} {op} {k} - {w} {{ {v} }} else {{ {b} }})"),
            2 => format!("(if {v} + {w} {op} {{ let {w} = {a}; {k} + {w} }} {{ {v} }} else {{ {b} }})"),
            // A value times a literal: that many terms (`rqc_cost::scaled`).
            3 => {
                let c = pick(rng, &["2", "3", "-2", "8", "9", "0", "-9223372036854775807"]);
                format!("(if {c} * {v} {op} {a} {{ {v} }} else {{ {b} }})")
            }
            _ => format!("(if {v} + 2 * {w} {op} {a} + {w} * 2 {{ {v} - {w} * 3 }} else {{ {b} }})"),
        },
        // A function whose count is a sum of its parameters, called where
        // a fact bounds the sum its arguments are (or passed on by another).
        27 => {
            let f = pick(rng, &["diff_reads", "diff_reads_on"]);
            format!("(if {v} - {w} {op} {a} {{ {f}(x, {v}, {w}) }} else {{ 0 }})")
        }
        // A `Bool` function's call as a condition: what its body proves
        // of its parameters, read with the arguments' sums.
        26 => match rng.below(3) {
            0 => format!("(if in_range({v}, {a}, {b}) {{ {v} }} else {{ {b} }})"),
            1 => format!("(if !in_range({v} - {k}, {a}, {b}) {{ {b} }} else {{ {v} }})"),
            _ => format!("(if near({v}, {w}) && {w} {op} {a} {{ {v} - {w} }} else {{ 0 }})"),
        },
        // A maker written before a `map`, given its element: the lambda
        // it makes keeps the element's sum, narrowed where it is applied
        // in that run; made in one `map` and applied in another, nothing.
        25 => match rng.below(2) {
            0 => format!("{{ let mk = y => (s => y + s); [{v}, {a}] |> map(z => {{ let g = mk(z - {k}); if z {op} {b} {{ g(0) }} else {{ 0 }} }}) |> sum() }}"),
            _ => format!("{{ let mk = y => (s => y + s); let gs = [{v}, {a}] |> map(z => mk(z)); [{v}, {a}] |> map(z => if z {op} {b} {{ gs |> map(g => g(0)) |> sum() }} else {{ 0 }}) |> sum() }}"),
        },
        // A filter's predicate whose block binds a name: a sum of the
        // parameter (its own name again, or another), or a value that
        // is not the parameter under its name.
        24 => match rng.below(3) {
            0 => format!("([{v}, {a}] |> filter(e => {{ let e = e - {k}; e {op} {b} }}) |> map(e => e + 1) |> sum())"),
            1 => format!("([{v}, {a}] |> filter(e => {{ let d = e + {k}; d {op} {b} }}) |> map(e => e + 1) |> sum())"),
            _ => format!("([{v}, {a}] |> filter(e => {{ let e = {w}; e {op} {b} }}) |> map(e => e + 1) |> sum())"),
        },
        // A condition written as a block whose `let` aliases a sum of
        // the names compared.
        23 => format!("(if {{ let q = {v} - {k}; q {op} {a} }} {{ {v} }} else {{ {b} }})"),
        // Lambdas made in one run of a `map`'s lambda applied to
        // those of another run: a fact tested in one says nothing
        // of the other's value under the same binding.
        22 => format!("{{ let l = [{v}, {a}] |> map(z => {{ t: f => if z {op} {b} {{ f(1) }} else {{ 0 }}, c: y => z - {k} }}); l |> map(r => l |> map(s => r.t(s.c)) |> sum()) |> sum() }}"),
        // A lambda's parameter compared, its argument a sum of the
        // names the lambda reads.
        21 => format!("{{ let g = z => if z {op} {a} {{ {v} }} else {{ {b} }}; g({v} - {k}) }}"),
        // A `let`-bound sum read after its names are narrowed, or
        // after the same sum is compared.
        20 => format!("{{ let d = {v} - {k}; if {v} {op} {k} + {a} {{ d }} else {{ {b} }} }}"),
        // What a `filter`'s predicate proves of the elements it
        // keeps.
        19 => format!("([{v}, {a}] |> filter(e => e {op} {b} && {w} >= e - {k}) |> map(e => e + 1) |> sum())"),
        // A lambda made in a branch, applied after it: the facts
        // where it was made hold in its body.
        18 => format!("{{ let f = z => {v} + z; let h = if {v} {op} {a} {{ y => f(y) }} else {{ y => {b} }}; h(0) }}"),
        // A read in the right side of `&&` or `||`, bounded by
        // what the left side proves where the right one runs.
        17 => {
            let join = pick(rng, &["&&", "||"]);
            format!("(if {v} {op} {a} {join} (A.by_g[x] |> take({v}) |> count()) > 0 {{ 1 }} else {{ 0 }})")
        }
        // A compared sum computed again in either branch, and
        // negated, moved by a literal or a name.
        16 => format!("(if ({v} - {w}) {op} {a} {{ ({w} - {v} + {k}) }} else {{ ({v} - {w}) }})"),
        // A lambda whose `if` reads the facts around each of its
        // applications, applied where they differ, and inside
        // another lambda's first check.
        14 => format!("{{ let f = z => if z == z {{ {v} }} else {{ 0 }}; if {v} {op} {a} {{ f(1) }} else {{ f(1) }} }}"),
        15 => format!("{{ let f = z => if {v} <= z {{ {v} }} else {{ {b} }}; let g = y => if y > 0 {{ f({a}) }} else {{ 0 }}; f({a}) }}"),
        13 => format!("{{ let d = {v} - {k}; if d {op} {a} {{ {v} }} else {{ {b} }} }}"),
        11 => format!("(if ({k} + {v}) {op} {a} {{ {v} }} else {{ {b} }})"),
        12 => format!("(if ({v} - ({w} + {k})) <= {a} && {w} <= {b} {{ {v} }} else {{ 0 }})"),
        8 => format!("(if ({v} - {k}) {op} {a} {{ {v} }} else {{ {b} }})"),
        9 => format!("(if ({k} - {v}) {op} {a} {{ {b} }} else {{ {v} }})"),
        10 => format!("(if (-{v} + {k}) {op} {a} {{ {v} }} else {{ {b} }})"),
        6 => format!("{{ let r = {{ v: {v}, w: {a} }}; if r.v {op} {a} {{ r.v }} else {{ {b} }} }}"),
        7 => format!(
            "(C[{v}] |> map(c => if c.lim {op} {a} {{ c.lim }} else {{ {b} }}) |> unwrap_or({b}))"
        ),
        0 => format!("(if {v} {op} {a} {{ {v} }} else {{ {b} }})"),
        1 => format!("(if {a} {op} {v} {{ {b} }} else {{ {v} }})"),
        2 => format!("(if !({v} {op} {a}) {{ {v} }} else {{ {b} }})"),
        3 => format!("(if {v} >= {a} && {v} < {b} {{ {v} }} else {{ 0 }})"),
        4 => format!("(if {v} < {a} || {v} > {b} {{ 0 }} else {{ {v} }})"),
        _ => format!("{{ let c = {v} {op} {a}; if c {{ {v} }} else {{ {b} }} }}"),
    }
}
