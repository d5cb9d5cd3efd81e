//! scene-gen from a clean checkout: the RTIOW generator reads only the repository's
//! own data (assets/data) and reproduces the committed benchmark scene byte for byte.

use std::path::Path;
use std::process::Command;

fn repo_root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

#[test]
fn rtiow_from_the_repository_data_is_the_committed_scene() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("rtiow.ron");
    let run = Command::new(env!("CARGO_BIN_EXE_scene-gen"))
        .current_dir(repo_root())
        .args(["rtiow", "-o"])
        .arg(&output)
        .output()
        .expect("scene-gen runs");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let generated = std::fs::read_to_string(&output).unwrap();
    let committed = std::fs::read_to_string(repo_root().join("assets/scenes/rtiow_final.ron")).unwrap();
    assert!(generated == committed, "scene-gen rtiow no longer writes assets/scenes/rtiow_final.ron");
}

#[test]
fn a_missing_csv_is_an_error_naming_the_file() {
    let run = Command::new(env!("CARGO_BIN_EXE_scene-gen"))
        .args(["rtiow", "--csv", "no/such.csv", "-o", "/dev/null"])
        .output()
        .expect("scene-gen runs");
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("no/such.csv"), "{stderr}");
}
