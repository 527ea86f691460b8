//! The lexer and parser never panic, and every diagnostic has a code and help.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (_, diagnostics) = rqc_compiler::syntax::parse("f.rq", &text);
    for d in diagnostics {
        assert!(!d.code.is_empty() && !d.help.is_empty());
    }
});
