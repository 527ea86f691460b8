//! Decoding stored keys and rows from arbitrary bytes is an error, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rqc_runtime::encoding::{key, row};

fuzz_target!(|data: &[u8]| {
    let count = data.first().map(|b| (b % 6) as usize).unwrap_or(0);
    let rest = data.get(1..).unwrap_or(&[]);
    let _ = key::decode_key(rest, &[true, false, true], count);
    let _ = row::decode_row(rest, count);
    // What decodes, encodes back to the same bytes.
    if let Ok((values, tail)) = key::decode_key(rest, &[], count) {
        let encoded = key::encode_key(&values, &[]).unwrap();
        assert_eq!(&encoded[..], &rest[..rest.len() - tail.len()]);
    }
});
