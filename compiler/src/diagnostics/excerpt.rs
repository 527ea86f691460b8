//! Snippets of very long lines (generated or minified sources): the text around each label's ends is kept, the rest of such a line elided, so a diagnostic draws a few hundred characters, not the whole line.
//!
//! A one-line file of 8,000 imports, each unknown, drew its 100,000-byte
//! line three times per diagnostic: 213 MB of output. ariadne draws whole
//! lines, so a diagnostic that touches a long line is drawn from an
//! excerpt instead: the lines from its first label's to its last label's,
//! each long one cut down to windows around the labels' ends, joined by
//! `…`. The excerpt starts at the first line (ariadne numbers the lines
//! from there), and the columns in the `file:line:column` headers, which
//! ariadne counts in the excerpt, are put back to the file's.

use crate::span::LineStarts;
use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

/// A line longer than this many bytes is cut down.
pub const LONG_LINE: usize = 400;
/// How many bytes are kept either side of a label's end on a long line.
const CONTEXT: usize = 40;
const ELISION: &str = "…";

/// One file's text, and where its lines start.
#[derive(Clone, Copy)]
pub struct Text<'s> {
    pub text: &'s str,
    pub lines: &'s LineStarts,
}

/// The part of one file a diagnostic is drawn from.
pub struct Excerpt {
    pub text: String,
    /// The 0-based line of the file the excerpt's first line is.
    pub first_line: usize,
    /// Each label end's byte offset in the file, mapped to the excerpt.
    mapped: BTreeMap<usize, usize>,
    /// Each cut line's kept windows, by its 1-based line number in the
    /// file: where each starts in the excerpt's line and in the file's
    /// (1-based columns in characters), and how many characters it has.
    /// A header's column, counted by ariadne in the excerpt, is the file's
    /// through these.
    windows: HashMap<usize, CutLine>,
}

impl<'s> Text<'s> {
    fn line_range(&self, line: usize) -> Range<usize> {
        let start = self.lines.start(line);
        let end = self
            .lines
            .start_of_next(line)
            .map_or(self.text.len(), |next| next - 1);
        start..end
    }

    /// Whether any of these spans touches a line longer than [`LONG_LINE`].
    pub fn touches_long_line(&self, spans: &[Range<usize>]) -> bool {
        spans.iter().any(|span| {
            [span.start, span.end].into_iter().any(|offset| {
                let (line, _, _) = self.lines.line_of(self.text, offset);
                self.line_range(line).len() > LONG_LINE
            })
        })
    }

    /// The excerpt holding `spans` (byte ranges into this text).
    pub fn excerpt(&self, spans: &[Range<usize>]) -> Excerpt {
        // Inside the text, and on a character: one inside a character moves
        // on to the next, as the characters of a whole file are counted.
        let ends: Vec<usize> = spans
            .iter()
            .flat_map(|s| [s.start, s.end])
            .map(|offset| ceil_boundary(self.text, offset.min(self.text.len())))
            .collect();
        let line_of = |offset| self.lines.line_of(self.text, offset).0;
        let first = ends.iter().map(|&o| line_of(o)).min().unwrap_or(0);
        let last = ends.iter().map(|&o| line_of(o)).max().unwrap_or(0);
        let mut excerpt = Excerpt {
            text: String::new(),
            first_line: first,
            mapped: BTreeMap::new(),
            windows: HashMap::new(),
        };
        for line in first..=last {
            if line > first {
                excerpt.text.push('\n');
            }
            let range = self.line_range(line);
            let here: Vec<usize> = ends
                .iter()
                .copied()
                .filter(|o| range.contains(o) || *o == range.end)
                .collect();
            if range.len() <= LONG_LINE {
                let at = excerpt.text.len();
                excerpt.text.push_str(&self.text[range.clone()]);
                for end in here {
                    excerpt.mapped.insert(end, at + (end - range.start));
                }
                continue;
            }
            let line_start = excerpt.text.len();
            let mut kept = 0; // the last byte of the line copied so far
            let mut shown = Vec::new();
            for window in windows(self.text, &range, &here) {
                if window.start > kept.max(range.start) {
                    excerpt.text.push_str(ELISION);
                }
                let at = excerpt.text.len();
                excerpt.text.push_str(&self.text[window.clone()]);
                shown.push(Window {
                    shown: excerpt.text[line_start..at].chars().count() + 1,
                    real: self.text[range.start..window.start].chars().count() + 1,
                    chars: self.text[window.clone()].chars().count(),
                });
                for &end in here
                    .iter()
                    .filter(|&&o| window.contains(&o) || o == window.end)
                {
                    excerpt
                        .mapped
                        .entry(end)
                        .or_insert(at + (end - window.start));
                }
                kept = window.end;
            }
            if kept < range.end {
                excerpt.text.push_str(ELISION);
            }
            let cut = CutLine {
                windows: shown,
                shown_chars: excerpt.text[line_start..].chars().count(),
                real_chars: self.text[range].chars().count(),
            };
            excerpt.windows.insert(line + 1, cut);
        }
        // The last line's break, where the file has one: a label on it (an
        // error at the end of a line) is drawn there, not pulled back.
        if self.lines.start_of_next(last).is_some() {
            excerpt.text.push('\n');
        }
        excerpt
    }
}

