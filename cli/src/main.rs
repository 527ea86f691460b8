//! The `rqc` binary: parses the command line and hands over to `rqc::cli`.

fn main() -> std::process::ExitCode {
    rqc::cli::main()
}
