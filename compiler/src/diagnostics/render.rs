//! Terminal rendering of diagnostics with ariadne.

use super::{Diagnostic, Severity, Sources};
use ariadne::{Color, Config, Label as AriadneLabel, Report, ReportKind};

#[derive(Clone, Copy, Debug)]
pub struct RenderOptions {
    /// Colour escapes; callers decide (a terminal, and `NO_COLOR` unset).
    pub color: bool,
}

/// Renders one diagnostic as text, snippets included.
pub fn render(diagnostic: &Diagnostic, sources: &Sources, options: RenderOptions) -> String {
    let kind = match diagnostic.severity {
        Severity::Error => ReportKind::Error,
        Severity::Warning => ReportKind::Warning,
        Severity::Note => ReportKind::Advice,
    };
    let primary = &diagnostic.primary;
    // Spans are byte offsets; ariadne counts characters.
    let span_of = |label: &super::Label| {
        let text = sources.get(&label.file).unwrap_or("");
        let chars = |offset: usize| {
            let mut offset = offset.min(text.len());
            while !text.is_char_boundary(offset) {
                offset -= 1;
            }
            text[..offset].chars().count()
        };
        let range = label.span.range();
        clamp(chars(range.start)..chars(range.end), text.chars().count())
    };
    let mut report = Report::build(kind, (primary.file.clone(), span_of(primary)))
        .with_config(Config::default().with_color(options.color))
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
    let cache = ariadne::sources(
        sources
            .iter()
            .map(|(name, text)| (name.to_string(), text.to_string())),
    );
    let mut out = Vec::new();
    // Writing to a Vec cannot fail; a missing source only loses the snippet.
    let _ = report.finish().write(cache, &mut out);
    String::from_utf8_lossy(&out).into_owned()
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
