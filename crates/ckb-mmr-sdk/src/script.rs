//! CKB `Script`s as the owner check and the by-reference lock see them: ckb-types'
//! [`packed::Script`], named on the command line as `CODE_HASH:HASH_TYPE:ARGS`. Its hash
//! ([`hash`], ckb-types' `calc_script_hash`) is the "lock script hash" that
//! `load_cell_by_field(.., CellField::LockHash)` returns for a cell.

use crate::error::{Error, Result};
use crate::{bytes32, hex, parse_hex};
use ckb_types::{bytes::Bytes, core::ScriptHashType, prelude::*};

pub use ckb_types::packed::Script;

/// `code_hash` of the secp256k1_blake160_sighash_all lock on mainnet (Lina) and testnet
/// (Aggron), `hash_type` type (RFC 0024); its args are the blake160 of the owner's public key.
pub const SECP256K1_BLAKE160_CODE_HASH: [u8; 32] = [
    0x9b, 0xd7, 0xe0, 0x6f, 0x3e, 0xcf, 0x4b, 0xe0, 0xf2, 0xfc, 0xd2, 0x18, 0x8b, 0x23, 0xf1, 0xb9,
    0xfc, 0xc8, 0x8e, 0x5d, 0x4b, 0x65, 0xa8, 0x63, 0x7b, 0x17, 0x72, 0x3b, 0xbd, 0xa3, 0xcc, 0xe8,
];

/// `code_hash` of CKB's built-in type id script (`hash_type` type): "TYPE_ID", right-aligned.
pub const TYPE_ID_CODE_HASH: [u8; 32] =
    *b"\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0TYPE_ID";

/// The hash types by the names JSON (ckb-debugger, RPC) and the command line use.
const HASH_TYPES: [(ScriptHashType, &str); 4] = [
    (ScriptHashType::Data, "data"),
    (ScriptHashType::Type, "type"),
    (ScriptHashType::Data1, "data1"),
    (ScriptHashType::Data2, "data2"),
];

/// `data`, `type`, `data1` or `data2`.
pub fn hash_type_from_name(name: &str) -> Option<ScriptHashType> {
    HASH_TYPES.iter().find(|(_, n)| *n == name).map(|(t, _)| *t)
}

/// The name of a hash type as JSON writes it; `None` for a byte that names none.
pub fn hash_type_name(byte: u8) -> Option<&'static str> {
    HASH_TYPES
        .iter()
        .find(|(t, _)| *t as u8 == byte)
        .map(|(_, n)| *n)
}

/// A script from its parts.
pub fn new(code_hash: [u8; 32], hash_type: ScriptHashType, args: &[u8]) -> Script {
    Script::new_builder()
        .code_hash(code_hash.pack())
        .hash_type(hash_type)
        .args(Bytes::copy_from_slice(args).pack())
        .build()
}

/// A type id type script with `args` (on chain: blake2b of the creating transaction's first
/// input and the output index; the node then keeps the cell unique).
pub fn type_id(args: [u8; 32]) -> Script {
    new(TYPE_ID_CODE_HASH, ScriptHashType::Type, &args)
}

/// The default lock of a CKB wallet: secp256k1_blake160_sighash_all for `blake160`, the first
/// 20 bytes of blake2b-256 ("ckb-default-hash") of the compressed public key.
pub fn secp256k1_blake160(blake160: [u8; 20]) -> Script {
    new(
        SECP256K1_BLAKE160_CODE_HASH,
        ScriptHashType::Type,
        &blake160,
    )
}

/// The script hash: blake2b-256 "ckb-default-hash" of the molecule encoding. For a cell's lock
/// this is the cell's lock hash, the value an owner-mode leaf must equal.
pub fn hash(script: &Script) -> [u8; 32] {
    bytes32(&script.calc_script_hash())
}

/// `CODE_HASH:HASH_TYPE:ARGS`, hex with or without `0x`, hash type by name (`data`, `type`,
/// `data1`, `data2`); empty args may be written `0x` or left empty. Anything else is
/// [`Error::Usage`].
pub fn parse(spec: &str) -> Result<Script> {
    let parts: Vec<&str> = spec.split(':').collect();
    let [code_hash, hash_type, args] = parts[..] else {
        return Err(Error::Usage(format!(
            "a script is CODE_HASH:HASH_TYPE:ARGS (three fields separated by ':'), got {spec:?}"
        )));
    };
    let code_hash: [u8; 32] = parse_hex(code_hash)?
        .try_into()
        .map_err(|_| Error::Usage(format!("code_hash must be 32 bytes: {code_hash:?}")))?;
    let hash_type = hash_type_from_name(hash_type).ok_or_else(|| {
        Error::Usage(format!(
            "hash_type must be data, type, data1 or data2, got {hash_type:?}"
        ))
    })?;
    Ok(new(code_hash, hash_type, &parse_hex(args)?))
}

/// The form [`parse`] reads.
pub fn spec(script: &Script) -> String {
    let hash_type: u8 = script.hash_type().into();
    format!(
        "{}:{}:{}",
        hex(script.code_hash().as_slice()),
        hash_type_name(hash_type).unwrap_or("unknown"),
        hex(&script.args().raw_data())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_round_trip() {
        let s = secp256k1_blake160([0x11; 20]);
        assert_eq!(parse(&spec(&s)).unwrap(), s);
        let no_prefix = spec(&s).replace("0x", "");
        assert_eq!(parse(&no_prefix).unwrap(), s);
        let empty = parse(&format!("{}:data2:0x", hex(&[7; 32]))).unwrap();
        assert!(empty.args().raw_data().is_empty());
        assert_eq!(empty.as_slice().len(), 16 + 32 + 1 + 4);
        assert_eq!(empty.hash_type(), ScriptHashType::Data2.into());
    }

    #[test]
    fn malformed_scripts_are_usage_errors() {
        let h = hex(&[7; 32]);
        for bad in [
            "00:type:".to_string(),
            format!("{h}:data3:"),
            format!("{h}:type"),
            format!("{h}:type:0x1"),
            format!("{h}:type:zz"),
            format!("{h}:type::"),
            String::new(),
        ] {
            assert!(
                matches!(parse(&bad), Err(Error::Usage(_))),
                "{bad:?} was not refused"
            );
        }
    }

    #[test]
    fn every_hash_type_has_its_molecule_byte() {
        for (t, name) in HASH_TYPES {
            assert_eq!(hash_type_from_name(name), Some(t));
            assert_eq!(hash_type_name(t as u8), Some(name));
        }
        assert_eq!(hash_type_name(3), None);
    }

    #[test]
    fn secp_code_hash_is_the_genesis_type_id() {
        // RFC 0024: the lock's code_hash is the hash of the type id script of its genesis cell.
        let args = parse_hex("0x8536c9d5d908bd89fc70099e4284870708b6632356aad98734fcf43f6f71c304")
            .unwrap();
        assert_eq!(
            hash(&type_id(args[..].try_into().unwrap())),
            SECP256K1_BLAKE160_CODE_HASH
        );
    }
}
