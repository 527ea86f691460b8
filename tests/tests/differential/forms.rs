//! The differential test's fixed case: every query and write form, with and without `B.a` cascading, on every backend and etcd (a guard against a generator that silently produces only trivial cases).

use super::writes::Write;
use super::{identity, run_case, Case, Compared, Limit, On, Query, Shape, Tail};
use rqc_runtime::Backend;

/// The generator reaches every query and write form (a guard against a
/// generator that silently produces only trivial cases).
#[test]
fn every_query_form_is_generated_and_accepted() {
    for backend in Backend::ALL {
        every_query_form_on(On::Disk(backend));
    }
    every_query_form_on(On::Etcd);
}

fn every_query_form_on(backend: On) {
    let shape = Shape {
        columns: 2,
        first: 0,
        second: Some(1),
        second_desc: true,
        bound: 3,
        cascade: false,
    };
    let case = Case {
        backend,
        shape,
        a_rows: vec![vec![1, 2], vec![1, 0], vec![1, 2], vec![0, 3]],
        b_rows: vec![(1, 5), (1, 7), (1, 7), (1, 9), (3, 2), (9, 1)],
        // Every write form, with rows named twice, missing keys and stale rows.
        writes: vec![
            Write::DropB(1, vec![2, 2, 6]),
            Write::ReweighB(1, vec![1, 1, 3, 5], 8),
            Write::ReweighB(1, vec![3], 4),
            Write::PruneB(1, 5),
            Write::PruneB(3, 5),
            // `D` rows naming `A` rows: two fill the group of 1 (bound 2),
            // a third is refused (E0504), as a taken key (E0501) and a
            // missing `A` row (E0503) are; the deletes below set those of
            // a deleted `A` row to `none`.
            Write::AddD(1, 1),
            Write::AddD(2, 1),
            Write::AddD(3, 1),
            Write::AddD(1, 2),
            Write::AddD(4, 30),
            Write::AddD(5, 2),
            Write::DropA(vec![1, 1]),
            Write::DropA(vec![2, 2, 30]),
            Write::MoveA(vec![3, 3, 4], 2),
            Write::RestampA(4, 3, 1),
            // A delete then an insert of a row that is there, of one that
            // is not, and into a group whose `A` row does not exist.
            Write::RecycleB(3, 1, 6),
            Write::RecycleB(3, 2, 4),
            Write::RecycleB(30, 1, 1),
            // Steps of rows listed twice and of keys gone; an island
            // computed row by row from each row.
            Write::BumpB(1, vec![1, 1, 4, 6], 3),
            Write::ScaleB(1, 2),
            // Upserts over an existing key, a new one that fills its group
            // (bound 3), two more refused there (E0504) while the update of
            // a row in it is not, a missing `A` row (E0503), and twice.
            Write::PutB(1, 3, 11),
            Write::PutB(1, 5, 2),
            Write::PutB(1, 6, 3),
            Write::PutB(1, 0, 4),
            Write::PutB(1, 5, 9),
            Write::PutB(30, 1, 1),
            Write::PutBTwice(3, 5, 1, 2),
            Write::PutA(4, 1),
            Write::PutA(40, 2),
            Write::StepA(vec![3, 3, 40, 41], 1),
        ],
        transactions: vec![
            // An upsert's insert path, a step of the new row listed twice,
            // an insert into its group (its reference made by the call
            // before), a step of that: committed together.
            vec![
                Write::PutA(50, 1),
                Write::StepA(vec![50, 50], 2),
                Write::PutB(50, 1, 3),
                Write::BumpB(50, vec![1, 1], 1),
            ],
            // Refused at its third call (no `A[61]`: E0503): the two
            // before it are taken back with it.
            vec![
                Write::PutA(60, 1),
                Write::PutB(60, 1, 2),
                Write::PutB(61, 1, 1),
                Write::StepA(vec![60], 1),
            ],
            // A delete of a referenced row, allowed by the delete of its
            // reference before it in the same transaction.
            vec![Write::DropB(50, vec![1, 1]), Write::DropA(vec![50, 60])],
        ],
        queries: vec![
            (Query::Key, 2, 0),
            (Query::Prefix(2), 1, 0),
            (Query::Page(1, 2), 1, 0),
            (Query::Page(-1, 2), 1, 0),
            (Query::Range(">=", 2), 1, 1),
            // Reverse reads: the index from its high end (rows 1 and 3 tie
            // on both columns), at an offset, a range, the key backwards.
            (Query::Reverse(0, 3), 1, 0),
            (Query::Reverse(1, 2), 1, 0),
            (Query::Reverse(-2, 9), 1, 0),
            (Query::ReverseRange(">=", 2), 1, 1),
            (Query::ReverseRange("<", 5), 1, 2),
            (Query::Newest(3), 0, 0),
            (Query::Island(true, Tail::TopByWeight(2)), 1, 5),
            (Query::Island(false, Tail::Sum), 1, 0),
            (Query::Island(false, Tail::Count), 1, 0),
            (Query::Join(3, false), 1, 0),
            (Query::Join(3, true), 1, 0),
            (Query::Aggregate("b_count"), 3, 0),
            (Query::Aggregate("b_weight"), 3, 1),
            (Query::Aggregate("a_count"), 3, 0),
            (Query::Aggregate("a_total"), 1, -2),
            (Query::Aggregate("b_max"), 1, 0),
            (Query::Aggregate("b_max"), 7, 0),
            (Query::Aggregate("a_least"), 1, 0),
            (Query::Aggregate("a_least"), 0, 1),
            // Whole-table aggregates, after every write form above.
            (Query::Aggregate("a_all"), 0, 0),
            (Query::Aggregate("b_all"), 0, -1),
            // Limits only the rules over value ranges bound: `y` above,
            // below and inside `t`, negative, and a skip by a product.
            (Query::Computed(Limit::Narrowed, 2), 1, 7),
            (Query::Computed(Limit::Narrowed, 2), 1, -1),
            (Query::Computed(Limit::NarrowedElse, 3), 1, 2),
            (Query::Computed(Limit::NarrowedElse, 3), 1, 9),
            (Query::Computed(Limit::Modulo, 3), 1, 5),
            (Query::Computed(Limit::Modulo, -4), 1, -7),
            (Query::Computed(Limit::Least, 2), 1, 9),
            (Query::Computed(Limit::SkipProduct, 2), 1, 1),
            (Query::Computed(Limit::SkipProduct, 2), 1, -2),
        ],
        identity: identity::every_form(),
    };
    let compared = Compared {
        queries: 35,
        writes_committed: 22,
        writes_refused: 8,
        transactions_committed: 2,
        transactions_refused: 1,
        identity_committed: 10,
    };
    assert_eq!(run_case(&case).unwrap(), compared);
    // `B.a` cascading: the delete of `A[1]` (refused above, E0506) commits
    // and takes its `B` rows with it; the steps of them after find them
    // gone (committed, nothing changed), and the five upserts into the
    // group of 1 (three committed above) are refused (E0503): 22 + 1 - 3
    // committed, 8 - 1 + 3 refused.
    let cascading = Case {
        shape: Shape {
            cascade: true,
            ..case.shape.clone()
        },
        ..case.clone()
    };
    let cascaded = Compared {
        writes_committed: 20,
        writes_refused: 10,
        ..compared
    };
    assert_eq!(run_case(&cascading).unwrap(), cascaded);
    // Tuple ranges need both index columns ascending.
    let tuples = Case {
        shape: Shape {
            second_desc: false,
            ..case.shape.clone()
        },
        queries: ["<", "<=", ">", ">="]
            .into_iter()
            .map(|op| (Query::Tuple(op, 3), 1, 2))
            .collect(),
        ..case
    };
    let compared = Compared {
        queries: 4,
        ..compared
    };
    assert_eq!(run_case(&tuples).unwrap(), compared);
}
