//! The names of the format as serde's derive declares them on the model (`model/mod.rs`,
//! `material.rs`; what the model keeps elsewhere, `model/text.rs`).
//!
//! The format is declared once, by the model's serde attributes; everything else that
//! needs its names (hints about misplaced fields, the tests that hold the writer,
//! loading and validation against the format) asks here instead of keeping a list of
//! its own. serde's derive hands a struct's field names to `deserialize_struct`,
//! an enum's variants to `deserialize_enum` and a struct variant's fields to
//! `struct_variant`; [`Probe`] is a deserializer that records them and stops.

use std::fmt;

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, EnumAccess, IntoDeserializer, VariantAccess, Visitor,
};

/// Names as serde's derive keeps them.
pub(crate) type Names = &'static [&'static str];

/// A struct's serde name (the optional struct name a file may write) and its fields.
pub(crate) fn record<T: DeserializeOwned>() -> (&'static str, Names) {
    let seen = probe::<T>(None);
    debug_assert!(!seen.is_enum, "`{}` is an enum: ask for its variants", seen.name);
    (seen.name, seen.names)
}

/// Whether `T` is an enum (else a struct).
#[cfg(test)]
pub(crate) fn is_enum<T: DeserializeOwned>() -> bool {
    probe::<T>(None).is_enum
}

/// An enum's variants in declaration order, each with its fields: `None` for a variant
/// that is not a struct variant (`Constant((r, g, b))`). The tests hold the writer and
/// validation against these.
#[cfg(test)]
pub(crate) fn variants<T: DeserializeOwned>() -> Vec<(&'static str, Option<Names>)> {
    let names = probe::<T>(None).names;
    (0..names.len()).map(|k| (names[k], probe::<T>(Some(k)).variant_fields)).collect()
}

/// Runs `T`'s `Deserialize` against a [`Probe`]; `pick` answers an enum with that variant.
fn probe<T: DeserializeOwned>(pick: Option<usize>) -> Seen {
    let mut seen = Seen { name: "", names: &[], is_enum: false, variant_fields: None };
    // The probe always ends the walk with an error, once it has what it came for.
    let _ = T::deserialize(Probe { seen: &mut seen, pick });
    seen
}

/// What a type's `Deserialize` asked for.
struct Seen {
    name: &'static str,
    /// A struct's fields, or an enum's variants.
    names: Names,
    /// Whether the type asked for an enum (then `names` are its variants).
    is_enum: bool,
    /// Of the picked variant, when it is a struct variant.
    variant_fields: Option<Names>,
}

/// The error that ends a probe.
#[derive(Debug)]
struct Stop;

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("probe done")
    }
}

impl std::error::Error for Stop {}

impl de::Error for Stop {
    fn custom<T: fmt::Display>(_: T) -> Stop {
        Stop
    }
}

/// A deserializer that records the names serde's derive passes it.
struct Probe<'s> {
    seen: &'s mut Seen,
    pick: Option<usize>,
}

impl<'de> de::Deserializer<'de> for Probe<'_> {
    type Error = Stop;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        Err(Stop)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: Names,
        _: V,
    ) -> Result<V::Value, Stop> {
        (self.seen.name, self.seen.names) = (name, fields);
        Err(Stop)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: Names,
        visitor: V,
    ) -> Result<V::Value, Stop> {
        (self.seen.name, self.seen.names, self.seen.is_enum) = (name, variants, true);
        match self.pick.and_then(|k| variants.get(k)) {
            Some(&variant) => visitor.visit_enum(Variant { name: variant, seen: self.seen }),
            None => Err(Stop),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 char str string bytes byte_buf option
        unit unit_struct newtype_struct seq tuple tuple_struct map identifier ignored_any
    }
}

/// The variant a [`Probe`] picked, to learn its fields.
struct Variant<'s> {
    name: &'static str,
    seen: &'s mut Seen,
}

impl<'de, 's> EnumAccess<'de> for Variant<'s> {
    type Error = Stop;
    type Variant = Variant<'s>;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Variant<'s>), Stop> {
        let value = seed.deserialize(IntoDeserializer::<Stop>::into_deserializer(self.name))?;
        Ok((value, self))
    }
}

