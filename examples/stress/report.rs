//! Tallies per format × mistake, and the text, markdown and JSON reports.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use crate::judge::{Judged, Verdict};

/// Counts of one group of cases.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Tally {
    pub cases: usize,
    pub right: usize,
    pub refused: usize,
    pub wrong: usize,
    pub unpinnable: usize,
    pub crash: usize,
    /// Refusals whose errors all name file, edit and lines.
    pub precise_refusals: usize,
    pub refused_by_kind: BTreeMap<String, usize>,
}

impl Tally {
    /// Counts one judged case.
    pub fn add(&mut self, judged: &Judged) {
        self.cases += 1;
        match &judged.verdict {
            Verdict::Right => self.right += 1,
            Verdict::Refused(kind) => {
                self.refused += 1;
                self.precise_refusals += usize::from(judged.precise);
                *self.refused_by_kind.entry(kind.clone()).or_default() += 1;
            }
            Verdict::Wrong => self.wrong += 1,
            Verdict::Unpinnable => self.unpinnable += 1,
            Verdict::Crash(_) => self.crash += 1,
        }
    }

    fn pct(&self, n: usize) -> String {
        if self.cases == 0 {
            "-".into()
        } else {
            format!("{:.1}%", 100.0 * n as f64 / self.cases as f64)
        }
    }

    /// `right refused wrong unpinnable crash`, counts and right/refused %.
    fn row(&self) -> [String; 8] {
        [
            self.cases.to_string(),
            format!("{} ({})", self.right, self.pct(self.right)),
            format!("{} ({})", self.refused, self.pct(self.refused)),
            format!("{} ({})", self.wrong, self.pct(self.wrong)),
            self.unpinnable.to_string(),
            self.crash.to_string(),
            if self.refused == 0 {
                "-".into()
            } else {
                format!(
                    "{:.0}%",
                    100.0 * self.precise_refusals as f64 / self.refused as f64
                )
            },
            self.refused_by_kind
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect::<Vec<_>>()
                .join(", "),
        ]
    }
}

const HEADER: [&str; 9] = [
    "",
    "cases",
    "right",
    "refused",
    "wrong",
    "unpinnable",
    "crash",
    "precise refusals",
    "refusal kinds",
];

/// Every tally of a run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    pub total: Tally,
    pub by_format: BTreeMap<String, Tally>,
    pub by_mistake: BTreeMap<String, Tally>,
    /// Keyed `format × mistake`.
    pub by_cell: BTreeMap<String, Tally>,
    /// Case ids whose mistake did not fit the pair or format.
    pub not_applicable: usize,
    /// Careful-reader mistakes, the cases where one place fits
    /// (`places.rs`).
    pub one_place: BTreeMap<String, Tally>,
}

impl Report {
    /// Counts one case.
    pub fn add(&mut self, format: &str, mistake: &str, judged: &Judged) {
        self.total.add(judged);
        self.by_format.entry(format.into()).or_default().add(judged);
        self.by_mistake
            .entry(mistake.into())
            .or_default()
            .add(judged);
        self.by_cell
            .entry(format!("{format} × {mistake}"))
            .or_default()
            .add(judged);
    }

    /// Counts one case of a careful-reader mistake where one place fits.
    pub fn add_one_place(&mut self, mistake: &str, judged: &Judged) {
        self.one_place
            .entry(mistake.into())
            .or_default()
            .add(judged);
    }

    /// The tables as markdown.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        let mut table = |title: &str, rows: Vec<(String, &Tally)>| {
            let _ = writeln!(out, "### {title}\n");
            let _ = writeln!(out, "| {} |", HEADER.join(" | "));
            let _ = writeln!(out, "|{}", "---|".repeat(HEADER.len()));
            for (name, t) in rows {
                let _ = writeln!(out, "| {name} | {} |", t.row().join(" | "));
            }
            out.push('\n');
        };
        table("Total", vec![("all".into(), &self.total)]);
        table(
            "By format",
            self.by_format.iter().map(|(k, t)| (k.clone(), t)).collect(),
        );
        table(
            "By mistake",
            self.by_mistake
                .iter()
                .map(|(k, t)| (k.clone(), t))
                .collect(),
        );
        table(
            "Where one place fits",
            self.one_place.iter().map(|(k, t)| (k.clone(), t)).collect(),
        );
        table(
            "Format × mistake",
            self.by_cell.iter().map(|(k, t)| (k.clone(), t)).collect(),
        );
        out
    }

    /// A compact plain-text summary: totals, formats, mistakes, and the
    /// cells that hold a wrong edit or a crash.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let mut line = |name: &str, t: &Tally| {
            let r = t.row();
            let _ = writeln!(
                out,
                "{name:<36} {:>6}  right {:<16} refused {:<16} wrong {:<14} unpinnable {:<5} crash {}",
                r[0], r[1], r[2], r[3], r[4], r[5]
            );
        };
        line("total", &self.total);
        for (k, t) in &self.by_format {
            line(k, t);
        }
        for (k, t) in &self.by_mistake {
            line(k, t);
        }
        for (k, t) in &self.one_place {
            line(&format!("{k} (one place fits)"), t);
        }
        for (k, t) in self.by_cell.iter().filter(|(_, t)| t.wrong + t.crash > 0) {
            line(k, t);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(verdict: Verdict, precise: bool) -> Judged {
        Judged {
            verdict,
            precise,
            detail: String::new(),
        }
    }

    #[test]
    fn tallies_add_up_per_group() {
        let mut r = Report::default();
        r.add("roo_diff", "none", &judged(Verdict::Right, true));
        r.add(
            "roo_diff",
            "elide",
            &judged(Verdict::Refused("ambiguous".into()), true),
        );
        r.add("edit_file", "elide", &judged(Verdict::Wrong, true));
        r.add(
            "edit_file",
            "elide",
            &judged(Verdict::Refused("not_found".into()), false),
        );
        assert_eq!(
            (r.total.cases, r.total.right, r.total.refused, r.total.wrong),
            (4, 1, 2, 1)
        );
        assert_eq!(r.total.precise_refusals, 1);
        assert_eq!(r.by_mistake["elide"].cases, 3);
        assert_eq!(r.by_cell["edit_file × elide"].wrong, 1);
        let md = r.markdown();
        assert!(md.contains("| edit_file × elide | 2 | 0 (0.0%) | 1 (50.0%) | 1 (50.0%) | 0 | 0 | 0% | not_found 1 |"), "{md}");
    }
}
