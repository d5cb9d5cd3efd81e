//! The CPU filter, step for step what kernels/denoise.cuh does on the GPU: demodulate
//! and estimate variance ([`prepare`]), clamp fireflies ([`clamp_fireflies`]),
//! [`ATROUS_PASSES`] edge-avoiding à-trous passes ([`atrous_pass`]), remodulate. docs/path-tracing.md, "The denoiser".

use rayon::prelude::*;

use super::AovSample;
use super::constants::{
    ALBEDO_EPSILON, ATROUS_PASSES, ATROUS_TAPS, DEPTH_EPSILON, FIREFLY_CLAMP, LUMINANCE, LUMINANCE_EPSILON,
    NORMAL_POWER_LOG2, POOL_VARIANCE_BELOW, SIGMA_DEPTH, SIGMA_LUMINANCE,
};

/// Rec. 709 luminance.
#[inline]
pub fn luminance(c: [f32; 3]) -> f32 {
    LUMINANCE[0] * c[0] + LUMINANCE[1] * c[1] + LUMINANCE[2] * c[2]
}

/// `v / |v|`, or zero for a zero vector (a pixel whose samples all missed).
#[inline]
pub fn unit_or_zero(v: [f32; 3]) -> [f32; 3] {
    let len2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    if len2 > 0.0 {
        let inv = 1.0 / len2.sqrt();
        v.map(|c| c * inv)
    } else {
        [0.0; 3]
    }
}

/// The pixels of the 3 x 3 window around pixel `i` of a `width × height` image that
/// lie inside it, as `(dx, dy, index)`, the centre included.
fn window3(width: usize, height: usize, i: usize) -> impl Iterator<Item = (isize, isize, usize)> {
    let (x, y) = ((i % width) as isize, (i / width) as isize);
    (-1isize..=1).flat_map(move |dy| {
        (-1isize..=1).filter_map(move |dx| {
            let (qx, qy) = (x + dx, y + dy);
            (qx >= 0 && qy >= 0 && qx < width as isize && qy < height as isize)
                .then(|| (dx, dy, qy as usize * width + qx as usize))
        })
    })
}

/// What the passes read per pixel.
pub struct Prepared {
    pub width: usize,
    pub height: usize,
    /// Demodulated irradiance (rgb) and the variance of its luminance's mean (a).
    pub color: Vec<[f32; 4]>,
    /// Unit shading normal (or zero: nothing hit) and depth.
    pub guide: Vec<[f32; 4]>,
    /// |dz/dx| + |dz/dy|, each the smaller one-sided difference (an edge does not
    /// widen its own gradient).
    pub depth_gradient: Vec<f32>,
    /// The albedo the irradiance was divided by, to multiply it back.
    pub albedo: Vec<[f32; 3]>,
}

/// The albedo as demodulation uses it: at least [`ALBEDO_EPSILON`] per channel.
#[inline]
pub fn demodulation_albedo(a: [f32; 3]) -> [f32; 3] {
    a.map(|c| c.max(ALBEDO_EPSILON))
}

/// Demodulates `beauty` (per-pixel averages) by the albedo and estimates each pixel's
/// variance from `aovs` (per-pixel averages of [`AovSample`]s over `samples` samples).
pub fn prepare(
    width: usize,
    height: usize,
    samples: u32,
    beauty: &[[f32; 3]],
    aovs: &[AovSample],
) -> Prepared {
    let n = samples.max(1) as f32;
    let lum: Vec<f32> = beauty.iter().map(|&c| luminance(c)).collect();
    let at = |x: isize, y: isize| {
        (x >= 0 && y >= 0 && x < width as isize && y < height as isize)
            .then(|| y as usize * width + x as usize)
    };
    let variance = |i: usize| -> f32 {
        if samples >= POOL_VARIANCE_BELOW {
            return (aovs[i].luminance2 - lum[i] * lum[i]).max(0.0) / n;
        }
        // Too few samples of its own: the moments of the 3 x 3 neighbourhood.
        let (mut m1, mut m2, mut count) = (0.0f32, 0.0f32, 0.0f32);
        for (_, _, q) in window3(width, height, i) {
            m1 += lum[q];
            m2 += aovs[q].luminance2;
            count += 1.0;
        }
        let (m1, m2) = (m1 / count, m2 / count);
        (m2 - m1 * m1).max(0.0) / n
    };
    let depth = |i: usize| aovs[i].depth;
    let one_sided = |i: usize, a: Option<usize>, b: Option<usize>| -> f32 {
        let d = |q: Option<usize>| q.map(|q| (depth(i) - depth(q)).abs());
        match (d(a), d(b)) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => 0.0,
        }
    };
    let pixels = width * height;
    let mut color = Vec::with_capacity(pixels);
    let mut guide = Vec::with_capacity(pixels);
    let mut depth_gradient = Vec::with_capacity(pixels);
    let mut albedo = Vec::with_capacity(pixels);
    for i in 0..pixels {
        let (x, y) = ((i % width) as isize, (i / width) as isize);
        let a = demodulation_albedo(aovs[i].albedo);
        let c = beauty[i];
        let la = luminance(a);
        color.push([c[0] / a[0], c[1] / a[1], c[2] / a[2], variance(i) / (la * la)]);
        let nrm = unit_or_zero(aovs[i].normal);
        guide.push([nrm[0], nrm[1], nrm[2], aovs[i].depth]);
        depth_gradient
            .push(one_sided(i, at(x - 1, y), at(x + 1, y)) + one_sided(i, at(x, y - 1), at(x, y + 1)));
        albedo.push(a);
    }
    Prepared { width, height, color, guide, depth_gradient, albedo }
}