impl<'de> VariantAccess<'de> for Variant<'_> {
    type Error = Stop;

    fn unit_variant(self) -> Result<(), Stop> {
        Err(Stop)
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, _: S) -> Result<S::Value, Stop> {
        Err(Stop)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, Stop> {
        Err(Stop)
    }

    fn struct_variant<V: Visitor<'de>>(self, fields: Names, _: V) -> Result<V::Value, Stop> {
        self.seen.variant_fields = Some(fields);
        Err(Stop)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use glam::Vec3;

    use super::super::image_file::Encoding;
    use super::super::list::ListItem;
    use super::super::material::{MaterialKind, Principled, every_kind, every_kind_wrong};
    use super::super::model::text::{SURFACE_FIELDS, TerrainKind};
    use super::super::model::{
        Band, Camera, EnvImage, Environment, Light, Maps, Material, RenderSettings, SamplerKind, Scene, Sky,
        Terrain, Texture, TextureImage, Transform, UvTransform, ViewTransform, Wrap,
    };
    use super::super::spans::{Located, SpanIndex};
    use super::super::{load, parse, read_ron, to_ron, validate};
    use super::*;

    #[test]
    fn reads_serde_names_of_structs_and_enums() {
        let (name, fields) = record::<Camera>();
        assert_eq!(name, "Camera");
        assert_eq!(fields, ["look_from", "look_at", "up", "vfov_deg", "aperture", "focus_dist"]);
        let gradient: Names = &["bottom", "top"];
        assert_eq!(
            variants::<Sky>(),
            [("Gradient", Some(gradient)), ("Constant", None), ("Environment", None)]
        );
        assert_eq!(record::<Environment>(), ("Environment", &["image", "strength", "rotation_deg"][..]));
    }

    /// Declares the tests' steps that go through every list
    /// [`scene_lists!`](crate::scene_lists) names as written: each list's
    /// [`ListItem::examples`] and [`ListItem::wrong`], and its item's schema.
    macro_rules! test_lists {
        (written { $($(#[$doc:meta])* $written:ident: $W:ty,)* } compiled { $($compiled:tt)* }) => {
            /// A scene with every list holding its examples (and nothing else).
            fn list_examples(folder: &Path) -> Scene {
                Scene { $($written: <$W>::examples(folder),)* ..Scene::default() }
            }

            /// Makes every checked value of every item wrong.
            fn make_lists_wrong(scene: &mut Scene) {
                $(
                    let items = std::mem::take(&mut scene.$written);
                    scene.$written = items.into_iter().map(<$W>::wrong).collect();
                )*
            }

            /// `scene` with each list left out in turn, and with each list alone.
            fn each_list_left_out_and_alone(scene: &Scene) -> Vec<Scene> {
                let alone = |list: Scene| Scene { materials: scene.materials.clone(), ..list };
                vec![$(
                    Scene { $written: Vec::new(), ..scene.clone() },
                    alone(Scene { $written: scene.$written.clone(), ..Scene::default() }),
                )*]
            }

            /// Each list's item type as the schema declares it.
            fn list_item_schemas() -> Vec<ItemSchema> {
                vec![$(item_schema::<$W>(),)*]
            }
        };
    }

    crate::scene_lists!(test_lists);

    /// A struct's name and fields, or an enum's variants with theirs.
    enum ItemSchema {
        Struct((&'static str, Names)),
        Enum(Vec<(&'static str, Option<Names>)>),
    }

    fn item_schema<T: DeserializeOwned>() -> ItemSchema {
        if is_enum::<T>() { ItemSchema::Enum(variants::<T>()) } else { ItemSchema::Struct(record::<T>()) }
    }

    /// The enums of the schema, each as its variants with their fields.
    fn enums() -> Vec<Vec<(&'static str, Option<Names>)>> {
        let mut all = vec![
            variants::<Sky>(),
            variants::<MaterialKind>(),
            variants::<Texture>(),
            variants::<Wrap>(),
            variants::<ViewTransform>(),
            variants::<SamplerKind>(),
            variants::<Light>(),
            variants::<TerrainKind<Terrain>>(),
        ];
        all.extend(list_item_schemas().into_iter().filter_map(|item| match item {
            ItemSchema::Enum(variants) => Some(variants),
            ItemSchema::Struct(_) => None,
        }));
        all
    }

    /// Every struct and enum variant of the schema, by its serde name, with its fields,
    /// and the fields `model/text.rs` adds to a variant (a material's textures, a terrain's
    /// surface). A type added to the schema is reached from a field of one of these (or
    /// is a list's item, or a newtype variant's struct): add it here.
    fn schema() -> Vec<(&'static str, Names)> {
        let mut all = vec![
            record::<Scene>(),
            record::<Camera>(),
            record::<RenderSettings>(),
            record::<Band>(),
            record::<Transform>(),
            record::<UvTransform>(),
            record::<Environment>(),
            record::<Principled>(),
            ("Heightmap", SURFACE_FIELDS),
        ];
        for (kind, _) in variants::<MaterialKind>() {
            all.push((kind, MaterialKind::texture_fields(kind)));
        }
        all.extend(list_item_schemas().into_iter().filter_map(|item| match item {
            ItemSchema::Struct(fields) => Some(fields),
            ItemSchema::Enum(_) => None,
        }));
        for kinds in enums() {
            all.extend(kinds.into_iter().map(|(name, fields)| (name, fields.unwrap_or_default())));
        }
        all
    }

    /// A scene with every field of the schema away from its default and every kind of
    /// material and light, and every list's examples; its lists read their files (and a
    /// texture `h.png`) from `folder`.
    fn every_field(folder: &Path) -> Scene {
        // The kinds that take a texture take these in turn; a Principled its maps too.
        let image = |encoding| Texture::Image {
            file: "h.png".into(),
            // As read from h.png (the folder of `every_value_wrong` has none).
            image: Arc::new(
                super::super::texture_file::read(&folder.join("h.png"), encoding).unwrap_or_else(|_| {
                    TextureImage {
                        path: folder.join("h.png"),
                        width: 1,
                        height: 1,
                        texels: vec![[0.0; 3]],
                        alpha: Vec::new(),
                    }
                }),
            ),
            wrap: Wrap::Clamp,
            uv_transform: UvTransform {
                offset: glam::Vec2::new(0.5, -0.25),
                rotation_deg: 22.5,
                scale: glam::Vec2::new(4.0, 2.0),
            },
        };
        let checker = Texture::Checker { size: 0.5, even: Vec3::splat(0.25), odd: Vec3::new(1.0, 0.5, 0.0) };
        let maps = Maps {
            metallic_roughness: Some(image(Encoding::Data)),
            emission: Some(checker.clone()),
            normal: Some(image(Encoding::Data)),
        };
        let mut textures =
            [checker, Texture::Noise { scale: 4.0 }, image(Encoding::Color)].into_iter().cycle();
        let materials = every_kind()
            .into_iter()
            .enumerate()
            .map(|(i, kind)| Material {
                name: format!("material{i}"),
                kind,
                texture: if kind.takes_texture() { textures.next() } else { None },
                maps: if kind.takes_maps() { maps.clone() } else { Maps::default() },
            })
            .collect();
        Scene {
            camera: Camera {
                look_from: Vec3::new(13.0, 2.0, 3.0),
                look_at: Vec3::ZERO,
                up: Vec3::Z,
                vfov_deg: 20.0,
                aperture: 0.1,
                focus_dist: 10.0,
            },
            settings: RenderSettings {
                width: 64,
                height: 36,
                spp: 4,
                max_depth: 8,
                seed: 7,
                exposure: -1.5,
                view: ViewTransform::Agx,
                sampler: SamplerKind::Sobol,
            },
            sky: Sky::Gradient { bottom: Vec3::splat(0.5), top: Vec3::new(0.25, 0.5, 1.0) },
            materials,
            lights: vec![
                Light::Point {
                    position: Vec3::new(0.0, 10.0, 0.0),
                    color: Vec3::splat(0.5),
                    intensity: 50.0,
                },
                Light::Directional {
                    direction: Vec3::new(-1.0, -1.0, -0.5),
                    color: Vec3::new(1.0, 0.5, 0.25),
                    intensity: 2.0,
                    angular_radius_deg: 0.5,
                },
            ],
            ..list_examples(folder)
        }
    }

    /// [`every_field`] as `to_ron` writes it, then with the other skies and without the
    /// lists that read files, without lights, and with each list left out and alone.
    fn variations(folder: &Path) -> Vec<Scene> {
        let full = every_field(folder);
        let untextured = full.materials.iter().map(|m| Material { texture: None, ..m.clone() }).collect();
        let constant_sky = Scene {
            sky: Sky::Constant(Vec3::new(0.25, 0.5, 1e-7)),
            materials: untextured,
            terrains: Vec::new(),
            meshes: Vec::new(),
            ..full.clone()
        };
        let env_image = super::super::environment::read(&folder.join("sky.png")).expect("sky.png");
        let environment_sky = Scene {
            sky: Sky::Environment(Environment {
                image: "sky.png".into(),
                data: Arc::new(env_image),
                strength: 2.5,
                rotation_deg: -30.0,
            }),
            terrains: Vec::new(),
            meshes: Vec::new(),
            sphere_files: Vec::new(),
            ..full.clone()
        };
        let no_lights = Scene { lights: Vec::new(), ..full.clone() };
        // The views and samplers `full` does not use.
        let filmic = RenderSettings {
            view: ViewTransform::Filmic,
            sampler: SamplerKind::Independent,
            exposure: 20.0,
            ..full.settings
        };
        let standard = RenderSettings { view: ViewTransform::Standard, exposure: -20.0, ..full.settings };
        let mut all = vec![full.clone(), constant_sky, environment_sky, no_lights];
        all.extend([filmic, standard].map(|settings| Scene { settings, ..full.clone() }));
        all.extend(each_list_left_out_and_alone(&full));
        all
    }

    /// Writes the files [`every_field`] reads (a heightmap and texture, a sky, a model,
    /// a sphere file and an instance file) into a new folder.
    fn folder_with_image() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("a temporary folder");
        image::GrayImage::from_raw(2, 2, vec![0, 1, 2, 3])
            .expect("2 x 2")
            .save(dir.path().join("h.png"))
            .expect("write PNG");
        image::RgbImage::from_raw(2, 1, vec![0, 128, 255, 10, 20, 30])
            .expect("2 x 1")
            .save(dir.path().join("sky.png"))
            .expect("write PNG");
        std::fs::write(dir.path().join("m.obj"), "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n").expect("write OBJ");
        let spheres = every_field(dir.path()).sphere_files[0].data.spheres.clone();
        let ply = crate::scene::write_sphere_file(&spheres, crate::scene::PlyEncoding::Ascii, true);
        std::fs::write(dir.path().join("s.ply"), ply).expect("write PLY");
        let instances = super::super::list::instance_file_example(dir.path()).instances;
        let ply = crate::scene::write_instance_file(&instances, crate::scene::PlyEncoding::BinaryBigEndian);
        std::fs::write(dir.path().join("i.ply"), ply).expect("write PLY");
        dir
    }

    /// `to_ron` writes every field and variant serde declares, and reads back equal
    /// (every field holds a value away from its default, so one left out, or written
    /// under another name, would not read back equal), with and without each list.
    #[test]
    fn the_writer_writes_every_name_of_the_schema_and_reads_back() {
        let dir = folder_with_image();
        let origin = dir.path().join("scene.ron").display().to_string();
        let texts: Vec<String> = variations(dir.path())
            .iter()
            .map(|scene| {
                let text = to_ron(scene);
                let back = parse(&text, &origin).unwrap_or_else(|e| panic!("{e}\n{text}"));
                assert_eq!(&back, scene, "{text}");
                assert_eq!(to_ron(&back), text);
                text
            })
            .collect();
        let all = texts.concat();
        for (name, fields) in schema() {
            // Structs' names are optional in a file, and `to_ron` leaves them out.
            if variants_of_schema().contains(&name) {
                assert!(all.contains(&format!("{name}(")), "variant `{name}` is never written");
            }
            for field in fields {
                assert!(all.contains(&format!("{field}: ")), "`{field}` of `{name}` is never written");
            }
        }
        // Unit variants are written as a field's value, `view: Filmic`; the first of each
        // enum is its default, which the writer leaves out (reading back checks it).
        for (name, _) in unit_enums().into_iter().flat_map(|kinds| kinds.into_iter().skip(1)) {
            let written = [",", ")"].iter().any(|end| all.contains(&format!(": {name}{end}")));
            assert!(written, "variant `{name}` is never written");
        }
        // Empty lists are left out: none of `[]`.
        assert!(texts.iter().all(|text| !text.contains("[]")), "{texts:?}");
    }

    fn variants_of_schema() -> Vec<&'static str> {
        // Unit variants are written as a field's value (`wrap: Clamp`), not `Clamp(`.
        let units = unit_enums();
        enums().into_iter().filter(|kinds| !units.contains(kinds)).flatten().map(|(name, _)| name).collect()
    }

    /// The enums whose variants are all units: written as a field's value.
    fn unit_enums() -> Vec<Vec<(&'static str, Option<Names>)>> {
        vec![variants::<Wrap>(), variants::<ViewTransform>(), variants::<SamplerKind>()]
    }

    /// A scene whose every checked value is wrong: NaN for every number (textures'
    /// included), zero sizes, unknown or duplicate materials, a missing terrain image.
    fn every_value_wrong(sky: Sky) -> Scene {
        let nan = Vec3::splat(f32::NAN);
        let mut scene = every_field(Path::new("missing"));
        scene.camera = Camera {
            look_from: nan,
            look_at: nan,
            up: nan,
            vfov_deg: f32::NAN,
            aperture: f32::NAN,
            focus_dist: f32::NAN,
        };
        scene.settings = RenderSettings {
            width: 0,
            height: 0,
            spp: 0,
            max_depth: 0,
            seed: 0,
            exposure: f32::NAN,
            ..RenderSettings::DEFAULT
        };
        scene.sky = sky;
        // The first two share a name.
        scene.materials = every_kind_wrong()
            .into_iter()
            .enumerate()
            .map(|(i, kind)| Material::new(format!("m{}", i.max(1)), kind))
            .collect();
        // Textures' parameters too (checked where the material is).
        scene.materials[0].texture = Some(Texture::Checker { size: f32::NAN, even: nan, odd: nan });
        scene.materials[3].texture = Some(Texture::Noise { scale: f32::NAN });
        let nan2 = glam::Vec2::NAN;
        let uv_transform = UvTransform { offset: nan2, rotation_deg: f32::NAN, scale: nan2 };
        let image = TextureImage {
            path: "h.png".into(),
            width: 1,
            height: 1,
            texels: vec![[0.0; 3]],
            alpha: Vec::new(),
        };
        scene.materials[1].texture = Some(Texture::Image {
            file: "h.png".into(),
            image: Arc::new(image),
            wrap: Wrap::Repeat,
            uv_transform,
        });
        make_lists_wrong(&mut scene);
        scene.lights = vec![
            Light::Point { position: nan, color: nan, intensity: f32::NAN },
            Light::Directional {
                direction: nan,
                color: nan,
                intensity: f32::NAN,
                angular_radius_deg: f32::NAN,
            },
        ];
        scene
    }

    /// Every path validation reports names a value that is written in the text, both
    /// for a file and for a scene in memory (a path that misspelt a field, or named it
    /// on the wrong value, would point at an ancestor instead), and the one its message
    /// is about.
    #[test]
    fn validation_paths_name_the_values_of_the_schema() {
        let nan_env = Sky::Environment(Environment {
            image: "sky.png".into(),
            data: Arc::new(EnvImage { path: "sky.png".into(), width: 1, height: 1, texels: vec![[0.0; 3]] }),
            strength: f32::NAN,
            rotation_deg: f32::NAN,
        });
        for sky in [Sky::Gradient { bottom: Vec3::NAN, top: Vec3::NAN }, Sky::Constant(Vec3::NAN), nan_env] {
            let scene = every_value_wrong(sky);
            let text = to_ron(&scene);
            let (mut read, written) = read_ron(&text, "").unwrap_or_else(|e| panic!("{e}\n{text}"));
            let mut from_file = load::read_inputs(&mut read, Path::new("missing"));
            from_file.extend(validate::check(&read, Some(&written), None));
            let from_model = validate::check(&scene, None, None);
            for issues in [from_file, from_model] {
                assert!(issues.len() > 50, "{issues:#?}");
                let paths: Vec<_> = issues
                    .iter()
                    .flat_map(|i| std::iter::once(&i.path).chain(i.also.as_ref().map(|(p, _)| p)))
                    .collect();
                let index = SpanIndex::scan(&text, paths.iter().copied());
                for path in paths {
                    assert!(
                        matches!(index.locate(path), Some(Located::Exact(_))),
                        "`{path}` is not written in\n{text}"
                    );
                }
                // And on the value the message is about: it names the path's last field.
                for issue in issues.iter().filter(|issue| !issue.path.to_string().contains("[key ")) {
                    let path = issue.path.to_string();
                    let field = path.rsplit('.').next().and_then(|last| last.split('[').next());
                    let field = field.unwrap_or_default();
                    assert!(issue.message.contains(field), "`{path}`: {}", issue.message);
                }
            }
        }
        // The one path a value not written can have: the scene is empty at `spheres`.
        let empty = validate::check(&Scene::default(), None, None);
        assert_eq!(empty.len(), 1, "{empty:#?}");
        assert!(record::<Scene>().1.contains(&empty[0].path.to_string().as_str()));
    }
}
