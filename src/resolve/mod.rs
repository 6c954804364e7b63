//! Resolve: locate every edit of one file and build its new text.
//!
//! [`resolve_file`] loads the file once, then walks its edits in payload
//! order over a piece table ([`doc::Doc`]): sequential edits see the result
//! of the earlier ones; a group of simultaneous edits (the hunks of one
//! patched file, the changes of one `modify_file` call) is located against
//! the text as it was when the group started, checked for overlaps, then
//! applied together. Every failure is collected, none stops the others.
//! The result is the file's change as minimal edits of its original text.

pub mod blank_lines;
pub mod code_block;
pub mod conflict;
pub mod doc;
pub mod elision;
mod group;
pub mod hints;
mod hits;
pub mod indent;
pub mod line_numbers;
pub mod locate;
pub mod messages;
pub mod passes;
pub mod replacement;

use std::cell::OnceCell;
use std::ops::Range;
use std::sync::Arc;

use serde::Serialize;

use crate::error::{EditError, ErrorKind};
use crate::model::{Edit, EditOp, Ordering, Replace};
use crate::plan::TextEdits;
use crate::plan::{After, FileChange, FileStatus};
use crate::text::line_ending::LineEnding;
use crate::text::lines::{newlines, LineIndex};
use crate::workspace::{FileSource, LoadError, SourceText, WorkspacePath};
use doc::Doc;
use elision::ElisionMiss;
use locate::{Located, Locator, Miss, Placed};
use messages::Messages;

/// How tolerant matching is (`--match`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchMode {
    /// Every pass of `FORMATS.md` §3 (fuzzy only with a threshold).
    #[default]
    Tolerant,
    /// Exact matches only (seed 001's strict mode).
    Exact,
}

/// What to do when the buffer changed since the LLM's snapshot (`~M`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OnConflict {
    /// Three-way merge; overlapping changes are a `conflict` error.
    #[default]
    Merge,
    /// Any `~M` file is a `conflict` error.
    Refuse,
    /// The LLM's result replaces the buffer.
    Overwrite,
}

/// Matching settings derived from [`Options`].
#[derive(Clone, Debug, PartialEq)]
pub struct ResolveConfig {
    /// Tolerant or exact.
    pub match_mode: MatchMode,
    /// Fuzzy threshold, when on.
    pub fuzzy: Option<f64>,
    /// When the run must end: every loop whose work grows with the input
    /// checks it, and the edits not resolved by then fail with `deadline`.
    pub deadline: std::time::Instant,
    /// What to do with a file changed since the LLM's snapshot.
    pub on_conflict: OnConflict,
}

/// What resolving one file's edits gives.
#[derive(Debug)]
pub enum FileResult {
    /// Every edit resolved.
    Changed(Vec<FileChange>),
    /// Nothing can be applied to this file.
    Failed(Vec<EditError>),
    /// Some edits resolved (the change holds only those), some failed.
    Partial(Vec<FileChange>, Vec<EditError>),
}

/// Told a file's likely change while its resolution still checks it: the
/// change the file gets if the check confirms the match found first
/// (today pass 7's seed window, told before the scan of the whole file
/// that decides whether another window rivals it; only for a file's only
/// edit, on a file that exists). A writer can stage those bytes
/// meanwhile; the outcome still decides: the change told may not be the
/// one planned, or the file may fail.
pub trait Provisional: Sync {
    fn provisional(&self, change: &FileChange);
}

/// Whether the file is there, as the edits so far left it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Presence {
    Missing,
    Present,
    Deleted,
}

/// Resolves the edits of one file, in payload order.
/// `provisional`, when given, is told the file's likely change early
/// ([`Provisional`]).
pub fn resolve_file(
    path: &WorkspacePath,
    edits: &[&Edit],
    source: &dyn FileSource,
    config: &ResolveConfig,
    provisional: Option<&dyn Provisional>,
) -> FileResult {
    let loaded = match source.load(path) {
        Ok(loaded) => loaded,
        Err(e) => return FileResult::Failed(load_errors(path, edits, &e)),
    };
    if let Some(snapshot) = source.snapshot(path) {
        let current = loaded.as_ref().map(|s| s.text.as_str());
        if current != Some(&*snapshot) {
            return conflict::resolve_changed_file(path, edits, source, config, loaded, &snapshot);
        }
    }
    resolve_text(path, edits, source, (config, provisional), loaded)
}