/// A line cut down to windows, and its length in characters as shown (its
/// windows and elisions) and in the file.
struct CutLine {
    windows: Vec<Window>,
    shown_chars: usize,
    real_chars: usize,
}

/// A window of a cut line: where it starts in the excerpt's line and in
/// the file's (1-based columns), and its length, in characters.
struct Window {
    shown: usize,
    real: usize,
    chars: usize,
}

/// The windows of a long line kept around `ends`, merged, in order.
fn windows(text: &str, line: &Range<usize>, ends: &[usize]) -> Vec<Range<usize>> {
    let mut windows: Vec<Range<usize>> = ends
        .iter()
        .map(|&end| {
            let start = floor_boundary(text, end.saturating_sub(CONTEXT).max(line.start));
            let stop = ceil_boundary(text, (end + CONTEXT).min(line.end));
            start..stop
        })
        .collect();
    windows.sort_by_key(|w| w.start);
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(windows.len());
    for window in windows {
        match merged.last_mut() {
            Some(last) if window.start <= last.end => last.end = last.end.max(window.end),
            _ => merged.push(window),
        }
    }
    merged
}

fn floor_boundary(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(text: &str, mut i: usize) -> usize {
    while i < text.len() && !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

impl Excerpt {
    /// Where the file's byte `offset` (a label's end) is in the excerpt;
    /// one inside a character (moved on to the next, which is a label's
    /// end) or past the text (the last) as [`Text::excerpt`] took it.
    pub fn map(&self, offset: usize) -> usize {
        let next = self.mapped.range(offset..).next();
        let last = self.mapped.iter().next_back();
        next.or(last).map_or(0, |(_, &at)| at)
    }

    /// The file's column of `shown`, a column ariadne counts on line
    /// `number` (1-based) of the excerpt: the same on a line kept whole,
    /// else through the window holding it (its end included: a label at
    /// the end of the text is drawn on its last character).
    fn column_in_file(&self, number: usize, shown: usize) -> usize {
        let Some(cut) = self.windows.get(&number) else {
            return shown;
        };
        if shown > cut.shown_chars {
            // The line's break, or past it: a label at the end of the text
            // is drawn on the last character there is.
            return cut.real_chars + (shown - cut.shown_chars);
        }
        cut.windows
            .iter()
            .find(|w| (w.shown..=w.shown + w.chars).contains(&shown))
            .map_or(shown, |w| w.real + (shown - w.shown))
    }

    /// How many lines the excerpt has.
    fn lines(&self) -> usize {
        self.text.matches('\n').count() + 1
    }
}

/// `rendered`, drawn from `excerpts` (by file), made to read as the files:
/// each header's column counted in the file, and the line numbers in the
/// margin the file's (ariadne 0.6 numbers the margin from the excerpt's
/// first line, whatever offset its source is given), the margin widened
/// to hold them.
pub fn as_in_files(rendered: &str, excerpts: &HashMap<&str, Excerpt>) -> String {
    // ariadne's margin: the header's indent is its width and two.
    let excerpt_width = rendered
        .lines()
        .find_map(|row| {
            let at = first_visible(row);
            row[at..]
                .starts_with(['╭', '├'])
                .then(|| spaces(&row[..at]).saturating_sub(2))
        })
        .unwrap_or(1);
    let real_width = excerpts
        .values()
        .map(|e| digits(e.first_line + e.lines()))
        .max()
        .unwrap_or(1)
        .max(excerpt_width);
    let widen = real_width - excerpt_width;
    let mut offset = 0;
    let mut out = String::with_capacity(rendered.len() + 64);
    for row in rendered.split_inclusive('\n') {
        let at = first_visible(row);
        let rest = &row[at..];
        match rest.chars().next() {
            Some('╭' | '├') => {
                let mut row = row.to_string();
                for (file, excerpt) in excerpts {
                    let Some(at) = row.find(&format!(" {file}:")) else {
                        continue;
                    };
                    offset = excerpt.first_line;
                    let place = at + 1 + file.len() + 1;
                    let Some(end) = row[place..].find(' ').map(|e| place + e) else {
                        continue;
                    };
                    let numbers: Vec<usize> = row[place..end]
                        .split(':')
                        .filter_map(|n| n.parse().ok())
                        .collect();
                    if let [number, shown] = numbers[..] {
                        let real = excerpt.column_in_file(number, shown);
                        row.replace_range(place..end, &format!("{number}:{real}"));
                    }
                }
                out.push_str(&" ".repeat(widen));
                out.push_str(&row);
            }
            Some('─') => {
                out.push_str(&row[..at]);
                out.push_str(&"─".repeat(widen));
                out.push_str(rest);
            }
            Some(c) if c.is_ascii_digit() => {
                let digits_end = rest
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(rest.len());
                let number: usize = rest[..digits_end].parse().unwrap_or(0);
                let real = (number + offset).to_string();
                // The margin before the number: its spaces, widened, less
                // the number's growth; its colour escapes kept.
                let before = &row[..at];
                let padding = spaces(before) + widen + digits_end;
                out.push_str(&" ".repeat(padding.saturating_sub(real.len())));
                out.push_str(&before.replace(' ', ""));
                out.push_str(&real);
                out.push_str(&rest[digits_end..]);
            }
            Some('│' | '┆' | '·') => {
                out.push_str(&" ".repeat(widen));
                out.push_str(row);
            }
            _ => out.push_str(row),
        }
    }
    out
}

/// Where a rendered row's first character other than a space or a colour
/// escape (`ESC [ … m`) is.
pub fn first_visible(row: &str) -> usize {
    let bytes = row.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b' ' => i += 1,
            0x1b => match row[i..].find('m') {
                Some(end) => i += end + 1,
                None => return i,
            },
            _ => return i,
        }
    }
    i
}

