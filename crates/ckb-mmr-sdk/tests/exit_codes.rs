//! docs/deploy.md's exit-code table against [`Error::exit_code`]. The docs are read at run
//! time from the workspace, so the packaged crate holds nothing from outside its directory.

use ckb_mmr_sdk::error::Error;

/// docs/deploy.md's exit-code table names every code the client can exit with, and the
/// codes are distinct.
#[test]
fn every_exit_code_is_documented_once() {
    let s = String::new;
    let all = [
        Error::Usage(s()),
        Error::Unreachable {
            url: s(),
            reason: s(),
        },
        Error::Rpc {
            method: s(),
            message: s(),
        },
        Error::File {
            path: s(),
            reason: s(),
        },
        Error::BadKey {
            path: s(),
            reason: s(),
        },
        Error::Capacity {
            needed: 0,
            available: 0,
        },
        Error::Leaves {
            path: s(),
            reason: s(),
        },
        Error::Index(s()),
        Error::Mainnet,
        Error::Refused {
            code: None,
            message: s(),
        },
        Error::NotFound(s()),
        Error::Node(s()),
        Error::Timeout(s()),
        Error::Debugger(s()),
        Error::Scenario(s()),
        Error::NotExtending(s()),
        Error::NotHolder(s()),
        Error::NoChainLeaves(s()),
        Error::StoreDisagrees(s()),
        Error::TooLarge(s()),
    ];
    let codes: Vec<u8> = all.iter().map(Error::exit_code).collect();
    let mut unique = codes.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), codes.len(), "{codes:?}");
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/deploy.md"),
    )
    .unwrap();
    let table = &doc[doc.find("### Exit codes of ckb-devnet").unwrap()..];
    for code in codes {
        assert!(
            table.contains(&format!("\n| {code} | ")),
            "exit code {code} is not in docs/deploy.md's table"
        );
    }
    // The store's codes pass through; they sit above every code of the client's own.
    assert!(table.contains("\n| 40-53 | "));
    let store = Error::Store(mmr_store::Error::ReadOnly);
    assert_eq!(store.exit_code(), 53);
    assert!(unique.iter().all(|&c| c < 40));
}