/// Up to this many located replacements of one step are spliced into the
/// document one by one; more are applied in one pass over its pieces.
const FEW_EDITS: usize = 4;

/// Resolves the edits of one file against `loaded` (its text, or `None`
/// when it does not exist).
fn resolve_text<'c>(
    path: &WorkspacePath,
    edits: &[&Edit],
    source: &dyn FileSource,
    (config, provisional): (&'c ResolveConfig, Option<&'c dyn Provisional>),
    loaded: Option<Arc<SourceText>>,
) -> FileResult {
    let original: &str = loaded.as_ref().map_or("", |s| s.text.as_str());
    // The indentation style, inferred only if an edit needs it.
    let style = OnceCell::new();
    // The original's line index, built on first use, read by the style too.
    let index = std::rc::Rc::new(OnceCell::new());
    let style = indent::LazyStyle::with_index(original, &style, &index);
    let mut file = FileResolver::new(
        path,
        original,
        (style, index.clone()),
        loaded.is_some(),
        config,
        edits,
    );
    if let ([_], Some(provisional), Some(loaded)) = (edits, provisional, &loaded) {
        file.early = Some((provisional, Arc::clone(loaded)));
    }
    let mut i = 0;
    while i < edits.len() {
        if std::time::Instant::now() > config.deadline {
            // Out of time: the edits not yet resolved fail, none is guessed.
            for edit in &edits[i..] {
                let e = file.messages().deadline(edit);
                file.fail(e);
            }
            break;
        }
        match edits[i].ordering {
            Ordering::Sequential => {
                file.apply_sequential(edits[i], source);
                i += 1;
            }
            Ordering::Simultaneous(group) => {
                let len = edits[i..]
                    .iter()
                    .take_while(|e| e.ordering == Ordering::Simultaneous(group))
                    .count();
                file.apply_group(&edits[i..i + len]);
                i += len;
            }
        }
    }
    file.finish(loaded.clone())
}

/// Errors for every edit of a file that could not be loaded.
fn load_errors(path: &WorkspacePath, edits: &[&Edit], error: &LoadError) -> Vec<EditError> {
    let kind = match error {
        LoadError::Decode(_) => ErrorKind::Binary,
        LoadError::OutsideRoot => ErrorKind::OutsideRoot,
        LoadError::Directory | LoadError::Io(_) => ErrorKind::FileNotFound,
    };
    let what = match error {
        LoadError::Decode(_) => "is not a text file this tool can edit",
        LoadError::OutsideRoot => "is outside the workspace root",
        LoadError::Directory => "is a directory",
        LoadError::Io(_) => "cannot be read",
    };
    edits
        .iter()
        .map(|e| {
            EditError::new(
                kind,
                format!(
                    "edit {} in {path}: the file {what} ({error}); leave it out of the payload",
                    e.index
                ),
            )
            .with_path(path.as_str())
            .with_edit(e.index)
            .with_payload_lines(e.source.first_line, e.source.last_line)
        })
        .collect()
}

/// The state of one file while its edits apply.
struct FileResolver<'o, 'c> {
    path: &'o WorkspacePath,
    doc: Doc<'o>,
    presence: Presence,
    existed: bool,
    renamed_to: Option<WorkspacePath>,
    line_ending: LineEnding,
    style: indent::LazyStyle<'o>,
    language: Option<crate::syntax::Language>,
    config: &'c ResolveConfig,
    /// Original hits of each sequential replace's exact needle, by edit index.
    orig_hits: hits::FileHits,
    /// (original 0-based line, line delta) of applied edits, for hints.
    shifts: Vec<(usize, isize)>,
    /// Some edit of this file carries a line hint.
    uses_hints: bool,
    /// (edit index, 1-based hint) of the file's sequential replaces with a
    /// line hint, in payload order.
    hinted: Vec<(usize, usize)>,
    errors: Vec<EditError>,
    applied: Vec<usize>,
    /// The state before each applied edit, kept only when the payload
    /// undoes one of this file's edits.
    history: Option<Vec<Saved<'o>>>,
    /// Who is told the file's change early, and the file as read: only
    /// for a file's only edit ([`Provisional`]).
    early: Option<(&'c dyn Provisional, Arc<SourceText>)>,
}

/// What an undo restores.
struct Saved<'o> {
    doc: Doc<'o>,
    presence: Presence,
    renamed_to: Option<WorkspacePath>,
    shifts: usize,
    applied: usize,
}

