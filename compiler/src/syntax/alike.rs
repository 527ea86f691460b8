//! Two expressions written alike (the same tree), and the names an expression reads that it does not bind: what a rewrite needs to tell one occurrence of an expression from another.

use super::ast::{Expr, ExprKind, Ident, Stmt};

impl Expr {
    /// Whether `self` and `other` are written the same, wherever they are: the
    /// same tree of the same names, operators and literals (a `Float` by its
    /// bits). A form no definition that cannot write holds is never the
    /// same. Not by their printed text, which need not tell every two trees
    /// apart.
    pub fn written_alike(&self, other: &Expr) -> bool {
        let (a, b) = (self, other);
        // A pipe into a call is the call with its input first (`n |>
        // lim()` is `lim(n)`): the same values, evaluated in the same order.
        if let (Some((f, xs)), Some((g, ys))) = (a.as_call(), b.as_call()) {
            return f.written_alike(g)
                && xs.len() == ys.len()
                && xs.iter().zip(&ys).all(|(x, y)| x.written_alike(y));
        }
        let all = |xs: &[Expr], ys: &[Expr]| {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| x.written_alike(y))
        };
        let named = |x: &Ident, y: &Ident| x.name == y.name;
        match (&a.kind, &b.kind) {
            (ExprKind::Int(x), ExprKind::Int(y)) => x == y,
            (ExprKind::Float(x), ExprKind::Float(y)) => x.to_bits() == y.to_bits(),
            (ExprKind::Str(x), ExprKind::Str(y)) => x == y,
            (ExprKind::Bool(x), ExprKind::Bool(y)) => x == y,
            (ExprKind::None, ExprKind::None) => true,
            (ExprKind::Name(x), ExprKind::Name(y)) => named(x, y),
            (ExprKind::Record(xs), ExprKind::Record(ys)) => {
                xs.len() == ys.len()
                    && xs.iter().zip(ys).all(|(x, y)| {
                        named(&x.name, &y.name)
                            && x.step == y.step
                            && x.value.written_alike(&y.value)
                    })
            }
            (ExprKind::List(xs), ExprKind::List(ys))
            | (ExprKind::Tuple(xs), ExprKind::Tuple(ys)) => all(xs, ys),
            (ExprKind::Field(x, f), ExprKind::Field(y, g)) => named(f, g) && x.written_alike(y),
            (ExprKind::Index(f, xs), ExprKind::Index(g, ys)) => f.written_alike(g) && all(xs, ys),
            (ExprKind::Pipe(x1, x2), ExprKind::Pipe(y1, y2))
            | (ExprKind::Range(x1, x2), ExprKind::Range(y1, y2)) => {
                x1.written_alike(y1) && x2.written_alike(y2)
            }
            (ExprKind::Binary(p, x1, x2), ExprKind::Binary(q, y1, y2)) => {
                p == q && x1.written_alike(y1) && x2.written_alike(y2)
            }
            (ExprKind::Unary(p, x), ExprKind::Unary(q, y)) => p == q && x.written_alike(y),
            (ExprKind::Lambda(ps, x), ExprKind::Lambda(qs, y)) => {
                ps.len() == qs.len()
                    && ps.iter().zip(qs).all(|(p, q)| named(p, q))
                    && x.written_alike(y)
            }
            (ExprKind::If(x1, x2, x3), ExprKind::If(y1, y2, y3)) => {
                x1.written_alike(y1) && x2.written_alike(y2) && x3.written_alike(y3)
            }
            (ExprKind::Block(xs, x), ExprKind::Block(ys, y)) => {
                xs.len() == ys.len()
                    && xs.iter().zip(ys).all(|pair| match pair {
                        (
                            Stmt::Let {
                                name: n,
                                ty: None,
                                value: v,
                            },
                            Stmt::Let {
                                name: m,
                                ty: None,
                                value: w,
                            },
                        ) => named(n, m) && v.written_alike(w),
                        (Stmt::Expr(v), Stmt::Expr(w)) => v.written_alike(w),
                        _ => false,
                    })
                    && x.written_alike(y)
            }
            _ => false,
        }
    }

    /// A call's callee and arguments, a pipe into a call's with its input
    /// first; `None` for any other expression.
    fn as_call(&self) -> Option<(&Expr, Vec<&Expr>)> {
        match &self.kind {
            ExprKind::Call(callee, args) => Some((callee, args.iter().collect())),
            ExprKind::Pipe(input, stage) => match &stage.kind {
                ExprKind::Call(callee, args) => {
                    Some((callee, std::iter::once(&**input).chain(args).collect()))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// Every name `expr` reads that it does not bind itself.
    pub fn free_names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for ident in self.free_idents() {
            if !names.contains(&ident.name) {
                names.push(ident.name.clone());
            }
        }
        names
    }

    /// Every name `expr` reads that it does not bind itself, where it is read.
    pub fn free_idents(&self) -> Vec<&Ident> {
        fn walk<'e>(expr: &'e Expr, bound: &mut Vec<&'e str>, found: &mut Vec<&'e Ident>) {
            match &expr.kind {
                ExprKind::Name(ident) => {
                    if !bound.contains(&ident.name.as_str()) {
                        found.push(ident);
                    }
                }
                ExprKind::Lambda(params, body) => {
                    let mark = bound.len();
                    bound.extend(params.iter().map(|p| p.name.as_str()));
                    walk(body, bound, found);
                    bound.truncate(mark);
                }
                ExprKind::Block(stmts, result) => {
                    let mark = bound.len();
                    for stmt in stmts {
                        match stmt {
                            Stmt::Let { name, value, .. } => {
                                walk(value, bound, found);
                                bound.push(name.name.as_str());
                            }
                            Stmt::Expr(e) => walk(e, bound, found),
                        }
                    }
                    walk(result, bound, found);
                    bound.truncate(mark);
                }
                _ => {
                    for child in expr.children() {
                        walk(child, bound, found);
                    }
                }
            }
        }
        let mut found = Vec::new();
        walk(self, &mut Vec::new(), &mut found);
        found
    }
}
