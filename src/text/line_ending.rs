//! Line endings: detect a file's, and write inserted text in it.

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
    /// The file's line ending: CRLF when most of its line breaks are CRLF
    /// (a file with none is LF).
    pub fn detect(text: &str) -> LineEnding {
        let lf = memchr::memchr_iter(b'\n', text.as_bytes()).count();
        let crlf = memchr::memmem::find_iter(text.as_bytes(), b"\r\n").count();
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
