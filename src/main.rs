//! The `ctxray` binary: parse arguments, run the command, print an error as one line (none when
//! stdout was closed by its reader: that ends quietly with exit 0).

#![deny(clippy::unwrap_used, clippy::expect_used)]

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
                    ctxray::cli::guard::message(&ctxray::cli::error_text(&err))
                );
                ctxray::cli::EXIT_USAGE
            }
        }
    };
    std::process::exit(code);
}

/// A reader that closed stdout early (`| head`) ends the output quietly: whether the write
/// failed directly or inside a serialiser, which keeps the I/O error inside its own.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    use std::io::ErrorKind::BrokenPipe;
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == BrokenPipe)
            || e.downcast_ref::<serde_json::Error>()
                .is_some_and(|j| j.io_error_kind() == Some(BrokenPipe))
    })
}
