//! What the bound pass knows of a value without running the plan: its kind, a list's most elements, an `Int`'s interval, a string's most characters, a stream's costs, the lambdas a function value may be.
//!
//! Each abstract value stands for every value the run may produce at that
//! point, so every size it holds is an upper bound: where two may meet (an
//! `if`, a list's elements, `unwrap_or`) they are joined, each size the
//! larger. Kinds that cannot meet (a list and a record) are a fault of the
//! plan, which the checker's types rule out.

use super::scope::Scope;
use rqc_cost::{Cost, Extremes, Interval, Poly};
use rqc_plan::Node;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// The joins of shared parts already made, by their pointers.
type Joined<'p> = HashMap<(usize, usize), Abs<'p>>;

/// An abstract value (see the module's comment).
#[derive(Clone)]
pub(super) enum Abs<'p> {
    /// No value: the run stops before (code proved unreachable).
    Nothing,
    /// `none`.
    Null,
    /// A scalar: its interval when it is an `Int`, its most characters
    /// when it is a `String` (both unbounded when unknown).
    Scalar(Rc<Scalar>),
    /// A value or `none`.
    Opt(Box<Abs<'p>>),
    /// A list of at most `len` elements; of `Int`s, where its least and
    /// greatest elements lie when that is tighter than the elements'
    /// range (as the checker's list type keeps them, `check/extremes.rs`).
    List(Box<Abs<'p>>, Poly, Option<Rc<Extremes>>),
    /// A list literal's elements, each as it is (`[a, b] |> flatten()`, a
    /// union, holds at most the sum of their lengths).
    Literal(Rc<Vec<Abs<'p>>>),
    /// A record; `table` when it is a row of that table (by position).
    Record(Rc<RecordAbs<'p>>),
    /// An unread range (spec/cost.md §4.2).
    Stream(Rc<StreamAbs<'p>>),
    /// A function value: one of these lambdas.
    Fns(Rc<Vec<Rc<Closure<'p>>>>),
}

/// A scalar's type and sizes.
#[derive(Clone)]
pub(super) struct Scalar {
    pub kind: Kind,
    pub int: Interval,
    /// The most characters of a `String` (its bytes bound them).
    pub chars: Poly,
    /// Where a `String`'s length lies, when an `if` compared it
    /// (`narrowing.rs`): `length` reads it within `chars`.
    pub length: Option<Interval>,
}

impl Scalar {
    /// The range of a `String`'s `length`: up to its characters, within
    /// what an `if` proved of it.
    pub fn length(&self) -> Interval {
        let length = Interval::up_to(self.chars.clone());
        match &self.length {
            Some(proved) => length.intersect(proved),
            None => length,
        }
    }
}

/// A scalar's type, as the executor's operators tell them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Int,
    Float,
    Str,
    Bool,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Int => "an Int",
            Kind::Float => "a Float",
            Kind::Str => "a String",
            Kind::Bool => "a Bool",
        }
    }

    /// The kind of a column type's values (under `?`).
    pub fn of(ty: &rqc_plan::ColumnType) -> Kind {
        match ty {
            rqc_plan::ColumnType::Int => Kind::Int,
            rqc_plan::ColumnType::Float => Kind::Float,
            rqc_plan::ColumnType::String => Kind::Str,
            rqc_plan::ColumnType::Bool => Kind::Bool,
            rqc_plan::ColumnType::Optional(inner) => Kind::of(inner),
        }
    }
}

#[derive(Clone)]
pub(super) struct RecordAbs<'p> {
    pub fields: Vec<(String, Abs<'p>)>,
    pub table: Option<usize>,
}

impl<'p> RecordAbs<'p> {
    /// A structural record of `fields` as written, held as the executor
    /// holds it: in the order of the names (`rqc_plan::RecordShape`, the
    /// one definition of that order), so a read by position finds here
    /// the field the run finds.
    pub fn structural(fields: Vec<(String, Abs<'p>)>) -> RecordAbs<'p> {
        let shape = rqc_plan::RecordShape::of(fields.iter().map(|(n, _)| n.clone()).collect());
        RecordAbs {
            fields: shape.hold(fields),
            table: None,
        }
    }
}

/// A stream: the element read, what opening it costs (the descent, and
/// the rows a `skip` drops) and what each element costs.
#[derive(Clone)]
pub(super) struct StreamAbs<'p> {
    pub element: Abs<'p>,
    pub open: Cost,
    pub each: Cost,
    /// Whether a `skip` dropped rows from its start: the executor will not
    /// read it from its other end (`combinators::on_stream`).
    pub skipped: bool,
    /// Whether a function mapped over it writes: a limit that reads it
    /// runs those writes, wherever the limit is (a function applied over a
    /// list whose body reads it is then not read ahead).
    pub writes: bool,
}

/// A lambda with the names in scope where it was made.
pub(super) struct Closure<'p> {
    pub params: &'p [String],
    pub body: &'p Node,
    /// The lambda node itself (its id names it in messages).
    pub node: &'p Node,
    pub scope: Scope<'p>,
    /// The entry point's parameters as they were where it was made (an
    /// `if` branch around may have narrowed them, as the checker's
    /// delayed lambda sees them).
    pub entry_params: Rc<Vec<Abs<'p>>>,
    /// The facts of the `if`s around where it was made, which hold
    /// wherever it is applied (`rqc_cost::facts_around`).
    pub facts: Vec<rqc_cost::Fact<super::narrowing::Named<'p>>>,
    /// The evaluation of a body it was made in (`rqc_cost::Frames`).
    pub frame: u64,
}

/// Two kinds of value that cannot meet, named for the message.
pub(super) struct Clash(pub &'static str, pub &'static str);

impl<'p> Abs<'p> {
    /// A scalar of `kind` whose sizes nothing bounds, named `what` (a
    /// column, a parameter).
    pub fn unknown(kind: Kind, what: &str) -> Abs<'p> {
        Abs::scalar(kind, Interval::unbounded(what), Poly::unbounded(what))
    }

    pub fn scalar(kind: Kind, int: Interval, chars: Poly) -> Abs<'p> {
        Abs::Scalar(Rc::new(Scalar {
            kind,
            int,
            chars,
            length: None,
        }))
    }

    /// An `Int` in `int`.
    pub fn int(int: Interval) -> Abs<'p> {
        Abs::scalar(Kind::Int, int, Poly::zero())
    }

    /// A `String` of at most `chars` characters.
    pub fn string(chars: Poly) -> Abs<'p> {
        Abs::scalar(Kind::Str, Interval::unbounded("a string"), chars)
    }

    /// The scalar kind of a value that is one (or an option of one), and
    /// whether it may be `none`: `None` for no value or `none` alone (any
    /// operator takes them), `Err` for a value that is no scalar.
    pub fn scalar_kind(&self) -> Result<Option<Kind>, &'static str> {
        match self {
            Abs::Scalar(s) => Ok(Some(s.kind)),
            Abs::Nothing | Abs::Null => Ok(None),
            Abs::Opt(inner) => inner.scalar_kind(),
            other => Err(other.kind()),
        }
    }

    /// The kind, named for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Abs::Nothing => "nothing",
            Abs::Null => "none",
            Abs::Scalar(_) => "a scalar",
            Abs::Opt(_) => "an option",
            Abs::List(..) | Abs::Literal(_) => "a list",
            Abs::Record(_) => "a record",
            Abs::Stream(_) => "a stream",
            Abs::Fns(_) => "a function",
        }
    }

    /// Whether the value is data all through: no stream and no function
    /// in it (what a comparison, a key or a write reads whole).
    pub fn is_data(&self) -> bool {
        !self.holds(&mut HashSet::new(), &|part| {
            matches!(part, Abs::Stream(_) | Abs::Fns(_))
        })
    }

    /// Whether `found` holds of the value or any part of it, each shared
    /// part (a literal's or a record's, by its pointer) visited once: `let
    /// a_i = {p: a_{i-1}, q: a_{i-1}}` n levels deep holds 2^n parts and
    /// n distinct ones, and the verifier runs in time linear in the plan.
    pub fn holds(&self, seen: &mut HashSet<usize>, found: &dyn Fn(&Abs<'p>) -> bool) -> bool {
        if found(self) {
            return true;
        }
        if let Some(shared) = self.shared() {
            if !seen.insert(shared) {
                return false;
            }
        }
        match self {
            Abs::Opt(inner) | Abs::List(inner, _, _) => inner.holds(seen, found),
            Abs::Literal(items) => items.iter().any(|item| item.holds(seen, found)),
            Abs::Record(record) => record.fields.iter().any(|(_, v)| v.holds(seen, found)),
            Abs::Stream(stream) => stream.element.holds(seen, found),
            Abs::Nothing | Abs::Null | Abs::Scalar(_) | Abs::Fns(_) => false,
        }
    }

    /// The values this may hold, every list at its longest: the steps a
    /// walk of it takes (spec/cost.md §2, "Steps"; the checker's
    /// `Ty::values`). Each shared part is counted once per pointer, as
    /// [`Abs::holds`] visits it, so the count takes time linear in the plan.
    pub fn values(&self) -> Poly {
        self.values_memo(&mut HashMap::new(), &|_| Poly::constant(1))
    }

    /// The steps of walking the value whole (`Ty::walk_steps` in the
    /// checker): a step per value, a string a step per 4 KiB it may hold.
    pub fn walk_steps(&self) -> Poly {
        self.values_memo(&mut HashMap::new(), &scalar_walk)
    }

    /// The steps of copying the value where the run copies it rather than
    /// share it (`Ty::copy_steps`): its strings outside any list.
    pub fn copy_steps(&self) -> Poly {
        self.copy_steps_memo(&mut HashMap::new())
    }

    /// [`Abs::copy_steps`], a shared record's sum reused at each place it
    /// is (a record of records doubling at each of 60 levels is 2^60
    /// paths and 60 parts).
    fn copy_steps_memo(&self, memo: &mut HashMap<usize, Poly>) -> Poly {
        if let Some(known) = self.shared().and_then(|p| memo.get(&p)) {
            return known.clone();
        }
        let steps = match self {
            Abs::Opt(inner) => inner.copy_steps_memo(memo),
            Abs::Record(record) => record.fields.iter().fold(Poly::zero(), |sum, (_, v)| {
                sum.plus(&v.copy_steps_memo(memo))
            }),
            Abs::Scalar(scalar) if scalar.kind == Kind::Str => scalar_walk(scalar),
            _ => Poly::zero(),
        };
        if let Some(shared) = self.shared() {
            memo.insert(shared, steps.clone());
        }
        steps
    }

    /// The sum over the value's scalars of `each` (shared parts walked
    /// once, their sum reused at each place they are).
    fn values_memo(&self, memo: &mut HashMap<usize, Poly>, each: &dyn Fn(&Scalar) -> Poly) -> Poly {
        if let Some(known) = self.shared().and_then(|p| memo.get(&p)) {
            return known.clone();
        }
        let sum = |parts: &mut dyn Iterator<Item = &Abs<'p>>, memo: &mut HashMap<usize, Poly>| {
            parts.fold(Poly::zero(), |sum, part| {
                sum.plus(&part.values_memo(memo, each))
            })
        };
        let values = match self {
            Abs::Nothing => Poly::zero(),
            Abs::Opt(inner) => inner.values_memo(memo, each),
            Abs::List(element, len, _) => len.times(&element.values_memo(memo, each)),
            Abs::Literal(items) => sum(&mut items.iter(), memo),
            Abs::Record(record) => sum(&mut record.fields.iter().map(|(_, v)| v), memo),
            Abs::Scalar(scalar) => each(scalar),
            Abs::Null | Abs::Stream(_) | Abs::Fns(_) => Poly::constant(1),
        };
        if let Some(shared) = self.shared() {
            memo.insert(shared, values.clone());
        }
        values
    }

    /// The pointer of a shared part (a literal's items, a record's fields).
    fn shared(&self) -> Option<usize> {
        match self {
            Abs::Literal(items) => Some(Rc::as_ptr(items) as usize),
            Abs::Record(record) => Some(Rc::as_ptr(record) as usize),
            _ => None,
        }
    }

    /// The interval of a value read as a count (`take`'s, which the
    /// executor refuses unless it is an `Int`): an `Int`'s, nothing's for
    /// no value; `None` for anything else, `none` included.
    pub fn interval(&self) -> Option<Interval> {
        match self {
            Abs::Scalar(s) if s.kind == Kind::Int => Some(s.int.clone()),
            Abs::Nothing => Some(Interval::exact(0)),
            _ => None,
        }
    }

    /// The elements of a value read as a list, and their most number (the
    /// runtime's `Val::items`): a list's, an option's (a list inside an
    /// option is the list), none of `none`, and any other value as one.
    /// `None` for a stream, which only a limiting consumer reads.
    pub fn items(&self) -> Option<(Abs<'p>, Poly)> {
        match self {
            Abs::Stream(_) => None,
            Abs::List(element, len, _) => Some(((**element).clone(), len.clone())),
            Abs::Literal(_) => self.as_list().ok()?.items(),
            Abs::Null | Abs::Nothing => Some((Abs::Nothing, Poly::zero())),
            Abs::Opt(inner) => match &**inner {
                Abs::List(element, len, _) => Some(((**element).clone(), len.clone())),
                Abs::Stream(_) => None,
                other => Some((other.clone(), Poly::constant(1))),
            },
            other => Some((other.clone(), Poly::constant(1))),
        }
    }

    /// A list of at most `len` elements, each `element`.
    pub fn list(element: Abs<'p>, len: Poly) -> Abs<'p> {
        Abs::List(Box::new(element), len, None)
    }

    /// The extremes of a literal's elements, when each is a plain `Int`.
    pub fn extremes_of(items: &[Abs<'p>]) -> Option<Extremes> {
        let ints = items
            .iter()
            .map(|item| match item {
                Abs::Scalar(s) if s.kind == Kind::Int => Some(s.int.clone()),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        Extremes::of_elements(&ints)
    }

    /// Where a list of `Int`s' least and greatest elements lie: a
    /// literal's, element by element; a list's kept extremes, or else its
    /// element's range. `None` for anything else.
    pub fn extremes(&self) -> Option<Extremes> {
        match self {
            Abs::Literal(items) => Abs::extremes_of(items),
            Abs::List(_, _, Some(extremes)) => Some((**extremes).clone()),
            Abs::List(element, _, None) => match &**element {
                Abs::Scalar(s) if s.kind == Kind::Int => Some(Extremes::of_each(&s.int)),
                _ => None,
            },
            _ => None,
        }
    }

    /// The value an option holds (a value that is not one holds itself).
    pub fn unwrapped(&self) -> Abs<'p> {
        match self {
            Abs::Opt(inner) => (**inner).clone(),
            Abs::Null => Abs::Nothing,
            other => other.clone(),
        }
    }

    /// A list literal as a list: its elements joined.
    pub fn as_list(&self) -> Result<Abs<'p>, Clash> {
        self.as_list_in(&mut Joined::new())
    }

    /// `as_list`, each shared literal read as a list once (kept in
    /// `joined` under its pointer and 0, which no pointer is).
    fn as_list_in(&self, joined: &mut Joined<'p>) -> Result<Abs<'p>, Clash> {
        let Abs::Literal(items) = self else {
            return Ok(self.clone());
        };
        let key = (Rc::as_ptr(items) as usize, 0);
        if let Some(done) = joined.get(&key) {
            return Ok(done.clone());
        }
        let mut element = Abs::Nothing;
        for item in items.iter() {
            element = element.join_in(item, joined)?;
        }
        let list = Abs::List(
            Box::new(element),
            Poly::constant(items.len() as u64),
            Abs::extremes_of(items).map(Rc::new),
        );
        joined.insert(key, list.clone());
        Ok(list)
    }

    /// The elements of the lists (or options) a list holds, and their most
    /// number: a literal's, the sum of its elements' lengths (`flatten`).
    pub fn flattened(&self) -> Option<(Abs<'p>, Poly)> {
        let Abs::Literal(items) = self else {
            let (inner, k) = self.items()?;
            let (element, m) = inner.items()?;
            return Some((element, k.times(&m)));
        };
        let (mut element, mut total) = (Abs::Nothing, Poly::zero());
        for item in items.iter() {
            let (inner, m) = item.items()?;
            element = element.join(&inner).ok()?;
            total = total.plus(&m);
        }
        Some((element, total))
    }

    /// `self` or `other` (see the module's comment).
    pub fn join(&self, other: &Abs<'p>) -> Result<Abs<'p>, Clash> {
        self.join_in(other, &mut Joined::new())
    }

    /// `join`, each pair of shared parts joined once (see [`Abs::holds`]):
    /// a part joined with itself is itself, and a pair met again is
    /// answered from `joined`.
    fn join_in(&self, other: &Abs<'p>, joined: &mut Joined<'p>) -> Result<Abs<'p>, Clash> {
        let pair = self.shared().zip(other.shared());
        if let Some((a, b)) = pair {
            if a == b && matches!(self, Abs::Record(_)) {
                return Ok(self.clone());
            }
            if let Some(done) = joined.get(&(a, b)) {
                return Ok(done.clone());
            }
        }
        let result = self.join_parts(other, joined)?;
        if let Some(pair) = pair {
            joined.insert(pair, result.clone());
        }
        Ok(result)
    }

    fn join_parts(&self, other: &Abs<'p>, joined: &mut Joined<'p>) -> Result<Abs<'p>, Clash> {
        if matches!(self, Abs::Literal(_)) || matches!(other, Abs::Literal(_)) {
            let (a, b) = (self.as_list_in(joined)?, other.as_list_in(joined)?);
            return a.join_in(&b, joined);
        }
        Ok(match (self, other) {
            (Abs::Nothing, x) | (x, Abs::Nothing) => x.clone(),
            (Abs::Null, Abs::Null) => Abs::Null,
            (Abs::Null, Abs::Opt(x)) | (Abs::Opt(x), Abs::Null) => Abs::Opt(x.clone()),
            (Abs::Null, x) | (x, Abs::Null) => Abs::Opt(Box::new(x.clone())),
            (Abs::Opt(a), Abs::Opt(b)) => Abs::Opt(Box::new(a.join_in(b, joined)?)),
            // Read as lists (a union's sides, flattened): an option is a
            // list of at most one.
            (Abs::Opt(a), Abs::List(b, n, _)) | (Abs::List(b, n, _), Abs::Opt(a))
                if !matches!(**a, Abs::List(..)) =>
            {
                Abs::list(a.join_in(b, joined)?, n.max(&Poly::constant(1)))
            }
            (Abs::Opt(a), b) | (b, Abs::Opt(a)) => Abs::Opt(Box::new(a.join_in(b, joined)?)),
            (Abs::Scalar(a), Abs::Scalar(b)) if a.kind == b.kind => {
                let length = match (&a.length, &b.length) {
                    (Some(x), Some(y)) => Some(x.join(y)),
                    _ => None,
                };
                Abs::Scalar(Rc::new(Scalar {
                    kind: a.kind,
                    int: a.int.join(&b.int),
                    chars: a.chars.max(&b.chars),
                    length,
                }))
            }
            (Abs::Scalar(a), Abs::Scalar(b)) => return Err(Clash(a.kind.name(), b.kind.name())),
            (Abs::List(a, n, _), Abs::List(b, m, _)) => {
                // A list of nothing (`[]`) adds nothing.
                let empty = |element: &Abs<'p>| matches!(element, Abs::Nothing);
                let extremes =
                    Extremes::joined(self.extremes(), empty(a), other.extremes(), empty(b))
                        .map(Rc::new);
                Abs::List(Box::new(a.join_in(b, joined)?), n.max(m), extremes)
            }
            (Abs::Record(a), Abs::Record(b)) => {
                if a.fields.len() != b.fields.len() {
                    return Err(Clash("a record", "a record of other fields"));
                }
                // Field by field in the order both hold them: the executor
                // may read either by position, so two records holding one
                // field at two positions (a constant of a hand-made plan
                // beside a record the executor makes) do not join.
                let mut fields = Vec::with_capacity(a.fields.len());
                for ((name, value), (theirs_named, theirs)) in a.fields.iter().zip(&b.fields) {
                    if name != theirs_named {
                        return Err(Clash("a record", "a record of other fields or order"));
                    }
                    fields.push((name.clone(), value.join_in(theirs, joined)?));
                }
                let table = a.table.filter(|t| b.table == Some(*t));
                Abs::Record(Rc::new(RecordAbs { fields, table }))
            }
            (Abs::Stream(a), Abs::Stream(b)) => Abs::Stream(Rc::new(StreamAbs {
                element: a.element.join_in(&b.element, joined)?,
                open: a.open.max(&b.open),
                each: a.each.max(&b.each),
                skipped: a.skipped || b.skipped,
                writes: a.writes || b.writes,
            })),
            // A list where a stream is taken (a `stream T` parameter given
            // a list, beside the same parameter skipped or mapped) is read
            // as a stream (`combinators::on_listed`): made already, a step
            // an element.
            (Abs::Stream(a), Abs::List(b, _, _)) | (Abs::List(b, _, _), Abs::Stream(a)) => {
                Abs::Stream(Rc::new(StreamAbs {
                    element: a.element.join_in(b, joined)?,
                    open: a.open.clone(),
                    each: a.each.max(&Cost::steps(Poly::constant(1))),
                    skipped: a.skipped,
                    writes: a.writes,
                }))
            }
            (Abs::Fns(a), Abs::Fns(b)) => {
                let mut all: Vec<Rc<Closure<'p>>> = (**a).clone();
                for closure in b.iter() {
                    if !all.iter().any(|c| Rc::ptr_eq(c, closure)) {
                        all.push(Rc::clone(closure));
                    }
                }
                Abs::Fns(Rc::new(all))
            }
            (a, b) => return Err(Clash(a.kind(), b.kind())),
        })
    }
}

/// A scalar's walk: a step, or a string's step per 4 KiB of its most
/// characters (which its bytes bound from below: `rqc_cost::string_steps`).
fn scalar_walk(scalar: &Scalar) -> Poly {
    match scalar.kind {
        Kind::Str => Poly::constant(rqc_cost::string_steps(scalar.chars.max_value())),
        _ => Poly::constant(1),
    }
}
