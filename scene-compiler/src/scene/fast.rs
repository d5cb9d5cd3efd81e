//! A fast reader for scene text in the usual formatting, ahead of ron.
//!
//! ron reads a million-sphere scene at about 50 MB/s; this reads the same text into the
//! same [`SceneFile`] several times faster, and the sphere and box lists (the bulk of a
//! large file) on every core. It accepts a strict subset of what ron accepts and returns
//! `None` on anything else, so that [`super::parse`] falls back to ron: errors are
//! always ron's, and a file is never read differently.
//!
//! Accepted: what `to_ron` writes and what is usual by hand: any ASCII whitespace
//! (space, tab, `\n`, `\r`), `//` and nested `/* */` comments, trailing commas, fields
//! in any order, left-out optional fields, optional struct names (`Scene(`,
//! `Camera(`, `Settings(`, `Sphere(`, `Box(`), `focus_dist` as a plain number, `Some(x)` or
//! `None`, decimal numbers, and strings without escapes.
//!
//! Falls back on: `#![...]` attributes (extensions), raw identifiers and raw strings,
//! escapes in strings, other whitespace, any number it does not read exactly like ron
//! (`inf`, `NaN`, underscores, suffixes like `1f32`, hex or signed whole numbers),
//! unknown or duplicate fields and variants, missing required fields, any syntax error.
//!
//! Exactly like ron, number for number: a float is the same run of characters ron
//! takes (`[0-9eE.+-]`, which must end at a delimiter) through the same
//! `f32::from_str`; a whole number is decimal digits only, with overflow a fallback.
//! Defaults are the schema's (`schema.rs`). The names it accepts are serde's (`KNOWN`)
//! and the struct literals below name every field of the schema types, so a field added
//! there does not compile here until it is read; a test (`reflect.rs`) checks that
//! every name `to_ron` writes is read here.

use std::sync::LazyLock;

use rayon::prelude::*;
use smol_str::SmolStr;

use super::decimal;
use super::reflect::{self, Names};
use super::schema::{
    BoxFile, CameraFile, LightFile, MaterialEntries, MaterialFile, SceneFile, SettingsFile, SkyFile,
    SphereFile, V3, default_up, one, white,
};

