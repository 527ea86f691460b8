//! Splitting a file into top-level pieces by a cheap scan, so that each
//! piece can be parsed (and cached) alone.
//!
//! A piece starts at offset 0 and at every line whose first word is `pub`,
//! `fn`, `query`, `mutation`, `table` or `import`. These keywords can only
//! begin an item (or follow `pub` or `small`), and no token spans a line
//! break (strings stop at the end of their line, comments are `//`), so a
//! line start is never inside a token. When every piece parses without a
//! diagnostic, the grammar being LR(1) (hence unambiguous), the file's
//! parse is the pieces' parses one after the other, each shifted by its
//! offset. A piece that does not parse alone (say `pub` on a line of its
//! own) is left to the caller, which parses from there to the end of the
//! file in one go, as the whole file would be.

/// The keywords a piece may start with.
const STARTS: [&str; 6] = ["pub", "fn", "query", "mutation", "table", "import"];

/// The byte offsets where pieces start: `0`, then the start of each line
/// that begins (in its first column) with one of [`STARTS`] as a word.
pub fn piece_starts(text: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut starts = vec![0];
    let mut line = 0;
    // The library's search for one byte (its memchr); `line` is always
    // just after a line break, so a boundary of the text.
    while let Some(newline) = text[line..].find('\n') {
        line += newline + 1;
        if starts_item(&bytes[line..]) {
            starts.push(line);
        }
    }
    starts
}

/// The pieces of `text`, as `(offset, text)`.
pub fn pieces(text: &str) -> Vec<(usize, &str)> {
    let starts = piece_starts(text);
    starts
        .iter()
        .enumerate()
        .map(|(i, &start)| {
            let end = starts.get(i + 1).copied().unwrap_or(text.len());
            (start, &text[start..end])
        })
        .collect()
}

/// Whether `rest` (a line's start) begins with an item keyword as a word.
fn starts_item(rest: &[u8]) -> bool {
    STARTS.iter().any(|keyword| {
        rest.starts_with(keyword.as_bytes())
            && !rest
                .get(keyword.len())
                .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_start_at_item_keywords_in_the_first_column() {
        let text = "module m\ntable T { id: Int key }\n\n// a note\nquery q(id: Int) =\n  T[id]\npub fn f(x: Int) = x\n fn indented() = 1\nfnord\nquery";
        let starts: Vec<&str> = pieces(text).iter().map(|(_, t)| *t).collect();
        assert_eq!(
            starts,
            vec![
                "module m\n",
                "table T { id: Int key }\n\n// a note\n",
                "query q(id: Int) =\n  T[id]\n",
                "pub fn f(x: Int) = x\n fn indented() = 1\nfnord\n",
                "query",
            ]
        );
        let joined: String = pieces(text).iter().map(|(_, t)| *t).collect();
        assert_eq!(joined, text, "the pieces cover the text exactly");
    }

    #[test]
    fn an_empty_text_is_one_empty_piece() {
        assert_eq!(pieces(""), vec![(0, "")]);
    }
}
