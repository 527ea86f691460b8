//! The language server as a process: JSON-RPC over its stdio, as an editor speaks it.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

const SCHEMA: &str = "module social
table User {
  id: Int key
  handle: String unique
}
table Post {
  id: Int key
  author: Int ref User
  at: Int
  index by_author (author, at desc)
}
";

const FEED: &str = "module feed
import social.{User, Post}
pub query post_count(a: Int) = Post.by_author[a] |> count()
pub query recent(a: Int, n: Int >= 1 <= 100) = Post.by_author[a] |> take(n)
pub fn authors(ps: [Post]) = ps |> map(p => p.author)
pub query newest(a: Int) = { let some = recent(a, 3); authors(some) }
";

struct Server {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    next_id: i64,
}

impl Server {
    fn start(root: &std::path::Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rqc"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("rqc lsp starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(n) = line.strip_prefix("Content-Length: ") {
                        length = n.parse().unwrap();
                    }
                }
                let mut body = vec![0; length];
                reader.read_exact(&mut body).unwrap();
                if tx.send(serde_json::from_slice(&body).unwrap()).is_err() {
                    return;
                }
            }
        });
        let mut server = Server {
            child,
            stdin,
            messages: rx,
            next_id: 1,
        };
        let root_uri = format!("file://{}", root.display());
        let init = server.request(
            "initialize",
            json!({ "processId": null, "rootUri": root_uri, "capabilities": {} }),
        );
        assert_eq!(
            init["result"]["capabilities"]["textDocumentSync"]["change"], 2,
            "incremental sync"
        );
        server.notify("initialized", json!({}));
        server
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        self.wait(|m| m["id"] == id)
    }

    fn wait(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        loop {
            let message = self
                .messages
                .recv_timeout(Duration::from_secs(20))
                .expect("the server answers in time");
            if wanted(&message) {
                return message;
            }
        }
    }

    /// The next diagnostics published for `uri`.
    fn diagnostics(&mut self, uri: &str) -> Vec<Value> {
        let message = self.wait(|m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
        });
        message["params"]["diagnostics"].as_array().unwrap().clone()
    }
}

fn position_of(text: &str, needle: &str) -> Value {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle} not in the text"));
    let line = text[..at].matches('\n').count();
    let column = at - text[..at].rfind('\n').map(|i| i + 1).unwrap_or(0);
    json!({ "line": line, "character": column })
}