impl<'o: 'c, 'c> FileResolver<'o, 'c> {
    fn new(
        path: &'o WorkspacePath,
        original: &'o str,
        (style, index): (
            indent::LazyStyle<'o>,
            std::rc::Rc<OnceCell<crate::text::lines::LineIndex>>,
        ),
        exists: bool,
        config: &'c ResolveConfig,
        edits: &[&Edit],
    ) -> Self {
        let line_ending = LineEnding::detect(original);
        let mut file = FileResolver {
            path,
            doc: Doc::with_index(original, index),
            presence: if exists {
                Presence::Present
            } else {
                Presence::Missing
            },
            existed: exists,
            renamed_to: None,
            line_ending,
            style,
            language: crate::syntax::Language::of_path(path.as_str()),
            config,
            orig_hits: Default::default(),
            shifts: Vec::new(),
            uses_hints: edits
                .iter()
                .any(|e| matches!(&e.op, EditOp::Replace(r) if r.line_hint.is_some())),
            hinted: edits
                .iter()
                .filter(|e| e.ordering == Ordering::Sequential)
                .filter_map(|e| match &e.op {
                    EditOp::Replace(r) => r.line_hint.map(|h| (e.index, h)),
                    _ => None,
                })
                .collect(),
            errors: Vec::new(),
            applied: Vec::new(),
            history: edits.iter().any(|e| e.op == EditOp::Undo).then(Vec::new),
            early: None,
        };
        file.reserve(edits);
        file.find_original_hits(edits);
        file
    }

    /// Sizes the doc for the file's replaces: their count, lines and
    /// bytes (each replacement written once, and a line end).
    /// Not when the payload undoes an edit: each saved state is a copy
    /// of the doc, which would copy the room too.
    fn reserve(&mut self, edits: &[&Edit]) {
        if self.history.is_some() {
            return;
        }
        let (mut count, mut lines, mut bytes) = (0, 0, 0);
        for e in edits {
            if let EditOp::Replace(r) = &e.op {
                count += 1;
                lines += newlines(&r.replace) + 1;
                bytes += r.replace.len() + 1;
            }
        }
        self.doc.reserve(count, lines, bytes);
    }

    fn locator(&self) -> Locator<'c> {
        Locator {
            config: self.config,
            line_ending: self.line_ending,
            style: self.style,
            language: self.language,
            early: None,
        }
    }

    /// Tells [`Self::early`]'s listener the change the file gets if its
    /// only edit, `edit` (nothing applied before it), writes `located`.
    fn tell_early(&self, edit: &Edit, located: &Located) {
        let Some((listener, loaded)) = &self.early else {
            return;
        };
        let mut doc = Doc::new(self.doc.original());
        doc.replace(located.range.clone(), &located.text);
        let change = self.edited_change(&doc, Some(Arc::clone(loaded)), vec![edit.index]);
        if let Some(change) = change {
            listener.provisional(&change);
        }
    }

    fn messages(&self) -> Messages<'_> {
        Messages {
            path: self.path.as_str(),
        }
    }

    /// The exact hits of every sequential replace in the original, found
    /// once ([`hits::find`]), so later exact searches never rescan the file.
    fn find_original_hits(&mut self, edits: &[&Edit]) {
        let locator = self.locator();
        let needles: Vec<hits::Needle> = edits
            .iter()
            .filter_map(|e| match &e.op {
                EditOp::Replace(r)
                    if e.ordering == Ordering::Sequential && !r.search.is_empty() =>
                {
                    Some(hits::Needle {
                        edit: e.index,
                        text: locator.exact_needle(r),
                        unit: r.unit,
                    })
                }
                _ => None,
            })
            .filter(|n| !n.text.is_empty())
            .collect();
        self.orig_hits = hits::find(self.doc.original(), &needles);
    }

    fn orig_index(&self) -> &LineIndex {
        self.doc.original_index()
    }

    /// The original 1-based line of current byte offset `at`.
    fn orig_line_of_offset(&self, at: usize) -> usize {
        self.orig_index().line_of(self.doc.to_original(at)) + 1
    }

    /// Original 1-based first lines of current 0-based line ranges.
    fn orig_lines(&self, ranges: &[Range<usize>]) -> Vec<crate::error::LineRange> {
        let lines = locate::doc_lines(&self.doc);
        ranges
            .iter()
            .map(|r| {
                let first = self.orig_line_of_offset(lines.index.start(r.start.min(lines.len())));
                let last = first + (r.end - r.start);
                crate::error::LineRange::new(first, last)
            })
            .collect()
    }

    /// A 1-based original line hint as a current 0-based line.
    fn current_hint(&self, hint: Option<usize>) -> Option<usize> {
        let h = hint?.checked_sub(1)?;
        let delta: isize = self
            .shifts
            .iter()
            .filter(|(line, _)| *line < h)
            .map(|(_, d)| d)
            .sum();
        Some((h as isize + delta).max(0) as usize)
    }

    /// Applies located replacements (current offsets, disjoint) to the doc.
    /// (At most [`FEW_EDITS`] are spliced one by one.)
    /// Overlapping ones (occurrences of a `replace_all` that share text)
    /// keep the leftmost, as `str::replace` does.
    fn apply_located(&mut self, mut located: Placed, track_shifts: bool) {
        located.sort_by_key(|l| (l.range.start, l.range.end));
        let mut end = 0;
        located.retain(|l| {
            let keep = l.range.start >= end;
            if keep {
                end = l.range.end;
            }
            keep
        });
        if track_shifts {
            // From the last: each shift is read before the edits after it
            // (the ones before it would move nothing it reads either).
            for l in located.iter().rev() {
                let line = self.orig_line_of_offset(l.range.start) - 1;
                let removed = self.doc.newlines(l.range.clone()) as isize;
                let added = newlines(&l.text) as isize;
                self.shifts.push((line, added - removed));
            }
        }
        // A few edits are spliced in place (only the pieces after them
        // renumbered); many (a group of hunks) in one pass over the pieces.
        if located.len() <= FEW_EDITS {
            for l in located.iter().rev() {
                self.doc.replace(l.range.clone(), &l.text);
            }
            return;
        }
        let edits: Vec<(Range<usize>, &str)> = located
            .iter()
            .map(|l| (l.range.clone(), l.text.as_str()))
            .collect();
        self.doc.replace_disjoint(&edits);
    }

    fn fail(&mut self, error: EditError) {
        self.errors.push(error);
    }

    /// Fails `edit` when the file is not there; true when it is.
    fn require_present(&mut self, edit: &Edit) -> bool {
        match self.presence {
            Presence::Present => true,
            Presence::Missing => {
                let e = self.messages().file_not_found(edit);
                self.fail(e);
                false
            }
            Presence::Deleted => {
                let e = self.messages().deleted_earlier(edit);
                self.fail(e);
                false
            }
        }
    }

    fn apply_sequential(&mut self, edit: &Edit, source: &dyn FileSource) {
        if edit.op == EditOp::Undo {
            return self.undo(edit);
        }
        let before = self.applied.len();
        let saved = self.history.is_some().then(|| Saved {
            doc: self.doc.clone(),
            presence: self.presence,
            renamed_to: self.renamed_to.clone(),
            shifts: self.shifts.len(),
            applied: before,
        });
        self.apply_op(edit, source);
        if let (Some(history), Some(saved)) = (self.history.as_mut(), saved) {
            if self.applied.len() > before {
                history.push(saved);
            }
        }
    }

    /// `undo_edit`: back to the state before this file's previous applied
    /// edit; with none (or only a failed one) before it, a `parse` error.
    fn undo(&mut self, edit: &Edit) {
        match self.history.as_mut().and_then(Vec::pop) {
            Some(saved) => {
                self.doc = saved.doc;
                self.presence = saved.presence;
                self.renamed_to = saved.renamed_to;
                self.shifts.truncate(saved.shifts);
                self.applied.truncate(saved.applied);
                self.applied.push(edit.index);
            }
            None => {
                let e = self.messages().nothing_to_undo(edit);
                self.fail(e);
            }
        }
    }

    fn apply_op(&mut self, edit: &Edit, source: &dyn FileSource) {
        match &edit.op {
            EditOp::Create { content } => self.create(edit, content),
            EditOp::Write { content } => self.write(content),
            EditOp::Replace(r) => self.replace(edit, r),
            EditOp::Anchored(_) => self.apply_group(&[edit]),
            EditOp::InsertLines { after_line, text } => self.insert_lines(edit, *after_line, text),
            EditOp::Delete => {
                if self.require_present(edit) {
                    self.presence = Presence::Deleted;
                    self.applied.push(edit.index);
                }
            }
            EditOp::Rename { to } => self.rename(edit, to, source),
            EditOp::Undo => self.undo(edit),
            EditOp::CodeBlock { content, path_line } => {
                self.code_block(edit, content, path_line.as_deref())
            }
        }
    }

    /// A chat code block: a new file, the whole file, or parts placed by
    /// their unchanged lines (`code_block.rs`).
    fn code_block(&mut self, edit: &Edit, content: &str, path_line: Option<&str>) {
        use code_block::Reading;
        let file = (self.presence == Presence::Present).then(|| self.doc.text().to_string());
        match code_block::read(file.as_deref(), content, path_line, self.language) {
            Ok(Reading::Create(text)) => self.create(edit, &text),
            // The block shows the file as it is: nothing to change.
            Ok(Reading::Whole(text)) if file.as_deref() == Some(text.as_str()) => {}
            Ok(Reading::Whole(text)) => {
                self.write(&text);
                self.applied.push(edit.index);
            }
            Ok(Reading::Parts(parts)) => {
                let text = code_block::splice(file.as_deref().unwrap_or(""), &parts);
                self.write(&text);
                self.applied.push(edit.index);
            }
            Err(refusal) => {
                let lines = file.as_deref().map_or(1, |f| f.lines().count().max(1));
                let e = self
                    .messages()
                    .code_block(edit, refusal, lines, self.language);
                self.fail(e);
            }
        }
    }

    fn create(&mut self, edit: &Edit, content: &str) {
        if self.presence == Presence::Present && !self.doc.is_empty() {
            let e = self
                .messages()
                .file_exists(edit, self.doc.text().lines().count());
            return self.fail(e);
        }
        let content = if self.existed {
            self.line_ending.apply(content)
        } else {
            content.to_string()
        };
        self.doc.replace(0..self.doc.len(), &content);
        self.presence = Presence::Present;
        self.applied.push(edit.index);
    }

    fn write(&mut self, content: &str) {
        // A file that used CRLF throughout keeps CRLF.
        let crlf_throughout = self.presence == Presence::Present && self.crlf_throughout();
        let content = if crlf_throughout {
            LineEnding::CrLf.apply(content)
        } else {
            content.to_string()
        };
        self.doc.replace(0..self.doc.len(), &content);
        self.presence = Presence::Present;
    }

    fn crlf_throughout(&self) -> bool {
        let text = self.doc.text().as_bytes();
        let lf = newlines(text);
        lf > 0 && memchr::memmem::find_iter(text, b"\r\n").count() == lf
    }

    fn replace(&mut self, edit: &Edit, r: &Replace) {
        if !self.require_present(edit) {
            return;
        }
        if r.search == r.replace {
            let e = self.messages().no_op(edit);
            return self.fail(e);
        }
        if r.search.is_empty() {
            // An empty search on an existing file: never append or overwrite by guess.
            if self.doc.is_empty() {
                self.doc.replace(0..0, &r.replace);
                self.applied.push(edit.index);
                return;
            }
            let e = self
                .messages()
                .file_exists(edit, self.doc.text().lines().count());
            return self.fail(e);
        }
        let hint = self.current_hint(r.line_hint);
        let none = doc::OrigHits::default();
        let hits = self.orig_hits.get(edit.index).unwrap_or(&none);
        let tell = |located: &Located| self.tell_early(edit, located);
        let locator = Locator {
            early: self.early.is_some().then_some(&tell as &dyn Fn(&Located)),
            ..self.locator()
        };
        let result = locator.locate(&self.doc, r, edit.format, hits, hint);
        match result {
            Ok(located) => {
                if let Some(e) = self.hint_against_neighbours(edit, r, &located, hits, hint) {
                    return self.fail(e);
                }
                let track = self.tracks_hints();
                self.apply_located(located, track);
                self.applied.push(edit.index);
            }
            Err(miss) => {
                let e = self.miss_error(edit, r, miss);
                self.fail(e);
            }
        }
    }

    /// A sequential edit its line hint picked among several places (at the
    /// hint or near it), while the nearest other hinted edit of the file
    /// before or after it, found exactly once, sits at another offset from
    /// its own number: the edits of one payload number one version of the
    /// file, so this number is off by as much, or the other is — either
    /// way the hint does not pin a place (`FORMATS.md` §3 "Line hints";
    /// the same check as for diff hunks).
    fn hint_against_neighbours(
        &self,
        edit: &Edit,
        r: &Replace,
        located: &[Located],
        hits: &doc::OrigHits,
        hint: Option<usize>,
    ) -> Option<EditError> {
        let (Some(_), Some(line_hint), Some(first)) = (hint, r.line_hint, located.first()) else {
            return None;
        };
        if r.replace_all {
            return None;
        }
        let picked = self.orig_line_of_offset(first.range.start);
        let own = picked as i64 - line_hint as i64;
        let at = self.hinted.iter().position(|&(i, _)| i == edit.index)?;
        let pinned = |&(index, hint): &(usize, usize)| {
            let hits = self.orig_hits.get(index)?;
            let [hit] = hits.full.as_slice() else {
                return None;
            };
            let line = self.orig_index().line_of(*hit) + 1;
            Some((index, line, line as i64 - hint as i64))
        };
        let before = self.hinted[..at].iter().rev().find_map(pinned);
        let after = self.hinted[at + 1..].iter().find_map(pinned);
        let (index, line, offset) = [before, after]
            .into_iter()
            .flatten()
            .find(|&(_, _, offset)| offset != own)?;
        // Only a pick the hint made among several candidates (located again
        // without the hint: last, it costs a second search).
        let alone = self.locator().locate(&self.doc, r, edit.format, hits, None);
        if !matches!(alone, Err(Miss::Ambiguous { .. })) {
            return None;
        }
        Some(
            self.messages()
                .hint_against_neighbour(edit, picked, line_hint, (index, line, offset)),
        )
    }

    /// Line shifts are tracked only when some edit carries a hint.
    fn tracks_hints(&self) -> bool {
        self.uses_hints
    }

    fn miss_error(&self, edit: &Edit, r: &Replace, miss: Miss) -> EditError {
        match miss {
            Miss::Ambiguous { candidates, total } => {
                // Only the listed ones are mapped to original lines.
                let listed = candidates.len().min(crate::error::LISTED);
                let ranges = self.orig_lines(&candidates[..listed]);
                self.messages().ambiguous(edit, &ranges, total)
            }
            Miss::Undecided { lines, why } => {
                let range = self.orig_lines(std::slice::from_ref(&lines))[0];
                self.messages().undecided(edit, r, range, &why)
            }
            Miss::HintRival {
                picked,
                at_hint,
                looser,
            } => {
                let ranges = self.orig_lines(&[picked, at_hint]);
                self.messages()
                    .hint_rival(edit, ranges[0], ranges[1], looser)
            }
            Miss::Elision(why) => {
                let (ElisionMiss::Open { at }
                | ElisionMiss::Count { at, .. }
                | ElisionMiss::PieceNotFound { at, .. }) = &why;
                let ranges: Vec<Range<usize>> = at.iter().map(|&l| l..l).collect();
                let at: Vec<usize> = self.orig_lines(&ranges).iter().map(|r| r.first).collect();
                self.messages().elision(edit, &why).with_lines(at)
            }
            Miss::BreaksSyntax { lines, error_line } => {
                let range = self.orig_lines(std::slice::from_ref(&lines))[0];
                let error = self.orig_lines(std::slice::from_ref(&(error_line..error_line)))[0];
                self.messages().breaks_syntax(edit, range, error.first)
            }
            Miss::FragmentOrLine {
                lines,
                fragment,
                whole,
            } => {
                let range = self.orig_lines(std::slice::from_ref(&lines))[0];
                self.messages()
                    .fragment_or_line(edit, range, &fragment, &whole)
            }
            Miss::Deadline => self.messages().deadline(edit),
            Miss::NotFound { near } => {
                let near = near.map(|n| {
                    let range = self.orig_lines(std::slice::from_ref(
                        &(n.lines.start..n.lines.end.saturating_sub(1).max(n.lines.start)),
                    ))[0];
                    crate::error::NearMatch {
                        lines: range,
                        similarity: (n.similarity * 100.0).floor().clamp(0.0, 100.0) as u8,
                        differs_at: n.differs_at,
                    }
                });
                self.messages().not_found(edit, r, near)
            }
        }
    }

    fn insert_lines(&mut self, edit: &Edit, after_line: usize, text: &str) {
        if !self.require_present(edit) {
            return;
        }
        let current = self.doc.text();
        let index = LineIndex::new(current);
        if after_line > index.len() {
            let e = self
                .messages()
                .insert_past_end(edit, after_line, index.len());
            return self.fail(e);
        }
        let le = self.line_ending.as_str();
        let mut at = index.start(after_line);
        let mut new = String::new();
        if at == current.len() && !current.is_empty() && !current.ends_with('\n') {
            new.push_str(le);
        }
        // `text` is newline-terminated lines (the model's convention).
        for line in text.strip_suffix('\n').unwrap_or(text).split('\n') {
            new.push_str(line);
            new.push_str(le);
        }
        if at == current.len() && !current.is_empty() && !current.ends_with('\n') {
            // Keep the file without a final newline.
            new.truncate(new.len() - le.len());
        }
        at = at.min(current.len());
        let track = self.tracks_hints();
        self.apply_located(
            smallvec::smallvec![Located {
                range: at..at,
                text: new,
            }],
            track,
        );
        self.applied.push(edit.index);
    }

    fn rename(&mut self, edit: &Edit, to: &str, source: &dyn FileSource) {
        if !self.require_present(edit) {
            return;
        }
        let target = match WorkspacePath::new(source.root(), to) {
            Ok(t) => t,
            Err(_) => {
                let e = self.messages().rename_outside(edit, to);
                return self.fail(e);
            }
        };
        match source.load(&target) {
            Ok(Some(existing)) if !existing.text.is_empty() && &target != self.path => {
                let e = self.messages().rename_exists(edit, target.as_str());
                self.fail(e)
            }
            Err(LoadError::OutsideRoot) => {
                let e = self.messages().rename_outside(edit, to);
                self.fail(e)
            }
            _ => {
                self.renamed_to = Some(target);
                self.applied.push(edit.index);
            }
        }
    }

    /// The file's change (or failure) once every edit was tried.
    fn finish(self, loaded: Option<Arc<SourceText>>) -> FileResult {
        let change = self.change(loaded);
        match (self.errors.is_empty(), change) {
            (true, change) => FileResult::Changed(change.into_iter().collect()),
            (false, Some(change)) if !self.applied.is_empty() => {
                FileResult::Partial(vec![change], self.errors)
            }
            (false, _) => FileResult::Failed(self.errors),
        }
    }

    fn change(&self, loaded: Option<Arc<SourceText>>) -> Option<FileChange> {
        let path = self.renamed_to.clone().unwrap_or_else(|| self.path.clone());
        match (self.existed, self.presence) {
            (false, Presence::Missing) | (false, Presence::Deleted) => None,
            (true, Presence::Deleted) => Some(FileChange {
                path: self.path.clone(),
                from: None,
                status: FileStatus::Deleted,
                before: loaded,
                content: After::Deleted,
                edits: TextEdits::default(),
                edit_indices: self.applied.clone(),
            }),
            (false, Presence::Present) => Some(FileChange {
                path,
                from: None,
                status: FileStatus::Added,
                before: None,
                content: After::Text(self.doc.text().to_string()),
                edits: TextEdits::default(),
                edit_indices: self.applied.clone(),
            }),
            (true, _) => self.edited_change(&self.doc, loaded, self.applied.clone()),
        }
    }

    /// The change of the existing file when its text is `doc`'s, made by
    /// the payload edits `edit_indices`; `None` when it neither changes
    /// nor moves.
    fn edited_change(
        &self,
        doc: &Doc,
        loaded: Option<Arc<SourceText>>,
        edit_indices: Vec<usize>,
    ) -> Option<FileChange> {
        let path = self.renamed_to.clone().unwrap_or_else(|| self.path.clone());
        let from = self.renamed_to.as_ref().map(|_| self.path.clone());
        let edits = TextEdits::new(doc.edits())
            .unwrap_or_default()
            .minimized(doc.original());
        if edits.is_empty() && from.is_none() {
            return None;
        }
        Some(FileChange {
            path,
            status: if from.is_some() {
                FileStatus::Renamed
            } else {
                FileStatus::Modified
            },
            from,
            before: loaded,
            // Joined only when asked: a writer streams the pieces.
            content: After::edited(),
            edits,
            edit_indices,
        })
    }
}
