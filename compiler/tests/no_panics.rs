//! The front end and the checker never panic: on arbitrary text, on token
//! soup, and on programs mutated from the corpus. (The same properties as
//! the fuzz targets, run by the normal test suite.)

use proptest::prelude::*;
use rqc_compiler::compile;

const TOKENS: [&str; 48] = [
    "module", "import", "pub", "table", "small", "max", "key", "unique", "ref", "index", "bound",
    "desc", "fn", "query", "mutation", "let", "if", "else", "insert", "update", "delete", "T", "x",
    "Int", "String", "42", "1.5", "\"s\"", "|>", "=>", "->", "<=", "==", "..", "&&", "(", ")", "[",
    "]", "{", "}", ",", ":", ";", "=", ".", "take", "count",
];

const SEED: &str = "table T { id: Int key  owner: Int  at: Int  index by_owner (owner, at desc)  bound owner <= 10 }
fn f(xs: [T], n: Int) = xs |> sort_by(x => x.at, desc) |> take(n)
query q(o: Int, n: Int <= 5) = T.by_owner[o] |> take(n) |> f(2)
mutation m(id: Int, o: Int) = { insert T { id, owner: o, at: 1 }; delete T[id] }
";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        let _ = compile(&[("t.rq".into(), text)]);
    }

    #[test]
    fn token_soup_never_panics(tokens in prop::collection::vec(0..TOKENS.len(), 0..60)) {
        let text: Vec<&str> = tokens.iter().map(|&i| TOKENS[i]).collect();
        let _ = compile(&[("t.rq".into(), text.join(" "))]);
    }

    #[test]
    fn mutated_programs_never_panic(cut in 0..SEED.len(), insert in 0..TOKENS.len(), delete in 0usize..8) {
        let mut text = SEED.to_string();
        let mut at = cut;
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let end = (at + delete).min(text.len());
        let end = (end..=text.len()).find(|e| text.is_char_boundary(*e)).unwrap_or(text.len());
        text.replace_range(at..end, &format!(" {} ", TOKENS[insert]));
        let compilation = compile(&[("t.rq".into(), text)]);
        // Whatever happened, every diagnostic has a code and a help line.
        for d in &compilation.diagnostics {
            prop_assert!(!d.code.is_empty() && !d.help.is_empty(), "{d:?}");
        }
    }
}
