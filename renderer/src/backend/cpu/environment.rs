//! The environment sky: an equirectangular image looked up with bilinear filtering,
//! sampled as a light by two alias tables (rows, then the row's columns), and the
//! solid-angle density of that sampling for MIS (docs/path-tracing.md, "Environment";
//! CUDA twin: kernels/environment.cuh, function for function).
//!
//! Not here: building the tables (scene-compiler `blob/environment.rs`), picking the
//! environment among the lights (`lights.rs`).

use std::f32::consts::{FRAC_1_PI, PI};

use glam::{Vec3A, Vec4};
use scene_compiler::BlobView;

use crate::backend::constants::ONE_MINUS_EPSILON;

/// `1 / 2π`.
const INV_TAU: f32 = 0.5 * FRAC_1_PI;

/// The blob's environment, owned.
#[derive(Clone, Debug)]
pub struct EnvMap {
    width: u32,
    height: u32,
    /// Row by row from the top: rgb radiance, w the cell's density in (u, v).
    texels: Vec<Vec4>,
    /// The rows' alias table, then each row's: `(threshold, alias)`.
    sampling: Vec<(f32, u32)>,
    /// The rotation about +Y.
    cos_rot: f32,
    sin_rot: f32,
    /// The environment light's pick probability (0: never sampled as a light).
    pub pick_pdf: f32,
}

/// A direction drawn by [`EnvMap::sample`] and its solid-angle density.
#[derive(Clone, Copy, Debug)]
pub struct EnvSample {
    pub wi: Vec3A,
    pub pdf: f32,
}

/// `p + t (q - p)`: exactly `p` when `q == p`, so a uniform image filters to itself.
#[inline(always)]
fn lerp(p: Vec3A, q: Vec3A, t: f32) -> Vec3A {
    p + t * (q - p)
}

impl EnvMap {
    /// The blob's environment, if it has one (`BlobView::parse` checked the tables).
    pub fn from_blob(blob: &BlobView<'_>) -> Option<EnvMap> {
        let [width, height, ..] = blob.header.env_size;
        if width == 0 {
            return None;
        }
        let [cos_rot, sin_rot, ..] = blob.globals.env_rotation;
        Some(EnvMap {
            width,
            height,
            texels: blob.env_texels.iter().map(|t| Vec4::from_array(t.rgb_pdf)).collect(),
            sampling: blob.env_sampling.iter().map(|a| (a.threshold, a.alias)).collect(),
            cos_rot,
            sin_rot,
            pick_pdf: blob.env_light_pdf(),
        })
    }

    /// World direction to the image's frame: `R_y(-rotation) d`.
    #[inline(always)]
    fn to_local(&self, d: Vec3A) -> Vec3A {
        let (c, s) = (self.cos_rot, self.sin_rot);
        Vec3A::new(c * d.x - s * d.z, d.y, s * d.x + c * d.z)
    }

    /// The image's frame to world: `R_y(rotation) l`.
    #[inline(always)]
    fn to_world(&self, l: Vec3A) -> Vec3A {
        let (c, s) = (self.cos_rot, self.sin_rot);
        Vec3A::new(c * l.x + s * l.z, l.y, -s * l.x + c * l.z)
    }

    /// Image coordinates of unit world direction `d`: `u` in [0, 1] (0.5 looking along
    /// +Z in the image's frame), `v` in [0, 1] (0 straight up), and `cos θ = l.y`.
    #[inline(always)]
    pub fn uv(&self, d: Vec3A) -> (f32, f32, f32) {
        let l = self.to_local(d);
        let mut u = l.x.atan2(-l.z) * INV_TAU;
        if u < 0.0 {
            u += 1.0;
        }
        let cos_theta = l.y.clamp(-1.0, 1.0);
        (u, cos_theta.acos() * FRAC_1_PI, cos_theta)
    }

    #[inline(always)]
    fn texel(&self, i: u32, j: u32) -> Vec4 {
        self.texels[(j * self.width + i) as usize]
    }

