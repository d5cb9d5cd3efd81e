//! Where a value sits in the source, by its path (`spheres[3].radius`).
//!
//! ron reports positions for syntax errors only; a deserialized value carries no
//! span. Semantic errors name the path of the value they are about, and this
//! module walks the source once (with [`super::lex`]) to find those paths. The walk
//! runs only when there are errors to report and records only the requested paths
//! and their ancestors, skipping every other subtree by bracket matching, so a
//! large scene with one bad sphere costs one pass over the text.

use std::{
    collections::{HashMap, HashSet},
    fmt,
    ops::Range,
};

use super::lex::{Lexer, Tok, Token};

/// Nesting deeper than any valid scene; past it the walk stops instead of recursing.
const MAX_DEPTH: usize = 64;

/// One step of a [`ValuePath`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Seg {
    /// A named field of a struct or struct variant.
    Field(String),
    /// The n-th element of a list or tuple, or the value of the n-th map entry.
    Index(usize),
    /// The key of the n-th map entry.
    Key(usize),
}

/// A path from the root value to one value of the source.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct ValuePath(Vec<Seg>);

impl ValuePath {
    /// The root value (the whole scene).
    pub fn root() -> ValuePath {
        ValuePath(Vec::new())
    }

    /// This path extended by a field name.
    pub fn field(&self, name: &str) -> ValuePath {
        self.with(Seg::Field(name.to_owned()))
    }

    /// This path extended by a list, tuple or map-entry index.
    pub fn index(&self, i: usize) -> ValuePath {
        self.with(Seg::Index(i))
    }

    /// This path extended to the key of the i-th map entry.
    pub fn key(&self, i: usize) -> ValuePath {
        self.with(Seg::Key(i))
    }

    fn with(&self, seg: Seg) -> ValuePath {
        let mut segs = self.0.clone();
        segs.push(seg);
        ValuePath(segs)
    }

    /// The field name of the last step, if it is a field.
    pub fn last_field(&self) -> Option<&str> {
        match self.0.last() {
            Some(Seg::Field(name)) => Some(name),
            _ => None,
        }
    }
}

impl fmt::Display for ValuePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, seg) in self.0.iter().enumerate() {
            match seg {
                Seg::Field(name) if i == 0 => write!(f, "{name}")?,
                Seg::Field(name) => write!(f, ".{name}")?,
                Seg::Index(n) => write!(f, "[{n}]")?,
                Seg::Key(n) => write!(f, "[key {n}]")?,
            }
        }
        Ok(())
    }
}

/// Where one value was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Found {
    /// The whole value, from its first token to its last.
    pub value: Range<usize>,
    /// The field name in front of it, when it is a struct field.
    pub name: Option<Range<usize>>,
}

/// The located values for a set of requested paths.
pub(crate) struct SpanIndex {
    found: HashMap<Vec<Seg>, Found>,
}

/// How a path was resolved by [`SpanIndex::locate`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Located {
    /// The value itself is written in the source.
    Exact(Range<usize>),
    /// The value is not written (a default applies); this is the nearest written ancestor.
    Ancestor(Range<usize>),
}

impl SpanIndex {
    /// Walks `source` once and records every path in `wanted` (and their ancestors) found there.
    pub fn scan<'p>(source: &str, wanted: impl IntoIterator<Item = &'p ValuePath>) -> SpanIndex {
        let mut prefixes = HashSet::new();
        for path in wanted {
            for len in 0..=path.0.len() {
                prefixes.insert(path.0[..len].to_vec());
            }
        }
        let mut walk =
            Walk { src: source, lex: Lexer::new(source), prefixes, found: HashMap::new(), path: Vec::new() };
        walk.skip_attributes();
        // A walk that stops early (text it does not understand) keeps what it found so far.
        let _ = walk.value(None, 0);
        SpanIndex { found: walk.found }
    }

    /// The value at `path`, or the head of its nearest written ancestor.
    ///
    /// An ancestor's span is its field name when it has one, else its first token,
    /// so that a defaulted field points at one line, not at a whole block.
    pub fn locate(&self, path: &ValuePath) -> Option<Located> {
        if let Some(found) = self.found.get(&path.0) {
            return Some(Located::Exact(found.value.clone()));
        }
        (0..path.0.len()).rev().find_map(|len| {
            let found = self.found.get(&path.0[..len])?;
            Some(Located::Ancestor(found.name.clone().unwrap_or(found.value.start..found.value.start + 1)))
        })
    }
}

/// The state of one walk over the source.
struct Walk<'a> {
    src: &'a str,
    lex: Lexer<'a>,
    prefixes: HashSet<Vec<Seg>>,
    found: HashMap<Vec<Seg>, Found>,
    path: Vec<Seg>,
}

