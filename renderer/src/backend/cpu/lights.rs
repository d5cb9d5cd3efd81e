//! The light table as next-event estimation reads it: each light's kind and
//! parameters, the suns a leaving ray sees, and picking a light by power
//! (docs/path-tracing.md, "Next-event estimation"; CUDA twin: kernels/lights.cuh).
//! Sampling a direction to the picked light is `direct.rs`'s.

use glam::{Vec3A, Vec4};
use scene_compiler::blob::SunDisc;
use scene_compiler::blob::layout::{
    LIGHT_AREA, LIGHT_DIRECTIONAL, LIGHT_ENVIRONMENT, LIGHT_POINT, LightRecord,
};

/// What a light is, with the parameters its sampling needs.
#[derive(Clone, Copy, Debug)]
pub enum LightShape {
    Point {
        position: Vec3A,
    },
    /// `towards`: the unit direction to the light; `one_minus_cos` of its disc's radius.
    Directional {
        towards: Vec3A,
        one_minus_cos: f32,
    },
    /// An emissive primitive of any kind (its reference): the shape samples itself.
    Area {
        prim: u32,
    },
    /// The environment sky (`CpuScene::env`), which samples itself.
    Environment,
}

/// A light of the blob's table.
#[derive(Clone, Copy, Debug)]
pub struct Light {
    pub shape: LightShape,
    /// Intensity (point), irradiance (directional) or radiance (area).
    pub radiance: Vec3A,
    /// The probability of picking this light.
    pub pdf: f32,
    pub alias_threshold: f32,
    pub alias: u32,
}

impl Light {
    pub fn from_record(r: &LightRecord) -> Light {
        let [x, y, z, cos] = r.vector_cos;
        let vector = Vec3A::new(x, y, z);
        let shape = match r.kind {
            LIGHT_POINT => LightShape::Point { position: vector },
            LIGHT_DIRECTIONAL => LightShape::Directional { towards: vector, one_minus_cos: 1.0 - cos },
            LIGHT_AREA => LightShape::Area { prim: r.prim },
            LIGHT_ENVIRONMENT => LightShape::Environment,
            kind => unreachable!("BlobView::parse refuses light kind {kind}"),
        };
        Light {
            shape,
            radiance: Vec3A::from_vec4(Vec4::from_array(r.radiance_pdf)),
            pdf: r.radiance_pdf[3],
            alias_threshold: r.alias_threshold,
            alias: r.alias,
        }
    }
}

/// A directional light with a disc ([`SunDisc`]), as a ray leaving the scene sees it:
/// rays after the camera, a delta lobe or a refraction (which next-event estimation
/// cannot reach) and every ray with NEE off (docs/path-tracing.md, "Next-event
/// estimation").
#[derive(Clone, Copy, Debug)]
pub struct Sun {
    towards: Vec3A,
    cos: f32,
    radiance: Vec3A,
}

impl Sun {
    pub fn from_disc(d: &SunDisc) -> Sun {
        Sun { towards: Vec3A::from_array(d.towards), cos: d.cos, radiance: Vec3A::from_array(d.radiance) }
    }

    /// The radiance of the suns seen along unit `dir`.
    #[inline(always)]
    pub fn seen(suns: &[Sun], dir: Vec3A) -> Vec3A {
        suns.iter().filter(|s| dir.dot(s.towards) >= s.cos).map(|s| s.radiance).sum()
    }
}

/// The light the alias table picks for `u` in [0, 1).
#[inline(always)]
pub fn pick_light(lights: &[Light], u: f32) -> &Light {
    let n = lights.len();
    let scaled = u * n as f32;
    let i = (scaled as usize).min(n - 1);
    let light = &lights[i];
    if scaled - (i as f32) < light.alias_threshold { light } else { &lights[light.alias as usize] }
}
