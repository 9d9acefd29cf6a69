//! Tidy checks over the whole repository, in the manner of rust-analyzer's
//! `tidy.rs`: rules about the source tree that no compiler checks, run by
//! `cargo test --workspace` (this file is a test of the `xtask` member).
//!
//! Rules (each failure names the file, the line where there is one, and
//! the rule):
//!
//! 1. No source file (`.rs`, `.cu`, `.cuh`, `.h`, `.hpp`, `.cpp`) is longer
//!    than [`MAX_LINES`] lines. Generated bindings (`*_bindings.rs`),
//!    `target/`, `fuzz/target/` and `docs/` are not checked.
//! 2. Rust declares C functions only in the generated bindings
//!    (`*_bindings.rs`, written by `cargo xtask bindgen`): no `extern`
//!    block anywhere else. Every function those bindings declare returns
//!    `cuzk_error` (the FFI invariant of ARCHITECTURE.md), except
//!    `cuzk_error_free`.
//! 3. Comments hold no session history: no session numbers (the word
//!    "session" followed by a number) and no ISO dates. A comment states
//!    the figure and why; the run that measured it is in docs/runs/.
//! 4. A Markdown file a comment cites exists (resolved against the
//!    repository root, the crate and the file's folder), and a cited
//!    `§N` is a numbered section of it.
//! 5. ARCHITECTURE.md's code map names every workspace member (by package
//!    name) and every binary (`[[bin]]`, `src/bin/*.rs`), and each of its
//!    `### \`dir\`` headings is a workspace member.
//! 6. Every "**Architecture invariant:**" paragraph says how it is kept:
//!    "Checked by" naming at least one test (a `tests/` file,
//!    `file.rs::function`, "test `function`" or `.ci/run`), or "By
//!    construction". Every file, function and test it names exists.
//! 7. Layering: the crates ARCHITECTURE.md calls safe forbid `unsafe` at
//!    their root, and no member but `cuzk-groth16` depends on `cuzk-ntt`
//!    or `cuzk-msm`.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

#[path = "tidy/text.rs"]
mod text;
use text::{
    backticked, cited_docs, history_in, names, opens_extern_block, split_rust, toml_array,
    toml_names,
};

/// The longest a source file may be.
const MAX_LINES: usize = 800;

const SOURCE_EXTS: [&str; 6] = ["rs", "cu", "cuh", "h", "hpp", "cpp"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace root")
        .to_path_buf()
}

/// `path` relative to the repository root, with `/` separators.
fn rel(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Every source file of the repository, minus build outputs, docs and
/// hidden folders, sorted.
fn source_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, top: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                let r = p
                    .strip_prefix(top)
                    .unwrap_or(&p)
                    .to_string_lossy()
                    .replace('\\', "/");
                let skip = name.starts_with('.')
                    || name == "target"
                    || name.starts_with("gpu-bundle")
                    || r == "docs"
                    || r == "fuzz/corpus"
                    || r == "fuzz/artifacts";
                if !skip {
                    walk(&p, top, out);
                }
            } else if ft.is_file() {
                let ext = p.extension().and_then(|x| x.to_str()).unwrap_or("");
                if SOURCE_EXTS.contains(&ext) {
                    out.push(p);
                }
            }
        }
    }
    let top = root();
    let mut out = Vec::new();
    walk(&top, &top, &mut out);
    out.sort();
    assert!(
        out.len() > 50,
        "tidy found only {} source files under {}: is the walk broken?",
        out.len(),
        top.display()
    );
    out
}

