#!/usr/bin/env python3
"""Independent Mitsuba 3 references for the Principled material (rough metal, rough glass).

What it does, end to end (re-runnable, deterministic for fixed --spp and seeds):
  1. writes the synthetic equirectangular sky
     assets/scenes/reference/skies/reference_sky.exr (256x128, half-float OpenEXR): a sky
     gradient, a dim ground, a warm sun disc 35 deg up and four coloured vertical bands;
  2. writes each scene twice: as a Mitsuba dict (below) and as our RON,
     assets/scenes/reference/<name>.ron;
  3. renders each scene with Mitsuba's `path` integrator at two sampler seeds, averages
     them, and writes assets/references/mitsuba/<name>.csv: 8x8 block means (16x16 pixel
     blocks of the 128x128 image, by = 0 the top row) of LINEAR radiance, with the
     Mitsuba version, spp and a noise estimate (from the two seeds) in a `#` line.

Made with Mitsuba 3.9.1 (`python3 -m pip install mitsuba`, variant scalar_rgb, CPU only).
Run from anywhere:
    python3 tools/references/mitsuba_materials.py                 # everything, 8192 spp (~15 min, 2 cores)
    python3 tools/references/mitsuba_materials.py --only env_lambert_check --spp 256
    python3 tools/references/mitsuba_materials.py --compare env_lambert_check ours.exr
(--compare prints our render's block means against a written CSV.)
CI never runs this script: its outputs (the CSVs, the sky, the RON files) are committed.

Conventions matched to our renderer (docs/path-tracing.md, docs/scene-format.md):
  * camera: Mitsuba `perspective`, fov_axis 'y', fov = our vfov_deg, to_world look_at;
    box pixel filter (ours jitters uniformly within the pixel). Not mirrored (checked
    with the asymmetric env_lambert_check scene against our CPU renderer).
  * environment: same direction -> (u, v) map (Mitsuba's envmap, v = 0 the top row,
    to_world identity = our rotation_deg 0). Mitsuba 3.9.1 filters its bitmap with
    texel centres at u = (i + 0.5) / W horizontally (as we do) but at v = j / (H - 1)
    vertically, while we filter with texel centres at v = (j + 0.5) / H (rows clamped).
    So Mitsuba gets a W x (2H + 1) bitmap whose row j' holds OUR bilinear lookup at
    v = j' / (2H): Mitsuba's bilinear filter of it reproduces our radiance exactly
    (our lookup is linear in v between those rows).
  * depth: our max_depth counts traced segments (camera ray included): BSDF-sampled
    light arrives on paths of at most max_depth segments, next-event estimation at the
    last vertex adds paths of max_depth + 1. Mitsuba's max_depth counts segments too
    (1 = directly visible emitters only, 2 = direct illumination), with NEE only where
    one more segment is allowed. We use Mitsuba max_depth = 17 for our 16; the two
    differ only on paths of 17 segments that end by BSDF sampling, far below the noise.
  * Russian roulette: Mitsuba's default (rr_depth 5); unbiased either way.
  * materials: Lambert = `diffuse`; Principled metal with base_color (1,1,1) =
    `roughconductor` (material 'none', i.e. F = 1; ggx; alpha = roughness^2);
    Principled glass (metallic 0, transmission 1, base_color 1) = `roughdielectric`
    (ggx, alpha = roughness^2, int_ior = ior, ext_ior 1).
"""

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
SCENE_DIR = ROOT / "assets" / "scenes" / "reference"
SKY_REL = "skies/reference_sky.exr"
SKY_PATH = SCENE_DIR / SKY_REL
CSV_DIR = ROOT / "assets" / "references" / "mitsuba"

WIDTH = HEIGHT = 128
BLOCK = 16
OUR_MAX_DEPTH = 16
MITSUBA_MAX_DEPTH = OUR_MAX_DEPTH + 1  # see the top comment
SEEDS = (1, 2)

SKY_W, SKY_H = 256, 128
SUN_ELEV_DEG = 35.0
SUN_U = 0.35  # azimuth as the image's u: to the camera's right and behind it
SUN_RADIUS_DEG = 3.0

CAMERA = dict(look_from=(0.0, 1.0, 4.0), look_at=(0.0, 0.5, 0.0), up=(0.0, 1.0, 0.0), vfov_deg=40.0)
SPHERE = dict(center=(0.0, 0.5, 0.0), radius=0.5)
FLOOR = dict(min=(-3.0, -0.1, -3.0), max=(3.0, 0.0, 3.0), albedo=(0.5, 0.5, 0.5))

