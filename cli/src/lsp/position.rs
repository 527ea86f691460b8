//! Byte offsets to LSP positions (lines, UTF-16 columns) and back.

use lsp_types::{Position, Range};

pub fn position(text: &str, offset: usize) -> Position {
    let offset = floor(text, offset.min(text.len()));
    let line_start = text[..offset].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let line = text[..offset].matches('\n').count() as u32;
    let character = text[line_start..offset].encode_utf16().count() as u32;
    Position { line, character }
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
    Range {
        start: position(text, start),
        end: position(text, end),
    }
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
        let p = position(text, x);
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
}
