//! Textures on the CPU against exact answers: a checker on a plane at known
//! coordinates, an image's texels through the texture coordinates of boxes and spheres
//! and through a uv transform (glTF's KHR_texture_transform);
//! a textured emitter lights the same with and without light sampling. (The sRGB
//! decode's known values are `scene/image_file.rs`'s unit test.)

use std::sync::Arc;

use crate::cpu_support;

use glam::{Vec2, Vec3};
use renderer::camera::CameraFrame;
use scene_compiler::scene::{
    Cuboid, Material, MaterialKind, Scene, Sky, Texture, TextureImage, UvTransform, Wrap,
};

use cpu_support::{compile, job, pinhole, render, scene};

/// A slab of `kind` whose top is the plane y = 0.5 (the middle of a checker cell, so
/// no cell boundary runs along the plane), textured with `texture`, under a uniform
/// white sky, seen from above through `camera`.
fn textured_floor(camera: scene_compiler::scene::Camera, kind: MaterialKind, texture: Texture) -> Scene {
    let mut s = scene(camera, Sky::Constant(Vec3::ONE), &[], &[]);
    s.materials =
        vec![Material { name: "floor".into(), kind, texture: Some(texture), maps: Default::default() }];
    s.boxes =
        vec![Cuboid { min: Vec3::new(-50.0, -1.0, -50.0), max: Vec3::new(50.0, 0.5, 50.0), material: 0 }];
    s
}

/// Where the ray through image point (s, t) of `frame` (s right, t up, in [0, 1]) meets
/// the plane y = 0.5.
fn on_floor(frame: &CameraFrame, s: f32, t: f32) -> Vec3 {
    let dir = frame.lower_left + s * frame.horizontal + t * frame.vertical - frame.origin;
    frame.origin + dir * ((0.5 - frame.origin.y) / dir.y)
}

/// Under a uniform sky of 1 a Lambert surface of albedo `a` sends back exactly `a` with
/// every sample (each bounce reaches the sky, and colours whose largest component is 1
/// leave Russian roulette nothing to kill), so a pixel that sees one checker cell only is
/// that cell's colour, to rounding: `floor(p / size)` summed even gives `even`.
#[test]
fn a_checker_on_a_plane_is_its_cells_colours_at_known_coordinates() {
    let (even, odd) = (Vec3::new(1.0, 0.25, 0.5), Vec3::new(0.125, 0.5, 1.0));
    let size = 0.75;
    let camera = pinhole(Vec3::new(0.3, 6.0, 2.0), Vec3::new(0.3, 0.5, 0.0), 40.0);
    let white = MaterialKind::Lambert { albedo: Vec3::ONE };
    let s = textured_floor(camera, white, Texture::Checker { size, even, odd });
    let (width, height) = (48, 32);
    let blob = compile(&s);
    let (image, _) = render(&blob, &job(&blob, width, height, 4, 4, 1));
    let frame = CameraFrame::new(&camera, width, height);
    let cell = |p: Vec3| (p / size).floor();
    let mut checked = [0, 0];
    for y in 0..height {
        for x in 0..width {
            let corners = [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)].map(|(dx, dy)| {
                let s = (x as f32 + dx) / width as f32;
                let t = 1.0 - (y as f32 + dy) / height as f32;
                cell(on_floor(&frame, s, t))
            });
            if corners.iter().any(|c| *c != corners[0]) {
                continue; // the pixel straddles a cell boundary
            }
            let sum = corners[0].x + corners[0].y + corners[0].z;
            let is_even = sum.rem_euclid(2.0) == 0.0;
            let want = if is_even { even } else { odd };
            let got = image[(y * width + x) as usize];
            let got = Vec3::new(got[0], got[1], got[2]);
            assert!((got - want).abs().max_element() < 1e-5, "pixel ({x}, {y}): {got} against {want}");
            checked[usize::from(is_even)] += 1;
        }
    }
    assert!(checked[0] > 100 && checked[1] > 100, "both colours seen whole: {checked:?}");
}

