//! One plain-data `Diagnostic` for every stage; rendering lives in submodules.
//!
//! Stages build diagnostics and return them; none prints. The same value is
//! rendered for terminals (`render`, via ariadne), as JSON (`json`) and, later,
//! for the language server. Nothing here knows about the terminal.

mod excerpt;
mod json;
mod render;

pub use json::{to_json, DiagnosticJson};
pub use render::{render, render_message, renderer, RenderOptions, Renderer};

use crate::span::Span;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Note,
}

/// Where a label points: a file (by the name it was loaded under) and a span.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Label {
    pub file: String,
    pub span: Span,
    pub message: String,
}

impl Label {
    pub fn new(file: impl Into<String>, span: Span, message: impl Into<String>) -> Label {
        Label {
            file: file.into(),
            span,
            message: message.into(),
        }
    }
}

/// A problem found in a program. `code` is stable across releases and
/// documented in `spec/errors.md`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Diagnostic {
    pub code: String,
    pub severity: Severity,
    pub message: String,
    pub primary: Label,
    pub secondary: Vec<Label>,
    pub help: Vec<String>,
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error whose primary label is `label` at `span` of `file`.
    pub fn error(
        code: &str,
        message: impl Into<String>,
        file: &str,
        span: Span,
        label: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            code: code.to_string(),
            severity: Severity::Error,
            message: message.into(),
            primary: Label::new(file, span, label),
            secondary: Vec::new(),
            help: Vec::new(),
            notes: Vec::new(),
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help.push(help.into());
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    pub fn with_secondary(mut self, label: Label) -> Diagnostic {
        self.secondary.push(label);
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Moves every label `by` bytes on (a text parsed apart, placed in its file).
    pub fn shift(&mut self, by: u32) {
        for label in std::iter::once(&mut self.primary).chain(&mut self.secondary) {
            label.span.start += by;
            label.span.end += by;
        }
    }
}

/// The texts diagnostics point into, by file name. Rendering needs them to
/// draw snippets; JSON needs them to turn offsets into lines and columns.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    files: Vec<(String, String)>,
    /// Each file's line starts, beside it: JSON gives every diagnostic's
    /// lines and columns.
    lines: Vec<crate::span::LineStarts>,
    /// Each file's place in `files`: a program of thousands of files looks
    /// one up per file added and per diagnostic drawn.
    by_name: std::collections::HashMap<String, usize>,
}

impl Sources {
    pub fn new() -> Sources {
        Sources::default()
    }

    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) {
        let name = name.into();
        let text = text.into();
        let lines = crate::span::LineStarts::new(&text);
        match self.by_name.get(&name) {
            Some(&at) => {
                self.files[at].1 = text;
                self.lines[at] = lines;
            }
            None => {
                self.by_name.insert(name.clone(), self.files.len());
                self.files.push((name, text));
                self.lines.push(lines);
            }
        }
    }

    /// The 1-based line and column of `offset` in the file (see
    /// [`crate::span::line_column`]).
    pub fn line_column(&self, name: &str, offset: usize) -> Option<(usize, usize)> {
        let at = *self.by_name.get(name)?;
        Some(self.lines[at].line_column(&self.files[at].1, offset))
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        let at = *self.by_name.get(name)?;
        Some(self.files[at].1.as_str())
    }

    /// The file's text and where its lines start.
    pub(crate) fn text(&self, name: &str) -> Option<excerpt::Text<'_>> {
        let at = *self.by_name.get(name)?;
        Some(excerpt::Text {
            text: &self.files[at].1,
            lines: &self.lines[at],
        })
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.files.iter().map(|(n, t)| (n.as_str(), t.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::Sources;

    #[test]
    fn a_file_added_again_keeps_its_place_and_takes_the_new_text() {
        let mut sources = Sources::new();
        sources.add("a.rq", "one");
        sources.add("b.rq", "two");
        sources.add("a.rq", "three");
        assert_eq!(sources.get("a.rq"), Some("three"));
        assert_eq!(sources.get("b.rq"), Some("two"));
        assert_eq!(sources.get("c.rq"), None);
        let order: Vec<(&str, &str)> = sources.iter().collect();
        assert_eq!(order, [("a.rq", "three"), ("b.rq", "two")]);
    }

    #[test]
    fn lines_and_columns_are_of_the_latest_text() {
        let mut sources = Sources::new();
        sources.add("a.rq", "x\ny");
        assert_eq!(sources.line_column("a.rq", 2), Some((2, 1)));
        sources.add("a.rq", "xé\n\nyz");
        assert_eq!(
            sources.line_column("a.rq", 2),
            Some((1, 2)),
            "é is one column"
        );
        assert_eq!(sources.line_column("a.rq", 4), Some((2, 1)));
        assert_eq!(sources.line_column("a.rq", 6), Some((3, 2)));
        assert_eq!(
            sources.line_column("a.rq", 99),
            Some((3, 3)),
            "past the end"
        );
        assert_eq!(sources.line_column("b.rq", 0), None);
    }
}
