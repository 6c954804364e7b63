//! Pass 5: lines equal once typographic characters are folded to ASCII
//! (curly quotes, dashes, ellipsis, non-breaking and other odd spaces),
//! the rest is put in Unicode normal form C (`é` written as `e` + U+0301
//! equals `é`), and surrounding whitespace is trimmed.

use std::borrow::Cow;

use unicode_normalization::UnicodeNormalization;

use super::keys::{Norm, View};
use super::{find_keys, Lines};

/// Start lines where the search matches after folding (each line trimmed,
/// then folded: [`Norm::Fold`]).
pub fn find(file: &Lines, search: &[&str]) -> Vec<usize> {
    find_in(file, View::All, search)
}

/// [`find`] over the lines of `view`.
pub fn find_in(file: &Lines, view: View, search: &[&str]) -> Vec<usize> {
    find_keys(file, view, Norm::Fold, search)
}

/// Folds typographic characters to their ASCII look-alikes.
pub fn fold(s: &str) -> Cow<'_, str> {
    if s.is_ascii() {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '\u{00B4}' => {
                out.push('\'')
            }
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' | '\u{00AB}'
            | '\u{00BB}' => out.push('"'),
            '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}'
            | '\u{2212}' => out.push('-'),
            '\u{2026}' => out.push_str("..."),
            '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => {
                out.push(' ')
            }
            '\u{200B}' | '\u{FEFF}' => {}
            c => out.push(c),
        }
    }
    if unicode_normalization::is_nfc_quick(out.chars()) != unicode_normalization::IsNormalized::Yes
    {
        out = out.nfc().collect();
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nfd_and_nfc_fold_alike() {
        assert_eq!(fold("caf\u{0065}\u{0301}"), fold("caf\u{00E9}"));
        assert_eq!(fold("caf\u{00E9}"), "caf\u{00E9}");
    }

    #[test]
    fn folds_typography() {
        assert_eq!(
            fold("“quoted” — it’s…\u{00A0}ok"),
            "\"quoted\" - it's... ok"
        );
        let file = Lines::new("msg = \u{201C}Don\u{2019}t\u{201D}\n");
        assert_eq!(find(&file, &["msg = \"Don't\""]), vec![0]);
    }
}
