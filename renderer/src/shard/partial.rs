//! The partial film file: an OpenEXR image whose pixels are the film's per-pixel
//! *sums* (channels R, G, B, 32-bit float, ZIP, lossless: the f32 sums exactly as the
//! backend accumulated them) and whose header carries the metadata as custom
//! attributes (docs/shards.md has the table). Resolution is the image's data window.
//!
//! OpenEXR stores 32-bit floats and arbitrary typed header attributes losslessly, and
//! any EXR tool can open a part (`exrheader` lists the attributes), so no format of
//! our own is needed. Integers that fit an EXR `int` are stored as `int`; the seed
//! (a full u32), the hash and the device are `string`s (UTF-8).

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Cursor};
use std::path::Path;

use exr::meta::attribute::{AttributeValue, SampleType, Text};
use exr::prelude::{
    Encoding, Image, Layer, LayerAttributes, ReadChannels, ReadLayers, SpecificChannels, Vec2, WritableImage,
};

use scene_compiler::scene::{SamplerKind, ViewTransform};

use super::{MAX_SHARDS, RenderInfo, ShardInfo};
use crate::backend::Tonemap;
use crate::output;

/// The value of [`attr::FORMAT`]: what the file is, and the version of its layout.
pub const FORMAT: &str = "rtscene-partial-film/1";

/// The header attributes of a partial film.
pub mod attr {
    /// string, [`super::FORMAT`]: marks the file as a partial film (pixels are sums).
    pub const FORMAT: &str = "rtscene.format";
    /// string, `blake3:<64 hex digits>` of the compiled scene blob.
    pub const BLOB_HASH: &str = "rtscene.blobHash";
    /// string, decimal u32.
    pub const SEED: &str = "rtscene.seed";
    /// int.
    pub const MAX_DEPTH: &str = "rtscene.maxDepth";
    /// int, 1 with next-event estimation, 0 without (`--no-nee`).
    pub const NEE: &str = "rtscene.nee";
    /// int, samples per pixel of the whole render.
    pub const SPP: &str = "rtscene.spp";
    /// int, this part's shard index, from 0.
    pub const SHARD_INDEX: &str = "rtscene.shardIndex";
    /// int, shards in the render.
    pub const SHARD_COUNT: &str = "rtscene.shardCount";
    /// int, the first sample index summed here.
    pub const SAMPLE_START: &str = "rtscene.sampleStart";
    /// int, one past the last sample index summed here.
    pub const SAMPLE_END: &str = "rtscene.sampleEnd";
    /// int, samples per pixel summed here (`sampleEnd - sampleStart`).
    pub const SAMPLES: &str = "rtscene.samples";
    /// string, `Independent` or `Sobol` (`scene::SamplerKind::name`); absent in parts
    /// written before samplers could be chosen, which are `Independent`.
    pub const SAMPLER: &str = "rtscene.sampler";
    /// float, the exposure in stops the part was rendered with (absent: 0).
    pub const EXPOSURE: &str = "rtscene.exposure";
    /// string, its view transform, `Standard`, `Agx` or `Filmic` (absent: `Standard`).
    pub const VIEW: &str = "rtscene.view";
    /// string, the backend and device that rendered the part.
    pub const BACKEND: &str = "rtscene.backend";
    /// int, 1: a checkpoint of an unfinished render (`sampleEnd` is where it stopped);
    /// absent (or 0) in a finished part.
    pub const CHECKPOINT: &str = "rtscene.checkpoint";
}

/// One shard's film: its metadata and its per-pixel sums (top row first).
#[derive(Clone, Debug, PartialEq)]
pub struct PartialFilm {
    pub info: ShardInfo,
    pub sums: Vec<[f32; 3]>,
}

/// Why a file is not a usable partial film.
#[derive(Debug, thiserror::Error)]
pub enum PartError {
    /// The file cannot be read at all (missing, no permission): a usage or I/O error.
    #[error("cannot read `{path}`: {error}")]
    Unreadable { path: String, error: std::io::Error },
    /// The file is read but is not a partial film, or is damaged: invalid input.
    #[error("`{path}` is not a partial film: {reason}")]
    NotPartial { path: String, reason: String },
}

impl PartError {
    fn unreadable(path: &Path, error: std::io::Error) -> PartError {
        PartError::Unreadable { path: path.display().to_string(), error }
    }

    fn not_partial(path: &Path, reason: impl Into<String>) -> PartError {
        PartError::NotPartial { path: path.display().to_string(), reason: reason.into() }
    }
}

