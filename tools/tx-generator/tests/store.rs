//! `prove --store DIR` prints exactly what `prove --leaves FILE` prints for the same leaves,
//! at the current and at an earlier size, and exits with the store's code on a store error.

use std::process::Command;

fn leaves(n: u64) -> Vec<[u8; 32]> {
    (0..n)
        .map(|i| ckb_mmr_sdk::ckb_hash(&[&i.to_le_bytes(), b"store"]))
        .collect()
}

fn prove(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tx-generator"))
        .arg("prove")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn prove_from_a_store_equals_prove_from_leaves() {
    let dir = std::env::temp_dir().join(format!("tx-generator-store-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let all = leaves(300);
    let store_dir = dir.join("store");
    let mut store = mmr_store::Store::create(&store_dir, None).unwrap();
    store.append(&all[..120]).unwrap();
    store.append(&all[120..]).unwrap();
    drop(store);
    let write = |name: &str, n: usize| {
        let path = dir.join(name);
        let text: String = all[..n]
            .iter()
            .map(|l| ckb_mmr_sdk::hex(l) + "\n")
            .collect();
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let (file_all, file_120) = (write("all.txt", 300), write("120.txt", 120));
    let s = store_dir.to_str().unwrap();
    let size_120 = mmr_lock::mmr::mmr_size_of(120).to_string();
    for format in ["compiled", "baseline"] {
        for idx in ["0", "5,77,119", "0-99"] {
            let a = prove(&["--store", s, "--index", idx, "--format", format]);
            let b = prove(&["--leaves", &file_all, "--index", idx, "--format", format]);
            assert_eq!(a.0, 0, "{}", a.2);
            assert_eq!(a, b);
            let a = prove(&[
                "--store", s, "--size", &size_120, "--index", idx, "--format", format,
            ]);
            let b = prove(&["--leaves", &file_120, "--index", idx, "--format", format]);
            assert_eq!(a.0, 0, "{}", a.2);
            assert_eq!(a, b);
        }
    }
    // Store errors keep their codes: index beyond the size (43), not an MMR size (44),
    // not a store (40).
    let (code, _, err) = prove(&["--store", s, "--size", &size_120, "--index", "120"]);
    assert_eq!((code, err.lines().count()), (43, 1), "{err}");
    assert_eq!(prove(&["--store", s, "--size", "2", "--index", "0"]).0, 44);
    assert_eq!(
        prove(&["--store", dir.to_str().unwrap(), "--index", "0"]).0,
        40
    );
    assert_eq!(
        prove(&["--store", s, "--leaves", &file_all, "--index", "0"]).0,
        2
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
