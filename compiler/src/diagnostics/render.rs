//! Terminal rendering of diagnostics with ariadne.

use super::excerpt::{as_in_files, Excerpt, Text};
use super::{Diagnostic, Label, Severity, Sources};
use ariadne::{Cache, Color, Config, FnCache, Label as AriadneLabel, Report, ReportKind, Source};
use std::collections::HashMap;
use std::ops::Range;

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
    sources: &'s Sources,
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
        sources,
    }
}

impl<C: Cache<String>> Renderer<'_, C> {
    pub fn render(&mut self, diagnostic: &Diagnostic) -> String {
        if let Some(excerpted) = self.render_excerpted(diagnostic) {
            return excerpted;
        }
        // Spans are byte offsets; ariadne counts characters.
        let char_starts = &self.char_starts;
        let span_of = |label: &Label| {
            let empty = Vec::new();
            let starts = char_starts.get(label.file.as_str()).unwrap_or(&empty);
            let chars = |offset: u32| starts.partition_point(|&b| b < offset);
            clamp(chars(label.span.start)..chars(label.span.end), starts.len())
        };
        let report = report(diagnostic, self.options, span_of);
        let mut out = Vec::new();
        // Writing to a Vec cannot fail; a missing source only loses the snippet.
        let _ = report.write(&mut self.cache, &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    /// A diagnostic that touches a very long line, drawn from excerpts of
    /// its files (see `excerpt.rs`); `None` when it touches none.
    fn render_excerpted(&self, diagnostic: &Diagnostic) -> Option<String> {
        let labels: Vec<&Label> = std::iter::once(&diagnostic.primary)
            .chain(&diagnostic.secondary)
            .collect();
        let range = |label: &Label| label.span.start as usize..label.span.end as usize;
        let mut by_file: Vec<(&str, Text<'_>, Vec<Range<usize>>)> = Vec::new();
        for label in &labels {
            let Some(text) = self.sources.text(&label.file) else {
                continue;
            };
            match by_file.iter_mut().find(|(file, _, _)| *file == label.file) {
                Some((_, _, spans)) => spans.push(range(label)),
                None => by_file.push((&label.file, text, vec![range(label)])),
            }
        }
        if !by_file
            .iter()
            .any(|(_, text, spans)| text.touches_long_line(spans))
        {
            return None;
        }
        let excerpts: HashMap<&str, Excerpt> = by_file
            .iter()
            .map(|(file, text, spans)| (*file, text.excerpt(spans)))
            .collect();
        // In characters, as for whole files: ariadne 0.6 counting bytes
        // still takes another file's header place in characters.
        let span_of = |label: &Label| match excerpts.get(label.file.as_str()) {
            Some(excerpt) => {
                let chars = |offset: u32| {
                    let at = excerpt.map(offset as usize);
                    excerpt.text[..at].chars().count()
                };
                let len = excerpt.text.chars().count();
                clamp(chars(label.span.start)..chars(label.span.end), len)
            }
            None => 0..0,
        };
        let report = report(diagnostic, self.options, span_of);
        let mut cache =
            FnCache::new((|file: &String| Err(format!("no source `{file}`"))) as fn(&String) -> _)
                .with_sources(
                    excerpts
                        .iter()
                        .map(|(file, excerpt)| {
                            let source = Source::from(excerpt.text.clone())
                                .with_display_line_offset(excerpt.first_line);
                            (file.to_string(), source)
                        })
                        .collect(),
                );
        let mut out = Vec::new();
        let _ = report.write(&mut cache, &mut out);
        Some(as_in_files(&String::from_utf8_lossy(&out), &excerpts))
    }
}

/// The report of `diagnostic`, its labels placed by `span_of`.
fn report(
    diagnostic: &Diagnostic,
    options: RenderOptions,
    span_of: impl Fn(&Label) -> Range<usize>,
) -> Report<'static, (String, Range<usize>)> {
    let kind = match diagnostic.severity {
        Severity::Error => ReportKind::Error,
        Severity::Warning => ReportKind::Warning,
        Severity::Note => ReportKind::Advice,
    };
    let primary = &diagnostic.primary;
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
    report.finish()
}

/// ariadne draws no label past the end of the text (an end-of-input error
/// points there), so labels are pulled back onto the last character.
fn clamp(range: Range<usize>, len: usize) -> Range<usize> {
    if len == 0 {
        return 0..0;
    }
    let start = range.start.min(len - 1);
    let end = range.end.clamp(start + 1, len);
    start..end
}
