//! The CPU backend's own copy of a scene: the blob's sections, copied on upload into
//! SIMD-friendly owned arrays (the `BlobView` only borrows, and a backend must own
//! its scene the way the GPU owns its device copy).
//!
//! Indices, order and values are the blob's; two things change shape. `float4`
//! lanes become `Vec3A`/`Vec4`, which load into one SSE register. And each inner
//! node's boxes stay the blob's three rows, one per axis ([`ChildBoxes`]): the CPU
//! slab test sorts planes with SIMD min/max over both children at once, so it needs
//! no mirrored, direction-ordered copy (the CUDA node repack builds one).

use glam::{Vec3A, Vec4};
use scene_compiler::BlobView;
use scene_compiler::blob::layout::{
    ALPHA_BLEND, ALPHA_MASK, ALPHA_OPAQUE, GlobalsRecord, MATERIAL_DIELECTRIC, MATERIAL_EMISSIVE,
    MATERIAL_LAMBERT, MATERIAL_METAL, MATERIAL_PRINCIPLED, MaterialRecord, NO_TEXTURE, NodeBoxesRecord,
    PrimKind, TEXTURE_SLOT_COLOR, TEXTURE_SLOT_EMISSION, TEXTURE_SLOT_METALLIC_ROUGHNESS,
};

use super::environment::EnvMap;
use super::lights::{Light, Sun};
use super::shapes::Shapes;
use super::textures::Textures;

/// An inner node's two child boxes, one axis per vector:
/// `(left.min, right.min, left.max, right.max)` of x, y and z.
#[derive(Clone, Copy, Debug, Default)]
pub struct ChildBoxes {
    pub x: Vec4,
    pub y: Vec4,
    pub z: Vec4,
}

impl ChildBoxes {
    fn new(boxes: &NodeBoxesRecord) -> ChildBoxes {
        ChildBoxes {
            x: Vec4::from_array(boxes.x),
            y: Vec4::from_array(boxes.y),
            z: Vec4::from_array(boxes.z),
        }
    }
}

/// How a material scatters: one lobe per kind; an emitter's is [`emitter_lobe`]'s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Lobe {
    Lambert,
    Metal {
        fuzz: f32,
    },
    Dielectric {
        ior: f32,
    },
    Absorb,
    /// The glTF metallic-roughness BSDF (`principled.rs`) with these parameters; the base
    /// colour is the material's albedo.
    Principled {
        metallic: f32,
        roughness: f32,
        ior: f32,
        transmission: f32,
    },
}

/// The lobe of an Emissive material whose albedo, after its colour texture, is
/// `albedo`: Lambert where it has one, none where it is black (docs/path-tracing.md,
/// "One sample"). The kernels' `emitter_scatters` (kernels/scatter.cuh) is the same
/// test on the same albedo, per hit.
#[inline(always)]
pub fn emitter_lobe(albedo: Vec3A) -> Lobe {
    if albedo.max_element() > 0.0 { Lobe::Lambert } else { Lobe::Absorb }
}

/// How a material's alpha cuts its surface out (docs/path-tracing.md, "Alpha").
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Alpha {
    Opaque,
    /// Cut out where alpha is below the cutoff.
    Mask(f32),
    /// Cut out with probability 1 - alpha.
    Blend,
}

/// A material record in the form scattering takes.
#[derive(Clone, Copy, Debug)]
pub struct Material {
    /// The attenuation of a bounce (1 for a dielectric; a Principled's base colour).
    pub albedo: Vec3A,
    pub lobe: Lobe,
    /// An Emissive material: its colour texture decides its lobe per hit ([`emitter_lobe`]).
    pub emitter: bool,
    pub emission: Vec3A,
    /// Indices into [`CpuScene::textures`] by slot (`TEXTURE_SLOT_*`), or `NO_TEXTURE`.
    pub textures: [u32; 4],
    /// Whether any slot holds a texture: the hot path tests this one flag.
    pub textured: bool,
    /// A Principled's normal-map strength (1 for the other kinds).
    pub normal_scale: f32,
    /// A Principled's alpha (1 for the other kinds), times its base colour texture's.
    pub alpha: f32,
    pub alpha_mode: Alpha,
}

