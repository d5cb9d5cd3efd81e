//! Feeds arbitrary bytes to the image readers (PNG, JPEG, OpenEXR, Radiance HDR) the
//! way a scene reaches them: the first byte picks the format and whether the image is
//! a material's texture or the environment sky, the rest is written as the image file
//! the scene names, and the scene is parsed.
//!
//! Checks that nothing panics or aborts (the image crate's decoders are given the
//! dimensions limit before they allocate), and that a refused image is an error at the
//! line of the value that names it (line 4 for a texture, 6 for the sky) naming the file.

#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use scene_compiler::scene::{self, Sky, Texture};

/// One folder for the whole run (a file per format, rewritten for every input).
fn folder() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("rtscene-fuzz-images-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temp folder");
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, bytes)) = data.split_first() else { return };
    let name = ["image.png", "image.jpg", "image.exr", "image.hdr"][usize::from(pick % 4)];
    let as_sky = pick & 4 != 0;
    let dir = folder();
    std::fs::write(dir.join(name), bytes).expect("write the image");
    let (texture, sky) = if as_sky {
        (String::new(), format!("    sky: Environment(image: \"{name}\"),\n"))
    } else {
        (format!(", texture: Image(file: \"{name}\")"), "\n".to_owned())
    };
    let text = format!(
        "Scene(
    camera: (look_from: (0, 0, 5), look_at: (0, 0, 0), vfov_deg: 40),
    materials: {{
        \"wood\": Lambert(albedo: (1, 1, 1){texture}),
    }},
{sky}    spheres: [(center: (0, 0, 0), radius: 1, material: \"wood\")],
)"
    );
    match scene::parse(&text, &dir.join("scene.ron").display().to_string()) {
        Ok(parsed) => {
            let texels = match (&parsed.sky, &parsed.materials[0].texture) {
                (Sky::Environment(env), _) => env.data.texels.clone(),
                (_, Some(Texture::Image { image, .. })) => image.texels.clone(),
                _ => panic!("the image was read into the scene"),
            };
            assert!(!texels.is_empty(), "an accepted image has texels");
            assert!(texels.iter().flatten().all(|v| v.is_finite() && *v >= 0.0), "finite, not negative");
        }
        Err(err) => {
            let d = &err.diagnostics()[0];
            let line = if as_sky { 6 } else { 4 };
            assert_eq!(d.line(), Some(line), "the error is at the image's line: {err}");
            assert!(d.message().contains(name), "the error names the image: {err}");
        }
    }
});