/// Writes `film` to `path` (temporary file renamed over it, as images are).
pub fn write(path: &Path, film: &PartialFilm) -> anyhow::Result<()> {
    output::write_atomically(path, |temp| write_file(temp, film))
}

/// Writes `film` to `path` directly (no temporary file: [`write`] is the safe one).
pub fn write_file(path: &Path, film: &PartialFilm) -> anyhow::Result<()> {
    let info = &film.info;
    let render = &info.render;
    let (width, height) = (render.width as usize, render.height as usize);
    anyhow::ensure!(
        film.sums.len() == width * height,
        "a partial film of {} pixels is not {width}x{height}",
        film.sums.len()
    );
    let sums = &film.sums;
    let channels = SpecificChannels::rgb(|at: Vec2<usize>| {
        let [r, g, b] = sums[at.y() * width + at.x()];
        (r, g, b)
    });
    // Custom attributes are the layer's: the reader files unknown ones there.
    let mut attributes = LayerAttributes::default();
    let other = &mut attributes.other;
    let mut text = |name: &str, value: &str| {
        other.insert(Text::from(name), AttributeValue::Text(Text::from_slice_unchecked(value.as_bytes())));
    };
    text(attr::FORMAT, FORMAT);
    text(attr::BLOB_HASH, &render.blob_hash);
    text(attr::SEED, &render.seed.to_string());
    text(attr::BACKEND, &info.backend);
    text(attr::SAMPLER, render.sampler.name());
    text(attr::VIEW, info.display.view.name());
    other.insert(Text::from(attr::EXPOSURE), AttributeValue::F32(info.display.exposure));
    let ints = [
        (attr::MAX_DEPTH, render.max_depth),
        (attr::NEE, u32::from(render.nee)),
        (attr::SPP, render.spp),
        (attr::SHARD_INDEX, info.index),
        (attr::SHARD_COUNT, render.shard_count),
        (attr::SAMPLE_START, info.samples.start),
        (attr::SAMPLE_END, info.samples.end),
        (attr::SAMPLES, info.samples.end - info.samples.start),
    ];
    if info.checkpoint {
        other.insert(Text::from(attr::CHECKPOINT), AttributeValue::I32(1));
    }
    for (name, value) in ints {
        let value =
            i32::try_from(value).map_err(|_| anyhow::anyhow!("{name} {value} does not fit an EXR int"))?;
        other.insert(Text::from(name), AttributeValue::I32(value));
    }
    let image =
        Image::from_layer(Layer::new((width, height), attributes, Encoding::SMALL_LOSSLESS, channels));
    image.write().to_file(path).map_err(anyhow::Error::from)
}

/// Reads the metadata of the partial film at `path` (the header only) and checks it.
pub fn read_info(path: &Path) -> Result<ShardInfo, PartError> {
    let file = File::open(path).map_err(|e| PartError::unreadable(path, e))?;
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        let error = std::io::Error::new(std::io::ErrorKind::IsADirectory, "it is a folder");
        return Err(PartError::unreadable(path, error));
    }
    let meta = exr::meta::MetaData::read_from_buffered(BufReader::new(file), false)
        .map_err(|e| PartError::not_partial(path, format!("not an OpenEXR file ({e})")))?;
    let [header] = meta.headers.as_slice() else {
        return Err(PartError::not_partial(
            path,
            format!("{} layers; a partial film has one", meta.headers.len()),
        ));
    };
    // The attributes first: "no rtscene.format" says best what a plain image is.
    let info = parse_info(&header.own_attributes.other, header.layer_size)
        .map_err(|reason| PartError::not_partial(path, reason))?;
    let channels: Vec<(String, SampleType)> =
        header.channels.list.iter().map(|c| (c.name.to_string(), c.sample_type)).collect();
    let rgb_f32 = ["B", "G", "R"].map(|name| (name.to_owned(), SampleType::F32));
    if channels.as_slice() != rgb_f32.as_slice() {
        return Err(PartError::not_partial(
            path,
            format!("channels {channels:?}; a partial film has R, G and B in 32-bit float"),
        ));
    }
    Ok(info)
}

