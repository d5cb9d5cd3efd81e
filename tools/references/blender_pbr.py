#!/usr/bin/env python3
"""Blender-made glTF test assets and Cycles reference numbers for the PBR work.

Builds three scenes in Blender (headless, through the `bpy` wheel), exports each as a
.glb with Blender's own glTF exporter, renders it with Cycles on the CPU and writes
8 x 6 block means of the linear image:

  lambert_check  the features scene with every material plain diffuse (a check of the
                 conventions against our current Lambert-only glTF mapping)
  pbr_features   normal-mapped ground with a metallic-roughness checker, an
                 alpha-masked leaf whose holes show in its shadow, a copper Suzanne
  pbr_showcase   held out (only to check agreement, never to tune against): copper
                 Suzanne, textured glossy plastic sphere, glass cube, a ground with
                 its own normal map and metallic-roughness texture

Writes (paths from the repository root):
  assets/models/<name>.glb
  assets/scenes/reference/<name>.ron        our scene: camera, sky, sun, the .glb
  assets/references/cycles/<name>.csv       `bx,by,r,g,b`, by = 0 the top row
  target/blender-references/<name>_seed<i>.exr and .png   the Cycles renders (not committed)

Run it by hand; CI never runs it (it needs `python3 -m pip install bpy`: 5.0.1, ~370 MB,
Python 3.11). The whole thing, as the committed numbers were made (lambert_check 512 spp,
the others 2 x 1024 spp at seeds 0 and 1, averaged), took about 8 minutes of Cycles on 2
busy cores:

  python3 tools/references/blender_pbr.py
  python3 tools/references/blender_pbr.py --scenes pbr_features --spp 2048 --seeds 2
  python3 tools/references/blender_pbr.py --export-only --composition
        # only the .glb and .ron files; print what each 40x40 block sees
  python3 tools/references/blender_pbr.py --scenes pbr_showcase --spp 2 --seeds 2 \
        --exr-dir /tmp/smoke --csv-dir /tmp/smoke      # a smoke test that commits nothing
  python3 tools/references/blender_pbr.py --compare ours.exr assets/references/cycles/lambert_check.csv
        # block means of our renderer's EXR against a reference csv (luminance, %)

Re-exporting gives byte-identical lambert_check.glb and pbr_features.glb; pbr_showcase.glb
can differ in the order of the UV sphere's triangles (the exporter's), not in geometry.

Conventions (see assets/references/README.md):
  * Blender is Z-up, glTF and our scenes Y-up: Blender (x, y, z) -> ours (x, z, -y).
  * Camera: sensor_fit VERTICAL, so the field of view we set is the vertical one,
    our `vfov_deg`.
  * World: a constant colour (Background strength 1) -> `Gradient(bottom: c, top: c)`.
  * Sun: Strength S is the irradiance (W/m^2) on a surface facing it -> our
    `Directional(intensity: S)`; its `angle` is the disc's full diameter -> our
    `angular_radius_deg: angle / 2`; `direction` is the way the light travels (the
    lamp's local -Z).
  * Cycles: Standard view transform, no denoising, no adaptive sampling, clamps 0,
    filter glossy 0, light threshold 0, a 1-pixel BOX pixel filter (samples uniform over
    the pixel, as ours; not filter_width 0.01, which point-samples pixel centres and
    aliases the glints of the bump grid by up to 28% a block), every bounce limit 16,
    Principled `distribution = 'GGX'` (single scattering, as glTF's BRDF). Caustics
    stay on (Cycles' default): the sun seen through the glass cube and off the copper
    is in the numbers. Cycles' 16 bounces are 17 path segments, ours `max_depth: 16`
    is 16: expected far below the noise here (not measured).
  * Alpha: Image Alpha -> Math Round -> Principled Alpha, which the exporter writes as
    alphaMode MASK with the default cutoff 0.5; Cycles renders the 0/1 alpha as
    transparent (shadow rays pass the holes).
  * Glass: a "glTF Material Output" group with Thickness 1.1 makes the exporter write
    KHR_materials_volume: a solid refracting cube as Cycles renders it (glTF
    transmission without it means a thin wall).
  * lambert_check exports Principled materials (metallic 0, roughness 1) and renders
    with Diffuse BSDFs (roughness 0, Lambert) of the same colour: the Principled
    BSDF has a specular layer that our Lambert mapping does not.
"""

import argparse
import math
import os
import sys
import tempfile

import numpy as np

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
W, H, BLOCK = 320, 240, 40
SCENES = ("lambert_check", "pbr_features", "pbr_showcase")

# ---------------------------------------------------------------- scene descriptions
# Everything below is in Blender's Z-up coordinates.

