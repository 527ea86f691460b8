//! Reading a compiled program back — from a plan file or a database's catalog — with its format version checked first.
//!
//! The version is read before anything else, so a plan of another format
//! is refused with a code and the way out (recompile, reinstall, upgrade)
//! instead of a parse error about whatever field changed between formats.

use crate::error::{Result, RuntimeError};
use rqc_plan::stack::with_deep_stack;
use rqc_plan::{CompiledProgram, FORMAT_VERSION, MAX_PLAN_DEPTH};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use std::path::Path;

/// The deepest JSON a program may nest: a plan level takes a few JSON
/// levels (the node, its operator, the operator's fields), fewer than 8.
const MAX_JSON_DEPTH: usize = 8 * MAX_PLAN_DEPTH + 64;

/// Where a compiled program comes from: the advice on a refusal depends on it.
#[derive(Clone, Copy, Debug)]
pub enum Origin<'a> {
    /// A file written by `rqc compile -o`.
    File(&'a Path),
    /// A program handed over in memory.
    Given,
    /// The copy installed in a database's catalog.
    Catalog,
}

/// Refuses a program of a format this rqc does not run: E0513 for an older
/// or newer plan file or program, and for an older program in the catalog
/// (installing it again fixes that); E0516 for a newer one in the catalog,
/// which only a newer rqc can run.
pub fn check_version(found: u32, origin: Origin<'_>) -> Result<()> {
    if found == FORMAT_VERSION {
        return Ok(());
    }
    let newer = found > FORMAT_VERSION;
    let error = match origin {
        Origin::Catalog if newer => RuntimeError::new(
            "E0516",
            format!(
                "the program installed in this database was compiled by a newer rqc (plan format {found}; this rqc runs format {FORMAT_VERSION})"
            ),
            "open the database with the newer rqc that installed the program",
        ),
        Origin::Catalog => RuntimeError::new(
            "E0513",
            format!(
                "the program installed in this database has plan format {found}; this rqc runs format {FORMAT_VERSION} only"
            ),
            "install the program again with this rqc (`rqc run --db DIR PROGRAM NAME …`, or `Database::install_paths`); the rows are kept",
        ),
        Origin::File(path) => RuntimeError::new(
            "E0513",
            format!(
                "`{}` holds a compiled program of plan format {found}; this rqc runs format {FORMAT_VERSION} only{}",
                path.display(),
                if newer { " (the file is from a newer rqc)" } else { "" }
            ),
            format!(
                "compile the program again with this rqc: `rqc compile SOURCES -o {}` (plans are not converted between formats)",
                path.display()
            ),
        ),
        Origin::Given => RuntimeError::new(
            "E0513",
            format!(
                "the compiled program has plan format {found}; this rqc runs format {FORMAT_VERSION} only"
            ),
            "compile the program again with this rqc",
        ),
    };
    Err(error)
}

/// The first thing read from a compiled program: its format, whatever the
/// rest of it looks like.
#[derive(Deserialize)]
struct Header {
    format_version: u32,
}

/// Decodes a compiled program (JSON), refusing another format (see
/// [`check_version`]). Bytes that are not a program are E0517 from a file,
/// and damage (E0591) in the catalog, which only rqc writes.
pub fn decode(bytes: &[u8], origin: Origin<'_>) -> Result<CompiledProgram> {
    let not_a_program = |why: String| match origin {
        Origin::File(path) => RuntimeError::new(
            "E0517",
            format!("`{}` is not a compiled rqc program: {why}", path.display()),
            "give a file written by `rqc compile SOURCES -o FILE`, unchanged since",
        ),
        Origin::Given | Origin::Catalog => RuntimeError::corrupt("the installed program"),
    };
    let nesting = json_depth(bytes);
    if nesting > MAX_JSON_DEPTH {
        return Err(not_a_program(format!(
            "it nests {nesting} levels deep, deeper than any plan rqc writes"
        )));
    }
    let header: Header = from_json(bytes).map_err(|e| {
        not_a_program(match e.classify() {
            serde_json::error::Category::Data => {
                format!("it has no plan format version (`format_version`): {e}")
            }
            _ => format!("it is not JSON: {e}"),
        })
    })?;
    check_version(header.format_version, origin)?;
    let program = from_json(bytes).map_err(|e| {
        not_a_program(format!(
            "it says plan format {} but does not decode as one: {e}",
            header.format_version
        ))
    })?;
    check_depth(&program, origin)?;
    Ok(program)
}

/// Refuses a program with a plan nested deeper than [`MAX_PLAN_DEPTH`],
/// which the compiler never writes (E0517; damage, E0591, in the catalog).
pub fn check_depth(program: &CompiledProgram, origin: Origin<'_>) -> Result<()> {
    let Some((entry, depth)) = program
        .entries
        .iter()
        .map(|entry| (entry, entry.root.depth()))
        .find(|(_, depth)| *depth > MAX_PLAN_DEPTH)
    else {
        return Ok(());
    };
    let what = format!(
        "the plan of `{}` nests {depth} levels, deeper than the {MAX_PLAN_DEPTH} rqc plans",
        entry.name
    );
    Err(match origin {
        Origin::File(path) => RuntimeError::new(
            "E0517",
            format!("`{}` is not a compiled rqc program: {what}", path.display()),
            "give a file written by `rqc compile SOURCES -o FILE`, unchanged since",
        ),
        Origin::Given => RuntimeError::new(
            "E0517",
            format!("the compiled program is not one rqc writes: {what}"),
            "install a program compiled by rqc (`rqc_compiler::compile`)",
        ),
        Origin::Catalog => RuntimeError::corrupt("the installed program"),
    })
}

/// Decodes JSON whose depth [`json_depth`] has bounded: on the deep stack,
/// without serde_json's limit of 128 levels (a plan of 40 levels passes it).
fn from_json<T: DeserializeOwned + Send>(bytes: &[u8]) -> serde_json::Result<T> {
    with_deep_stack(|| {
        let mut reader = serde_json::Deserializer::from_slice(bytes);
        reader.disable_recursion_limit();
        let value = T::deserialize(&mut reader)?;
        reader.end()?;
        Ok(value)
    })
}

/// How deep JSON text nests (its arrays and objects; brackets in strings
/// do not count), read without recursion. Malformed text gets a depth all
/// the same, and the decoder reports what is wrong with it.
fn json_depth(bytes: &[u8]) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0, false, false);
    for &byte in bytes {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// Encodes a program as the catalog keeps it (compact JSON, which
/// [`decode`] reads like a plan file).
pub fn encode(program: &CompiledProgram) -> Result<Vec<u8>> {
    with_deep_stack(|| serde_json::to_vec(program)).map_err(RuntimeError::store)
}
