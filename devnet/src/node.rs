//! The one owner of a local `ckb` node process: initialises a dev chain in a directory, starts
//! the node on free 127.0.0.1 ports, waits for its RPC, and stops it by the PID it started,
//! on drop, on Ctrl-C or SIGTERM (through [`install_signal_handler`]), and, for nodes tied to
//! their owner, when the owning process dies (the kernel's parent-death signal).

use crate::error::{Error, Result};
use crate::key::{DEV_KEY, DEV_KEY_2};
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The node version the project installs and tests against.
pub const CKB_VERSION: &str = "0.210.0";
/// Fixed, so the genesis block and every system cell's out point are the same on every init.
pub const GENESIS_MESSAGE: &str = "ckb-mmr-verifiers devnet";

/// PIDs and directories of the nodes this process owns, for the signal handler.
static OWNED: Mutex<Vec<(i32, PathBuf)>> = Mutex::new(Vec::new());

/// Set by the signal handler before it stops anything. Stopping an owned node makes the main
/// thread's next RPC call fail; the main thread must then exit 130 like the handler, not
/// report that failure (an unreachable node, a failed start) as the command's own error.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Held by the one thread that ends the process ([`exit`]): the signal handler and the main
/// thread never run the clean-up twice or call `exit` concurrently.
static EXITING: Mutex<()> = Mutex::new(());

/// Whether SIGINT, SIGTERM or SIGHUP has arrived. Once it has, the process exits 130.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Records the interrupt, stops every owned node by its PID, then exits 130, on SIGINT,
/// SIGTERM or SIGHUP; a panic after an interrupt (a thread tripping over the node it lost)
/// exits the same way, silently. Call once, early, in a binary that starts nodes, and end
/// its `main` with [`exit`].
pub fn install_signal_handler() {
    let _ = ctrlc::set_handler(|| {
        INTERRUPTED.store(true, Ordering::SeqCst);
        exit(130)
    });
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if interrupted() {
            exit(130);
        }
        default_hook(info)
    }));
}

/// Ends the process with `code`, or with 130 if an interrupt has arrived (whatever the
/// caller was doing), after stopping every node this process still owns. Whichever thread
/// comes second waits here until the process is gone.
pub fn exit(code: u8) -> ! {
    let _one_exit = EXITING.lock().unwrap_or_else(|e| e.into_inner());
    let interrupted = interrupted();
    let owned: Vec<(i32, PathBuf)> = OWNED
        .lock()
        .map(|p| p.clone())
        .unwrap_or_else(|e| e.into_inner().clone());
    for (pid, dir) in owned {
        if interrupted {
            crate::chain::progress(&format!("interrupted, stopping node (pid {pid})"));
        }
        terminate(pid, Duration::from_secs(20));
        let _ = std::fs::remove_file(dir.join("node.pid"));
    }
    std::process::exit(if interrupted { 130 } else { code.into() })
}

/// SIGTERM, then SIGKILL if the process is still there after `grace`; reaps it when it is our
/// child. Returns whether it exited within the grace period.
fn terminate(pid: i32, grace: Duration) -> bool {
    // SAFETY: kill and waitpid on a PID this process started; no memory is shared.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let start = Instant::now();
    while start.elapsed() < grace {
        if !alive(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    unsafe {
        libc::kill(pid, libc::SIGKILL);
        libc::waitpid(pid, std::ptr::null_mut(), 0);
    }
    false
}

/// Whether `pid` still runs (reaping it if it is our exited child).
fn alive(pid: i32) -> bool {
    // SAFETY: plain syscalls on a PID; a status pointer of null is allowed.
    unsafe {
        let reaped = libc::waitpid(pid, std::ptr::null_mut(), libc::WNOHANG);
        if reaped == pid {
            return false;
        }
        libc::kill(pid, 0) == 0 && !is_zombie(pid)
    }
}

/// Whether `pid` has exited but not been reaped (it shows in /proc, but no longer runs).
pub fn is_zombie(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            s.rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        })
        .unwrap_or(false)
}

