//! Engines on etcd for the suites: one cluster per test thread, started on first use, a fresh prefix per engine.
//!
//! The cluster belongs to the thread that started it: it is dropped (its
//! members killed) when the thread ends, and its members die with that
//! thread should the process end first (see `etcd_cluster`).

use crate::etcd_cluster::EtcdCluster;
use rqc_runtime::store::EtcdOptions;
use rqc_runtime::Engine;
use std::sync::atomic::{AtomicU32, Ordering};

thread_local! {
    static CLUSTER: EtcdCluster = EtcdCluster::start(1);
}

/// The URL of a database no one has used, on this thread's cluster.
pub fn fresh_url() -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let prefix = format!("db{}", NEXT.fetch_add(1, Ordering::Relaxed));
    CLUSTER.with(|cluster| cluster.url(&prefix))
}

/// An engine on a new database on this thread's cluster.
pub fn engine() -> Engine {
    Engine::connect(&fresh_url(), &EtcdOptions::default()).expect("the test cluster answers")
}

/// A one-member cluster that takes requests of at most `bytes`
/// (`--max-request-bytes`).
pub fn cluster_taking(bytes: usize) -> EtcdCluster {
    EtcdCluster::start_with(
        1,
        crate::etcd_cluster::ClusterOptions {
            max_request_bytes: Some(bytes),
            ..Default::default()
        },
    )
}
