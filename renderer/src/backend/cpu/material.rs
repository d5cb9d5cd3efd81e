//! A material record in the form scattering takes ([`Material`], its [`Lobe`] and
//! [`Alpha`]), and its parameters times its textures at a hit (CUDA twin: the material
//! lanes as kernels/scatter.cuh and shading.cuh read them).

use glam::{Vec3A, Vec4};
use scene_compiler::blob::layout::{
    ALPHA_BLEND, ALPHA_MASK, ALPHA_OPAQUE, MATERIAL_DIELECTRIC, MATERIAL_EMISSIVE, MATERIAL_LAMBERT,
    MATERIAL_METAL, MATERIAL_PRINCIPLED, MaterialRecord, NO_TEXTURE, TEXTURE_SLOT_COLOR,
    TEXTURE_SLOT_EMISSION, TEXTURE_SLOT_METALLIC_ROUGHNESS,
};

use super::textures::Textures;

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

    pub fn from_record(m: &MaterialRecord) -> Material {
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
