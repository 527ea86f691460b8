//! `rqc lsp`: the language server over stdio, a thin front end over the
//! incremental analysis (`rqc_compiler::db`) and its editor features
//! (`rqc_compiler::ide`).

mod batch;
mod position;
pub mod transport;

use lsp_server::{Connection, Message, Notification, Request, Response};

use position::{offset, range, Lines};
use rqc_compiler::db::Analysis;
use rqc_compiler::diagnostics::{Diagnostic, Severity};
use rqc_compiler::ide;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Runs the server until the client says `exit`.
pub fn serve() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let (connection, io_threads) = transport::stdio();
    let (id, params) = connection.initialize_start()?;
    let root = root_of(&params);
    connection.initialize_finish(
        id,
        json!({
            "capabilities": {
                "textDocumentSync": { "openClose": true, "change": 2, "save": true },
                "hoverProvider": true,
                "definitionProvider": true,
                "completionProvider": { "triggerCharacters": ["."] },
                "inlayHintProvider": true,
                "codeActionProvider": { "codeActionKinds": ["quickfix"] },
                "documentSymbolProvider": true
            },
            "serverInfo": { "name": "rqc", "version": env!("CARGO_PKG_VERSION") }
        }),
    )?;
    let mut server = Server::new(root);
    server.publish_all(&connection)?;
    // Whatever arrived while the last batch was handled is the next batch.
    while let Ok(first) = connection.receiver.recv() {
        let mut messages = vec![first];
        messages.extend(connection.receiver.try_iter());
        let handled = batch::handle(&mut server, messages);
        for response in handled.responses {
            connection.sender.send(Message::Response(response))?;
        }
        if handled.changed {
            server.publish_all(&connection)?;
        }
        if let Some(shutdown) = handled.shutdown {
            if handled.exited {
                let done = Response::new_ok(shutdown.id, ());
                connection.sender.send(Message::Response(done))?;
                break;
            }
            if connection.handle_shutdown(&shutdown)? {
                break;
            }
        }
    }
    // The connection must be dropped before joining, or the writer waits.
    drop(connection);
    io_threads.join()?;
    Ok(())
}

fn root_of(params: &Value) -> Option<PathBuf> {
    let uri = params["rootUri"]
        .as_str()
        .or_else(|| params["workspaceFolders"][0]["uri"].as_str())?;
    path_of(uri)
}