FEATURES = dict(
    camera=dict(look_from=(0.0, -7.5, 5.5), look_at=(0.0, 0.5, 0.4), vfov_deg=40.0),
    sky=(0.25, 0.30, 0.40),
    # 50 degrees up, coming from the back left (light travels +x, -y, down).
    sun=dict(direction=(0.514230, -0.385673, -0.766044), strength=3.0, angle_deg=2.0),
    leaf_size=2.0,
    leaf_shadow_centre=(-1.5, 0.5),  # on a rough checker cell
    leaf_height=1.4,
)

SHOWCASE = dict(
    camera=dict(look_from=(1.0, -7.5, 3.2), look_at=(0.0, 0.2, 0.7), vfov_deg=38.0),
    sky=(0.30, 0.32, 0.36),
    sun=dict(direction=(-0.6, 0.35, -0.72), strength=2.5, angle_deg=3.0),
)

COPPER = (0.955, 0.638, 0.538)


def to_yup(v):
    x, y, z = v
    return (x + 0.0, z + 0.0, -y + 0.0)  # + 0.0: no "-0" in the RON


# ---------------------------------------------------------------- textures (numpy)
# Arrays are row 0 = the image's TOP row, RGBA floats in [0, 1]; `make_image` flips
# them for Blender (whose pixel rows start at the bottom).


def bumps_normal_map(size=512, per_side=12, max_tilt_deg=40.0):
    """Tangent-space (OpenGL: green = up in the image) normals of a grid of round
    bumps: spherical caps whose rim slopes at `max_tilt_deg`."""
    cell = size / per_side
    c = (np.arange(size) + 0.5) % cell / cell * 2.0 - 1.0  # -1..1 across a cell
    x = c[None, :].repeat(size, 0)  # right
    y = -c[:, None].repeat(size, 1)  # up in the image (rows run down)
    r = np.sqrt(x * x + y * y)
    rim = 0.85  # bump radius in the cell's half-width
    sin_t = math.sin(math.radians(max_tilt_deg))
    R = rim / sin_t  # sphere radius whose cap meets the rim at max tilt
    inside = r < rim
    nz = np.where(inside, np.sqrt(np.maximum(R * R - r * r, 1e-12)) / R, 1.0)
    nx = np.where(inside, x / R, 0.0)
    ny = np.where(inside, y / R, 0.0)
    return normals_to_rgba(nx, ny, nz)


def ridges_normal_map(size=512, periods=6, amp=0.6):
    """Tangent-space normals of a height field of crossed sine ridges:
    h = A sin(2 pi k u) + 0.5 A sin(2 pi k v), u right, v up in the image."""
    t = (np.arange(size) + 0.5) / size
    u = t[None, :].repeat(size, 0)
    v = 1.0 - t[:, None].repeat(size, 1)
    k = 2 * math.pi * periods
    dhdu = amp * np.cos(k * u)
    dhdv = 0.5 * amp * np.cos(k * v * 2)
    n = np.stack([-dhdu, -dhdv, np.ones_like(u)])
    n /= np.linalg.norm(n, axis=0)
    return normals_to_rgba(n[0], n[1], n[2])


def normals_to_rgba(nx, ny, nz):
    img = np.ones(nx.shape + (4,))
    img[..., 0] = nx * 0.5 + 0.5
    img[..., 1] = ny * 0.5 + 0.5
    img[..., 2] = nz * 0.5 + 0.5
    return img


