//! Every `unsafe` block and `unsafe impl` in the product's sources carries a `SAFETY:` comment a reviewer can check, and nothing erases a lifetime with `transmute`.
//!
//! The comment may sit on the lines just above the block (up to four, so
//! a reason of a few lines counts) or on its own line. An `unsafe fn`'s
//! signature is the trait's (`GlobalAlloc`): its body's blocks are held
//! to the rule like any other.

use std::path::Path;

#[test]
fn every_unsafe_block_says_why_it_is_safe() {
    let root = rqc_tests::repo_root();
    let mut missing = Vec::new();
    let mut blocks = 0;
    for dir in rqc_tests::PRODUCT_SOURCES {
        for file in rqc_tests::rust_files(&root.join(dir)) {
            let text = std::fs::read_to_string(&file).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            for (i, line) in lines.iter().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                if code.contains("transmute") {
                    missing.push(format!("{}:{}: transmute", shown(&file), i + 1));
                }
                if !(code.contains("unsafe {") || code.contains("unsafe impl")) {
                    continue;
                }
                blocks += 1;
                let said = lines[i.saturating_sub(4)..=i]
                    .iter()
                    .any(|l| l.contains("SAFETY:"));
                if !said {
                    missing.push(format!("{}:{}: {}", shown(&file), i + 1, line.trim()));
                }
            }
        }
    }
    // The scan finds the blocks there are (the store's LMDB opens, the
    // allocator's calls): a scan that finds none would prove nothing.
    assert!(blocks >= 5, "only {blocks} unsafe blocks found");
    assert!(
        missing.is_empty(),
        "unsafe code without a `SAFETY:` comment just above it:\n{}",
        missing.join("\n")
    );
}

fn shown(file: &Path) -> String {
    file.strip_prefix(rqc_tests::repo_root())
        .unwrap_or(file)
        .display()
        .to_string()
}
