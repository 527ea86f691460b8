//! The language server's stdio transport: messages framed by hand, so that a malformed one is answered with a JSON-RPC error and the server carries on.
//!
//! `lsp_server`'s own transport ends the connection at the first message it
//! cannot read (a bad header, invalid JSON or UTF-8, a JSON value that is
//! no message), and allocates whatever `Content-Length` says. Here each of
//! those is answered with the JSON-RPC error it calls for (id `null`), a
//! length over [`MAX_MESSAGE`] is refused without reading it, and reading
//! goes on at the next header.

use crossbeam_channel::{unbounded, Receiver, Sender};
use lsp_server::{Connection, Message};
use serde_json::{json, Value};
use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// The longest message read (64 MiB); a longer one is refused.
pub const MAX_MESSAGE: usize = 64 << 20;

/// JSON-RPC's codes for a message that is not JSON, and for JSON that is
/// no request, notification or response.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;

/// The reader and writer threads, joined when the connection is done.
pub struct Transport {
    reader: JoinHandle<()>,
    writer: JoinHandle<std::io::Result<()>>,
}

impl Transport {
    pub fn join(self) -> std::io::Result<()> {
        // The reader stops at the end of input; the server is done by then
        // only when the client closed it, so it is not waited for.
        drop(self.reader);
        self.writer.join().unwrap_or(Ok(()))
    }
}

/// A connection over this process's stdin and stdout.
pub fn stdio() -> (Connection, Transport) {
    let out = Arc::new(Mutex::new(std::io::stdout()));
    let (to_client, outgoing) = unbounded::<Message>();
    let (incoming, from_client) = unbounded::<Message>();
    let writer = {
        let out = Arc::clone(&out);
        std::thread::spawn(move || write_all(&out, &outgoing))
    };
    let reader = std::thread::spawn(move || {
        let stdin = std::io::stdin();
        read_all(&mut stdin.lock(), &incoming, &out);
    });
    let connection = Connection {
        sender: to_client,
        receiver: from_client,
    };
    (connection, Transport { reader, writer })
}

fn write_all(out: &Mutex<std::io::Stdout>, outgoing: &Receiver<Message>) -> std::io::Result<()> {
    for message in outgoing {
        let mut out = out.lock().unwrap_or_else(|p| p.into_inner());
        message.write(&mut *out)?;
    }
    Ok(())
}

/// Reads messages until the input ends, answering each unreadable one.
pub fn read_all(input: &mut impl BufRead, incoming: &Sender<Message>, out: &Mutex<impl Write>) {
    loop {
        match read_one(input) {
            Incoming::End => return,
            Incoming::Message(message) => {
                if incoming.send(message).is_err() {
                    return;
                }
            }
            Incoming::Refused { code, message } => {
                let error = json!({
                    "jsonrpc": "2.0",
                    "id": null,
                    "error": { "code": code, "message": message }
                })
                .to_string();
                let mut out = out.lock().unwrap_or_else(|p| p.into_inner());
                let _ = write!(out, "Content-Length: {}\r\n\r\n{error}", error.len());
                let _ = out.flush();
            }
        }
    }
}

enum Incoming {
    End,
    Message(Message),
    Refused { code: i64, message: String },
}

fn refused(code: i64, message: impl Into<String>) -> Incoming {
    Incoming::Refused {
        code,
        message: message.into(),
    }
}

/// The longest header line read: a longer one is read through to its end
/// without being kept, and refused (one 200 MB line without a newline was
/// held whole).
pub const MAX_HEADER_LINE: usize = 8 << 10;

enum HeaderLine {
    End,
    Line(Vec<u8>),
    /// A line longer than [`MAX_HEADER_LINE`], and its length.
    TooLong(usize),
}

/// One header line with its newline, or its length when too long.
fn header_line(input: &mut impl BufRead) -> HeaderLine {
    let mut line = Vec::new();
    let mut length = 0;
    loop {
        let buffer = match input.fill_buf() {
            Ok([]) | Err(_) => return HeaderLine::End,
            Ok(buffer) => buffer,
        };
        let (taken, ended) = match buffer.iter().position(|&b| b == b'\n') {
            Some(newline) => (newline + 1, true),
            None => (buffer.len(), false),
        };
        length += taken;
        if length <= MAX_HEADER_LINE {
            line.extend_from_slice(&buffer[..taken]);
        }
        input.consume(taken);
        if ended {
            return match length <= MAX_HEADER_LINE {
                true => HeaderLine::Line(line),
                false => HeaderLine::TooLong(length),
            };
        }
    }
}

fn read_one(input: &mut impl BufRead) -> Incoming {
    let mut length: Option<usize> = None;
    let mut malformed = None;
    let mut saw_header = false;
    loop {
        let line = match header_line(input) {
            HeaderLine::End => return Incoming::End,
            HeaderLine::Line(line) => line,
            HeaderLine::TooLong(length) => {
                malformed = Some(format!(
                    "a header line of {length} bytes (at most {MAX_HEADER_LINE})"
                ));
                saw_header = true;
                continue;
            }
        };
        let Ok(line) = String::from_utf8(line) else {
            malformed = Some("a header line that is not UTF-8".to_string());
            saw_header = true;
            continue;
        };
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            if saw_header {
                break;
            }
            continue;
        }
        saw_header = true;
        match line.split_once(':') {
            Some((name, value)) if name.eq_ignore_ascii_case("content-length") => {
                match value.trim().parse::<usize>() {
                    Ok(n) => length = Some(n),
                    Err(_) => malformed = Some(format!("`{line}` is no length")),
                }
            }
            Some(_) => {}
            None => malformed = Some(format!("`{line}` is no header")),
        }
    }
    if let Some(problem) = malformed {
        return refused(PARSE_ERROR, format!("unreadable message header: {problem}"));
    }
    let Some(length) = length else {
        return refused(PARSE_ERROR, "a message without `Content-Length`");
    };
    if length > MAX_MESSAGE {
        return refused(
            PARSE_ERROR,
            format!("a message of {length} bytes is refused: at most {MAX_MESSAGE}"),
        );
    }
    let mut body = vec![0; length];
    if input.read_exact(&mut body).is_err() {
        return Incoming::End;
    }
    let Ok(text) = std::str::from_utf8(&body) else {
        return refused(PARSE_ERROR, "a message body that is not UTF-8");
    };
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(error) => {
            return refused(
                PARSE_ERROR,
                format!("a message body that is not JSON: {error}"),
            )
        }
    };
    if !value.is_object() {
        return refused(INVALID_REQUEST, "a message that is not a JSON object");
    }
    match serde_json::from_value::<Message>(value) {
        Ok(message) => Incoming::Message(message),
        Err(error) => refused(
            INVALID_REQUEST,
            format!("a JSON object that is no request, notification or response: {error}"),
        ),
    }
}
