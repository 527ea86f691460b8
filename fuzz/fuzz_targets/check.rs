//! The checker and planner never panic, whatever the program.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    let compilation = rqc_compiler::compile(&[("f.rq".to_string(), text)]);
    for d in &compilation.diagnostics {
        assert!(!d.code.is_empty() && !d.help.is_empty());
    }
});
