//! The `ctxray` binary: parse arguments, run the command, print an error as one line.

use clap::Parser;

fn main() {
    let cli = ctxray::cli::Cli::parse();
    let code = match ctxray::cli::run(cli) {
        Ok(code) => code,
        Err(err) => {
            if is_broken_pipe(&err) {
                0
            } else {
                eprintln!(
                    "ctxray: {}",
                    ctxray::cli::guard::message(&format!("{err:#}"))
                );
                ctxray::cli::EXIT_USAGE
            }
        }
    };
    std::process::exit(code);
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