#[test]
fn every_feature_over_stdio() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("social.rq"), SCHEMA).unwrap();
    std::fs::write(root.join("feed.rq"), FEED).unwrap();
    let feed_uri = format!("file://{}/feed.rq", root.display());
    let social_uri = format!("file://{}/social.rq", root.display());
    let mut server = Server::start(&root);
    // The workspace is checked at start: the rejection is published at once.
    assert_eq!(server.diagnostics(&feed_uri).len(), 1);

    // Open: the rejection arrives with its code and the range of `count()`.
    server.notify("textDocument/didOpen", json!({ "textDocument": { "uri": feed_uri, "languageId": "rql", "version": 1, "text": FEED } }));
    let diagnostics = server.diagnostics(&feed_uri);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
    assert_eq!(diagnostics[0]["code"], "E0301");
    assert_eq!(
        diagnostics[0]["range"]["start"],
        position_of(FEED, "count()")
    );
    assert!(diagnostics[0]["message"]
        .as_str()
        .unwrap()
        .contains("help: or declare a bound in table `Post`"));

    // An incremental change that fixes it: the diagnostics clear.
    let start = position_of(FEED, "count()");
    let end =
        json!({ "line": start["line"], "character": start["character"].as_u64().unwrap() + 7 });
    server.notify("textDocument/didChange", json!({
        "textDocument": { "uri": feed_uri, "version": 2 },
        "contentChanges": [{ "range": { "start": start, "end": end }, "text": "take(10) |> count()" }]
    }));
    let after_fix = server.diagnostics(&feed_uri);
    assert!(after_fix.is_empty(), "fixed: {after_fix:#?}");
    // And back again.
    let fixed = FEED.replace("count()", "take(10) |> count()");
    let start = position_of(&fixed, "take(10) |> count()");
    let end =
        json!({ "line": start["line"], "character": start["character"].as_u64().unwrap() + 19 });
    server.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": feed_uri, "version": 3 },
            "contentChanges": [{ "range": { "start": start, "end": end }, "text": "count()" }]
        }),
    );
    assert_eq!(server.diagnostics(&feed_uri).len(), 1);

    // Hover on a query's name: its signature and bound.
    let hover = server.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": feed_uri }, "position": position_of(FEED, "recent(a") }),
    );
    let text = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(
        text.contains("recent(a: Int, n: Int >= 1 <= 100) -> [Post; ≤ 100]"),
        "{text}"
    );
    assert!(
        text.contains("seeks ≤ 1, rows ≤ n = 100, round trips ≤ 1"),
        "{text}"
    );
    // Hover on an expression: its type and cost.
    let hover = server.request("textDocument/hover", json!({ "textDocument": { "uri": feed_uri }, "position": position_of(FEED, "by_author[a] |> take") }));
    let text = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(text.contains("stream Post"), "{text}");

    // Definition: a table, across files; an index.
    let definition = server.request("textDocument/definition", json!({ "textDocument": { "uri": feed_uri }, "position": position_of(FEED, "Post.by_author[a] |> count") }));
    assert_eq!(definition["result"]["uri"], social_uri);
    assert_eq!(
        definition["result"]["range"]["start"],
        position_of(SCHEMA, "Post {")
    );
    let definition = server.request("textDocument/definition", json!({ "textDocument": { "uri": feed_uri }, "position": position_of(FEED, "by_author[a] |> count") }));
    assert_eq!(
        definition["result"]["range"]["start"],
        position_of(SCHEMA, "by_author")
    );

    // Definition: a field (to its column), a function, a query, an imported name, a `let`.
    let def_at = |server: &mut Server, needle: &str| {
        let answer = server.request(
            "textDocument/definition",
            json!({ "textDocument": { "uri": feed_uri }, "position": position_of(FEED, needle) }),
        );
        (
            answer["result"]["uri"].as_str().unwrap_or("").to_string(),
            answer["result"]["range"]["start"].clone(),
        )
    };
    assert_eq!(
        def_at(&mut server, "author)"),
        (social_uri.clone(), position_of(SCHEMA, "author: Int"))
    );
    assert_eq!(
        def_at(&mut server, "authors(some)"),
        (feed_uri.clone(), position_of(FEED, "authors(ps"))
    );
    assert_eq!(
        def_at(&mut server, "recent(a, 3)"),
        (feed_uri.clone(), position_of(FEED, "recent(a: Int"))
    );
    assert_eq!(
        def_at(&mut server, "User, Post}"),
        (social_uri.clone(), position_of(SCHEMA, "User {"))
    );
    assert_eq!(
        def_at(&mut server, "some) }"),
        (feed_uri.clone(), position_of(FEED, "some = recent"))
    );

    // Completion: parameters, `let` names, functions of the prelude and keywords.
    let complete = |server: &mut Server, needle: &str| -> Vec<String> {
        let answer = server.request(
            "textDocument/completion",
            json!({ "textDocument": { "uri": feed_uri }, "position": position_of(FEED, needle) }),
        );
        answer["result"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["label"].as_str().unwrap().to_string())
            .collect()
    };
    let labels = complete(&mut server, "some) }");
    for wanted in [
        "some",
        "a",
        "take",
        "top",
        "count_where",
        "let",
        "Post",
        "recent",
        "starts_with",
    ] {
        assert!(labels.iter().any(|l| l == wanted), "{wanted} in {labels:?}");
    }

    // A parameter completes with its declared ends.
    let answer = server.request(
        "textDocument/completion",
        json!({ "textDocument": { "uri": feed_uri }, "position": position_of(FEED, "n)\npub fn") }),
    );
    let n = answer["result"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["label"] == "n")
        .cloned();
    assert_eq!(
        n.as_ref().and_then(|i| i["detail"].as_str()),
        Some("n: Int >= 1 <= 100"),
        "{n:?}"
    );

    // Completion after `Post.`: its index and columns.
    let completion = server.request("textDocument/completion", json!({ "textDocument": { "uri": feed_uri }, "position": position_of(FEED, "by_author[a] |> count") }));
    let labels: Vec<&str> = completion["result"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    assert!(
        labels.contains(&"by_author") && labels.contains(&"author"),
        "{labels:?}"
    );

    // Inlay hints: the bound after each header.
    let hints = server.request("textDocument/inlayHint", json!({ "textDocument": { "uri": feed_uri }, "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 9, "character": 0 } } }));
    let labels: Vec<&str> = hints["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["label"].as_str().unwrap())
        .collect();
    assert!(
        labels
            .iter()
            .any(|l| l.contains("seeks ≤ 1 · rows ≤ 100 · round trips ≤ 1 · O(log N)")),
        "{labels:?}"
    );
    assert!(labels.iter().any(|l| l.contains("rejected")), "{labels:?}");

    // Symbols of the schema file.
    let symbols = server.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": social_uri } }),
    );
    let names: Vec<&str> = symbols["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["User", "Post"]);
    let symbols = server.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": feed_uri } }),
    );
    let names: Vec<&str> = symbols["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["post_count", "recent", "authors", "newest"]);

    // The quick fix adds the bound to `Post`; applied, the query checks clean.
    let range =
        json!({ "start": position_of(FEED, "count()"), "end": position_of(FEED, "count()") });
    let actions = server.request("textDocument/codeAction", json!({ "textDocument": { "uri": feed_uri }, "range": range, "context": { "diagnostics": [] } }));
    // (The first declares a maintained count; the bound is offered too.)
    let action = actions["result"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] == "Add `bound author <= 1000` to table `Post`")
        .expect("the bound's quick fix");
    let edit = &action["edit"]["changes"][&social_uri][0];
    assert_eq!(edit["newText"], "  bound author <= 1000\n");
    let at = edit["range"]["start"].clone();
    let line = at["line"].as_u64().unwrap() as usize;
    let mut lines: Vec<&str> = SCHEMA.lines().collect();
    lines.insert(line, "  bound author <= 1000");
    let edited = lines.join("\n") + "\n";
    server.notify("textDocument/didOpen", json!({ "textDocument": { "uri": social_uri, "languageId": "rql", "version": 1, "text": edited } }));
    assert!(
        server.diagnostics(&feed_uri).is_empty(),
        "the bound makes the count bounded"
    );

    let shutdown = server.request("shutdown", Value::Null);
    assert!(shutdown["error"].is_null());
    server.notify("exit", Value::Null);
    let status = server.child.wait().unwrap();
    assert!(status.success());
}

#[test]
fn a_document_nested_past_the_limit_is_a_diagnostic_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    let uri = format!("file://{}/deep.rq", dir.path().display());
    let text = format!(
        "query q(a: Int) = {}a\nquery ok(a: Int) = a\n",
        "-".repeat(30_000)
    );
    server.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "rql", "version": 1, "text": text } }),
    );
    let diagnostics = server.diagnostics(&uri);
    assert!(
        diagnostics.iter().any(|d| d["code"] == "E0008"),
        "{diagnostics:#?}"
    );
    // Still serving: a hover on the query after it answers.
    let hover = server.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri }, "position": { "line": 1, "character": 7 } }),
    );
    assert!(
        hover["result"]["contents"].to_string().contains("ok"),
        "{hover}"
    );
}

