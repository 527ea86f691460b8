//! A query or mutation looked up once and run many times ([`Prepared`]): by position, by named parameters, as typed rows, a page at a time, or subscribed to.

use crate::database::Database;
use crate::error::Error;
use rqc_plan::{Entry, Value};
use rqc_runtime::live::{Subscription, WatchOptions};
use rqc_runtime::page::Page;
use rqc_runtime::Output;

/// A query or mutation looked up once and run many times.
///
/// ```
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut db = rqc::Database::open(dir.path()).unwrap();
/// # db.install_source("app.rq", "
/// #     table Item { id: Int key  name: String }
/// #     mutation add(id: Int, name: String) = insert Item { id: id, name: name }
/// #     query item(id: Int) = Item[id]
/// # ").unwrap();
/// #[derive(serde::Serialize)]
/// struct NewItem<'a> { id: i64, name: &'a str }
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct Item { id: i64, name: String }
///
/// let add = db.prepare("add").unwrap();
/// add.run_named(&NewItem { id: 1, name: "lamp" }).unwrap();
/// let item = db.prepare("item").unwrap();
/// let found: Option<Item> = item.query_one(&[1.into()]).unwrap();
/// assert_eq!(found, Some(Item { id: 1, name: "lamp".into() }));
/// ```
pub struct Prepared<'db> {
    pub(crate) db: &'db Database,
    pub(crate) entry: &'db Entry,
}

impl<'db> Prepared<'db> {
    /// The entry point's parameters, in order, with their types and bounds.
    pub fn params(&self) -> &[rqc_plan::ParamSpec] {
        &self.entry.params
    }

    /// The entry point: its name, kind, parameters, bound and plan.
    pub fn entry(&self) -> &'db Entry {
        self.entry
    }

    /// Runs with positional arguments, in a transaction of its own (one
    /// a [`Transaction`](crate::Transaction) prepared runs in that one).
    pub fn run(&self, args: &[Value]) -> Result<Output, Error> {
        Ok(self.db.engine.run_entry(self.entry, args)?)
    }

    /// Runs a pageable query (one whose result is a stream read in index
    /// order and limited by `take`, spec/embedding.md) and returns its
    /// first page with the token of the next: `None` when the page came out
    /// short, so nothing follows. Any other entry point is E0532.
    ///
    /// ```
    /// # let mut db = rqc::Database::in_memory();
    /// # db.install_source("app.rq", "
    /// #     table Post { id: Int key  at: Int  index by_time (at desc, id desc) }
    /// #     mutation post(id: Int, at: Int) = insert Post { id: id, at: at }
    /// #     query feed(n: Int <= 20) = Post.by_time |> take(n)
    /// # ").unwrap();
    /// for id in 1..=5 { db.run("post", &[id.into(), (id / 2).into()]).unwrap(); }
    /// let feed = db.prepare("feed").unwrap();
    /// let mut page = feed.run_page(&[2.into()]).unwrap();
    /// let mut ids = Vec::new();
    /// loop {
    ///     ids.extend(page.output.rows().iter().map(|r| r.field("id").cloned().unwrap()));
    ///     let Some(token) = page.token else { break };
    ///     page = feed.next_page(&token).unwrap();
    /// }
    /// assert_eq!(ids, [5, 4, 3, 2, 1].map(rqc::Value::Int));
    /// ```
    pub fn run_page(&self, args: &[Value]) -> Result<Page, Error> {
        Ok(self.db.engine.run_page(self.entry, args)?)
    }

    /// The page after the one whose token this is: the same query, with
    /// the arguments of its first page and the same bound, from the row
    /// after that page's last. A token of another query or another program
    /// is E0534, a damaged one E0533: never a wrong page.
    pub fn next_page(&self, token: &str) -> Result<Page, Error> {
        Ok(self.db.engine.next_page(self.entry, token)?)
    }

    /// The arguments of the first page a token continues from (every page
    /// after it runs with them), the token checked as
    /// [`Prepared::next_page`] checks it.
    pub fn page_arguments(&self, token: &str) -> Result<Vec<Value>, Error> {
        Ok(self.db.engine.page_arguments(self.entry, token)?)
    }

    /// Subscribes to this query: the first event holds its whole current
    /// result, then one event comes for each commit — of this process or
    /// another — that changes it (spec/live.md).
    ///
    /// ```
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut db = rqc::Database::open(dir.path()).unwrap();
    /// # db.install_source("app.rq", "
    /// #     table Item { id: Int key  name: String }
    /// #     mutation add(id: Int, name: String) = insert Item { id: id, name: name }
    /// #     query item(id: Int) = Item[id]
    /// # ").unwrap();
    /// use std::time::Duration;
    /// let live = db.prepare("item").unwrap().subscribe(&[1.into()]).unwrap();
    /// let first = live.next_event().unwrap();
    /// // The install was the first commit: position 1.
    /// assert_eq!(first, rqc::Event::Result { position: 1, value: rqc::Value::Null });
    /// db.run("add", &[1.into(), "lamp".into()]).unwrap();
    /// let change = live.next_timeout(Duration::from_secs(10)).unwrap();
    /// assert_eq!(change.position(), 2);
    /// ```
    pub fn subscribe(&self, args: &[Value]) -> Result<Subscription, Error> {
        self.subscribe_with(args, WatchOptions::default())
    }

    /// Subscribes with options: the queue's capacity, or a resume after a
    /// reconnect from the position and result last held.
    pub fn subscribe_with(
        &self,
        args: &[Value],
        options: WatchOptions,
    ) -> Result<Subscription, Error> {
        self.db.subscribe_entry(self.entry, args, options)
    }

    /// Runs with arguments taken by name from a serializable struct or map.
    pub fn run_named<P: serde::Serialize>(&self, params: &P) -> Result<Output, Error> {
        self.run(&named_args(self.entry, params)?)
    }

    /// Runs and reads the result rows into `T`.
    pub fn query<T: serde::de::DeserializeOwned>(&self, args: &[Value]) -> Result<Vec<T>, Error> {
        rows_as(self.entry, &self.run(args)?)
    }

    /// Runs and reads the first row, if any, into `T`.
    pub fn query_one<T: serde::de::DeserializeOwned>(
        &self,
        args: &[Value],
    ) -> Result<Option<T>, Error> {
        first_as(self.entry, &self.run(args)?)
    }
}

