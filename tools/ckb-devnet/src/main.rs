//! ckb-devnet: the MMR lock on a real CKB node (docs/deploy.md). `ckb-devnet --help` lists the
//! commands and the exit codes, `ckb-devnet COMMAND --help` one command's options.

mod cmd;

use ckb_mmr_sdk::node::{self, Tie};
use clap::Parser;
use cmd::{acc, client, debug, local};

const EXIT_CODES: &str = "\
Against any node, deploy, lock, spend and acc (but show and sync) take --rpc URL and --key FILE
(a file with one hex private key); debug, acc show and acc sync send nothing and take no --key.
The accumulator's commands: docs/accumulator-guide.md.

Exit codes: docs/deploy.md (2 usage, 3 unreachable, 4 RPC, 5 file, 6 key, 7 capacity,
8 leaves, 9 index, 10 mainnet, 11 refused, 12 not found, 13 node, 14 timeout, 15 ckb-debugger,
16 scenario, 17 leaves do not extend the accumulator, 18 not the accumulator's key,
19 no leaves on chain for a step, 20 the store disagrees with the chain, 21 a creation too
large for one transaction, 40-53 the store's, 130 interrupted).";

// Parser on the enum itself: clap requires a command and, given none, prints the help and
// exits 2 (arg_required_else_help) as it would for a struct wrapping it.
/// The MMR lock on a real CKB node: a local dev chain, and a client for it or any other node
#[derive(Parser, Debug)]
#[command(name = "ckb-devnet", after_help = EXIT_CODES, disable_help_subcommand = true)]
enum Command {
    /// Init a fresh dev chain in DIR and run its node in the foreground
    ///
    /// Prints one JSON line when the RPC answers ({"rpc_url", "pid", "dir", "dev_key_file",
    /// "owner_key_file"}) and stops the node on Ctrl-C, SIGTERM or when standard input closes.
    Node(local::NodeArgs),
    /// The same, but leaves the node running in the background
    Start(local::NodeArgs),
    /// Stops the node `start` left running (by the PID it recorded)
    Stop(local::NodeArgs),
    /// Fresh dev chain, the whole devnet scenario, a table and a JSON report
    Scenario(local::ScenarioArgs),
    /// Fresh dev chain, an accumulator grown to N leaves, `acc sync` timed
    ///
    /// The accumulator grows in appends as large as one signed witness holds (1,021 leaves
    /// less one per old peak), then `acc sync` brings a new store up to it: ms per 1,000
    /// leaves (JSON to FILE too).
    SyncBench(local::SyncBenchArgs),
    /// Fresh dev chain, one append in every block while clients spend by reference
    ///
    /// One leaf appended to an accumulator in each of --blocks blocks, while --spends spends
    /// of cells locked by reference to it (every verifier, plain and owner mode) arrive at
    /// random moments from --clients threads, rebuilt whenever the node refuses or drops them.
    /// By default the accumulator is a ring of --ring K snapshots and the clients take its
    /// newest committed one (--dep ring); --dep committed and --dep tip run a plain
    /// accumulator for comparison. Prints the table and writes the JSON report
    /// (docs/concurrency.md, "Under load").
    Load(local::LoadArgs),
    /// A code cell holding BINARY, locked by the key
    ///
    /// A rerun finds it through the indexer and pays nothing.
    Deploy(client::DeployArgs),
    /// A cell locked by the verifier with the MMR of FILE (args printed)
    ///
    /// With --acc TYPE_ID_ARGS the cell is locked by reference: it follows the accumulator's
    /// MMR.
    Lock(client::LockArgs),
    /// Spends a cell locked by `lock` with a proof of the leaves at LIST
    ///
    /// The capacity goes to the key's lock; --owner adds one of the key's cells as the
    /// owner's input and signs it. With --acc the proof is built against the accumulator's
    /// current root and the accumulator joins as a cell dep (a spend that raced an append is
    /// rebuilt and resent). On a ring the dep is its newest committed snapshot, and a spend
    /// whose snapshot an append consumed is rebuilt on the newest until --time-limit.
    Spend(client::SpendArgs),
    /// A transaction's script groups run in ckb-debugger, with their cycles
    ///
    /// Rebuilds the transaction from the node's data as a ckb-debugger mock transaction and
    /// prints each script group's cycles (a built-in type id group is not a RISC-V program:
    /// counted at the node's fixed 1,000,000 cycles).
    Debug(debug::DebugArgs),
    /// The accumulator (docs/accumulator-guide.md): create, append, extend, sync, show, handover
    ///
    /// `acc create --ring K` makes a ring (docs/concurrency.md); the other commands find
    /// whether the type id is a plain accumulator or a ring and act on either.
    #[command(subcommand, arg_required_else_help = true)]
    Acc(acc::AccCommand),
}

fn main() {
    node::install_signal_handler();
    let command: Command = cli_usage::parse("ckb-devnet: error");
    let result = match &command {
        Command::Node(a) => local::node(a, Tie::Owner),
        Command::Start(a) => local::node(a, Tie::Detached),
        Command::Stop(a) => local::stop(a),
        Command::Scenario(a) => local::scenario(a),
        Command::SyncBench(a) => local::sync_bench(a),
        Command::Load(a) => local::load(a),
        Command::Deploy(a) => client::deploy(a),
        Command::Lock(a) => client::lock(a),
        Command::Spend(a) => client::spend(a),
        Command::Debug(a) => debug::run(a),
        Command::Acc(c) => acc::run(c),
    };
    let code = match result {
        Ok(()) => 0,
        // After an interrupt the failure is the interrupt's doing (the handler stopped the
        // node this command was talking to): `node::exit` says 130, and nothing else is said.
        Err(_) if node::interrupted() => 130,
        Err(e) => {
            eprintln!("ckb-devnet: error: {e}");
            e.exit_code()
        }
    };
    node::exit(code)
}
