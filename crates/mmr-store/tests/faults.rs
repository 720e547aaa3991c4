//! Bad input and faults: every error code (API and CLI, one line, store unchanged), torn
//! tails, flipped bytes, a second writer, and SIGKILL in the middle of appends.

mod common;

use common::*;
use mmr_lock::mmr::mmr_size_of;
use mmr_store::{files, Error, Store};
use rand::{rngs::StdRng, Rng, SeedableRng};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// Runs the CLI: (exit code, stdout, stderr).
fn cli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin()).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The CLI fails with `code` and exactly one line on stderr.
fn cli_fails(args: &[&str], code: i32) -> String {
    let (got, out, err) = cli(args);
    assert_eq!(got, code, "{args:?}: stdout {out:?} stderr {err:?}");
    assert_eq!(err.lines().count(), 1, "{args:?}: not one line: {err:?}");
    assert!(err.starts_with("mmr-store: "), "{err:?}");
    err
}

/// Everything on disk that a failed call must leave alone.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    [files::META, files::NODES, files::COMMITS]
        .iter()
        .map(|f| {
            (
                f.to_string(),
                std::fs::read(dir.join(f)).unwrap_or_default(),
            )
        })
        .collect()
}

fn store_with(dir: &Path, batches: &[&[[u8; 32]]]) -> Store {
    let mut s = Store::create(dir, None).unwrap();
    for b in batches {
        s.append(b).unwrap();
    }
    s
}

fn code<T: std::fmt::Debug>(r: Result<T, Error>) -> u8 {
    r.unwrap_err().code()
}

