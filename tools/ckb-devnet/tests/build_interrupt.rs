//! `./build.sh` interrupted while it waits for the node's background install: it exits with
//! the signal's usual code (130 INT, 143 TERM, 129 HUP) and stops the install, which runs in
//! a session of its own and so never sees the signal itself.
//!
//! The real install takes half an hour, so `cargo` is a stand-in here that records its PID
//! and sleeps where `cargo install ckb` would build; everything else build.sh runs is real
//! (dpkg-query, rustup, ckb-debugger, node). It runs on a copy of build.sh and
//! rust-toolchain.toml in a scratch directory, so the repository's own install log is never
//! touched.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const STUB_CARGO: &str = r#"#!/bin/sh
case "$1 $2" in
    "install ckb") echo $$ >"$STUB_DIR/install.pid"; exec sleep 600 ;;
    "fuzz --version") echo "cargo-fuzz 0.13.1" ;;
    *) echo "stub cargo: unexpected $*" >&2; exit 1 ;;
esac
"#;

/// Where the real tool `name` is on this machine's PATH.
fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// A scratch HOME whose `.cargo/bin` has the stand-in cargo and the real rustup and
/// ckb-debugger, and no `ckb`; a copy of build.sh to run there.
fn sandbox(name: &str) -> (PathBuf, PathBuf) {
    let dir = common::test_dir(name);
    let bin = dir.join("home/.cargo/bin");
    std::fs::create_dir_all(&bin).unwrap();
    let cargo = bin.join("cargo");
    std::fs::write(&cargo, STUB_CARGO).unwrap();
    std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
    for tool in ["rustup", "ckb-debugger"] {
        let real = which(tool).unwrap_or_else(|| panic!("{tool} is not on PATH"));
        std::os::unix::fs::symlink(real, bin.join(tool)).unwrap();
    }
    let repo = dir.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::create_dir_all(repo.join("tools")).unwrap();
    for file in ["build.sh", "tools/deps.sh", "rust-toolchain.toml"] {
        std::fs::copy(common::root().join(file), repo.join(file)).unwrap();
    }
    (dir, repo)
}

fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only asks whether the PID exists.
    unsafe { libc::kill(pid, 0) == 0 }
}

fn interrupt_deps(signal: i32, to_group: bool, expected: i32) {
    let (dir, repo) = sandbox(&format!("build-sh-signal-{signal}"));
    let home = dir.join("home");
    let rustup_home = std::env::var_os("RUSTUP_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(&std::env::var_os("HOME").unwrap()).join(".rustup"));
    let node_dir = which("node").map(|p| p.parent().unwrap().to_path_buf());
    let path = std::env::join_paths(
        [home.join(".cargo/bin")]
            .into_iter()
            .chain(node_dir)
            .chain(["/usr/local/bin", "/usr/bin", "/bin"].map(PathBuf::from)),
    )
    .unwrap();
    let mut child = Command::new("bash");
    child
        .arg(repo.join("build.sh"))
        .arg("deps")
        .env_clear()
        .env("PATH", path)
        .env("HOME", &home)
        .env("CARGO_HOME", home.join(".cargo"))
        .env("RUSTUP_HOME", rustup_home)
        .env("STUB_DIR", &dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    // SAFETY: signal and setsid between fork and exec: a process group of its own with the
    // default dispositions, like a terminal job. A test run started in the background by a
    // non-interactive shell inherits SIGINT ignored, and bash can never trap a signal that
    // was ignored when it started: build.sh would then be deaf to the Ctrl-C under test.
    unsafe {
        child.pre_exec(|| {
            for sig in [libc::SIGINT, libc::SIGQUIT, libc::SIGTERM, libc::SIGHUP] {
                libc::signal(sig, libc::SIG_DFL);
            }
            libc::setsid();
            Ok(())
        });
    }
    let mut child = child.spawn().expect("runs build.sh");
    let pid_file = dir.join("install.pid");
    let start = Instant::now();
    let install: i32 = loop {
        if let Some(pid) = std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|s| s.trim().parse().ok())
        {
            break pid;
        }
        if let Ok(Some(status)) = child.try_wait() {
            let mut err = String::new();
            std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
            panic!("build.sh deps ended ({status}) before the install started:\n{err}");
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the install never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    // Past the other installs, into the wait for the node's.
    let mut waited = String::new();
    while !waited.contains("waiting for the CKB node install") {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no wait: {waited}"
        );
        std::thread::sleep(Duration::from_millis(50));
        waited.push_str(&peek_stderr(&mut child));
    }
    let pid = child.id() as i32;
    let target = if to_group { -pid } else { pid };
    // SAFETY: a signal to the process (group) this test started.
    unsafe { libc::kill(target, signal) };
    let signalled = Instant::now();
    let mut rest = String::new();
    // The budget counts from the signal: reaching the wait may take long on a starved machine,
    // and that must not eat into the time build.sh has to exit.
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        rest.push_str(&peek_stderr(&mut child));
        assert!(
            signalled.elapsed() < Duration::from_secs(120),
            "build.sh did not exit within 120 s of signal {signal} (sent {:.1} s after start):\n{waited}{rest}",
            (signalled - start).as_secs_f64()
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    rest.push_str(&peek_stderr(&mut child));
    assert_eq!(
        status.code(),
        Some(expected),
        "signal {signal}: {status}\n{waited}{rest}"
    );
    assert!(
        rest.contains(&format!(
            "stopping the unfinished CKB node install (pid {install})"
        )),
        "{waited}{rest}"
    );
    let gone = Instant::now();
    while alive(install) && gone.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        !alive(install),
        "signal {signal}: the install (pid {install}) still runs"
    );
}

/// What build.sh has written to stderr since the last call (the pipe is read without
/// blocking, so a build.sh that is still running never stalls the test).
fn peek_stderr(child: &mut std::process::Child) -> String {
    use std::os::fd::AsRawFd;
    let fd = child.stderr.as_ref().unwrap().as_raw_fd();
    // SAFETY: fcntl on a pipe this process owns.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
    }
    let mut buf = [0u8; 4096];
    let mut out = Vec::new();
    loop {
        // SAFETY: reads into a buffer of this size.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n <= 0 {
            break;
        }
        out.extend_from_slice(&buf[..n as usize]);
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn ctrl_c_sigterm_and_sighup_end_build_sh_and_its_node_install() {
    // Ctrl-C and a closed terminal reach the whole job; `kill PID` reaches build.sh alone.
    interrupt_deps(libc::SIGINT, true, 130);
    interrupt_deps(libc::SIGTERM, false, 143);
    interrupt_deps(libc::SIGHUP, true, 129);
}