/// A 2 x 2 image: texel (0, 0) red, (1, 0) green, (0, 1) blue, (1, 1) white.
fn two_by_two() -> Arc<TextureImage> {
    Arc::new(TextureImage {
        path: "procedural".into(),
        width: 2,
        height: 2,
        texels: vec![[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 1.0]],
        alpha: Vec::new(),
    })
}

/// The floor's top (a white emitter, which the camera sees exactly: its texture times 1)
/// seen straight down shows the image as the box face convention says (u along +x, v
/// along +z on a ±y face): at a texel's centre the texel itself, between the four
/// centres their average, and past the edge with clamping the edge texel, with
/// repeating the far side's.
#[test]
fn image_lookups_are_bilinear_between_texel_centres() {
    let lookup = |wrap: Wrap, uv: Vec2| -> Vec3 {
        // The box spans x, z in [-50, 50]: u = (x + 50) / 100, v = (z + 50) / 100.
        let at = Vec3::new(uv.x * 100.0 - 50.0, 0.5, uv.y * 100.0 - 50.0);
        let camera = pinhole(at + Vec3::new(0.0, 1.0, 1e-4), at, 1e-3);
        let lamp = MaterialKind::Emissive { color: Vec3::ONE, strength: 1.0, albedo: Vec3::ZERO };
        let s = textured_floor(
            camera,
            lamp,
            Texture::Image {
                file: "t.png".into(),
                image: two_by_two(),
                wrap,
                uv_transform: Default::default(),
            },
        );
        let blob = compile(&s);
        let (image, _) = render(&blob, &job(&blob, 1, 1, 4, 1, 1));
        Vec3::new(image[0][0], image[0][1], image[0][2])
    };
    let close = |got: Vec3, want: Vec3, what: &str| {
        assert!((got - want).abs().max_element() < 2e-3, "{what}: {got} against {want}");
    };
    close(lookup(Wrap::Repeat, Vec2::new(0.25, 0.25)), Vec3::X, "texel (0, 0)'s centre");
    close(lookup(Wrap::Repeat, Vec2::new(0.75, 0.25)), Vec3::Y, "texel (1, 0)'s centre");
    close(lookup(Wrap::Clamp, Vec2::new(0.25, 0.75)), Vec3::Z, "texel (0, 1)'s centre");
    close(lookup(Wrap::Repeat, Vec2::new(0.5, 0.5)), Vec3::new(0.5, 0.5, 0.5), "between all four");
    close(lookup(Wrap::Repeat, Vec2::new(0.5, 0.25)), Vec3::new(0.5, 0.5, 0.0), "between red and green");
    // u = 0.01: 0.48 of the way from texel 0 back to texel 1 when repeating; texel 0 when clamped.
    close(lookup(Wrap::Clamp, Vec2::new(0.01, 0.25)), Vec3::X, "clamped at the left edge");
    close(
        lookup(Wrap::Repeat, Vec2::new(0.01, 0.25)),
        Vec3::new(0.52, 0.48, 0.0),
        "repeated at the left edge",
    );
}

/// The colour a white emitter's top, textured with `texture`, shows at its texture
/// coordinates `uv` (both in [0, 1]): seen straight down through one pixel of a very
/// narrow view, as in `image_lookups_are_bilinear_between_texel_centres`.
fn seen_at(texture: &Texture, uv: Vec2) -> Vec3 {
    // The box spans x, z in [-50, 50]: u = (x + 50) / 100, v = (z + 50) / 100.
    let at = Vec3::new(uv.x * 100.0 - 50.0, 0.5, uv.y * 100.0 - 50.0);
    let camera = pinhole(at + Vec3::new(0.0, 1.0, 1e-4), at, 1e-3);
    let lamp = MaterialKind::Emissive { color: Vec3::ONE, strength: 1.0, albedo: Vec3::ZERO };
    let blob = compile(&textured_floor(camera, lamp, texture.clone()));
    let (image, _) = render(&blob, &job(&blob, 1, 1, 4, 1, 1));
    Vec3::new(image[0][0], image[0][1], image[0][2])
}

