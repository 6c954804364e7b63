//! Line endings: detect a file's, and write inserted text in it.

/// How much of a file [`LineEnding::detect`] reads.
const DETECT_BYTES: usize = 64 * 1024;

/// A file's line ending.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LineEnding {
    /// `\n`.
    #[default]
    Lf,
    /// `\r\n`.
    CrLf,
}

impl LineEnding {
    /// The file's line ending: CRLF when most of the line breaks in its
    /// first 64 KiB are CRLF (a file with none is LF). Like editors, it
    /// judges from the start of the file: large files are not scanned whole.
    pub fn detect(text: &str) -> LineEnding {
        let head = &text.as_bytes()[..text.len().min(DETECT_BYTES)];
        let lf = memchr::memchr_iter(b'\n', head).count();
        let crlf = memchr::memmem::find_iter(head, b"\r\n").count();
        if crlf > 0 && crlf * 2 >= lf {
            LineEnding::CrLf
        } else {
            LineEnding::Lf
        }
    }

    /// The terminator.
    pub fn as_str(self) -> &'static str {
        match self {
            LineEnding::Lf => "\n",
            LineEnding::CrLf => "\r\n",
        }
    }

    /// Writes LF-only `text` with this line ending (`\r\n` already present
    /// is kept as is).
    pub fn apply(self, text: &str) -> String {
        match self {
            LineEnding::Lf => text.to_string(),
            LineEnding::CrLf => {
                let mut out = String::with_capacity(text.len() + text.len() / 16);
                let mut prev = '\0';
                for c in text.chars() {
                    if c == '\n' && prev != '\r' {
                        out.push('\r');
                    }
                    out.push(c);
                    prev = c;
                }
                out
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_and_applies() {
        assert_eq!(LineEnding::detect("a\r\nb\r\n"), LineEnding::CrLf);
        assert_eq!(LineEnding::detect("a\nb\r\n c\n"), LineEnding::Lf);
        assert_eq!(LineEnding::CrLf.apply("a\nb\r\nc"), "a\r\nb\r\nc");
    }
}
