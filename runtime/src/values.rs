//! Values during evaluation: data, function values, lazy streams, and lists or records that hold either.

use crate::bound::BoundTable;
use crate::error::internal;
use crate::error::Result;
use crate::store::Tree;
use rqc_plan::{Node, Value};
use std::cell::RefCell;
use std::rc::Rc;

/// A value during evaluation. Data is a plan [`Value`]; lists and records
/// that hold a function or a stream are kept apart (`List`, `Record`), so
/// that data stays in the form it is read and returned in.
#[derive(Clone)]
pub enum Val<'p> {
    Data(Value),
    /// A list or record a name stands for, shared by every use of the name
    /// (see [`Env::get`]): a value built of one name used twice, `[a, a]`,
    /// holds it twice without a copy, so a chain of such `let`s stays
    /// linear in time and memory instead of doubling at each.
    Shared(Rc<Value>),
    Closure(Rc<Closure<'p>>),
    Stream(Rc<Stream<'p>>),
    /// A list given where a stream is taken ([`ListStream`]).
    Listed(Rc<ListStream<'p>>),
    List(Rc<Vec<Val<'p>>>),
    Record(Rc<PartsRecord<'p>>),
}

pub struct Closure<'p> {
    pub params: &'p [String],
    pub body: &'p Node,
    pub env: Env<'p>,
}

/// An unread range: where it is, and the functions to apply to each row
/// read (`map`s over the stream), in order. Nothing is read until a
/// limiting consumer reads from it.
#[derive(Clone)]
pub struct Stream<'p> {
    pub table: &'p BoundTable,
    pub tree: Tree,
    pub start: Vec<u8>,
    pub end: Option<Vec<u8>>,
    pub maps: Vec<Val<'p>>,
    /// Rows read and dropped before the first (`skip`).
    pub skip: usize,
    /// The scan a paged run walks (`page`): its reads record where the
    /// page ended.
    pub paged: bool,
    /// Read from the high end of the range down (`reverse`, `sort_by`).
    pub reverse: bool,
    /// Whether the column after the scan's prefix is a descending one of
    /// its index, so that its byte order runs against its values'.
    pub next_descending: bool,
}

/// A list given where a stream is taken, read as a stream is (spec/cost.md
/// §4.2, "A list given where a stream is taken"): its `map`s and its
/// `skip` wait for the limit that reads it (`take`, `first`, `exists`),
/// so a function mapped over it runs on the elements read only, as the
/// checker costs it; the list itself was made, and paid for, already.
pub struct ListStream<'p> {
    pub items: Rc<Vec<Val<'p>>>,
    /// Elements dropped from the start before the first read.
    pub skip: usize,
    /// The functions applied to each element read, in order.
    pub maps: Vec<Val<'p>>,
}

/// The values in scope: a persistent list, newest binding first, found by
/// position (a variable's slot, resolved at install: `bound::bind_slots`),
/// never by name. Scopes are a handful of bindings (parameters of the
/// lambdas around, `let`s), and binding costs one small allocation
/// (profiled on the TPC-C mix: a hash map's inserts were 6% of time).
#[derive(Clone, Default)]
pub struct Env<'p>(Option<Rc<Binding<'p>>>);

struct Binding<'p> {
    /// Turned from `Data` to `Shared` at the first use that takes a copy;
    /// a name only read a field of (a row in a lambda) is never wrapped.
    value: RefCell<Val<'p>>,
    outer: Env<'p>,
}

impl<'p> Env<'p> {
    pub fn new() -> Env<'p> {
        Env(None)
    }

    /// This scope with `value` bound on top: slot 0 from now on, every
    /// outer binding one further.
    pub fn bind(&self, value: Val<'p>) -> Env<'p> {
        Env(Some(Rc::new(Binding {
            value: RefCell::new(value),
            outer: self.clone(),
        })))
    }

    /// The binding `slot` places out (0: the newest).
    fn binding(&self, slot: u32) -> Option<&Binding<'p>> {
        let mut scope = self.0.as_deref()?;
        for _ in 0..slot {
            scope = scope.outer.0.as_deref()?;
        }
        Some(scope)
    }

    /// The value of `name`. A list or record is shared from its first use
    /// on, never copied: each use costs the same whatever its size. A
    /// list, and a record holding a list or record, is shared part by part
    /// ([`Val::of_shared_parts`]), so that taking its elements or a field
    /// out copies no more than a pointer each: a lambda applied to each
    /// element of another list that takes them again would otherwise copy
    /// the whole list at each application (adversary finding).
    pub fn get(&self, slot: u32) -> Option<Val<'p>> {
        let binding = self.binding(slot)?;
        let mut value = binding.value.borrow_mut();
        // A long string too: each use would copy it, and a list made of
        // its uses (`xs |> map(x => s)`) would hold every copy (an
        // adversary's 256 uses of a 16 MiB string held 4.8 GB).
        let shared = matches!(&*value, Val::Data(data) if shares_string(data));
        if shared || matches!(&*value, Val::Data(Value::List(_) | Value::Record(_))) {
            let Val::Data(data) = std::mem::replace(&mut *value, Val::Data(Value::Null)) else {
                unreachable!("matched above")
            };
            *value = if holds_parts(&data) {
                Val::of_shared_parts(data)
            } else {
                Val::Shared(Rc::new(data))
            };
        }
        Some(value.clone())
    }

    /// A field of the record at `slot`, read where it is: only the field
    /// is copied (a field that is a list or record is shared, as
    /// [`Env::get`] shares it).
    pub fn field(&self, slot: u32, field: Part<'_>) -> Option<Result<Val<'p>>> {
        {
            let value = self.binding(slot)?.value.borrow();
            if matches!(&*value, Val::Data(data) if !holds_parts(data)) {
                return Some(value.field_ref(field));
            }
        }
        Some(self.get(slot)?.field_ref(field))
    }
}

