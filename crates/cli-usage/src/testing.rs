//! The checks the binaries' usage tests share (feature `testing`, for dev-dependencies): what
//! a usage error and a command's own `--help` look like from outside the process. A failed
//! check names the line in the test file that called it (`track_caller`).

use std::path::PathBuf;
use std::process::Output;

/// A usage error: exit 2, nothing on standard output, one line on standard error that starts
/// with `prefix` and holds every one of `names`; `args` names the call in a failure.
#[track_caller]
pub fn assert_usage_error(out: &Output, args: &[&str], prefix: &str, names: &[&str]) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(
        out.stdout.is_empty(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    assert!(stderr.starts_with(prefix), "{args:?}: {stderr}");
    for name in names {
        assert!(stderr.contains(name), "{args:?}: {name} not in {stderr}");
    }
}

/// `command --help` (its output `out`): exit 0, its usage line (`Usage: {command} `), `own`
/// and none of `others` (options of other commands, the top level's notes).
#[track_caller]
pub fn assert_own_help(out: Output, command: &str, own: &str, others: &[&str]) {
    assert_eq!(out.status.code(), Some(0), "{command}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(&format!("Usage: {command} ")), "{text}");
    assert!(text.contains(own), "{command}: {text}");
    for other in others {
        assert!(!text.contains(other), "{command} shows {other}: {text}");
    }
}

/// An empty directory of its own under the temporary one, `{tool}-usage-{name}-{pid}`.
pub fn scratch(tool: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("{tool}-usage-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
