//! The whole check, as `kernel-proof` (and `./build.sh kernel-proof`) runs it: the
//! specification's self-check, the proof of every entry in every image, the stripped
//! binaries' loaded bytes against their `.debug` copies, the call sites and the header.

use crate::check::{self, Proved, SplitMix, ENTRIES};
use crate::elf::Image;
use crate::spec;
use crate::wrappers::{self, CallSite, HeaderConvention};
use std::path::{Path, PathBuf};
use std::process::Command;

pub const KERNEL_SOURCE: &str = "crates/mmr-blake2b/src/merge_rv64.s";
pub const RUST_WRAPPER: &str = "crates/mmr-blake2b/src/asm.rs";
pub const C_WRAPPER: &str = "contracts/c-verifier/merge_asm.h";

/// The workspace root this crate was built in (for the default paths).
pub fn default_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(root: &Path, rel: &str) -> Result<String, String> {
    std::fs::read_to_string(root.join(rel)).map_err(|e| format!("{rel}: {e}"))
}

/// The callers' declarations and the header's convention, parsed from the sources.
pub struct Declarations {
    pub sites: Vec<CallSite>,
    pub header: HeaderConvention,
}

/// The three source texts the declarations come from: asm.rs, merge_asm.h, merge_rv64.s.
pub fn declaration_sources(root: &Path) -> Result<[String; 3], String> {
    Ok([
        read(root, RUST_WRAPPER)?,
        read(root, C_WRAPPER)?,
        read(root, KERNEL_SOURCE)?,
    ])
}

pub fn declarations_from(src: &[String; 3]) -> Result<Declarations, String> {
    let mut sites = wrappers::parse_rust(&src[0], RUST_WRAPPER)?;
    sites.extend(wrappers::parse_c(&src[1], C_WRAPPER)?);
    let header = wrappers::parse_header(&src[2], KERNEL_SOURCE)?;
    Ok(Declarations { sites, header })
}

pub fn declarations(root: &Path) -> Result<Declarations, String> {
    declarations_from(&declaration_sources(root)?)
}

/// The disagreements of `decl` with the proved entries (empty when all agree).
pub fn declaration_errors(decl: &Declarations, proved: &[Proved]) -> Vec<String> {
    let mut errs = Vec::new();
    for p in proved {
        errs.extend(check::check_header(p, &decl.header));
    }
    for s in &decl.sites {
        match proved.iter().find(|p| p.name == s.entry) {
            Some(p) => errs.extend(
                check::check_site(p, s)
                    .into_iter()
                    .map(|m| format!("{}: {m}", s.origin)),
            ),
            None => errs.push(format!(
                "{}: calls {}, which is not proved",
                s.origin, s.entry
            )),
        }
    }
    errs
}

/// BLAKE2b as blake2b-rs computes it: the independent reference both the specification's
/// self-check and the concrete runs of the proved kernel are compared with.
fn reference(out_len: usize, key: &[u8], personal: &[u8; 16], data: &[u8]) -> Vec<u8> {
    let mut h = blake2b_rs::Blake2bBuilder::new(out_len)
        .personal(personal)
        .key(key)
        .build();
    h.update(data);
    let mut out = vec![0u8; out_len];
    h.finalize(&mut out);
    out
}

/// The merge by [`reference`].
fn reference_merge(l: &[u8; 32], r: &[u8; 32]) -> [u8; 32] {
    let out = reference(32, &[], &spec::CKB_PERSONAL, &[&l[..], &r[..]].concat());
    out.try_into().unwrap()
}