/// Which field a read takes: by its position (`Op::Column`: every row of a
/// table holds its columns in the schema's order, every structural record
/// its fields in their names', so no name is compared), or by its name
/// (`Op::Field`: one lambda's read of records of two types, or rows of two
/// tables, that hold the field at two positions).
#[derive(Clone, Copy)]
pub enum Part<'a> {
    Named(&'a str),
    At(usize),
}

impl Part<'_> {
    /// The field among a record's `fields`, in order.
    fn among<'v, T>(self, fields: impl Iterator<Item = (&'v String, &'v T)>) -> Option<&'v T> {
        let mut fields = fields;
        match self {
            Part::Named(name) => fields.find(|(n, _)| *n == name).map(|(_, v)| v),
            Part::At(position) => fields.nth(position).map(|(_, v)| v),
        }
    }

    /// E0594: the field is not there (the checker and the verifier let no
    /// such read through).
    fn missing(self) -> crate::error::RuntimeError {
        match self {
            Part::Named(name) => internal(&format!("no field {name}")),
            Part::At(position) => internal(&format!("no column at position {position}")),
        }
    }
}

/// A string longer than this is shared where a name is used, not copied
/// (a step's worth of bytes, `rqc_cost::STRING_STEP_BYTES`: a shorter
/// one costs no more to copy than the pointer's upkeep).
const SHARED_STRING_BYTES: usize = rqc_cost::STRING_STEP_BYTES as usize;

/// Whether `value` is a string long enough to be shared where it is used
/// (a name's, [`Env::get`]; a parameter's, `Interp::param`).
pub(crate) fn shares_string(value: &Value) -> bool {
    matches!(value, Value::Str(s) if s.len() > SHARED_STRING_BYTES)
}

/// Whether `value` is a list, or a record holding a list or record: what
/// [`Val::of_shared_parts`] shares part by part.
fn holds_parts(value: &Value) -> bool {
    match value {
        Value::List(_) => true,
        Value::Record(record) => record_holds_parts(record),
        _ => false,
    }
}

/// A record some of whose fields are not data (functions, streams, shared
/// parts), held as a [`rqc_plan::Record`] is: its shared names, its
/// fields in the names' order, and the order they were written in.
#[derive(Clone)]
pub struct PartsRecord<'p> {
    pub names: std::sync::Arc<[String]>,
    pub written: Option<std::sync::Arc<[u32]>>,
    pub values: Vec<Val<'p>>,
}

fn record_holds_parts(record: &rqc_plan::Record) -> bool {
    record
        .values()
        .iter()
        .any(|v| matches!(v, Value::List(_) | Value::Record(_)))
}

