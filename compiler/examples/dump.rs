fn main() {
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).unwrap();
        let (_, d) = rqc_compiler::syntax::parse(&path, &text);
        let mut s = rqc_compiler::Sources::new();
        s.add(path.clone(), text.clone());
        for d in d {
            print!(
                "{}",
                rqc_compiler::diagnostics::render(
                    &d,
                    &s,
                    rqc_compiler::diagnostics::RenderOptions { color: false }
                )
            );
        }
    }
}
