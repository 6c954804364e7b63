//! LSP positions ⇄ UTF-8 byte offsets, over a [`Rope`] or a `&str`.
//!
//! The one place that knows what a `character` counts. LSP 3.17, "Position":
//!
//! > Position in a text document expressed as zero-based line and zero-based
//! > character offset. A position is between two characters like an 'insert'
//! > cursor in an editor. [...] The meaning of character offsets is determined
//! > by the negotiated `PositionEncodingKind`.
//!
//! > To ensure that both client and server split the string into the same line
//! > representation the protocol specifies the following end-of-line
//! > sequences: '\n', '\r\n' and '\r'.
//!
//! > If the character value is greater than the line length it defaults back
//! > to the line length.
//!
//! A line past the end of the document clamps to the end of the document
//! (the spec is silent; this is what VS Code and Neovim do), and a
//! character inside a multi-unit character (half a surrogate pair, the
//! middle of a UTF-8 sequence) moves back to the start of that character.
//!
//! Ropey with the `cr_lines` feature splits lines exactly as the spec says;
//! [`LineStarts`] does the same for a `&str`.

use ropey::Rope;

/// A negotiated position encoding. The derived order is the server's
/// preference: UTF-8 (our native offsets) first, then UTF-32, then UTF-16
/// (the mandatory default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PositionEncoding {
    /// Characters count UTF-8 bytes.
    Utf8,
    /// Characters count Unicode scalar values.
    Utf32,
    /// Characters count UTF-16 code units (the LSP default).
    #[default]
    Utf16,
}

impl PositionEncoding {
    /// The LSP name (`utf-8`, `utf-16`, `utf-32`).
    pub fn name(self) -> &'static str {
        match self {
            PositionEncoding::Utf8 => "utf-8",
            PositionEncoding::Utf16 => "utf-16",
            PositionEncoding::Utf32 => "utf-32",
        }
    }

    /// Parses an LSP name; unknown names give `None`.
    pub fn from_name(name: &str) -> Option<PositionEncoding> {
        match name {
            "utf-8" => Some(PositionEncoding::Utf8),
            "utf-16" => Some(PositionEncoding::Utf16),
            "utf-32" => Some(PositionEncoding::Utf32),
            _ => None,
        }
    }

    /// Picks the preferred encoding among what the client offers; UTF-16
    /// when it offers nothing we know (LSP 3.17: "If omitted it defaults to
    /// ['utf-16']").
    pub fn negotiate<'a>(offered: impl IntoIterator<Item = &'a str>) -> PositionEncoding {
        offered
            .into_iter()
            .filter_map(PositionEncoding::from_name)
            .min()
            .unwrap_or_default()
    }

    /// How many units of this encoding `c` takes.
    pub fn units(self, c: char) -> usize {
        match self {
            PositionEncoding::Utf8 => c.len_utf8(),
            PositionEncoding::Utf16 => c.len_utf16(),
            PositionEncoding::Utf32 => 1,
        }
    }

    /// Units of `text` in this encoding.
    pub fn len_of(self, text: &str) -> usize {
        match self {
            PositionEncoding::Utf8 => text.len(),
            _ => text.chars().map(|c| self.units(c)).sum(),
        }
    }
}

/// A protocol-neutral LSP position: 0-based line and character (in the
/// negotiated encoding's units).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LineCol {
    /// 0-based line.
    pub line: u32,
    /// 0-based offset in the line, in encoding units.
    pub character: u32,
}

impl LineCol {
    /// A position.
    pub fn new(line: u32, character: u32) -> LineCol {
        LineCol { line, character }
    }
}

/// Byte length of the line's content, without its terminator.
fn content_len(line: &str) -> usize {
    let line = line.strip_suffix('\n').unwrap_or(line);
    line.strip_suffix('\r').unwrap_or(line).len()
}

