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

/// How many times [`Node::start`] moves the node to other ports when one it was given has
/// been taken between [`free_ports`] choosing it and the node binding it.
const PORT_ATTEMPTS: u32 = 5;

/// Two distinct free TCP ports on 127.0.0.1 for the node's RPC and P2P listeners. They are
/// released before the node takes them, so they are drawn below the kernel's ephemeral range
/// when it leaves room: ports the OS hands out (`bind` to port 0, and the source port of every
/// outgoing connection, such as a client's RPC calls) come from that range, and one could
/// take the port in the gap. A port taken anyway, by another process choosing the same one,
/// is caught by [`Node::start`], which moves the node.
fn free_ports() -> Result<(u16, u16)> {
    use rand::Rng;
    let (low, high) = port_range();
    let mut rng = rand::thread_rng();
    let mut held: Vec<TcpListener> = Vec::new();
    for _ in 0..1000 {
        if held.len() == 2 {
            break;
        }
        let port = if low < high {
            rng.gen_range(low..high)
        } else {
            0
        };
        if let Ok(l) = TcpListener::bind(("127.0.0.1", port)) {
            held.push(l);
        }
    }
    let port = |l: &TcpListener| {
        l.local_addr()
            .map(|a| a.port())
            .map_err(|e| Error::Node(format!("no free port: {e}")))
    };
    match held.as_slice() {
        [rpc, p2p] => Ok((port(rpc)?, port(p2p)?)),
        _ => Err(Error::Node(format!(
            "no free port on 127.0.0.1 in {low}..{high}"
        ))),
    }
}

/// The ports [`free_ports`] draws from: 20000 up to the start of the ephemeral range in
/// /proc/sys/net/ipv4/ip_local_port_range (32768 by default), or `(0, 0)`, the OS's choice,
/// when that range starts too low to leave a thousand ports below it.
fn port_range() -> (u16, u16) {
    const LOW: u16 = 20000;
    let ephemeral_start = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u16>().ok())
        .unwrap_or(32768);
    if ephemeral_start >= LOW + 1000 {
        (LOW, ephemeral_start)
    } else {
        (0, 0)
    }
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
    let (rpc_port, p2p_port) = free_ports()?;
    let out = Command::new(&ckb)
        .arg("init")
        .arg("-C")
        .arg(dir)
        .args(["--chain", "dev", "--force"])
        .args(["--rpc-port", &rpc_port.to_string()])
        .args(["--p2p-port", &p2p_port.to_string()])
        .args(["--ba-arg", &crate::hex(&MINER_ARGS)])
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
    /// Starts the node initialised in `dir` and waits until its RPC answers. If the node
    /// exits because another process has taken its RPC or P2P port since `init` chose it,
    /// the chain moves to new free ports (ckb.toml is rewritten, and said on stderr) and the
    /// node starts again, up to [`PORT_ATTEMPTS`] times.
    pub fn start(dir: &Path, tie: Tie) -> Result<Node> {
        let mut attempt = 1;
        loop {
            match Node::start_once(dir, tie)? {
                Ok(node) => return Ok(node),
                Err(taken) if attempt < PORT_ATTEMPTS && !interrupted() => {
                    let config = dir.join("ckb.toml");
                    let text = std::fs::read_to_string(&config)
                        .map_err(|e| Error::Node(format!("reading ckb.toml: {e}")))?;
                    let (rpc_port, p2p_port) = free_ports()?;
                    std::fs::write(&config, edit_config(&text, rpc_port, p2p_port)?)
                        .map_err(|e| Error::Node(format!("writing ckb.toml: {e}")))?;
                    crate::chain::progress(&format!(
                        "the node's port was taken ({taken}); moving it to RPC port \
                         {rpc_port}, P2P port {p2p_port}"
                    ));
                    attempt += 1;
                }
                Err(taken) => {
                    return Err(Error::Node(format!(
                        "ckb could not bind its ports in {attempt} attempts: {taken}"
                    )))
                }
            }
        }
    }

    /// One start: the ready node, or (as the inner error) the line of node.log saying that a
    /// port the node was given is in use.
    fn start_once(dir: &Path, tie: Tie) -> Result<std::result::Result<Node, String>> {
        let ckb = ckb_binary()?;
        let shown = dir.display();
        let config = std::fs::read_to_string(dir.join("ckb.toml"))
            .map_err(|e| Error::Node(format!("{shown} is not an initialised chain: {e}")))?;
        let rpc_port: u16 = config
            .lines()
            .find_map(|l| l.trim().strip_prefix("listen_address = \"127.0.0.1:"))
            .and_then(|rest| rest.strip_suffix('"')?.parse().ok())
            .ok_or_else(|| Error::Node("no 127.0.0.1 RPC address in ckb.toml".into()))?;
        let rpc_url = format!("http://127.0.0.1:{rpc_port}");
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
        let mut node = Node {
            dir: dir.to_path_buf(),
            rpc_url,
            pid,
            child: Some(child),
        };
        written.map_err(|e| Error::Node(e.to_string()))?;
        if let Some(status) = node.wait_ready(rpc_port)? {
            // Reaped already: forget the PID rather than signal it (it may be reused).
            node.child = None;
            if let Ok(mut owned) = OWNED.lock() {
                owned.retain(|(p, _)| *p != pid);
            }
            let _ = std::fs::remove_file(dir.join("node.pid"));
            let log = std::fs::read_to_string(dir.join("node.log")).unwrap_or_default();
            if let Some(line) = log.lines().find(|l| l.contains("AddrInUse")) {
                return Ok(Err(summary(line)));
            }
            return Err(Error::Node(format!(
                "ckb exited during start-up ({status}): {}; see {}",
                startup_error(&log),
                dir.join("node.log").display(),
            )));
        }
        if tie == Tie::Detached {
            // The process outlives us: `ckb-devnet stop` ends it by the PID in node.pid.
            node.child = None;
        }
        Ok(Ok(node))
    }

    /// Polls the RPC (on `port`, that of `rpc_url`) until it answers; `Some(status)` if the
    /// node exited first. The RPC is called only once the node's own process listens on its
    /// port: a port taken by another process (the node then dies with AddrInUse) may be a
    /// server that never answers, or another test's node, whose answer would pass for this
    /// one's.
    fn wait_ready(&mut self, port: u16) -> Result<Option<std::process::ExitStatus>> {
        let rpc = crate::rpc::Rpc::new(&self.rpc_url)?;
        let start = Instant::now();
        loop {
            if let Some(child) = self.child.as_mut() {
                if let Ok(Some(status)) = child.try_wait() {
                    return Ok(Some(status));
                }
            }
            if listens_on(self.pid, port) && rpc.tip_block_number().is_ok() {
                return Ok(None);
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

/// Whether process `pid` holds the socket listening on 127.0.0.1:`port`: the listener's inode
/// in /proc/net/tcp is one of the process's open files.
fn listens_on(pid: i32, port: u16) -> bool {
    let table = std::fs::read_to_string("/proc/net/tcp").unwrap_or_default();
    // The kernel prints the address as the u32 it stores, in network byte order, read on this
    // little-endian host: 127.0.0.1 is 0100007F. 0A is TCP_LISTEN.
    let local = format!("0100007F:{port:04X}");
    let sockets: Vec<String> = table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            match fields.as_slice() {
                [_, addr, _, "0A", _, _, _, _, _, inode, ..] if *addr == local => {
                    Some(format!("socket:[{inode}]"))
                }
                _ => None,
            }
        })
        .collect();
    !sockets.is_empty()
        && std::fs::read_dir(format!("/proc/{pid}/fd"))
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|fd| std::fs::read_link(fd.path()).ok())
            .any(|target| sockets.iter().any(|s| target.as_os_str() == s.as_str()))
}