impl<'p> Val<'p> {
    /// `value` with each list, and each record holding a list or record,
    /// behind a pointer of its own: its elements and fields are taken out
    /// by copying pointers, not values. Made once, where a name is first
    /// used (a copy of the value, once).
    pub fn of_shared_parts(value: Value) -> Val<'p> {
        match value {
            Value::List(items) => Val::List(Rc::new(
                items.into_iter().map(Val::of_shared_parts).collect(),
            )),
            Value::Record(record) if record_holds_parts(&record) => {
                let (names, written) = (record.names().clone(), record.written());
                Val::Record(Rc::new(PartsRecord {
                    names,
                    written,
                    values: record
                        .into_values()
                        .into_iter()
                        .map(Val::of_shared_parts)
                        .collect(),
                }))
            }
            other => Val::Data(other),
        }
    }

    /// The data, or an internal error for a function or a stream (the
    /// checker never lets one reach a place that reads data).
    /// A list or record of shared parts is copied out here, once, where
    /// the data is needed whole.
    pub fn data(self) -> Result<Value> {
        match self {
            Val::Data(v) => Ok(v),
            Val::Shared(v) => Ok(Rc::unwrap_or_clone(v)),
            Val::List(items) => Ok(Value::List(
                Rc::unwrap_or_clone(items)
                    .into_iter()
                    .map(Val::data)
                    .collect::<Result<_>>()?,
            )),
            Val::Record(record) => {
                let PartsRecord {
                    names,
                    written,
                    values,
                } = Rc::unwrap_or_clone(record);
                let values = values.into_iter().map(Val::data).collect::<Result<_>>()?;
                Ok(Value::Record(rqc_plan::Record::with_shape(
                    names, written, values,
                )))
            }
            Val::Closure(_) => Err(internal("a function where a value was expected")),
            Val::Stream(_) | Val::Listed(_) => {
                Err(internal("an unread stream where a value was expected"))
            }
        }
    }

    /// The data this is, when it is data as it stands (not built of parts).
    fn as_data(&self) -> Option<&Value> {
        match self {
            Val::Data(v) => Some(v),
            Val::Shared(v) => Some(v),
            _ => None,
        }
    }

    /// A list from its items: data when every item is; otherwise (a
    /// function, a stream or a shared value among them) the items as
    /// they are.
    pub fn from_items(items: Vec<Val<'p>>) -> Val<'p> {
        if items.iter().all(|i| matches!(i, Val::Data(_))) {
            Val::Data(Value::List(
                items
                    .into_iter()
                    .map(|i| match i {
                        Val::Data(v) => v,
                        _ => unreachable!("checked: every item is data"),
                    })
                    .collect(),
            ))
        } else {
            Val::List(Rc::new(items))
        }
    }

    /// A structural record of `shape` from its fields' values, given in the
    /// written order: data when every field is; otherwise the fields as
    /// they are.
    pub fn from_shape(shape: &rqc_plan::RecordShape, values: Vec<Val<'p>>) -> Val<'p> {
        let values = shape.hold(values);
        let (names, written) = (shape.names.clone(), shape.written.clone());
        if values.iter().all(|v| matches!(v, Val::Data(_))) {
            let values = values
                .into_iter()
                .map(|v| match v {
                    Val::Data(v) => v,
                    _ => unreachable!("checked: every field is data"),
                })
                .collect();
            Val::Data(Value::Record(rqc_plan::Record::with_shape(
                names, written, values,
            )))
        } else {
            Val::Record(Rc::new(PartsRecord {
                names,
                written,
                values,
            }))
        }
    }

    /// The items of a list, or of an option as a list of at most one.
    pub fn items(self) -> Result<Vec<Val<'p>>> {
        Ok(match self {
            Val::Data(Value::List(items)) => items.into_iter().map(Val::Data).collect(),
            Val::Data(Value::Null) => Vec::new(),
            Val::Shared(v) if matches!(*v, Value::List(_)) => match Rc::unwrap_or_clone(v) {
                Value::List(items) => items.into_iter().map(Val::Data).collect(),
                _ => unreachable!("matched above"),
            },
            Val::List(items) => Rc::unwrap_or_clone(items),
            Val::Stream(_) | Val::Listed(_) => return Err(internal("a stream read as a list")),
            other => vec![other],
        })
    }

    /// The first `limit` items of [`Val::items`], copying no more of a
    /// shared list than those.
    pub fn items_upto(self, limit: usize) -> Result<Vec<Val<'p>>> {
        match self {
            Val::Shared(v) if matches!(*v, Value::List(_)) => match &*v {
                Value::List(items) => {
                    Ok(items.iter().take(limit).cloned().map(Val::Data).collect())
                }
                _ => unreachable!("matched above"),
            },
            other => {
                let mut items = other.items()?;
                items.truncate(limit);
                Ok(items)
            }
        }
    }

    /// How many items [`Val::items`] would give, copying none.
    pub fn items_len(&self) -> Result<usize> {
        Ok(match self {
            Val::Data(Value::List(items)) => items.len(),
            Val::Data(Value::Null) => 0,
            Val::Shared(v) => match &**v {
                Value::List(items) => items.len(),
                _ => 1,
            },
            Val::List(items) => items.len(),
            Val::Stream(_) | Val::Listed(_) => return Err(internal("a stream read as a list")),
            _ => 1,
        })
    }

    pub fn is_none(&self) -> bool {
        matches!(self, Val::Data(Value::Null))
    }

    /// A field of a record it borrows (none of none): only the field is
    /// copied.
    pub fn field_ref(&self, field: Part<'_>) -> Result<Val<'p>> {
        let found = match self {
            Val::Data(Value::Null) => return Ok(Val::Data(Value::Null)),
            Val::Data(_) | Val::Shared(_) => match self.as_data() {
                Some(Value::Record(record)) => field.among(record.held()).cloned().map(Val::Data),
                _ => None,
            },
            Val::Record(record) => field
                .among(record.names.iter().zip(&record.values))
                .cloned(),
            _ => None,
        };
        found.ok_or_else(|| field.missing())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list() -> Val<'static> {
        Val::Data(Value::List(vec![Value::Int(1), Value::Int(2)]))
    }

    #[test]
    fn every_use_of_a_name_shares_its_list() {
        let env = Env::new().bind(list());
        let (Some(Val::List(first)), Some(Val::List(second))) = (env.get(0), env.get(0)) else {
            panic!("a list a name stands for is shared");
        };
        assert!(Rc::ptr_eq(&first, &second));
        drop(second);
        assert_eq!(Val::List(first).data().unwrap(), list().data().unwrap());
    }

    #[test]
    fn a_long_string_a_name_stands_for_is_shared_and_a_short_one_copied() {
        let long = "a".repeat(SHARED_STRING_BYTES + 1);
        let env = Env::new().bind(Val::Data(Value::Str(long.clone())));
        let (Some(Val::Shared(first)), Some(Val::Shared(second))) = (env.get(0), env.get(0)) else {
            panic!("a long string a name stands for is shared");
        };
        assert!(Rc::ptr_eq(&first, &second));
        assert_eq!(Val::Shared(first).data().unwrap(), Value::Str(long));
        let env = env.bind(Val::Data(Value::Str("short".into())));
        assert!(matches!(env.get(0), Some(Val::Data(Value::Str(_)))));
    }

    #[test]
    fn reading_a_field_of_a_name_copies_only_the_field() {
        let row = Value::Record([("id".to_string(), Value::Int(3))].into_iter().collect());
        let env = Env::new().bind(Val::Data(row));
        let field = env.field(0, Part::Named("id")).unwrap().unwrap();
        assert!(matches!(field, Val::Data(Value::Int(3))));
        // Still held as it was bound: no use has taken a copy.
        assert!(matches!(
            *env.binding(0).unwrap().value.borrow(),
            Val::Data(Value::Record(_))
        ));
        // A number is copied, never shared; the row is one slot further out.
        let env = env.bind(Val::Data(Value::Int(5)));
        assert!(matches!(env.get(0), Some(Val::Data(Value::Int(5)))));
        assert!(matches!(
            env.field(1, Part::At(0)).unwrap().unwrap(),
            Val::Data(Value::Int(3))
        ));
        assert!(env.get(2).is_none(), "no binding two places out");
    }

    #[test]
    fn a_column_is_read_by_its_position_and_a_field_by_its_name() {
        let row: rqc_plan::Record = [("a", 1), ("b", 2)]
            .into_iter()
            .map(|(n, v)| (n.to_string(), Value::Int(v)))
            .collect();
        let row = Val::Data(Value::Record(row));
        let read = |part| match row.field_ref(part) {
            Ok(Val::Data(value)) => Ok(value),
            Ok(_) => panic!("a scalar field is data"),
            Err(e) => Err(e.code),
        };
        assert_eq!(read(Part::At(1)), Ok(Value::Int(2)));
        assert_eq!(read(Part::Named("b")), Ok(Value::Int(2)));
        assert_eq!(read(Part::At(0)), Ok(Value::Int(1)));
        // Past the row's columns: a bug in rqc, never a panic.
        assert_eq!(read(Part::At(2)), Err("E0594"));
        assert!(Val::Data(Value::Null)
            .field_ref(Part::At(5))
            .unwrap()
            .is_none());
    }

    #[test]
    fn the_parts_of_a_shared_list_are_taken_out_without_a_copy() {
        // A list of lists: each element taken out is the same pointer at
        // every use, not a copy of the inner list.
        let inner = Value::List(vec![Value::Int(1), Value::Int(2)]);
        let env = Env::new().bind(Val::Data(Value::List(vec![inner.clone(), inner])));
        let first = env.get(0).unwrap().items().unwrap();
        let second = env.get(0).unwrap().items().unwrap();
        let (Val::List(x), Val::List(y)) = (&first[0], &second[0]) else {
            panic!("the elements are shared lists: {:?}", first.len());
        };
        assert!(Rc::ptr_eq(x, y));
        // A record holding a list: its field is shared too.
        let record: rqc_plan::Record = [("rows".to_string(), Value::List(vec![Value::Int(3)]))]
            .into_iter()
            .collect();
        let env = env.bind(Val::Data(Value::Record(record)));
        let (Ok(Val::List(x)), Ok(Val::List(y))) = (
            env.field(0, Part::Named("rows")).unwrap(),
            env.field(0, Part::At(0)).unwrap(),
        ) else {
            panic!("the field is a shared list");
        };
        assert!(Rc::ptr_eq(&x, &y));
        assert_eq!(
            Val::List(x).data().unwrap(),
            Value::List(vec![Value::Int(3)])
        );
    }
}
