//! The schema and helper functions every program the bound property generates starts with.

/// The schema and helpers every generated program starts with. `A` is a
/// large table (its `by_g` groups are unbounded), `B` an island of at most
/// 4 rows per `a`, `C` holds values (`lim`) nothing bounds, `S` a small
/// table, `W` String keys (for `starts_with` ranges), `F` an island keyed by
/// a `Float` (its groups written and read through both zeros: `-0.0` is
/// `0.0`, spec/types.md), `K` generated keys (its columns defaulted), `P` rows whose deletes
/// cascade to their `Q` rows (at most 3 each) and theirs in `Z` (at most 2
/// each) and set their `R` rows' `p` to `none` (at most 2 each); the
/// aggregates count and sum groups of each
/// (`lims` sums extreme values, so some inserts are refused, E0526).
pub const PRELUDE: &str = "\
table A {
  id: Int key
  g: Int
  v: Int
  index by_g (g, v desc)
  index by_gv (g desc, v desc, id desc)
}
table B {
  a: Int
  n: Int
  w: Int
  key (a, n)
  bound a <= 4
}
table C {
  id: Int key
  lim: Int
}
small table S max 5 {
  id: Int key
  k: Int
}
table W {
  s: String <= 4 key
  k: Int
  index by_k (k, s desc)
}
aggregate a_count = count(A) by g
aggregate a_sum = sum(A.v) by g
aggregate b_total = sum(B.w) by a
aggregate lims = sum(C.lim) by lim
aggregate top_v = max(A.v) by g
aggregate low_w = min(B.w) by a
table F {
  id: Int key
  x: Float
  index by_x (x)
  bound x <= 3
}
aggregate f_count = count(F) by x
table K {
  id: Int key auto
  v: Int = 7
  t: Int?
  index by_v (v)
}
table P {
  id: Int key
}
table Q {
  id: Int key
  p: Int ref P on delete cascade
  index by_p (p)
  bound p <= 3
}
table Z {
  q: Int ref Q on delete cascade
  n: Int
  key (q, n)
  bound q <= 2
}
table R {
  id: Int key
  p: Int? ref P on delete set none
  index by_p (p)
  bound p <= 2
}
aggregate z_count = count(Z) by q
aggregate q_ids = sum(Q.id) by p
fn apply(x: T, f: T -> U) = f(x)
fn id(x: T) = x
fn app_list(f: [T] -> U, xs: [T]) = f(xs)
fn twice(f: T -> T, x: T) = f(f(x))
fn clamp(k: Int >= 0 <= 6) = k
fn reads(k: Int >= 0 <= 3) -> Int -> Int = v => A.by_g[v] |> take(k) |> count()
fn either(c: Bool) -> Int -> Int = if c { v => v % 4 } else { v => A.by_g[v] |> take(2) |> count() }
fn pass_fn(f: T -> U) = f
fn reads_by(g: Int) -> Int -> Int = k => A.by_g[g] |> take(k) |> count()
fn skips_by(g: Int) -> Int -> Int = k => A.by_g[g] |> skip(k) |> take(2) |> count()
fn least_of(xs: [Int; <= 3]) = xs |> min() |> unwrap_or(0)
fn most_of(xs: [Int; <= 3]) = xs |> max() |> unwrap_or(0)
fn either_len(c: Bool, xs: [Int; <= 3], ys: [Int; <= 3]) = least_of(if c { ys } else { xs }) + ((if c { xs } else { ys }) |> count())
fn both(f: T -> T, g: T -> T, x: T) = g(f(x))
fn produced(p: U -> T, u: U, x: T) = p(u)
fn least_by(g: Int) -> Int -> Int -> Int = k => m => A.by_g[g] |> take(if k < m { k } else { m }) |> count()
fn rev_of(xs: [T]) -> [T] = xs |> reverse()
fn own_of(c: Bool, xs: [T], x: T) = if c { xs } else { [x] }
fn in_range(k: Int, a: Int, b: Int) -> Bool = k >= a && k <= b
fn near(a: Int, b: Int) = { let d = a - b; d <= 3 && d >= 0 - 3 }
fn chosen_le(c: Bool, k: Int, a: Int, b: Int) -> Bool = if c { k <= a } else { k <= b }
fn chosen_apart(k: Int, j: Int, a: Int) -> Bool = if j > a { k + j <= a } else { !(k > a) }
fn diff_reads(g: Int, a: Int, b: Int) = A.by_g[g] |> take(a - b) |> count()
fn diff_reads_on(g: Int, a: Int, b: Int) = diff_reads(g, a + 1, b)
fn le(k: Int) -> Int -> Bool = x => x <= k
fn twice_of() -> (Int -> Int) -> Int = f => f(1) + f(2)
fn small_all(xs: [Int]) -> Bool = all(xs, e => e <= 4)
fn any_big(xs: [Int]) -> Bool = any(xs, e => e > 4)
fn top_le(xs: [Int]) -> Bool = unwrap_or(max(xs), 0) <= 4
fn low_all(xs: [Int]) -> Bool = unwrap_or(min(xs), 0) >= 0
fn top_or(xs: [Int], d: Int) -> Bool = unwrap_or(max(xs), d) <= 4
fn scaled(k: Int) -> Int = k * 3 - 1
fn via_apply(f: Int -> Int, y: Int) -> Int = apply(y, f)
fn firsts(g: Int -> [Int; <= 2], k: Int) -> [Int; <= 2] = g(k)
mutation add_a(id: Int, g: Int, v: Int) = insert A { id, g, v }
mutation add_b(a: Int, n: Int, w: Int) = insert B { a, n, w }
mutation add_c(id: Int, lim: Int) = insert C { id, lim }
mutation add_s(id: Int, k: Int) = insert S { id, k }
mutation add_w(s: String, k: Int) = insert W { s, k }
mutation add_f(id: Int, x: Float) = insert F { id, x }
mutation neg_f(id: Int, x: Float) = update F[id] { x: -x }
mutation scale_f(id: Int, x: Float) = update F[id] { x: x * -1.0 }
mutation add_p(id: Int) = insert P { id }
mutation add_q(id: Int, p: Int) = insert Q { id, p }
mutation add_z(q: Int, n: Int) = insert Z { q, n }
mutation add_r(id: Int, p: Int) = insert R { id, p }
";
