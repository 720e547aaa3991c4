//! What the searches' reports share: the findings they keep and the table of labelled
//! counters they print (docs/assurance.md quotes the printed text).

use std::collections::BTreeMap;
use std::fmt::Write;

/// Adds each named counter of `$from` into `$into` (a worker's counters into the total).
macro_rules! add_counters {
    ($into:expr, $from:expr; $($field:ident),* $(,)?) => {
        $( $into.$field += $from.$field; )*
    };
}
pub(crate) use add_counters;

/// What a search binary prints and judges of a finished search.
pub trait Outcome {
    /// The problems found: forgeries, disagreements, rejected honest cases, undocumented
    /// codes (each search lists its own); the binaries exit 1 unless this is 0.
    fn problems(&self) -> u64;
    /// The counters, one labelled row each, then the findings.
    fn report(&self) -> String;
}

/// The problems a search describes, the first `CAP` of them: the counters count every one,
/// and a broken core would otherwise fill the report.
#[derive(Debug, Clone)]
pub struct Findings<const CAP: usize>(Vec<String>);

impl<const CAP: usize> Default for Findings<CAP> {
    fn default() -> Self {
        Findings(Vec::new())
    }
}

impl<const CAP: usize> Findings<CAP> {
    pub fn push(&mut self, what: String) {
        if self.0.len() < CAP {
            self.0.push(what);
        }
    }
}

impl<const CAP: usize> Extend<String> for Findings<CAP> {
    fn extend<I: IntoIterator<Item = String>>(&mut self, iter: I) {
        for what in iter {
            self.push(what);
        }
    }
}

impl<const CAP: usize> IntoIterator for Findings<CAP> {
    type Item = String;
    type IntoIter = std::vec::IntoIter<String>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<const CAP: usize> std::ops::Deref for Findings<CAP> {
    type Target = [String];
    fn deref(&self) -> &[String] {
        &self.0
    }
}

/// A report under construction: rows of a label padded to one width and a value
/// right-aligned in another, then free lines, then the findings.
pub struct Report {
    text: String,
    label: usize,
    value: usize,
}

impl Report {
    pub fn new(label: usize, value: usize) -> Report {
        Report {
            text: String::new(),
            label,
            value,
        }
    }

    pub fn row(&mut self, label: &str, value: u64) {
        let (l, v) = (self.label, self.value);
        writeln!(self.text, "{label:<l$} {value:>v$}").unwrap();
    }

    pub fn rows(&mut self, rows: &[(&str, u64)]) {
        for (label, value) in rows {
            self.row(label, *value);
        }
    }

    pub fn line(&mut self, line: &str) {
        writeln!(self.text, "{line}").unwrap();
    }

    /// The exit codes and how often each came, on one line: `codes (code:count) 0:311 9:10`.
    pub fn codes(&mut self, codes: &BTreeMap<i8, u64>) {
        let codes: Vec<String> = codes.iter().map(|(c, k)| format!("{c}:{k}")).collect();
        self.line(&format!("codes (code:count) {}", codes.join(" ")));
    }

    /// Ends the report with one `{tag}: {finding}` line per finding.
    pub fn finish<const CAP: usize>(mut self, tag: &str, findings: &Findings<CAP>) -> String {
        for f in findings.iter() {
            self.line(&format!("{tag}: {f}"));
        }
        self.text
    }
}
