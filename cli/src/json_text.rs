//! JSON text as the CLI reads arguments and rows: a number by its spelling, an object's keys as names (NFC) with none given twice.
//!
//! serde_json's values lose two things rqc needs. A number's spelling:
//! `-0` and `-0.0` both become the float `-0.0`, but `-0` for an `Int` is
//! the integer 0, as `--arg n=-0` and a CSV field `-0` are, and `-0.0` is
//! refused (E0007): here a number is its text, which the one number
//! parser (`rqc_plan::number`) reads for the type wanted. And a key given
//! twice: serde_json's map keeps the last, silently; here it is refused.
//! Keys name fields, columns and parameters, so they are identifiers, read
//! in Unicode's normal form C as a program's are (spec/types.md, "Value
//! identity"): two keys spelling one name differently are that name twice.
//!
//! [`read`] reads one level; an array's items and an object's values stay
//! JSON text ([`RawValue`]), read in turn by whoever wants them.

use serde_json::value::RawValue;
use std::fmt;

/// One level of a JSON value.
pub enum Json<'a> {
    Null,
    Bool(bool),
    /// A number as written (`-0`, `1.0`, `1e3`).
    Number(&'a str),
    Str(String),
    Array(Vec<&'a RawValue>),
    /// The pairs in order, each key NFC-normalised, none twice.
    Object(Vec<(String, &'a RawValue)>),
}

/// Why a text is not a JSON value rqc reads.
#[derive(Debug)]
pub enum JsonError {
    /// Not JSON: serde_json's reason.
    Syntax(serde_json::Error),
    /// An object gives a key twice (after NFC normalisation): the key.
    Twice(String),
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JsonError::Syntax(error) => error.fmt(f),
            JsonError::Twice(key) => write!(f, "the key `{key}` is given twice"),
        }
    }
}

impl From<serde_json::Error> for JsonError {
    fn from(error: serde_json::Error) -> JsonError {
        JsonError::Syntax(error)
    }
}

/// A name given from outside a program (an `--arg` name, a key, a CSV
/// header field) as the lexer reads an identifier: in normal form C.
pub fn name(text: &str) -> String {
    rqc_compiler::syntax::lexer::identifier(text)
}

/// The value `text` holds (surrounding white space aside), one level read.
pub fn read(text: &str) -> Result<Json<'_>, JsonError> {
    let raw: &RawValue = serde_json::from_str(text)?;
    let text = raw.get();
    Ok(match text.as_bytes().first() {
        Some(b'{') => {
            let Pairs(pairs) = serde_json::from_str(text)?;
            let mut named: Vec<(String, &RawValue)> = Vec::with_capacity(pairs.len());
            let mut seen = std::collections::HashSet::with_capacity(pairs.len());
            for (key, value) in pairs {
                let key = name(&key);
                if !seen.insert(key.clone()) {
                    return Err(JsonError::Twice(key));
                }
                named.push((key, value));
            }
            Json::Object(named)
        }
        Some(b'[') => Json::Array(serde_json::from_str(text)?),
        Some(b'"') => Json::Str(serde_json::from_str(text)?),
        Some(b't') => Json::Bool(true),
        Some(b'f') => Json::Bool(false),
        Some(b'n') => Json::Null,
        _ => Json::Number(text),
    })
}

/// An object's pairs in order, duplicates kept (serde_json's map keeps
/// only the last of them).
struct Pairs<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for Pairs<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Pairs<'a>, D::Error> {
        struct Visit<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Visit<'a> {
            type Value = Pairs<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<Pairs<'a>, M::Error> {
                let mut pairs = Vec::new();
                while let Some(pair) = map.next_entry::<String, &'de RawValue>()? {
                    pairs.push(pair);
                }
                Ok(Pairs(pairs))
            }
        }
        deserializer.deserialize_map(Visit(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_keep_their_spelling() {
        for text in [
            "-0",
            "-0.0",
            "1",
            "1.0",
            "1e3",
            " -0 ",
            "99999999999999999999",
        ] {
            let Ok(Json::Number(spelled)) = read(text) else {
                panic!("{text} is a number");
            };
            assert_eq!(spelled, text.trim());
        }
        let Ok(Json::Array(items)) = read("[-0, -0.0 ,1]") else {
            panic!("an array");
        };
        let items: Vec<&str> = items.iter().map(|item| item.get()).collect();
        assert_eq!(items, ["-0", "-0.0", "1"]);
    }

    #[test]
    fn a_key_given_twice_is_refused_by_name() {
        let twice = |text: &str| match read(text) {
            Err(JsonError::Twice(key)) => key,
            _ => panic!("{text} gives a key twice"),
        };
        assert_eq!(twice(r#"{"id": 1, "id": 2}"#), "id");
        // Precomposed and decomposed `é`: one name.
        assert_eq!(twice("{\"caf\u{e9}\": 1, \"cafe\u{301}\": 2}"), "caf\u{e9}");
        let Ok(Json::Object(pairs)) = read("{\"cafe\u{301}\": -0, \"b\": [1]}") else {
            panic!("an object");
        };
        assert_eq!(pairs[0].0, "caf\u{e9}", "keys are read as NFC");
        assert_eq!(pairs[0].1.get(), "-0");
        assert_eq!(pairs[1].1.get(), "[1]");
    }

    #[test]
    fn other_values_and_errors() {
        assert!(matches!(read("null"), Ok(Json::Null)));
        assert!(matches!(read("true"), Ok(Json::Bool(true))));
        assert!(matches!(read("false"), Ok(Json::Bool(false))));
        assert!(matches!(read(r#""a\u00e9""#), Ok(Json::Str(s)) if s == "a\u{e9}"));
        for bad in ["", "[1,", "{\"a\" 1}", "1 2", "nul", "-", "NaN"] {
            assert!(
                matches!(read(bad), Err(JsonError::Syntax(_))),
                "{bad:?} is not JSON"
            );
        }
    }
}