#[test]
fn malformed_messages_are_answered_with_errors_and_the_server_carries_on() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    let framed = |body: &[u8]| {
        let mut message = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        message.extend_from_slice(body);
        message
    };
    let cases: Vec<(Vec<u8>, i64)> = vec![
        (b"Content-Length: lots\r\n\r\n".to_vec(), -32700),
        (b"no colon here\r\n\r\n".to_vec(), -32700),
        (framed(b"{not json"), -32700),
        (framed(b"[1, 2]"), -32600),
        (framed(b"{\"jsonrpc\": \"2.0\", \"weird\": 1}"), -32600),
        (framed(&[0xff, 0xfe, b'{', b'}']), -32700),
        (
            b"Content-Length: 4611686018427387904\r\n\r\n".to_vec(),
            -32700,
        ),
    ];
    for (bytes, code) in cases {
        server.send_raw(&bytes);
        let error = server.wait(|m| m["id"].is_null() && m.get("error").is_some());
        assert_eq!(
            error["error"]["code"],
            code,
            "{}: {error}",
            String::from_utf8_lossy(&bytes)
        );
    }
    // A header line too long to keep (a 200 MB one was held whole) is read
    // through and refused, not echoed.
    let mut long = vec![b'X'; 100_000];
    long.extend_from_slice(b"\r\n\r\n");
    server.send_raw(&long);
    let error = server.wait(|m| m["id"].is_null() && m.get("error").is_some());
    let message = error["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("a header line of 100002 bytes") && message.len() < 200,
        "{message}"
    );
    // Still serving.
    let uri = format!("file://{}/ok.rq", dir.path().display());
    server.notify("textDocument/didOpen", json!({ "textDocument": { "uri": uri, "languageId": "rql", "version": 1, "text": "query ok(a: Int) = a\n" } }));
    let hover = server.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri }, "position": { "line": 0, "character": 7 } }),
    );
    assert!(
        hover["result"]["contents"].to_string().contains("ok"),
        "{hover}"
    );
}

const COUNTED: &str = "module counted
import social.{User, Post}
aggregate posts_of = count(Post) by author
aggregate last_at = max(Post.at) by author
pub query posts(a: Int) = posts_of[a]
pub query last(a: Int) = last_at[a]
";