impl Walk<'_> {
    /// Skips `#![enable(...)]` attributes in front of the root value.
    fn skip_attributes(&mut self) {
        while let Some(Token { kind: Tok::Other, span }) = self.lex.peek() {
            if span.len() != 1 {
                return;
            }
            self.lex.next();
            if matches!(self.lex.peek(), Some(Token { kind: Tok::Other, .. })) {
                self.lex.next(); // the `!`
            }
            if matches!(self.lex.peek(), Some(Token { kind: Tok::Open(_), .. })) {
                let _ = self.skip_value();
            }
        }
    }

    /// Reads the value at the current path and returns its span; `None` when the text
    /// is not a value this walk understands, which ends the walk.
    fn value(&mut self, name: Option<Range<usize>>, depth: usize) -> Option<Range<usize>> {
        if !self.prefixes.contains(&self.path) {
            return self.skip_value();
        }
        if depth > MAX_DEPTH {
            return None;
        }
        let first = self.lex.next()?;
        let start = first.span.start;
        let end = match first.kind {
            Tok::Ident if matches!(self.lex.peek(), Some(Token { kind: Tok::Open(b'('), .. })) => {
                self.lex.next();
                self.parens(depth)?
            }
            Tok::Ident | Tok::Str | Tok::Number => first.span.end,
            Tok::Open(b'(') => self.parens(depth)?,
            Tok::Open(b'[') => self.items(b']', depth)?,
            Tok::Open(b'{') => self.entries(depth)?,
            _ => return None,
        };
        self.found.insert(self.path.clone(), Found { value: start..end, name });
        Some(start..end)
    }

    /// The contents of `( ... )` after the `(`: named fields or positional items.
    fn parens(&mut self, depth: usize) -> Option<usize> {
        let mut ahead = self.lex.clone();
        let named = matches!(ahead.next(), Some(Token { kind: Tok::Ident, .. }))
            && matches!(ahead.next(), Some(Token { kind: Tok::Colon, .. }));
        if !named {
            return self.items(b')', depth);
        }
        loop {
            let token = self.lex.next()?;
            match token.kind {
                Tok::Close(b')') => return Some(token.span.end),
                Tok::Ident => {
                    self.expect(Tok::Colon)?;
                    let name =
                        self.src.get(token.span.clone()).unwrap_or("").trim_start_matches("r#").to_owned();
                    self.path.push(Seg::Field(name));
                    let value = self.value(Some(token.span), depth + 1);
                    self.path.pop();
                    value?;
                    self.optional_comma();
                }
                _ => return None,
            }
        }
    }

    /// Positional items up to `close`: a list, a tuple, or a tuple variant's contents.
    fn items(&mut self, close: u8, depth: usize) -> Option<usize> {
        for i in 0.. {
            if let Some(Token { kind: Tok::Close(c), span }) = self.lex.peek() {
                self.lex.next();
                return (c == close).then_some(span.end);
            }
            self.path.push(Seg::Index(i));
            let value = self.value(None, depth + 1);
            self.path.pop();
            value?;
            self.optional_comma();
        }
        None
    }

    /// Map entries `key: value` up to `}`.
    fn entries(&mut self, depth: usize) -> Option<usize> {
        for i in 0.. {
            if let Some(Token { kind: Tok::Close(c), span }) = self.lex.peek() {
                self.lex.next();
                return (c == b'}').then_some(span.end);
            }
            self.path.push(Seg::Key(i));
            let key = self.value(None, depth + 1);
            self.path.pop();
            let key = key?;
            self.expect(Tok::Colon)?;
            self.path.push(Seg::Index(i));
            let value = self.value(Some(key), depth + 1);
            self.path.pop();
            value?;
            self.optional_comma();
        }
        None
    }

    /// Moves over one value without recording anything inside it.
    fn skip_value(&mut self) -> Option<Range<usize>> {
        let first = self.lex.next()?;
        let start = first.span.start;
        let opened = match first.kind {
            Tok::Ident if matches!(self.lex.peek(), Some(Token { kind: Tok::Open(_), .. })) => {
                self.lex.next()?
            }
            Tok::Open(_) => first,
            Tok::Ident | Tok::Str | Tok::Number => return Some(first.span),
            _ => return None,
        };
        // Brackets in the accepted source are balanced; a count suffices.
        let mut open = 1usize;
        let mut end = opened.span.end;
        while open > 0 {
            let token = self.lex.next()?;
            match token.kind {
                Tok::Open(_) => open += 1,
                Tok::Close(_) => open -= 1,
                _ => {}
            }
            end = token.span.end;
        }
        Some(start..end)
    }

    fn expect(&mut self, kind: Tok) -> Option<()> {
        (self.lex.next()?.kind == kind).then_some(())
    }

    fn optional_comma(&mut self) {
        if matches!(self.lex.peek(), Some(Token { kind: Tok::Comma, .. })) {
            self.lex.next();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = r###"#![enable(implicit_some)]
// a comment with ( [ { and "quotes"
Scene(
    camera: Camera(look_from: (1, 2, /* ) */ 3), vfov_deg: 20),
    materials: {
        "a\"b)": Lambert(albedo: (0.5, 0.5, 0.5)),
        r#"raw "(" name"#: Metal(albedo: (1, 1, 1), fuzz: -0.5),
    },
    sky: Constant((1, 2, -inf)),
    spheres: [
        (center: (0, 0, 0), radius: 1, material: "a\"b)"),
        /* (center: (9, 9, 9)), */
        (center: ((0), 0, 0), radius: -2, material: "x"), // trailing
    ],
)"###;

    fn text_at(path: &ValuePath) -> Option<&'static str> {
        match SpanIndex::scan(SRC, [path]).locate(path)? {
            Located::Exact(span) => SRC.get(span),
            Located::Ancestor(_) => None,
        }
    }

    #[test]
    fn finds_fields_items_and_map_entries_by_path() {
        let root = ValuePath::root();
        let spheres = root.field("spheres");
        assert_eq!(text_at(&spheres.index(1).field("radius")), Some("-2"));
        assert_eq!(text_at(&spheres.index(0).field("material")), Some(r#""a\"b)""#));
        assert_eq!(text_at(&spheres.index(1).field("center").index(0)), Some("(0)"));
        assert_eq!(text_at(&root.field("camera").field("look_from").index(2)), Some("3"));
        assert_eq!(text_at(&root.field("sky").index(0).index(2)), Some("-inf"));
        let materials = root.field("materials");
        assert_eq!(text_at(&materials.key(1)), Some(r###"r#"raw "(" name"#"###));
        assert_eq!(text_at(&materials.index(1).field("fuzz")), Some("-0.5"));
        assert_eq!(text_at(&materials.index(0)), Some("Lambert(albedo: (0.5, 0.5, 0.5))"));
    }

    #[test]
    fn whole_compound_values_span_from_first_to_last_token() {
        let camera = text_at(&ValuePath::root().field("camera"));
        assert_eq!(camera, Some("Camera(look_from: (1, 2, /* ) */ 3), vfov_deg: 20)"));
        assert!(text_at(&ValuePath::root()).is_some_and(|s| s.starts_with("Scene(") && s.ends_with(')')));
    }

    #[test]
    fn missing_values_fall_back_to_the_nearest_written_ancestor_name() {
        let up = ValuePath::root().field("camera").field("up");
        let index = SpanIndex::scan(SRC, [&up]);
        let Some(Located::Ancestor(span)) = index.locate(&up) else { panic!("camera.up is not written") };
        assert_eq!(&SRC[span], "camera");
        let third = ValuePath::root().field("spheres").index(2).field("radius");
        let Some(Located::Ancestor(span)) = SpanIndex::scan(SRC, [&third]).locate(&third) else {
            panic!("there is no third sphere")
        };
        assert_eq!(&SRC[span], "spheres", "commented-out spheres do not count");
    }

    #[test]
    fn unrequested_paths_are_not_recorded() {
        let wanted = ValuePath::root().field("spheres").index(1).field("radius");
        let index = SpanIndex::scan(SRC, [&wanted]);
        let other = ValuePath::root().field("spheres").index(0).field("radius");
        assert!(matches!(index.locate(&other), Some(Located::Ancestor(_))));
        assert_eq!(index.found.len(), 4, "only the path and its three ancestors");
    }

    #[test]
    fn garbage_never_panics() {
        let path = ValuePath::root().field("a").index(0);
        for src in
            ["", ")", "(a: ", "(a: [1, 2", "{: }", "(((((", "#![", "(a: [)]", "r#\"", "Scene(a: (1 2))"]
        {
            let _ = SpanIndex::scan(src, [&path]).locate(&path);
        }
        // Unclosed nesting far below the depth limit: the walk gives up without overflowing
        // the stack, and an unfinished value is not recorded.
        let deep = "[".repeat(100_000);
        let deep_path = (0..200).fold(ValuePath::root(), |p, _| p.index(0));
        assert_eq!(SpanIndex::scan(&deep, [&deep_path]).locate(&deep_path), None);
    }

    #[test]
    fn paths_display_like_rust_expressions() {
        let p = ValuePath::root().field("materials").key(2);
        assert_eq!(p.to_string(), "materials[key 2]");
        assert_eq!(
            ValuePath::root().field("spheres").index(3).field("radius").to_string(),
            "spheres[3].radius"
        );
    }
}