    /// Radiance arriving along `-d` from direction `d` (unit): the bilinear filter of
    /// the four texel centres around `(u W - 0.5, v H - 0.5)`, columns wrapping,
    /// rows clamped at the poles.
    #[inline(always)]
    pub fn radiance(&self, d: Vec3A) -> Vec3A {
        let (u, v, _) = self.uv(d);
        let x = u * self.width as f32 - 0.5;
        let y = v * self.height as f32 - 0.5;
        let (x0, y0) = (x.floor(), y.floor());
        let (fx, fy) = (x - x0, y - y0);
        let i0 = if x0 < 0.0 { self.width - 1 } else { (x0 as u32).min(self.width - 1) };
        let i1 = if i0 + 1 < self.width { i0 + 1 } else { 0 };
        let last_row = self.height as f32 - 1.0;
        let j0 = y0.clamp(0.0, last_row) as u32;
        let j1 = (y0 + 1.0).clamp(0.0, last_row) as u32;
        let rgb = |i, j| Vec3A::from_vec4(self.texel(i, j));
        let top = lerp(rgb(i0, j0), rgb(i1, j0), fx);
        let bottom = lerp(rgb(i0, j1), rgb(i1, j1), fx);
        lerp(top, bottom, fy)
    }

    /// The solid-angle density with which [`EnvMap::sample`] draws direction `d`:
    /// its cell's density over `2π² sin θ`; 0 at the poles.
    #[inline(always)]
    pub fn pdf(&self, d: Vec3A) -> f32 {
        let (u, v, cos_theta) = self.uv(d);
        let sin_theta = ((1.0 - cos_theta) * (1.0 + cos_theta)).max(0.0).sqrt();
        if sin_theta <= 0.0 {
            return 0.0;
        }
        let i = ((u * self.width as f32) as u32).min(self.width - 1);
        let j = ((v * self.height as f32) as u32).min(self.height - 1);
        self.texel(i, j).w / (2.0 * PI * PI * sin_theta)
    }

    /// The cell the alias table `table` (n cells) picks for `u` in [0, 1), and where in
    /// the cell `u` falls, in [0, 1): the pick's fraction rescaled to the part of the
    /// cell that kept or passed it on.
    #[inline(always)]
    fn pick(table: &[(f32, u32)], u: f32) -> (u32, f32) {
        let n = table.len();
        let scaled = u * n as f32;
        let i = (scaled as usize).min(n - 1);
        let f = scaled - i as f32;
        let (threshold, alias) = table[i];
        let (cell, fraction) = if f < threshold {
            (i as u32, f / threshold)
        } else {
            (alias, (f - threshold) / (1.0 - threshold))
        };
        (cell, fraction.min(ONE_MINUS_EPSILON))
    }

    /// A direction drawn in proportion to the cells' densities, uniformly in (u, v)
    /// within its cell, and its solid-angle density; `None` at a pole (`sin θ = 0`).
    #[inline(always)]
    pub fn sample(&self, u1: f32, u2: f32) -> Option<EnvSample> {
        let (w, h) = (self.width as usize, self.height as usize);
        let (j, fv) = Self::pick(&self.sampling[..h], u1);
        let row = h + j as usize * w;
        let (i, fu) = Self::pick(&self.sampling[row..row + w], u2);
        let u = (i as f32 + fu) / self.width as f32;
        let v = (j as f32 + fv) / self.height as f32;
        let (sin_theta, cos_theta) = (PI * v).sin_cos();
        let (sin_phi, cos_phi) = (2.0 * PI * u).sin_cos();
        let pdf = self.texel(i, j).w / (2.0 * PI * PI * sin_theta);
        if sin_theta <= 0.0 || !(pdf > 0.0 && pdf.is_finite()) {
            return None;
        }
        let local = Vec3A::new(sin_theta * sin_phi, cos_theta, -sin_theta * cos_phi);
        Some(EnvSample { wi: self.to_world(local), pdf })
    }
}
