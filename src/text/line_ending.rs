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
        // No `\r`, no CRLF: most files are read once, by one `memchr`.
        if memchr::memchr(b'\r', head).is_none() {
            return LineEnding::Lf;
        }
        let lf = super::lines::newlines(head);
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
        self.applied(text).into_owned()
    }

    /// [`LineEnding::apply`], borrowing `text` when it is already written
    /// with this line ending (always for LF).
    pub fn applied(self, text: &str) -> std::borrow::Cow<'_, str> {
        match self {
            LineEnding::Lf => std::borrow::Cow::Borrowed(text),
            LineEnding::CrLf => std::borrow::Cow::Owned({
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
            }),
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

    /// [`LineEnding::detect`] is its definition, counts of the head's
    /// `\n` and `\r\n`, whether or not the head holds a `\r`.
    #[test]
    fn detect_is_the_counts() {
        let pool = ["a", "\n", "\r\n", "\r", "é", ""];
        let mut rng = crate::test_rng::Rng::new(5);
        for _ in 0..2000 {
            let text: String = (0..rng.below(12))
                .map(|_| *rng.pick::<&str>(&pool))
                .collect();
            let lf = text.matches('\n').count();
            let crlf = text.matches("\r\n").count();
            let want = if crlf > 0 && crlf * 2 >= lf {
                LineEnding::CrLf
            } else {
                LineEnding::Lf
            };
            assert_eq!(LineEnding::detect(&text), want, "{text:?}");
        }
    }
}
