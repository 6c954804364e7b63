//! One stress case: its id, and the draft and payload the id rebuilds.
//!
//! An id is `SEED:PAIR:FORMAT:MISTAKE:VARIANT` (for example
//! `7:123:roo_diff:indent_line:0`); the case's generator is seeded from all
//! five, so an id rebuilds the same payload in any run.

use std::fmt;

use crate::draft::Draft;
use crate::pairs::Pair;
use crate::rng::{name_seed, Rng};
use crate::{formats, mistakes};

/// Where a case comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseId {
    pub seed: u64,
    pub pair: usize,
    pub format: &'static str,
    pub mistake: &'static str,
    pub variant: u64,
}

impl fmt::Display for CaseId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}:{}:{}",
            self.seed, self.pair, self.format, self.mistake, self.variant
        )
    }
}

impl CaseId {
    /// Parses `SEED:PAIR:FORMAT:MISTAKE:VARIANT`.
    pub fn parse(text: &str) -> Result<CaseId, String> {
        let parts: Vec<&str> = text.split(':').collect();
        let bad = || format!("case id `{text}`: expected SEED:PAIR:FORMAT:MISTAKE:VARIANT");
        let [seed, pair, format, mistake, variant] = parts[..] else {
            return Err(bad());
        };
        Ok(CaseId {
            seed: seed.parse().map_err(|_| bad())?,
            pair: pair.parse().map_err(|_| bad())?,
            format: known(&formats::ALL, format).ok_or_else(bad)?,
            mistake: known(&mistakes::ALL, mistake).ok_or_else(bad)?,
            variant: variant.parse().map_err(|_| bad())?,
        })
    }
}

/// The `'static` name in `names` equal to `name`.
pub fn known(names: &[&'static str], name: &str) -> Option<&'static str> {
    names.iter().copied().find(|n| *n == name)
}

/// A built case.
pub struct Case {
    pub id: CaseId,
    pub draft: Draft,
    pub payload: String,
}

/// Builds the case `id` from `pairs`, or `None` when its mistake does not
/// fit the pair or the format cannot write it.
pub fn build(id: &CaseId, pairs: &[Pair]) -> Option<Case> {
    let pair = pairs.get(id.pair).filter(|p| p.is_consistent())?;
    let mut rng = Rng::from_parts(&[
        id.seed,
        id.pair as u64,
        name_seed(id.format),
        name_seed(id.mistake),
        id.variant,
    ]);
    if id.mistake == "double_escape" && !formats::is_string_tool(id.format) {
        return None;
    }
    // A chat code block has no search: only the mistakes of the file fit.
    if formats::is_code_block(id.format)
        && !matches!(id.mistake, "none" | "crlf_file" | "trailing_ws_file")
    {
        return None;
    }
    // Chat blocks show wide context around their changes.
    let context = if formats::is_code_block(id.format) {
        crate::draft::Context::Wide
    } else {
        mistakes::context(id.mistake)
    };
    let mut draft = Draft::build(pair, context, &mut rng);
    if !mistakes::apply(
        id.mistake,
        &mut draft,
        formats::has_hints(id.format),
        &mut rng,
    ) {
        return None;
    }
    let payload = formats::render(id.format, &draft, &mut rng)?;
    Some(Case {
        id: id.clone(),
        draft,
        payload,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip() {
        let id = CaseId::parse("7:123:roo_diff:indent_line:4").unwrap();
        assert_eq!(id.to_string(), "7:123:roo_diff:indent_line:4");
        assert!(CaseId::parse("7:123:nope:indent_line:4").is_err());
        assert!(CaseId::parse("7:123:roo_diff").is_err());
    }
}
