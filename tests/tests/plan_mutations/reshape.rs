//! Edits of an operator's place rather than its fields: its claimed bound gone, lowered, raised or huge; the operator replaced by a child, by nothing, by `none`, by itself twice, wrapped in an identity or a self-application, its id changed; and the lists of names and operands the field edits draw from.

use crate::nodes::{node, Edit};
use rqc_plan::{Bound, Combinator, Node, Op, Value};

/// Claims changed: gone, each measure lowered, raised (a looser claim
/// that still holds: sound), made huge.
pub fn claims(n: &Node) -> Vec<Edit> {
    let mut out = Vec::new();
    let Some(bound) = n.bound else {
        return out;
    };
    let mut claim = |what: String, bound: Option<Bound>, sound: bool| {
        out.push(Edit {
            what,
            node: Node { bound, ..n.clone() },
            renumber: false,
            sound,
        })
    };
    claim("claim removed".into(), None, false);
    for measure in 0..3 {
        let set = |f: &dyn Fn(u64) -> u64| {
            let mut b = bound;
            let m = measure_of(&mut b, measure);
            *m = f(*m);
            Some(b)
        };
        claim(
            format!("claim {measure} lowered"),
            set(&|x| x.saturating_sub(1)),
            false,
        );
        claim(format!("claim {measure} raised"), set(&|x| x + 1), true);
        claim(format!("claim {measure} huge"), set(&|_| u64::MAX), false);
    }
    out
}

/// The operator's place in the tree changed: replaced by each child, by
/// nothing, by `none`, by itself twice, wrapped in an identity or a
/// self-application; its id changed.
pub fn shapes(n: &Node) -> Vec<Edit> {
    let mut out = Vec::new();
    let mut tree = |what: &str, node: Node, renumber: bool| {
        out.push(Edit {
            what: what.into(),
            node,
            renumber,
            sound: false,
        })
    };
    for (i, child) in n.children().into_iter().enumerate() {
        tree(&format!("replaced by child {i}"), child.clone(), true);
    }
    tree("replaced by unreachable", node(Op::Unreachable), true);
    tree("replaced by none", node(Op::Const(Value::Null)), true);
    tree(
        "itself twice",
        node(Op::Seq(vec![n.clone(), n.clone()])),
        true,
    );
    let identity = node(Op::Lambda(
        vec!["v".into()],
        Box::new(node(Op::Var("v".into()))),
    ));
    tree(
        "wrapped in an identity",
        node(Op::Apply(Box::new(identity), vec![n.clone()])),
        true,
    );
    let omega = || {
        let apply = Op::Apply(
            Box::new(node(Op::Var("f".into()))),
            vec![node(Op::Var("f".into()))],
        );
        node(Op::Lambda(vec!["f".into()], Box::new(node(apply))))
    };
    tree(
        "a self-application",
        node(Op::Seq(vec![
            node(Op::Apply(Box::new(omega()), vec![omega()])),
            n.clone(),
        ])),
        true,
    );
    tree(
        "id + 1",
        Node {
            id: n.id + 1,
            ..n.clone()
        },
        false,
    );
    tree(
        "id huge",
        Node {
            id: u32::MAX,
            ..n.clone()
        },
        false,
    );
    out
}

pub const COMBINATORS: [Combinator; 21] = [
    Combinator::Map,
    Combinator::Filter,
    Combinator::FlatMap,
    Combinator::Flatten,
    Combinator::SortBy { descending: true },
    Combinator::GroupBy,
    Combinator::Distinct,
    Combinator::Count,
    Combinator::Sum,
    Combinator::SumFloat,
    Combinator::Avg,
    Combinator::Min,
    Combinator::Max,
    Combinator::Any,
    Combinator::All,
    Combinator::Take,
    Combinator::Skip,
    Combinator::First,
    Combinator::Exists,
    Combinator::UnwrapOr,
    Combinator::Reverse,
];

/// Other names for one: the others known, an unknown one, one with NUL.
pub fn names(known: &[String], name: &str) -> Vec<String> {
    known
        .iter()
        .filter(|k| *k != name)
        .cloned()
        .chain(["Nope".to_string(), format!("{name}\0"), String::new()])
        .collect()
}

/// A list of operands changed: its last dropped, its first twice, emptied.
pub fn vectors(items: &[Node]) -> Vec<(&'static str, Vec<Node>)> {
    let mut out = vec![("emptied", Vec::new())];
    if let Some(first) = items.first() {
        out.push((
            "first twice",
            [items.to_vec(), vec![first.clone()]].concat(),
        ));
        out.push(("last dropped", items[..items.len() - 1].to_vec()));
    } else {
        out.push(("one more", vec![node(Op::Const(Value::Int(1)))]));
    }
    out
}

/// Measure `measure` (seeks, rows, round trips) of a bound.
pub fn measure_of(bound: &mut Bound, measure: usize) -> &mut u64 {
    match measure {
        0 => &mut bound.seeks,
        1 => &mut bound.rows,
        _ => &mut bound.round_trips,
    }
}