/// Checks the specification transcription against blake2b-rs (the reference C
/// implementation) on `n` random merges and on every message length 0..=300 with several
/// digest lengths and keys, and against RFC 7693 Appendix A. Returns the number of
/// comparisons.
pub fn spec_self_check(n: usize) -> Result<usize, String> {
    // RFC 7693 Appendix A: BLAKE2b-512("abc").
    let abc = spec::blake2b(64, &[], &[0; 16], b"abc");
    let want = "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1\
                7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923";
    let got: String = abc.iter().map(|b| format!("{b:02x}")).collect();
    if got != want {
        return Err(format!(
            "specification: BLAKE2b-512(\"abc\") = {got}, RFC 7693 says {want}"
        ));
    }
    let mut count = 1;
    let mut rng = SplitMix(0x6b65_726e_656c);
    for i in 0..n {
        let (l, r) = rng.pair(i, [[0; 32]; 2]);
        let want = reference_merge(&l, &r);
        let got = check::spec_concrete(&l, &r);
        if check::words(&want) != got {
            return Err(format!(
                "specification: merge of {l:02x?} and {r:02x?} differs from blake2b-rs"
            ));
        }
        count += 1;
    }
    for len in 0..=300usize {
        let data: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        let key_len = len % 65;
        let key: Vec<u8> = (0..key_len).map(|_| rng.next_u64() as u8).collect();
        let out_len = 1 + len % 64;
        let personal: [u8; 16] = if len % 2 == 0 {
            spec::CKB_PERSONAL
        } else {
            [0; 16]
        };
        if spec::blake2b(out_len, &key, &personal, &data)
            != reference(out_len, &key, &personal, &data)
        {
            return Err(format!(
                "specification: {len}-byte message, {key_len}-byte key, {out_len}-byte digest differs from blake2b-rs"
            ));
        }
        count += 1;
    }
    Ok(count)
}

/// Assembles the kernel source with the pinned C toolchain (clang-19, the C verifier's
/// -march) and links it alone with ld.lld-19, into `dir`; returns the ELF's path.
pub fn assemble(root: &Path, dir: &Path) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let obj = dir.join("merge_rv64.o");
    let elf = dir.join("merge_rv64.elf");
    let run = |cmd: &mut Command| -> Result<(), String> {
        let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "{cmd:?} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ))
        }
    };
    run(Command::new("clang-19")
        .args([
            "--target=riscv64",
            "-march=rv64imc_zba_zbb_zbc_zbs",
            "-mabi=lp64",
            "-c",
            "-x",
            "assembler",
        ])
        .arg(root.join(KERNEL_SOURCE))
        .arg("-o")
        .arg(&obj))?;
    run(Command::new("ld.lld-19")
        .args(["-e", "mmr_merge_rv64", "-o"])
        .arg(&elf)
        .arg(&obj))?;
    Ok(elf)
}

/// The `.debug` images in a release directory, each paired with its stripped copy if any.
pub fn release_images(dir: &Path) -> Result<Vec<(PathBuf, Option<PathBuf>)>, String> {
    let mut out = Vec::new();
    let rd = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e} (run ./build.sh build first)", dir.display()))?;
    for e in rd {
        let p = e.map_err(|e| e.to_string())?.path();
        if p.extension().is_some_and(|x| x == "debug") {
            let stripped = p.with_extension("");
            out.push((p.clone(), stripped.exists().then_some(stripped)));
        }
    }
    out.sort();
    Ok(out)
}

