//! Messages that arrived together, handled as one batch: cancelled and stale requests are answered without being computed, and diagnostics are published once, after the last edit.
//!
//! An editor sends a notification on every keystroke and often a request
//! or two (hover, inlay hints) with it. While the server checks one edit,
//! the next ones queue; handling the queue as one batch re-checks once
//! instead of once per keystroke, and answers what the client no longer
//! wants with the errors the protocol has for it: `RequestCancelled`
//! (-32800) for a request named by `$/cancelRequest`, `ContentModified`
//! (-32801) for a request made before a later edit of its document.

use super::Server;
use lsp_server::{ErrorCode, Message, Request, RequestId, Response};
use std::collections::HashSet;

/// What a batch led to.
pub struct Handled {
    /// The answers, in the order of the requests.
    pub responses: Vec<Response>,
    /// Whether an edit changed the analysis (diagnostics are due).
    pub changed: bool,
    /// A `shutdown` request met in the batch: nothing after it was handled.
    pub shutdown: Option<Request>,
    /// Whether the `exit` that follows a shutdown came in the same batch
    /// (then there is nothing left to wait for).
    pub exited: bool,
}

/// Handles `batch` in order on `server`.
pub fn handle(server: &mut Server, batch: Vec<Message>) -> Handled {
    let cancelled: HashSet<RequestId> = batch
        .iter()
        .filter_map(|m| match m {
            Message::Notification(n) if n.method == "$/cancelRequest" => {
                serde_json::from_value(n.params["id"].clone()).ok()
            }
            _ => None,
        })
        .collect();
    let mut handled = Handled {
        responses: Vec::new(),
        changed: false,
        shutdown: None,
        exited: false,
    };
    let edits = edited_documents(&batch);
    let mut messages = batch.into_iter().enumerate();
    while let Some((at, message)) = messages.next() {
        match message {
            Message::Request(request) if request.method == "shutdown" => {
                handled.shutdown = Some(request);
                handled.exited = messages
                    .any(|(_, m)| matches!(&m, Message::Notification(n) if n.method == "exit"));
                break;
            }
            Message::Request(request) => {
                let response = if cancelled.contains(&request.id) {
                    refusal(
                        &request,
                        ErrorCode::RequestCanceled,
                        "cancelled by the client",
                    )
                } else if edited_after(&edits, at, &request) {
                    refusal(
                        &request,
                        ErrorCode::ContentModified,
                        "the document changed after this request; ask again",
                    )
                } else {
                    server.request(&request)
                };
                handled.responses.push(response);
            }
            Message::Notification(notification) => {
                handled.changed |= server.notification(&notification);
            }
            Message::Response(_) => {}
        }
    }
    server.settle();
    handled
}

/// Where each edit of the batch is, and which document it changes.
type Edits = Vec<(usize, String)>;

fn edited_documents(batch: &[Message]) -> Edits {
    batch
        .iter()
        .enumerate()
        .filter_map(|(at, m)| match m {
            Message::Notification(n)
                if matches!(
                    n.method.as_str(),
                    "textDocument/didChange" | "textDocument/didClose"
                ) =>
            {
                Some((at, n.params["textDocument"]["uri"].as_str()?.to_string()))
            }
            _ => None,
        })
        .collect()
}

/// Whether the request's document is edited later in the batch.
fn edited_after(edits: &Edits, at: usize, request: &Request) -> bool {
    let Some(uri) = request.params["textDocument"]["uri"].as_str() else {
        return false;
    };
    edits
        .iter()
        .any(|(later, edited)| *later > at && edited == uri)
}