# name -> (our RON material text, Mitsuba bsdf dict, one-line description)
SCENES = {
    "env_lambert_check": (
        "Lambert(albedo: (0.8, 0.2, 0.2))",
        {"type": "diffuse", "reflectance": {"type": "rgb", "value": [0.8, 0.2, 0.2]}},
        "Lambert sphere (0.8, 0.2, 0.2): the conventions check against our current renderer "
        "(named env_ because tools/references/blender_pbr.py owns lambert_check)",
    ),
    "rough_metal_r03": (
        "Principled(base_color: (1, 1, 1), metallic: 1, roughness: 0.3)",
        {"type": "roughconductor", "material": "none", "distribution": "ggx", "alpha": 0.3**2},
        "Principled metal, base_color 1, roughness 0.3 (Mitsuba roughconductor, F = 1, ggx, alpha 0.09)",
    ),
    "rough_metal_r07": (
        "Principled(base_color: (1, 1, 1), metallic: 1, roughness: 0.7)",
        {"type": "roughconductor", "material": "none", "distribution": "ggx", "alpha": 0.7**2},
        "Principled metal, base_color 1, roughness 0.7 (Mitsuba roughconductor, F = 1, ggx, alpha 0.49)",
    ),
    "rough_glass_r03": (
        "Principled(base_color: (1, 1, 1), metallic: 0, roughness: 0.3, ior: 1.5, transmission: 1)",
        {"type": "roughdielectric", "distribution": "ggx", "alpha": 0.3**2, "int_ior": 1.5, "ext_ior": 1.0},
        "Principled glass, roughness 0.3, ior 1.5 (Mitsuba roughdielectric, ggx, alpha 0.09)",
    ),
    "rough_glass_r01": (
        "Principled(base_color: (1, 1, 1), metallic: 0, roughness: 0.1, ior: 1.5, transmission: 1)",
        {"type": "roughdielectric", "distribution": "ggx", "alpha": 0.1**2, "int_ior": 1.5, "ext_ior": 1.0},
        "Principled glass, roughness 0.1, ior 1.5 (Mitsuba roughdielectric, ggx, alpha 0.01)",
    ),
}


# ---------------------------------------------------------------- the sky image

def sky_function(d):
    """Radiance (linear RGB) of unit directions d[..., 3] (y up)."""
    x, y, z = d[..., 0], d[..., 1], d[..., 2]
    u = (np.arctan2(x, -z) / (2 * np.pi)) % 1.0
    elev = np.degrees(np.arcsin(np.clip(y, -1, 1)))
    t = np.clip(y, 0, 1)
    horizon = np.array([1.0, 0.95, 0.85])
    zenith = np.array([0.25, 0.45, 1.0])
    sky = horizon + (zenith - horizon) * np.sqrt(t)[..., None]
    ground = np.array([0.30, 0.26, 0.22])
    g = np.clip(-y * 8, 0, 1)[..., None]  # soft horizon, ~7 deg wide
    col = sky * (1 - g) + ground * g

    # Coloured vertical bands from the horizon to 60 deg up, soft-edged (about a texel).
    def band(u0, u1, colour):
        du = 1.0 / SKY_W
        inside_u = np.clip((u - u0) / du + 0.5, 0, 1) * np.clip((u1 - u) / du + 0.5, 0, 1)
        inside_e = np.clip((elev + 5) / 3, 0, 1) * np.clip((60 - elev) / 3, 0, 1)
        return (inside_u * inside_e)[..., None] * (np.array(colour) - col)

    col = col + band(0.03, 0.08, (0.2, 2.5, 0.3))    # green, seen through the glass (-z, a bit right)
    col = col + band(0.52, 0.58, (3.0, 0.3, 0.2))    # red, behind the camera (mirror reflections)
    col = col + band(0.76, 0.82, (0.3, 0.5, 3.5))    # blue, to the left (-x)
    col = col + band(0.90, 0.93, (3.0, 2.6, 0.4))    # yellow, thin, left of the view

    # The sun: a warm disc, smooth over its last half degree.
    th, ph = np.radians(90 - SUN_ELEV_DEG), 2 * np.pi * SUN_U
    sun = np.array([np.sin(ph) * np.sin(th), np.cos(th), -np.cos(ph) * np.sin(th)])
    ang = np.degrees(np.arccos(np.clip(d @ sun, -1, 1)))
    w = np.clip((SUN_RADIUS_DEG - ang) / 0.5 + 0.5, 0, 1)[..., None]
    col = col * (1 - w) + np.array([300.0, 220.0, 150.0]) * w
    return col.astype(np.float32)