/// The names this reader accepts, by schema type: serde's, read from the schema types
/// themselves (`reflect.rs`). A name is looked up here before its value is read; one
/// that no reader below handles (a field added to the schema, or `terrains`, which are
/// a few lines whatever their size: the bulk is in the image) falls back.
struct Known {
    scene: (&'static str, Names),
    camera: (&'static str, Names),
    settings: (&'static str, Names),
    sphere: (&'static str, Names),
    cuboid: (&'static str, Names),
    sky: Vec<(&'static str, Option<Names>)>,
    material: Vec<(&'static str, Option<Names>)>,
    light: Vec<(&'static str, Option<Names>)>,
}

static KNOWN: LazyLock<Known> = LazyLock::new(|| Known {
    scene: reflect::record::<SceneFile>(),
    camera: reflect::record::<CameraFile>(),
    settings: reflect::record::<SettingsFile>(),
    sphere: reflect::record::<SphereFile>(),
    cuboid: reflect::record::<BoxFile>(),
    sky: reflect::variants::<SkyFile>(),
    material: reflect::variants::<MaterialFile>(),
    light: reflect::variants::<LightFile>(),
});

/// Sphere lists shorter than this are read by one thread.
const PAR_MIN_BYTES: usize = 1 << 20;
/// The smallest piece of a sphere list one task reads.
const PAR_MIN_PIECE: usize = 1 << 18;
/// How far past a piece's planned start to look for a line that starts an item.
const MAX_SYNC_SEARCH: usize = 1 << 16;

/// Reads `source` into the [`SceneFile`] ron would produce, or `None` when the text
/// is not in the formatting this reader handles (ron then reads it, and diagnoses it).
pub(crate) fn parse(source: &str) -> Option<SceneFile> {
    let mut c = Cursor { text: source, src: source.as_bytes(), pos: 0 };
    c.ws()?;
    let file = c.scene()?;
    c.ws()?;
    (c.pos == c.src.len()).then_some(file)
}

/// A position in the source; every method returns `None` where ron might read
/// differently or fail.
#[derive(Clone, Copy)]
struct Cursor<'a> {
    text: &'a str,
    /// The bytes of `text`.
    src: &'a [u8],
    pos: usize,
}

/// How a run over sphere list items ended.
enum Run {
    /// At the `]`; the position after it.
    End(usize),
    /// At an item that starts at or after the stop position: its position.
    Stop(usize),
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    fn eat(&mut self, b: u8) -> bool {
        let hit = self.peek() == Some(b);
        self.pos += usize::from(hit);
        hit
    }

    fn expect(&mut self, b: u8) -> Option<()> {
        self.eat(b).then_some(())
    }

    /// Skips ASCII whitespace and comments (ron's `skip_ws`, minus its rarer whitespace
    /// characters, which end the token here and so fall back).
    #[inline]
    fn ws(&mut self) -> Option<()> {
        let src = self.src;
        let mut i = self.pos;
        loop {
            while let Some(b' ' | b'\t' | b'\n' | b'\r') = src.get(i) {
                i += 1;
            }
            if src.get(i) != Some(&b'/') {
                self.pos = i;
                return Some(());
            }
            match src.get(i + 1) {
                Some(b'/') => {
                    let rest = &src[i..];
                    i += rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
                }
                Some(b'*') => {
                    // Nested like ron's: `/*` opens, `*/` closes, anything else is skipped.
                    i += 2;
                    let mut level = 1usize;
                    while level > 0 {
                        match src.get(i..i + 2)? {
                            b"/*" => (level, i) = (level + 1, i + 2),
                            b"*/" => (level, i) = (level - 1, i + 2),
                            _ => i += 1,
                        }
                    }
                }
                _ => return None,
            }
        }
    }

    /// Whether a token may end at `i`: after it comes whitespace, a comment,
    /// punctuation or the end. Anything else (`_`, `#`, `"`, `.`, a non-ASCII
    /// character) would make ron read a different token, so the reader falls back.
    #[inline]
    fn delimiter_at(&self, i: usize) -> bool {
        matches!(
            self.src.get(i),
            None | Some(
                b' ' | b'\t' | b'\n' | b'\r' | b'/' | b',' | b':' | b'(' | b')' | b'[' | b']' | b'{' | b'}'
            )
        )
    }

    /// An ASCII identifier `[A-Za-z_][A-Za-z0-9_]*`.
    #[inline]
    fn ident(&mut self) -> Option<&'a str> {
        let (src, start) = (self.src, self.pos);
        if !matches!(src.get(start), Some(b'a'..=b'z' | b'A'..=b'Z' | b'_')) {
            return None;
        }
        let mut i = start + 1;
        while let Some(b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_') = src.get(i) {
            i += 1;
        }
        if !self.delimiter_at(i) {
            return None;
        }
        self.pos = i;
        // ASCII only, so the slice is at character boundaries.
        Some(&self.text[start..i])
    }

    /// An `f32` exactly as ron reads it: ron takes the run of float characters
    /// `[0-9eE.+_-]` and reads it with `f32::from_str`; so does this (plain decimals
    /// by `decimal.rs`, to the same value), with `_` (which ron drops) falling back.
    #[inline]
    fn f32(&mut self) -> Option<f32> {
        let (src, start) = (self.src, self.pos);
        let mut i = start;
        while let Some(b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-') = src.get(i) {
            i += 1;
        }
        // ron cuts a run at `..` (range syntax): no need to look for it, since a run with
        // two dots is no `f32` for `from_str` either, and falls back.
        if i == start || !self.delimiter_at(i) {
            return None;
        }
        self.pos = i;
        decimal::plain_f32(&src[start..i]).or_else(|| self.text[start..i].parse().ok())
    }

    /// A `u32` written in plain decimal digits; overflow falls back (ron reports it).
    #[inline]
    fn u32(&mut self) -> Option<u32> {
        let (src, start) = (self.src, self.pos);
        let mut i = start;
        let mut value = 0u32;
        while let Some(&d @ b'0'..=b'9') = src.get(i) {
            value = value.checked_mul(10)?.checked_add(u32::from(d - b'0'))?;
            i += 1;
        }
        if i == start || !self.delimiter_at(i) {
            return None;
        }
        self.pos = i;
        Some(value)
    }

    /// A `"..."` string without escapes.
    #[inline]
    fn string(&mut self) -> Option<&'a str> {
        self.expect(b'"')?;
        let rest = &self.src[self.pos..];
        let len = rest.iter().position(|&b| b == b'"' || b == b'\\')?;
        if rest[len] != b'"' {
            return None;
        }
        // Between two ASCII quotes, so at character boundaries.
        let text = &self.text[self.pos..self.pos + len];
        self.pos += len + 1;
        Some(text)
    }

    /// An enum variant's name, one of `known`, and the whitespace after it; with the
    /// variant's fields (none for a variant that is not a struct variant).
    fn variant(&mut self, known: &[(&'static str, Option<Names>)]) -> Option<(&'a str, Names)> {
        let name = self.ident()?;
        let (_, fields) = known.iter().find(|(variant, _)| *variant == name)?;
        self.ws()?;
        Some((name, fields.unwrap_or_default()))
    }

    /// An optional struct name in front of `(`: when written it must be `name`.
    fn struct_name(&mut self, name: &str) -> Option<()> {
        if matches!(self.peek(), Some(b'a'..=b'z' | b'A'..=b'Z' | b'_')) {
            (self.ident()? == name).then_some(())?;
            self.ws()?;
        }
        Some(())
    }

    /// `( name: value, ... )`: calls `field` with each name, which must be one of
    /// `known`, the cursor at its value.
    fn fields(
        &mut self,
        known: &[&str],
        mut field: impl FnMut(&mut Self, &'a str) -> Option<()>,
    ) -> Option<()> {
        self.expect(b'(')?;
        loop {
            self.ws()?;
            if self.eat(b')') {
                return Some(());
            }
            let name = self.ident().filter(|name| known.contains(name))?;
            self.ws()?;
            self.expect(b':')?;
            self.ws()?;
            field(self, name)?;
            self.ws()?;
            if !self.eat(b',') {
                self.ws()?;
                return self.expect(b')');
            }
        }
    }

    /// `[ item, ... ]`.
    fn list<T>(&mut self, mut item: impl FnMut(&mut Self) -> Option<T>) -> Option<Vec<T>> {
        self.expect(b'[')?;
        let mut items = Vec::new();
        loop {
            self.ws()?;
            if self.eat(b']') {
                return Some(items);
            }
            items.push(item(self)?);
            self.ws()?;
            if !self.eat(b',') {
                self.ws()?;
                self.expect(b']')?;
                return Some(items);
            }
        }
    }

    /// A value `(x, y, z)`.
    fn v3(&mut self) -> Option<V3> {
        self.expect(b'(')?;
        self.ws()?;
        let x = self.f32()?;
        self.comma()?;
        let y = self.f32()?;
        self.comma()?;
        let z = self.f32()?;
        self.ws()?;
        if self.eat(b',') {
            self.ws()?;
        }
        self.expect(b')')?;
        Some([x, y, z])
    }

    /// A required `,` between items, with whitespace around it.
    fn comma(&mut self) -> Option<()> {
        self.ws()?;
        self.expect(b',')?;
        self.ws()
    }

    /// An `Option<f32>` with ron's `implicit_some`: `None`, `Some(x)` or `x`.
    fn option_f32(&mut self) -> Option<Option<f32>> {
        if !matches!(self.peek(), Some(b'N' | b'S')) {
            return self.f32().map(Some);
        }
        match self.ident()? {
            "None" => Some(None),
            "Some" => {
                self.ws()?;
                self.expect(b'(')?;
                self.ws()?;
                let value = self.f32()?;
                self.ws()?;
                if self.eat(b',') {
                    self.ws()?;
                }
                self.expect(b')')?;
                Some(Some(value))
            }
            _ => None,
        }
    }

    /// Sets a field read once; a second one is ron's duplicate-field error.
    fn once<T>(slot: &mut Option<T>, value: Option<T>) -> Option<()> {
        if slot.is_some() {
            return None;
        }
        *slot = Some(value?);
        Some(())
    }

    fn scene(&mut self) -> Option<SceneFile> {
        let (struct_name, known) = KNOWN.scene;
        self.struct_name(struct_name)?;
        let (mut camera, mut settings, mut sky, mut materials) = (None, None, None, None);
        let (mut spheres, mut boxes, mut lights) = (None, None, None);
        self.fields(known, |c, name| match name {
            "camera" => Self::once(&mut camera, c.camera()),
            "settings" => Self::once(&mut settings, c.settings()),
            "sky" => Self::once(&mut sky, c.sky()),
            "materials" => Self::once(&mut materials, c.materials()),
            "spheres" => Self::once(&mut spheres, c.shapes(SPHERES)),
            "boxes" => Self::once(&mut boxes, c.shapes(BOXES)),
            "lights" => Self::once(&mut lights, c.list(Self::light)),
            _ => None,
        })?;
        Some(SceneFile {
            camera: camera?,
            settings: settings.unwrap_or_default(),
            sky: sky.unwrap_or_default(),
            materials: materials?,
            spheres: spheres.unwrap_or_default(),
            sphere_files: Vec::new(),
            boxes: boxes.unwrap_or_default(),
            terrains: Vec::new(),
            meshes: Vec::new(),
            lights: lights.unwrap_or_default(),
        })
    }

    fn camera(&mut self) -> Option<CameraFile> {
        let (struct_name, known) = KNOWN.camera;
        self.struct_name(struct_name)?;
        let (mut look_from, mut look_at, mut up, mut vfov_deg, mut aperture, mut focus_dist) =
            (None, None, None, None, None, None);
        self.fields(known, |c, name| match name {
            "look_from" => Self::once(&mut look_from, c.v3()),
            "look_at" => Self::once(&mut look_at, c.v3()),
            "up" => Self::once(&mut up, c.v3()),
            "vfov_deg" => Self::once(&mut vfov_deg, c.f32()),
            "aperture" => Self::once(&mut aperture, c.f32()),
            "focus_dist" => Self::once(&mut focus_dist, c.option_f32()),
            _ => None,
        })?;
        Some(CameraFile {
            look_from: look_from?,
            look_at: look_at?,
            up: up.unwrap_or_else(default_up),
            vfov_deg: vfov_deg?,
            aperture: aperture.unwrap_or_default(),
            focus_dist: focus_dist.unwrap_or_default(),
        })
    }

    fn settings(&mut self) -> Option<SettingsFile> {
        let (struct_name, known) = KNOWN.settings;
        self.struct_name(struct_name)?;
        let (mut width, mut height, mut spp, mut max_depth, mut seed) = (None, None, None, None, None);
        self.fields(known, |c, name| match name {
            "width" => Self::once(&mut width, c.u32()),
            "height" => Self::once(&mut height, c.u32()),
            "spp" => Self::once(&mut spp, c.u32()),
            "max_depth" => Self::once(&mut max_depth, c.u32()),
            "seed" => Self::once(&mut seed, c.u32()),
            _ => None,
        })?;
        // The whole struct is `#[serde(default)]`: a missing field is the default's.
        let d = SettingsFile::default();
        Some(SettingsFile {
            width: width.unwrap_or(d.width),
            height: height.unwrap_or(d.height),
            spp: spp.unwrap_or(d.spp),
            max_depth: max_depth.unwrap_or(d.max_depth),
            seed: seed.unwrap_or(d.seed),
        })
    }

    fn sky(&mut self) -> Option<SkyFile> {
        match self.variant(&KNOWN.sky)? {
            ("Gradient", known) => {
                let (mut bottom, mut top) = (None, None);
                self.fields(known, |c, name| match name {
                    "bottom" => Self::once(&mut bottom, c.v3()),
                    "top" => Self::once(&mut top, c.v3()),
                    _ => None,
                })?;
                Some(SkyFile::Gradient { bottom: bottom?, top: top? })
            }
            ("Constant", _) => {
                // A newtype variant: `Constant((r, g, b))`, a trailing comma allowed.
                self.expect(b'(')?;
                self.ws()?;
                let color = self.v3()?;
                self.ws()?;
                if self.eat(b',') {
                    self.ws()?;
                }
                self.expect(b')')?;
                Some(SkyFile::Constant(color))
            }
            _ => None,
        }
    }

    fn materials(&mut self) -> Option<MaterialEntries> {
        self.expect(b'{')?;
        let mut entries = Vec::new();
        loop {
            self.ws()?;
            if self.eat(b'}') {
                return Some(MaterialEntries(entries));
            }
            let name = self.string()?.to_owned();
            self.ws()?;
            self.expect(b':')?;
            self.ws()?;
            entries.push((name, self.material()?));
            self.ws()?;
            if !self.eat(b',') {
                self.ws()?;
                self.expect(b'}')?;
                return Some(MaterialEntries(entries));
            }
        }
    }

    fn material(&mut self) -> Option<MaterialFile> {
        let (variant, known) = self.variant(&KNOWN.material)?;
        let (mut albedo, mut fuzz, mut ior, mut color, mut strength) = (None, None, None, None, None);
        self.fields(known, |c, name| match name {
            "albedo" => Self::once(&mut albedo, c.v3()),
            "fuzz" => Self::once(&mut fuzz, c.f32()),
            "ior" => Self::once(&mut ior, c.f32()),
            "color" => Self::once(&mut color, c.v3()),
            "strength" => Self::once(&mut strength, c.f32()),
            _ => None,
        })?;
        Some(match variant {
            "Lambert" => MaterialFile::Lambert { albedo: albedo? },
            "Metal" => MaterialFile::Metal { albedo: albedo?, fuzz: fuzz.unwrap_or_default() },
            "Dielectric" => MaterialFile::Dielectric { ior: ior? },
            "Emissive" => MaterialFile::Emissive {
                color: color?,
                strength: strength.unwrap_or_else(one),
                albedo: albedo.unwrap_or_default(),
            },
            _ => return None,
        })
    }

    fn light(&mut self) -> Option<LightFile> {
        let (directional, known) = match self.variant(&KNOWN.light)? {
            ("Point", known) => (false, known),
            ("Directional", known) => (true, known),
            _ => return None,
        };
        let (mut position, mut direction, mut color, mut intensity, mut angular) =
            (None, None, None, None, None);
        self.fields(known, |c, name| match name {
            "position" => Self::once(&mut position, c.v3()),
            "direction" => Self::once(&mut direction, c.v3()),
            "color" => Self::once(&mut color, c.v3()),
            "intensity" => Self::once(&mut intensity, c.f32()),
            "angular_radius_deg" => Self::once(&mut angular, c.f32()),
            _ => None,
        })?;
        let (color, intensity) = (color.unwrap_or_else(white), intensity.unwrap_or_else(one));
        Some(if directional {
            LightFile::Directional {
                direction: direction?,
                color,
                intensity,
                angular_radius_deg: angular.unwrap_or_default(),
            }
        } else {
            LightFile::Point { position: position?, color, intensity }
        })
    }

    fn sphere(&mut self) -> Option<SphereFile> {
        let (struct_name, known) = KNOWN.sphere;
        self.struct_name(struct_name)?;
        let (mut center, mut radius, mut material) = (None, None, None);
        self.fields(known, |c, name| match name {
            "center" => Self::once(&mut center, c.v3()),
            "radius" => Self::once(&mut radius, c.f32()),
            "material" => Self::once(&mut material, c.string().map(SmolStr::new)),
            _ => None,
        })?;
        Some(SphereFile { center: center?, radius: radius?, material: material? })
    }

    fn cuboid(&mut self) -> Option<BoxFile> {
        let (struct_name, known) = KNOWN.cuboid;
        self.struct_name(struct_name)?;
        let (mut min, mut max, mut material) = (None, None, None);
        self.fields(known, |c, name| match name {
            "min" => Self::once(&mut min, c.v3()),
            "max" => Self::once(&mut max, c.v3()),
            "material" => Self::once(&mut material, c.string().map(SmolStr::new)),
            _ => None,
        })?;
        Some(BoxFile { min: min?, max: max?, material: material? })
    }

    /// A list of shapes (`item` reads one), in pieces on all threads when it is long.
    fn shapes<T: Send>(&mut self, item: Item<T>) -> Option<Vec<T>> {
        self.expect(b'[')?;
        if let Some((items, end)) = par_items(self.text, self.pos, item) {
            self.pos = end;
            return Some(items);
        }
        let mut items = Vec::new();
        let Run::End(end) = self.run(usize::MAX, &mut items, item.read)? else { return None };
        self.pos = end;
        Some(items)
    }

    /// Reads list items from an item start (after the `[`, or at an item after a `,`)
    /// up to the `]`, or up to the first item that starts at or after `stop`.
    fn run<T>(&mut self, stop: usize, out: &mut Vec<T>, read: fn(&mut Self) -> Option<T>) -> Option<Run> {
        loop {
            self.ws()?;
            if self.eat(b']') {
                return Some(Run::End(self.pos));
            }
            if self.pos >= stop {
                return Some(Run::Stop(self.pos));
            }
            out.push(read(self)?);
            self.ws()?;
            if !self.eat(b',') {
                self.ws()?;
                self.expect(b']')?;
                return Some(Run::End(self.pos));
            }
        }
    }
}

/// How to read one item of a long list, and how its lines start.
struct Item<T> {
    read: for<'c> fn(&mut Cursor<'c>) -> Option<T>,
    /// The first letter of the item's optional struct name (`S` for `Sphere(`).
    name: u8,
}

impl<T> Clone for Item<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Item<T> {}

const SPHERES: Item<SphereFile> = Item { read: |c| c.sphere(), name: b'S' };
const BOXES: Item<BoxFile> = Item { read: |c| c.cuboid(), name: b'B' };

/// Reads the list that starts at `start` (after its `[`) in pieces, in parallel;
/// returns the items and the position after the `]`.
///
/// Pieces start at guessed item starts (a line whose first non-blank character is
/// `(` or the first letter of the item's name), which a comment or a string could fake. The guesses are checked: each
/// piece's reader must arrive exactly at the next piece's start as an item start. By
/// induction from the first piece, which starts at the real list, every piece then
/// read from a true item start in the same state as a sequential reader would, so the
/// result is the sequential one. `None` (any mismatch, or a short list) makes the
/// caller read the list sequentially.
fn par_items<T: Send>(text: &str, start: usize, item: Item<T>) -> Option<(Vec<T>, usize)> {
    let src = text.as_bytes();
    let threads = rayon::current_num_threads();
    let len = src.len() - start;
    if threads < 2 || len < PAR_MIN_BYTES {
        return None;
    }
    let pieces = (4 * threads).min(len / PAR_MIN_PIECE).max(2);
    let mut starts = vec![start];
    for k in 1..pieces {
        let guess = (start + len / pieces * k).max(starts[starts.len() - 1] + 1);
        if let Some(at) = item_line(src, guess, item.name) {
            starts.push(at);
        }
    }
    let runs: Vec<Option<(Vec<T>, Run)>> = starts
        .par_iter()
        .enumerate()
        .map(|(k, &from)| {
            let stop = starts.get(k + 1).copied().unwrap_or(usize::MAX);
            let mut items = Vec::with_capacity((stop.min(src.len()) - from) / 64);
            let run = Cursor { text, src, pos: from }.run(stop, &mut items, item.read)?;
            Some((items, run))
        })
        .collect();
    let mut end = None;
    for (k, run) in runs.iter().enumerate() {
        match (run, starts.get(k + 1)) {
            (Some((_, Run::Stop(at))), Some(next)) if at == next => {}
            (Some((_, Run::End(at))), None) => end = Some(*at),
            _ => return None,
        }
    }
    let total = runs.iter().flatten().map(|(items, _)| items.len()).sum();
    let mut items = Vec::with_capacity(total);
    for (piece, _) in runs.into_iter().flatten() {
        items.extend(piece);
    }
    Some((items, end?))
}

/// The first position at or after `from` that begins a line's first non-blank
/// character when that is `(` or `name` (a list item, by its usual layout), searching
/// at most [`MAX_SYNC_SEARCH`] bytes.
fn item_line(src: &[u8], from: usize, name: u8) -> Option<usize> {
    let end = src.len().min(from.saturating_add(MAX_SYNC_SEARCH));
    let mut at = from;
    while at < end {
        at += src.get(at..end)?.iter().position(|&b| b == b'\n')? + 1;
        while let Some(b' ' | b'\t') = src.get(at) {
            at += 1;
        }
        if src.get(at).is_some_and(|&b| b == b'(' || b == name) {
            return Some(at);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `f32` and `u32` tokens read exactly like ron or not at all.
    #[test]
    fn numbers_read_like_ron_or_fall_back() {
        let f = |text: &str| Cursor { text, src: text.as_bytes(), pos: 0 }.f32().map(f32::to_bits);
        for ok in ["1", "1.", ".5", "-.5", "+1.0", "1e3", "1E-3", "-0.0", "0.1", "1e39", "1e-50", "007"] {
            assert_eq!(f(ok), Some(ok.parse::<f32>().unwrap_or(f32::NAN).to_bits()), "{ok}");
        }
        for falls_back in ["inf", "-inf", "NaN", "1_0", "1f32", "1..2", "e5", "-", ".", "1e", "0x10", "1#"] {
            assert_eq!(f(falls_back), None, "{falls_back}");
        }
        let u = |text: &str| Cursor { text, src: text.as_bytes(), pos: 0 }.u32();
        assert_eq!(u("4294967295"), Some(u32::MAX));
        assert_eq!(u("0012"), Some(12));
        for falls_back in ["4294967296", "+1", "-0", "1.0", "1e3", "0x10", "1_000", "12a", "1u32"] {
            assert_eq!(u(falls_back), None, "{falls_back}");
        }
    }

    /// The list of `n` spheres, each followed by `after`, as text after a `[`.
    fn sphere_list(n: usize, after: &str) -> String {
        let mut text = String::from("[\n");
        for i in 0..n {
            text.push_str(&format!(
                "        (center: ({i}, 0.5, -1e-3), radius: 0.25, material: \"m{}\"),\n",
                i % 7
            ));
            text.push_str(after);
        }
        text.push(']');
        text
    }

    fn read_sequentially(text: &str) -> Option<Vec<SphereFile>> {
        let mut items = Vec::new();
        let run = Cursor { text, src: text.as_bytes(), pos: 1 }.run(usize::MAX, &mut items, SPHERES.read)?;
        matches!(run, Run::End(end) if end == text.len()).then_some(items)
    }

    fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
        rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a thread pool").install(f)
    }

    #[test]
    fn long_lists_are_read_in_pieces_like_in_one() {
        let text = sphere_list(30_000, "");
        let sequential = format!("{:?}", read_sequentially(&text));
        for threads in [2, 3, 8] {
            let pieces = in_pool(threads, || par_items(&text, 1, SPHERES));
            assert!(pieces.as_ref().is_some_and(|(_, end)| *end == text.len()), "{threads} threads");
            assert_eq!(format!("{:?}", pieces.map(|(items, _)| items)), sequential);
        }
        assert!(in_pool(1, || par_items(&text, 1, SPHERES)).is_none(), "one thread reads in one piece");
    }

    #[test]
    fn pieces_that_start_inside_comments_are_noticed() {
        // Most lines that look like items are in comments: most piece starts land there,
        // the piece before does not arrive at them, and the list is read in one piece.
        let decoys = "        /*\n".to_owned()
            + &"        (center: (9, 9, 9), radius: 9, material: \"x\"),\n".repeat(20)
            + "        */\n";
        let text = sphere_list(20_000, &decoys);
        assert!(in_pool(4, || par_items(&text, 1, SPHERES)).is_none());
        // A few decoys: whatever the pieces, what comes back is what one piece reads.
        let text = sphere_list(20_000, "        // (center: (9, 9, 9), radius: 9, material: \"x\"),\n");
        let sequential = format!("{:?}", read_sequentially(&text));
        for threads in [2, 4, 8] {
            if let Some((items, end)) = in_pool(threads, || par_items(&text, 1, SPHERES)) {
                assert_eq!((format!("{:?}", Some(items)), end), (sequential.clone(), text.len()));
            }
        }
    }

    #[test]
    fn item_lines_start_at_an_indented_open_paren() {
        let src = b"[\n  (a),\n  // x\n\tSphere(b),\n";
        assert_eq!(item_line(src, 0, b'S'), Some(4));
        assert_eq!(item_line(src, 5, b'S'), Some(17));
        assert_eq!(item_line(src, 5, b'B'), None);
        assert_eq!(item_line(src, 18, b'S'), None);
    }
}
