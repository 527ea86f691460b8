//! Byte offsets to LSP positions (lines, UTF-16 columns) and back.

use lsp_types::{Position, Range};
use rqc_compiler::span::LineStarts;

/// A text with its line starts, for the positions of many offsets in it (a
/// file's diagnostics, hints or symbols).
pub struct Lines<'t> {
    text: &'t str,
    starts: LineStarts,
}

impl<'t> Lines<'t> {
    pub fn new(text: &'t str) -> Lines<'t> {
        Lines {
            text,
            starts: LineStarts::new(text),
        }
    }

    pub fn position(&self, offset: usize) -> Position {
        let (line, offset, start) = self.starts.line_of(self.text, offset);
        Position {
            line: line as u32,
            character: self.text[start..offset].encode_utf16().count() as u32,
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
            let mut at = offset.min(text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
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
