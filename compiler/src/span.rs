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

/// A 1-based line and column (in characters) for a byte offset.
pub fn line_column(source: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(source.len());
    let before = &source[..floor_char_boundary(source, offset)];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
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