impl Material {
    /// A textured material (`textured` is set: callers test that first, so an
    /// untextured hit neither copies the material nor computes texture coordinates) at
    /// surface point `p` with texture coordinates `uv`: its parameters times its
    /// textures there (the normal map is the integrator's: it needs the tangent frame).
    #[inline(always)]
    pub fn textured(&self, textures: &Textures, p: Vec3A, uv: glam::Vec2) -> Material {
        let mut m = *self;
        let slot = |i: usize| self.textures[i];
        if slot(TEXTURE_SLOT_COLOR) != NO_TEXTURE {
            let colour = textures.eval4(slot(TEXTURE_SLOT_COLOR), p, uv);
            m.albedo *= Vec3A::from_vec4(colour);
            if let Lobe::Principled { .. } = self.lobe {
                m.alpha *= colour.w;
            } else {
                // The RTIOW kinds' texture colours their emission too.
                m.emission *= Vec3A::from_vec4(colour);
                if self.emitter {
                    m.lobe = emitter_lobe(m.albedo);
                }
            }
        }
        if let Lobe::Principled { metallic, roughness, ior, transmission } = self.lobe {
            if slot(TEXTURE_SLOT_METALLIC_ROUGHNESS) != NO_TEXTURE {
                let mr = textures.eval(slot(TEXTURE_SLOT_METALLIC_ROUGHNESS), p, uv);
                m.lobe = Lobe::Principled {
                    metallic: metallic * mr.z,
                    roughness: roughness * mr.y,
                    ior,
                    transmission,
                };
            }
            if slot(TEXTURE_SLOT_EMISSION) != NO_TEXTURE {
                m.emission *= textures.eval(slot(TEXTURE_SLOT_EMISSION), p, uv);
            }
        }
        m
    }

    fn from_record(m: &MaterialRecord) -> Material {
        let lanes = |v: [f32; 4]| Vec3A::from_vec4(Vec4::from_array(v));
        let [.., roughness] = m.albedo_roughness;
        let [.., ior] = m.emission_ior;
        let [metallic, transmission, normal_scale, alpha] = m.pbr;
        let albedo = lanes(m.albedo_roughness);
        let lobe = match m.kind {
            MATERIAL_LAMBERT => Lobe::Lambert,
            MATERIAL_METAL => Lobe::Metal { fuzz: roughness },
            MATERIAL_DIELECTRIC => Lobe::Dielectric { ior },
            MATERIAL_EMISSIVE => emitter_lobe(albedo),
            MATERIAL_PRINCIPLED => Lobe::Principled { metallic, roughness, ior, transmission },
            kind => unreachable!("BlobView::parse refuses material kind {kind}"),
        };
        let alpha_mode = match m.alpha_mode {
            ALPHA_OPAQUE => Alpha::Opaque,
            ALPHA_MASK => Alpha::Mask(m.alpha_cutoff),
            ALPHA_BLEND => Alpha::Blend,
            mode => unreachable!("BlobView::parse refuses alpha mode {mode}"),
        };
        Material {
            albedo,
            lobe,
            emitter: m.kind == MATERIAL_EMISSIVE,
            emission: lanes(m.emission_ior),
            textures: m.textures,
            textured: m.textures != [NO_TEXTURE; 4],
            normal_scale,
            alpha,
            alpha_mode,
        }
    }
}

/// A scene ready for the CPU traversal.
#[derive(Clone, Debug)]
pub struct CpuScene {
    /// Every kind's shapes, in BVH leaf order.
    pub shapes: Shapes,
    /// Per primitive, kinds one after another: its material id.
    pub prim_materials: Vec<u32>,
    /// Per primitive, same order: its index in the scene's list of its kind.
    pub prim_sources: Vec<u32>,
    /// Where each kind starts in `prim_materials` and `prim_sources`.
    pub kind_first: [u32; PrimKind::SLOTS],
    /// Per primitive, same order: the probability of picking its light (0: not a light).
    pub prim_light_pdfs: Vec<f32>,
    pub materials: Vec<Material>,
    pub textures: Textures,
    /// The lights next-event estimation picks from; empty when none has any power
    /// (then NEE is off and no extra random numbers are drawn).
    pub lights: Vec<Light>,
    /// The directional lights of `lights` with a disc, which escaping rays can see.
    pub suns: Vec<Sun>,
    /// Per inner node: its children's boxes.
    pub child_boxes: Vec<ChildBoxes>,
    /// Per inner node: its `(left, right)` child links exactly as in the blob.
    pub node_links: Vec<(u32, u32)>,
    /// The root link (`BlobView::root`).
    pub root: u32,
    pub sky_bottom: Vec3A,
    pub sky_top: Vec3A,
    /// The environment sky, when the scene has one (then it replaces the gradient).
    pub env: Option<EnvMap>,
    /// Whether a material cuts its surface out (`Alpha::Mask` or `Blend`): only then do
    /// the traversals test alpha at their hits.
    pub has_alpha: bool,
}

