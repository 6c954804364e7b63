//! Decoding files to text and encoding them back, byte-exact.
//!
//! UTF-8 (with or without BOM) and UTF-16 LE/BE with a BOM are edited and
//! written back in the same encoding (`FORMATS.md` §4). Anything else with
//! a NUL byte in its first 8 KiB is binary; invalid UTF-8 is refused.

use std::borrow::Cow;
use std::fmt;

/// How a file's bytes encode its text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// UTF-8 without BOM.
    #[default]
    Utf8,
    /// UTF-8 with a BOM (`EF BB BF`).
    Utf8Bom,
    /// UTF-16 little-endian with a BOM (`FF FE`).
    Utf16Le,
    /// UTF-16 big-endian with a BOM (`FE FF`).
    Utf16Be,
}

/// Why bytes could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// A NUL byte in the first 8 KiB, and no UTF-16 BOM.
    Binary,
    /// Not valid UTF-8: the byte offset of the first invalid sequence.
    InvalidUtf8 { offset: usize },
    /// A UTF-16 BOM, but an odd length or unpaired surrogate.
    InvalidUtf16,
    /// A UTF-32 BOM (`FF FE 00 00` or `00 00 FE FF`): not edited.
    Utf32,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Binary => f.write_str("binary file (NUL byte in the first 8 KiB)"),
            DecodeError::InvalidUtf8 { offset } => {
                write!(f, "not valid UTF-8 (first invalid byte at offset {offset})")
            }
            DecodeError::InvalidUtf16 => {
                f.write_str("starts with a UTF-16 BOM but is not valid UTF-16")
            }
            DecodeError::Utf32 => f.write_str("UTF-32 text, which is not supported"),
        }
    }
}

/// How many leading bytes are checked for NUL.
const BINARY_SNIFF_BYTES: usize = 8 * 1024;

/// Decodes file bytes to text, remembering the encoding. Plain UTF-8 is
/// taken over without a copy.
pub fn decode_owned(bytes: Vec<u8>) -> Result<(String, Encoding), DecodeError> {
    if [
        &[0xEF, 0xBB, 0xBF][..],
        &[0xFF, 0xFE],
        &[0xFE, 0xFF],
        &[0, 0, 0xFE, 0xFF],
    ]
    .iter()
    .any(|bom| bytes.starts_with(bom))
    {
        return decode(&bytes);
    }
    if memchr::memchr(0, &bytes[..bytes.len().min(BINARY_SNIFF_BYTES)]).is_some() {
        return Err(DecodeError::Binary);
    }
    String::from_utf8(bytes)
        .map(|s| (s, Encoding::Utf8))
        .map_err(|e| DecodeError::InvalidUtf8 {
            offset: e.utf8_error().valid_up_to(),
        })
}

/// Decodes file bytes to text, remembering the encoding.
pub fn decode(bytes: &[u8]) -> Result<(String, Encoding), DecodeError> {
    // Checked before UTF-16: the UTF-32 LE BOM starts with the UTF-16 LE one.
    if bytes.starts_with(&[0xFF, 0xFE, 0, 0]) || bytes.starts_with(&[0, 0, 0xFE, 0xFF]) {
        return Err(DecodeError::Utf32);
    }
    if let Some(rest) = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        return utf8(rest, 3).map(|s| (s, Encoding::Utf8Bom));
    }
    if let Some(rest) = bytes.strip_prefix(&[0xFF, 0xFE]) {
        return utf16(rest, u16::from_le_bytes).map(|s| (s, Encoding::Utf16Le));
    }
    if let Some(rest) = bytes.strip_prefix(&[0xFE, 0xFF]) {
        return utf16(rest, u16::from_be_bytes).map(|s| (s, Encoding::Utf16Be));
    }
    if memchr::memchr(0, &bytes[..bytes.len().min(BINARY_SNIFF_BYTES)]).is_some() {
        return Err(DecodeError::Binary);
    }
    utf8(bytes, 0).map(|s| (s, Encoding::Utf8))
}

fn utf8(bytes: &[u8], base: usize) -> Result<String, DecodeError> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(s.to_owned()),
        Err(e) => Err(DecodeError::InvalidUtf8 {
            offset: base + e.valid_up_to(),
        }),
    }
}

fn utf16(bytes: &[u8], unit: fn([u8; 2]) -> u16) -> Result<String, DecodeError> {
    if !bytes.len().is_multiple_of(2) {
        return Err(DecodeError::InvalidUtf16);
    }
    let units = bytes.chunks_exact(2).map(|c| unit([c[0], c[1]]));
    char::decode_utf16(units)
        .collect::<Result<String, _>>()
        .map_err(|_| DecodeError::InvalidUtf16)
}

/// Encodes text back into the bytes of `encoding` (BOM included).
/// UTF-8 without BOM borrows the text: no copy of a large file.
pub fn encode(text: &str, encoding: Encoding) -> Cow<'_, [u8]> {
    match encoding {
        Encoding::Utf8 => Cow::Borrowed(text.as_bytes()),
        Encoding::Utf8Bom => Cow::Owned([&[0xEF, 0xBB, 0xBF][..], text.as_bytes()].concat()),
        Encoding::Utf16Le => Cow::Owned(utf16_bytes(text, [0xFF, 0xFE], u16::to_le_bytes)),
        Encoding::Utf16Be => Cow::Owned(utf16_bytes(text, [0xFE, 0xFF], u16::to_be_bytes)),
    }
}

fn utf16_bytes(text: &str, bom: [u8; 2], bytes: fn(u16) -> [u8; 2]) -> Vec<u8> {
    let mut out = Vec::with_capacity(2 + text.len() * 2);
    out.extend_from_slice(&bom);
    for unit in text.encode_utf16() {
        out.extend_from_slice(&bytes(unit));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_encoding() {
        for enc in [
            Encoding::Utf8,
            Encoding::Utf8Bom,
            Encoding::Utf16Le,
            Encoding::Utf16Be,
        ] {
            let text = "héllo\r\nwörld 🦀\n";
            let bytes = encode(text, enc);
            assert_eq!(decode(&bytes), Ok((text.to_string(), enc)));
            assert_eq!(
                decode_owned(bytes.into_owned()),
                Ok((text.to_string(), enc))
            );
        }
    }

    #[test]
    fn refuses_binary_and_invalid_utf8() {
        assert_eq!(decode(b"PNG\0\x01"), Err(DecodeError::Binary));
        let utf32_le = b"\xFF\xFE\0\0a\0\0\0\n\0\0\0";
        assert_eq!(decode(utf32_le), Err(DecodeError::Utf32));
        assert_eq!(decode_owned(utf32_le.to_vec()), Err(DecodeError::Utf32));
        let utf32_be = b"\0\0\xFE\xFF\0\0\0a";
        assert_eq!(decode_owned(utf32_be.to_vec()), Err(DecodeError::Utf32));
        assert_eq!(
            decode(b"ok \xff"),
            Err(DecodeError::InvalidUtf8 { offset: 3 })
        );
    }
}
