//! Live queries: a subscription gets a query's result, then an event for each commit that changes it (spec/live.md).
//!
//! A commit records the keys it wrote in a changelog inside its own
//! transaction ([`changelog`]); one watcher thread per open database reads
//! the changelog's new entries, matches their keys against an index of the
//! ranges each subscription's last evaluation read ([`index`]), evaluates
//! only the touched subscriptions again and queues what changed
//! ([`events`]).

pub mod changelog;
pub mod events;
mod hub;
pub mod index;
mod query;
pub mod ranges;
mod round;
mod subscribe;
mod wakeup;

pub(crate) use changelog::Logging;
pub use events::{apply, Event};
pub use hub::{Hub, LiveStats, POLL, POLL_RUNG};
pub use query::Recompile;
pub use ranges::{range_read, KeyRange, WriteSet};
pub use subscribe::{Resume, Subscription, WatchOptions};
