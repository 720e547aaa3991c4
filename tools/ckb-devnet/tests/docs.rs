//! docs/deploy.md's ckb-devnet session, run command by command on a fresh dev chain.

mod common;

use std::process::Command;

fn field<'a>(out: &'a str, name: &str) -> Option<&'a str> {
    out.lines()
        .find_map(|l| l.strip_prefix(&format!("{name}: ")))
}

#[test]
fn every_command_of_the_deploy_guide_runs() {
    let root = common::root();
    common::release();
    let doc = std::fs::read_to_string(root.join("docs/deploy.md")).unwrap();
    let block = doc_blocks::between(&doc, "devnet-session").expect("session markers");
    let commands: Vec<&str> = block
        .lines()
        .filter(|l| l.starts_with("target/release/ckb-devnet "))
        .collect();
    assert!(commands.len() >= 8, "{commands:?}");
    let node = common::fresh_node("docs");
    let key = node.dir.join("dev.key").display().to_string();
    let owner_key = node.dir.join("owner.key").display().to_string();
    let mut vars: Vec<(&str, String)> = vec![
        ("$RPC", node.rpc_url.clone()),
        ("$KEY", key),
        ("$OWNER_KEY", owner_key),
        (
            "$STORE",
            common::test_dir("docs-store")
                .join("acc.store")
                .display()
                .to_string(),
        ),
    ];
    let mut outputs = Vec::new();
    for line in commands {
        let mut args: Vec<String> = line
            .split_whitespace()
            .skip(1)
            .map(str::to_string)
            .collect();
        for a in &mut args {
            for (name, value) in &vars {
                if a == name {
                    *a = value.clone();
                }
            }
        }
        assert!(
            !args.iter().any(|a| a.starts_with('$')),
            "unset variable in {line}"
        );
        let out = Command::new(env!("CARGO_BIN_EXE_ckb-devnet"))
            .current_dir(&root)
            .args(&args)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            out.status.success(),
            "{line}\n{}{stdout}",
            String::from_utf8_lossy(&out.stderr)
        );
        let printed = |name: &str, what: &str| field(&stdout, name).expect(what).to_string();
        if vars.iter().all(|(n, _)| *n != "$CODE") {
            vars.push(("$CODE", printed("out_point", "deploy prints out_point")));
        }
        if args[..2] == ["acc", "create"] {
            vars.push(("$ACC", printed("type_id", "acc create prints type_id")));
        }
        if args[0] == "deploy" && args.iter().any(|a| a == "--type-id") {
            let out_point = printed("out_point", "deploy prints out_point");
            vars.push(("$TYPED", out_point.split(':').next().unwrap().to_string()));
        }
        if args[0] == "spend" {
            vars.retain(|(n, _)| *n != "$TX");
            vars.push(("$TX", printed("tx_hash", "spend prints tx_hash")));
        }
        outputs.push((args[0].clone(), stdout));
    }
    // The second deploy found the first; debug's total is the node's cycles, also for the
    // type id deploy, whose built-in type id group is counted at the node's fixed charge.
    assert_eq!(field(&outputs[0].1, "created"), Some("true"));
    assert_eq!(field(&outputs[1].1, "created"), Some("false"));
    let debugs: Vec<&String> = outputs
        .iter()
        .filter(|(c, _)| c == "debug")
        .map(|(_, out)| out)
        .collect();
    assert_eq!(debugs.len(), 2);
    for debug in &debugs {
        let total = debug
            .lines()
            .find_map(|l| l.strip_prefix("ckb-debugger total: "))
            .unwrap();
        let node_cycles = debug
            .lines()
            .find_map(|l| l.strip_prefix("node: "))
            .unwrap();
        assert_eq!(
            total.split(" cycles").next(),
            node_cycles.split(" cycles").next(),
            "{debug}"
        );
    }
    assert!(
        debugs[1].contains(" built-in type id ") && debugs[1].contains("counted at the node's"),
        "{}",
        debugs[1]
    );
    // The accumulator grew from 4 leaves to 7 and the cell locked at 4 was spent by leaf 5;
    // a store synced from the chain holds the same 7 leaves and root.
    let sync = &outputs.iter().rev().nth(2).unwrap().1;
    let show = &outputs.iter().rev().nth(3).unwrap().1;
    assert_eq!(field(show, "leaf_count"), Some("7"), "{show}");
    assert_eq!(field(sync, "leaf_count"), Some("7"), "{sync}");
    assert_eq!(field(sync, "root"), field(show, "root"), "{sync}");
    let by_reference = &outputs.iter().rev().nth(4).unwrap().1;
    assert_eq!(
        field(by_reference, "status"),
        Some("committed"),
        "{by_reference}"
    );
    // docs/accumulator-guide.md's sync snippet is this session's sync line.
    let acc_doc = std::fs::read_to_string(root.join("docs/accumulator-guide.md")).unwrap();
    let snippet = doc_blocks::between(&acc_doc, "sync-snippet").expect("sync-snippet");
    for line in snippet.lines().filter(|l| l.starts_with("ckb-devnet ")) {
        assert!(
            block.contains(&format!("target/release/{line}\n")),
            "{line} is not run by the session"
        );
    }
    let typed = &outputs.iter().rev().nth(1).unwrap().1;
    assert!(typed.contains("type_hash: 0x"), "{typed}");
}