#[test]
fn every_error_has_its_code_and_changes_nothing() {
    let t = TempDir::new("codes");
    let dir = t.store();
    let d = dir.to_str().unwrap();
    let all = leaves(1, 40);
    let id_a = [0xaa; 32];
    let id_b = [0xbb; 32];
    {
        let mut s = store_with(&dir, &[&all[..30]]);
        s.set_accumulator(id_a).unwrap();
    }
    let before = snapshot(&dir);
    let mut seen = BTreeSet::new();
    let mut note = |c: u8| {
        seen.insert(c);
        c
    };

    // 40: not a store (an empty directory, a missing one, bad magic, unknown version).
    let empty = t.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    assert_eq!(note(code(Store::open_read_only(&empty))), 40);
    assert_eq!(code(Store::open(&t.path().join("missing"))), 40);
    let fake = t.path().join("fake");
    std::fs::create_dir_all(&fake).unwrap();
    std::fs::write(fake.join(files::META), [0u8; 64]).unwrap();
    assert_eq!(code(Store::open_read_only(&fake)), 40);
    let mut meta = std::fs::read(dir.join(files::META)).unwrap();
    meta[8] = 2;
    std::fs::write(fake.join(files::META), &meta).unwrap();
    let err = Store::open_read_only(&fake).unwrap_err();
    assert_eq!(err.code(), 40);
    assert!(err.to_string().contains("format version 2"), "{err}");
    cli_fails(&["info", empty.to_str().unwrap()], 40);

    // 41: another accumulator.
    let s = Store::open_read_only(&dir).unwrap();
    assert_eq!(note(code(s.expect_accumulator(&id_b))), 41);
    s.expect_accumulator(&id_a).unwrap();
    drop(s);
    let mut w = Store::open(&dir).unwrap();
    assert_eq!(code(w.set_accumulator(id_b)), 41);
    drop(w);
    cli_fails(&["set-accumulator", d, &mmr_store::hex(&id_b)], 41);

    // 42: a leaves-file line that is not 32 bytes, found before anything is appended.
    let bad = t.path().join("bad.txt");
    let mut text = String::new();
    for l in &all[30..35] {
        text.push_str(&mmr_store::hex(l));
        text.push('\n');
    }
    text.push_str(&mmr_store::hex(&[1u8; 31]));
    text.push('\n');
    std::fs::write(&bad, &text).unwrap();
    let err = cli_fails(&["append", d, "--leaves", bad.to_str().unwrap()], 42);
    assert!(err.contains("line 6"), "{err}");
    assert_eq!(note(code(mmr_store::parse_leaves("zz"))), 42);

    // 43: an index beyond the size.
    let s = Store::open_read_only(&dir).unwrap();
    assert_eq!(note(code(s.proof(s.mmr_size(), &[30]))), 43);
    assert_eq!(code(s.proof(mmr_size_of(10), &[10])), 43);
    s.proof(mmr_size_of(11), &[10]).unwrap();
    cli_fails(&["prove", d, "--index", "3,30"], 43);

    // 44: not an MMR size; 45: beyond the store.
    assert_eq!(note(code(s.root_at(2))), 44);
    assert_eq!(code(s.root_at(0)), 44);
    assert_eq!(note(code(s.root_at(mmr_size_of(31)))), 45);
    assert_eq!(code(s.node(s.mmr_size())), 45);
    cli_fails(&["root", d, "--size", "2"], 44);
    cli_fails(&["prove", d, "--index", "0", "--size", "5"], 44);
    let (size31, size500) = (mmr_size_of(31).to_string(), mmr_size_of(500).to_string());
    cli_fails(&["root", d, "--size", &size31], 45);
    cli_fails(&["ancestry", d, "--from", "1", "--to", &size500], 45);

    // 46: a second writer, in this process and from another.
    let w = Store::open(&dir).unwrap();
    assert_eq!(note(code(Store::open(&dir))), 46);
    let good = t.path().join("good.txt");
    write_leaves(&good, &all[30..]);
    cli_fails(&["append", d, "--leaves", good.to_str().unwrap()], 46);
    // Readers are not refused.
    Store::open_read_only(&dir).unwrap();
    drop(w);
    // 46 too while the TypeScript kit's writer lock (lock.pid, "PID HOST") names a live
    // process of this host, or anything it cannot judge; a dead writer's file is stale.
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    let kit_lock = dir.join(files::KIT_LOCK);
    let mut child = Command::new("sleep").arg("30").spawn().unwrap();
    for held in [
        format!("{} {}\n", child.id(), host.trim()),
        format!("{} another-host\n", std::process::id()),
        "not a pid\n".to_string(),
    ] {
        std::fs::write(&kit_lock, held).unwrap();
        assert_eq!(code(Store::open(&dir)), 46);
    }
    std::fs::write(&kit_lock, format!("{} {}\n", child.id(), host.trim())).unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    drop(Store::open(&dir).unwrap());
    std::fs::remove_file(&kit_lock).unwrap();

    // 48: I/O (a leaves file that cannot be read).
    cli_fails(&["append", d, "--leaves", "/nonexistent/leaves"], 48);
    note(48);

    // 49: a store where one already is.
    assert_eq!(note(code(Store::create(&dir, None))), 49);
    cli_fails(&["init", d], 49);

    // 50: nothing to work on.
    assert_eq!(note(code(s.proof(s.mmr_size(), &[]))), 50);
    let e = TempDir::new("empty-store");
    let es = Store::create(&e.store(), None).unwrap();
    assert_eq!(code(es.root()), 50);
    drop(es);

    // 51: an append whose root is not the expected one.
    let mut w = Store::open(&dir).unwrap();
    assert_eq!(
        note(code(w.append_expecting(&all[30..], Some(&[7; 32])))),
        51
    );
    assert_eq!(w.mmr_size(), mmr_size_of(30));
    drop(w);
    let (good_file, seven) = (good.to_str().unwrap(), mmr_store::hex(&[7; 32]));
    let err = cli_fails(
        &["append", d, "--leaves", good_file, "--expect-root", &seven],
        51,
    );
    assert!(err.contains("nothing appended"), "{err}");

    // 52: sizes out of order.
    assert_eq!(
        note(code(s.ancestry_proof(mmr_size_of(9), mmr_size_of(9)))),
        52
    );
    assert_eq!(code(s.append_payload(mmr_size_of(9), mmr_size_of(3))), 52);
    let size9 = mmr_size_of(9).to_string();
    cli_fails(&["append-payload", d, "--from", &size9, "--to", "4"], 52);

    // 53: a write through a reader.
    let mut r = Store::open_read_only(&dir).unwrap();
    assert_eq!(note(code(r.append(&all[30..]))), 53);
    assert_eq!(code(r.set_accumulator(id_a)), 53);
    drop(r);
    drop(s);

    // 2: usage.
    cli_fails(&["prove", d], 2);
    cli_fails(&["root", d, "--size", "x"], 2);
    cli_fails(&["frobnicate", d], 2);

    assert_eq!(snapshot(&dir), before, "a failed call changed the store");

    // 47: corrupt (last, as it changes the files).
    let mut nodes = std::fs::read(dir.join(files::NODES)).unwrap();
    nodes[5 * 32 + 3] ^= 1;
    std::fs::write(dir.join(files::NODES), &nodes).unwrap();
    let s = Store::open_read_only(&dir).unwrap();
    assert_eq!(note(code(s.check())), 47);
    cli_fails(&["check", d], 47);

    // Every code 40-53 is reached, and they are distinct.
    let all_codes: BTreeSet<u8> = (40..=53).collect();
    assert_eq!(seen, all_codes);

    // The CLI on the good path prints what the API computes.
    let t2 = TempDir::new("cli-ok");
    let d2 = t2.store();
    let d2s = d2.to_str().unwrap();
    assert_eq!(cli(&["init", d2s]).0, 0);
    let (c, out, _) = cli(&["append", d2s, "--leaves", good_file, "--batch", "3"]);
    assert_eq!(c, 0);
    let root = ref_root(&all[30..]);
    assert!(
        out.contains(&format!("root: {}", mmr_store::hex(&root))),
        "{out}"
    );
    assert!(out.contains("commits: 4"), "{out}");
    let (c, out, _) = cli(&["check", d2s]);
    assert_eq!(
        (c, out.contains("4 recorded roots match")),
        (0, true),
        "{out}"
    );
}