fn path_of(uri: &str) -> Option<PathBuf> {
    let path = uri.strip_prefix("file://")?;
    Some(PathBuf::from(percent_decode(path)))
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&text[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The files a diagnostic's labels point into.
fn label_files(d: &Diagnostic) -> impl Iterator<Item = &str> {
    std::iter::once(&d.primary)
        .chain(&d.secondary)
        .map(|label| label.file.as_str())
}

/// The lines of each text, for many positions in it.
fn lines_of<'t>(texts: &'t BTreeMap<&str, String>) -> BTreeMap<&'t str, Lines<'t>> {
    texts
        .iter()
        .map(|(file, text)| (*file, Lines::new(text)))
        .collect()
}

/// A diagnostic as the editor takes it: its ranges from `lines`, which
/// holds every file it points into.
fn lsp_diagnostic(lines: &BTreeMap<&str, Lines>, d: &Diagnostic) -> Value {
    let range_in = |file: &str, span: rqc_compiler::Span| {
        let (start, end) = (span.start as usize, span.end as usize);
        // `publish_all` gives the lines of every file a diagnostic points
        // into; a file it had no text for has one empty line.
        match lines.get(file) {
            Some(lines) => lines.range(start, end),
            None => range("", start, end),
        }
    };
    let mut message = d.message.clone();
    for help in &d.help {
        message.push_str(&format!("\nhelp: {help}"));
    }
    let related: Vec<Value> = d
        .secondary
        .iter()
        .map(|label| {
            json!({
                "location": { "uri": uri_of(&label.file), "range": range_in(&label.file, label.span) },
                "message": label.message
            })
        })
        .collect();
    json!({
        "range": range_in(&d.primary.file, d.primary.span),
        "severity": match d.severity { Severity::Error => 1, Severity::Warning => 2, Severity::Note => 3 },
        "code": d.code,
        "source": "rqc",
        "message": message,
        "relatedInformation": related,
        "data": { "help": d.help }
    })
}

fn uri_of(path: &str) -> String {
    format!("file://{path}")
}

struct Server {
    analysis: Analysis,
    /// Files known, with whether the client has them open.
    open: BTreeMap<String, bool>,
    /// Files that had diagnostics, so they can be cleared.
    published: BTreeMap<String, usize>,
    /// Texts edited since the analysis last had them: a batch's edits of a
    /// document are applied here and given to the analysis once, before
    /// the next request or at the batch's end (giving it each edit's text
    /// copied and re-split the whole document per edit).
    edited: std::collections::HashMap<String, String>,
}

impl Server {
    fn new(root: Option<PathBuf>) -> Server {
        let mut files = Vec::new();
        if let Some(root) = root {
            let mut found = Vec::new();
            collect(&root, &mut found, 0);
            found.sort();
            for path in found {
                // A file past the size cap (or unreadable) is left out.
                if let Ok(text) = rqc::read_source(&path) {
                    files.push((path.display().to_string(), text));
                }
            }
        }
        let open = files.iter().map(|(n, _)| (n.clone(), false)).collect();
        Server {
            analysis: Analysis::checked_by(&files, Some(rqc::install::install_check())),
            open,
            published: BTreeMap::new(),
            edited: Default::default(),
        }
    }

    fn text(&self, file: &str) -> String {
        match self.edited.get(file) {
            Some(text) => text.clone(),
            None => self.analysis.text(file).unwrap_or_default().to_string(),
        }
    }

    /// Gives the analysis the texts edited since it last had them.
    fn settle(&mut self) {
        for (file, text) in self.edited.drain() {
            self.analysis.set_file(&file, &text);
        }
    }

    /// The text of each of `files`, each once.
    fn texts<'f>(&self, files: impl Iterator<Item = &'f str>) -> BTreeMap<&'f str, String> {
        let mut texts = BTreeMap::new();
        for file in files {
            texts.entry(file).or_insert_with(|| self.text(file));
        }
        texts
    }

    /// Applies a notification; true when the analysis changed.
    fn notification(&mut self, notification: &Notification) -> bool {
        let params = &notification.params;
        let file = params["textDocument"]["uri"]
            .as_str()
            .and_then(path_of)
            .map(|p| p.display().to_string());
        let Some(file) = file else { return false };
        match notification.method.as_str() {
            "textDocument/didOpen" => {
                let text = params["textDocument"]["text"].as_str().unwrap_or("");
                self.edited.remove(&file);
                self.open.insert(file.clone(), true);
                self.analysis.set_file(&file, text);
                true
            }
            "textDocument/didChange" => {
                let mut text = match self.edited.remove(&file) {
                    Some(text) => text,
                    None => self.text(&file),
                };
                for change in params["contentChanges"].as_array().into_iter().flatten() {
                    let new_text = change["text"].as_str().unwrap_or("");
                    match serde_json::from_value::<lsp_types::Range>(change["range"].clone()) {
                        Ok(r) => {
                            let (start, end) = (offset(&text, r.start), offset(&text, r.end));
                            text.replace_range(start..end.max(start), new_text);
                        }
                        Err(_) => text = new_text.to_string(),
                    }
                }
                self.edited.insert(file, text);
                true
            }
            "textDocument/didClose" => {
                self.edited.remove(&file);
                self.open.insert(file.clone(), false);
                match rqc::read_source(std::path::Path::new(&file)) {
                    Ok(text) => self.analysis.set_file(&file, &text),
                    Err(_) => {
                        self.analysis.remove_file(&file);
                        self.open.remove(&file);
                    }
                }
                true
            }
            _ => false,
        }
    }

    /// Diagnostics of every known file (empty lists clear old ones).
    fn publish_all(
        &mut self,
        connection: &Connection,
    ) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        let diagnostics = self.analysis.diagnostics();
        let mut by_file: BTreeMap<String, Vec<&Diagnostic>> = BTreeMap::new();
        for d in &diagnostics {
            by_file.entry(d.primary.file.clone()).or_default().push(d);
        }
        let files: std::collections::BTreeSet<String> = self
            .open
            .keys()
            .chain(self.published.keys())
            .cloned()
            .collect();
        // Each file's text, once, for the positions of the diagnostics and
        // labels that point into it.
        let texts = self.texts(diagnostics.iter().flat_map(label_files));
        let lines = lines_of(&texts);
        for file in &files {
            let list = by_file.get(file).cloned().unwrap_or_default();
            if list.is_empty() && !self.published.contains_key(file) {
                continue;
            }
            let diagnostics: Vec<Value> = list.iter().map(|d| lsp_diagnostic(&lines, d)).collect();
            if diagnostics.is_empty() {
                self.published.remove(file);
            } else {
                self.published.insert(file.clone(), diagnostics.len());
            }
            let params = json!({ "uri": uri_of(file), "diagnostics": diagnostics });
            connection
                .sender
                .send(Message::Notification(Notification::new(
                    "textDocument/publishDiagnostics".into(),
                    params,
                )))?;
        }
        Ok(())
    }

    fn request(&mut self, request: &Request) -> Response {
        self.settle();
        let params = &request.params;
        let file = params["textDocument"]["uri"]
            .as_str()
            .and_then(path_of)
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        let text = self.text(&file);
        let at = serde_json::from_value::<lsp_types::Position>(params["position"].clone())
            .map(|p| offset(&text, p))
            .unwrap_or(0);
        let result = match request.method.as_str() {
            "textDocument/hover" => match ide::hover(&self.analysis, &file, at) {
                Some(markdown) => json!({ "contents": { "kind": "markdown", "value": markdown } }),
                None => Value::Null,
            },
            "textDocument/definition" => match ide::definition(&self.analysis, &file, at) {
                Some((target, span)) => {
                    let target_text = self.text(&target);
                    json!({ "uri": uri_of(&target), "range": range(&target_text, span.start as usize, span.end as usize) })
                }
                None => Value::Null,
            },
            "textDocument/completion" => {
                let items: Vec<Value> = ide::completions(&self.analysis, &file, &text, at)
                    .into_iter()
                    .map(|c| {
                        let kind = match c.kind {
                            ide::CompletionKind::Keyword => 14,
                            ide::CompletionKind::Function => 3,
                            ide::CompletionKind::Table => 22,
                            ide::CompletionKind::Index => 12,
                            ide::CompletionKind::Field => 5,
                            ide::CompletionKind::Variable => 6,
                            ide::CompletionKind::Aggregate => 6,
                        };
                        json!({ "label": c.label, "kind": kind, "detail": c.detail })
                    })
                    .collect();
                json!({ "isIncomplete": false, "items": items })
            }
            "textDocument/inlayHint" => {
                let lines = Lines::new(&text);
                let hints: Vec<Value> = ide::inlay_hints(&self.analysis, &file)
                    .into_iter()
                    .map(|(at, label)| json!({ "position": lines.position(at), "label": label, "paddingLeft": true }))
                    .collect();
                json!(hints)
            }
            "textDocument/codeAction" => self.code_actions(&file, &text, params),
            "textDocument/documentSymbol" => {
                fn symbol(lines: &Lines, s: &ide::Symbol) -> Value {
                    let kind = match s.kind {
                        "table" => 23,
                        "column" => 8,
                        "index" => 20,
                        "query" | "mutation" => 12,
                        _ => 12,
                    };
                    json!({
                        "name": s.name,
                        "detail": s.kind,
                        "kind": kind,
                        "range": lines.range(s.span.start as usize, s.span.end as usize),
                        "selectionRange": lines.range(s.selection.start as usize, s.selection.end as usize),
                        "children": s.children.iter().map(|c| symbol(lines, c)).collect::<Vec<_>>()
                    })
                }
                let lines = Lines::new(&text);
                json!(ide::symbols(&self.analysis, &file)
                    .iter()
                    .map(|s| symbol(&lines, s))
                    .collect::<Vec<_>>())
            }
            other => {
                return Response::new_err(
                    request.id.clone(),
                    -32601,
                    format!("rqc lsp does not handle `{other}`"),
                );
            }
        };
        Response::new_ok(request.id.clone(), result)
    }

    fn code_actions(&self, file: &str, text: &str, params: &Value) -> Value {
        let Ok(wanted) = serde_json::from_value::<lsp_types::Range>(params["range"].clone()) else {
            return json!([]);
        };
        let (start, end) = (offset(text, wanted.start), offset(text, wanted.end));
        let mut actions = Vec::new();
        for d in self
            .analysis
            .diagnostics()
            .iter()
            .filter(|d| d.primary.file == file)
        {
            let (ds, de) = (d.primary.span.start as usize, d.primary.span.end as usize);
            if de < start || ds > end {
                continue;
            }
            for action in ide::code_actions(&self.analysis, d) {
                let mut changes: BTreeMap<String, Vec<Value>> = BTreeMap::new();
                for edit in &action.edits {
                    let target = self.text(&edit.file);
                    changes.entry(uri_of(&edit.file)).or_default().push(json!({
                        "range": range(&target, edit.span.start as usize, edit.span.end as usize),
                        "newText": edit.text
                    }));
                }
                actions.push(json!({
                    "title": action.title,
                    "kind": "quickfix",
                    "diagnostics": [lsp_diagnostic(&lines_of(&self.texts(label_files(d))), d)],
                    "edit": { "changes": changes }
                }));
            }
        }
        json!(actions)
    }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) {
    if depth > 8 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let hidden = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.') || n == "target");
        if path.is_dir() && !hidden {
            collect(&path, out, depth + 1);
        } else if path.extension().is_some_and(|e| e == "rq") {
            out.push(path);
        }
    }
}
