//! Byte-offset spans into one source file, shared by every stage.

use serde::{Deserialize, Serialize};

/// A half-open byte range `start..end` in one source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    pub fn contains(self, offset: usize) -> bool {
        (self.start as usize) <= offset && offset <= (self.end as usize)
    }
}

/// A 1-based line and column (in characters) for a byte offset (see
/// [`LineStarts`] for many offsets in one text).
pub fn line_column(source: &str, offset: usize) -> (usize, usize) {
    LineStarts::new(source).line_column(source, offset)
}

/// Where each line of a text starts: the line of an offset by a binary
/// search, for the many positions of one text (its diagnostics in JSON,
/// the language server's ranges), where counting lines from the start for
/// each grew with their number × the text's size.
#[derive(Clone, Debug, Default)]
pub struct LineStarts(Vec<usize>);

impl LineStarts {
    pub fn new(text: &str) -> LineStarts {
        LineStarts(
            std::iter::once(0)
                .chain(text.match_indices('\n').map(|(i, _)| i + 1))
                .collect(),
        )
    }

    /// The 0-based line of `offset` in `text` (the text these starts are
    /// of), and the offset moved back to a character boundary and into the
    /// text, and where its line starts.
    pub fn line_of(&self, text: &str, offset: usize) -> (usize, usize, usize) {
        let offset = floor_char_boundary(text, offset.min(text.len()));
        // The last line starting at or before the offset (the first starts at 0).
        let line = self.0.partition_point(|&start| start <= offset) - 1;
        (line, offset, self.0[line])
    }

    /// Where the 0-based `line` starts.
    pub fn start(&self, line: usize) -> usize {
        self.0[line]
    }

    /// Where the line after `line` starts, if there is one.
    pub fn start_of_next(&self, line: usize) -> Option<usize> {
        self.0.get(line + 1).copied()
    }

    /// [`line_column`] of `offset` in `text`.
    pub fn line_column(&self, text: &str, offset: usize) -> (usize, usize) {
        let (line, offset, start) = self.line_of(text, offset);
        (line + 1, text[start..offset].chars().count() + 1)
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_column_counts_from_one_and_in_characters() {
        let src = "ab\nçd\n";
        assert_eq!(line_column(src, 0), (1, 1));
        assert_eq!(line_column(src, 3), (2, 1));
        // 'ç' is two bytes: offset 5 is the 'd', the second character.
        assert_eq!(line_column(src, 5), (2, 2));
        assert_eq!(line_column(src, 100), (3, 1));
    }
}
