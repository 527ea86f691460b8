//! The plain-data contract between compiler and runtime: schema, values and plans.
//!
//! The compiler produces a [`CompiledProgram`]; the runtime loads and runs it
//! without the compiler. Everything here is serde data with no behaviour
//! beyond lookups and one predicate both sides read (`batch`: which
//! function bodies the runtime batches), so a plan can be printed,
//! snapshotted, cached or shipped; beside it, the limit on a plan's depth
//! and the deep stack (`stack`) both sides recurse over plans on.

pub mod batch;
pub mod builtin;
pub mod by_name;
pub mod cascade;
pub mod identity;
pub mod near;
pub mod number;
pub mod plan;
pub mod schema;
pub mod stack;
pub mod value;
pub mod write_work;

pub use builtin::Builtin;
pub use identity::{canonical_float, compare, holds_minus_zero};
pub use plan::{
    BinOp, Bound, ColumnAt, Combinator, CompiledProgram, Entry, EntryKind, Node, NodeStats, Op,
    ParamSpec, ParamType, RangeEnd, Shape, UnOp,
};
pub use schema::{
    AggregateKind, AggregateSchema, Column, ColumnType, ExtremePath, IndexSchema, Literal,
    OnDelete, Schema, TableSchema,
};
pub use value::{Record, RecordShape, Value};

/// The deepest a plan may nest: the compiler plans no deeper (E0422), and
/// the runtime refuses a deeper program (E0517), so every pass over a plan
/// (running, encoding, printing it) meets at most this depth.
pub const MAX_PLAN_DEPTH: usize = 1000;

/// The longest name, in bytes (NFC), a program may give anything: the
/// lexer refuses a longer identifier (E0010), and the plan verifier a
/// longer name in a plan file (E0610).
pub const MAX_NAME_BYTES: usize = 255;

/// The round trips a mutation's commit makes, beside its run's reads: the
/// read of the live changelog's head, whose position the commit's entry
/// takes, and the commit itself (spec/cost.md §11). The checker adds them
/// to every mutation's bound; the runtime counts both where they are made.
pub const COMMIT_ROUND_TRIPS: u64 = 2;

/// Bumped whenever the serialized form of a [`CompiledProgram`] changes
/// incompatibly; loaders refuse other versions.
pub const FORMAT_VERSION: u32 = 9;
