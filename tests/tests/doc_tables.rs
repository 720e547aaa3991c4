//! Numbers in the docs that come from the release binaries, measured fresh and compared:
//! README's cycle table (the cycle gate's measurement, rendered as `./build.sh bless` writes
//! it), docs/deploy.md's owner-mode and by-reference cost tables and README's owner-mode cost
//! range; in docs/performance.md the cycles of the recorded `cycle-lab sweep` output, the
//! table of where the cycles go (ckb-debugger's flamegraph profile of each verifier on the
//! reference seed; README's merge-cost sentence and docs/compiled-format.md's command-loop
//! sentence come from the same profile), the growth table and the sentences read off it;
//! docs/hashing.md's cycles per merge (tools/merge-bench) and README's figure from it;
//! docs/accumulator.md's lower bound on the type script's fixed cost (its ELF's loaded bytes,
//! the merge kernel's size, the ancestry check's hashing);
//! docs/c-verifier.md's builds, from performance.md's journey table (the record of
//! `./build.sh journey`, which builds them) with its default build measured fresh. The
//! journey article's figures README and c-verifier.md quote are checked against the article
//! itself (../shared/reference/, skipped with a note when absent). After an intended cycle
//! change, `DOC_TABLES_BLESS=1 cargo test --release -p tests --test doc_tables` rewrites
//! every block between its markers (`./build.sh growth` also redraws docs/growth.svg); the
//! sweep block is `./build.sh sweep`'s output pasted as printed (its timings are that run's;
//! its cycles must be today's), and the journey table is `./build.sh journey`'s.

#[path = "by_reference_tx/mod.rs"]
mod by_reference_tx;
#[path = "merge_bench_tx/mod.rs"]
mod merge_bench_tx;

use ckb_mmr_sdk::{Workload, REFERENCE_SEED};
use doc_blocks::thousands;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use tests::owner::{owner_costs, OwnerCosts};
use tests::{available_verifiers, honest_cycles, Verifier};

fn readme() -> PathBuf {
    tests::repo_root().join("README.md")
}

fn doc(name: &str) -> PathBuf {
    tests::repo_root().join("docs").join(name)
}

