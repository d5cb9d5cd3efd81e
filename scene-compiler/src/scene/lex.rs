//! A forgiving RON tokenizer: just enough to find where values start and end.
//!
//! ron gives no spans for deserialized values and only a cursor position for
//! errors, so [`super::spans`] (value locations) and [`super::syntax`] (better
//! syntax messages) re-read the text with this. It never fails and never panics:
//! unterminated strings and comments run to the end of the text, and a character
//! it does not know becomes a one-character [`Tok::Other`].

use std::ops::Range;

/// What a token is; literals are not decoded, only delimited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    /// `(`, `[` or `{`.
    Open(u8),
    /// `)`, `]` or `}`.
    Close(u8),
    Comma,
    Colon,
    /// An identifier, raw identifier, `true`/`false`, or bare `inf`/`NaN`.
    Ident,
    /// A string, raw string, byte string or char literal.
    Str,
    /// A number, including a leading sign and signed `inf`/`NaN`.
    Number,
    /// Anything else (`#`, `!`, a stray character).
    Other,
}

/// One token and its byte range in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub kind: Tok,
    pub span: Range<usize>,
}

/// Iterates over the tokens of a source text, skipping whitespace and comments.
#[derive(Clone)]
pub(crate) struct Lexer<'a> {
    src: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `src`.
    pub fn new(src: &'a str) -> Lexer<'a> {
        Lexer { src, pos: 0 }
    }

    /// The next token without consuming it.
    pub fn peek(&self) -> Option<Token> {
        self.clone().next()
    }

    fn rest(&self) -> &'a str {
        self.src.get(self.pos..).unwrap_or("")
    }

    fn byte(&self, ahead: usize) -> Option<u8> {
        self.src.as_bytes().get(self.pos + ahead).copied()
    }

    /// Moves past one whole character (delimiters are ASCII, but stray input may not be).
    fn bump_char(&mut self) {
        self.pos += self.rest().chars().next().map_or(1, char::len_utf8);
    }

    /// Moves past the characters that `keep`; ASCII byte by byte, the rest decoded.
    #[inline]
    fn bump_while(&mut self, keep: impl Fn(char) -> bool) {
        let bytes = self.src.as_bytes();
        while let Some(&b) = bytes.get(self.pos) {
            let c = if b.is_ascii() { char::from(b) } else { self.rest().chars().next().unwrap_or('\0') };
            if !keep(c) {
                return;
            }
            self.pos += c.len_utf8();
        }
    }

    /// Skips whitespace and `//` / nested `/* */` comments (ron nests block comments).
    fn skip_trivia(&mut self) {
        loop {
            self.bump_while(char::is_whitespace);
            let rest = self.rest();
            if rest.starts_with("//") {
                self.pos += rest.find('\n').unwrap_or(rest.len());
            } else if rest.starts_with("/*") {
                self.pos += 2;
                let mut level = 1usize;
                while level > 0 && self.pos < self.src.len() {
                    let rest = self.rest();
                    if rest.starts_with("/*") {
                        level += 1;
                        self.pos += 2;
                    } else if rest.starts_with("*/") {
                        level -= 1;
                        self.pos += 2;
                    } else {
                        self.bump_char();
                    }
                }
            } else {
                return;
            }
        }
    }

    /// A quoted string or char body after its opening quote; `\` escapes one character.
    /// By bytes: the quote and `\` are ASCII, which no other character's bytes contain.
    fn quoted(&mut self, quote: char) {
        let bytes = self.src.as_bytes();
        let mut escaped = false;
        while let Some(&b) = bytes.get(self.pos) {
            self.pos += 1;
            if escaped {
                // A whole escaped character: skip its continuation bytes too.
                escaped = false;
                while !self.src.is_char_boundary(self.pos) {
                    self.pos += 1;
                }
            } else if b == b'\\' {
                escaped = true;
            } else if char::from(b) == quote {
                return;
            }
        }
    }

    /// A raw string from its `#`s on: `#"..."#` with as many `#` on each side.
    fn raw_string(&mut self) {
        let hashes = self.rest().bytes().take_while(|&b| b == b'#').count();
        self.pos += hashes + 1; // the hashes and the opening quote
        let closing = format!("\"{}", "#".repeat(hashes));
        let rest = self.rest();
        self.pos += rest.find(&closing).map_or(rest.len(), |at| at + closing.len());
    }

    /// A number after its first character, which was a digit, `.` or sign.
    fn number_tail(&mut self) {
        // Whether the number so far has an `x` (then `e` is a hex digit, not an exponent);
        // its first character, already consumed, is never one.
        let mut hex = false;
        let bytes = self.src.as_bytes();
        while let Some(&b) = bytes.get(self.pos) {
            let c = if b.is_ascii() { char::from(b) } else { self.rest().chars().next().unwrap_or('\0') };
            let prev = bytes.get(self.pos.wrapping_sub(1)).copied();
            let exponent_sign = matches!(c, '+' | '-') && matches!(prev, Some(b'e' | b'E')) && !hex;
            if !(c.is_alphanumeric() || c == '_' || c == '.' || exponent_sign) {
                return;
            }
            hex |= matches!(c, 'x' | 'X');
            self.pos += c.len_utf8();
        }
    }

    fn is_ident_start(c: char) -> bool {
        c.is_alphabetic() || c == '_'
    }

    fn is_ident_continue(c: char) -> bool {
        c.is_alphanumeric() || c == '_'
    }
}