#[test]
fn torn_tails_are_cut_and_never_served() {
    let all = leaves(2, 300);
    let t = TempDir::new("torn");
    let dir = t.store();
    drop(store_with(&dir, &[&all[..100], &all[100..200]]));
    let size = mmr_size_of(200);
    let root200 = ref_root(&all[..200]);
    let root100 = ref_root(&all[..100]);
    let append = |name: &str, bytes: &[u8]| {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.join(name))
            .unwrap();
        f.write_all(bytes).unwrap();
    };
    let len = |name: &str| std::fs::metadata(dir.join(name)).unwrap().len();

    // Nodes of an append that never committed, ending mid-node, and garbage in the log:
    // a partial record, then a whole record that fails its checksum.
    append(files::NODES, &[0x77; 32 * 5 + 13]);
    append(files::COMMITS, &[0x55; 20]);
    let r = Store::open_read_only(&dir).unwrap();
    assert_eq!((r.mmr_size(), r.root().unwrap()), (size, root200));
    r.check().unwrap();
    drop(r);
    let w = Store::open(&dir).unwrap();
    assert_eq!((w.mmr_size(), w.root().unwrap()), (size, root200));
    drop(w);
    assert_eq!(len(files::NODES), size * 32);
    assert_eq!(len(files::COMMITS), 2 * 48);
    append(files::COMMITS, &[0x55; 48]);
    let mut w = Store::open(&dir).unwrap();
    assert_eq!(w.mmr_size(), size);
    assert_eq!(len(files::COMMITS), 2 * 48);

    // Resuming after the cut gives the reference MMR.
    w.append(&all[200..]).unwrap();
    assert_eq!(w.root().unwrap(), ref_root(&all));
    drop(w);

    // A torn record of a real append (its nodes all written): back to the commit before.
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(dir.join(files::COMMITS))
        .unwrap();
    f.set_len(2 * 48 + 30).unwrap();
    drop(f);
    let w = Store::open(&dir).unwrap();
    assert_eq!((w.mmr_size(), w.root().unwrap()), (size, root200));
    assert_eq!(len(files::NODES), size * 32);
    drop(w);

    // The last record flipped (a torn write of a whole record): cut the same way.
    let mut log = std::fs::read(dir.join(files::COMMITS)).unwrap();
    log[48 + 9] ^= 0x10;
    std::fs::write(dir.join(files::COMMITS), &log).unwrap();
    let w = Store::open(&dir).unwrap();
    assert_eq!(
        (w.mmr_size(), w.root().unwrap()),
        (mmr_size_of(100), root100)
    );
    drop(w);

    // Committed nodes missing, or two bad records: corrupt, refused, nothing cut.
    drop(store_with(
        &t.path().join("s2"),
        &[&all[..50], &all[50..60], &all[60..61]],
    ));
    let s2 = t.path().join("s2");
    let nodes = std::fs::read(s2.join(files::NODES)).unwrap();
    std::fs::write(s2.join(files::NODES), &nodes[..nodes.len() - 40]).unwrap();
    assert_eq!(code(Store::open(&s2)), 47);
    assert_eq!(
        std::fs::read(s2.join(files::NODES)).unwrap().len(),
        nodes.len() - 40
    );
    std::fs::write(s2.join(files::NODES), &nodes).unwrap();
    let mut log = std::fs::read(s2.join(files::COMMITS)).unwrap();
    log[48 + 1] ^= 1;
    log[2 * 48 + 1] ^= 1;
    std::fs::write(s2.join(files::COMMITS), &log).unwrap();
    assert_eq!(code(Store::open(&s2)), 47);
    // A bad record in the middle: found when read and by check.
    log[2 * 48 + 1] ^= 1;
    std::fs::write(s2.join(files::COMMITS), &log).unwrap();
    let r = Store::open_read_only(&s2).unwrap();
    assert_eq!(r.mmr_size(), mmr_size_of(61));
    assert_eq!(code(r.check()), 47);
    assert_eq!(code(r.commits()), 47);
}

