//! Generated blocks in the project's Markdown documents.
//!
//! A block is the text between `<!-- NAME:start -->` and `<!-- NAME:end -->`. A block that
//! starts on the line after its start marker (a table) keeps that line break; an inline block
//! (a figure inside a sentence) starts right after the marker. The tools that write blocks
//! (cycle-lab, ckb-devnet) and the tests that check them (tests/tests/doc_tables.rs) read and
//! replace them with these functions, so they agree on where a block begins and ends.

use num_format::{Locale, ToFormattedStr, ToFormattedString};
use std::fmt;

/// A marker `between` or `replace_between` did not find.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingMarker {
    /// The marker as it would appear in the document.
    pub marker: String,
}

impl fmt::Display for MissingMarker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "no {} marker", self.marker)
    }
}

impl std::error::Error for MissingMarker {}

/// `<!-- NAME:start -->`.
pub fn start_marker(name: &str) -> String {
    format!("<!-- {name}:start -->")
}

/// `<!-- NAME:end -->`.
pub fn end_marker(name: &str) -> String {
    format!("<!-- {name}:end -->")
}

/// The byte range of block `name`'s text in `doc`: after the start marker and the line break
/// that follows it, if any, up to the first end marker after it.
pub fn range(doc: &str, name: &str) -> Result<std::ops::Range<usize>, MissingMarker> {
    let (open, close) = (start_marker(name), end_marker(name));
    let mut start = doc.find(&open).ok_or(MissingMarker {
        marker: open.clone(),
    })? + open.len();
    if doc[start..].starts_with('\n') {
        start += 1;
    }
    let end = doc[start..]
        .find(&close)
        .ok_or(MissingMarker { marker: close })?
        + start;
    Ok(start..end)
}

/// The text of block `name` in `doc`.
pub fn between<'a>(doc: &'a str, name: &str) -> Result<&'a str, MissingMarker> {
    range(doc, name).map(|r| &doc[r])
}

/// `doc` with the text of block `name` replaced by `body` (markers and the start marker's line
/// break kept).
pub fn replace_between(doc: &str, name: &str, body: &str) -> Result<String, MissingMarker> {
    let r = range(doc, name)?;
    let mut out = String::with_capacity(doc.len() - r.len() + body.len());
    out.push_str(&doc[..r.start]);
    out.push_str(body);
    out.push_str(&doc[r.end..]);
    Ok(out)
}

/// 1234567 -> "1,234,567" (negatives keep their sign: "-1,000").
pub fn thousands<N: ToFormattedStr>(n: N) -> String {
    n.to_formatted_string(&Locale::en)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Block `name` of `doc` reads `old`; with `new` in its place, the document is `after`.
    fn check(doc: &str, name: &str, old: &str, new: &str, after: &str) {
        assert_eq!(between(doc, name).unwrap(), old);
        assert_eq!(replace_between(doc, name, new).unwrap(), after);
    }

    #[test]
    fn a_table_block_keeps_its_line_break() {
        let doc = "a\n<!-- t:start -->\n| old |\n<!-- t:end -->\nb\n";
        let after = "a\n<!-- t:start -->\n| new |\n| row |\n<!-- t:end -->\nb\n";
        check(doc, "t", "| old |\n", "| new |\n| row |\n", after);
    }

    #[test]
    fn an_inline_block_starts_right_after_its_marker() {
        let doc = "costs <!-- c:start -->1,315 cycles<!-- c:end --> per merge";
        let after = "costs <!-- c:start -->1,299 cycles<!-- c:end --> per merge";
        check(doc, "c", "1,315 cycles", "1,299 cycles", after);
    }

    #[test]
    fn only_the_named_block_changes() {
        let doc = "<!-- a:start -->\nx\n<!-- a:end -->\n<!-- b:start -->\ny\n<!-- b:end -->\n";
        let new = replace_between(doc, "b", "z\n").unwrap();
        assert_eq!(
            new,
            "<!-- a:start -->\nx\n<!-- a:end -->\n<!-- b:start -->\nz\n<!-- b:end -->\n"
        );
        assert_eq!(between(&new, "a").unwrap(), "x\n");
    }

    #[test]
    fn missing_markers_are_named() {
        let e = between("text", "t").unwrap_err();
        assert_eq!(e.to_string(), "no <!-- t:start --> marker");
        // An end marker before the start marker does not close the block.
        let e = replace_between("<!-- t:end --> <!-- t:start -->", "t", "x").unwrap_err();
        assert_eq!(e.to_string(), "no <!-- t:end --> marker");
        // A name that prefixes another is a different block.
        assert!(between("<!-- table-2:start -->x<!-- table-2:end -->", "table").is_err());
    }

    #[test]
    fn numbers_read_well() {
        assert_eq!(thousands(1_234_567u64), "1,234,567");
        assert_eq!(thousands(-1_000i64), "-1,000");
        assert_eq!(thousands(999u32), "999");
        assert_eq!(thousands(0usize), "0");
    }
}
