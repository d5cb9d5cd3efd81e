//! Driving the `renderer` binary as a user would, shared by the tests that need it
//! (those with `required-features = ["cli"]`, where the binary exists). Each test
//! binary uses a different subset, hence the `dead_code` allowance.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// Runs `renderer args...` in `cwd` and waits for it.
pub fn renderer(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_renderer")).args(args).current_dir(cwd).output().expect("run renderer")
}

/// Process output as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Asserts the exit code, showing both streams when it differs.
pub fn assert_exit(out: &Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}