def write_sky(mi):
    j, i = np.mgrid[0:SKY_H, 0:SKY_W]
    u, v = (i + 0.5) / SKY_W, (j + 0.5) / SKY_H
    th, ph = np.pi * v, 2 * np.pi * u
    d = np.stack([np.sin(ph) * np.sin(th), np.cos(th), -np.cos(ph) * np.sin(th)], -1)
    img = sky_function(d).astype(np.float16)
    SKY_PATH.parent.mkdir(parents=True, exist_ok=True)
    mi.Bitmap(img, mi.Bitmap.PixelFormat.RGB).write(str(SKY_PATH))
    print(f"wrote {SKY_PATH.relative_to(ROOT)} ({SKY_PATH.stat().st_size} bytes)")


def read_sky(mi):
    """The texels exactly as stored (and as our renderer reads them), float32 [H, W, 3]."""
    bmp = mi.Bitmap(str(SKY_PATH)).convert(mi.Bitmap.PixelFormat.RGB, mi.Struct.Type.Float32, srgb_gamma=False)
    return np.array(bmp, dtype=np.float32)


def mitsuba_env_bitmap(tex):
    """W x (2H + 1) texels whose Mitsuba filtering equals our bilinear lookup (see top)."""
    h = tex.shape[0]
    rows = []
    for jp in range(2 * h + 1):
        y = jp / 2.0 - 0.5  # our y = v H - 0.5 at v = jp / (2H)
        y0 = math.floor(y)
        fy = y - y0
        j0 = min(max(y0, 0), h - 1)
        j1 = min(max(y0 + 1, 0), h - 1)
        rows.append(tex[j0] + (tex[j1] - tex[j0]) * np.float32(fy))
    return np.ascontiguousarray(np.stack(rows), dtype=np.float32)


# ---------------------------------------------------------------- scenes

def mitsuba_scene(mi, env_bitmap, bsdf, spp):
    T = mi.ScalarTransform4f
    c = CAMERA
    lo, hi = np.array(FLOOR["min"]), np.array(FLOOR["max"])
    return {
        "type": "scene",
        "integrator": {"type": "path", "max_depth": MITSUBA_MAX_DEPTH},
        "sensor": {
            "type": "perspective",
            "fov_axis": "y",
            "fov": c["vfov_deg"],
            "to_world": T().look_at(origin=list(c["look_from"]), target=list(c["look_at"]), up=list(c["up"])),
            "sampler": {"type": "independent", "sample_count": spp},
            "film": {
                "type": "hdrfilm", "width": WIDTH, "height": HEIGHT,
                "rfilter": {"type": "box"}, "pixel_format": "rgb",
            },
        },
        "sky": {"type": "envmap", "bitmap": mi.Bitmap(env_bitmap, mi.Bitmap.PixelFormat.RGB)},
        "sphere": {
            "type": "sphere", "center": list(SPHERE["center"]), "radius": SPHERE["radius"], "bsdf": bsdf,
        },
        "floor": {
            "type": "cube",
            "to_world": T().translate(list((lo + hi) / 2)).scale(list((hi - lo) / 2)),
            "bsdf": {"type": "twosided", "bsdf": {"type": "diffuse",
                                                  "reflectance": {"type": "rgb", "value": list(FLOOR["albedo"])}}},
        },
    }


def fmt(v):
    return "(" + ", ".join(f"{x:g}" for x in v) + ")"


def ron_scene(name, material, desc):
    c = CAMERA
    return f"""// Reference scene `{name}`: {desc}.
// Written by tools/references/mitsuba_materials.py, which renders the same scene with
// Mitsuba 3 into assets/references/mitsuba/{name}.csv (block means of linear radiance).
Scene(
    camera: (
        look_from: {fmt(c['look_from'])},
        look_at: {fmt(c['look_at'])},
        up: {fmt(c['up'])},
        vfov_deg: {c['vfov_deg']:g},
    ),
    settings: (width: {WIDTH}, height: {HEIGHT}, spp: 64, max_depth: {OUR_MAX_DEPTH}, seed: 0),
    sky: Environment(image: "{SKY_REL}", strength: 1.0, rotation_deg: 0.0),
    materials: {{
        "floor": Lambert(albedo: {fmt(FLOOR['albedo'])}),
        "ball": {material},
    }},
    spheres: [
        (center: {fmt(SPHERE['center'])}, radius: {SPHERE['radius']:g}, material: "ball"),
    ],
    boxes: [
        (min: {fmt(FLOOR['min'])}, max: {fmt(FLOOR['max'])}, material: "floor"),
    ],
)
"""


# ---------------------------------------------------------------- numbers