fn image_texture(image: Arc<TextureImage>, uv_transform: UvTransform) -> Texture {
    Texture::Image { file: "t.png".into(), image, wrap: Wrap::Repeat, uv_transform }
}

/// glTF's KHR_texture_transform as its README writes it (rows of T R S, R = [[cos, sin],
/// [-sin, cos]]), applied to `uv` in f64, wrapped into [0, 1) as Repeat does.
fn transformed(t: &UvTransform, uv: Vec2) -> Vec2 {
    let r = f64::from(t.rotation_deg).to_radians();
    let (u, v) = (f64::from(uv.x) * f64::from(t.scale.x), f64::from(uv.y) * f64::from(t.scale.y));
    let u2 = r.cos() * u + r.sin() * v + f64::from(t.offset.x);
    let v2 = -r.sin() * u + r.cos() * v + f64::from(t.offset.y);
    Vec2::new(u2.rem_euclid(1.0) as f32, v2.rem_euclid(1.0) as f32)
}

/// An image with a uv transform renders as the untransformed image does at the
/// transformed coordinates: an offset of half the width swaps a two-colour image's halves,
/// a quarter turn turns a 2 x 2 image (in the README's direction, not the other), a scale
/// of 2 repeats it twice across, and a transform of all three agrees with the README's
/// formula at points all over the image.
#[test]
fn a_transformed_image_is_the_image_at_the_transformed_coordinates() {
    let close = |got: Vec3, want: Vec3, what: &str| {
        assert!((got - want).abs().max_element() < 2e-3, "{what}: {got} against {want}");
    };
    let halves = Arc::new(TextureImage {
        path: "procedural".into(),
        width: 2,
        height: 1,
        texels: vec![[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
        alpha: Vec::new(),
    });
    let plain = image_texture(halves.clone(), UvTransform::IDENTITY);
    let offset = UvTransform { offset: Vec2::new(0.5, 0.0), ..UvTransform::IDENTITY };
    let shifted = image_texture(halves, offset);
    for v in [0.2, 0.7] {
        close(seen_at(&plain, Vec2::new(0.25, v)), Vec3::X, "the left half, untransformed");
        close(seen_at(&shifted, Vec2::new(0.25, v)), Vec3::Z, "the left half shows the right");
        close(seen_at(&shifted, Vec2::new(0.75, v)), Vec3::X, "the right half shows the left");
    }

    // Texels: (0, 0) red, (1, 0) green, (0, 1) blue, (1, 1) white. A quarter turn takes
    // (u, v) to (v, -u): the top left quarter looks up the bottom left texel, and so on.
    let quarter = UvTransform { rotation_deg: 90.0, ..UvTransform::IDENTITY };
    let turned = image_texture(two_by_two(), quarter);
    close(seen_at(&turned, Vec2::new(0.25, 0.25)), Vec3::Z, "top left shows blue");
    close(seen_at(&turned, Vec2::new(0.75, 0.25)), Vec3::X, "top right shows red");
    close(seen_at(&turned, Vec2::new(0.75, 0.75)), Vec3::Y, "bottom right shows green");
    close(seen_at(&turned, Vec2::new(0.25, 0.75)), Vec3::ONE, "bottom left shows white");

    let twice = image_texture(two_by_two(), UvTransform { scale: Vec2::splat(2.0), ..UvTransform::IDENTITY });
    for (uv, want) in [
        ((0.125, 0.125), Vec3::X),
        ((0.375, 0.125), Vec3::Y),
        ((0.625, 0.125), Vec3::X),
        ((0.875, 0.375), Vec3::ONE),
        ((0.625, 0.875), Vec3::Z),
    ] {
        close(seen_at(&twice, Vec2::from(uv)), want, &format!("scale 2 at {uv:?}"));
    }

    let all = UvTransform { offset: Vec2::new(0.3, -0.2), rotation_deg: 30.0, scale: Vec2::new(1.5, 0.75) };
    let moved = image_texture(two_by_two(), all);
    let untransformed = image_texture(two_by_two(), UvTransform::IDENTITY);
    for uv in [(0.1, 0.1), (0.4, 0.8), (0.9, 0.3), (0.55, 0.55)] {
        let uv = Vec2::from(uv);
        let want = seen_at(&untransformed, transformed(&all, uv));
        close(seen_at(&moved, uv), want, &format!("offset, rotation and scale at {uv}"));
    }
}

/// A sphere shows its image by longitude and latitude: looking along -z at its +z side
/// (u = 0.5, the image's centre column) halfway up (v = 0.5).
#[test]
fn a_sphere_shows_its_image_centre_column_towards_plus_z() {
    // Four columns: the texel under u = 0.5 (x in [0.5 w - 0.5, 0.5 w + 0.5)) decides.
    let columns = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 0.0]];
    let image = Arc::new(TextureImage {
        path: "procedural".into(),
        width: 4,
        height: 1,
        texels: columns.to_vec(),
        alpha: Vec::new(),
    });
    let camera = pinhole(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, 1e-3);
    let mut s = scene(camera, Sky::Constant(Vec3::ZERO), &[], &[(Vec3::ZERO, 1.0, 0)]);
    s.materials = vec![Material {
        name: "globe".into(),
        kind: MaterialKind::Emissive { color: Vec3::ONE, strength: 1.0, albedo: Vec3::ZERO },
        texture: Some(Texture::Image {
            file: "t.png".into(),
            image,
            wrap: Wrap::Repeat,
            uv_transform: Default::default(),
        }),
        maps: Default::default(),
    }];
    let blob = compile(&s);
    let (image, _) = render(&blob, &job(&blob, 1, 1, 4, 1, 1));
    let got = Vec3::new(image[0][0], image[0][1], image[0][2]);
    // u = 0.5 is the boundary between columns 1 and 2 (v = 0.5 the only row): bilinear
    // gives their average.
    assert!((got - Vec3::new(0.0, 0.5, 0.5)).abs().max_element() < 1e-3, "{got}");
}

