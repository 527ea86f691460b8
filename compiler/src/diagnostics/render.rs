//! Terminal rendering of diagnostics with ariadne.

use super::{Diagnostic, Severity, Sources};
use ariadne::{Cache, Color, Config, Label as AriadneLabel, Report, ReportKind};
use std::collections::HashMap;

#[derive(Clone, Copy, Debug)]
pub struct RenderOptions {
    /// Colour escapes; callers decide (a terminal, and `NO_COLOR` unset).
    pub color: bool,
}

/// Renders one diagnostic as text, snippets included. To render many,
/// make one [`Renderer`]: it indexes the sources once.
pub fn render(diagnostic: &Diagnostic, sources: &Sources, options: RenderOptions) -> String {
    renderer(sources, options).render(diagnostic)
}

/// Renders diagnostics over one set of sources, which it indexes once:
/// rendering many costs time in their number, not in their number times
/// the sources' length.
pub struct Renderer<'s, C> {
    options: RenderOptions,
    cache: C,
    /// By file: the byte offset where each character starts.
    char_starts: HashMap<&'s str, Vec<u32>>,
}

/// A [`Renderer`] over `sources`.
pub fn renderer(sources: &Sources, options: RenderOptions) -> Renderer<'_, impl Cache<String>> {
    let texts: Vec<(String, String)> = sources
        .iter()
        .map(|(name, text)| (name.to_string(), text.to_string()))
        .collect();
    let cache = ariadne::sources(texts);
    let char_starts = sources
        .iter()
        .map(|(name, text)| (name, text.char_indices().map(|(i, _)| i as u32).collect()))
        .collect();
    Renderer {
        options,
        cache,
        char_starts,
    }
}

impl<C: Cache<String>> Renderer<'_, C> {
    pub fn render(&mut self, diagnostic: &Diagnostic) -> String {
        let kind = match diagnostic.severity {
            Severity::Error => ReportKind::Error,
            Severity::Warning => ReportKind::Warning,
            Severity::Note => ReportKind::Advice,
        };
        let primary = &diagnostic.primary;
        // Spans are byte offsets; ariadne counts characters.
        let span_of = |label: &super::Label| {
            let empty = Vec::new();
            let starts = self.char_starts.get(label.file.as_str()).unwrap_or(&empty);
            let chars = |offset: u32| starts.partition_point(|&b| b < offset);
            clamp(chars(label.span.start)..chars(label.span.end), starts.len())
        };
        let mut report = Report::build(kind, (primary.file.clone(), span_of(primary)))
            .with_config(Config::default().with_color(self.options.color))
            .with_code(&diagnostic.code)
            .with_message(&diagnostic.message)
            .with_label(
                AriadneLabel::new((primary.file.clone(), span_of(primary)))
                    .with_message(&primary.message)
                    .with_color(Color::Red),
            );
        for label in &diagnostic.secondary {
            report = report.with_label(
                AriadneLabel::new((label.file.clone(), span_of(label)))
                    .with_message(&label.message)
                    .with_color(Color::Blue),
            );
        }
        for help in &diagnostic.help {
            report = report.with_help(help);
        }
        for note in &diagnostic.notes {
            report = report.with_note(note);
        }
        let mut out = Vec::new();
        // Writing to a Vec cannot fail; a missing source only loses the snippet.
        let _ = report.finish().write(&mut self.cache, &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }
}

/// ariadne draws no label past the end of the text (an end-of-input error
/// points there), so labels are pulled back onto the last character.
fn clamp(range: std::ops::Range<usize>, len: usize) -> std::ops::Range<usize> {
    if len == 0 {
        return 0..0;
    }
    let start = range.start.min(len - 1);
    let end = range.end.clamp(start + 1, len);
    start..end
}