fn refusal(request: &Request, code: ErrorCode, message: &str) -> Response {
    Response::new_err(request.id.clone(), code as i32, message.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_server::Notification;
    use serde_json::json;

    const URI: &str = "file:///work/feed.rq";
    const FEED: &str = "table T { id: Int key }\nquery one(id: Int) = T[id]\n";

    fn hover(id: i32) -> Message {
        Message::Request(Request::new(
            id.into(),
            "textDocument/hover".into(),
            json!({ "textDocument": { "uri": URI }, "position": { "line": 1, "character": 7 } }),
        ))
    }

    fn notify(method: &str, params: serde_json::Value) -> Message {
        Message::Notification(Notification::new(method.into(), params))
    }

    fn open() -> Message {
        notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": URI, "languageId": "rql", "version": 1, "text": FEED } }),
        )
    }

    fn error_code(response: &Response) -> Option<i32> {
        response.response_result.as_ref().err().map(|e| e.code)
    }

    /// The text of a computed hover.
    fn hover_text(response: &Response) -> String {
        let hovered = response.response_result.as_ref().expect("computed");
        let text = hovered["contents"]["value"].as_str();
        text.unwrap_or_else(|| panic!("a hover: {hovered}"))
            .to_string()
    }

    #[test]
    fn a_cancelled_request_is_answered_as_cancelled_and_the_others_computed() {
        let mut server = Server::new(None);
        let batch = vec![
            open(),
            hover(1),
            notify("$/cancelRequest", json!({ "id": 1 })),
            hover(2),
        ];
        let handled = handle(&mut server, batch);
        assert!(handled.changed, "the open changed the analysis");
        assert_eq!(handled.responses.len(), 2);
        assert_eq!(
            error_code(&handled.responses[0]),
            Some(ErrorCode::RequestCanceled as i32)
        );
        let hovered = hover_text(&handled.responses[1]);
        assert!(hovered.contains("seeks ≤ 1"), "{hovered}");
    }

    #[test]
    fn a_request_made_before_an_edit_of_its_document_is_stale() {
        let mut server = Server::new(None);
        assert!(handle(&mut server, vec![open()]).changed);
        let edit = notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": URI, "version": 2 }, "contentChanges": [{ "text": FEED.replace("one", "uno") }] }),
        );
        let handled = handle(&mut server, vec![hover(3), edit, hover(4)]);
        assert_eq!(
            error_code(&handled.responses[0]),
            Some(ErrorCode::ContentModified as i32)
        );
        let fresh = hover_text(&handled.responses[1]);
        assert!(fresh.contains("uno"), "computed after the edit: {fresh}");
        let unchanged = handle(&mut server, vec![hover(5)]);
        assert!(!unchanged.changed, "a request alone changes nothing");
    }

    #[test]
    fn a_batch_of_edits_reaches_the_analysis_whole_before_a_request_and_at_its_end() {
        let mut server = Server::new(None);
        assert!(handle(&mut server, vec![open()]).changed);
        // Inserts a space at the start of line 1, `count` times.
        let edits = |count: usize, from: i32| {
            (0..count).map(move |i| {
                let at = json!({ "line": 1, "character": 0 });
                notify(
                    "textDocument/didChange",
                    json!({ "textDocument": { "uri": URI, "version": from + i as i32 }, "contentChanges": [{ "range": { "start": at, "end": at }, "text": " " }] }),
                )
            })
        };
        let mut batch: Vec<Message> = edits(3, 2).collect();
        // On `one`, three columns right of where it was.
        batch.push(Message::Request(Request::new(
            6.into(),
            "textDocument/hover".into(),
            json!({ "textDocument": { "uri": URI }, "position": { "line": 1, "character": 10 } }),
        )));
        let handled = handle(&mut server, batch);
        assert!(handled.changed);
        // The request saw the three edits before it.
        let hovered = hover_text(&handled.responses[0]);
        assert!(hovered.contains("seeks ≤ 1"), "{hovered}");
        // A batch of edits alone: the analysis has them when it ends.
        assert!(handle(&mut server, edits(2, 5).collect()).changed);
        assert!(server.edited.is_empty());
        let (_, text) = server.analysis.files().into_iter().next().unwrap();
        assert_eq!(text, FEED.replacen("query", "     query", 1));
    }

    #[test]
    fn a_shutdown_stops_the_batch_and_notes_an_exit_after_it() {
        let mut server = Server::new(None);
        let shutdown = Message::Request(Request::new(9.into(), "shutdown".into(), json!(null)));
        let handled = handle(
            &mut server,
            vec![shutdown.clone(), hover(10), notify("exit", json!(null))],
        );
        assert_eq!(handled.shutdown.map(|r| r.id), Some(9.into()));
        assert!(handled.exited);
        assert!(
            handled.responses.is_empty(),
            "nothing after the shutdown is answered"
        );
        let alone = handle(&mut server, vec![shutdown]);
        assert!(alone.shutdown.is_some() && !alone.exited);
    }
}
