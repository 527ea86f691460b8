//! Generates the parser from `src/syntax/grammar.lalrpop`.

fn main() {
    lalrpop::process_src().expect("the lalrpop grammar must build");
}