/// `max(0, d)^128` by squaring.
#[inline]
pub fn normal_weight(np: [f32; 4], nq: [f32; 4]) -> f32 {
    let zero = |n: [f32; 4]| n[0] == 0.0 && n[1] == 0.0 && n[2] == 0.0;
    if zero(np) && zero(nq) {
        return 1.0;
    }
    let mut w = (np[0] * nq[0] + np[1] * nq[1] + np[2] * nq[2]).max(0.0);
    for _ in 0..NORMAL_POWER_LOG2 {
        w *= w;
    }
    w
}

/// The variance at `(x, y)` blurred by a 3 x 3 Gaussian (SVGF's prefilter of the
/// luminance weight's variance), over the taps inside the image.
fn prefiltered_variance(p: &Prepared, color: &[[f32; 4]], x: usize, y: usize) -> f32 {
    const K: [f32; 2] = [0.5, 0.25];
    let (mut sum, mut weight) = (0.0f32, 0.0f32);
    for (dx, dy, q) in window3(p.width, p.height, y * p.width + x) {
        let k = K[dx.unsigned_abs()] * K[dy.unsigned_abs()];
        sum += k * color[q][3];
        weight += k;
    }
    sum / weight
}

/// One à-trous pass with taps `step` pixels apart: `color` in, the filtered colour
/// and its variance out.
pub fn atrous_pass(p: &Prepared, color: &[[f32; 4]], step: usize, out: &mut [[f32; 4]]) {
    out.par_chunks_mut(p.width).enumerate().for_each(|(y, row)| {
        for (x, o) in row.iter_mut().enumerate() {
            *o = atrous_pixel(p, color, step, x, y);
        }
    });
}

fn atrous_pixel(p: &Prepared, color: &[[f32; 4]], step: usize, x: usize, y: usize) -> [f32; 4] {
    let i = y * p.width + x;
    let cp = color[i];
    let gp = p.guide[i];
    let lp = luminance([cp[0], cp[1], cp[2]]);
    let luminance_scale = SIGMA_LUMINANCE * prefiltered_variance(p, color, x, y).sqrt() + LUMINANCE_EPSILON;
    let depth_scale = SIGMA_DEPTH * p.depth_gradient[i] * step as f32;
    let depth_epsilon = DEPTH_EPSILON * gp[3];
    let (mut sum, mut sum_var, mut sum_w) = ([0.0f32; 3], 0.0f32, 0.0f32);
    for dy in -2isize..=2 {
        let qy = y as isize + dy * step as isize;
        if qy < 0 || qy >= p.height as isize {
            continue;
        }
        for dx in -2isize..=2 {
            let qx = x as isize + dx * step as isize;
            if qx < 0 || qx >= p.width as isize {
                continue;
            }
            let q = qy as usize * p.width + qx as usize;
            let (cq, gq) = (color[q], p.guide[q]);
            let h = ATROUS_TAPS[dx.unsigned_abs()] * ATROUS_TAPS[dy.unsigned_abs()];
            let distance = dx.unsigned_abs().max(dy.unsigned_abs()) as f32;
            let wz = (-(gp[3] - gq[3]).abs() / (depth_scale * distance + depth_epsilon)).exp();
            let wl = (-(lp - luminance([cq[0], cq[1], cq[2]])).abs() / luminance_scale).exp();
            let w = h * normal_weight(gp, gq) * wz * wl;
            for c in 0..3 {
                sum[c] += w * cq[c];
            }
            sum_var += w * w * cq[3];
            sum_w += w;
        }
    }
    // The centre tap has weight h > 0 (its normal, depth and luminance weights are 1).
    [sum[0] / sum_w, sum[1] / sum_w, sum[2] / sum_w, sum_var / (sum_w * sum_w)]
}