def checker_mr(size=256, cells=2, a=(1.0, 0.2), b=(0.0, 0.8)):
    """glTF metallic-roughness: G = roughness, B = metallic. A checker of `cells` x
    `cells` squares, the top-left one `a` = (metallic, roughness)."""
    i = (np.arange(size) * cells // size)
    par = (i[:, None] + i[None, :]) % 2
    img = np.ones((size, size, 4))
    img[..., 1] = np.where(par == 0, a[1], b[1])
    img[..., 2] = np.where(par == 0, a[0], b[0])
    return img


def stripes_mr(size=256):
    """Showcase ground: four vertical bands (metallic, roughness) left to right."""
    bands = [(0.0, 0.9), (1.0, 0.15), (0.0, 0.3), (1.0, 0.55)]
    img = np.ones((size, size, 4))
    idx = np.arange(size) * len(bands) // size
    for j, (m, r) in enumerate(bands):
        img[:, idx == j, 1] = r
        img[:, idx == j, 2] = m
    return img


def leaf_rgba(size=256):
    """sRGB green disc with a 3 x 3 grid of round holes (alpha 0 outside the disc and
    in the holes, 1 elsewhere)."""
    t = (np.arange(size) + 0.5) / size * 2.0 - 1.0
    x, y = t[None, :].repeat(size, 0), -t[:, None].repeat(size, 1)
    alpha = (x * x + y * y < 0.96 ** 2).astype(float)
    for hx in (-0.5, 0.0, 0.5):
        for hy in (-0.5, 0.0, 0.5):
            alpha[(x - hx) ** 2 + (y - hy) ** 2 < 0.19 ** 2] = 0.0
    img = np.zeros((size, size, 4))
    img[..., 0], img[..., 1], img[..., 2] = 0.30, 0.62, 0.22  # sRGB-encoded
    img[..., 1] += 0.12 * (x * x + y * y)  # a little shading so it is not flat
    img[..., 3] = alpha
    return img


def colourful_rgba(width=512, height=256):
    """Sphere texture (sRGB): hue bands around the equator times a light checker."""
    u = (np.arange(width) + 0.5) / width
    v = (np.arange(height) + 0.5) / height
    U, V = np.meshgrid(u, v)
    hue = (U * 3.0) % 1.0
    rgb = np.stack([np.clip(np.abs(hue * 6 - 3) - 1, 0, 1),
                    np.clip(2 - np.abs(hue * 6 - 2), 0, 1),
                    np.clip(2 - np.abs(hue * 6 - 4), 0, 1)], -1)
    check = ((np.floor(U * 16) + np.floor(V * 8)) % 2)[..., None]
    rgb = 0.15 + 0.8 * rgb * (0.55 + 0.45 * check)
    img = np.ones((height, width, 4))
    img[..., :3] = rgb
    return img


# ---------------------------------------------------------------- bpy helpers


def bpy_mod():
    import bpy  # noqa: imported late so --compare runs without building anything
    return bpy


def reset():
    bpy = bpy_mod()
    bpy.ops.wm.read_factory_settings(use_empty=True)


def make_image(name, rgba, non_color, tmpdir):
    """A packed PNG image (so the exporter embeds it)."""
    bpy = bpy_mod()
    h, w = rgba.shape[:2]
    img = bpy.data.images.new(name, w, h, alpha=True, float_buffer=False)
    img.pixels.foreach_set(np.ascontiguousarray(rgba[::-1].astype(np.float32)).ravel())
    path = os.path.join(tmpdir, name + ".png")
    img.filepath_raw = path
    img.file_format = "PNG"
    img.save()
    bpy.data.images.remove(img)
    img = bpy.data.images.load(path)
    img.name = name
    if non_color:
        img.colorspace_settings.name = "Non-Color"
    img.pack()
    return img


def principled_material(name, base=(0.5, 0.5, 0.5), metallic=0.0, roughness=0.5,
                        base_image=None, mr_image=None, normal_image=None,
                        alpha_clip=False, transmission=0.0, ior=1.5, thickness=0.0):
    bpy = bpy_mod()
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nt = mat.node_tree
    bsdf = nt.nodes.get("Principled BSDF")
    bsdf.distribution = "GGX"
    bsdf.inputs["Base Color"].default_value = (*base, 1.0)
    bsdf.inputs["Metallic"].default_value = metallic
    bsdf.inputs["Roughness"].default_value = roughness
    bsdf.inputs["IOR"].default_value = ior
    bsdf.inputs["Transmission Weight"].default_value = transmission
    uv = None

    def tex(image, x, y):
        nonlocal uv
        if uv is None:
            uv = nt.nodes.new("ShaderNodeTexCoord")
            uv.location = (-900, 0)
        t = nt.nodes.new("ShaderNodeTexImage")
        t.image = image
        t.location = (x, y)
        nt.links.new(uv.outputs["UV"], t.inputs["Vector"])
        return t

    if base_image is not None:
        t = tex(base_image, -600, 300)
        nt.links.new(t.outputs["Color"], bsdf.inputs["Base Color"])
        if alpha_clip:
            rnd = nt.nodes.new("ShaderNodeMath")
            rnd.operation = "ROUND"  # the exporter reads this as alphaMode MASK, cutoff 0.5
            rnd.location = (-300, 100)
            nt.links.new(t.outputs["Alpha"], rnd.inputs[0])
            nt.links.new(rnd.outputs[0], bsdf.inputs["Alpha"])
    if mr_image is not None:
        t = tex(mr_image, -700, 0)
        sep = nt.nodes.new("ShaderNodeSeparateColor")
        sep.location = (-400, 0)
        nt.links.new(t.outputs["Color"], sep.inputs["Color"])
        nt.links.new(sep.outputs["Green"], bsdf.inputs["Roughness"])
        nt.links.new(sep.outputs["Blue"], bsdf.inputs["Metallic"])
    if normal_image is not None:
        t = tex(normal_image, -700, -300)
        nm = nt.nodes.new("ShaderNodeNormalMap")
        nm.space = "TANGENT"
        nm.uv_map = "UVMap"
        nm.location = (-400, -300)
        nt.links.new(t.outputs["Color"], nm.inputs["Color"])
        nt.links.new(nm.outputs["Normal"], bsdf.inputs["Normal"])
    if thickness > 0.0:
        # The exporter writes KHR_materials_volume (a solid, refracting body, as Cycles
        # renders it) only from a "glTF Material Output" group's Thickness; without
        # it a glTF transmissive material is thin-walled.
        bpy = bpy_mod()
        group = bpy.data.node_groups.get("glTF Material Output")
        if group is None:
            group = bpy.data.node_groups.new("glTF Material Output", "ShaderNodeTree")
            group.interface.new_socket("Occlusion", socket_type="NodeSocketFloat")
            group.interface.new_socket("Thickness", socket_type="NodeSocketFloat")
            group.nodes.new("NodeGroupOutput")
            group.nodes.new("NodeGroupInput")
        node = nt.nodes.new("ShaderNodeGroup")
        node.node_tree = group
        node.inputs["Thickness"].default_value = thickness
        node.location = (0, -500)
    mat.use_backface_culling = False  # glTF doubleSided
    return mat


def to_diffuse(mat):
    """Replace a material's surface by a Diffuse BSDF (Lambert) of its base colour."""
    nt = mat.node_tree
    bsdf = nt.nodes.get("Principled BSDF")
    colour = tuple(bsdf.inputs["Base Color"].default_value)
    out = nt.nodes.get("Material Output")
    diff = nt.nodes.new("ShaderNodeBsdfDiffuse")
    diff.inputs["Color"].default_value = colour
    diff.inputs["Roughness"].default_value = 0.0
    nt.links.new(diff.outputs["BSDF"], out.inputs["Surface"])


def add_plane(name, size, location, uv_scale, mat):
    bpy = bpy_mod()
    bpy.ops.mesh.primitive_plane_add(size=size, location=location)
    ob = bpy.context.active_object
    ob.name = name
    for loop_uv in ob.data.uv_layers.active.data:
        loop_uv.uv = (loop_uv.uv[0] * uv_scale, loop_uv.uv[1] * uv_scale)
    ob.data.materials.append(mat)
    return ob


def add_suzanne(location, scale, rot_z_deg, mat):
    bpy = bpy_mod()
    bpy.ops.mesh.primitive_monkey_add(size=2.0, location=location,
                                      rotation=(0.0, 0.0, math.radians(rot_z_deg)))
    ob = bpy.context.active_object
    ob.name = "Suzanne"
    ob.scale = (scale, scale, scale)
    mod = ob.modifiers.new("subsurf", "SUBSURF")
    mod.levels = mod.render_levels = 2
    bpy.ops.object.shade_smooth()
    ob.data.materials.append(mat)
    return ob


def look_at_matrix(eye, target, up=(0.0, 0.0, 1.0)):
    from mathutils import Matrix, Vector
    eye, target, up = Vector(eye), Vector(target), Vector(up)
    back = (eye - target).normalized()  # the camera looks down its local -Z
    right = up.cross(back).normalized()
    cup = back.cross(right)
    m = Matrix.Identity(4)
    for i in range(3):
        m[i][0], m[i][1], m[i][2], m[i][3] = right[i], cup[i], back[i], eye[i]
    return m


def setup_camera_world_sun(desc):
    bpy = bpy_mod()
    from mathutils import Vector
    sc = bpy.context.scene
    cd = bpy.data.cameras.new("Camera")
    cd.sensor_fit = "VERTICAL"
    cd.sensor_height = 24.0
    cd.lens = 12.0 / math.tan(math.radians(desc["camera"]["vfov_deg"]) / 2)
    cam = bpy.data.objects.new("Camera", cd)
    sc.collection.objects.link(cam)
    cam.matrix_world = look_at_matrix(desc["camera"]["look_from"], desc["camera"]["look_at"])
    sc.camera = cam

    world = bpy.data.worlds.new("World")
    world.use_nodes = True
    bg = world.node_tree.nodes.get("Background")
    bg.inputs["Color"].default_value = (*desc["sky"], 1.0)
    bg.inputs["Strength"].default_value = 1.0
    sc.world = world

    sun_d = bpy.data.lights.new("Sun", "SUN")
    sun_d.energy = desc["sun"]["strength"]
    sun_d.angle = math.radians(desc["sun"]["angle_deg"])
    sun_d.color = (1.0, 1.0, 1.0)
    sun = bpy.data.objects.new("Sun", sun_d)
    sc.collection.objects.link(sun)
    d = Vector(desc["sun"]["direction"]).normalized()
    sun.rotation_mode = "QUATERNION"
    sun.rotation_quaternion = Vector((0.0, 0.0, -1.0)).rotation_difference(d)
    sun.location = (0.0, 0.0, 10.0)
    return cam, sun


# ---------------------------------------------------------------- the scenes


def build_features(lambert, tmpdir):
    """Ground (normal map + metallic-roughness checker), alpha-masked leaf, copper
    Suzanne. `lambert`: plain diffuse materials, no textures, an opaque leaf quad."""
    from mathutils import Vector
    if lambert:
        ground = principled_material("ground", (0.5, 0.5, 0.5), 0.0, 1.0)
        leaf = principled_material("leaf", (0.12, 0.40, 0.06), 0.0, 1.0)
        copper = principled_material("suzanne", COPPER, 0.0, 1.0)
    else:
        ground = principled_material(
            "ground", (0.5, 0.5, 0.5), 0.0, 0.5,
            mr_image=make_image("ground_mr", checker_mr(), True, tmpdir),
            normal_image=make_image("ground_normal", bumps_normal_map(), True, tmpdir))
        leaf = principled_material(
            "leaf", (1.0, 1.0, 1.0), 0.0, 0.6,
            base_image=make_image("leaf_color", leaf_rgba(), False, tmpdir), alpha_clip=True)
        copper = principled_material("copper", COPPER, 1.0, 0.3)
    # 12 x 12 ground, its UVs 0..2 (each texture repeats 2 x 2 times: 6 units a tile,
    # checker cells of 3 units, bumps 0.5 units apart).
    add_plane("Ground", 12.0, (0.0, 2.0, 0.0), 2.0, ground)
    # The leaf: a square quad whose normal (local +Z) halves the angle between the
    # way to the sun and the way from the camera (about 3/4 of its area both casts a
    # shadow and shows, its back to the camera), +Y up the slope; placed so its
    # shadow's centre falls on `leaf_shadow_centre`.
    f = FEATURES
    sd = Vector(f["sun"]["direction"]).normalized()
    t = f["leaf_height"] / -sd.z
    centre = Vector((*f["leaf_shadow_centre"], 0.0)) - t * sd
    to_cam = (Vector(f["camera"]["look_from"]) - centre).normalized()
    lf = add_plane("Leaf", f["leaf_size"], (0.0, 0.0, 0.0), 1.0, leaf)
    lf.rotation_mode = "QUATERNION"
    lf.rotation_quaternion = (-sd - to_cam).normalized().to_track_quat("Z", "Y")
    lf.location = centre
    add_suzanne((1.8, 0.6, 0.72), 0.7, -15.0, copper)
    return [ground, leaf, copper]


def build_showcase(tmpdir):
    copper = principled_material("copper", COPPER, 1.0, 0.3)
    plastic = principled_material(
        "plastic", (1.0, 1.0, 1.0), 0.0, 0.4,
        base_image=make_image("sphere_color", colourful_rgba(), False, tmpdir))
    glass = principled_material("glass", (1.0, 1.0, 1.0), 0.0, 0.0, transmission=1.0, ior=1.5,
                                thickness=1.1)
    ground = principled_material(
        "ground", (0.6, 0.55, 0.5), 0.0, 0.5,
        mr_image=make_image("showcase_mr", stripes_mr(), True, tmpdir),
        normal_image=make_image("showcase_normal", ridges_normal_map(), True, tmpdir))
    bpy = bpy_mod()
    add_plane("Ground", 14.0, (0.0, 3.0, 0.0), 2.0, ground)
    add_suzanne((-2.1, 0.3, 0.72), 0.7, 20.0, copper)
    bpy.ops.mesh.primitive_uv_sphere_add(segments=64, ring_count=32, radius=0.8,
                                         location=(0.0, 0.9, 0.8))
    sph = bpy.context.active_object
    sph.name = "Sphere"
    bpy.ops.object.shade_smooth()
    sph.data.materials.append(plastic)
    # 2 mm above the ground: a glass face coplanar with the ground makes which surface a
    # ray meets first a tie, which Cycles and we break differently (resting on the
    # ground, Cycles draws the cube's lower half black and we draw the ground through it:
    # blocks (5, 2), (6, 2) and (6, 4) differed by 18 to 40 %).
    bpy.ops.mesh.primitive_cube_add(size=1.1, location=(1.9, -0.4, 0.552),
                                    rotation=(0.0, 0.0, math.radians(30.0)))
    cube = bpy.context.active_object
    cube.name = "GlassCube"
    cube.data.materials.append(glass)
    return [copper, plastic, glass, ground]


# ---------------------------------------------------------------- export, render, numbers


def export_glb(path):
    bpy = bpy_mod()
    bpy.ops.export_scene.gltf(
        filepath=path, export_format="GLB", export_tangents=True, export_normals=True,
        export_texcoords=True, export_materials="EXPORT", export_image_format="AUTO",
        export_apply=True, export_yup=True, export_cameras=False, export_lights=False,
        export_extras=False, use_selection=False)


def setup_cycles(spp, seed):
    bpy = bpy_mod()
    sc = bpy.context.scene
    sc.render.engine = "CYCLES"
    c = sc.cycles
    c.device = "CPU"
    c.samples = spp
    c.seed = seed
    c.use_adaptive_sampling = False
    c.use_denoising = False
    c.sample_clamp_direct = 0.0
    c.sample_clamp_indirect = 0.0
    c.blur_glossy = 0.0
    c.light_sampling_threshold = 0.0
    # A 1-pixel box: samples uniform over each pixel, as our renderer jitters them.
    # (filter_width 0.01 samples pixel centres only: on pbr_features the sun's glints on
    # the regular grid of bumps then moire against the pixel grid, and block means moved
    # by up to 28% against a 1-pixel box at the same seed.)
    c.pixel_filter_type = "BOX"
    c.filter_width = 1.0
    c.max_bounces = 16
    c.diffuse_bounces = 16
    c.glossy_bounces = 16
    c.transmission_bounces = 16
    c.volume_bounces = 16
    c.transparent_max_bounces = 16
    c.caustics_reflective = True
    c.caustics_refractive = True
    for vl in sc.view_layers:
        vl.cycles.denoising_store_passes = False
    sc.render.resolution_x, sc.render.resolution_y = W, H
    sc.render.resolution_percentage = 100
    sc.render.film_transparent = False
    sc.view_settings.view_transform = "Standard"
    sc.view_settings.look = "None"
    sc.view_settings.exposure = 0.0
    sc.view_settings.gamma = 1.0
    sc.render.image_settings.file_format = "OPEN_EXR"
    sc.render.image_settings.color_depth = "32"
    sc.render.image_settings.exr_codec = "ZIP"


def render_exr(path, spp, seed):
    bpy = bpy_mod()
    setup_cycles(spp, seed)
    sc = bpy.context.scene
    sc.render.filepath = path
    bpy.ops.render.render(write_still=True)


def read_exr(path):
    """A linear float image as an (H, W, 3) array, row 0 the top."""
    bpy = bpy_mod()
    img = bpy.data.images.load(path)
    w, h = img.size
    px = np.empty(w * h * 4, np.float32)
    img.pixels.foreach_get(px)
    bpy.data.images.remove(img)
    return px.reshape(h, w, 4)[::-1, :, :3].astype(np.float64)


def block_means(img):
    h, w = img.shape[:2]
    return img.reshape(h // BLOCK, BLOCK, w // BLOCK, BLOCK, 3).mean(axis=(1, 3))


def luminance(x):
    return 0.2126 * x[..., 0] + 0.7152 * x[..., 1] + 0.0722 * x[..., 2]


def write_csv(path, blocks, comment):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(f"# {comment}\n")
        f.write("bx,by,r,g,b\n")
        for by in range(blocks.shape[0]):
            for bx in range(blocks.shape[1]):
                r, g, b = blocks[by, bx]
                f.write(f"{bx},{by},{r:.6g},{g:.6g},{b:.6g}\n")


def read_csv(path):
    out = np.zeros((H // BLOCK, W // BLOCK, 3))
    with open(path) as f:
        for line in f:
            if line.startswith("#") or line.startswith("bx"):
                continue
            bx, by, r, g, b = line.strip().split(",")
            out[int(by), int(bx)] = (float(r), float(g), float(b))
    return out


def fmt(v):
    return "(" + ", ".join(f"{x:.6g}" for x in v) + ")"


def write_ron(name, desc, comment):
    cam = desc["camera"]
    sun = desc["sun"]
    d = np.array(sun["direction"], float)
    d /= np.linalg.norm(d)
    text = f"""// {comment}
// Written by tools/references/blender_pbr.py from the Blender scene that made
// ../../models/{name}.glb and ../../references/cycles/{name}.csv (Cycles, 320x240).
// Blender is Z-up: (x, y, z) there is (x, z, -y) here. The sky is Blender's constant
// world colour, the sun its Sun lamp (Strength = irradiance, angle / 2 = radius).
Scene(
    camera: (
        look_from: {fmt(to_yup(cam["look_from"]))},
        look_at: {fmt(to_yup(cam["look_at"]))},
        up: (0, 1, 0),
        vfov_deg: {cam["vfov_deg"]:g},
    ),
    settings: (width: {W}, height: {H}, spp: 64, max_depth: 16, seed: 0),
    sky: Gradient(bottom: {fmt(desc["sky"])}, top: {fmt(desc["sky"])}),
    materials: {{}},
    meshes: [
        (file: "../../models/{name}.glb"),
    ],
    lights: [
        Directional(direction: {fmt(to_yup(d))}, color: (1, 1, 1), intensity: {sun["strength"]:g}, angular_radius_deg: {sun["angle_deg"] / 2:g}),
    ],
)
"""
    path = os.path.join(REPO, "assets", "scenes", "reference", name + ".ron")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path


def build(name, tmpdir):
    """Builds `name` in a fresh Blender scene, exports its .glb and writes its .ron;
    returns the materials (so lambert_check can swap them to diffuse for Cycles)."""
    reset()
    if name == "pbr_showcase":
        desc = SHOWCASE
        mats = build_showcase(tmpdir)
        comment = ("Held-out PBR scene (check agreement only, never tune against it): copper "
                   "Suzanne, textured plastic sphere, glass cube, normal-mapped ground.")
    else:
        desc = FEATURES
        mats = build_features(name == "lambert_check", tmpdir)
        comment = ("Lambert-only variant of pbr_features (conventions check)."
                   if name == "lambert_check" else
                   "PBR features: normal-mapped metallic-roughness ground, alpha-masked leaf, copper Suzanne.")
    setup_camera_world_sun(desc)
    glb = os.path.join(REPO, "assets", "models", name + ".glb")
    export_glb(glb)
    write_ron(name, desc, comment)
    print(f"{name}: wrote {glb} ({os.path.getsize(glb)} bytes)", flush=True)
    return mats


def block_composition(name):
    """Per block, the share of pixels (rays through pixel centres) that see each
    object; ground pixels also say their texture region and what shades them from the
    sun. The leaf's holes (alpha < 0.5) let rays through."""
    bpy = bpy_mod()
    from mathutils import Vector
    sc = bpy.context.scene
    dg = bpy.context.evaluated_depsgraph_get()
    m = sc.camera.matrix_world
    desc = SHOWCASE if name == "pbr_showcase" else FEATURES
    t = math.tan(math.radians(desc["camera"]["vfov_deg"]) / 2)
    to_sun = -Vector(desc["sun"]["direction"]).normalized()
    alpha = leaf_rgba()[..., 3] if name == "pbr_features" else None

    def cast(o, d):
        for _ in range(8):
            hit, loc, nrm, _, ob, _ = sc.ray_cast(dg, o, d)
            if hit and ob.name == "Leaf" and alpha is not None:
                p = ob.matrix_world.inverted() @ loc  # the plane's local x, y
                u, v = p.x / FEATURES["leaf_size"] + 0.5, p.y / FEATURES["leaf_size"] + 0.5
                n = alpha.shape[0]
                a = alpha[min(n - 1, max(0, int((1 - v) * n))), min(n - 1, max(0, int(u * n)))]
                if a < 0.5:
                    o = loc + d * 1e-4
                    continue
            return hit, loc, nrm, ob
        return False, None, None, None

    eye = m.translation
    labels = {}
    for py in range(H):
        for px in range(W):
            x = (2 * (px + 0.5) / W - 1) * t * W / H
            y = (1 - 2 * (py + 0.5) / H) * t
            d = (m.to_3x3() @ Vector((x, y, -1.0))).normalized()
            hit, loc, nrm, ob = cast(eye, d)
            lab = "sky"
            if hit:
                lab = ob.name
                if ob.name == "Ground":
                    lab += "/" + ground_region(name, loc)
                    sh, _, _, ob2 = cast(loc + nrm * 1e-4, to_sun)
                    lab += "/shadow:" + ob2.name if sh else "/sunlit"
            key = (px // BLOCK, py // BLOCK)
            labels.setdefault(key, {}).setdefault(lab, 0)
            labels[key][lab] += 1
    return labels


def write_preview(path, img):
    """An sRGB PNG of a linear image (row 0 the top), for looking at."""
    bpy = bpy_mod()
    h, w = img.shape[:2]
    c = np.clip(img, 0.0, 1.0)
    c = np.where(c <= 0.0031308, 12.92 * c, 1.055 * np.power(c, 1 / 2.4) - 0.055)
    rgba = np.ones((h, w, 4), np.float32)
    rgba[..., :3] = c
    im = bpy.data.images.new("preview", w, h, alpha=True, float_buffer=False)
    im.pixels.foreach_set(np.ascontiguousarray(rgba[::-1]).ravel())
    im.filepath_raw = path
    im.file_format = "PNG"
    im.save()
    bpy.data.images.remove(im)


def ground_region(name, loc):
    if name == "pbr_showcase":
        size, centre, uv_scale = 14.0, (0.0, 3.0), 2.0
    else:
        size, centre, uv_scale = 12.0, (0.0, 2.0), 2.0
    u = ((loc.x - centre[0]) / size + 0.5) * uv_scale
    v = ((loc.y - centre[1]) / size + 0.5) * uv_scale
    fu, fv = u % 1.0, 1.0 - (v % 1.0)  # image coordinates, fv = 0 the top row
    if name == "lambert_check":
        return "plain"
    if name == "pbr_features":
        par = (int(fu * 2) + int(fv * 2)) % 2
        return "metal" if par == 0 else "rough"
    band = int(fu * 4)
    return ["rough0.9", "metal0.15", "plastic0.3", "metal0.55"][band]


CSV_DIR = os.path.join(REPO, "assets", "references", "cycles")


def write_reference(name, blocks, spp, seed, note):
    bpy = bpy_mod()
    csv = os.path.join(CSV_DIR, name + ".csv")
    write_csv(csv, blocks, f"Cycles (Blender {bpy.app.version_string}, CPU), {W}x{H}, {spp} spp, "
              f"seed {seed}, 1-px box filter, 16 bounces, GGX, no denoise/adaptive/clamp; "
              f"block means of the linear EXR (40x40 px, by = 0 the top); {note}")
    print(f"{name}: wrote {csv}", flush=True)


def write_noise_reference(name, imgs, spp, seeds):
    """Several renders' block means (seeds 0, 1, ...): the csv holds their mean, and its
    comment the noise of that mean, estimated per block from the spread of the renders'
    luminance (the standard error; with two renders |a - b| / 2)."""
    lum = np.stack([luminance(i) for i in imgs])
    mean = lum.mean(axis=0)
    noise = lum.std(axis=0, ddof=1) / np.sqrt(len(imgs)) / mean
    note = (f"the mean of seeds 0..{seeds - 1} ({seeds * spp} spp in all); its noise per block "
            f"(standard error of block luminance from the seeds' spread): max {100 * noise.max():.2f}%, "
            f"median {100 * np.median(noise):.3f}%, rms {100 * np.sqrt((noise ** 2).mean()):.2f}%")
    print(f"{name}: {note}")
    for by in range(noise.shape[0]):
        print(" ".join(f"{100 * noise[by, bx]:6.3f}%" for bx in range(noise.shape[1])))
    write_reference(name, sum(imgs) / len(imgs), f"{seeds} x {spp}", f"0..{seeds - 1}", note)


# Samples per render and renders (seeds 0, 1, ...) averaged, as the committed csvs were
# made: the diffuse check converges fast; two seeds give the others a noise estimate.
SPP = {"lambert_check": (512, 1), "pbr_features": (1024, 2), "pbr_showcase": (1024, 2)}


def main():
    global CSV_DIR
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenes", default=",".join(SCENES))
    ap.add_argument("--spp", type=int, help="samples per render (default: SPP above)")
    ap.add_argument("--seeds", type=int, help="renders averaged, seeds 0.. (default: SPP above); "
                    "with 2 or more the csv comment gives the noise")
    ap.add_argument("--export-only", action="store_true", help="only the .glb and .ron files")
    ap.add_argument("--composition", action="store_true", help="print what each block sees")
    ap.add_argument("--compare", nargs=2, metavar=("EXR", "CSV"),
                    help="block means of our renderer's EXR against a reference csv")
    ap.add_argument("--exr-dir", default=os.path.join(REPO, "target", "blender-references"))
    ap.add_argument("--csv-dir", default=None, help="where the csvs go (a smoke test: /tmp)")
    args = ap.parse_args()
    CSV_DIR = args.csv_dir or CSV_DIR

    if args.compare:
        img = read_exr(os.path.abspath(args.compare[0]))
        write_preview(os.path.abspath(args.compare[0])[:-4] + ".preview.png", img)
        ours = block_means(img)
        ref = read_csv(args.compare[1])
        rel = (ours - ref) / np.maximum(ref, 1e-6)
        lum = (luminance(ours) - luminance(ref)) / luminance(ref)
        for by in range(ref.shape[0]):
            print(" ".join(f"{100 * lum[by, bx]:+6.2f}%" for bx in range(ref.shape[1])))
        print(f"luminance: worst block {100 * np.abs(lum).max():.2f}%, mean |diff| "
              f"{100 * np.abs(lum).mean():.2f}%, mean signed {100 * lum.mean():+.2f}%; "
              f"worst channel {100 * np.abs(rel).max():.2f}%")
        return

    os.makedirs(args.exr_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmpdir:
        for name in args.scenes.split(","):
            mats = build(name, tmpdir)
            if args.composition:
                comp = block_composition(name)
                for (bx, by), labs in sorted(comp.items(), key=lambda kv: (kv[0][1], kv[0][0])):
                    tops = sorted(labs.items(), key=lambda kv: -kv[1])
                    print(f"  block bx={bx} by={by}: " + ", ".join(f"{k} {100 * v / BLOCK ** 2:.0f}%" for k, v in tops))
            if args.export_only:
                continue
            if name == "lambert_check":
                for m in mats:
                    to_diffuse(m)
            spp = args.spp or SPP[name][0]
            seeds = args.seeds or SPP[name][1]
            imgs = []
            for seed in range(seeds):
                exr = os.path.join(args.exr_dir, f"{name}_seed{seed}.exr")
                render_exr(exr, spp, seed)
                img = read_exr(exr)
                write_preview(exr[:-4] + ".png", img)
                imgs.append(block_means(img))
            if seeds >= 2:
                write_noise_reference(name, imgs, spp, seeds)
            else:
                write_reference(name, imgs[0], spp, 0, "noise not measured on this scene "
                                "(plain diffuse: see pbr_features' csv for a harder one)")


if __name__ == "__main__":
    main()
