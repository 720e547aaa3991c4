//! The commands of `ckb-devnet`, one module per group, and what they share: the node and key
//! options of a client command, the value parsers, and how a result is printed.

pub mod acc;
pub mod client;
pub mod debug;
pub mod local;

use ckb_devnet::fresh_chain::file_error;
use ckb_mmr_sdk::chain::Chain;
use ckb_mmr_sdk::error::Result;
use ckb_mmr_sdk::key::Key;
use ckb_mmr_sdk::wallet::{DEFAULT_FEE_RATE, SHANNONS_PER_CKB};
use ckb_mmr_sdk::Format;
use ckb_types::packed;
use clap::Args;
use serde::Serialize;
use serde_json::Value;

/// The options of a command that reads a node and sends nothing.
#[derive(Args, Debug)]
pub struct Reader {
    /// The node's JSON-RPC URL
    #[arg(long, value_name = "URL")]
    pub rpc: String,
    /// Print the result as one JSON object instead of `name: value` lines
    #[arg(long)]
    pub json: bool,
    /// Needed to talk to a mainnet node
    #[arg(long)]
    pub allow_mainnet: bool,
}

/// The options of a command that pays and signs with a key.
#[derive(Args, Debug)]
pub struct Client {
    #[command(flatten)]
    pub read: Reader,
    /// A file with one hex private key: it pays, signs and holds
    #[arg(long, value_name = "FILE")]
    pub key: String,
    /// The fee rate, shannons per 1,000 bytes
    #[arg(long, value_name = "SHANNONS_PER_KB", default_value_t = DEFAULT_FEE_RATE)]
    pub fee_rate: u64,
    /// Never mine: wait for the node's own miner
    #[arg(long)]
    pub no_generate: bool,
}

impl Client {
    /// The chain and the key; the key is read before anything is sent.
    pub fn connect(&self) -> Result<(Chain, Key, u64)> {
        let key = Key::from_file(&self.key)?;
        let mut chain = Chain::connect(&self.read.rpc, self.read.allow_mainnet)?;
        if self.no_generate {
            chain = chain.no_generate();
        }
        Ok((chain, key, self.fee_rate))
    }
}

/// A 32-byte hash or type id argument, as hex.
pub fn hash32(s: &str) -> std::result::Result<[u8; 32], String> {
    ckb_mmr_sdk::parse_hash("", s).map_err(|_| "not 32 bytes of hex".to_string())
}

/// An out point argument, `0xTXHASH:INDEX`.
pub fn out_point(s: &str) -> std::result::Result<packed::OutPoint, String> {
    ckb_mmr_sdk::parse_out_point(s).map_err(|_| "not an out point 0xTXHASH:INDEX".to_string())
}

/// A payload format argument.
pub fn format(s: &str) -> std::result::Result<Format, String> {
    Format::from_name(s).ok_or_else(|| "baseline or compiled".to_string())
}

/// A capacity in whole CKB, as shannons.
pub fn capacity(s: &str) -> std::result::Result<u64, String> {
    s.parse::<u64>()
        .ok()
        .and_then(|c| c.checked_mul(SHANNONS_PER_CKB))
        .ok_or_else(|| "whole CKB".to_string())
}

/// Prints `row` as JSON (`--json`) or as `name: value` lines, in the JSON's key order.
pub fn print(json: bool, row: &impl Serialize) {
    let fields = serde_json::to_value(row).expect("a report row serializes");
    if json {
        println!("{fields}");
        return;
    }
    if let Value::Object(map) = fields {
        for (k, v) in map {
            match v {
                Value::String(s) => println!("{k}: {s}"),
                other => println!("{k}: {other}"),
            }
        }
    }
}

/// A file write's error as the SDK's.
pub fn write_file(path: &str, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| file_error(path, e))
}

/// A file read's error as the SDK's.
pub fn read_text(path: &str) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| file_error(path, e))
}