/// Walks `chars` until `character` units are consumed; returns the bytes
/// walked. Stops before a character that would overshoot (clamping to its
/// start) and at the end of the content.
fn bytes_for_units(
    chars: impl Iterator<Item = char>,
    character: u32,
    enc: PositionEncoding,
) -> usize {
    let mut units = 0usize;
    let mut bytes = 0usize;
    let want = character as usize;
    for c in chars {
        if c == '\n' || c == '\r' {
            break;
        }
        let next = units + enc.units(c);
        if next > want {
            break;
        }
        units = next;
        bytes += c.len_utf8();
    }
    bytes
}

/// Byte offset of `pos` in `rope`, clamped as the spec says.
pub fn rope_offset(rope: &Rope, pos: LineCol, enc: PositionEncoding) -> usize {
    let line = pos.line as usize;
    if line >= rope.len_lines() {
        return rope.len_bytes();
    }
    let start = rope.line_to_byte(line);
    start + bytes_for_units(rope.line(line).chars(), pos.character, enc)
}

/// The position of byte `offset` in `rope` (clamped to the end; an offset
/// inside a character counts from that character's start), as
/// [`LineStarts::position`] gives it, in O(log n).
pub fn rope_position(rope: &Rope, offset: usize, enc: PositionEncoding) -> LineCol {
    let offset = offset.min(rope.len_bytes());
    let line = rope.byte_to_line(offset);
    let start = rope.line_to_byte(line);
    let char_start = rope.line_to_char(line);
    let char_end = rope.byte_to_char(offset);
    let character = match enc {
        PositionEncoding::Utf8 => rope.char_to_byte(char_end) - start,
        PositionEncoding::Utf32 => char_end - char_start,
        PositionEncoding::Utf16 => {
            rope.char_to_utf16_cu(char_end) - rope.char_to_utf16_cu(char_start)
        }
    };
    LineCol::new(line as u32, character as u32)
}

/// Where each line of a `&str` starts, splitting at `\n`, `\r\n` and `\r`
/// like the spec (and ropey with `cr_lines`). Build once per text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineStarts {
    starts: Vec<usize>,
}

impl LineStarts {
    /// Indexes `text`. A text ending in a line break has an empty last line,
    /// as in LSP (a cursor can sit there).
    pub fn new(text: &str) -> LineStarts {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        let mut i = 0;
        while let Some(found) = memchr::memchr2(b'\n', b'\r', &bytes[i..]) {
            let at = i + found;
            let next = if bytes[at] == b'\r' && bytes.get(at + 1) == Some(&b'\n') {
                at + 2
            } else {
                at + 1
            };
            starts.push(next);
            i = next;
        }
        LineStarts { starts }
    }

    /// Number of lines (at least 1).
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// Never empty: an empty text has one empty line.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Byte offset where 0-based `line` starts (`None` past the end).
    pub fn start(&self, line: usize) -> Option<usize> {
        self.starts.get(line).copied()
    }

    /// Byte offset of `pos` in `text`, clamped as the spec says.
    pub fn offset(&self, text: &str, pos: LineCol, enc: PositionEncoding) -> usize {
        let Some(start) = self.start(pos.line as usize) else {
            return text.len();
        };
        start + bytes_for_units(text[start..].chars(), pos.character, enc)
    }

    /// The position of byte `offset` in `text` (clamped to the end, moved
    /// back to a character boundary).
    pub fn position(&self, text: &str, offset: usize, enc: PositionEncoding) -> LineCol {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.starts[line];
        LineCol::new(line as u32, enc.len_of(&text[start..offset]) as u32)
    }

    /// The position at the end of 0-based `line`'s content (before its
    /// terminator); the end of the text past the last line.
    pub fn line_end(&self, text: &str, line: usize, enc: PositionEncoding) -> LineCol {
        let Some(start) = self.start(line) else {
            return self.position(text, text.len(), enc);
        };
        let end = self.start(line + 1).unwrap_or(text.len());
        let len = content_len(&text[start..end]);
        LineCol::new(line as u32, enc.len_of(&text[start..start + len]) as u32)
    }
}

/// Positions of ascending offsets in one text, found by walking forward
/// from the previous one: a plan's edits are sorted, so converting them
/// reads the text once, up to the last edit, without indexing every line
/// of a large document first (as [`LineStarts`] does).
pub struct ForwardPositions<'t> {
    text: &'t str,
    /// 0-based line of `line_start`.
    line: usize,
    /// Where the line holding the last offset asked starts.
    line_start: usize,
}