fn spaces(text: &str) -> usize {
    text.bytes().filter(|&b| b == b' ').count()
}

fn digits(n: usize) -> usize {
    n.to_string().len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn excerpt(text: &str, spans: &[Range<usize>]) -> Excerpt {
        let lines = LineStarts::new(text);
        Text {
            text,
            lines: &lines,
        }
        .excerpt(spans)
    }

    #[test]
    fn a_long_line_keeps_the_text_around_each_label_and_elides_the_rest() {
        let line: String = (0..200).map(|i| format!("w{i:03} ")).collect();
        let text = format!("first\n{line}\nlast");
        let at = text.find("w100").unwrap();
        let lines = LineStarts::new(&text);
        let source = Text {
            text: &text,
            lines: &lines,
        };
        assert!(source.touches_long_line(std::slice::from_ref(&(at..at + 4))));
        assert!(!source.touches_long_line(std::slice::from_ref(&(0..5))));
        let cut = source.excerpt(std::slice::from_ref(&(at..at + 4)));
        assert_eq!(cut.first_line, 1);
        // The line's break is kept: the file goes on after it.
        assert!(cut.text.starts_with('…') && cut.text.ends_with("…\n"));
        assert!(cut.text.len() < 2 * CONTEXT + 20, "{}", cut.text);
        let mapped = cut.map(at);
        assert_eq!(&cut.text[mapped..mapped + 4], "w100");
        // The header's column is the file's: 100 words of 5 bytes before.
        let shown = cut.text[..mapped].chars().count() + 1;
        let rendered = format!("[E1] Error: e\n   ╭─[ f.rq:2:{shown} ]\n   │\n 1 │ …\n───╯\n");
        let excerpts = HashMap::from([("f.rq", cut)]);
        assert_eq!(
            as_in_files(&rendered, &excerpts),
            "[E1] Error: e\n   ╭─[ f.rq:2:501 ]\n   │\n 2 │ …\n───╯\n"
        );
    }

    #[test]
    fn short_lines_between_labels_are_kept_whole_and_windows_merge() {
        let long = "x".repeat(LONG_LINE + 100);
        let text = format!("{long}\nshort line\n{long}");
        let second = text.len() - 10;
        let cut = excerpt(&text, &[5..8, 12..15, second..second + 2]);
        assert_eq!(cut.first_line, 0);
        let lines: Vec<&str> = cut.text.split('\n').collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[1], "short line");
        // Both labels of the first line share one window from its start.
        assert!(!lines[0].starts_with('…') && lines[0].ends_with('…'));
        assert_eq!(lines[0].matches('…').count(), 1);
        // The end of the text is kept to the end.
        assert!(lines[2].starts_with('…') && !lines[2].ends_with('…'));
        assert_eq!(cut.map(second), cut.text.len() - 10);
    }

    #[test]
    fn a_label_on_a_cut_lines_break_has_the_files_column() {
        // A label at the end of the text, after the break of a long line,
        // is drawn on that break, past the line's last elision.
        let text = format!("{}\n", "x".repeat(LONG_LINE + 100));
        let end = text.len();
        let cut = excerpt(&text, &[10..11, end..end]);
        let first_line = cut.text.split('\n').next().unwrap();
        assert!(first_line.ends_with('…'), "{}", cut.text);
        let on_break = first_line.chars().count() + 1;
        let rendered = format!("   ╭─[ f.rq:1:{on_break} ]\n");
        let excerpts = HashMap::from([("f.rq", cut)]);
        let real = LONG_LINE + 100 + 1;
        assert_eq!(
            as_in_files(&rendered, &excerpts),
            format!("   ╭─[ f.rq:1:{real} ]\n")
        );
    }

    #[test]
    fn multi_byte_characters_are_never_split() {
        let text = "é".repeat(LONG_LINE);
        let at = 2 * (LONG_LINE / 2) + 1; // inside a character: moved back
        let cut = excerpt(&text, std::slice::from_ref(&(at..at + 2)));
        assert!(cut.text.chars().all(|c| c == 'é' || c == '…'));
    }
}
