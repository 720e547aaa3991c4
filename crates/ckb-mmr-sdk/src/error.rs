//! Every way the client fails, each with its own process exit code (docs/deploy.md, "Exit
//! codes of ckb-devnet"). Input errors are found before anything is sent to the node.

use std::fmt;

#[derive(Debug)]
pub enum Error {
    /// Bad command line: unknown command or option, missing or malformed value.
    Usage(String),
    /// The RPC URL could not be reached (connection refused, DNS, TLS, timeout).
    Unreachable { url: String, reason: String },
    /// The node answered with an error that is not a script refusal, or with nonsense.
    Rpc { method: String, message: String },
    /// A verifier binary (or another input file) could not be read.
    File { path: String, reason: String },
    /// The key file does not hold a secp256k1 private key. Never carries the file's content.
    BadKey { path: String, reason: String },
    /// The key's cells cannot pay for the transaction.
    Capacity { needed: u64, available: u64 },
    /// The leaves file has a malformed line.
    Leaves { path: String, reason: String },
    /// A leaf index that is not in the MMR, or an index list that cannot be proved.
    Index(String),
    /// The node is a mainnet node and `--allow-mainnet` was not given.
    Mainnet,
    /// The node refused the transaction because a script failed: `code` is the script's exit
    /// code as the node prints it (an i8), when the failure was an exit code.
    Refused { code: Option<i8>, message: String },
    /// Something the command needs is not on chain (a deployment, a locked cell).
    NotFound(String),
    /// The node process could not be installed, initialised, started or stopped.
    Node(String),
    /// A sent transaction was not committed in time.
    Timeout(String),
    /// ckb-debugger could not run or its output could not be read.
    Debugger(String),
    /// The devnet scenario ran but a row did not come out as expected.
    Scenario(String),
    /// A leaves file that does not extend the accumulator's MMR on chain: its first n leaves
    /// do not give the chain's root, or it holds fewer leaves than the chain.
    NotExtending(String),
    /// The key cannot spend the cell the command must spend (the accumulator's lock is
    /// another key's).
    NotHolder(String),
    /// `acc sync` met a transaction that grew the accumulator without putting its leaves on
    /// chain (an ancestry extension or an import): the store stays at the last verified root.
    NoChainLeaves(String),
    /// A store whose root at a size the chain had disagrees with the chain's root there (or
    /// whose payload does not verify against it): a store of other leaves, or a damaged one.
    StoreDisagrees(String),
    /// A transaction the lock would refuse for its size: a creation whose witness is over the
    /// secp256k1 lock's 32,768 bytes (appends are split instead).
    TooLarge(String),
    /// The MMR store refused (crates/mmr-store): its own code, 40-53.
    Store(mmr_store::Error),
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// [`Error::Rpc`] for `method`.
    pub(crate) fn rpc(method: &str, message: impl Into<String>) -> Error {
        Error::Rpc {
            method: method.to_string(),
            message: message.into(),
        }
    }

    /// The process exit code for this error (0 is success; 1 is left to panics and signals).
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Usage(_) => 2,
            Error::Unreachable { .. } => 3,
            Error::Rpc { .. } => 4,
            Error::File { .. } => 5,
            Error::BadKey { .. } => 6,
            Error::Capacity { .. } => 7,
            Error::Leaves { .. } => 8,
            Error::Index(_) => 9,
            Error::Mainnet => 10,
            Error::Refused { .. } => 11,
            Error::NotFound(_) => 12,
            Error::Node(_) => 13,
            Error::Timeout(_) => 14,
            Error::Debugger(_) => 15,
            Error::Scenario(_) => 16,
            Error::NotExtending(_) => 17,
            Error::NotHolder(_) => 18,
            Error::NoChainLeaves(_) => 19,
            Error::StoreDisagrees(_) => 20,
            Error::TooLarge(_) => 21,
            Error::Store(e) => e.code(),
        }
    }
}

/// CKB amounts in shannons, printed as CKB.
pub fn ckb(shannons: u64) -> String {
    format!(
        "{}.{:08} CKB",
        shannons / 100_000_000,
        shannons % 100_000_000
    )
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(m) => write!(f, "{m}"),
            Error::Unreachable { url, reason } => {
                write!(f, "cannot reach the node at {url}: {reason}")
            }
            Error::Rpc { method, message } => write!(f, "RPC {method} failed: {message}"),
            Error::File { path, reason } => write!(f, "cannot read {path}: {reason}"),
            Error::BadKey { path, reason } => {
                write!(f, "{path} is not a private key file: {reason}")
            }
            Error::Capacity { needed, available } => write!(
                f,
                "not enough capacity: the transaction needs {} and the key's plain cells hold {}",
                ckb(*needed),
                ckb(*available)
            ),
            Error::Leaves { path, reason } => write!(f, "{path}: {reason}"),
            Error::Index(m) => write!(f, "{m}"),
            Error::Mainnet => write!(
                f,
                "the node is on mainnet (chain \"ckb\"): pass --allow-mainnet to really send there"
            ),
            Error::Refused {
                code: Some(c),
                message,
            } => {
                write!(
                    f,
                    "the node refused the transaction: script exit code {c} ({message})"
                )
            }
            Error::Refused {
                code: None,
                message,
            } => {
                write!(f, "the node refused the transaction: {message}")
            }
            Error::NotFound(m) => write!(f, "not found: {m}"),
            Error::Node(m) => write!(f, "node: {m}"),
            Error::Timeout(m) => write!(f, "timed out: {m}"),
            Error::Debugger(m) => write!(f, "ckb-debugger: {m}"),
            Error::Scenario(m) => write!(f, "scenario: {m}"),
            Error::NotExtending(m) => write!(f, "the leaves do not extend the chain's MMR: {m}"),
            Error::NotHolder(m) => write!(f, "not this key's cell: {m}"),
            Error::NoChainLeaves(m) => write!(f, "the chain holds no leaves for a step: {m}"),
            Error::StoreDisagrees(m) => write!(f, "the store disagrees with the chain: {m}"),
            Error::TooLarge(m) => write!(f, "too large for one transaction: {m}"),
            Error::Store(e) => write!(f, "store: {e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<mmr_store::Error> for Error {
    fn from(e: mmr_store::Error) -> Error {
        Error::Store(e)
    }
}