/// Reads the partial film at `path`: its checked metadata and its sums.
pub fn read(path: &Path) -> Result<PartialFilm, PartError> {
    let info = read_info(path)?;
    let bytes = std::fs::read(path).map_err(|e| PartError::unreadable(path, e))?;
    let image = exr::prelude::read()
        .no_deep_data()
        .largest_resolution_level()
        .rgb_channels(
            |size: Vec2<usize>, _| (size.width(), vec![[0.0f32; 3]; size.width() * size.height()]),
            |(width, pixels): &mut (usize, Vec<[f32; 3]>), at: Vec2<usize>, (r, g, b): (f32, f32, f32)| {
                pixels[at.y() * *width + at.x()] = [r, g, b];
            },
        )
        .first_valid_layer()
        .all_attributes()
        .from_buffered(Cursor::new(bytes))
        .map_err(|e| PartError::not_partial(path, format!("damaged OpenEXR pixels ({e})")))?;
    let (_, sums) = image.layer_data.channel_data.pixels;
    Ok(PartialFilm { info, sums })
}

/// The one of `all` whose name (`name_of`) is `value`, attribute `attribute`'s.
fn named<T: Copy>(
    attribute: &str,
    value: &str,
    all: &[T],
    name_of: fn(T) -> &'static str,
) -> Result<T, String> {
    all.iter().copied().find(|&v| name_of(v) == value).ok_or_else(|| {
        let names: Vec<&str> = all.iter().map(|&v| name_of(v)).collect();
        format!("`{attribute}` is `{value}`, not one of {}", names.join(", "))
    })
}

