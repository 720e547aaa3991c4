//! A private key from a file, the default CKB lock it unlocks (secp256k1_blake160_sighash_all)
//! and its signature over a transaction. The key itself is never printed: `Debug` shows the
//! lock args only, and errors about a key file never quote the file.

use crate::error::{Error, Result};
use ckb_crypto::secp::Privkey;
use ckb_types::{bytes::Bytes, packed, prelude::*, H256};
use std::fmt;

/// Genesis key of the dev chain spec bundled with the node (`specs/dev.toml`), issued 20
/// billion CKB: the deployer and payer of the devnet scenario. Public: never fund it anywhere
/// else.
pub const DEV_KEY: &str = "d00c06bfd800d27397002dca6fb0993d5ba6399b4238b2f29ee9deb97593d2bc";
/// The dev spec's second genesis key (about 5.2 billion CKB): the owner in owner mode. Public
/// too.
pub const DEV_KEY_2: &str = "63d86723e08f0f813a36ce6aa123bb2289d90680ae1e99d4de8cdb334553f24d";

pub struct Key {
    secret: Privkey,
    pub blake160: [u8; 20],
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Key {{ blake160: {} }}", crate::hex(&self.blake160))
    }
}

impl Key {
    /// A key from 64 hex digits (`0x` optional, surrounding white space ignored); anything
    /// else is [`Error::BadKey`] (path `key`: [`Key::from_file`] names the file), whose
    /// message never carries the text.
    pub fn from_hex(text: &str) -> Result<Key> {
        Key::from_hex_text(text).map_err(|reason| Error::BadKey {
            path: "key".into(),
            reason,
        })
    }

    fn from_hex_text(text: &str) -> std::result::Result<Key, String> {
        let digits = text.trim();
        let digits = digits.strip_prefix("0x").unwrap_or(digits);
        if digits.len() != 64 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!(
                "expected 64 hex digits (an optional 0x first), found {} characters",
                digits.len()
            ));
        }
        let bytes = crate::parse_hex(digits).map_err(|e| e.to_string())?;
        let secret = Privkey::from_slice(&bytes);
        let pubkey = secret
            .pubkey()
            .map_err(|_| "not a valid secp256k1 secret key".to_string())?;
        let hash = ckb_hash::blake2b_256(pubkey.serialize());
        let blake160 = hash[..20].try_into().expect("20 bytes");
        Ok(Key { secret, blake160 })
    }

    pub fn from_file(path: &str) -> Result<Key> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::BadKey {
            path: path.to_string(),
            reason: e.to_string(),
        })?;
        Key::from_hex_text(&text).map_err(|reason| Error::BadKey {
            path: path.to_string(),
            reason,
        })
    }

    /// The key's default lock: secp256k1_blake160_sighash_all, `hash_type` type.
    pub fn lock(&self) -> packed::Script {
        crate::script::secp256k1_blake160(self.blake160)
    }

    /// The lock hash an owner-mode leaf names.
    pub fn lock_hash(&self) -> [u8; 32] {
        crate::bytes32(&self.lock().calc_script_hash())
    }

    /// Signs the inputs at `group` (all locked by this key's lock) the way
    /// secp256k1_blake160_sighash_all checks them: blake2b ("ckb-default-hash") over the
    /// transaction hash, then each witness of the group (the first with a 65-byte zero lock)
    /// and each witness past the inputs, every one preceded by its length as u64 LE. The
    /// recoverable signature goes into the first witness's `lock`.
    pub fn sign(&self, tx: packed::Transaction, group: &[usize]) -> packed::Transaction {
        let Some(&first) = group.first() else {
            return tx;
        };
        let raw = tx.raw();
        let tx_hash = raw.calc_tx_hash();
        let mut witnesses: Vec<packed::Bytes> = tx.witnesses().into_iter().collect();
        while witnesses.len() <= first {
            witnesses.push(packed::Bytes::default());
        }
        let args =
            packed::WitnessArgs::from_slice(&witnesses[first].raw_data()).unwrap_or_default();
        let placeholder = args
            .clone()
            .as_builder()
            .lock(Some(Bytes::from(vec![0u8; 65])).pack())
            .build();
        let mut hasher = ckb_hash::new_blake2b();
        hasher.update(tx_hash.as_slice());
        let mut add = |bytes: &[u8]| {
            hasher.update(&(bytes.len() as u64).to_le_bytes());
            hasher.update(bytes);
        };
        add(placeholder.as_slice());
        for &i in &group[1..] {
            add(&witnesses.get(i).map(|w| w.raw_data()).unwrap_or_default());
        }
        let inputs = raw.inputs().len();
        for w in witnesses.iter().skip(inputs) {
            add(&w.raw_data());
        }
        let mut message = [0u8; 32];
        hasher.finalize(&mut message);
        let signature = self
            .secret
            .sign_recoverable(&H256(message))
            .expect("signing a 32-byte message with a checked key");
        let signed = args
            .as_builder()
            .lock(Some(Bytes::from(signature.serialize())).pack())
            .build();
        witnesses[first] = signed.as_bytes().pack();
        tx.as_builder().witnesses(witnesses.pack()).build()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dev_keys_match_the_dev_spec_lock_args() {
        // specs/dev.toml names these lock args for the two genesis keys.
        let k = Key::from_hex(DEV_KEY).unwrap();
        assert_eq!(
            crate::hex(&k.blake160),
            "0xc8328aabcd9b9e8e64fbc566c4385c3bdeb219d7"
        );
        let k2 = Key::from_hex(&format!("0x{DEV_KEY_2}\n")).unwrap();
        assert_eq!(
            crate::hex(&k2.blake160),
            "0x470dcdc5e44064909650113a274b3b36aecb6dc7"
        );
    }

    #[test]
    fn rejects_what_is_not_a_key_without_quoting_it() {
        for bad in [
            "",
            "0x12",
            &"zz".repeat(32),
            &"00".repeat(32),
            &"ff".repeat(32),
        ] {
            let err = Key::from_hex(bad).unwrap_err();
            assert!(matches!(err, Error::BadKey { .. }), "{err}");
            let err = err.to_string();
            assert!(bad.len() < 8 || !err.contains(bad), "{err}");
        }
        assert!(format!("{:?}", Key::from_hex(DEV_KEY).unwrap()).contains("c8328aab"));
        assert!(!format!("{:?}", Key::from_hex(DEV_KEY).unwrap()).contains("d00c06bf"));
    }
}
