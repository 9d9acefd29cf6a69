//! The text side of the tidy rules: source split into code and comments,
//! the patterns the rules look for, and a little TOML and Markdown
//! reading. Pure functions of strings, with their own test.

/// Whether the code (comments and strings already removed) of a line opens
/// an `extern` block: `extern {`, `extern "C" {`, `unsafe extern "C" {`.
pub(crate) fn opens_extern_block(code: &str) -> bool {
    let mut rest = code;
    while let Some(i) = rest.find("extern") {
        let before_ok = rest[..i]
            .chars()
            .next_back()
            .map_or(true, |c| !(c.is_alphanumeric() || c == '_'));
        let after = rest[i + "extern".len()..].trim_start();
        // The ABI string was blanked with the other literals: `""`.
        let after = after.strip_prefix("\"\"").unwrap_or(after).trim_start();
        if before_ok && after.starts_with('{') {
            return true;
        }
        rest = &rest[i + "extern".len()..];
    }
    false
}

// ------------------------------------------------------- comments and code

/// A source file split into its comments and its code, line by line
/// (`code[i]` has comments removed and string/char literals emptied;
/// `comments` holds `(line number, comment text)`).
pub(crate) struct Split {
    pub(crate) code: Vec<String>,
    pub(crate) comments: Vec<(usize, String)>,
}

/// Splits Rust or C-family source. Approximate where it does not matter
/// (nested block comments are counted; raw strings `r#"…"#` handled; a
/// `'` starts a char literal only when one closes two or three chars on).
pub(crate) fn split_rust(text: &str) -> Split {
    #[derive(PartialEq)]
    enum St {
        Code,
        Block(usize),
        Str,
        Raw(usize),
    }
    let mut st = St::Code;
    let mut code = Vec::new();
    let mut comments = Vec::new();
    for (ln, line) in text.lines().enumerate() {
        let c: Vec<char> = line.chars().collect();
        let mut out = String::new();
        let mut com = String::new();
        let mut i = 0;
        while i < c.len() {
            match st {
                St::Block(depth) => {
                    if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                        st = if depth == 1 {
                            St::Code
                        } else {
                            St::Block(depth - 1)
                        };
                        i += 2;
                    } else if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                        st = St::Block(depth + 1);
                        i += 2;
                    } else {
                        com.push(c[i]);
                        i += 1;
                    }
                }
                St::Str => {
                    if c[i] == '\\' {
                        i += 2;
                    } else if c[i] == '"' {
                        out.push('"');
                        st = St::Code;
                        i += 1;
                    } else {
                        i += 1;
                    }
                }
                St::Raw(hashes) => {
                    if c[i] == '"'
                        && c[i + 1..]
                            .iter()
                            .take(hashes)
                            .filter(|&&h| h == '#')
                            .count()
                            == hashes
                    {
                        out.push('"');
                        st = St::Code;
                        i += 1 + hashes;
                    } else {
                        i += 1;
                    }
                }
                St::Code => {
                    if c[i] == '/' && c.get(i + 1) == Some(&'/') {
                        com.push_str(&c[i + 2..].iter().collect::<String>());
                        break;
                    } else if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                        st = St::Block(1);
                        i += 2;
                    } else if c[i] == '"' {
                        out.push('"');
                        st = St::Str;
                        i += 1;
                    } else if c[i] == 'r'
                        && (i == 0 || !(c[i - 1].is_alphanumeric() || c[i - 1] == '_'))
                        && matches!(c.get(i + 1), Some('"') | Some('#'))
                    {
                        let hashes = c[i + 1..].iter().take_while(|&&h| h == '#').count();
                        if c.get(i + 1 + hashes) == Some(&'"') {
                            out.push('"');
                            st = St::Raw(hashes);
                            i += 2 + hashes;
                        } else {
                            out.push(c[i]);
                            i += 1;
                        }
                    } else if c[i] == '\'' {
                        // 'x' or '\x': a char literal; otherwise a lifetime.
                        let close = if c.get(i + 1) == Some(&'\\') {
                            i + 3
                        } else {
                            i + 2
                        };
                        if c.get(close) == Some(&'\'') {
                            out.push_str("' '");
                            i = close + 1;
                        } else {
                            out.push('\'');
                            i += 1;
                        }
                    } else {
                        out.push(c[i]);
                        i += 1;
                    }
                }
            }
        }
        if !com.trim().is_empty() {
            comments.push((ln + 1, com));
        }
        code.push(out);
    }
    Split { code, comments }
}

/// What in a comment reads as session history, if anything.
pub(crate) fn history_in(comment: &str) -> Option<String> {
    let lower = comment.to_lowercase();
    let b = lower.as_bytes();
    let word_start = |i: usize| i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
    // The word "session" or "sessions", then a space, '-', '_' or nothing,
    // then a digit.
    let mut from = 0;
    while let Some(i) = lower[from..].find("session") {
        let i = from + i;
        let mut j = i + "session".len();
        if b.get(j) == Some(&b's') {
            j += 1;
        }
        if matches!(b.get(j), Some(b' ') | Some(b'-') | Some(b'_')) {
            j += 1;
        }
        if word_start(i) && b.get(j).is_some_and(|c| c.is_ascii_digit()) {
            let end = (j..b.len())
                .find(|&k| !b[k].is_ascii_digit())
                .unwrap_or(b.len());
            return Some(format!("a session number (\"{}\")", &lower[i..end]));
        }
        from = i + 1;
    }
    // An ISO date: 20YY-MM-DD.
    for i in 0..b.len().saturating_sub(9) {
        let d = |k: usize| b[i + k].is_ascii_digit();
        if b[i] == b'2'
            && b[i + 1] == b'0'
            && d(2)
            && d(3)
            && b[i + 4] == b'-'
            && d(5)
            && d(6)
            && b[i + 7] == b'-'
            && d(8)
            && d(9)
            && word_start(i)
            && b.get(i + 10).map_or(true, |c| !c.is_ascii_digit())
        {
            return Some(format!("a date (\"{}\")", &lower[i..i + 10]));
        }
    }
    None
}

