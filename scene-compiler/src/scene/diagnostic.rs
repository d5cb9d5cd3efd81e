//! Errors found while loading a scene, and how they print.
//!
//! A [`LoadError`] keeps the source text so it can render every [`Diagnostic`]
//! the way a compiler does (codespan-reporting, ASCII, no colour):
//!
//! ```text
//! error: unknown material `stel`
//!    --> scene.ron:25:50
//!    |
//! 25 |         (center: (4, 1, 0), radius: 1, material: "stel"),
//!    |                                                  ^^^^^^ no material with this name
//!    |
//!    = hint: did you mean `steel`?
//! ```

use std::{fmt, io, ops::Range, path::Path};

use codespan_reporting::{
    diagnostic::{Diagnostic as Report, Label},
    files::SimpleFile,
    term::{self, Chars, Config},
};

/// One problem in a scene file: what is wrong, where, and what to do about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    message: String,
    primary: Option<Primary>,
    secondary: Vec<(Range<usize>, String)>,
    hint: Option<String>,
    note: Option<String>,
}

/// The place a diagnostic points at.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Primary {
    span: Range<usize>,
    line: usize,
    column: usize,
    label: String,
}

impl Diagnostic {
    /// A diagnostic with a message and no location yet.
    pub(crate) fn error(message: impl Into<String>) -> Diagnostic {
        Diagnostic { message: message.into(), primary: None, secondary: Vec::new(), hint: None, note: None }
    }

    /// Points the diagnostic at `span` of `source`, with a label under the caret.
    ///
    /// The span is clamped to the source and to char boundaries, and cut at the end
    /// of its first line so a long value does not print as a block.
    pub(crate) fn at(mut self, source: &str, span: Range<usize>, label: impl Into<String>) -> Diagnostic {
        let span = clamp_span(source, span);
        let (line, column) = line_column(source, span.start);
        self.primary = Some(Primary { span, line, column, label: label.into() });
        self
    }

    /// Adds a secondary label, e.g. where a duplicate was first defined.
    pub(crate) fn also(mut self, source: &str, span: Range<usize>, label: impl Into<String>) -> Diagnostic {
        self.secondary.push((clamp_span(source, span), label.into()));
        self
    }

    /// Adds a `= hint:` line: what the user can do.
    pub(crate) fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
        self
    }

    /// Adds a `= note:` line: background that explains the error.
    pub(crate) fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.note = Some(note.into());
        self
    }

    /// What is wrong, in one line.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The 1-based line of the primary location; `None` for errors not about the text (IO).
    pub fn line(&self) -> Option<usize> {
        self.primary.as_ref().map(|p| p.line)
    }

    /// The 1-based column (in characters) of the primary location.
    pub fn column(&self) -> Option<usize> {
        self.primary.as_ref().map(|p| p.column)
    }

    /// The byte range of the primary location in the source.
    pub fn span(&self) -> Option<Range<usize>> {
        self.primary.as_ref().map(|p| p.span.clone())
    }

    /// The text printed under the caret.
    pub fn label(&self) -> Option<&str> {
        self.primary.as_ref().map(|p| p.label.as_str())
    }

    /// What the user can do about it, if there is a suggestion.
    pub fn hint(&self) -> Option<&str> {
        self.hint.as_deref()
    }

    /// Extra background, if any.
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }

    /// The codespan form of this diagnostic.
    fn report(&self) -> Report<()> {
        let mut labels = Vec::new();
        if let Some(p) = &self.primary {
            labels.push(Label::primary((), p.span.clone()).with_message(&p.label));
        }
        labels.extend(
            self.secondary.iter().map(|(span, text)| Label::secondary((), span.clone()).with_message(text)),
        );
        let notes = [("hint", &self.hint), ("note", &self.note)]
            .into_iter()
            .filter_map(|(kind, text)| text.as_ref().map(|t| format!("{kind}: {t}")))
            .collect();
        Report::error().with_message(&self.message).with_labels(labels).with_notes(notes)
    }
}

/// Why a scene could not be loaded: every diagnostic found, with the text they refer to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    origin: String,
    source: String,
    diagnostics: Vec<Diagnostic>,
}

impl LoadError {
    /// Diagnostics about `source`, shown as coming from `origin`; sorted by position.
    pub(crate) fn new(origin: &str, source: &str, mut diagnostics: Vec<Diagnostic>) -> LoadError {
        diagnostics.sort_by_key(|d| d.span().map(|s| s.start));
        LoadError { origin: origin.to_owned(), source: source.to_owned(), diagnostics }
    }

    /// A file that could not be read.
    pub(crate) fn io(path: &Path, err: &io::Error) -> LoadError {
        let origin = path.display().to_string();
        let diagnostic = Diagnostic::error(format!("cannot read `{origin}`: {err}"));
        LoadError { origin, source: String::new(), diagnostics: vec![diagnostic] }
    }

    /// The file name the diagnostics refer to.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The text the diagnostics' spans index into (empty for IO errors).
    pub fn source_text(&self) -> &str {
        &self.source
    }