impl<'t> ForwardPositions<'t> {
    /// A walk from the text's start.
    pub fn new(text: &'t str) -> ForwardPositions<'t> {
        ForwardPositions {
            text,
            line: 0,
            line_start: 0,
        }
    }

    /// The position of byte `offset` (clamped to the end, moved back to a
    /// character boundary), as [`LineStarts::position`] gives it. An offset
    /// before the previous one starts the walk again.
    pub fn position(&mut self, offset: usize, enc: PositionEncoding) -> LineCol {
        let text = self.text;
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        if offset < self.line_start {
            (self.line, self.line_start) = (0, 0);
        }
        let bytes = text.as_bytes();
        let mut at = self.line_start;
        let walked = &bytes[at..offset];
        if memchr::memchr(b'\r', walked).is_none() {
            // Only `\n` breaks (the common case): counted, not visited one
            // by one.
            let breaks = crate::text::lines::newlines(walked);
            if let Some(last) = memchr::memrchr(b'\n', walked) {
                self.line += breaks;
                self.line_start = at + last + 1;
            }
            return LineCol::new(
                self.line as u32,
                enc.len_of(&text[self.line_start..offset]) as u32,
            );
        }
        // Every line start at or before `offset` is counted: a lone `\r`
        // right before it ends a line, a `\r\n` around it does not.
        while let Some(found) = memchr::memchr2(b'\n', b'\r', &bytes[at..offset]) {
            let at_break = at + found;
            let next = if bytes[at_break] == b'\r' && bytes.get(at_break + 1) == Some(&b'\n') {
                at_break + 2
            } else {
                at_break + 1
            };
            if next > offset {
                break;
            }
            self.line += 1;
            self.line_start = next;
            at = next;
        }
        LineCol::new(
            self.line as u32,
            enc.len_of(&text[self.line_start..offset]) as u32,
        )
    }
}

/// Byte offset of `pos` in `text` (builds a [`LineStarts`]; use one
/// directly for many conversions).
pub fn str_offset(text: &str, pos: LineCol, enc: PositionEncoding) -> usize {
    LineStarts::new(text).offset(text, pos, enc)
}

/// The position of byte `offset` in `text`.
pub fn str_position(text: &str, offset: usize, enc: PositionEncoding) -> LineCol {
    LineStarts::new(text).position(text, offset, enc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use PositionEncoding::*;

    const TEXT: &str = "a😀b\r\n中文x\rlast\n";

    #[test]
    fn negotiates_by_preference() {
        assert_eq!(PositionEncoding::negotiate(["utf-16", "utf-32"]), Utf32);
        assert_eq!(
            PositionEncoding::negotiate(["utf-16", "utf-8", "utf-32"]),
            Utf8
        );
        assert_eq!(PositionEncoding::negotiate(["latin-1"]), Utf16);
        assert_eq!(PositionEncoding::negotiate([]), Utf16);
    }

    #[test]
    fn converts_each_encoding_both_ways() {
        let rope = Rope::from_str(TEXT);
        let lines = LineStarts::new(TEXT);
        // Byte 5 is after the emoji: 1 + 4 bytes.
        for (enc, col) in [(Utf8, 5), (Utf16, 3), (Utf32, 2)] {
            let pos = LineCol::new(0, col);
            assert_eq!(rope_offset(&rope, pos, enc), 5, "{enc:?}");
            assert_eq!(lines.offset(TEXT, pos, enc), 5, "{enc:?}");
            assert_eq!(rope_position(&rope, 5, enc), pos, "{enc:?}");
            assert_eq!(lines.position(TEXT, 5, enc), pos, "{enc:?}");
        }
        // "中文" on line 1 (after CRLF at 6..8): byte 8 + 6 = 14.
        for (enc, col) in [(Utf8, 6), (Utf16, 2), (Utf32, 2)] {
            let pos = LineCol::new(1, col);
            assert_eq!(rope_offset(&rope, pos, enc), 14);
            assert_eq!(lines.offset(TEXT, pos, enc), 14);
            assert_eq!(rope_position(&rope, 14, enc), pos);
            assert_eq!(lines.position(TEXT, 14, enc), pos);
        }
        // A lone CR ends line 1; "last" is line 2.
        assert_eq!(rope_offset(&rope, LineCol::new(2, 0), Utf16), 16);
        assert_eq!(lines.offset(TEXT, LineCol::new(2, 0), Utf16), 16);
    }

    #[test]
    fn forward_positions_agree_with_the_line_index() {
        let texts = [TEXT, "", "\r\n\r\n", "a\rb\r\n\nc", "x\r", "é\n😀\r\nz"];
        for text in texts {
            let lines = LineStarts::new(text);
            let rope = Rope::from_str(text);
            for enc in [Utf8, Utf16, Utf32] {
                // Ascending offsets (one walk) and each offset alone; the
                // rope's index, each offset alone.
                let mut walk = ForwardPositions::new(text);
                for offset in 0..=text.len() + 1 {
                    let want = lines.position(text, offset, enc);
                    assert_eq!(walk.position(offset, enc), want, "{text:?} {offset}");
                    assert_eq!(ForwardPositions::new(text).position(offset, enc), want);
                    assert_eq!(rope_position(&rope, offset, enc), want, "{text:?} {offset}");
                }
                // Going back starts again.
                assert_eq!(walk.position(0, enc), LineCol::new(0, 0));
            }
        }
    }

    #[test]
    fn rope_positions_agree_with_the_line_index_on_random_texts() {
        let mut rng = crate::test_rng::Rng::new(5);
        let pieces = [
            "a", "bc ", "\n", "\r", "\r\n", "é", "中", "😀", "\u{2028}", "\u{85}",
        ];
        for round in 0..40 {
            // Long enough for ropes of several chunks (CRLFs at their edges).
            let len = if round % 4 == 0 { 6000 } else { rng.below(120) };
            let text: String = (0..len).map(|_| pieces[rng.below(pieces.len())]).collect();
            let lines = LineStarts::new(&text);
            let rope = Rope::from_str(&text);
            for enc in [Utf8, Utf16, Utf32] {
                for offset in 0..=text.len() + 1 {
                    let want = lines.position(&text, offset, enc);
                    assert_eq!(rope_position(&rope, offset, enc), want, "{text:?} {offset}");
                }
            }
        }
    }

    #[test]
    fn clamps_like_the_spec() {
        let rope = Rope::from_str(TEXT);
        let lines = LineStarts::new(TEXT);
        // Character past the line end → line end (before "\r\n").
        assert_eq!(rope_offset(&rope, LineCol::new(0, 99), Utf16), 6);
        assert_eq!(lines.offset(TEXT, LineCol::new(0, 99), Utf16), 6);
        // Line past EOF → EOF.
        assert_eq!(rope_offset(&rope, LineCol::new(42, 0), Utf8), TEXT.len());
        assert_eq!(lines.offset(TEXT, LineCol::new(42, 3), Utf8), TEXT.len());
        // Half a surrogate pair → the emoji's start.
        assert_eq!(rope_offset(&rope, LineCol::new(0, 2), Utf16), 1);
        assert_eq!(lines.offset(TEXT, LineCol::new(0, 2), Utf16), 1);
        // Inside a UTF-8 sequence → its start.
        assert_eq!(lines.offset(TEXT, LineCol::new(0, 3), Utf8), 1);
        assert_eq!(lines.position(TEXT, 3, Utf8), LineCol::new(0, 1));
        // The empty line after the final newline exists.
        assert_eq!(lines.len(), 4);
        assert_eq!(rope.len_lines(), 4);
    }

    #[test]
    fn finds_line_ends() {
        let lines = LineStarts::new(TEXT);
        assert_eq!(lines.line_end(TEXT, 0, Utf16), LineCol::new(0, 4));
        assert_eq!(lines.line_end(TEXT, 1, Utf32), LineCol::new(1, 3));
        assert_eq!(lines.line_end(TEXT, 9, Utf8), LineCol::new(3, 0));
    }
}
