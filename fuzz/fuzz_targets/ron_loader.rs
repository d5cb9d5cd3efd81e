//! Feeds arbitrary UTF-8 text to the RON scene loader.
//!
//! Checks that `scene::parse` never panics, that every error it returns points
//! inside the text and renders, and that every scene it accepts survives
//! `to_ron` and a second parse unchanged.

#![no_main]

use libfuzzer_sys::fuzz_target;
use scene_compiler::scene;

fuzz_target!(|data: &[u8]| {
    // The loader takes text; invalid UTF-8 is rejected before it (by `read_to_string`).
    let Ok(source) = std::str::from_utf8(data) else { return };
    match scene::parse(source, "fuzz.ron") {
        Ok(parsed) => {
            let text = scene::to_ron(&parsed);
            let again = scene::parse(&text, "written.ron")
                .unwrap_or_else(|err| panic!("to_ron wrote a scene that does not load:\n{err}\n{text}"));
            // Debug, not ==, so that 0.0 and -0.0 must round-trip too.
            assert_eq!(format!("{again:?}"), format!("{parsed:?}"), "round trip changed the scene");
        }
        Err(err) => {
            assert!(!err.diagnostics().is_empty(), "an error without diagnostics");
            for d in err.diagnostics() {
                let span = d.span().unwrap_or_else(|| panic!("unlocated diagnostic: {d:?}"));
                assert!(source.get(span.clone()).is_some(), "span {span:?} outside the text: {d:?}");
                assert!(d.line().is_some_and(|l| l >= 1) && d.column().is_some_and(|c| c >= 1));
            }
            assert!(err.to_string().starts_with("error: "));
        }
    }
});