/// The `ckb` binary: `$CKB_BIN`, else `ckb` on PATH (build.sh installs it under cargo's bin).
pub fn ckb_binary() -> Result<PathBuf> {
    if let Some(bin) = std::env::var_os("CKB_BIN") {
        return Ok(PathBuf::from(bin));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let cargo_bin = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))
        .map(|c| c.join("bin"));
    std::env::split_paths(&path)
        .chain(cargo_bin)
        .map(|d| d.join("ckb"))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            Error::Node(format!(
                "no ckb binary: run ./build.sh deps (installs ckb {CKB_VERSION})"
            ))
        })
}

/// A free TCP port on 127.0.0.1 (the OS picks; it is released for the node to take).
fn free_port() -> Result<u16> {
    let l =
        TcpListener::bind("127.0.0.1:0").map_err(|e| Error::Node(format!("no free port: {e}")))?;
    Ok(l.local_addr()
        .map_err(|e| Error::Node(e.to_string()))?
        .port())
}

/// How the node's life is tied to its owner.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Tie {
    /// Stops when the owning process dies, however it dies (tests, the scenario).
    Owner,
    /// Outlives the starting process, in its own session (`ckb-devnet start`).
    Detached,
}

/// The lock args the mined blocks' rewards go to: a secp256k1 lock no key here unlocks. Were
/// they paid to a key the client spends from, that key's cell list (in block order) would hold
/// as many reward cells as the commit waits happened to mine blocks, which depends on the
/// machine's speed; its next transaction, and that transaction's signature and cycles, would
/// vary from run to run. Paid here, every key's cells follow from the transactions sent.
pub const MINER_ARGS: [u8; 20] = [0; 20];

/// A running node.
pub struct Node {
    pub dir: PathBuf,
    pub rpc_url: String,
    pub pid: i32,
    child: Option<Child>,
}

