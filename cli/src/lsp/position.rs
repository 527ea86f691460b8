//! Byte offsets to LSP positions (lines, UTF-16 columns) and back.

use lsp_types::{Position, Range};

/// A text's line starts, for the positions of many offsets in it (a file's
/// diagnostics, hints or symbols): each is found by a binary search, where
/// counting lines from the start for each grew with offsets × text.
pub struct Lines<'t> {
    text: &'t str,
    starts: Vec<usize>,
}

impl<'t> Lines<'t> {
    pub fn new(text: &'t str) -> Lines<'t> {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Lines { text, starts }
    }

    pub fn position(&self, offset: usize) -> Position {
        let offset = floor(self.text, offset.min(self.text.len()));
        // The last line starting at or before the offset (the first starts at 0).
        let line = self.starts.partition_point(|&start| start <= offset) - 1;
        let character = self.text[self.starts[line]..offset].encode_utf16().count() as u32;
        Position {
            line: line as u32,
            character,
        }
    }

    pub fn range(&self, start: usize, end: usize) -> Range {
        Range {
            start: self.position(start),
            end: self.position(end),
        }
    }
}

pub fn offset(text: &str, position: Position) -> usize {
    let mut line_start = 0;
    for _ in 0..position.line {
        match text[line_start..].find('\n') {
            Some(i) => line_start += i + 1,
            None => return text.len(),
        }
    }
    let line_end = text[line_start..]
        .find('\n')
        .map(|i| line_start + i)
        .unwrap_or(text.len());
    let mut units = 0u32;
    for (i, c) in text[line_start..line_end].char_indices() {
        if units >= position.character {
            return line_start + i;
        }
        units += c.len_utf16() as u32;
    }
    line_end
}

pub fn range(text: &str, start: usize, end: usize) -> Range {
    Lines::new(text).range(start, end)
}

fn floor(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_columns_round_trip() {
        let text = "ab\n≤𝄞x\n";
        let x = text.find('x').unwrap();
        let p = Lines::new(text).position(x);
        assert_eq!((p.line, p.character), (1, 3), "≤ is one unit, 𝄞 two");
        assert_eq!(offset(text, p), x);
        assert_eq!(
            offset(
                text,
                Position {
                    line: 9,
                    character: 0
                }
            ),
            text.len()
        );
    }

    #[test]
    fn lines_agree_with_counting_from_the_start_at_every_offset() {
        let text = "module m\n\n≤ 𝄞 é\r\nquery q() = 1\n\nlast";
        let lines = Lines::new(text);
        for offset in 0..=text.len() + 2 {
            let at = floor(text, offset.min(text.len()));
            let before = &text[..at];
            let line_start = before.rfind('\n').map_or(0, |i| i + 1);
            let expected = Position {
                line: before.matches('\n').count() as u32,
                character: text[line_start..at].encode_utf16().count() as u32,
            };
            assert_eq!(lines.position(offset), expected, "offset {offset}");
        }
    }
}