/// The metadata from a header's attributes and data-window size, or what is wrong.
fn parse_info(other: &HashMap<Text, AttributeValue>, size: Vec2<usize>) -> Result<ShardInfo, String> {
    let get = |name: &str| other.get(&Text::from(name));
    let text = |name: &str| match get(name) {
        Some(AttributeValue::Text(t)) => Ok(String::from_utf8_lossy(t.as_slice()).into_owned()),
        Some(_) => Err(format!("attribute `{name}` is not a string")),
        None => Err(format!("no `{name}` attribute")),
    };
    let int = |name: &str| match get(name) {
        Some(AttributeValue::I32(v)) => {
            u32::try_from(*v).map_err(|_| format!("attribute `{name}` is negative: {v}"))
        }
        Some(_) => Err(format!("attribute `{name}` is not an int")),
        None => Err(format!("no `{name}` attribute")),
    };
    match get(attr::FORMAT) {
        None => {
            return Err(format!(
                "it has no `{}` attribute (an image, not a part written by `renderer render --shard`)",
                attr::FORMAT
            ));
        }
        Some(_) if text(attr::FORMAT)? != FORMAT => {
            return Err(format!("`{}` is `{}`, expected `{FORMAT}`", attr::FORMAT, text(attr::FORMAT)?));
        }
        Some(_) => {}
    }
    let seed = text(attr::SEED)?;
    let (width, height) = (u32::try_from(size.width()), u32::try_from(size.height()));
    let render = RenderInfo {
        blob_hash: text(attr::BLOB_HASH)?,
        width: width.map_err(|_| "the image is too wide".to_owned())?,
        height: height.map_err(|_| "the image is too tall".to_owned())?,
        seed: seed.parse().map_err(|_| format!("`{}` is `{seed}`, not a u32", attr::SEED))?,
        max_depth: int(attr::MAX_DEPTH)?,
        nee: match int(attr::NEE)? {
            0 => false,
            1 => true,
            v => return Err(format!("`{}` is {v}, not 0 or 1", attr::NEE)),
        },
        spp: int(attr::SPP)?,
        shard_count: int(attr::SHARD_COUNT)?,
        sampler: match get(attr::SAMPLER) {
            None => SamplerKind::Independent,
            Some(_) => named(attr::SAMPLER, &text(attr::SAMPLER)?, &SamplerKind::ALL, SamplerKind::name)?,
        },
    };
    let display = Tonemap {
        exposure: match get(attr::EXPOSURE) {
            None => 0.0,
            Some(AttributeValue::F32(stops)) if stops.is_finite() => *stops,
            Some(_) => return Err(format!("attribute `{}` is not a finite float", attr::EXPOSURE)),
        },
        view: match get(attr::VIEW) {
            None => ViewTransform::Standard,
            Some(_) => named(attr::VIEW, &text(attr::VIEW)?, &ViewTransform::ALL, ViewTransform::name)?,
        },
    };
    let checkpoint = match get(attr::CHECKPOINT) {
        None => false,
        Some(_) => match int(attr::CHECKPOINT)? {
            0 => false,
            1 => true,
            v => return Err(format!("`{}` is {v}, not 0 or 1", attr::CHECKPOINT)),
        },
    };
    let info = ShardInfo {
        index: int(attr::SHARD_INDEX)?,
        samples: int(attr::SAMPLE_START)?..int(attr::SAMPLE_END)?,
        backend: text(attr::BACKEND)?,
        render,
        display,
        checkpoint,
    };
    let count = info.render.shard_count;
    if count == 0 || count > MAX_SHARDS || info.index >= count {
        return Err(format!("shard {}/{count} is not a valid shard", info.index));
    }
    let expected = info.shard().samples(info.render.spp);
    // A checkpoint holds the shard's first samples: from its start to where it stopped.
    let holds = |range: &std::ops::Range<u32>| {
        range.start == expected.start && range.start <= range.end && range.end <= expected.end
    };
    if info.checkpoint && !holds(&info.samples) {
        return Err(format!(
            "a checkpoint of shard {} of a {}-spp render holds samples from {} up to at most {}, \
             but the file says {:?}",
            info.shard(),
            info.render.spp,
            expected.start,
            expected.end,
            info.samples
        ));
    }
    if !info.checkpoint && info.samples != expected {
        return Err(format!(
            "shard {} of a {}-spp render covers samples {expected:?}, but the file says {:?}",
            info.shard(),
            info.render.spp,
            info.samples
        ));
    }
    if int(attr::SAMPLES)? != info.samples.end - info.samples.start {
        return Err(format!("`{}` is not `{}` − `{}`", attr::SAMPLES, attr::SAMPLE_END, attr::SAMPLE_START));
    }
    Ok(info)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shard::Shard;

    fn film(width: u32, height: u32) -> PartialFilm {
        let shard = Shard { index: 2, count: 5 };
        PartialFilm {
            info: ShardInfo {
                render: RenderInfo {
                    blob_hash: crate::shard::blob_hash(b"scene"),
                    width,
                    height,
                    seed: u32::MAX,
                    max_depth: 12,
                    nee: false,
                    sampler: SamplerKind::Sobol,
                    spp: 33,
                    shard_count: shard.count,
                },
                index: shard.index,
                samples: shard.samples(33),
                backend: "CPU · 2 threads".to_owned(),
                display: Tonemap { exposure: -1.5, view: ViewTransform::Agx },
                checkpoint: false,
            },
            sums: (0..width * height).map(|i| [i as f32 * 0.1, f32::MIN_POSITIVE, 1e30 + i as f32]).collect(),
        }
    }

    #[test]
    fn a_partial_film_round_trips_bit_for_bit() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("part.exr");
        let original = film(7, 3);
        write(&path, &original).expect("write");
        assert_eq!(read_info(&path).expect("header"), original.info);
        let back = read(&path).expect("read");
        assert_eq!(back.info, original.info);
        let bits = |f: &PartialFilm| f.sums.iter().map(|p| p.map(f32::to_bits)).collect::<Vec<_>>();
        assert_eq!(bits(&back), bits(&original));
    }

    #[test]
    fn a_checkpoint_round_trips_and_holds_the_start_of_its_shard() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("part.ckpt.exr");
        let mut original = film(3, 2);
        original.info.checkpoint = true;
        original.info.samples = original.info.samples.start..original.info.samples.start + 2;
        write(&path, &original).expect("write");
        assert_eq!(read(&path).expect("read").info, original.info);

        let mut gap = original.clone();
        gap.info.samples = gap.info.samples.start + 1..gap.info.samples.start + 2;
        write(&path, &gap).expect("write");
        let error = read_info(&path).expect_err("a checkpoint that does not start at its shard's start");
        assert!(error.to_string().contains("holds samples from 13 up to at most 19"), "{error}");
    }

    #[test]
    fn a_plain_exr_and_a_missing_file_are_told_apart() {
        let dir = tempfile::tempdir().expect("temp dir");
        let plain = dir.path().join("plain.exr");
        image::Rgba32FImage::from_pixel(4, 4, image::Rgba([0.5, 0.5, 0.5, 1.0]))
            .save_with_format(&plain, image::ImageFormat::OpenExr)
            .expect("write exr");
        assert!(matches!(read_info(&plain), Err(PartError::NotPartial { .. })));
        let missing = dir.path().join("missing.exr");
        assert!(matches!(read_info(&missing), Err(PartError::Unreadable { .. })));
        let text = dir.path().join("text.exr");
        std::fs::write(&text, "not an image").expect("write");
        let error = read_info(&text).expect_err("not an EXR");
        assert!(error.to_string().contains("not an OpenEXR file"), "{error}");
    }
}
