//! docs/error-codes.md's store table ("The store") against `Error::code` and `Error::name`.

use mmr_store::Error;
use std::path::PathBuf;

/// One error of each kind. The match makes a new variant a compile error here until it is
/// added (and documented).
fn every_kind() -> Vec<Error> {
    let all = vec![
        Error::NotAStore {
            dir: PathBuf::new(),
            why: String::new(),
        },
        Error::OtherAccumulator {
            store: [0; 32],
            expected: [1; 32],
        },
        Error::BadLeaf {
            line: 1,
            why: String::new(),
        },
        Error::IndexBeyondSize {
            index: 3,
            leaves: 3,
        },
        Error::NotMmrSize(2),
        Error::BeyondStore { asked: 8, store: 4 },
        Error::Locked(PathBuf::new()),
        Error::Corrupt(String::new()),
        Error::Io {
            what: String::new(),
            err: std::io::Error::other("x"),
        },
        Error::AlreadyAStore(PathBuf::new()),
        Error::Empty(""),
        Error::RootMismatch {
            mmr_size: 1,
            expected: [0; 32],
            computed: [1; 32],
        },
        Error::SizeOrder { old: 4, new: 4 },
        Error::ReadOnly,
    ];
    for e in &all {
        match e {
            Error::NotAStore { .. }
            | Error::OtherAccumulator { .. }
            | Error::BadLeaf { .. }
            | Error::IndexBeyondSize { .. }
            | Error::NotMmrSize(_)
            | Error::BeyondStore { .. }
            | Error::Locked(_)
            | Error::Corrupt(_)
            | Error::Io { .. }
            | Error::AlreadyAStore(_)
            | Error::Empty(_)
            | Error::RootMismatch { .. }
            | Error::SizeOrder { .. }
            | Error::ReadOnly => {}
        }
    }
    all
}

#[test]
fn error_codes_md_store_table_is_code_and_name() {
    let expected: Vec<(u8, String)> = every_kind()
        .iter()
        .map(|e| (e.code(), e.name().to_string()))
        .collect();
    let codes: Vec<u8> = expected.iter().map(|(c, _)| *c).collect();
    assert_eq!(codes, (40..=53).collect::<Vec<u8>>());
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/error-codes.md");
    let text = std::fs::read_to_string(path).unwrap();
    let section = text
        .split("## The store")
        .nth(1)
        .expect("error-codes.md's store section");
    let rows: Vec<(u8, String)> = section
        .lines()
        .filter_map(|l| {
            let mut cells = l.split('|').skip(1).map(str::trim);
            let code = cells.next()?.parse().ok()?;
            Some((code, cells.next()?.trim_matches('`').to_string()))
        })
        .collect();
    assert_eq!(
        rows, expected,
        "error-codes.md's store table (left), the code (right)"
    );
}
