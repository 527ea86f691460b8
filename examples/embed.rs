//! A small service embedding rqc: it opens a database, installs the social
//! program, prepares its entry points once, and serves a burst of requests
//! (sign-ups, follows, posts, timelines, the global feed page by page with
//! continuation tokens) with typed parameters and rows.
//!
//! `cargo run --example embed [DB_DIR]` (a temporary directory by default).

use rqc::{Database, Prepared};
use serde::{Deserialize, Serialize};

#[derive(Serialize)]
struct SignUp<'a> {
    id: i64,
    handle: &'a str,
    name: &'a str,
    country: &'a str,
}

#[derive(Serialize)]
struct NewPost<'a> {
    id: i64,
    author: i64,
    at: i64,
    body: &'a str,
}

#[derive(Deserialize, Debug)]
struct Post {
    id: i64,
    author: i64,
    at: i64,
    body: String,
}

#[derive(Deserialize, Debug)]
struct User {
    handle: String,
    name: String,
}

/// The service: prepared entry points over one database.
struct Social<'db> {
    sign_up: Prepared<'db>,
    follow: Prepared<'db>,
    post: Prepared<'db>,
    timeline: Prepared<'db>,
    by_handle: Prepared<'db>,
    newest: Prepared<'db>,
}

impl<'db> Social<'db> {
    fn new(db: &'db Database) -> Result<Social<'db>, rqc::Error> {
        Ok(Social {
            sign_up: db.prepare("add_user")?,
            follow: db.prepare("follow")?,
            post: db.prepare("add_post")?,
            timeline: db.prepare("timeline")?,
            by_handle: db.prepare("user_by_handle")?,
            newest: db.prepare("newest")?,
        })
    }
}

fn main() -> miette::Result<()> {
    let temporary = tempfile::tempdir().expect("a temporary directory");
    let dir = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| temporary.path().join("social"));
    let mut db = Database::open(&dir)?;
    db.install_paths(&[std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/social"
    ))])?;
    let social = Social::new(&db)?;

    let people = [
        ("ann", "Ann", "NZ"),
        ("bob", "Bob", "FR"),
        ("cyd", "Cyd", "JP"),
    ];
    for (i, (handle, name, country)) in people.iter().enumerate() {
        social.sign_up.run_named(&SignUp {
            id: i as i64 + 1,
            handle,
            name,
            country,
        })?;
    }
    social.follow.run(&[1.into(), 2.into(), 100.into()])?;
    social.follow.run(&[1.into(), 3.into(), 101.into()])?;
    for (id, author, at, body) in [
        (1, 2, 10, "bonjour"),
        (2, 3, 11, "konnichiwa"),
        (3, 2, 12, "salut"),
        (4, 1, 13, "kia ora"),
    ] {
        social.post.run_named(&NewPost {
            id,
            author,
            at,
            body,
        })?;
    }

    // A refused request is an error value with a code and a help line.
    if let Err(error) = social.sign_up.run_named(&SignUp {
        id: 9,
        handle: "ann",
        name: "Another",
        country: "NZ",
    }) {
        // Its `Display` starts with the code: `[E0502] Error: …`.
        println!("refused: {error}");
    }

    let ann: Option<User> = social.by_handle.query_one(&["ann".into()])?;
    if let Some(user) = ann {
        println!("found @{}: {}", user.handle, user.name);
    }
    let posts: Vec<Post> = social.timeline.query(&[1.into(), 10.into()])?;
    for post in &posts {
        println!(
            "timeline of ann: #{} by {} at {}: {}",
            post.id, post.author, post.at, post.body
        );
    }
    let output = social.timeline.run(&[1.into(), 10.into()])?;
    println!(
        "the timeline read {} seeks and {} rows (proved bound: {} and {})",
        output.stats.seeks, output.stats.rows, output.bound.seeks, output.bound.rows
    );

    // The global feed, newest first, two posts a page: each page comes with
    // the token of the next, and costs one seek and two rows however deep.
    let mut page = social.newest.run_page(&[2.into()])?;
    let mut number = 1;
    loop {
        let ids: Vec<String> = page
            .output
            .rows()
            .iter()
            .filter_map(|row| row.field("id").map(ToString::to_string))
            .collect();
        // A full last page still has a token: the page after it is empty.
        let posts = if ids.is_empty() {
            "none left".to_string()
        } else {
            format!("posts {}", ids.join(", "))
        };
        println!(
            "feed page {number}: {posts} (seeks {}, rows {})",
            page.output.stats.seeks, page.output.stats.rows
        );
        let Some(token) = page.token else { break };
        page = social.newest.next_page(&token)?;
        number += 1;
    }
    Ok(())
}
