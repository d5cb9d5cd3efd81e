//! The `renderer` binary; everything lives in [`renderer::cli`].

fn main() -> std::process::ExitCode {
    renderer::cli::main()
}
