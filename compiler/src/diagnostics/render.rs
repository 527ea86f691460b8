//! Terminal rendering of diagnostics with ariadne.

use super::excerpt::{as_in_files, first_visible, Excerpt, Text};
use super::{Diagnostic, Label, Severity, Sources};
use ariadne::{
    Cache, Color, Config, Fmt, FnCache, Label as AriadneLabel, Report, ReportKind, Source,
};
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

/// A problem with no place in a source (a runtime refusal, a file that
/// cannot be read), in the style of every diagnostic: the header
/// `[E0502] Error: message`, as ariadne draws it, then a `Help:` line for
/// each of `help`, coloured as a diagnostic's are when `options.color`.
pub fn render_message(code: &str, message: &str, help: &[&str], options: RenderOptions) -> String {
    let config = Config::default().with_color(options.color);
    let report = Report::<Range<usize>>::build(ReportKind::Error, 0..0)
        .with_config(config)
        .with_code(code)
        .with_message(message)
        .finish();
    let mut out = Vec::new();
    // No label: ariadne draws the header alone (and no help, which it
    // draws in a snippet's margin).
    let _ = report.write(Source::from(""), &mut out);
    let mut text = String::from_utf8_lossy(&out).into_owned();
    // ariadne's colour for notes and help.
    let color = options.color.then_some(Color::Fixed(115));
    for help in help {
        let mut lines = help.lines();
        let first = lines.next().unwrap_or_default();
        text.push_str(&format!("  {}: {first}\n", "Help".fg(color)));
        for line in lines {
            text.push_str(&format!("        {line}\n"));
        }
    }
    text
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
        let places = group_places(diagnostic, span_of, &mut self.cache);
        with_group_places(&String::from_utf8_lossy(&out), &places)
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
        let places = group_places(diagnostic, span_of, &mut cache);
        let rendered = with_group_places(&String::from_utf8_lossy(&out), &places);
        Some(as_in_files(&rendered, &excerpts))
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

/// Where each group of labels ariadne draws is: its file and the
/// `line:column` of its first label, as ariadne counts them in `cache`.
///
/// ariadne 0.6 draws the labels of a report in groups (a file's labels
/// whose lines do not go back; a label on an earlier line than the one
/// before it starts a new group) and heads each with a `file:line:column`;
/// but it takes the place of a group in the primary label's file from the
/// primary label, even for a group that holds only another label (a
/// definition's first place, above the duplicate's), so that group's
/// header named the primary's line above another line's snippet. The
/// groups are found here as ariadne finds them, each with its own first
/// label's place (the primary's for the first group, which holds it).
fn group_places<C: Cache<String>>(
    diagnostic: &Diagnostic,
    span_of: impl Fn(&Label) -> Range<usize>,
    cache: &mut C,
) -> Vec<(String, String)> {
    // (file, the line of the label's last character, its place), as
    // ariadne's `get_source_groups` takes them, a label it cannot place
    // left out as it leaves it out.
    let mut groups: Vec<(String, usize, String)> = Vec::new();
    for label in std::iter::once(&diagnostic.primary).chain(&diagnostic.secondary) {
        let Ok(source) = cache.fetch(&label.file) else {
            continue;
        };
        let span = span_of(label);
        let Some((_, start_line, column)) = source.get_offset_line(span.start) else {
            continue;
        };
        let end_line = if span.start >= span.end {
            start_line
        } else {
            match source.get_offset_line(span.end - 1) {
                Some((_, line, _)) => line,
                None => continue,
            }
        };
        match groups.last_mut() {
            Some((file, last, _)) if *file == label.file && *last <= end_line => *last = end_line,
            _ => {
                let line = start_line + 1 + source.display_line_offset();
                let place = format!("{line}:{}", column + 1);
                groups.push((label.file.clone(), end_line, place));
            }
        }
    }
    groups
        .into_iter()
        .map(|(file, _, place)| (file, place))
        .collect()
}

/// `rendered` with the `n`th group's header (`╭─[ file:line:column ]`,
/// then `├─[ … ]`) naming `places[n]`.
fn with_group_places(rendered: &str, places: &[(String, String)]) -> String {
    let mut places = places.iter();
    let mut out = String::with_capacity(rendered.len());
    // The first row is the message's, never a header.
    for (n, row) in rendered.split_inclusive('\n').enumerate() {
        let is_header = n > 0 && row[first_visible(row)..].starts_with(['╭', '├']);
        let Some((file, place)) = is_header.then(|| places.next()).flatten() else {
            out.push_str(row);
            continue;
        };
        let marker = format!(" {file}:");
        let Some(at) = row.find(&marker).map(|at| at + marker.len()) else {
            out.push_str(row);
            continue;
        };
        let end = row[at..]
            .find(|c: char| !(c.is_ascii_digit() || c == ':' || c == '?'))
            .map_or(row.len(), |e| at + e);
        out.push_str(&row[..at]);
        out.push_str(place);
        out.push_str(&row[end..]);
    }
    out
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