#[test]
fn a_flipped_byte_anywhere_is_found_by_check() {
    let all = leaves(3, 777);
    let t = TempDir::new("flip");
    let dir = t.store();
    drop(store_with(&dir, &[&all[..1], &all[1..300], &all[300..]]));
    let pristine = std::fs::read(dir.join(files::NODES)).unwrap();
    let r = Store::open_read_only(&dir).unwrap();
    assert_eq!(r.check().unwrap().commits, 3);
    drop(r);
    let mut rng = StdRng::seed_from_u64(9);
    let n = pristine.len();
    // The first and last bytes, every byte of the last node (the lone leaf peak), and
    // random ones.
    let mut offsets: Vec<usize> = vec![0, n - 1];
    offsets.extend(n - 32..n);
    offsets.extend((0..60).map(|_| rng.gen_range(0..n)));
    for at in offsets {
        let mut bytes = pristine.clone();
        bytes[at] ^= 1 << rng.gen_range(0..8);
        std::fs::write(dir.join(files::NODES), &bytes).unwrap();
        // Opening may already see it (a peak); if not, check must.
        match Store::open_read_only(&dir) {
            Err(e) => assert_eq!(e.code(), 47, "byte {at}"),
            Ok(r) => {
                let e = r.check().unwrap_err();
                assert_eq!(e.code(), 47, "byte {at}: {e}");
            }
        }
    }
    std::fs::write(dir.join(files::NODES), &pristine).unwrap();
    Store::open_read_only(&dir).unwrap().check().unwrap();
    // A proof through a damaged node is refused, not served: flip an inner node on the path
    // of leaf 0 (its sibling, position 1).
    let mut bytes = pristine.clone();
    bytes[32] ^= 1;
    std::fs::write(dir.join(files::NODES), &bytes).unwrap();
    let r = Store::open_read_only(&dir).unwrap();
    assert_eq!(code(r.proof(r.mmr_size(), &[0])), 47);
}

/// One append far above a write buffer (the pipelined writer) equals the reference, and a
/// later small one continues it.
#[test]
fn large_append_equals_reference() {
    let all = leaves(4, 70_001);
    let t = TempDir::new("large");
    let mut s = Store::create(&t.store(), None).unwrap();
    let c = s.append(&all[..70_000]).unwrap();
    assert_eq!(c.root, ref_root(&all[..70_000]));
    let c = s.append(&all[70_000..]).unwrap();
    assert_eq!(c.root, ref_root(&all));
    assert_eq!(s.check().unwrap().nodes, mmr_size_of(70_001));
}

/// SIGKILL at random moments of a CLI append of many commits: the store reopens at a commit
/// boundary with the reference root, checks clean, and the append resumes to the full MMR.
/// Kill moments are drawn from the measured length of an unkilled run, so they land inside
/// it whatever the machine's load.
#[test]
fn sigkill_during_append_reopens_at_the_last_commit() {
    let total = 60_000u64;
    let all = leaves(5, total);
    let t = TempDir::new("kill");
    let file = t.path().join("leaves.txt");
    write_leaves(&file, &all);
    let run = |dir: &Path, batch: u64| {
        Command::new(bin())
            .args([
                "append",
                dir.to_str().unwrap(),
                "--leaves",
                file.to_str().unwrap(),
            ])
            .args(["--batch", &batch.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    let full_root = ref_root(&all);
    let mut rng = StdRng::seed_from_u64(11);
    let mut mid_run = 0;
    for round in 0..8 {
        // Small commits (many fsyncs) and commits that hold at least one aligned block of
        // 2^14 leaves wherever they start (the writer thread and the block hashers).
        let batch = if round % 2 == 0 { 700 } else { 40_000 };
        let dir = t.path().join(format!("s{round}"));
        Store::create(&dir, None).unwrap();
        // The length of an unkilled run, on a scratch store.
        let scratch = t.path().join(format!("scratch{round}"));
        Store::create(&scratch, None).unwrap();
        let start = Instant::now();
        assert!(run(&scratch, batch).wait().unwrap().success());
        let span = start.elapsed();
        std::fs::remove_dir_all(&scratch).unwrap();

        let mut child = run(&dir, batch);
        std::thread::sleep(span.mul_f64(rng.gen_range(0.05..0.95)));
        child.kill().unwrap(); // SIGKILL
        let status = child.wait().unwrap();
        let killed = status.code().is_none();

        let mut s = Store::open(&dir).unwrap();
        let m = s.leaf_count();
        assert!(
            m.is_multiple_of(batch) || m == total,
            "round {round}: {m} leaves"
        );
        if killed && m < total {
            mid_run += 1;
        }
        if m > 0 {
            assert_eq!(
                s.root().unwrap(),
                ref_root(&all[..m as usize]),
                "round {round}: {m} leaves"
            );
        }
        s.check().unwrap();
        s.append(&all[m as usize..]).unwrap();
        assert_eq!(s.root().unwrap(), full_root, "round {round}");
        assert_eq!(s.check().unwrap().leaves, total);
    }
    // Not asserted (a loaded machine may stretch a run past its kill or not): how many kills
    // landed inside an append.
    eprintln!("{mid_run} of 8 kills landed before the last commit");
}
