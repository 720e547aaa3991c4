//! CKB `Script`s as the owner check sees them: the molecule encoding and its hash, the
//! "lock script hash" that `load_cell_by_field(.., CellField::LockHash)` returns for a cell.
//! Hand-written (three fields) so the generator needs no ckb-types; the integration tests
//! hold it against ckb-types' `Script::calc_script_hash`.

use crate::{ckb_hash, hex, parse_hex};
use serde_json::{json, Value};

/// How a script's `code_hash` is resolved (the molecule byte in parentheses).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HashType {
    /// `data` (0): code_hash is the blake2b of the code, run in VM version 0.
    Data,
    /// `type` (1): code_hash is the hash of the type script of the code's cell (type id).
    Type,
    /// `data1` (2): by data hash, VM version 1.
    Data1,
    /// `data2` (4): by data hash, VM version 2.
    Data2,
}

impl HashType {
    pub fn byte(self) -> u8 {
        match self {
            HashType::Data => 0,
            HashType::Type => 1,
            HashType::Data1 => 2,
            HashType::Data2 => 4,
        }
    }

    /// The name used in JSON (ckb-debugger, RPC) and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            HashType::Data => "data",
            HashType::Type => "type",
            HashType::Data1 => "data1",
            HashType::Data2 => "data2",
        }
    }

    pub fn from_name(name: &str) -> Option<HashType> {
        [
            HashType::Data,
            HashType::Type,
            HashType::Data1,
            HashType::Data2,
        ]
        .into_iter()
        .find(|t| t.name() == name)
    }
}

/// A CKB script: `code_hash`, `hash_type`, `args`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    pub code_hash: [u8; 32],
    pub hash_type: HashType,
    pub args: Vec<u8>,
}

/// `code_hash` of the secp256k1_blake160_sighash_all lock on mainnet (Lina) and testnet
/// (Aggron), `hash_type` type (RFC 0024); its args are the blake160 of the owner's public key.
pub const SECP256K1_BLAKE160_CODE_HASH: [u8; 32] = [
    0x9b, 0xd7, 0xe0, 0x6f, 0x3e, 0xcf, 0x4b, 0xe0, 0xf2, 0xfc, 0xd2, 0x18, 0x8b, 0x23, 0xf1, 0xb9,
    0xfc, 0xc8, 0x8e, 0x5d, 0x4b, 0x65, 0xa8, 0x63, 0x7b, 0x17, 0x72, 0x3b, 0xbd, 0xa3, 0xcc, 0xe8,
];

/// `code_hash` of CKB's built-in type id script (`hash_type` type): "TYPE_ID", right-aligned.
pub const TYPE_ID_CODE_HASH: [u8; 32] =
    *b"\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0TYPE_ID";

impl Script {
    /// A type id type script with `args` (on chain: blake2b of the creating transaction's
    /// first input and the output index; the node then keeps the cell unique).
    pub fn type_id(args: [u8; 32]) -> Script {
        Script {
            code_hash: TYPE_ID_CODE_HASH,
            hash_type: HashType::Type,
            args: args.to_vec(),
        }
    }

    /// The default lock of a CKB wallet: secp256k1_blake160_sighash_all for `blake160`, the
    /// first 20 bytes of blake2b-256 ("ckb-default-hash") of the compressed public key.
    pub fn secp256k1_blake160(blake160: [u8; 20]) -> Script {
        Script {
            code_hash: SECP256K1_BLAKE160_CODE_HASH,
            hash_type: HashType::Type,
            args: blake160.to_vec(),
        }
    }

    /// Molecule `Script` (a table: `Byte32`, `byte`, `Bytes`).
    pub fn molecule(&self) -> Vec<u8> {
        let header = 16u32;
        let hash_type_at = header + 32;
        let args_at = hash_type_at + 1;
        let total = args_at + 4 + self.args.len() as u32;
        let mut out = Vec::with_capacity(total as usize);
        for word in [total, header, hash_type_at, args_at] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.extend_from_slice(&self.code_hash);
        out.push(self.hash_type.byte());
        out.extend_from_slice(&(self.args.len() as u32).to_le_bytes());
        out.extend_from_slice(&self.args);
        out
    }

    /// The script hash: blake2b-256 "ckb-default-hash" of the molecule encoding. For a cell's
    /// lock this is the cell's lock hash, the value an owner-mode leaf must equal.
    pub fn hash(&self) -> [u8; 32] {
        ckb_hash(&[&self.molecule()])
    }

    /// `CODE_HASH:HASH_TYPE:ARGS`, hex with or without `0x`, hash type by name
    /// (`data`, `type`, `data1`, `data2`); empty args may be written `0x` or left empty.
    pub fn parse(spec: &str) -> Result<Script, String> {
        let parts: Vec<&str> = spec.split(':').collect();
        let [code_hash, hash_type, args] = parts[..] else {
            return Err(format!(
                "a script is CODE_HASH:HASH_TYPE:ARGS (three fields separated by ':'), got {spec:?}"
            ));
        };
        let code_hash: [u8; 32] = parse_hex(code_hash)?
            .try_into()
            .map_err(|_| format!("code_hash must be 32 bytes: {code_hash:?}"))?;
        let hash_type = HashType::from_name(hash_type).ok_or_else(|| {
            format!("hash_type must be data, type, data1 or data2, got {hash_type:?}")
        })?;
        Ok(Script {
            code_hash,
            hash_type,
            args: parse_hex(args)?,
        })
    }

    /// The form [`Script::parse`] reads.
    pub fn spec(&self) -> String {
        format!(
            "{}:{}:{}",
            hex(&self.code_hash),
            self.hash_type.name(),
            hex(&self.args)
        )
    }

    /// As JSON in a ckb-debugger mock transaction (and the RPC).
    pub fn to_json(&self) -> Value {
        json!({
            "code_hash": hex(&self.code_hash),
            "hash_type": self.hash_type.name(),
            "args": hex(&self.args),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_round_trip() {
        let s = Script::secp256k1_blake160([0x11; 20]);
        assert_eq!(Script::parse(&s.spec()), Ok(s.clone()));
        let no_prefix = s.spec().replace("0x", "");
        assert_eq!(Script::parse(&no_prefix), Ok(s));
        let empty = Script::parse(&format!("{}:data2:0x", hex(&[7; 32]))).unwrap();
        assert!(empty.args.is_empty());
        assert_eq!(empty.molecule().len(), 16 + 32 + 1 + 4);
        assert!(Script::parse("00:type:").is_err());
        assert!(Script::parse(&format!("{}:data3:", hex(&[7; 32]))).is_err());
        assert!(Script::parse(&format!("{}:type", hex(&[7; 32]))).is_err());
    }

    #[test]
    fn secp_code_hash_is_the_genesis_type_id() {
        // RFC 0024: the lock's code_hash is the hash of the type id script of its genesis cell.
        let type_id = Script {
            code_hash: *b"\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0TYPE_ID",
            hash_type: HashType::Type,
            args: parse_hex("0x8536c9d5d908bd89fc70099e4284870708b6632356aad98734fcf43f6f71c304")
                .unwrap(),
        };
        assert_eq!(
            Script::type_id(type_id.args[..].try_into().unwrap()),
            type_id
        );
        assert_eq!(type_id.hash(), SECP256K1_BLAKE160_CODE_HASH);
    }
}