/// One image's results.
pub struct ImageReport {
    pub label: String,
    pub entries: Vec<(&'static str, Result<Proved, String>)>,
    pub errors: Vec<String>,
}

/// Proves every entry of `img`, cross-checks each proved entry concretely against
/// blake2b-rs on `concrete` random inputs (a check of the interpreter and decoder, not part
/// of the proof), and checks the call sites and the header against the proved effects.
pub fn check_image(label: &str, img: &Image, decl: &Declarations, concrete: usize) -> ImageReport {
    let mut errors = Vec::new();
    let mut entries = Vec::new();
    for (e, res) in check::prove_image(img, &|_| None) {
        match res {
            Ok(p) => {
                let mut rng = SplitMix(p.addr);
                for i in 0..concrete {
                    let (l, r) = rng.pair(i, [[0xff; 32], [0; 32]]);
                    let want = reference_merge(&l, &r);
                    match check::run_concrete(img, e, p.addr, l, r, &mut rng, &|_| None) {
                        Ok(w) if w == check::words(&want) => {}
                        Ok(_) => {
                            errors.push(format!("{}: concrete run differs from blake2b-rs", e.name))
                        }
                        Err(f) => errors.push(format!("{}: concrete run refused: {f}", e.name)),
                    }
                }
                errors.extend(
                    check::check_header(&p, &decl.header)
                        .into_iter()
                        .map(|m| format!("{KERNEL_SOURCE} header: {m}")),
                );
                for s in decl.sites.iter().filter(|s| s.entry == e.name) {
                    for m in check::check_site(&p, s) {
                        errors.push(format!("{} ({}): {m}", s.origin, s.entry));
                    }
                }
                entries.push((e.name, Ok(p)));
            }
            Err(f) => {
                let mut msg = f.to_string();
                if matches!(f, check::Failure::Mismatch { .. }) {
                    msg.push_str(&counterexample(img, e, img.symbol(e.name).unwrap_or(0)));
                }
                entries.push((e.name, Err(msg)))
            }
        }
    }
    ImageReport {
        label: label.to_string(),
        entries,
        errors,
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A concrete input on which the entry and the specification differ, in words, for a
/// failed proof (all zero first, then random inputs).
fn counterexample(img: &Image, e: &check::Entry, addr: u64) -> String {
    let mut rng = SplitMix(0xc0de);
    for i in 0..64 {
        let (l, r) = rng.pair(i, [[0; 32]; 2]);
        let want = check::spec_concrete(&l, &r);
        let got = check::run_concrete(img, e, addr, l, r, &mut rng, &|_| None);
        let to_bytes = |w: [u64; 4]| w.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        match got {
            Ok(g) if g == want => continue,
            Ok(g) => {
                return format!(
                    "\n      counterexample: left {} right {}\n        kernel {}\n        BLAKE2b-256 {}",
                    hex(&l),
                    hex(&r),
                    hex(&to_bytes(g)),
                    hex(&to_bytes(want))
                )
            }
            Err(f) => return format!("\n      concrete run refused: {f}"),
        }
    }
    "\n      (no counterexample among 64 concrete inputs)".into()
}

/// The loaded segments of a stripped binary and its `.debug` copy must be the same bytes,
/// so that what is proved (the `.debug`, which has the symbols) is what ships.
pub fn same_loaded_bytes(debug: &Image, stripped: &Image) -> bool {
    debug.segments == stripped.segments
}

/// Everything `kernel-proof` prints and whether it all holds.
pub struct Outcome {
    pub text: String,
    pub ok: bool,
    pub entries_proved: usize,
}

pub struct Options {
    pub root: PathBuf,
    /// `.debug` images with optional stripped copies.
    pub images: Vec<(PathBuf, Option<PathBuf>)>,
    /// Also assemble and prove the source (into this directory).
    pub assemble_into: Option<PathBuf>,
    pub spec_samples: usize,
    pub concrete_samples: usize,
}

pub fn run(opts: &Options) -> Outcome {
    use std::fmt::Write;
    let mut t = String::new();
    let mut ok = true;
    let mut proved_names = std::collections::BTreeSet::new();
    // Every failure is printed and makes the outcome not ok.
    let fail = |t: &mut String, ok: &mut bool, msg: String| {
        *ok = false;
        let _ = writeln!(t, "FAIL: {msg}");
    };
    match spec_self_check(opts.spec_samples) {
        Ok(n) => {
            let _ = writeln!(
                t,
                "specification: RFC 7693 BLAKE2b-512(\"abc\") and {n} comparisons with blake2b-rs agree"
            );
        }
        Err(e) => fail(&mut t, &mut ok, e),
    }
    let decl = match declarations(&opts.root) {
        Ok(d) => d,
        Err(e) => {
            fail(&mut t, &mut ok, e);
            return Outcome {
                text: t,
                ok: false,
                entries_proved: 0,
            };
        }
    };
    let mut images: Vec<(String, Image)> = Vec::new();
    for (debug, stripped) in &opts.images {
        let label = debug.display().to_string();
        match Image::read_file(debug) {
            Ok(img) => {
                if let Some(s) = stripped {
                    match Image::read_file(s) {
                        Ok(si) if same_loaded_bytes(&img, &si) => {}
                        Ok(_) => {
                            let why =
                                format!("{}: loaded bytes differ from {label}'s", s.display());
                            fail(&mut t, &mut ok, why);
                        }
                        Err(e) => fail(&mut t, &mut ok, e),
                    }
                }
                images.push((label, img));
            }
            Err(e) => fail(&mut t, &mut ok, e),
        }
    }
    if let Some(dir) = &opts.assemble_into {
        match assemble(&opts.root, dir).and_then(|p| Image::read_file(&p)) {
            Ok(img) => images.push((format!("{KERNEL_SOURCE} (clang-19 + ld.lld-19)"), img)),
            Err(e) => fail(&mut t, &mut ok, e),
        }
    }
    let mut with_kernel = 0;
    let mut errors: std::collections::BTreeMap<String, Vec<String>> =
        std::collections::BTreeMap::new();
    for (label, img) in &images {
        let r = check_image(label, img, &decl, opts.concrete_samples);
        if r.entries.is_empty() {
            let _ = writeln!(t, "{label}: no kernel entry linked (skipped)");
            continue;
        }
        with_kernel += 1;
        let _ = writeln!(t, "{label}:");
        for (name, res) in &r.entries {
            match res {
                Ok(p) => {
                    proved_names.insert(*name);
                    let _ = writeln!(
                        t,
                        "  {name:<28} {:#8x}  {:>5} instructions  proved for all inputs ({} normalised nodes)",
                        p.addr, p.steps, p.nodes
                    );
                }
                Err(e) => {
                    ok = false;
                    let _ = writeln!(t, "  {name:<28} NOT PROVED: {e}");
                }
            }
        }
        for name in ENTRIES.iter().map(|e| e.name) {
            if !r.entries.iter().any(|(n, _)| *n == name) {
                let _ = writeln!(t, "  {name:<28} not linked");
            }
        }
        for e in r.errors {
            ok = false;
            errors.entry(e).or_default().push(label.clone());
        }
    }
    // The declarations are the same for every image: each disagreement once.
    for (e, labels) in &errors {
        let which = if labels.len() == with_kernel {
            "every image".to_string()
        } else {
            labels.join(", ")
        };
        fail(&mut t, &mut ok, format!("{e} (in {which})"));
    }
    if with_kernel == 0 {
        fail(
            &mut t,
            &mut ok,
            "no image with the kernel was checked".into(),
        );
    }
    // Effects of each entry (the same in every image when all is well), and the call sites.
    let _ = writeln!(
        t,
        "register effects (derived from the runs, with the caller's jal writing ra):"
    );
    if let Some((_, img)) = images
        .iter()
        .find(|(_, i)| ENTRIES.iter().all(|e| i.symbol(e.name).is_some()))
    {
        for (e, res) in check::prove_image(img, &|_| None) {
            if let Ok(p) = res {
                let mut w = p.written;
                w.insert(crate::decode::RA);
                let mut r = p.live_in;
                r.remove(crate::decode::RA);
                let _ = writeln!(t, "  {:<28} reads {r}; writes {w}", e.name);
            }
        }
    }
    let _ = writeln!(
        t,
        "call sites: {} asm statements in {RUST_WRAPPER} and {C_WRAPPER}, each checked against its entry's proved effects:",
        decl.sites.len()
    );
    for s in &decl.sites {
        let _ = writeln!(t, "  {:<58} {:<28} inputs {}", s.origin, s.entry, s.inputs);
        if !proved_names.contains(s.entry.as_str()) {
            let why = format!(
                "{}: calls {}, which no checked image proves",
                s.origin, s.entry
            );
            fail(&mut t, &mut ok, why);
        }
    }
    let all = ENTRIES
        .iter()
        .filter(|e| proved_names.contains(e.name))
        .count();
    if all != ENTRIES.len() {
        ok = false;
    }
    let _ = writeln!(
        t,
        "RESULT: {all} of {} entries proved equal to BLAKE2b-256/ckb-default-hash for all inputs in {with_kernel} images; {}",
        ENTRIES.len(),
        if ok { "everything holds" } else { "FAILED" }
    );
    Outcome {
        text: t,
        ok,
        entries_proved: all,
    }
}
