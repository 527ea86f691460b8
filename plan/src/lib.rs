//! The plain-data contract between compiler and runtime: schema, values and plans.
//!
//! The compiler produces a [`CompiledProgram`]; the runtime loads and runs it
//! without the compiler. Everything here is serde data with no behaviour
//! beyond lookups and one predicate both sides read (`batch`: which
//! function bodies the runtime batches), so a plan can be printed,
//! snapshotted, cached or shipped.

pub mod batch;
pub mod plan;
pub mod schema;
pub mod value;

pub use plan::{
    BinOp, Bound, Combinator, CompiledProgram, Entry, EntryKind, Node, NodeStats, Op, ParamSpec,
    ParamType, RangeEnd, Shape, UnOp,
};
pub use schema::{
    AggregateKind, AggregateSchema, Column, ColumnType, ExtremePath, IndexSchema, Literal, Schema,
    TableSchema,
};
pub use value::{compare, Record, Value};

/// Bumped whenever the serialized form of a [`CompiledProgram`] changes
/// incompatibly; loaders refuse other versions.
pub const FORMAT_VERSION: u32 = 6;
