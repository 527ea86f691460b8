//! Byte encodings of keys (order-preserving) and rows (compact).

pub mod key;
pub mod row;