/// A log line without its colour codes and prefix: a panic's message alone (ckb writes the
/// backtrace on the same line), else the text from ERROR on; at most 300 characters.
fn summary(line: &str) -> String {
    let mut plain = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // An ANSI escape: ESC [ parameters, ending with a letter.
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            plain.push(c);
        }
    }
    let text = if let Some((_, rest)) = plain.split_once(" panicked at '") {
        format!("panic: {}", rest.split("': ").next().unwrap_or(rest))
    } else {
        let from = plain.find("ERROR ").unwrap_or(0);
        plain[from..].trim().to_string()
    };
    text.chars().take(300).collect()
}

/// What a node that died during start-up said: its first panic or error line (a panic's
/// backtrace, which ckb logs after it, names no cause), else its last line.
fn startup_error(log: &str) -> String {
    log.lines()
        .find(|l| l.contains("panicked at") || l.contains("Error"))
        .or_else(|| log.lines().rev().find(|l| !l.trim().is_empty()))
        .map_or_else(|| "node.log is empty".to_string(), summary)
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

    #[test]
    fn ports_are_free_distinct_and_below_the_ephemeral_range() {
        let (low, high) = port_range();
        for _ in 0..20 {
            let (rpc, p2p) = free_ports().unwrap();
            assert_ne!(rpc, p2p);
            if low < high {
                assert!((low..high).contains(&rpc) && (low..high).contains(&p2p));
            }
            assert!(TcpListener::bind(("127.0.0.1", rpc)).is_ok());
        }
    }

    #[test]
    fn a_listener_is_known_by_its_process() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let me = std::process::id() as i32;
        assert!(listens_on(me, port));
        // Another process's listener (the init process holds none here) is not ours.
        assert!(!listens_on(1, port));
        drop(listener);
        assert!(!listens_on(me, port));
    }

    /// The lines ckb 0.210.0 writes when a port is taken (RPC: a panic; P2P: an IO error).
    #[test]
    fn start_up_failures_are_named_by_their_cause() {
        let rpc = "\u{1b}[1;38;2;47;79;79m2026-11-25 21:35:15.090 +00:00\u{1b}[0m \
                   \u{1b}[1;34mGlobalRt-3\u{1b}[0m ERROR panic  thread 'GlobalRt-3' panicked at \
                   'called `Result::unwrap()` on an `Err` value: Os { code: 98, kind: AddrInUse, \
                   message: \"Address already in use\" }': src/server.rs:142   0: ckb_logger";
        let log = format!("starting\n{rpc}\n   8: ckb_launcher::Launcher::start_network_and_rpc\n");
        let said = startup_error(&log);
        assert_eq!(
            said,
            "panic: called `Result::unwrap()` on an `Err` value: Os { code: 98, kind: \
             AddrInUse, message: \"Address already in use\" }"
        );
        let p2p = "IO Error: Os { code: 98, kind: AddrInUse, message: \"Address already in use\" }";
        assert_eq!(startup_error(&format!("{p2p}\n")), p2p);
        assert_eq!(startup_error("a\nlast words\n\n"), "last words");
        assert_eq!(summary(&"x".repeat(500)).len(), 300);
    }
}
