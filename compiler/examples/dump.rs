fn main() {
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).unwrap();
        let (m, d) = rqc_compiler::syntax::parse(&path, &text);
        print!("{}", rqc_compiler::syntax::tree::dump_module(&m, false));
        for d in d {
            println!("{:?}", d);
        }
        println!("{}", rqc_compiler::syntax::printer::print_module(&m));
    }
}
