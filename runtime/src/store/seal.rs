//! Entry seals: a stored value followed by its link and the CRC-32 of its key, value and link, made and opened from a tree's seed alone.
//!
//! [`super::checked::Checked`] seals every entry it writes and opens every
//! one it reads with these; a [`TreeSeal`] holds one tree's seed by value
//! for the writes a store below makes later (`WriteTxn::write_from`).

use super::chain;
use super::checked::{hex, SEAL_LEN};
use crate::error::{Result, RuntimeError};

/// E0591's error for an entry of `tree` at `key` whose seal fails `how`.
pub(super) fn damaged_entry(tree: &str, key: &[u8], how: &str) -> RuntimeError {
    RuntimeError::damaged(format!(
        "the entry of tree `{tree}` at key {} {how}",
        hex(key)
    ))
}

/// `value` followed by `link` and the checksum of `key`, `value` and `link`.
pub(super) fn seal_with(seed: u32, key: &[u8], value: &[u8], link: u32) -> Vec<u8> {
    let mut sealed = Vec::with_capacity(value.len() + SEAL_LEN);
    sealed.extend_from_slice(value);
    sealed.extend_from_slice(&link.to_le_bytes());
    let sum = checksum(seed, key, &sealed);
    sealed.extend_from_slice(&sum.to_le_bytes());
    sealed
}

/// The value inside a sealed entry and its link, or how the seal fails.
pub(super) fn open_with<'v>(
    seed: u32,
    key: &[u8],
    stored: &'v [u8],
) -> std::result::Result<(&'v [u8], u32), &'static str> {
    let Some(at) = stored.len().checked_sub(SEAL_LEN) else {
        return Err("is shorter than its seal");
    };
    let sum_at = at + 4;
    let expected = u32::from_le_bytes(stored[sum_at..].try_into().expect("four bytes"));
    if checksum(seed, key, &stored[..sum_at]) != expected {
        return Err("fails its checksum");
    }
    let link = u32::from_le_bytes(stored[at..sum_at].try_into().expect("four bytes"));
    Ok((&stored[..at], link))
}

/// One unchained tree's seal, held by value: a [`WriteTxn::write_from`]
/// handed to the store below runs its rebase there, possibly again at the
/// commit, after this layer's call has returned; it opens the key's value
/// and seals the writes with this.
pub(super) struct TreeSeal {
    pub seed: u32,
    pub name: String,
}

impl TreeSeal {
    pub fn seal(&self, key: &[u8], value: &[u8]) -> Vec<u8> {
        seal_with(self.seed, key, value, chain::START)
    }

    pub fn open(&self, key: &[u8], stored: &[u8]) -> Result<Vec<u8>> {
        open_with(self.seed, key, stored)
            .map(|(value, _)| value.to_vec())
            .map_err(|how| damaged_entry(&self.name, key, how))
    }
}

/// CRC-32, from the tree's seed, of the key's length, the key and the
/// value with its link: an entry whose bytes moved between key and value
/// fails too, and so does one read as another tree's.
fn checksum(seed: u32, key: &[u8], value: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new_with_initial(seed);
    hasher.update(&(key.len() as u32).to_le_bytes());
    hasher.update(key);
    hasher.update(value);
    hasher.finalize()
}