/// A checker-textured emitter lights a diffuse sphere the same with and without
/// next-event estimation: light sampling reads the texture where its shadow ray lands,
/// as a BSDF-sampled ray that hits the emitter does (each estimate unbiased, so the two
/// means agree within their errors).
#[test]
fn a_textured_emitter_lights_the_same_with_and_without_nee() {
    // The sphere fills the frame: every pixel is light the floor sent it.
    let camera = pinhole(Vec3::new(0.0, 1.2, 4.0), Vec3::new(0.0, 1.0, 0.0), 8.0);
    let mut s = scene(
        camera,
        Sky::Constant(Vec3::ZERO),
        &[MaterialKind::Lambert { albedo: Vec3::splat(0.7) }],
        &[(Vec3::new(0.0, 1.0, 0.0), 0.5, 0)],
    );
    s.materials.push(Material {
        name: "floor".into(),
        kind: MaterialKind::Emissive { color: Vec3::ONE, strength: 2.0, albedo: Vec3::ZERO },
        texture: Some(Texture::Checker { size: 0.5, even: Vec3::ONE, odd: Vec3::splat(0.1) }),
        maps: Default::default(),
    });
    s.boxes = vec![Cuboid { min: Vec3::new(-3.0, -1.0, -3.0), max: Vec3::new(3.0, 0.0, 3.0), material: 1 }];
    let with = cpu_support::estimate(&s, (24, 16), 64, 8, true, 8);
    let without = cpu_support::estimate(&s, (24, 16), 64, 8, false, 8);
    let se = (with.1 * with.1 + without.1 * without.1).sqrt();
    assert!((with.0 - without.0).abs() <= 5.0 * se, "with NEE {with:?}, without {without:?}");
    assert!(with.1 < without.1, "light sampling lowers the error: {with:?} against {without:?}");
}
