//! The edits of one block: most blocks hold one (a SEARCH/REPLACE
//! block), which is kept without a list of its own on the heap (a
//! response of 2,000 blocks would make 2,000 one-element lists).

use std::ops::Deref;

use super::ParsedEdit;

/// A block's edits, read as a slice, in order.
#[derive(Debug, Default)]
pub enum Edits {
    /// None (a broken block, or a block of errors only).
    #[default]
    None,
    /// One edit.
    One(ParsedEdit),
    /// Several, in order (a patch or a diff of several files or hunks).
    Many(Vec<ParsedEdit>),
}

impl Edits {
    /// Adds `edit` after the others: onto the list in place, when there
    /// is one (a diff's hunks are pushed one by one).
    pub fn push(&mut self, edit: ParsedEdit) {
        match self {
            Edits::Many(all) => all.push(edit),
            fewer => {
                *fewer = match std::mem::take(fewer) {
                    Edits::One(first) => Edits::Many(vec![first, edit]),
                    _ => Edits::One(edit),
                }
            }
        }
    }

    /// Moves the edits, in order, to the end of `list`.
    pub fn append_to(self, list: &mut Vec<ParsedEdit>) {
        match self {
            Edits::None => {}
            Edits::One(edit) => list.push(edit),
            Edits::Many(mut all) => list.append(&mut all),
        }
    }
}

impl Deref for Edits {
    type Target = [ParsedEdit];

    fn deref(&self) -> &[ParsedEdit] {
        match self {
            Edits::None => &[],
            Edits::One(edit) => std::slice::from_ref(edit),
            Edits::Many(all) => all,
        }
    }
}

impl From<ParsedEdit> for Edits {
    fn from(edit: ParsedEdit) -> Edits {
        Edits::One(edit)
    }
}

impl From<Vec<ParsedEdit>> for Edits {
    fn from(all: Vec<ParsedEdit>) -> Edits {
        Edits::Many(all)
    }
}

impl Extend<ParsedEdit> for Edits {
    fn extend<I: IntoIterator<Item = ParsedEdit>>(&mut self, edits: I) {
        for edit in edits {
            self.push(edit);
        }
    }
}

impl IntoIterator for Edits {
    type Item = ParsedEdit;
    type IntoIter =
        std::iter::Chain<std::option::IntoIter<ParsedEdit>, std::vec::IntoIter<ParsedEdit>>;

    fn into_iter(self) -> Self::IntoIter {
        let (one, many) = match self {
            Edits::None => (None, Vec::new()),
            Edits::One(edit) => (Some(edit), Vec::new()),
            Edits::Many(all) => (None, all),
        };
        one.into_iter().chain(many)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{EditOp, Format, Ordering, SourceSpan};

    fn edit(n: usize) -> ParsedEdit {
        ParsedEdit {
            path: format!("f{n}.py"),
            format: Format::SearchReplace,
            source: SourceSpan::lines(n, n + 1),
            ordering: Ordering::Sequential,
            op: EditOp::Delete,
        }
    }

    /// However the edits came (pushed one by one, extended, from a list
    /// or one edit), they read and iterate as the list of them in order.
    #[test]
    fn the_edits_are_the_list_in_order() {
        for n in 0..5 {
            let want: Vec<String> = (0..n).map(|i| edit(i).path).collect();
            let paths = |e: &[ParsedEdit]| e.iter().map(|e| e.path.clone()).collect::<Vec<_>>();
            let mut pushed = Edits::default();
            for i in 0..n {
                pushed.push(edit(i));
            }
            let mut extended = Edits::default();
            extended.extend((0..n).map(edit));
            let listed = Edits::from((0..n).map(edit).collect::<Vec<_>>());
            for edits in [pushed, extended, listed] {
                assert_eq!(edits.len(), n);
                assert_eq!(paths(&edits), want);
                let mut appended = vec![edit(99)];
                let owned: Vec<ParsedEdit> = edits.into_iter().collect();
                assert_eq!(paths(&owned), want);
                Edits::from(owned).append_to(&mut appended);
                assert_eq!(paths(&appended[1..]), want);
                assert_eq!(appended[0].path, "f99.py");
            }
        }
        let one = Edits::from(edit(7));
        assert_eq!(one[0].path, "f7.py");
        assert_eq!(one.into_iter().count(), 1);
    }
}