/// `color` with each pixel's irradiance luminance at most its brightest neighbour's
/// (the 8 around it) times [`FIREFLY_CLAMP`]: a lone bright sample (a caustic path at 4
/// spp) is not spread over the filter's footprint. A pixel whose samples agree
/// (variance 0: the peak of a noise-free gradient) is left alone. Variances are kept.
pub fn clamp_fireflies(p: &Prepared, color: &[[f32; 4]]) -> Vec<[f32; 4]> {
    (0..color.len())
        .into_par_iter()
        .map(|i| {
            let brightest = window3(p.width, p.height, i)
                .filter(|&(_, _, q)| q != i)
                .map(|(_, _, q)| luminance([color[q][0], color[q][1], color[q][2]]))
                .fold(0.0f32, f32::max);
            let c = color[i];
            let (l, cap) = (luminance([c[0], c[1], c[2]]), brightest * FIREFLY_CLAMP);
            if l > cap && c[3] > 0.0 {
                let k = cap / l;
                [c[0] * k, c[1] * k, c[2] * k, c[3]]
            } else {
                c
            }
        })
        .collect()
}

/// The whole filter on prepared inputs: the firefly clamp, the passes, then the albedo
/// multiplied back.
pub fn run(p: &Prepared) -> Vec<[f32; 3]> {
    let mut a = clamp_fireflies(p, &p.color);
    let mut b = vec![[0.0f32; 4]; a.len()];
    for pass in 0..ATROUS_PASSES {
        atrous_pass(p, &a, 1 << pass, &mut b);
        std::mem::swap(&mut a, &mut b);
    }
    a.iter().zip(&p.albedo).map(|(c, al)| [c[0] * al[0], c[1] * al[1], c[2] * al[2]]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A noise-free film (every sample of a pixel the same) of `width × height` whose
    /// pixels are `value(x, y)`, on one plane facing the camera at depth 5.
    fn noise_free(
        width: usize,
        height: usize,
        value: impl Fn(usize, usize) -> [f32; 3],
    ) -> (Vec<[f32; 3]>, Vec<AovSample>) {
        let beauty: Vec<[f32; 3]> = (0..width * height).map(|i| value(i % width, i / width)).collect();
        let aovs = beauty
            .iter()
            .map(|&c| AovSample {
                albedo: [0.5; 3],
                depth: 5.0,
                normal: [0.0, 0.0, 1.0],
                luminance2: luminance(c).powi(2),
            })
            .collect();
        (beauty, aovs)
    }

    #[test]
    fn a_noise_free_image_comes_back_unchanged() {
        let (beauty, aovs) = noise_free(24, 16, |x, y| [0.1 + 0.01 * x as f32, 0.3, 0.2 + 0.02 * y as f32]);
        let out = crate::denoise::denoise(24, 16, 16, &beauty, &aovs);
        for (o, b) in out.iter().zip(&beauty) {
            for c in 0..3 {
                assert!((o[c] - b[c]).abs() <= 1e-5 * b[c].abs().max(1.0), "{o:?} against {b:?}");
            }
        }
    }

    #[test]
    fn a_hard_edge_between_two_flat_regions_stays_an_edge() {
        let (beauty, aovs) = noise_free(32, 8, |x, _| if x < 16 { [0.2; 3] } else { [0.8; 3] });
        let out = crate::denoise::denoise(32, 8, 16, &beauty, &aovs);
        for (i, (o, b)) in out.iter().zip(&beauty).enumerate() {
            assert!((o[0] - b[0]).abs() < 1e-6, "pixel {i}: {o:?} against {b:?}");
        }
    }

    #[test]
    fn noise_is_smoothed_and_a_lone_firefly_clamped() {
        // A flat grey plane with ±20 % noise and one pixel 50 times too bright.
        let mut state = 1u32;
        let mut noise = || {
            state = state.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
            (state >> 8) as f32 / 16_777_216.0 - 0.5
        };
        let (mut beauty, mut aovs) = noise_free(32, 32, |_, _| [0.5; 3]);
        for (b, a) in beauty.iter_mut().zip(&mut aovs) {
            let v = 0.5 * (1.0 + 0.4 * noise());
            *b = [v; 3];
            a.luminance2 = v * v + 0.01;
        }
        // Of its 4 samples one was 100 and three 0: a mean of 25 with a second moment of 2500.
        beauty[16 * 32 + 16] = [25.0; 3];
        aovs[16 * 32 + 16].luminance2 = 2500.0;
        let out = crate::denoise::denoise(32, 32, 4, &beauty, &aovs);
        let spread = |img: &[[f32; 3]]| img.iter().map(|c| (c[0] - 0.5).abs()).fold(0.0f32, f32::max);
        let without_firefly: Vec<[f32; 3]> =
            out.iter().enumerate().filter(|(i, _)| *i != 16 * 32 + 16).map(|(_, c)| *c).collect();
        assert!(spread(&without_firefly) < 0.05, "residual noise {}", spread(&without_firefly));
        assert!(out[16 * 32 + 16][0] < 0.7, "the firefly stays: {:?}", out[16 * 32 + 16]);
    }
}