def block_means(img):
    h, w = img.shape[:2]
    return img[:, :, :3].reshape(h // BLOCK, BLOCK, w // BLOCK, BLOCK, 3).mean(axis=(1, 3))


def write_csv(name, means, spp_total, noise_rms, noise_max, version, seconds):
    CSV_DIR.mkdir(parents=True, exist_ok=True)
    path = CSV_DIR / f"{name}.csv"
    with open(path, "w") as f:
        f.write(f"# mitsuba {version} scalar_rgb path max_depth {MITSUBA_MAX_DEPTH} (ours {OUR_MAX_DEPTH}), "
                f"spp {spp_total} (seeds {SEEDS[0]},{SEEDS[1]} x {spp_total // len(SEEDS)}), "
                f"noise (1-sigma of block means, relative) rms {noise_rms:.4%} max {noise_max:.4%}, "
                f"{WIDTH}x{HEIGHT} px, {BLOCK}x{BLOCK} px blocks, by 0 = top, linear radiance, "
                f"{seconds:.0f} s\n")
        f.write("bx,by,r,g,b\n")
        for by in range(means.shape[0]):
            for bx in range(means.shape[1]):
                r, g, b = means[by, bx]
                f.write(f"{bx},{by},{r:.6g},{g:.6g},{b:.6g}\n")
    print(f"wrote {path.relative_to(ROOT)}")


def read_csv(path):
    rows = [l for l in open(path) if not l.startswith("#")][1:]
    means = np.zeros((HEIGHT // BLOCK, WIDTH // BLOCK, 3))
    for l in rows:
        bx, by, r, g, b = l.strip().split(",")
        means[int(by), int(bx)] = (float(r), float(g), float(b))
    return means


def compare(mi, name, exr):
    ref = read_csv(CSV_DIR / f"{name}.csv")
    ours = block_means(np.array(mi.Bitmap(exr).convert(mi.Bitmap.PixelFormat.RGB, mi.Struct.Type.Float32,
                                                       srgb_gamma=False)))
    for label, o in (("as is", ours), ("mirrored left-right", ours[:, ::-1]), ("flipped up-down", ours[::-1])):
        rel = (o - ref) / np.maximum(ref, 1e-6)
        lum_o, lum_r = o.mean(-1), ref.mean(-1)
        rel_lum = (lum_o - lum_r) / lum_r
        print(f"{label:>20}: per-block luminance deviation: mean abs {np.abs(rel_lum).mean():.3%}, "
              f"worst {np.abs(rel_lum).max():.3%} at (bx, by) = "
              f"{np.unravel_index(np.abs(rel_lum).argmax(), rel_lum.shape)[::-1]}; "
              f"per channel mean abs {np.abs(rel).mean():.3%} worst {np.abs(rel).max():.3%}; "
              f"image mean ours/ref {o.mean() / ref.mean():.4f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spp", type=int, default=8192, help="total samples per pixel (split over the two seeds)")
    ap.add_argument("--only", nargs="*", help="scene names to render (default: all)")
    ap.add_argument("--compare", nargs=2, metavar=("NAME", "EXR"), help="compare our EXR with NAME's CSV")
    ap.add_argument("--threads", type=int, default=0, help="Mitsuba threads (0: all cores)")
    args = ap.parse_args()

    import mitsuba as mi
    mi.set_variant("scalar_rgb")
    if args.threads:
        import drjit as dr
        dr.set_thread_count(args.threads)

    if args.compare:
        compare(mi, *args.compare)
        return

    write_sky(mi)
    env = mitsuba_env_bitmap(read_sky(mi))
    names = args.only or list(SCENES)
    for name in names:
        material, bsdf, desc = SCENES[name]
        (SCENE_DIR / f"{name}.ron").write_text(ron_scene(name, material, desc))
        print(f"wrote {(SCENE_DIR / f'{name}.ron').relative_to(ROOT)}")

        per_seed = args.spp // len(SEEDS)
        scene = mi.load_dict(mitsuba_scene(mi, env, bsdf, per_seed))
        t0 = time.time()
        imgs = [np.array(mi.render(scene, spp=per_seed, seed=s), dtype=np.float64) for s in SEEDS]
        secs = time.time() - t0
        means = [block_means(im) for im in imgs]
        ref = sum(means) / len(means)
        # std of the two-seed mean, per block: |a - b| / 2 (one degree of freedom per block;
        # the rms over the 64 blocks and 3 channels is the robust figure).
        sig = np.abs(means[0] - means[1]) / 2 / np.maximum(ref, 1e-6)
        noise_rms, noise_max = float(np.sqrt((sig**2).mean())), float(sig.max())
        write_csv(name, ref, per_seed * len(SEEDS), noise_rms, noise_max, mi.__version__, secs)
        print(f"{name}: {secs:.0f} s, noise rms {noise_rms:.3%} max {noise_max:.3%}, "
              f"image mean {fmt(ref.mean(axis=(0, 1)))}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