/// The text of block `name` (doc-blocks' markers) in `text`.
fn block<'a>(text: &'a str, name: &str) -> &'a str {
    doc_blocks::between(text, name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Blessing rewrites files; tests run in parallel threads.
static BLESS: Mutex<()> = Mutex::new(());

/// Fails unless the block `name` of `path` is `fresh`; with `DOC_TABLES_BLESS` set, writes it.
fn check_block(path: &Path, name: &str, fresh: &str) {
    let _guard = BLESS.lock().unwrap_or_else(|e| e.into_inner());
    let text = std::fs::read_to_string(path).unwrap();
    let recorded = block(&text, name);
    if std::env::var_os("DOC_TABLES_BLESS").is_some() {
        let new = doc_blocks::replace_between(&text, name, fresh).unwrap();
        std::fs::write(path, new).unwrap();
        return;
    }
    assert_eq!(
        recorded,
        fresh,
        "{}'s {name} block is stale: DOC_TABLES_BLESS=1 cargo test --release -p tests --test doc_tables",
        path.display()
    );
}

/// The owner-mode costs, measured once for both documents that quote them.
fn owner_rows() -> &'static [(&'static str, OwnerCosts)] {
    static ROWS: OnceLock<Vec<(&'static str, OwnerCosts)>> = OnceLock::new();
    ROWS.get_or_init(|| {
        doc_verifiers()
            .into_iter()
            .map(|(v, name)| (name, owner_costs(v)))
            .collect()
    })
}

/// The verifiers in the docs' tables: by binary name, each under its name there.
fn doc_verifiers() -> Vec<(Verifier, &'static str)> {
    let mut verifiers = available_verifiers();
    verifiers.sort_by_key(|v| v.binary_name());
    let name = |v| match v {
        Verifier::Baseline => "baseline",
        Verifier::C => "C",
        Verifier::Compiled => "compiled",
    };
    verifiers.into_iter().map(|v| (v, name(v))).collect()
}

fn owner_table() -> String {
    let mut rows = String::from(
        "| verifier | plain | owner mode | extra | owner as the last proved leaf |\n\
         | --- | ---: | ---: | ---: | ---: |\n",
    );
    for (name, r) in owner_rows() {
        rows.push_str(&format!(
            "| {name} | {} | {} | +{} | +{} |\n",
            thousands(r.plain),
            thousands(r.owner),
            thousands(r.owner - r.plain),
            thousands(r.owner_last - r.plain)
        ));
    }
    rows
}

#[test]
fn deploy_md_owner_mode_cost_table() {
    let fresh = owner_table();
    print!("{fresh}");
    check_block(&doc("deploy.md"), "owner-cost-table", &fresh);
}

/// README's owner-mode sentence: the range of the table's "extra" column, and its worst case
/// (the owner as the last proved leaf).
#[test]
fn readme_owner_mode_cost_range() {
    let rows = owner_rows();
    let extra = rows.iter().map(|(_, r)| r.owner - r.plain);
    let (low, high) = (extra.clone().min().unwrap(), extra.max().unwrap());
    let worst = rows
        .iter()
        .map(|(_, r)| r.owner_last - r.plain)
        .max()
        .unwrap();
    let fresh = format!(
        "{}-{} cycles more than plain mode on the reference seed, up to {} with the owner as \
         the last proved leaf",
        thousands(low),
        thousands(high),
        thousands(worst)
    );
    println!("{fresh}");
    check_block(&readme(), "owner-cost-range", &fresh);
}

/// Seeds 1..=200 (the sweep's default), honest proofs, min / median (lower middle) / max
/// cycles per verifier (measured here in ckb-testtool), then of the transaction's bytes and
/// weight (cycle-lab's sweep, whose transaction is the one `cycle-lab run` weighs), as
/// `cycle-lab sweep` prints them.
#[test]
fn performance_md_sweep_cycles() {
    let text = std::fs::read_to_string(doc("performance.md")).unwrap();
    let recorded = block(&text, "sweep-output");
    let workloads: Vec<Workload> = (1..=200).map(Workload::from_seed).collect();
    let seeds: Vec<u64> = (1..=200).collect();
    let specs = release_specs();
    let lab = cycle_lab::sweep::run(
        &specs,
        &seeds,
        1,
        "sweep",
        cycle_lab::sweep::Progress::Quiet,
    )
    .unwrap();
    for v in available_verifiers() {
        let mut cycles: Vec<u64> = workloads.iter().map(|w| honest_cycles(v, w)).collect();
        cycles.sort_unstable();
        let fresh = [
            cycles[0],
            cycles[(cycles.len() - 1) / 2],
            cycles[cycles.len() - 1],
        ];
        let line = recorded
            .lines()
            .find(|l| l.split_whitespace().next() == Some(v.binary_name()))
            .unwrap_or_else(|| panic!("no {} line in the recorded sweep", v.binary_name()));
        let listed: Vec<u64> = line
            .split_whitespace()
            .skip(1)
            .map(|n| n.parse().unwrap())
            .collect();
        let p = lab
            .programs
            .iter()
            .position(|n| n == v.binary_name())
            .unwrap();
        let (s, b, w) = (lab.stats(p), lab.tx_bytes_stats(p), lab.weight_stats(p));
        assert_eq!([s.min, s.median, s.max], fresh, "the engines disagree");
        let fresh = [
            fresh[0], fresh[1], fresh[2], b.min, b.median, b.max, w.min, w.median, w.max,
        ];
        println!("{}: {fresh:?}", v.binary_name());
        assert_eq!(
            listed,
            fresh,
            "docs/performance.md's recorded sweep is stale for {}: rerun ./build.sh sweep and paste its output",
            v.binary_name()
        );
    }
}

// ---------------------------------------------------------------------------------------
// docs/performance.md: cost against MMR size.

fn release_specs() -> Vec<cycle_lab::engine::ProgramSpec> {
    cycle_lab::engine::RELEASE_VERIFIERS
        .iter()
        .map(|&(name, format)| {
            cycle_lab::engine::ProgramSpec::load(name, format, &tests::release_dir().join(name))
                .unwrap()
        })
        .collect()
}

/// "12,345" rounded to the nearest `step`.
fn about(n: f64, step: f64) -> String {
    thousands(((n / step).round() * step) as u64)
}

/// `text` as lines of at most 95 columns, as the docs are wrapped.
fn wrap(text: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > 95 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// The sentences read off the growth table: single-leaf cost at both ends and per doubling,
/// witness growth, the largest claims and the most any claim that fits costs.
fn growth_summary(g: &cycle_lab::growth::Growth) -> String {
    let column = |name: &str| g.names.iter().position(|n| n == name).unwrap();
    let (b, c, k) = (
        column("baseline-verifier"),
        column("c-verifier"),
        column("compiled-verifier"),
    );
    let point = |log2: u32, claim: Option<u64>| {
        g.points
            .iter()
            .find(|p| p.log2 == log2 && p.claim == claim)
            .unwrap()
    };
    let cycles = |log2: u32, v: usize| point(log2, Some(1)).runs[v].cycles.unwrap();
    let (first, last) = (
        *cycle_lab::growth::LOG2_LEAVES.first().unwrap(),
        *cycle_lab::growth::LOG2_LEAVES.last().unwrap(),
    );
    let doublings = f64::from(last - first);
    let per_doubling = |v: usize| (cycles(last, v) - cycles(first, v)) as f64 / doublings;
    let bytes = |log2: u32| point(log2, Some(1)).runs[k].witness_bytes;
    let largest = |log2: u32, v: usize| point(log2, None).runs[v].leaves;
    let most_cycles = |vs: &[usize]| {
        g.points
            .iter()
            .flat_map(|p| vs.iter().filter_map(|&v| p.runs[v].cycles))
            .max()
            .unwrap()
    };
    let most = |vs: &[usize]| most_cycles(vs) as f64 / 1e6;
    // The claim the prose makes: bytes, not cycles, set the weight at every point.
    for p in &g.points {
        for r in &p.runs {
            assert!(r.cost().is_none_or(|c| !c.cycles_bind()), "2^{}", p.log2);
        }
    }
    let per_leaf = |log2: u32, claim: Option<u64>| {
        point(log2, claim).runs[k]
            .weight_per_leaf()
            .unwrap()
            .round() as u64
    };
    // The claim the prose makes: ten leaves cost less than ten single ones, everywhere.
    for p in g.points.iter().filter(|p| p.claim == Some(10)) {
        for v in [b, c, k] {
            assert!(
                p.runs[v].cycles.unwrap() < 10 * cycles(p.log2, v),
                "2^{}",
                p.log2
            );
        }
    }
    let witness_step = (bytes(last) - bytes(first)) as f64 / doublings;
    wrap(&format!(
        "Read it as: a single proved leaf costs {} cycles at 2^{first} leaves and {} at \
         2^{last} on the compiled verifier, about {} per doubling of the MMR (C {}, baseline \
         {}, from {} to {}), and its witness grows by {:.0} bytes per doubling (one item, and \
         a byte of the leaf's index every seven), to {:.1} KB at 2^{last}. More leaves share \
         the upper levels of their paths, so 10 leaves cost less than ten single ones. A witness carries at most {} leaves \
         (compiled format; {} baseline) of a 2^{last}-leaf MMR, {} ({}) of a 2^12-leaf one, \
         and every proof that fits costs at most about {:.2}M cycles on the compiled and C \
         verifiers and {:.2}M on the baseline. Bytes, not cycles, set the weight everywhere \
         (the most cycles weigh {}): on the compiled verifier a single proved leaf weighs {} at \
         2^{first} leaves and {} at 2^{last}, while the largest claim weighs {} per proved leaf \
         at 2^{first} and {} at 2^{last}.",
        thousands(cycles(first, k)),
        thousands(cycles(last, k)),
        about(per_doubling(k), 10.0),
        about(per_doubling(c), 10.0),
        about(per_doubling(b), 10.0),
        thousands(cycles(first, b)),
        thousands(cycles(last, b)),
        witness_step,
        bytes(last) as f64 / 1000.0,
        largest(last, k),
        largest(last, b),
        largest(12, k),
        largest(12, b),
        most(&[c, k]),
        most(&[b]),
        thousands(ckb_mmr_sdk::weight::cycles_weight(most_cycles(&[b, c, k]))),
        thousands(per_leaf(first, Some(1))),
        thousands(per_leaf(last, Some(1))),
        thousands(per_leaf(first, None)),
        thousands(per_leaf(last, None)),
    ))
}

#[test]
fn performance_md_growth_table_and_summary() {
    let g = cycle_lab::growth::measure(&release_specs()).unwrap();
    let (table, summary) = (g.markdown(), growth_summary(&g));
    print!("{table}\n{summary}");
    check_block(&doc("performance.md"), "growth-table", &table);
    check_block(&doc("performance.md"), "growth-summary", &summary);
}

// ---------------------------------------------------------------------------------------
// docs/performance.md: where the cycles go, from ckb-debugger's flamegraph profile.

/// Every symbol of `elf`'s symbol table: name, value, size.
fn symbol_table(elf: &[u8]) -> Vec<(String, u64, u64)> {
    let u16_at = |o: usize| u16::from_le_bytes(elf[o..o + 2].try_into().unwrap()) as usize;
    let u32_at = |o: usize| u32::from_le_bytes(elf[o..o + 4].try_into().unwrap()) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(elf[o..o + 8].try_into().unwrap());
    let (shoff, shentsize, shnum) = (u64_at(0x28) as usize, u16_at(0x3a), u16_at(0x3c));
    let section = |i: usize| {
        let h = shoff + i * shentsize;
        // (type, offset, size, link)
        (
            u32_at(h + 4),
            u64_at(h + 0x18) as usize,
            u64_at(h + 0x20) as usize,
            u32_at(h + 0x28),
        )
    };
    let mut out = Vec::new();
    for i in 0..shnum {
        let (kind, offset, size, link) = section(i);
        if kind != 2 {
            continue; // SHT_SYMTAB only
        }
        let strtab = section(link).1;
        for sym in (offset..offset + size).step_by(24) {
            let name_at = strtab + u32_at(sym);
            let len = elf[name_at..].iter().position(|&b| b == 0).unwrap();
            let name = String::from_utf8_lossy(&elf[name_at..name_at + len]).into_owned();
            out.push((name, u64_at(sym + 8), u64_at(sym + 16)));
        }
    }
    out
}

/// Addresses of the symbols whose names start with `prefix`, from an ELF64 file's symbol
/// table (the `.debug` copies keep it).
fn symbols(elf: &[u8], prefix: &str) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = symbol_table(elf)
        .into_iter()
        .filter(|s| s.0.starts_with(prefix))
        .map(|(name, value, _)| (name, value))
        .collect();
    out.sort_by_key(|s| s.1);
    out.dedup();
    out
}

/// What one verifier's profile of the reference seed says.
struct Profile {
    /// ckb-debugger's cycles for the stripped binary (the chain's number).
    total: u64,
    /// The flamegraph's sum: instructions only, each in the function it ran in.
    profiled: u64,
    /// Per kernel entry (from memory, `_chain`, `_chain_right`): merges and cycles.
    kernel: Vec<(String, u64, u64)>,
    /// Cycles in the proof loop's own functions (the kernel excluded).
    proof_loop: u64,
}

impl Profile {
    /// Merges through the kernel entry `name`.
    fn entry(&self, name: &str) -> u64 {
        self.kernel.iter().find(|k| k.0 == name).map_or(0, |k| k.1)
    }
}

fn ckb_debugger(tx: &Path, index: usize, extra: &[&str]) -> String {
    let out = std::process::Command::new("ckb-debugger")
        .args(["--tx-file"])
        .arg(tx)
        .args(["--cell-type", "input", "--script-group-type", "lock"])
        .args(["--cell-index", &index.to_string()])
        .args(extra)
        .output()
        .expect("ckb-debugger (./build.sh installs it)");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The last "All cycles" ckb-debugger printed: with `--enable-flamegraph` it runs the script
/// more than once, and the last run, after "Actual run", is the profiled one.
fn all_cycles(out: &str) -> u64 {
    let line = out
        .lines()
        .rfind(|l| l.starts_with("All cycles: "))
        .unwrap();
    line[12..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

fn profile(v: Verifier, tx: &Path, index: usize, dir: &Path) -> Profile {
    let debug = tests::release_dir().join(format!("{}.debug", v.binary_name()));
    let folded = dir.join(format!("{}.folded", v.binary_name()));
    let total = all_cycles(&ckb_debugger(tx, index, &[]));
    let out = ckb_debugger(
        tx,
        index,
        &[
            "--bin",
            debug.to_str().unwrap(),
            "--enable-flamegraph",
            "--flamegraph-output",
            folded.to_str().unwrap(),
        ],
    );
    let entries = symbols(&std::fs::read(&debug).unwrap(), "mmr_merge_rv64");
    assert!(!entries.is_empty(), "{v:?}: no kernel symbols");
    let mut kernel: Vec<(String, u64, u64)> =
        entries.iter().map(|(n, _)| (n.clone(), 0, 0)).collect();
    let (mut profiled, mut proof_loop) = (0, 0);
    for line in std::fs::read_to_string(&folded).unwrap().lines() {
        let (stack, cycles) = line.rsplit_once(' ').unwrap();
        let cycles: u64 = cycles.parse().unwrap();
        profiled += cycles;
        let leaf = stack.rsplit("; ").next().unwrap();
        let address = leaf
            .rsplit_once("func_0x")
            .and_then(|(_, a)| u64::from_str_radix(a, 16).ok());
        if let Some(i) = entries.iter().position(|e| Some(e.1) == address) {
            kernel[i].1 += 1;
            kernel[i].2 += cycles;
        } else if match v {
            Verifier::Compiled => {
                leaf.ends_with("compiled_proof::compact::root_words")
                    || leaf.ends_with("compiled_proof::compact::split")
            }
            Verifier::C => leaf.ends_with(":main"),
            Verifier::Baseline => false,
        } {
            proof_loop += cycles;
        }
    }
    assert_eq!(profiled, all_cycles(&out), "{v:?}: the profile's sum");
    Profile {
        total,
        profiled,
        kernel,
        proof_loop,
    }
}

/// The proved leaves and items of a compact (version 2) payload, and its bytes above the
/// hashes.
fn compact_shape(payload: &[u8], leaf_count: u64) -> (usize, usize, usize) {
    let n = compiled_proof::compact::leaves(payload, leaf_count)
        .unwrap()
        .count();
    let header = cycle_lab::formats::header_len(payload, n);
    let items = (payload.len() - header - 32 * n) / 32;
    (n, items, header)
}

/// The reference seed's work, as the section's first sentence gives it.
fn workload_mix(merges: u64, payload: &[u8], leaf_count: u64) -> String {
    let (n, items, header) = compact_shape(payload, leaf_count);
    format!(
        "{merges} merges: {n} proved leaves of {}, {items} proof items; a {}-byte payload, {header} \
         bytes of it above the hashes",
        thousands(leaf_count),
        thousands(payload.len() as u64)
    )
}

/// `x` rounded to one decimal, with thousands separators.
fn decimal(x: f64) -> String {
    let tenths = (x * 10.0).round() as u64;
    format!("{}.{}", thousands(tenths / 10), tenths % 10)
}

/// The "where the cycles go" table, the workload mix, README's sentence on the kernel's share
/// and compiled-format.md's paragraph on the command loop; the comparisons performance.md's
/// text makes, checked.
fn breakdown_table() -> (String, String, String, String) {
    let w = Workload::from_seed(REFERENCE_SEED);
    let verifiers = [Verifier::Compiled, Verifier::C, Verifier::Baseline];
    let json =
        ckb_mmr_sdk::tx::mock_transaction(&tests::mock_cells(&verifiers, &w, &w.lock_args()));
    let (dir, tx) = tests::write_tx_json("mmr-doc-profile", &json);
    let profiles: Vec<Profile> = verifiers
        .iter()
        .enumerate()
        .map(|(i, &v)| profile(v, &tx, i, &dir))
        .collect();
    std::fs::remove_dir_all(&dir).ok();
    let merges: Vec<u64> = profiles
        .iter()
        .map(|p| p.kernel.iter().map(|k| k.1).sum())
        .collect();
    let kernel: Vec<u64> = profiles
        .iter()
        .map(|p| p.kernel.iter().map(|k| k.2).sum())
        .collect();
    assert!(merges.windows(2).all(|m| m[0] == m[1]), "{merges:?}");
    let compiled_payload = w.compiled_payload().unwrap();
    let bytes: Vec<usize> = verifiers.iter().map(|v| v.binary().len()).collect();
    let mut t = String::from(
        "| | compiled (Rust) | c (clang 19) | baseline (Rust) |\n| --- | ---: | ---: | ---: |\n",
    );
    let mut row = |label: String, cells: Vec<String>| {
        t.push_str(&format!("| {label} | {} |\n", cells.join(" | ")));
    };
    let each = |f: &dyn Fn(&Profile) -> u64| profiles.iter().map(|p| thousands(f(p))).collect();
    row("total (ckb-debugger)".into(), each(&|p| p.total));
    row(
        format!("merge kernel, {} merges", merges[0]),
        kernel.iter().map(|&k| thousands(k)).collect(),
    );
    row(
        "per merge".into(),
        kernel
            .iter()
            .map(|&k| decimal(k as f64 / merges[0] as f64))
            .collect(),
    );
    row(
        "merges per kernel entry: from memory / `_chain` / `_chain_right`".into(),
        profiles
            .iter()
            .map(|p| {
                let count = |name: &str| p.entry(name).to_string();
                [
                    "mmr_merge_rv64",
                    "mmr_merge_rv64_chain",
                    "mmr_merge_rv64_chain_right",
                ]
                .map(count)
                .join(" / ")
            })
            .collect(),
    );
    let else_cycles = profiles
        .iter()
        .zip(&kernel)
        .map(|(p, k)| thousands(p.total - k));
    row("everything else".into(), else_cycles.collect());
    let (rust_loop, c_loop) = (profiles[0].proof_loop, profiles[1].proof_loop);
    row(
        "of which the proof loop".into(),
        vec![
            format!("{} (`root_words`, `split`)", thousands(rust_loop)),
            format!("{} (`main`, all inlined)", thousands(c_loop)),
            "(upstream `MerkleProof` and our checks, inlined into one function)".into(),
        ],
    );
    let merges0 = merges[0];
    row(
        format!("proof loop per merge ({merges0} merges), beyond hashing"),
        vec![
            decimal(profiles[0].proof_loop as f64 / merges[0] as f64),
            decimal(profiles[1].proof_loop as f64 / merges[0] as f64),
            String::new(),
        ],
    );
    row(
        "in no function of the profile (ELF loading, syscall charges)".into(),
        each(&|p| p.total - p.profiled),
    );
    row(
        "stripped bytes".into(),
        bytes.iter().map(|&b| thousands(b as u64)).collect(),
    );

    let (rust, c, base) = (&profiles[0], &profiles[1], &profiles[2]);
    let readme = format!(
        "{} merges of the reference seed cost {} cycles in the compiled verifier, {} in the C \
         verifier (both keep a run of proof steps in registers) and {} in the baseline",
        merges[0],
        thousands(kernel[0]),
        thousands(kernel[1]),
        thousands(kernel[2])
    );
    let (n, items, _) = compact_shape(&compiled_payload, w.leaf_count);
    let loop_cost = wrap(&format!(
        "On the reference workload ({} leaves, {n} proved, {items} items, {} merges) the Rust \
         contract spends {} cycles in its walk (`root_words` and `split`) besides the merge \
         kernel, {} per merge (ckb-debugger's flamegraph; `docs/performance.md`, \"Where the \
         cycles go\").",
        thousands(w.leaf_count),
        merges[0],
        thousands(rust.proof_loop),
        decimal(rust.proof_loop as f64 / merges[0] as f64),
    ));
    print!("{t}\n{readme}\n{loop_cost}\n");
    // What the text says about these numbers.
    let prose = "docs/performance.md's text on this table no longer holds: update it";
    assert!(c.total < rust.total, "the C ahead; {prose}");
    assert!(
        (rust.total - c.total) * 1000 < rust.total,
        "within a tenth of a percent; {prose}"
    );
    assert!(kernel[0] < kernel[1], "Rust: fewer in the kernel; {prose}");
    assert!(
        rust.proof_loop < c.proof_loop,
        "Rust: fewer in the walk; {prose}"
    );
    assert!(
        rust.total - kernel[0] > c.total - kernel[1],
        "Rust: more on everything else; {prose}"
    );
    assert!(bytes[0] > bytes[1], "the Rust binary larger; {prose}");
    assert_eq!(rust.entry("mmr_merge_rv64"), 0, "{prose}");
    assert!(c.entry("mmr_merge_rv64") > 0, "{prose}");
    assert_eq!(base.entry("mmr_merge_rv64"), merges[2], "{prose}");
    // The compact format's bound: at most 2% above version 1's 542,707 (Rust) and 543,954 (C).
    for (p, b, cycles, kb) in [
        (rust, bytes[0], 553_561, 12),
        (c, bytes[1], 554_833, 10),
        (base, bytes[2], 640_000, 24),
    ] {
        assert!(p.total <= cycles && b <= kb * 1024, "targets; {prose}");
    }
    (
        t,
        workload_mix(merges[0], &compiled_payload, w.leaf_count),
        readme,
        loop_cost,
    )
}

#[test]
fn performance_md_where_the_cycles_go() {
    let (table, mix, merge_cost, loop_cost) = breakdown_table();
    print!("{table}\n{mix}\n{merge_cost}\n{loop_cost}");
    check_block(&doc("performance.md"), "cycles-breakdown", &table);
    check_block(&doc("performance.md"), "workload-mix", &mix);
    check_block(&readme(), "merge-cost", &merge_cost);
    check_block(&doc("compiled-format.md"), "walk-cost", &loop_cost);
}

/// The rows of a markdown table block as cells, header and rule skipped.
fn table_rows(block: &str) -> Vec<Vec<String>> {
    block
        .lines()
        .filter(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

/// performance.md's journey table is the record of the last `./build.sh journey` run; its
/// last step of each verifier must be the release binary README's cycle table (held by the
/// cycle gate) gives, same cycles and bytes, so a verifier changed without a journey run
/// fails here.
#[test]
fn performance_md_journey_ends_at_the_release_binaries() {
    let readme = std::fs::read_to_string(readme()).unwrap();
    let perf = std::fs::read_to_string(doc("performance.md")).unwrap();
    let release = table_rows(block(&readme, "cycle-table"));
    let journey = table_rows(block(&perf, "journey-table"));
    for (verifier, step) in [
        ("baseline", "baseline: + lean ELF"),
        ("compiled", "compiled: + compact format (version 2)"),
        ("c", "c (clang 19): + compact format (version 2)"),
    ] {
        let r = release.iter().find(|r| r[0] == verifier).unwrap();
        let j = journey.iter().find(|j| j[1] == step).unwrap();
        assert_eq!(
            (&j[2], &j[7]),
            (&r[1], &r[2]),
            "performance.md's journey step {step:?} is not README's {verifier}: run ./build.sh journey"
        );
    }
}

/// README's cycle table: the cycle gate's measurement of the release binaries
/// (`cycle_lab::gate::measure`, in-process), rendered by the function `./build.sh bless` writes
/// the table with.
#[test]
fn readme_cycle_table() {
    let measured = cycle_lab::gate::measure(&tests::release_dir()).unwrap();
    let table = cycle_lab::gate::readme_table(&measured, &tests::release_dir()).unwrap();
    print!("{table}");
    check_block(&readme(), "cycle-table", &table);
}

/// docs/c-verifier.md's builds, in its words, and the journey step (performance.md's journey
/// table, `./build.sh journey`) each is.
const C_BUILDS: [(&str, &str); 8] = [
    (
        "clang-19, `MERGE=asm` (the default)",
        "c (clang 19): + compact format (version 2)",
    ),
    (
        "GCC 12 `-mtune=thead-c906`, `MERGE=asm`",
        "c (gcc 12): + compact format (version 2)",
    ),
    (
        "clang-19, `MERGE=asm`, `FORMAT=v1`",
        "c (clang 19): + lean ELF",
    ),
    (
        "GCC 12 `-mtune=thead-c906`, `MERGE=asm`, `FORMAT=v1`",
        "c (gcc 12): + lean ELF",
    ),
    (
        "clang-19, `MERGE=asm`, `LEAN_ELF=0`, `FORMAT=v1`",
        "c (clang 19): + asm kernel",
    ),
    (
        "GCC 12 `-mtune=thead-c906`, `MERGE=asm`, `LEAN_ELF=0`, `FORMAT=v1`",
        "c (gcc 12): + asm kernel",
    ),
    (
        "clang-19, `MERGE=stdlib`, `LEAN_ELF=0`, `FORMAT=v1`",
        "c (clang 19): ckb-c-stdlib blake2b",
    ),
    (
        "GCC 12 `-mtune=thead-c906`, `MERGE=stdlib`, `LEAN_ELF=0`, `FORMAT=v1`",
        "c (gcc 12): ckb-c-stdlib blake2b",
    ),
];

/// docs/c-verifier.md's table of C builds: the journey table's rows of them, and the default
/// build's row is the release binary, measured here.
#[test]
fn c_verifier_md_builds() {
    let perf = std::fs::read_to_string(doc("performance.md")).unwrap();
    let journey = table_rows(block(&perf, "journey-table"));
    let mut t = String::from(
        "| build (`contracts/c-verifier/build.sh`, `-O3`) | stripped bytes | cycles, reference seed | journey step |\n\
         | --- | ---: | ---: | ---: |\n",
    );
    for (build, step) in C_BUILDS {
        let j = journey
            .iter()
            .find(|j| j[1] == step)
            .unwrap_or_else(|| panic!("no journey step {step:?} in docs/performance.md"));
        t.push_str(&format!("| {build} | {} | {} | {} |\n", j[7], j[2], j[0]));
    }
    let default = journey.iter().find(|j| j[1] == C_BUILDS[0].1).unwrap();
    let cycles = honest_cycles(Verifier::C, &Workload::from_seed(REFERENCE_SEED));
    assert_eq!(
        (&default[2], &default[7]),
        (
            &thousands(cycles),
            &thousands(Verifier::C.binary().len() as u64)
        ),
        "performance.md's journey step {:?} is not build/release/c-verifier: run ./build.sh journey",
        C_BUILDS[0].1
    );
    print!("{t}");
    check_block(&doc("c-verifier.md"), "c-builds", &t);
}

/// The numbers, comma-grouped, in `text`.
fn quoted_numbers(text: &str) -> Vec<u64> {
    text.split(|c: char| !(c.is_ascii_digit() || c == ','))
        .map(|n| n.trim_matches(','))
        .filter(|n| n.contains(','))
        .map(|n| n.replace(',', "").parse().unwrap())
        .collect()
}

/// README and docs/c-verifier.md quote the cycles of the public article this project grew
/// from ("A Journey Optimizing CKB Smart Contract"); every number in their `journey-article`
/// blocks must be one its ckb-debugger runs report ("Total cycles consumed: N").
#[test]
fn journey_article_quotes() {
    let article = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/reference/ckb-mmr-verifier-optimization-journey.md");
    let Ok(text) = std::fs::read_to_string(&article) else {
        println!(
            "note: {} is absent; the quoted figures are not checked",
            article.display()
        );
        return;
    };
    let reported: Vec<u64> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("Total cycles consumed: "))
        .filter_map(|l| l.split('(').next()?.trim().parse().ok())
        .collect();
    assert!(!reported.is_empty(), "no runs in {}", article.display());
    for path in [readme(), doc("c-verifier.md")] {
        let text = std::fs::read_to_string(&path).unwrap();
        let quote = block(&text, "journey-article");
        let numbers = quoted_numbers(quote);
        assert!(!numbers.is_empty(), "{}: no figure quoted", path.display());
        for n in numbers {
            assert!(
                reported.contains(&n),
                "{}: {n} is not a figure the article reports",
                path.display()
            );
        }
    }
}

/// docs/hashing.md's cycles per merge on each hashing path of tools/merge-bench, README's
/// figure for the kernel, and the constant lab's accumulator rows price a merge at; the
/// itemised counts hashing.md's text gives for the assembly kernel (1,315 memory to memory,
/// 1,299 in registers).
#[test]
fn hashing_md_cycles_per_merge() {
    let merges = merge_bench_tx::MERGES;
    let totals = merge_bench_tx::cycles_of_merges();
    let mut t = format!(
        "| hashing path | cycles of {} merges, less a run of none | per merge |\n\
         | --- | ---: | ---: |\n",
        thousands(merges)
    );
    for (name, total) in merge_bench_tx::PATHS.iter().zip(&totals) {
        t.push_str(&format!(
            "| {name} | {} | {} |\n",
            thousands(*total),
            decimal(*total as f64 / f64::from(merges))
        ));
    }
    print!("{t}");
    // Whole cycles per merge, rounded (a run's fixed part can differ by a few cycles
    // between 0 and 2000 merges).
    let per_merge = |path: usize| (totals[path] as f64 / f64::from(merges)).round() as u64;
    let (memory, registers) = (per_merge(4), per_merge(5));
    assert_eq!(
        (memory, registers),
        (1315, 1299),
        "hashing.md's itemised cost of the assembly kernel no longer holds: update its text"
    );
    assert_eq!(
        cycle_lab::acc_growth::MERGE_CYCLES,
        registers,
        "lab's MERGE_CYCLES (docs/accumulator.md's cost table) is not the kernel's cost"
    );
    check_block(&doc("hashing.md"), "cycles-per-merge", &t);
    check_block(
        &readme(),
        "kernel-merge-cycles",
        &format!("{} cycles per merge", thousands(registers)),
    );
}

/// docs/deploy.md's by-reference cost table: the MMR lock's cycles in plain mode and by
/// reference (the code cell and the accumulator as deps), `by_reference.rs`'s spends.
#[test]
fn deploy_md_by_reference_cost_table() {
    let mut t =
        String::from("| verifier | plain | by reference | extra |\n| --- | ---: | ---: | ---: |\n");
    for (v, name) in doc_verifiers() {
        let c = by_reference_tx::reference_costs(v);
        t.push_str(&format!(
            "| {name} | {} | {} | +{} |\n",
            thousands(c.plain),
            thousands(c.by_reference),
            thousands(c.by_reference - c.plain),
        ));
        println!(
            "{v:?}: each further dep {} with a type script, {} without",
            c.per_typed_dep, c.per_untyped_dep
        );
    }
    print!("{t}");
    check_block(&doc("deploy.md"), "by-reference-cost-table", &t);
}

/// The bytes of `elf` that CKB-VM loads (and charges a quarter cycle each): every `PT_LOAD`
/// segment's file part.
fn loaded_bytes(elf: &[u8]) -> u64 {
    let u16_at = |o: usize| u16::from_le_bytes(elf[o..o + 2].try_into().unwrap()) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(elf[o..o + 8].try_into().unwrap());
    let (phoff, phentsize, phnum) = (u64_at(0x20) as usize, u16_at(0x36), u16_at(0x38));
    (0..phnum)
        .map(|i| phoff + i * phentsize)
        .filter(|&h| u32::from_le_bytes(elf[h..h + 4].try_into().unwrap()) == 1)
        .map(|h| u64_at(h + 0x20))
        .sum()
}

/// The size of the symbol `name` in `elf`'s symbol table.
fn symbol_size(elf: &[u8], name: &str) -> u64 {
    symbol_table(elf)
        .into_iter()
        .find(|s| s.0 == name)
        .unwrap_or_else(|| panic!("no symbol {name}"))
        .2
}

/// docs/accumulator.md's argument that no type script can keep the ancestry check of the cost
/// table within 10% beyond its hashing: the figures it quotes, and the inequality itself.
#[test]
fn accumulator_md_floor_bound() {
    use cycle_lab::acc_growth::{Step, MERGE_CYCLES};
    const ECALL: u64 = 500;
    let release = tests::release_dir();
    let elf = std::fs::read(release.join("accumulator-type")).unwrap();
    let debug = std::fs::read(release.join("accumulator-type.debug")).unwrap();
    let loaded = loaded_bytes(&elf);
    let kernel = symbol_size(&debug, "mmr_merge_rv64");
    let hashing = Step::Extend {
        old: (1 << 19) + 1,
        new: (1 << 20) - 1,
    }
    .merges()
        * MERGE_CYCLES;
    // total <= hashing / 0.9, so everything else <= hashing / 9.
    let allowed = hashing / 9;
    let kernel_cycles = kernel.div_ceil(4);
    // The args, the two probes, both cells' data, the witness, the exit.
    let (seven, five) = (7 * ECALL, 5 * ECALL + kernel_cycles);
    assert!(
        seven + kernel_cycles > allowed && five > allowed,
        "the bound no longer holds: {allowed} cycles allowed, seven ecalls {seven}, five and the kernel {five}"
    );
    check_block(
        &doc("accumulator.md"),
        "acc-elf-load",
        &format!(
            "{} bytes, {} cycles",
            thousands(loaded),
            thousands(loaded.div_ceil(4))
        ),
    );
    check_block(
        &doc("accumulator.md"),
        "acc-floor-bound",
        &format!(
            "the ancestry check hashes {} cycles, so 10% of its\ntotal leaves {} cycles for \
             everything else, while the seven `ecall`s a transition needs cost\n{} and loading the \
             merge kernel alone ({} bytes) {} more; even without the two\nprobes (which keep the \
             accumulator unique) five `ecall`s and the kernel are {}",
            thousands(hashing),
            thousands(allowed),
            thousands(seven),
            thousands(kernel),
            thousands(kernel_cycles),
            thousands(five)
        ),
    );
}