/// An output's rows read into `T`.
pub(crate) fn rows_as<T: serde::de::DeserializeOwned>(
    entry: &Entry,
    output: &Output,
) -> Result<Vec<T>, Error> {
    output
        .rows()
        .iter()
        .map(|row| decode(&entry.name, row))
        .collect()
}

/// An output's first row, if any, read into `T`.
pub(crate) fn first_as<T: serde::de::DeserializeOwned>(
    entry: &Entry,
    output: &Output,
) -> Result<Option<T>, Error> {
    output
        .rows()
        .first()
        .map(|row| decode(&entry.name, row))
        .transpose()
}

fn decode<T: serde::de::DeserializeOwned>(entry: &str, row: &Value) -> Result<T, Error> {
    serde_json::from_value(row.to_json()).map_err(|error| {
        Error::Runtime(rqc_runtime::RuntimeError::new(
            "E0523",
            format!("a row of `{entry}` does not fit the requested type: {error}"),
            "make the type's fields match the row's columns (names and types)",
        ))
    })
}

/// Positional arguments from a struct's (or map's) fields, by parameter name.
pub(crate) fn named_args<P: serde::Serialize>(
    entry: &Entry,
    params: &P,
) -> Result<Vec<Value>, Error> {
    let bad = |message: String, help: String| {
        Error::Runtime(rqc_runtime::RuntimeError::new("E0520", message, help))
    };
    let json = serde_json::to_value(params).map_err(|e| {
        bad(
            format!("the arguments do not serialize: {e}"),
            "pass a struct or map of the parameters".into(),
        )
    })?;
    let serde_json::Value::Object(fields) = json else {
        return Err(bad(
            "named arguments must be a struct or a map".into(),
            "pass a struct with one field per parameter".into(),
        ));
    };
    entry
        .params
        .iter()
        .map(|param| {
            let field = fields.get(&param.name).ok_or_else(|| {
                bad(
                    format!("missing argument `{param}`"),
                    format!("add a field `{}`", param.name),
                )
            })?;
            Value::from_json(field).ok_or_else(|| {
                bad(
                    format!("argument `{}` is not a `{}`", param.name, param.ty.name()),
                    format!("give `{}` a `{}` value", param.name, param.ty.name()),
                )
            })
        })
        .collect()
}