/// The `.md` paths a comment cites, each with the `§N` that follows it.
pub(crate) fn cited_docs(comment: &str) -> Vec<(String, Option<String>)> {
    let is_path = |c: char| c.is_alphanumeric() || "_./-".contains(c);
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = comment.char_indices().collect();
    let mut k = 0;
    while k < chars.len() {
        if !is_path(chars[k].1) || (k > 0 && is_path(chars[k - 1].1)) {
            k += 1;
            continue;
        }
        let start = chars[k].0;
        let mut e = k;
        while e < chars.len() && is_path(chars[e].1) {
            e += 1;
        }
        let end = chars.get(e).map_or(comment.len(), |c| c.0);
        let tok = comment[start..end].trim_end_matches('.');
        let url = k > 0 && chars[k - 1].1 == ':';
        if tok.len() > 3 && tok.ends_with(".md") && !url && !tok.starts_with(['/', '.']) {
            let after = comment[start + tok.len()..].trim_start();
            let section = after
                .strip_prefix('§')
                .map(|s| {
                    s.chars()
                        .take_while(char::is_ascii_digit)
                        .collect::<String>()
                })
                .filter(|s| !s.is_empty());
            out.push((tok.to_string(), section));
        }
        k = e;
    }
    out
}

/// The values of a TOML array `key = [ "a", "b", … ]` (comments allowed).
pub(crate) fn toml_array(text: &str, key: &str) -> Vec<String> {
    let Some(start) = text
        .lines()
        .position(|l| l.trim_start().starts_with(key) && l.contains('['))
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for l in text.lines().skip(start) {
        let l = l.split('#').next().unwrap_or("");
        let l = l.split_once('[').map_or(l, |(_, r)| r);
        for part in l.split(',') {
            let v = part.trim().trim_end_matches(']').trim();
            if let Some(v) = v.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
                out.push(v.to_string());
            }
        }
        if l.contains(']') {
            break;
        }
    }
    out
}

/// `name = "…"` values of the given table headers (`[package]`, `[[bin]]`).
pub(crate) fn toml_names(text: &str, table: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for l in text.lines() {
        let t = l.trim();
        if t.starts_with('[') {
            inside = t == table;
            continue;
        }
        if inside {
            if let Some(v) = t.strip_prefix("name") {
                let v = v.trim_start().trim_start_matches('=').trim();
                if let Some(v) = v.strip_prefix('"').and_then(|v| v.split('"').next()) {
                    out.push(v.to_string());
                }
            }
        }
    }
    out
}

/// Whether `word` occurs in `text` with no name character on either side.
pub(crate) fn names(text: &str, word: &str) -> bool {
    let is_name = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    text.match_indices(word).any(|(i, _)| {
        text[..i].chars().next_back().map_or(true, |c| !is_name(c))
            && text[i + word.len()..]
                .chars()
                .next()
                .map_or(true, |c| !is_name(c))
    })
}

/// The `backticked` tokens of a paragraph, each with the text between it
/// and the token before it.
pub(crate) fn backticked(text: &str) -> Vec<(String, String)> {
    let parts: Vec<&str> = text.split('`').collect();
    (1..parts.len())
        .step_by(2)
        .map(|k| (parts[k].to_string(), parts[k - 1].to_string()))
        .collect()
}

// ------------------------------------------------------- the rules' own test

#[test]
fn the_rules_catch_what_they_should() {
    // Built from parts, so this file holds no history of its own.
    let (w, y) = ("session", 2026);
    for s in [
        format!(" {w} 12 measured 1.5 ms"),
        format!(" in {w} 5"),
        format!(" ({w} 16 run 3)"),
        format!(" {w}s 10–11"),
        format!(" see docs/runs/{y}-12-02-{w}11.md"),
        format!(" measured on {y}-11-29"),
    ] {
        assert!(history_in(&s).is_some(), "{s:?} should count as history");
    }
    for s in [
        " a session token",
        " the sessionless path",
        " 2^27 at 2026 MHz",
        " version 2026-1",
        " the 20 ms session-wide limit",
    ] {
        assert!(history_in(s).is_none(), "{s:?} should not count as history");
    }
    let x = split_rust(
        "let s = \"// not a comment 2026-01-01\"; // a comment\n/* block\n still */ code();\n",
    );
    assert_eq!(x.comments.len(), 3);
    assert_eq!(x.comments[0].1.trim(), "a comment");
    assert!(x.code[0].contains("let s"));
    assert!(!x.code[0].contains("not a comment"));
    assert!(opens_extern_block(&split_rust("extern \"C\" {").code[0]));
    assert!(opens_extern_block(
        &split_rust("unsafe extern \"C\" {").code[0]
    ));
    assert!(!opens_extern_block(
        &split_rust("pub extern \"C\" fn f() {}").code[0]
    ));
    assert!(!opens_extern_block(
        &split_rust("// extern \"C\" {").code[0]
    ));
    assert_eq!(
        cited_docs(" see docs/GPU.md §8 and DESIGN.md, https://x.org/README.md."),
        vec![
            ("docs/GPU.md".into(), Some("8".into())),
            ("DESIGN.md".into(), None)
        ]
    );
    assert!(names("the `cuzk-porep-synth` binary", "cuzk-porep-synth"));
    assert!(!names("the cuzk-porep-synth binary", "cuzk"));
}
