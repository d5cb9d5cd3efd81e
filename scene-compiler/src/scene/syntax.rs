//! Turns ron's syntax and type errors into diagnostics a user can act on.
//!
//! ron stops at the first error and reports a cursor position with a terse
//! message. This module rewrites the message for a person editing a scene, and
//! re-reads the text around the position (with [`super::lex`]) where ron's
//! position is misleading: a missing `,` at the end of a line is reported by ron
//! at the start of the next line, so it is moved back to where the comma belongs.

use std::ops::Range;

use ron::error::{Error, SpannedError};

use super::{
    diagnostic::{Diagnostic, offset_of},
    lex::{Lexer, Tok, Token},
    model::Scene,
    reflect,
    suggest::{did_you_mean, one_of},
};

/// How many accepted names a hint lists before it says "and N more".
const MAX_LISTED: usize = 12;

/// The diagnostic for a ron error in `source`.
pub(crate) fn diagnose(source: &str, err: &SpannedError) -> Diagnostic {
    let start = offset_of(source, err.span.start.line, err.span.start.col);
    let end = offset_of(source, err.span.end.line, err.span.end.col).max(start);
    let ctx = Context::at(source, start);
    if ctx.prev.is_none() && ctx.at.is_none() {
        return Diagnostic::error("the scene file is empty")
            .at(source, 0..0, "expected `Scene(...)`")
            .with_hint("a scene file holds one `Scene(camera: ..., materials: ..., spheres: ...)`");
    }
    let found = ctx.at.as_ref().map(|t| excerpt(source, &t.span));
    let found_label =
        || found.as_ref().map_or("found the end of the file".to_owned(), |f| format!("found {f}"));
    // ron's span may start with the whitespace before the offending token, be empty, or
    // start after a number's sign: then the token there is the better place to point at.
    let text = &source[start..end];
    let trimmed = start + (text.len() - text.trim_start().len());
    let span = match &ctx.at {
        Some(t) if t.kind == Tok::Number && t.span.start < start => t.span.clone(),
        _ if trimmed < end => trimmed..end,
        at => at.as_ref().map_or(start..start, |t| t.span.clone()),
    };

    match &err.code {
        Error::ExpectedComma
        | Error::ExpectedStructLikeEnd
        | Error::ExpectedArrayEnd
        | Error::ExpectedMapEnd
        | Error::ExpectedOptionEnd => separator(source, &err.code, &ctx, start),
        Error::Eof => end_of_file(source),
        Error::NoSuchStructField { expected, found, outer } => {
            let outer = outer.as_deref().unwrap_or("this item");
            let mut d = Diagnostic::error(format!("unknown field `{found}` in {outer}"))
                .at(source, span, "unknown field")
                .with_hint(names_hint(found, expected));
            // The scene's own fields, from serde: a field that ended up inside another item.
            let (scene, scene_fields) = reflect::record::<Scene>();
            if scene_fields.contains(&found.as_str()) && outer != scene {
                d = d.with_note(format!("`{found}` is a field of the scene: is a `)` missing before it?"));
            }
            d
        }
        Error::NoSuchEnumVariant { expected, found, outer } => {
            let kind =
                outer.as_deref().map_or("variant".to_owned(), |o| format!("{} kind", o.to_lowercase()));
            Diagnostic::error(format!("unknown {kind} `{found}`"))
                .at(source, span, format!("not a {kind}"))
                .with_hint(names_hint(found, expected))
        }
        Error::MissingStructField { field, outer } => {
            let outer = outer.as_deref().unwrap_or("this item");
            Diagnostic::error(format!("missing field `{field}` in {outer}"))
                .at(source, span, format!("{outer} ends here without `{field}`"))
                .with_hint(format!("add `{field}: ...`"))
        }
        Error::DuplicateStructField { field, outer } => {
            let outer = outer.as_deref().unwrap_or("this item");
            Diagnostic::error(format!("field `{field}` is written twice in {outer}"))
                .at(source, span, "written again here")
                .with_hint("remove one of them")
        }
        Error::ExpectedDifferentStructName { expected, found } => {
            Diagnostic::error(format!("expected {expected}, found `{found}`"))
                .at(source, span, format!("expected `{expected}`"))
                .with_hint(format!("the name in front of `(` is optional: write `{expected}(` or just `(`"))
        }
        Error::ExpectedDifferentLength { expected, found } if expected.contains("length 3") => {
            // ron stops at the `)`; the whole tuple, from its `(`, reads better.
            let tuple = match (ctx.open.last(), &ctx.at) {
                (Some(open), Some(close)) => open.span.start..close.span.end,
                _ => span,
            };
            Diagnostic::error(format!("expected 3 numbers `(x, y, z)`, found {found}")).at(
                source,
                tuple,
                "this vector is not 3 numbers",
            )
        }
        // Before anything is open, the file itself is not a `Scene(...)`: say that, not
        // what a value inside a scene should look like.
        Error::ExpectedNamedStructLike(_) if ctx.open.is_empty() => {
            Diagnostic::error("this is not a scene file: a scene starts with `Scene(`")
                .at(source, span, found_label())
                .with_hint("a scene file holds one `Scene(camera: ..., materials: ..., spheres: ...)`")
        }
        Error::ExpectedStructLike | Error::ExpectedNamedStructLike(_) => {
            let d = Diagnostic::error("expected `(`").at(source, span, found_label());
            // ron says `ExpectedStructLike` without a name only for a tuple: in a scene,
            // that is a vector.
            let vector_expected = matches!(err.code, Error::ExpectedStructLike);
            if vector_expected && ctx.at.as_ref().is_some_and(|t| t.kind == Tok::Open(b'[')) {
                d.with_hint("vectors are written `(x, y, z)`, not `[x, y, z]`")
            } else {
                d
            }
        }
        Error::ExpectedFloat => Diagnostic::error("expected a number").at(source, span, found_label()),
        Error::ExpectedInteger | Error::InvalidIntegerDigit { .. } => whole_number(source, &ctx)
            .unwrap_or_else(|| Diagnostic::error("expected a whole number").at(source, span, found_label())),
        Error::IntegerOutOfBounds => Diagnostic::error("number out of range for this field")
            .at(source, span, "too large or negative")
            .with_hint(format!("counts and sizes are whole numbers from 0 to {}", u32::MAX)),
        Error::ExpectedString => {
            let d = Diagnostic::error("expected a string in double quotes").at(source, span, found_label());
            match &ctx.at {
                Some(t) if t.kind == Tok::Ident => {
                    d.with_hint(format!("write `\"{}\"`", &source[t.span.clone()]))
                }
                _ => d,
            }
        }
        Error::ExpectedStringEnd => Diagnostic::error("unterminated string")
            .at(source, span, "this string is never closed")
            .with_hint("add the closing `\"`"),
        Error::InvalidEscape(why) => {
            Diagnostic::error(format!("invalid escape in string: {}", lower_first(why)))
                // ron's span runs from the string's start to just past the bad escape.
                .at(
                    source,
                    source[..end].rfind('\\').filter(|&i| i >= start).map_or(span, |i| i..end),
                    "invalid escape",
                )
                .with_hint(r#"the escapes are `\\`, `\"`, `\n`, `\r`, `\t`, `\0` and `\u{...}`"#)
        }
        Error::ExpectedArray => Diagnostic::error("expected a list `[...]`").at(source, span, found_label()),
        Error::ExpectedMap => {
            Diagnostic::error("expected a map `{ \"name\": ... }`").at(source, span, found_label())
        }
        Error::ExpectedMapColon => {
            Diagnostic::error("expected `:` after the key").at(source, span, found_label())
        }
        Error::UnclosedBlockComment => Diagnostic::error("unclosed block comment")
            .at(source, span, "this `/*` is never closed")
            .with_hint("add `*/`"),
        Error::TrailingCharacters => Diagnostic::error("unexpected text after the end of the scene")
            .at(source, span, "nothing may follow the scene")
            .with_hint("a scene file holds exactly one `Scene(...)`"),
        Error::UnexpectedChar(c) => {
            Diagnostic::error(format!("unexpected character `{c}`")).at(source, span, "not valid here")
        }
        other => Diagnostic::error(lower_first(&other.to_string())).at(source, span, "here"),
    }
}

/// What surrounds the byte offset where ron stopped.
struct Context {
    /// The last token that ends at or before the offset.
    prev: Option<Token>,
    /// The token that starts at, or straddles, the offset.
    at: Option<Token>,
    /// Brackets opened before the offset and not yet closed, innermost last.
    open: Vec<Token>,
}

impl Context {
    fn at(source: &str, offset: usize) -> Context {
        let mut ctx = Context { prev: None, at: None, open: Vec::new() };
        for token in Lexer::new(source) {
            if token.span.end > offset {
                ctx.at = Some(token);
                break;
            }
            match token.kind {
                Tok::Open(_) => ctx.open.push(token.clone()),
                Tok::Close(_) => {
                    ctx.open.pop();
                }
                _ => {}
            }
            ctx.prev = Some(token);
        }
        ctx
    }

    /// The closing bracket the innermost open bracket needs.
    fn expected_close(&self, source: &str) -> Option<char> {
        let open = self.open.last()?;
        match source.as_bytes().get(open.span.start)? {
            b'(' => Some(')'),
            b'[' => Some(']'),
            b'{' => Some('}'),
            _ => None,
        }
    }
}

/// A `,` or a closing bracket was expected.
fn separator(source: &str, code: &Error, ctx: &Context, offset: usize) -> Diagnostic {
    let close = ctx.expected_close(source).unwrap_or(')');
    let (Some(prev), Some(at)) = (&ctx.prev, &ctx.at) else {
        return Diagnostic::error(format!("expected `,` or `{close}`")).at(source, offset..offset, "here");
    };
    let ends_value = matches!(prev.kind, Tok::Ident | Tok::Str | Tok::Number | Tok::Close(_));
    let starts_value = matches!(at.kind, Tok::Ident | Tok::Str | Tok::Number | Tok::Open(_));
    let on_later_line = source.get(prev.span.end..at.span.start).is_some_and(|gap| gap.contains('\n'));
    if ends_value && starts_value && on_later_line {
        let last_char = source[..prev.span.end].char_indices().last().map_or(0, |(i, _)| i);
        return Diagnostic::error("missing `,`")
            .at(source, last_char..prev.span.end, "missing `,` after this")
            .with_hint("fields and items are separated by commas");
    }
    if at.span.start < offset && at.kind == Tok::Number {
        // ron stops inside `1.5` when it wanted a whole number: it read `1` and expected a comma.
        return Diagnostic::error("expected a whole number")
            .at(source, at.span.clone(), format!("found {}", excerpt(source, &at.span)))
            .with_hint("this field counts something: write it without a decimal point or exponent");
    }
    if let Tok::Close(found) = at.kind
        && found as char != close
        && let Some(open) = ctx.open.last()
    {
        return Diagnostic::error(format!("expected `{close}`, found `{}`", found as char))
            .at(source, at.span.clone(), format!("expected `{close}` here"))
            .also(source, open.span.clone(), format!("to close this `{}`", opener(close)));
    }
    let is_end_code = !matches!(code, Error::ExpectedComma);
    if is_end_code && prev.kind == Tok::Comma {
        let d = Diagnostic::error(format!("expected `{close}`")).at(
            source,
            at.span.clone(),
            format!("expected `{close}` here"),
        );
        return if close == ')' { d.with_hint("too many values: a vector is `(x, y, z)`") } else { d };
    }
    Diagnostic::error(format!("expected `,` or `{close}`")).at(
        source,
        at.span.clone(),
        format!("expected `,` or `{close}` before this"),
    )
}

/// The text ended inside an open bracket: point after the last token, and at the
/// innermost bracket still open there.
fn end_of_file(source: &str) -> Diagnostic {
    let ctx = Context::at(source, source.len());
    let end = ctx.prev.as_ref().map_or(source.len(), |t| t.span.end);
    let d = Diagnostic::error("unexpected end of file").at(source, end..end, "the file ends here");
    match (ctx.open.last(), ctx.expected_close(source)) {
        (Some(open), Some(close)) => d
            .also(source, open.span.clone(), format!("this `{}` is never closed", opener(close)))
            .with_hint(format!("add the missing `{close}`")),
        _ => d,
    }
}

/// A decimal number where a whole number belongs, if that is what the token is.
fn whole_number(source: &str, ctx: &Context) -> Option<Diagnostic> {
    let token = ctx.at.as_ref().filter(|t| t.kind == Tok::Number)?;
    let text = &source[token.span.clone()];
    text.contains(['.', 'e', 'E']).then(|| {
        Diagnostic::error("expected a whole number")
            .at(source, token.span.clone(), format!("found `{text}`"))
            .with_hint("this field counts something: write it without a decimal point or exponent")
    })
}

/// "did you mean" (when close) and the list of accepted names.
fn names_hint(found: &str, expected: &[&str]) -> String {
    let accepted = format!("expected {}", one_of(expected.iter().copied(), MAX_LISTED));
    match did_you_mean(found, expected.iter().copied()) {
        Some(near) => format!("did you mean `{near}`? {accepted}"),
        None => accepted,
    }
}

/// The opening bracket for a closing one.
fn opener(close: char) -> char {
    match close {
        ']' => '[',
        '}' => '{',
        _ => '(',
    }
}

/// A short quote of the source for a label: `` `text` `` cut at 30 characters.
fn excerpt(source: &str, span: &Range<usize>) -> String {
    let text = source.get(span.clone()).unwrap_or("");
    let short: String = text.chars().take(30).collect();
    if short.len() < text.len() { format!("`{short}...`") } else { format!("`{short}`") }
}

fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_lowercase().chain(chars).collect()).unwrap_or_default()
}