fn is_bindings(path: &Path) -> bool {
    path.to_string_lossy().ends_with("_bindings.rs")
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Fails with every violation, one per line, under the rule's name.
fn report(rule: &str, violations: Vec<String>) {
    if !violations.is_empty() {
        panic!(
            "tidy: {} violation(s) of rule \"{rule}\":\n  {}\n",
            violations.len(),
            violations.join("\n  ")
        );
    }
}

// ---------------------------------------------------------------- rule 1

#[test]
fn source_files_are_at_most_800_lines() {
    let mut bad = Vec::new();
    for f in source_files() {
        if is_bindings(&f) {
            continue;
        }
        let n = read(&f).lines().count();
        if n > MAX_LINES {
            bad.push(format!(
                "{}:{}: {n} lines, over the {MAX_LINES}-line limit; split the file by what it does",
                rel(&f),
                MAX_LINES + 1
            ));
        }
    }
    report("source files are at most 800 lines", bad);
}

// ---------------------------------------------------------------- rule 2

#[test]
fn extern_blocks_only_in_generated_bindings() {
    let mut bad = Vec::new();
    for f in source_files() {
        if f.extension().and_then(|x| x.to_str()) != Some("rs") {
            continue;
        }
        let text = read(&f);
        if is_bindings(&f) {
            if !text
                .lines()
                .take(5)
                .any(|l| l.contains("automatically generated by rust-bindgen"))
            {
                bad.push(format!(
                    "{}:1: named like generated bindings but not written by bindgen; \
                     only `cargo xtask bindgen` output may be called *_bindings.rs",
                    rel(&f)
                ));
            }
            bad.extend(entry_points_not_returning_cuzk_error(&f, &text));
            continue;
        }
        for (i, line) in split_rust(&text).code.iter().enumerate() {
            if opens_extern_block(line) {
                bad.push(format!(
                    "{}:{}: `extern` block outside the generated bindings: declare the function \
                     in its C header and run `cargo xtask bindgen` (bindings live in *_bindings.rs)",
                    rel(&f),
                    i + 1
                ));
            }
        }
    }
    report("C functions are declared only in generated bindings", bad);
}

/// The functions of a bindings file whose return type is not `cuzk_error`.
fn entry_points_not_returning_cuzk_error(f: &Path, text: &str) -> Vec<String> {
    let mut bad = Vec::new();
    let mut rest = text;
    let mut offset = 0;
    while let Some(i) = rest.find("pub fn ") {
        let start = offset + i;
        let name: String = text[start + 7..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let end = text[start..].find(';').map_or(text.len(), |e| start + e);
        let sig = &text[start..end];
        // The return type follows the parameter list's closing parenthesis.
        let ret = sig
            .rfind(')')
            .map(|p| sig[p + 1..].trim().trim_start_matches("->").trim())
            .unwrap_or("");
        if ret != "cuzk_error" && name != "cuzk_error_free" {
            let line = text[..start].lines().count() + 1;
            bad.push(format!(
                "{}:{line}: C entry point `{name}` returns `{}` instead of `cuzk_error` \
                 (ARCHITECTURE.md: every C entry point returns cuzk_error by value)",
                rel(f),
                if ret.is_empty() { "()" } else { ret }
            ));
        }
        offset = end;
        rest = &text[end..];
    }
    bad
}

// ---------------------------------------------------------------- rule 3

#[test]
fn comments_hold_no_session_history() {
    let mut bad = Vec::new();
    for f in source_files() {
        if is_bindings(&f) {
            continue;
        }
        for (line, text) in split_rust(&read(&f)).comments {
            if let Some(what) = history_in(&text) {
                bad.push(format!(
                    "{}:{line}: comment holds session history, {what}: state the figure and why; \
                     the run that measured it belongs in docs/runs/",
                    rel(&f)
                ));
            }
        }
    }
    report("no session history in comments", bad);
}

// ---------------------------------------------------------------- rule 4

/// Where a cited document may live: the root, the crate, the file's folder.
fn resolve_doc(file: &Path, doc: &str) -> Option<PathBuf> {
    let mut bases = vec![root()];
    let mut dir = file.parent();
    if let Some(d) = dir {
        bases.push(d.to_path_buf());
    }
    while let Some(d) = dir {
        if d.join("Cargo.toml").exists() {
            bases.push(d.to_path_buf());
            break;
        }
        dir = d.parent();
    }
    bases.into_iter().map(|b| b.join(doc)).find(|p| p.is_file())
}

#[test]
fn comments_cite_documents_that_exist() {
    let mut bad = Vec::new();
    for f in source_files() {
        if is_bindings(&f) {
            continue;
        }
        for (line, text) in split_rust(&read(&f)).comments {
            for (doc, section) in cited_docs(&text) {
                let Some(path) = resolve_doc(&f, &doc) else {
                    bad.push(format!(
                        "{}:{line}: comment cites {doc}, which is not in the repository: \
                         cite the figures themselves, or a document that exists",
                        rel(&f)
                    ));
                    continue;
                };
                if let Some(n) = section {
                    let heading = format!("## {n}.");
                    if !read(&path).lines().any(|l| l.starts_with(&heading)) {
                        bad.push(format!(
                            "{}:{line}: comment cites {doc} §{n}, but {} has no section \"{heading}\"",
                            rel(&f),
                            rel(&path)
                        ));
                    }
                }
            }
        }
    }
    report("comments cite documents that exist", bad);
}

// ---------------------------------------------------------------- rule 5

fn workspace_members() -> Vec<String> {
    let members = toml_array(&read(&root().join("Cargo.toml")), "members");
    assert!(
        !members.is_empty(),
        "tidy: no `members` in the root Cargo.toml"
    );
    members
}

/// The text of ARCHITECTURE.md's "## Code map" section.
fn code_map() -> String {
    let arch = read(&root().join("ARCHITECTURE.md"));
    let start = arch
        .find("\n## Code map")
        .expect("ARCHITECTURE.md has no \"## Code map\" section");
    let body = &arch[start + 1..];
    let end = body[3..].find("\n## ").map_or(body.len(), |e| e + 3);
    body[..end].to_string()
}

#[test]
fn code_map_names_every_crate_and_binary() {
    let map = code_map();
    let members = workspace_members();
    let mut bad = Vec::new();
    for m in &members {
        let manifest = root().join(m).join("Cargo.toml");
        let text = read(&manifest);
        let Some(pkg) = toml_names(&text, "[package]").into_iter().next() else {
            bad.push(format!("{m}/Cargo.toml:1: no [package] name"));
            continue;
        };
        if !names(&map, &pkg) {
            bad.push(format!(
                "ARCHITECTURE.md: the code map does not name workspace member `{pkg}` ({m}/Cargo.toml); \
                 add a `### \\`{m}\\` ({pkg})` entry saying what it is for"
            ));
        }
        let mut bins: BTreeSet<String> = toml_names(&text, "[[bin]]").into_iter().collect();
        if let Ok(dir) = fs::read_dir(root().join(m).join("src/bin")) {
            for e in dir.flatten() {
                let p = e.path();
                if p.extension().and_then(|x| x.to_str()) == Some("rs") {
                    bins.insert(p.file_stem().unwrap().to_string_lossy().into_owned());
                } else if p.join("main.rs").is_file() {
                    bins.insert(e.file_name().to_string_lossy().into_owned());
                }
            }
        }
        for b in bins {
            if !names(&map, &b) {
                bad.push(format!(
                    "ARCHITECTURE.md: the code map does not name binary `{b}` of `{pkg}` ({m}/Cargo.toml); \
                     say what it is under `### \\`{m}\\``"
                ));
            }
        }
    }
    for l in map.lines() {
        if let Some(h) = l.strip_prefix("### `") {
            let dir = h.split('`').next().unwrap_or("");
            if !members.iter().any(|m| m == dir) {
                bad.push(format!(
                    "ARCHITECTURE.md: code map heading `{dir}` is not a workspace member \
                     (root Cargo.toml `members`)"
                ));
            }
        }
    }
    report("the code map names every crate and binary", bad);
}

// ---------------------------------------------------------------- rule 6

/// ARCHITECTURE.md's invariant paragraphs: (line, text).
fn invariants() -> Vec<(usize, String)> {
    let arch = read(&root().join("ARCHITECTURE.md"));
    let lines: Vec<&str> = arch.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if l.starts_with("**Architecture invariant:**") {
            let para: Vec<&str> = lines[i..]
                .iter()
                .take_while(|l| !l.trim().is_empty())
                .copied()
                .collect();
            out.push((i + 1, para.join(" ")));
        }
    }
    out
}

/// Whether some `.rs` file of the repository defines `fn name`.
fn fn_defined(name: &str, files: &[(PathBuf, String)]) -> bool {
    let pat = format!("fn {name}");
    files.iter().any(|(_, t)| {
        t.match_indices(&pat)
            .any(|(i, _)| t[i + pat.len()..].starts_with(['(', '<']))
    })
}

#[test]
fn architecture_invariants_name_tests_that_exist() {
    let invs = invariants();
    assert!(
        invs.len() >= 10,
        "tidy: found only {} invariants in ARCHITECTURE.md",
        invs.len()
    );
    let rs: Vec<(PathBuf, String)> = source_files()
        .into_iter()
        .filter(|f| f.extension().and_then(|x| x.to_str()) == Some("rs"))
        .map(|f| {
            let t = read(&f);
            (f, t)
        })
        .collect();
    let mut bad = Vec::new();
    for (line, text) in invs {
        let checked = text.contains("Checked by");
        let construction = text.contains("By construction");
        if !checked && !construction {
            bad.push(format!(
                "ARCHITECTURE.md:{line}: invariant says neither \"Checked by\" (a named test) \
                 nor \"By construction\" (and why)"
            ));
        }
        let mut names_a_test = false;
        let mut prev_was_test = false;
        for (tok, before) in backticked(&text) {
            let was = std::mem::replace(&mut prev_was_test, false);
            if tok.starts_with(".ci/") {
                // CI's own script checks what no test binary can (a
                // machine without a GPU).
                if root().join(&tok).is_file() {
                    names_a_test = true;
                } else {
                    bad.push(format!(
                        "ARCHITECTURE.md:{line}: invariant names `{tok}`, which does not exist"
                    ));
                }
                continue;
            }
            let (path, func) = match tok.split_once(".rs::") {
                Some((p, f)) => (Some(format!("{p}.rs")), Some(f.to_string())),
                None if tok.ends_with(".rs") && tok.contains('/') => (Some(tok.clone()), None),
                None => (None, None),
            };
            if let Some(p) = path {
                let full = root().join(&p);
                if !full.is_file() {
                    bad.push(format!(
                        "ARCHITECTURE.md:{line}: invariant names `{p}`, which does not exist"
                    ));
                    continue;
                }
                names_a_test |= p.contains("tests/");
                if let Some(f) = func {
                    let body = read(&full);
                    let pat = format!("fn {f}(");
                    if !body.contains(&pat) {
                        bad.push(format!(
                            "ARCHITECTURE.md:{line}: invariant names `{p}::{f}`, but {p} has no `fn {f}`"
                        ));
                    }
                    names_a_test = true;
                    prev_was_test = true;
                }
                continue;
            }
            // A test named by function: "test `name`", "tests `a`, `b` and `c`".
            let prev = before.trim_end().trim_end_matches([',', '(']).trim_end();
            let gap = before.trim();
            let listed = was && matches!(gap, "," | "and" | ", and" | "or");
            let is_fn = !tok.is_empty()
                && tok
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
            if is_fn && (prev.ends_with(" test") || prev.ends_with(" tests") || listed) {
                if fn_defined(&tok, &rs) {
                    names_a_test = true;
                    prev_was_test = true;
                } else {
                    bad.push(format!(
                        "ARCHITECTURE.md:{line}: invariant names test `{tok}`, which no .rs file defines"
                    ));
                }
            }
        }
        if checked && !names_a_test {
            bad.push(format!(
                "ARCHITECTURE.md:{line}: invariant says \"Checked by\" but names no test \
                 (`crate/tests/file.rs`, `file.rs::function` or test `function`)"
            ));
        }
    }
    report(
        "architecture invariants are checked or true by construction",
        bad,
    );
}

// ---------------------------------------------------------------- rule 7

/// Crates whose root must carry `#![forbid(unsafe_code)]`.
const SAFE_CRATES: [&str; 11] = [
    "field",
    "synth",
    "scheduler",
    "cli",
    "daemon",
    "filecoin",
    "filecoin-tools",
    "fuzz-checks",
    "anchor",
    "snarkpack",
    "xtask",
];

/// Only `groth16` (through `Backend`) uses the NTT and MSM crates.
const BELOW_BACKEND: [&str; 2] = ["cuzk-ntt", "cuzk-msm"];

#[test]
fn layering_and_unsafe() {
    let mut bad = Vec::new();
    for c in SAFE_CRATES {
        let dir = root().join(c).join("src");
        let Some(lib) = ["lib.rs", "main.rs"]
            .map(|f| dir.join(f))
            .into_iter()
            .find(|p| p.is_file())
        else {
            bad.push(format!("{c}/src: no lib.rs or main.rs"));
            continue;
        };
        if !read(&lib).contains("#![forbid(unsafe_code)]") {
            bad.push(format!(
                "{}:1: crate root without `#![forbid(unsafe_code)]` (ARCHITECTURE.md: this crate holds no unsafe)",
                rel(&lib)
            ));
        }
    }
    for m in workspace_members() {
        let manifest = root().join(&m).join("Cargo.toml");
        let text = read(&manifest);
        let pkg = toml_names(&text, "[package]")
            .into_iter()
            .next()
            .unwrap_or_default();
        // cuzk-snarkpack is not a Groth16 prover: its KZG openings and MIPP
        // terms are plain MSMs.
        if pkg == "cuzk-groth16" || pkg == "cuzk-snarkpack" || BELOW_BACKEND.contains(&pkg.as_str())
        {
            continue;
        }
        for (i, l) in text.lines().enumerate() {
            let key = l.trim_start().split(['=', '.', ' ']).next().unwrap_or("");
            if BELOW_BACKEND.contains(&key) {
                bad.push(format!(
                    "{m}/Cargo.toml:{}: `{pkg}` depends on `{key}`; callers reach NTT and MSM only \
                     through cuzk-groth16's `Backend` (ARCHITECTURE.md)",
                    i + 1
                ));
            }
        }
    }
    report("layering and unsafe code", bad);
}