/// The codes of `text`: numbers and `a-b` ranges (expanded), anything else skipped.
fn codes_in(text: &str) -> std::collections::BTreeSet<u32> {
    let mut codes = std::collections::BTreeSet::new();
    for word in text.split(|c: char| !(c.is_ascii_digit() || c == '-')) {
        let mut ends = word.splitn(2, '-').map(str::parse::<u32>);
        match (ends.next(), ends.next()) {
            (Some(Ok(a)), None) => codes.extend([a]),
            (Some(Ok(a)), Some(Ok(b))) => codes.extend(a..=b),
            _ => {}
        }
    }
    codes
}

/// `ckb-devnet ARGS --help`'s text.
fn help(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_ckb-devnet"))
        .args(args)
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// The commands a help text lists (its `Commands:` section).
fn commands_in(help: &str) -> Vec<String> {
    help.split("Commands:\n")
        .nth(1)
        .map(|list| {
            list.lines()
                .take_while(|l| !l.trim().is_empty())
                .filter_map(|l| l.split_whitespace().next())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Every command's help, the top level's first: `ckb-devnet --help`, then each command's and
/// each `acc` command's.
fn every_help() -> Vec<(String, String)> {
    let top = help(&[]);
    let mut helps = vec![(String::new(), top.clone())];
    for command in commands_in(&top) {
        let text = help(&[&command]);
        for sub in commands_in(&text) {
            helps.push((format!("{command} {sub}"), help(&[&command, &sub])));
        }
        helps.push((command, text));
    }
    helps
}

/// `ckb-devnet --help` against docs/deploy.md: the exit codes it lists are the table's (0
/// aside), and every option of every command's `--help` is in the guide. No node needed.
#[test]
fn usage_text_matches_the_deploy_guide() {
    let root = common::root();
    let helps = every_help();
    let usage = &helps[0].1;
    let doc = std::fs::read_to_string(root.join("docs/deploy.md")).unwrap();
    let table = doc
        .split("### Exit codes of ckb-devnet")
        .nth(1)
        .and_then(|t| t.split("\n\n").find(|p| p.starts_with("| code |")))
        .expect("deploy.md's exit-code table");
    let documented = codes_in(
        &table
            .lines()
            .skip(2)
            .filter_map(|l| l.split('|').nth(1))
            .collect::<Vec<_>>()
            .join(" "),
    );
    let listed = codes_in(
        usage
            .split("Exit codes:")
            .nth(1)
            .expect("usage's exit codes"),
    );
    let mut expected = documented.clone();
    expected.remove(&0);
    assert_eq!(
        listed, expected,
        "usage's exit codes (left), deploy.md's (right)"
    );
    assert!(
        documented.contains(&130) && documented.contains(&53),
        "{documented:?}"
    );
    // Every command of the guide's session has its help, and the acc commands are listed.
    let named: Vec<&str> = helps.iter().map(|(c, _)| c.as_str()).collect();
    let commands = "node start stop scenario sync-bench deploy lock spend debug".split(' ');
    let acc = "create append extend sync show handover".split(' ');
    for command in commands
        .map(String::from)
        .chain(acc.map(|c| format!("acc {c}")))
    {
        assert!(named.contains(&command.as_str()), "{command}: {named:?}");
    }
    let mut options: Vec<(&str, &str)> = helps
        .iter()
        .flat_map(|(command, text)| {
            text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .filter(|w| w.starts_with("--") && w.len() > 2 && *w != "--help")
                .map(move |w| (w, command.as_str()))
        })
        .collect();
    options.sort_unstable();
    options.dedup_by_key(|(o, _)| *o);
    assert!(options.len() > 25, "{options:?}");
    for (option, command) in options {
        let named = doc.match_indices(option).any(|(at, _)| {
            !doc[at + option.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-')
        });
        assert!(
            named,
            "{option} (ckb-devnet {command} --help) is not in docs/deploy.md"
        );
    }
}
