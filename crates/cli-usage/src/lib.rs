//! How every binary of the project parses its command line with clap: `--help` prints and
//! exits 0; a usage error (unknown option, missing or malformed value, missing argument) is
//! one line on stderr naming the problem and the command whose `--help` explains it, and
//! exit 2, before the binary has read or written anything; a command given without its
//! subcommand prints that command's help and exits 2.

#![forbid(unsafe_code)]

use clap::error::ErrorKind;
use clap::Parser;

#[cfg(feature = "testing")]
pub mod testing;

/// The exit code of a usage error.
pub const USAGE_EXIT: i32 = 2;

/// `T` from the process's arguments, or the process exits as described above; `name` starts
/// the error line (`name: problem (command --help)`).
pub fn parse<T: Parser>(name: &str) -> T {
    let args: Vec<String> = std::env::args().collect();
    match T::try_parse_from(&args) {
        Ok(t) => t,
        Err(e) => std::process::exit(report(name, &command_path(&T::command(), &args), &e)),
    }
}

/// The subcommands named in `args` (the program name first), as `tool sub subsub`.
pub fn command_path(cmd: &clap::Command, args: &[String]) -> String {
    let mut path = vec![cmd.get_name().to_string()];
    let mut at = cmd;
    for arg in args.iter().skip(1) {
        match at.find_subcommand(arg) {
            Some(sub) => {
                path.push(sub.get_name().to_string());
                at = sub;
            }
            None if arg.starts_with('-') => {}
            // A value or a positional: subcommands come before them.
            None if !at.has_subcommands() => break,
            None => {}
        }
    }
    path.join(" ")
}

/// Prints `e` as [`parse`] does for the command `path` and returns the exit code.
pub fn report(name: &str, path: &str, e: &clap::Error) -> i32 {
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            0
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            USAGE_EXIT
        }
        _ => {
            eprintln!("{name}: {} ({path} --help)", one_line(e));
            USAGE_EXIT
        }
    }
}

/// Clap's error as one line: its first paragraph (the problem, with any list it names).
pub fn one_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let problem: Vec<&str> = text
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect();
    let problem = problem.join(" ");
    problem
        .strip_prefix("error: ")
        .unwrap_or(&problem)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Args, CommandFactory, Subcommand};

    #[derive(Parser, Debug)]
    #[command(name = "tool")]
    struct Cli {
        #[command(subcommand)]
        command: Command,
    }

    #[derive(Subcommand, Debug)]
    enum Command {
        Run(RunArgs),
    }

    #[derive(Args, Debug)]
    struct RunArgs {
        #[arg(long, value_name = "FILE")]
        leaves: String,
        #[arg(long, value_name = "N")]
        count: Option<u64>,
    }

    fn error(args: &[&str]) -> (ErrorKind, String) {
        let args: Vec<String> = [&["tool"], args]
            .concat()
            .iter()
            .map(|a| a.to_string())
            .collect();
        let e = Cli::try_parse_from(&args).unwrap_err();
        let path = command_path(&Cli::command(), &args);
        (e.kind(), format!("{} ({path} --help)", one_line(&e)))
    }

    #[test]
    fn each_usage_error_is_one_line_naming_the_problem_and_the_command() {
        let cases: [(&[&str], ErrorKind, &str); 4] = [
            (
                &["run", "--leaves", "f", "--frobnicate"],
                ErrorKind::UnknownArgument,
                "unexpected argument '--frobnicate' found (tool run --help)",
            ),
            (
                &["run", "--leaves"],
                ErrorKind::InvalidValue,
                "a value is required for '--leaves <FILE>' but none was supplied (tool run --help)",
            ),
            (
                &["run"],
                ErrorKind::MissingRequiredArgument,
                "the following required arguments were not provided: --leaves <FILE> (tool run --help)",
            ),
            (
                &["run", "--leaves", "f", "--count", "x"],
                ErrorKind::ValueValidation,
                "invalid value 'x' for '--count <N>': invalid digit found in string (tool run --help)",
            ),
        ];
        for (args, kind, line) in cases {
            let (k, l) = error(args);
            assert_eq!((k, l.as_str()), (kind, line), "{args:?}");
            assert!(!l.contains('\n'));
        }
    }

    #[test]
    fn help_exits_zero_and_a_usage_error_two() {
        let help = Cli::try_parse_from(["tool", "run", "--help"]).unwrap_err();
        assert_eq!(help.kind(), ErrorKind::DisplayHelp);
        let bad = Cli::try_parse_from(["tool", "walk"]).unwrap_err();
        assert_eq!(bad.kind(), ErrorKind::InvalidSubcommand);
        assert_eq!(USAGE_EXIT, 2);
    }
}
