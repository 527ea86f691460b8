//! `rqc run --page` and `--page-token`: the arguments of a page after the first (the token's, checked against any `--arg`), and the command printed after each page, which runs the next one.

use rqc::{Error, Prepared, RuntimeError};
use rqc_plan::{Entry, ParamType, Value};
use std::path::Path;

/// The arguments the page after `token` runs with: the token's own. Any
/// `--arg` given must say the same (E0607 otherwise): the token continues
/// one query with one set of arguments.
pub fn arguments(
    prepared: &Prepared<'_>,
    token: &str,
    given: &[String],
) -> Result<Vec<Value>, Error> {
    let held = prepared.page_arguments(token)?;
    if given.is_empty() {
        return Ok(held);
    }
    let entry = prepared.entry();
    let values = super::args::parse_args(entry, given)?;
    for ((param, held), value) in entry.params.iter().zip(&held).zip(&values) {
        if held != value {
            let (here, there) = (as_arg(&param.ty, value), as_arg(&param.ty, held));
            return Err(Error::Runtime(RuntimeError::new(
                "E0607",
                format!(
                    "`--arg {}={here}` differs from the page token's `{}={there}`",
                    param.name, param.name
                ),
                "give the --arg values of the first page, or leave --arg out: the token carries them",
            )));
        }
    }
    Ok(held)
}

/// What `rqc run` prints after a page: the command that runs the next
/// one (the database holds the program by then), or that this was the
/// last.
pub fn hint(db: &Path, entry: &Entry, args: &[Value], token: Option<&str>) -> String {
    let Some(token) = token else {
        return "last page".to_string();
    };
    let mut words = vec!["rqc".to_string(), "run".into()];
    words.extend(super::connection::flags_as_args());
    words.extend(["--db".into(), db.display().to_string(), entry.name.clone()]);
    for (param, value) in entry.params.iter().zip(args) {
        words.push("--arg".into());
        words.push(format!("{}={}", param.name, as_arg(&param.ty, value)));
    }
    words.extend(["--page-token".into(), token.to_string()]);
    let words: Vec<String> = words.iter().map(|w| quoted(w)).collect();
    format!("next page: {}", words.join(" "))
}

/// A value as `--arg` takes it: a string as it is, `none`, a list as JSON.
fn as_arg(ty: &ParamType, value: &Value) -> String {
    match (ty, value) {
        (ParamType::Scalar(_), Value::Str(text)) => text.clone(),
        (_, Value::Null) => "none".to_string(),
        _ => value.to_json().to_string(),
    }
}

/// `word` as a POSIX shell reads it back: as it is when it holds nothing
/// a shell treats specially, else in single quotes.
fn quoted(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-.,:/=@%+".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        return word.to_string();
    }
    format!("'{}'", word.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::quoted;

    #[test]
    fn words_a_shell_would_split_or_expand_are_quoted() {
        assert_eq!(quoted("n=3"), "n=3");
        assert_eq!(quoted("etcd://a:1,b:2/p"), "etcd://a:1,b:2/p");
        assert_eq!(quoted("body=hi there"), "'body=hi there'");
        assert_eq!(quoted("h=it's"), r"'h=it'\''s'");
        assert_eq!(quoted(r#"ids=[1, 2]"#), "'ids=[1, 2]'");
        assert_eq!(quoted("$HOME"), "'$HOME'");
        assert_eq!(quoted(""), "''");
    }
}