impl CpuScene {
    /// Copies a validated blob. `BlobView::parse` checked every index, so the
    /// traversal indexes these arrays without further checks failing.
    pub fn from_blob(blob: &BlobView<'_>) -> CpuScene {
        let lane3 = |v: [f32; 4]| Vec3A::from_vec4(Vec4::from_array(v));
        let g: &GlobalsRecord = blob.globals;
        let materials: Vec<Material> = blob.materials.iter().map(Material::from_record).collect();
        let lights: Vec<Light> = if blob.has_light_power() {
            blob.lights.iter().map(Light::from_record).collect()
        } else {
            Vec::new()
        };
        CpuScene {
            suns: blob.suns().iter().map(Sun::from_disc).collect(),
            lights,
            has_alpha: materials.iter().any(|m| m.alpha_mode != Alpha::Opaque),
            materials,
            shapes: Shapes::from_blob(blob),
            prim_materials: blob.prim_materials.to_vec(),
            prim_sources: blob.prim_sources.to_vec(),
            kind_first: blob.header.kind_first(),
            prim_light_pdfs: blob.prim_light_pdfs.to_vec(),
            textures: Textures::from_blob(blob),
            child_boxes: blob.node_boxes.iter().map(ChildBoxes::new).collect(),
            node_links: blob.node_links.iter().map(|l| (l.left, l.right)).collect(),
            root: blob.root(),
            sky_bottom: lane3(g.sky_bottom),
            sky_top: lane3(g.sky_top),
            env: EnvMap::from_blob(blob),
        }
    }
}

#[cfg(test)]
mod tests {
    use scene_compiler::blob::layout::{TEXTURE_CHECKER, TextureRecord};

    use super::*;

    /// An emitter with an albedo scatters where its colour texture leaves it one and
    /// absorbs where the texture is black, as the kernels decide per hit; without an
    /// albedo it absorbs everywhere.
    #[test]
    fn an_emitters_lobe_follows_its_textured_albedo() {
        // Cells with an even sum of coordinates white, the others black.
        let checker = TextureRecord {
            a: [1.0, 1.0, 1.0, 1.0],
            b: [0.0; 4],
            image: [0; 4],
            kind: TEXTURE_CHECKER,
            reserved: [0; 3],
        };
        let textures = Textures { records: vec![checker], ..Textures::default() };
        let emitter = |albedo: f32| {
            Material::from_record(&MaterialRecord {
                albedo_roughness: [albedo, albedo, albedo, 0.0],
                emission_ior: [4.0, 4.0, 4.0, 0.0],
                pbr: [0.0, 0.0, 1.0, 1.0],
                textures: [0, NO_TEXTURE, NO_TEXTURE, NO_TEXTURE],
                kind: MATERIAL_EMISSIVE,
                alpha_mode: ALPHA_OPAQUE,
                alpha_cutoff: 0.0,
                reserved: 0,
            })
        };
        let (white, black) = (Vec3A::splat(0.5), Vec3A::new(1.5, 0.5, 0.5));
        let uv = glam::Vec2::ZERO;
        let lit = emitter(0.5);
        assert_eq!(lit.lobe, Lobe::Lambert);
        assert_eq!(lit.textured(&textures, white, uv).lobe, Lobe::Lambert);
        assert_eq!(lit.textured(&textures, black, uv).lobe, Lobe::Absorb);
        let dark = emitter(0.0);
        assert_eq!(dark.lobe, Lobe::Absorb);
        assert_eq!(dark.textured(&textures, white, uv).lobe, Lobe::Absorb);
    }
}
