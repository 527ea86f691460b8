//! Diagnostics as JSON objects for tools: file, line and column instead of offsets.

use super::{Diagnostic, Severity, Sources};
use serde::Serialize;

/// The documented JSON face of a diagnostic (see `spec/json.md`).
#[derive(Clone, Debug, Serialize)]
pub struct DiagnosticJson {
    pub code: String,
    pub severity: Severity,
    pub message: String,
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    pub label: String,
    pub related: Vec<RelatedJson>,
    pub help: Vec<String>,
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RelatedJson {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

pub fn to_json(diagnostic: &Diagnostic, sources: &Sources) -> DiagnosticJson {
    let position =
        |file: &str, offset: u32| sources.line_column(file, offset as usize).unwrap_or((1, 1));
    let primary = &diagnostic.primary;
    let (line, column) = position(&primary.file, primary.span.start);
    let (end_line, end_column) = position(&primary.file, primary.span.end);
    DiagnosticJson {
        code: diagnostic.code.clone(),
        severity: diagnostic.severity,
        message: diagnostic.message.clone(),
        file: primary.file.clone(),
        line,
        column,
        end_line,
        end_column,
        label: primary.message.clone(),
        related: diagnostic
            .secondary
            .iter()
            .map(|label| {
                let (line, column) = position(&label.file, label.span.start);
                RelatedJson {
                    file: label.file.clone(),
                    line,
                    column,
                    message: label.message.clone(),
                }
            })
            .collect(),
        help: diagnostic.help.clone(),
        notes: diagnostic.notes.clone(),
    }
}