#[test]
fn aggregates_hover_complete_and_go_to_their_declaration() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("social.rq"), SCHEMA).unwrap();
    std::fs::write(root.join("counted.rq"), COUNTED).unwrap();
    let uri = format!("file://{}/counted.rq", root.display());
    let mut server = Server::start(&root);
    server.notify("textDocument/didOpen", json!({ "textDocument": { "uri": uri, "languageId": "rql", "version": 1, "text": COUNTED } }));
    let hover_at = |server: &mut Server, needle: &str| -> String {
        let hover = server.request(
            "textDocument/hover",
            json!({ "textDocument": { "uri": uri }, "position": position_of(COUNTED, needle) }),
        );
        hover["result"]["contents"]["value"]
            .as_str()
            .unwrap()
            .to_string()
    };
    // On a declaration: the read's signature, its type and what keeps it.
    let text = hover_at(&mut server, "posts_of = count");
    assert!(text.contains("posts_of[author: Int] -> Int"), "{text}");
    assert!(
        text.contains("every insert, update and delete of `Post`"),
        "{text}"
    );
    let text = hover_at(&mut server, "last_at = max");
    assert!(text.contains("last_at[author: Int] -> Int?"), "{text}");
    // On a read: its type and its one seek.
    let text = hover_at(&mut server, "posts_of[a]");
    assert!(text.contains("`Int`"), "{text}");
    assert!(text.contains("seeks ≤ 1"), "{text}");
    // Go to definition: from a read to the declaration.
    let definition = server.request(
        "textDocument/definition",
        json!({ "textDocument": { "uri": uri }, "position": position_of(COUNTED, "last_at[a]") }),
    );
    assert_eq!(
        definition["result"]["range"]["start"],
        position_of(COUNTED, "last_at = max")
    );
    // Completion offers the aggregates by name.
    let completion = server.request(
        "textDocument/completion",
        json!({ "textDocument": { "uri": uri }, "position": position_of(COUNTED, "posts_of[a]") }),
    );
    let items = completion["result"]["items"].as_array().unwrap();
    let aggregate = items
        .iter()
        .find(|i| i["label"] == "last_at")
        .unwrap_or_else(|| panic!("{items:#?}"));
    assert_eq!(aggregate["detail"], "aggregate");
}

/// A position as the protocol counts it: the line, and the UTF-16 code
/// units before `needle` on it (an `é` is one, a `😀` two).
fn utf16_position_of(text: &str, needle: &str) -> Value {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle} not in the text"));
    let line = text[..at].matches('\n').count();
    let start = text[..at].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let column = text[start..at].encode_utf16().count();
    json!({ "line": line, "character": column })
}

const UNICODE: &str = "module café
table Café {
  id: Int key
  naïve: String
}
pub query q(i: Int) = { let s = \"😀é\"; Café[i] |> map(c => c.naïve) }
";

/// Unicode names over the protocol: positions stay UTF-16 code units on
/// a line whose names and strings are not ASCII, for hover and go to
/// definition.
#[test]
fn hover_and_definition_count_utf16_on_a_line_with_unicode_names() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("unicode.rq"), UNICODE).unwrap();
    let uri = format!("file://{}/unicode.rq", root.display());
    let mut server = Server::start(&root);
    server.notify("textDocument/didOpen", json!({ "textDocument": { "uri": uri, "languageId": "rql", "version": 1, "text": UNICODE } }));
    let hover = server.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri }, "position": utf16_position_of(UNICODE, "naïve) }") }),
    );
    let text = hover["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("String"), "the column's type: {hover}");
    // One unit further on (bytes would be two for the `ï`): still it.
    let mut inside = utf16_position_of(UNICODE, "naïve) }");
    inside["character"] = json!(inside["character"].as_u64().unwrap() + 4);
    let hover = server.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri }, "position": inside }),
    );
    let text = hover["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("String"), "the column's last letter: {hover}");

    let definition = server.request(
        "textDocument/definition",
        json!({ "textDocument": { "uri": uri }, "position": utf16_position_of(UNICODE, "Café[i]") }),
    );
    let start = utf16_position_of(UNICODE, "Café {");
    assert_eq!(
        definition["result"]["range"]["start"], start,
        "{definition}"
    );
    assert_eq!(
        definition["result"]["range"]["end"]["character"],
        start["character"].as_u64().unwrap() + 4,
        "`Café` is four UTF-16 units: {definition}"
    );
    let definition = server.request(
        "textDocument/definition",
        json!({ "textDocument": { "uri": uri }, "position": utf16_position_of(UNICODE, "naïve) }") }),
    );
    assert_eq!(
        definition["result"]["range"]["start"],
        utf16_position_of(UNICODE, "naïve: String"),
        "{definition}"
    );
}