impl Iterator for Lexer<'_> {
    type Item = Token;

    fn next(&mut self) -> Option<Token> {
        self.skip_trivia();
        let start = self.pos;
        let c = self.rest().chars().next()?;
        let next = self.byte(1);
        let kind = match c {
            '(' | '[' | '{' => {
                self.pos += 1;
                Tok::Open(c as u8)
            }
            ')' | ']' | '}' => {
                self.pos += 1;
                Tok::Close(c as u8)
            }
            ',' => {
                self.pos += 1;
                Tok::Comma
            }
            ':' => {
                self.pos += 1;
                Tok::Colon
            }
            '"' | '\'' => {
                self.pos += 1;
                self.quoted(c);
                Tok::Str
            }
            'b' if matches!(next, Some(b'"' | b'\'')) => {
                let quote = if next == Some(b'"') { '"' } else { '\'' };
                self.pos += 2;
                self.quoted(quote);
                Tok::Str
            }
            'r' if matches!(next, Some(b'"' | b'#'))
                && self.rest()[1..].trim_start_matches('#').starts_with('"') =>
            {
                self.pos += 1;
                self.raw_string();
                Tok::Str
            }
            'b' if next == Some(b'r') && self.rest()[2..].trim_start_matches('#').starts_with('"') => {
                self.pos += 2;
                self.raw_string();
                Tok::Str
            }
            'r' if next == Some(b'#') => {
                // A raw identifier `r#name`.
                self.pos += 2;
                self.bump_while(|c| Lexer::is_ident_continue(c) || matches!(c, '.' | '+' | '-'));
                Tok::Ident
            }
            '0'..='9' | '.' => {
                self.pos += 1;
                self.number_tail();
                Tok::Number
            }
            '+' | '-' => {
                self.pos += 1;
                let rest = self.rest();
                if rest.starts_with("inf") || rest.starts_with("NaN") {
                    self.bump_while(Lexer::is_ident_continue);
                    Tok::Number
                } else if rest.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
                    self.number_tail();
                    Tok::Number
                } else {
                    Tok::Other
                }
            }
            c if Lexer::is_ident_start(c) => {
                self.bump_while(Lexer::is_ident_continue);
                Tok::Ident
            }
            _ => {
                self.bump_char();
                Tok::Other
            }
        };
        Some(Token { kind, span: start..self.pos })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds_and_text(src: &str) -> Vec<(Tok, &str)> {
        Lexer::new(src).map(|t| (t.kind, &src[t.span])).collect()
    }

    #[test]
    fn splits_punctuation_idents_and_numbers() {
        let got = kinds_and_text("Scene(a: (1, -2.5e-3, +inf), b: [x], c: {\"k\": -NaN})");
        let texts: Vec<&str> = got.iter().map(|(_, t)| *t).collect();
        assert_eq!(
            texts,
            [
                "Scene", "(", "a", ":", "(", "1", ",", "-2.5e-3", ",", "+inf", ")", ",", "b", ":", "[", "x",
                "]", ",", "c", ":", "{", "\"k\"", ":", "-NaN", "}", ")"
            ]
        );
        assert_eq!(got[7].0, Tok::Number);
        assert_eq!(got[9].0, Tok::Number);
        assert_eq!(got[0].0, Tok::Ident);
        assert_eq!(got[21].0, Tok::Str);
    }

    #[test]
    fn skips_line_and_nested_block_comments() {
        let got = kinds_and_text("a // one ) \n /* two /* nested ) */ still ) */ b");
        assert_eq!(got, [(Tok::Ident, "a"), (Tok::Ident, "b")]);
    }

    #[test]
    fn strings_keep_escaped_quotes_and_brackets() {
        let src = r###"("a\"b)", r"c\", r##"d"#)"##, b"e", 'f', '\'', x)"###;
        let texts: Vec<&str> =
            kinds_and_text(src).into_iter().filter(|(k, _)| *k == Tok::Str).map(|(_, t)| t).collect();
        assert_eq!(texts, [r#""a\"b)""#, r#"r"c\""#, r###"r##"d"#)"##"###, r#"b"e""#, "'f'", r"'\''"]);
        assert_eq!(kinds_and_text(src).last(), Some(&(Tok::Close(b')'), ")")));
    }

    #[test]
    fn raw_identifiers_and_hex_numbers() {
        let got = kinds_and_text("r#type: 0x1e-3");
        assert_eq!(
            got,
            [(Tok::Ident, "r#type"), (Tok::Colon, ":"), (Tok::Number, "0x1e"), (Tok::Number, "-3")]
        );
    }

    #[test]
    fn unterminated_input_runs_to_the_end_without_panicking() {
        for src in ["\"abc", "/* open", "r#\"raw", "'", "b", "r", "é(", "-", "1e", "\u{feff}x"] {
            let tokens: Vec<Token> = Lexer::new(src).collect();
            assert!(
                tokens.iter().all(|t| t.span.end <= src.len() && src.get(t.span.clone()).is_some()),
                "{src:?}"
            );
        }
    }
}