    /// Every problem found, in source order; never empty.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = SimpleFile::new(self.origin.as_str(), self.source.as_str());
        let config = Config { chars: Chars::ascii(), ..Config::default() };
        let mut out = String::new();
        for d in &self.diagnostics {
            match term::emit_into_string(&config, &file, &d.report()) {
                Ok(text) => out.push_str(&text),
                // codespan refuses only spans outside the file, which `clamp_span` rules out;
                // still print something useful rather than nothing.
                Err(_) => out.push_str(&plain(&self.origin, d)),
            }
        }
        if self.diagnostics.len() > 1 {
            out.push_str(&format!(
                "error: could not load `{}` due to {} errors\n",
                self.origin,
                self.diagnostics.len()
            ));
        }
        f.write_str(out.trim_end())
    }
}

impl std::error::Error for LoadError {}

/// A one-diagnostic rendering without the source snippet.
fn plain(origin: &str, d: &Diagnostic) -> String {
    let mut out = format!("error: {}\n", d.message);
    if let (Some(line), Some(column)) = (d.line(), d.column()) {
        out.push_str(&format!("  --> {origin}:{line}:{column}\n"));
    }
    for (kind, text) in [("hint", &d.hint), ("note", &d.note)] {
        if let Some(text) = text {
            out.push_str(&format!("  = {kind}: {text}\n"));
        }
    }
    out.push('\n');
    out
}

/// `span` made valid for `source`: in bounds, on char boundaries, within its first line.
fn clamp_span(source: &str, span: Range<usize>) -> Range<usize> {
    let mut start = span.start.min(source.len());
    while !source.is_char_boundary(start) {
        start -= 1;
    }
    let line_end = source[start..].find('\n').map_or(source.len(), |i| start + i);
    let mut end = span.end.clamp(start, line_end);
    while !source.is_char_boundary(end) {
        end += 1;
    }
    start..end
}

/// The 1-based line and character column of byte `offset` (on a char boundary).
pub(crate) fn line_column(source: &str, offset: usize) -> (usize, usize) {
    let before = source.get(..offset).unwrap_or(source);
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    (line, before[line_start..].chars().count() + 1)
}

/// The byte offset of a 1-based line and character column, clamped to the source.
pub(crate) fn offset_of(source: &str, line: usize, column: usize) -> usize {
    let line_start = if line <= 1 {
        0
    } else {
        source.match_indices('\n').nth(line - 2).map_or(source.len(), |(i, _)| i + 1)
    };
    let rest = &source[line_start..];
    let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
    line_start + line.char_indices().nth(column.saturating_sub(1)).map_or(line.len(), |(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "Scene(\n  radius: -1,\n  name: \"é\",\n)";

    #[test]
    fn line_column_and_offset_are_inverse() {
        for offset in SRC.char_indices().map(|(i, _)| i) {
            let (line, column) = line_column(SRC, offset);
            assert_eq!(offset_of(SRC, line, column), offset, "offset {offset} -> {line}:{column}");
        }
        assert_eq!(line_column(SRC, 17), (2, 11));
        assert_eq!(offset_of(SRC, 99, 1), SRC.len());
        assert_eq!(
            offset_of(SRC, 2, 99),
            SRC.find(",\n  name").map_or(0, |i| i + 1),
            "clamped to the line end"
        );
    }

    #[test]
    fn spans_are_clamped_to_the_first_line_and_char_boundaries() {
        let e = SRC.find('é').unwrap_or(0);
        assert_eq!(clamp_span(SRC, e + 1..e + 2), e..e + 2);
        assert_eq!(clamp_span(SRC, 0..SRC.len()), 0..6);
        assert_eq!(clamp_span(SRC, 500..600), SRC.len()..SRC.len());
    }

    #[test]
    fn display_renders_location_caret_and_hint() {
        let d = Diagnostic::error("sphere radius must be positive, found -1")
            .at(SRC, 17..19, "not a positive number")
            .with_hint("a sphere needs a radius > 0");
        assert_eq!((d.line(), d.column()), (Some(2), Some(11)));
        let text = LoadError::new("scene.ron", SRC, vec![d]).to_string();
        assert!(text.starts_with("error: sphere radius must be positive, found -1\n"), "{text}");
        assert!(text.contains("--> scene.ron:2:11"), "{text}");
        assert!(text.contains("2 |   radius: -1,"), "{text}");
        assert!(text.contains("^^ not a positive number"), "{text}");
        assert!(text.contains("= hint: a sphere needs a radius > 0"), "{text}");
        assert!(!text.contains("due to"), "one error needs no summary: {text}");
    }

    #[test]
    fn display_renders_every_diagnostic_in_source_order() {
        let late = Diagnostic::error("second").at(SRC, 29..32, "b");
        let early = Diagnostic::error("first").at(SRC, 17..19, "a");
        let err = LoadError::new("s.ron", SRC, vec![late, early]);
        assert_eq!(err.diagnostics()[0].message(), "first");
        let text = err.to_string();
        let (first, second) = (text.find("error: first"), text.find("error: second"));
        assert!(first.is_some() && first < second, "{text}");
        assert!(text.ends_with("error: could not load `s.ron` due to 2 errors"), "{text}");
    }

    #[test]
    fn io_errors_name_the_path_and_have_no_location() {
        let err = LoadError::io(Path::new("missing.ron"), &io::Error::from(io::ErrorKind::NotFound));
        assert_eq!(err.diagnostics()[0].line(), None);
        assert!(err.to_string().starts_with("error: cannot read `missing.ron`"), "{err}");
    }
}
