//! What the callers declare about the kernel, read from their source: every inline-assembly
//! statement that calls an entry, in `crates/mmr-blake2b/src/asm.rs` (Rust `asm!` through the
//! `kernel_call!` macro) and `contracts/c-verifier/merge_asm.h` (GNU C `__asm__ volatile`), with its template,
//! operands, clobbers and options; and the calling-convention comment at the top of
//! `merge_rv64.s`.
//!
//! The parsers are deliberately narrow: a construct they do not know (a register class
//! instead of a fixed register, `clobber_abi`, a template instruction other than the call
//! and `sd`) is an error, so a change to the wrappers makes the checker fail until it is
//! taught the new form, rather than being skipped.

use crate::decode::Reg;
use crate::exec::RegSet;
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    Ident(String),
    Str(String),
    Num(String),
    Punct(char),
}

/// Tokens of Rust or C source (comments dropped; strings unescaped for `\"`, `\\`, `\n`,
/// `\t` and Rust's line continuation).
pub fn lex(src: &str) -> Result<Vec<Tok>, String> {
    let c: Vec<char> = src.chars().collect();
    let mut i = 0;
    let mut out = Vec::new();
    while i < c.len() {
        let ch = c[i];
        if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && c.get(i + 1) == Some(&'*') {
            i += 2;
            while i + 1 < c.len() && !(c[i] == '*' && c[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if ch == '"' {
            i += 1;
            let mut s = String::new();
            loop {
                match c.get(i) {
                    None => return Err("unterminated string literal".into()),
                    Some('"') => {
                        i += 1;
                        break;
                    }
                    Some('\\') => {
                        match c.get(i + 1) {
                            Some('n') => s.push('\n'),
                            Some('t') => s.push('\t'),
                            Some('\\') => s.push('\\'),
                            Some('"') => s.push('"'),
                            Some('\n') => {
                                i += 2;
                                while c.get(i).is_some_and(|x| x.is_whitespace()) {
                                    i += 1;
                                }
                                continue;
                            }
                            Some(o) => return Err(format!("unknown string escape \\{o}")),
                            None => return Err("unterminated string literal".into()),
                        }
                        i += 2;
                    }
                    Some(&o) => {
                        s.push(o);
                        i += 1;
                    }
                }
            }
            out.push(Tok::Str(s));
        } else if ch == '\'' {
            // A Rust lifetime ('a) or a character literal ('x', '\n'): neither matters here.
            if c.get(i + 2) == Some(&'\'') {
                i += 3;
            } else if c.get(i + 1) == Some(&'\\') {
                i += 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else {
                i += 1;
                while c.get(i).is_some_and(|x| x.is_alphanumeric() || *x == '_') {
                    i += 1;
                }
            }
        } else if ch.is_alphabetic() || ch == '_' {
            let start = i;
            while c.get(i).is_some_and(|x| x.is_alphanumeric() || *x == '_') {
                i += 1;
            }
            out.push(Tok::Ident(c[start..i].iter().collect()));
        } else if ch.is_ascii_digit() {
            let start = i;
            while c
                .get(i)
                .is_some_and(|x| x.is_alphanumeric() || *x == '_' || *x == '.')
            {
                i += 1;
            }
            out.push(Tok::Num(c[start..i].iter().collect()));
        } else {
            out.push(Tok::Punct(ch));
            i += 1;
        }
    }
    Ok(out)
}

fn is_punct(t: &Tok, p: char) -> bool {
    *t == Tok::Punct(p)
}

fn is_ident(t: &Tok, s: &str) -> bool {
    matches!(t, Tok::Ident(x) if x == s)
}

/// The index of the bracket closing the one at `open`.
fn close_of(toks: &[Tok], open: usize) -> Result<usize, String> {
    let mut depth = 0i32;
    for (j, t) in toks.iter().enumerate().skip(open) {
        match t {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => {
                depth -= 1;
                if depth == 0 {
                    return Ok(j);
                }
            }
            _ => {}
        }
    }
    Err("unbalanced brackets".into())
}

/// Splits at `sep` outside brackets.
fn split_top(toks: &[Tok], sep: char) -> Vec<Vec<Tok>> {
    let mut parts = vec![Vec::new()];
    let mut depth = 0i32;
    for t in toks {
        match t {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => depth -= 1,
            Tok::Punct(p) if *p == sep && depth == 0 => {
                parts.push(Vec::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = parts.last_mut() {
            last.push(t.clone());
        }
    }
    if parts.last().is_some_and(|p| p.is_empty()) {
        parts.pop();
    }
    parts
}

/// One `sd` of the template after the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TemplateStore {
    pub rs2: Reg,
    pub off: i64,
    pub rs1: Reg,
}

/// Memory declarations of an asm statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MemDecl {
    /// Rust `options(...)`.
    Rust(Vec<String>),
    /// C: whether the clobbers include "memory".
    C { memory: bool },
}

/// One inline-assembly statement that calls a kernel entry.
#[derive(Clone, Debug)]
pub struct CallSite {
    /// File and function, for messages.
    pub origin: String,
    pub entry: String,
    /// Instructions of the template after the call.
    pub stores: Vec<TemplateStore>,
    /// Registers whose value the statement takes as input.
    pub inputs: RegSet,
    /// Registers the statement may change: outputs (bound or discarded) and clobbers.
    pub modified: RegSet,
    /// Outputs bound to a variable (not `_`).
    pub bound_outputs: RegSet,
    pub mem: MemDecl,
}

fn parse_template(lines: &[String]) -> Result<(String, Vec<TemplateStore>), String> {
    let mut entry = None;
    let mut stores = Vec::new();
    for raw in lines.iter().flat_map(|l| l.split(['\n', ';'])) {
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        let (mn, ops) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let ops: Vec<&str> = ops.split(',').map(str::trim).collect();
        match (mn, ops.as_slice()) {
            ("jal", [link, target]) if entry.is_none() && stores.is_empty() => {
                if Reg::parse(link) != Some(crate::decode::RA) {
                    return Err(format!("template call `{line}` does not link through ra"));
                }
                entry = Some((*target).to_string());
            }
            ("sd", [rs2, mem]) if entry.is_some() => {
                let (off, base) = mem
                    .strip_suffix(')')
                    .and_then(|m| m.split_once('('))
                    .ok_or_else(|| format!("template store `{line}`: no offset(base)"))?;
                let off: i64 = off
                    .trim()
                    .parse()
                    .map_err(|_| format!("template store `{line}`: offset"))?;
                let rs2 = Reg::parse(rs2).ok_or_else(|| format!("template store `{line}`: register"))?;
                let rs1 = Reg::parse(base).ok_or_else(|| format!("template store `{line}`: base"))?;
                stores.push(TemplateStore { rs2, off, rs1 });
            }
            _ => {
                return Err(format!(
                    "template instruction `{line}`: the checker models only one `jal ra, <entry>` followed by `sd` stores"
                ))
            }
        }
    }
    let entry = entry.ok_or("template without `jal ra, <entry>`")?;
    Ok((entry, stores))
}

fn reg_of(name: &str, ctx: &str) -> Result<Reg, String> {
    Reg::parse(name).ok_or_else(|| format!("{ctx}: `{name}` is not a register"))
}

/// Rust operands and options, added to `site`'s sets.
fn rust_items(items: &[Vec<Tok>], ctx: &str, acc: &mut RustAcc) -> Result<(), String> {
    for item in items {
        match item.as_slice() {
            [] => {}
            [Tok::Str(s)] => acc.template.push(s.clone()),
            [Tok::Ident(o), Tok::Punct('('), rest @ ..] if o == "options" => {
                for t in rest {
                    if let Tok::Ident(x) = t {
                        acc.options.push(x.clone());
                    }
                }
            }
            [Tok::Ident(dir), Tok::Punct('('), Tok::Str(reg), Tok::Punct(')'), expr @ ..] => {
                let r = reg_of(reg, ctx)?;
                let arrow = expr
                    .windows(2)
                    .position(|w| is_punct(&w[0], '=') && is_punct(&w[1], '>'));
                let out_expr: &[Tok] = match arrow {
                    Some(p) => &expr[p + 2..],
                    None => expr,
                };
                let discarded = matches!(out_expr, [Tok::Ident(u)] if u == "_");
                match dir.as_str() {
                    "in" => acc.inputs.insert(r),
                    "out" | "lateout" => {
                        acc.modified.insert(r);
                        if !discarded {
                            acc.bound.insert(r);
                        }
                    }
                    "inout" | "inlateout" => {
                        acc.inputs.insert(r);
                        acc.modified.insert(r);
                        if !discarded {
                            acc.bound.insert(r);
                        }
                    }
                    _ => return Err(format!("{ctx}: operand kind `{dir}` is not modelled")),
                }
            }
            _ => {
                return Err(format!(
                    "{ctx}: an asm! argument the checker does not model: {item:?} (operands must name fixed registers; no clobber_abi)"
                ))
            }
        }
    }
    Ok(())
}

#[derive(Default, Clone)]
struct RustAcc {
    template: Vec<String>,
    inputs: RegSet,
    modified: RegSet,
    bound: RegSet,
    options: Vec<String>,
}

/// The call sites in a Rust source that calls the kernel through a `macro_rules!` wrapper
/// around `asm!` whose template starts with `concat!("jal ra, ", $entry)`.
pub fn parse_rust(src: &str, file: &str) -> Result<Vec<CallSite>, String> {
    let toks = lex(src).map_err(|e| format!("{file}: {e}"))?;
    // The macro: name, template prefix, and the operands every call gets.
    let mdef = toks
        .windows(3)
        .position(|w| is_ident(&w[0], "macro_rules") && is_punct(&w[1], '!'))
        .ok_or_else(|| format!("{file}: no macro_rules! wrapper around asm!"))?;
    let mname = match &toks[mdef + 2] {
        Tok::Ident(n) => n.clone(),
        _ => return Err(format!("{file}: macro_rules! without a name")),
    };
    let body_open = mdef + 3;
    let body_close = close_of(&toks, body_open)?;
    let body = &toks[body_open..=body_close];
    let asm_at = body
        .windows(3)
        .position(|w| is_ident(&w[0], "asm") && is_punct(&w[1], '!') && is_punct(&w[2], '('))
        .ok_or_else(|| format!("{file}: macro {mname} has no asm!( ... )"))?;
    let open = asm_at + 2;
    let close = close_of(body, open)?;
    let mut inner: Vec<Tok> = body[open + 1..close].to_vec();
    // `$($rest)*` is where the call's own arguments go; its items end with a comma.
    let rest_pat = [
        Tok::Punct('$'),
        Tok::Punct('('),
        Tok::Punct('$'),
        Tok::Ident("rest".into()),
        Tok::Punct(')'),
        Tok::Punct('*'),
    ];
    let rest_at = inner
        .windows(rest_pat.len())
        .position(|w| w == rest_pat)
        .ok_or_else(|| format!("{file}: macro {mname}'s asm! has no $($rest)*"))?;
    inner.drain(rest_at..rest_at + rest_pat.len());
    let mut macro_items = split_top(&inner, ',');
    let first = macro_items.remove(0);
    let prefix = match first.as_slice() {
        [Tok::Ident(c), Tok::Punct('!'), Tok::Punct('('), Tok::Str(p), Tok::Punct(','), Tok::Punct('$'), Tok::Ident(_), Tok::Punct(')')]
            if c == "concat" =>
        {
            p.clone()
        }
        _ => {
            return Err(format!(
                "{file}: macro {mname}'s template is not concat!(\"jal ra, \", $entry)"
            ))
        }
    };
    let mut common = RustAcc::default();
    rust_items(&macro_items, &format!("{file}: macro {mname}"), &mut common)?;
    if !common.template.is_empty() {
        return Err(format!(
            "{file}: macro {mname} has template strings after its operands"
        ));
    }

    let mut sites = Vec::new();
    let mut func = String::from("?");
    let mut i = 0;
    while i + 2 < toks.len() {
        if is_ident(&toks[i], "fn") {
            if let Tok::Ident(n) = &toks[i + 1] {
                func = n.clone();
            }
        }
        let is_call = is_ident(&toks[i], &mname)
            && is_punct(&toks[i + 1], '!')
            && is_punct(&toks[i + 2], '(')
            && !(i >= 2 && is_ident(&toks[i - 2], "macro_rules"));
        if !is_call {
            i += 1;
            continue;
        }
        let close = close_of(&toks, i + 2)?;
        let ctx = format!("{file}: fn {func}");
        let mut items = split_top(&toks[i + 3..close], ',');
        let entry = match items.first().map(Vec::as_slice) {
            Some([Tok::Str(e)]) => e.clone(),
            _ => return Err(format!("{ctx}: {mname}! without an entry name first")),
        };
        items.remove(0);
        let mut acc = common.clone();
        acc.template = vec![format!("{prefix}{entry}")];
        rust_items(&items, &ctx, &mut acc)?;
        let (t_entry, stores) = parse_template(&acc.template).map_err(|e| format!("{ctx}: {e}"))?;
        sites.push(CallSite {
            origin: ctx,
            entry: t_entry,
            stores,
            inputs: acc.inputs,
            modified: acc.modified,
            bound_outputs: acc.bound,
            mem: MemDecl::Rust(acc.options),
        });
        i = close + 1;
    }
    if sites.is_empty() {
        return Err(format!("{file}: no {mname}! call"));
    }
    Ok(sites)
}

/// Removes preprocessor lines (with their continuations) and returns the `#define`s that
/// have no parameters: name -> body tokens.
fn preprocess(src: &str) -> Result<(String, BTreeMap<String, Vec<Tok>>), String> {
    let mut code = String::new();
    let mut defines = BTreeMap::new();
    let mut lines = src.lines();
    while let Some(line) = lines.next() {
        if !line.trim_start().starts_with('#') {
            code.push_str(line);
            code.push('\n');
            continue;
        }
        let mut full = line.to_string();
        while full.trim_end().ends_with('\\') {
            let t = full.trim_end();
            full = t[..t.len() - 1].to_string();
            full.push(' ');
            full.push_str(lines.next().unwrap_or(""));
        }
        code.push('\n');
        let d = full.trim_start().trim_start_matches('#').trim_start();
        if let Some(rest) = d.strip_prefix("define") {
            let rest = rest.trim_start();
            let name_end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            let (name, body) = rest.split_at(name_end);
            if !body.starts_with('(') {
                defines.insert(name.to_string(), lex(body)?);
            }
        }
    }
    Ok((code, defines))
}

fn expand(toks: &[Tok], defines: &BTreeMap<String, Vec<Tok>>, depth: u32) -> Vec<Tok> {
    let mut out = Vec::new();
    for t in toks {
        match t {
            Tok::Ident(n) if depth < 8 && defines.contains_key(n) => {
                out.extend(expand(&defines[n], defines, depth + 1));
            }
            _ => out.push(t.clone()),
        }
    }
    out
}

/// The call sites in a C header: every `__asm__ volatile (...)` statement.
pub fn parse_c(src: &str, file: &str) -> Result<Vec<CallSite>, String> {
    let (code, defines) = preprocess(src).map_err(|e| format!("{file}: {e}"))?;
    let toks = lex(&code).map_err(|e| format!("{file}: {e}"))?;
    let is_asm = |t: &Tok| is_ident(t, "__asm__") || is_ident(t, "asm") || is_ident(t, "__asm");
    // Register variables: `name __asm__("reg")`.
    let mut vars: BTreeMap<String, Reg> = BTreeMap::new();
    for w in toks.windows(5) {
        if let [Tok::Ident(v), a, Tok::Punct('('), Tok::Str(r), Tok::Punct(')')] = w {
            if is_asm(a) {
                let reg = reg_of(r, file)?;
                if vars.insert(v.clone(), reg).is_some_and(|old| old != reg) {
                    return Err(format!("{file}: variable {v} is bound to two registers"));
                }
            }
        }
    }
    let mut sites = Vec::new();
    let mut depth = 0i32;
    let mut func = String::from("?");
    let mut i = 0;
    while i < toks.len() {
        match &toks[i] {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => depth -= 1,
            Tok::Ident(n) if depth == 0 && toks.get(i + 1).is_some_and(|t| is_punct(t, '(')) => {
                func = n.clone();
            }
            _ => {}
        }
        let stmt_start = i > 0 && matches!(toks[i - 1], Tok::Punct('{' | ';' | '}'));
        if !(is_asm(&toks[i]) && stmt_start) {
            i += 1;
            continue;
        }
        let mut open = i + 1;
        while toks
            .get(open)
            .is_some_and(|t| is_ident(t, "volatile") || is_ident(t, "__volatile__"))
        {
            open += 1;
        }
        if !toks.get(open).is_some_and(|t| is_punct(t, '(')) {
            return Err(format!("{file}: fn {func}: asm statement without operands"));
        }
        let close = close_of(&toks, open)?;
        let ctx = format!("{file}: fn {func}");
        let body = expand(&toks[open + 1..close], &defines, 0);
        let sections = split_top(&body, ':');
        if sections.len() > 4 {
            return Err(format!("{ctx}: asm goto is not modelled"));
        }
        let mut template = Vec::new();
        for t in sections.first().map(Vec::as_slice).unwrap_or(&[]) {
            match t {
                Tok::Str(s) => template.push(s.clone()),
                _ => return Err(format!("{ctx}: template is not string literals")),
            }
        }
        let (entry, stores) =
            parse_template(&[template.concat()]).map_err(|e| format!("{ctx}: {e}"))?;
        let mut inputs = RegSet::default();
        let mut modified = RegSet::default();
        let mut bound = RegSet::default();
        for (k, section) in sections.iter().enumerate().skip(1).take(2) {
            for op in split_top(section, ',') {
                let (cons, var) = match op.as_slice() {
                    [Tok::Str(c), Tok::Punct('('), Tok::Ident(v), Tok::Punct(')')] => (c, v),
                    _ => {
                        return Err(format!(
                            "{ctx}: operand {op:?} is not \"constraint\"(register variable)"
                        ))
                    }
                };
                let reg = *vars
                    .get(var)
                    .ok_or_else(|| format!("{ctx}: operand {var} is not a register variable"))?;
                if !cons.contains('r') {
                    return Err(format!("{ctx}: constraint \"{cons}\" is not a register"));
                }
                let output = k == 1;
                if output != (cons.starts_with('=') || cons.starts_with('+')) {
                    return Err(format!("{ctx}: constraint \"{cons}\" in the wrong section"));
                }
                if cons.starts_with('+') || !output {
                    inputs.insert(reg);
                }
                if output {
                    modified.insert(reg);
                    bound.insert(reg);
                }
            }
        }
        let mut memory = false;
        if let Some(clobbers) = sections.get(3) {
            for c in split_top(clobbers, ',') {
                match c.as_slice() {
                    [Tok::Str(s)] if s == "memory" => memory = true,
                    [Tok::Str(s)] if s == "cc" => {}
                    [Tok::Str(s)] => modified.insert(reg_of(s, &ctx)?),
                    _ => return Err(format!("{ctx}: clobber {c:?} is not a string")),
                }
            }
        }
        sites.push(CallSite {
            origin: ctx,
            entry,
            stores,
            inputs,
            modified,
            bound_outputs: bound,
            mem: MemDecl::C { memory },
        });
        i = close + 1;
    }
    if sites.is_empty() {
        return Err(format!("{file}: no asm statement"));
    }
    Ok(sites)
}

/// The calling convention stated in the kernel's header comment: the `clobbers:` and
/// `preserves:` lists (ranges like `t0-t6` expanded).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderConvention {
    pub clobbers: RegSet,
    pub preserves: RegSet,
}

fn reg_list(text: &str) -> Result<RegSet, String> {
    let mut set = RegSet::default();
    for part in text.split(',') {
        let part = part.trim().trim_end_matches('.');
        if part.is_empty() {
            continue;
        }
        match part.split_once('-') {
            Some((a, b)) => {
                // ABI ranges (t0-t6, s2-s11, a3-a7) run over consecutive names, which are not
                // always consecutive numbers (t2 -> t3 jumps from x7 to x28).
                let (a, b) = (a.trim(), b.trim());
                let prefix: String = a.chars().take_while(|c| c.is_alphabetic()).collect();
                let bad = || format!("register range {part}");
                let lo: u32 = a[prefix.len()..].parse().map_err(|_| bad())?;
                let hi: u32 = b
                    .strip_prefix(prefix.as_str())
                    .and_then(|n| n.parse().ok())
                    .ok_or_else(bad)?;
                if lo > hi {
                    return Err(bad());
                }
                for n in lo..=hi {
                    set.insert(reg_of(&format!("{prefix}{n}"), part)?);
                }
            }
            None => set.insert(reg_of(part, "register list")?),
        }
    }
    Ok(set)
}

pub fn parse_header(src: &str, file: &str) -> Result<HeaderConvention, String> {
    let line = src
        .lines()
        .find(|l| {
            l.trim_start().starts_with('#') && l.contains("clobbers:") && l.contains("preserves:")
        })
        .ok_or_else(|| format!("{file}: no `clobbers: ... preserves: ...` line in the header"))?;
    let after = &line[line.find("clobbers:").unwrap_or(0) + "clobbers:".len()..];
    let (clob, pres) = after
        .split_once("preserves:")
        .ok_or_else(|| format!("{file}: malformed clobbers line"))?;
    let clob = clob.trim().trim_end_matches('.');
    Ok(HeaderConvention {
        clobbers: reg_list(clob).map_err(|e| format!("{file}: {e}"))?,
        preserves: reg_list(pres).map_err(|e| format!("{file}: {e}"))?,
    })
}