/// `ckb init` for a dev chain in `dir` (emptied first) on free ports, RPC and P2P bound to
/// 127.0.0.1, with the IntegrationTest and Indexer RPC modules, the block assembler paid to
/// [`MINER_ARGS`].
pub fn init(dir: &Path) -> Result<u16> {
    let ckb = ckb_binary()?;
    if let Some(pid) = running_pid(dir) {
        return Err(Error::Node(format!(
            "a node (pid {pid}) still runs in {}: stop it first (ckb-devnet stop --dir {})",
            dir.display(),
            dir.display()
        )));
    }
    if dir.exists() {
        std::fs::remove_dir_all(dir)
            .map_err(|e| Error::Node(format!("cleaning {}: {e}", dir.display())))?;
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::Node(format!("creating {}: {e}", dir.display())))?;
    let (rpc_port, p2p_port) = (free_port()?, free_port()?);
    let out = Command::new(&ckb)
        .arg("init")
        .arg("-C")
        .arg(dir)
        .args(["--chain", "dev", "--force"])
        .args(["--rpc-port", &rpc_port.to_string()])
        .args(["--p2p-port", &p2p_port.to_string()])
        .args(["--ba-arg", &tx_generator::hex(&MINER_ARGS)])
        .args(["--genesis-message", GENESIS_MESSAGE])
        .output()
        .map_err(|e| Error::Node(format!("running {} init: {e}", ckb.display())))?;
    if !out.status.success() {
        return Err(Error::Node(format!(
            "ckb init failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let config = dir.join("ckb.toml");
    let text = std::fs::read_to_string(&config)
        .map_err(|e| Error::Node(format!("reading ckb.toml: {e}")))?;
    std::fs::write(&config, edit_config(&text, rpc_port, p2p_port)?)
        .map_err(|e| Error::Node(format!("writing ckb.toml: {e}")))?;
    // The key files are the public dev keys of the bundled dev spec.
    std::fs::write(dir.join("dev.key"), format!("0x{DEV_KEY}\n"))
        .map_err(|e| Error::Node(e.to_string()))?;
    std::fs::write(dir.join("owner.key"), format!("0x{DEV_KEY_2}\n"))
        .map_err(|e| Error::Node(e.to_string()))?;
    Ok(rpc_port)
}

/// The template's P2P listen address is 0.0.0.0: bind it to 127.0.0.1, and put the RPC on
/// 127.0.0.1 with the modules the scenario needs.
fn edit_config(text: &str, rpc_port: u16, p2p_port: u16) -> Result<String> {
    let mut out = String::with_capacity(text.len() + 64);
    let mut section = String::new();
    let (mut p2p, mut rpc, mut modules) = (false, false, false);
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with('[') {
            section = trimmed.trim_end().to_string();
        }
        if section == "[network]" && trimmed.starts_with("listen_addresses") {
            out.push_str(&format!(
                "listen_addresses = [\"/ip4/127.0.0.1/tcp/{p2p_port}\"]\n"
            ));
            p2p = true;
            continue;
        }
        if section == "[rpc]" && trimmed.starts_with("listen_address") {
            out.push_str(&format!("listen_address = \"127.0.0.1:{rpc_port}\"\n"));
            rpc = true;
            continue;
        }
        if section == "[rpc]" && trimmed.starts_with("modules") {
            out.push_str(
                "modules = [\"Net\", \"Pool\", \"Miner\", \"Chain\", \"Stats\", \"Experiment\", \
                 \"Debug\", \"IntegrationTest\", \"Indexer\"]\n",
            );
            modules = true;
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    if !(p2p && rpc && modules) {
        return Err(Error::Node(
            "ckb.toml has no [network] listen_addresses, [rpc] listen_address or modules line"
                .into(),
        ));
    }
    Ok(out)
}

impl Node {
    /// Starts the node initialised in `dir` and waits until its RPC answers.
    pub fn start(dir: &Path, tie: Tie) -> Result<Node> {
        let ckb = ckb_binary()?;
        let config = std::fs::read_to_string(dir.join("ckb.toml")).map_err(|e| {
            Error::Node(format!(
                "{} is not an initialised chain: {e}",
                dir.display()
            ))
        })?;
        let rpc_url = config
            .lines()
            .find_map(|l| l.trim().strip_prefix("listen_address = \"127.0.0.1:"))
            .and_then(|rest| rest.strip_suffix('"'))
            .map(|port| format!("http://127.0.0.1:{port}"))
            .ok_or_else(|| Error::Node("no 127.0.0.1 RPC address in ckb.toml".into()))?;
        let log =
            std::fs::File::create(dir.join("node.log")).map_err(|e| Error::Node(e.to_string()))?;
        let mut cmd = Command::new(&ckb);
        cmd.arg("run")
            .arg("-C")
            .arg(dir)
            .arg("--indexer")
            .stdin(Stdio::null())
            .stdout(log.try_clone().map_err(|e| Error::Node(e.to_string()))?)
            .stderr(log);
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            match tie {
                Tie::Owner => cmd.pre_exec(|| {
                    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
                    Ok(())
                }),
                Tie::Detached => cmd.pre_exec(|| {
                    libc::setsid();
                    Ok(())
                }),
            };
        }
        // Spawned, and its PID file written, under the lock the signal handler takes, so the
        // handler either runs before the node exists (and an interrupt that came earlier
        // refuses the start) or sees the node and its file: written after the handler had
        // removed it, the file would outlive the process.
        let mut owned = OWNED.lock().unwrap_or_else(|e| e.into_inner());
        if interrupted() {
            return Err(Error::Node("interrupted before the node started".into()));
        }
        let child = cmd
            .spawn()
            .map_err(|e| Error::Node(format!("starting {}: {e}", ckb.display())))?;
        let pid = child.id() as i32;
        if tie == Tie::Owner {
            owned.push((pid, dir.to_path_buf()));
        }
        let written = std::fs::write(dir.join("node.pid"), format!("{pid}\n"));
        drop(owned);
        written.map_err(|e| Error::Node(e.to_string()))?;
        let mut node = Node {
            dir: dir.to_path_buf(),
            rpc_url,
            pid,
            child: Some(child),
        };
        node.wait_ready()?;
        if tie == Tie::Detached {
            // The process outlives us: `ckb-devnet stop` ends it by the PID in node.pid.
            node.child = None;
        }
        Ok(node)
    }

    fn wait_ready(&mut self) -> Result<()> {
        let rpc = crate::rpc::Rpc::new(&self.rpc_url)?;
        let start = Instant::now();
        loop {
            if rpc.tip_block_number().is_ok() {
                return Ok(());
            }
            if let Some(child) = self.child.as_mut() {
                if let Ok(Some(status)) = child.try_wait() {
                    return Err(Error::Node(format!(
                        "ckb exited during start-up ({status}); last lines of {}:\n{}",
                        self.dir.join("node.log").display(),
                        tail(&self.dir.join("node.log"), 15)
                    )));
                }
            }
            if start.elapsed() > Duration::from_secs(120) {
                return Err(Error::Node(format!(
                    "the RPC at {} did not answer in 120 s",
                    self.rpc_url
                )));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Stops the node by its PID: SIGTERM, up to 30 s for a clean shutdown, then SIGKILL.
    pub fn stop(mut self) -> Result<()> {
        self.stop_inner()
    }

    fn stop_inner(&mut self) -> Result<()> {
        let Some(mut child) = self.child.take() else {
            return Ok(());
        };
        let clean = terminate(self.pid, Duration::from_secs(30));
        let _ = child.wait();
        if let Ok(mut owned) = OWNED.lock() {
            owned.retain(|(p, _)| *p != self.pid);
        }
        let _ = std::fs::remove_file(self.dir.join("node.pid"));
        if !clean {
            return Err(Error::Node(format!(
                "ckb (pid {}) ignored SIGTERM and was killed",
                self.pid
            )));
        }
        Ok(())
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.stop_inner();
    }
}

/// The PID in `dir/node.pid` if it is a `ckb` process running that directory.
pub fn running_pid(dir: &Path) -> Option<i32> {
    let pid: i32 = std::fs::read_to_string(dir.join("node.pid"))
        .ok()?
        .trim()
        .parse()
        .ok()?;
    is_node_of(pid, dir).then_some(pid)
}

fn is_node_of(pid: i32, dir: &Path) -> bool {
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let args: Vec<String> = cmdline
        .split(|&b| b == 0)
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    let canonical = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    args.first().is_some_and(|a| a.ends_with("ckb"))
        && args
            .iter()
            .any(|a| Path::new(a).canonicalize().ok().as_deref() == Some(&canonical))
}

/// Stops a detached node started in `dir` (its PID in `dir/node.pid`), checking first that
/// the PID is a `ckb` process running that directory, so a stale PID file kills nothing else.
pub fn stop_detached(dir: &Path) -> Result<bool> {
    let running = running_pid(dir);
    if let Some(pid) = running {
        if !terminate(pid, Duration::from_secs(30)) {
            return Err(Error::Node(format!(
                "ckb (pid {pid}) ignored SIGTERM and was killed"
            )));
        }
    }
    let _ = std::fs::remove_file(dir.join("node.pid"));
    Ok(running.is_some())
}

fn tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_edit_binds_loopback_and_adds_modules() {
        let template = "[network]\nlisten_addresses = [\"/ip4/0.0.0.0/tcp/8115\"]\n\
                        [rpc]\nlisten_address = \"127.0.0.1:8114\"\nmodules = [\"Net\"]\n";
        let out = edit_config(template, 1000, 2000).unwrap();
        assert!(out.contains("/ip4/127.0.0.1/tcp/2000"));
        assert!(out.contains("listen_address = \"127.0.0.1:1000\""));
        assert!(out.contains("\"IntegrationTest\", \"Indexer\""));
        assert!(!out.contains("0.0.0.0"));
        assert!(edit_config("[rpc]\n", 1, 2).is_err());
    }
}
