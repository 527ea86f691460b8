//! A process whose schema another process changed cannot write past the new rules, nor read by plans proved for the old ones: its runs expect the schema generation it opened (E0550).

use rqc_runtime::store::EtcdOptions;
use rqc_runtime::Engine;
use rqc_tests::accepted;

const V1: &str = "\
table Member {
  id: Int key
  nick: String <= 20
}
mutation add(id: Int, nick: String) = insert Member { id, nick }
query member(id: Int) = Member[id]
";

/// Two clients of one database on etcd: the second opened before the first
/// made `nick` unique. Its insert of a taken nick is refused as stale, not
/// stored past the new index; opened again, it is refused as a duplicate.
#[test]
fn a_client_opened_before_a_new_unique_index_cannot_insert_a_duplicate() {
    let url = rqc_tests::etcd::fresh_url();
    let mut first = Engine::connect(&url, &EtcdOptions::default()).unwrap();
    first.install(accepted(V1)).unwrap();
    let second = Engine::connect(&url, &EtcdOptions::default()).unwrap();
    first.run("add", &[1.into(), "ann".into()]).unwrap();
    let v2 = V1.replace("nick: String <= 20", "nick: String <= 20 unique");
    first.install(accepted(&v2)).unwrap();

    let stale = second.run("add", &[2.into(), "ann".into()]).unwrap_err();
    assert_eq!(stale.code, "E0550", "{stale}");
    // Its kind says so: a handle opened again may run the request.
    assert!(stale.is_stale(), "{:?}", stale.kind());
    // Its reads are refused too: its plans were proved for the old schema
    // (compared in the run's first request, no round trip more).
    let stale = second.run("member", &[1.into()]).unwrap_err();
    assert_eq!(stale.code, "E0550", "{stale}");

    let reopened = Engine::connect(&url, &EtcdOptions::default()).unwrap();
    let duplicate = reopened.run("add", &[2.into(), "ann".into()]).unwrap_err();
    assert_eq!(duplicate.code, "E0502", "{duplicate}");
    reopened.run("add", &[2.into(), "bob".into()]).unwrap();
    // Installing the same program again changes no generation: the first
    // client, which installed it, still writes.
    first.install(accepted(&v2)).unwrap();
    first.run("add", &[3.into(), "cy".into()]).unwrap();
}
