//! The etcd backend's doorbell for live queries: an etcd watch on one key (the changelog's head), resumed from the last revision it saw when the stream breaks.
//!
//! The watch carries no data to the live watcher: each ring only makes it
//! look again, and the look reads the changelog at one revision. So
//! nothing is missed as long as every commit after a look rings after it:
//! the watch rings when it is (re)created, which the look that follows
//! covers, and a broken stream (a member killed, a leader change) is
//! watched again from the revision after the last event it delivered, so
//! etcd replays the commits of the gap. When that revision is compacted
//! away, etcd cancels the watch; it is made again from the current
//! revision and rings — the look then reads the changelog, which says what
//! changed, or that its entries were trimmed (then every subscription is
//! evaluated again: spec/live.md).

use crate::store::Bell;
use etcd_client::{Client, WatchOptions};
use std::sync::Arc;
use std::time::Duration;

/// How often a quiet watch checks that someone still listens.
const CHECK: Duration = Duration::from_millis(200);

/// How long to wait before watching again after a failure.
const RETRY: Duration = Duration::from_millis(100);

/// Rings `bell` for each revision that writes `key`, until no longer wanted.
pub(super) async fn ring(client: Client, key: Vec<u8>, bell: Arc<dyn Bell>) {
    // The revision to watch from: 0 (the current one) at first and after
    // a compaction, otherwise the one after the last seen.
    let mut from = 0i64;
    while bell.wanted() {
        let options = WatchOptions::new().with_start_revision(from);
        let mut stream = match client
            .watch_client()
            .watch(key.clone(), Some(options))
            .await
        {
            Ok(stream) => stream,
            Err(_) => {
                tokio::time::sleep(RETRY).await;
                continue;
            }
        };
        loop {
            let message = match tokio::time::timeout(CHECK, stream.message()).await {
                Err(_) if bell.wanted() => continue,
                Err(_) => return,
                Ok(message) => message,
            };
            let response = match message {
                Ok(Some(response)) => response,
                // The stream broke: watch again from `from`.
                Ok(None) | Err(_) => {
                    tokio::time::sleep(RETRY).await;
                    break;
                }
            };
            if response.compact_revision() > 0 || response.canceled() {
                from = 0;
                bell.ring();
                // Not at once: a watch refused for another reason would
                // otherwise be asked again in a tight loop.
                tokio::time::sleep(RETRY).await;
                break;
            }
            if response.created() {
                if from == 0 {
                    from = response.header().map_or(0, |h| h.revision() + 1);
                }
                bell.ring();
            }
            let mut written = false;
            for event in response.events() {
                if let Some(kv) = event.kv() {
                    from = from.max(kv.mod_revision() + 1);
                    written = true;
                }
            }
            if written {
                bell.ring();
            }
        }
    }
}
