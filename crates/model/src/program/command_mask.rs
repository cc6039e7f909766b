//! Secrets kept out of a session's command line wherever it is shown or
//! kept (`session list`, the Terminals view, the session's log, a tape or
//! configuration saved from it): the program is started with its arguments
//! as given, and everything after keeps them with each secret value as
//! [`MASKED`].
//!
//! A value is taken for a secret by the name it is given under, the way
//! people name them: an environment assignment (`API_KEY=…`, `env
//! GITHUB_TOKEN=… prog`, also inside a shell string), an option (`--password=…`,
//! `--api-key …`), a header (`Authorization: Bearer …`, `X-Api-Key: …`) or
//! a URL's password (`https://user:…@host`). A name is secret when its
//! last part (split at `_` and `-`) is `KEY`, `PASS`, `PAT` or `AUTH`, or
//! ends with `TOKEN`, `SECRET`, `PASSWORD`, `PASSWD` or `CREDENTIALS` — so
//! `OPENAI_API_KEY`, `PGPASSWORD` and `--auth-token` are, `TOKENIZERS_PARALLELISM`,
//! `API_KEY_ID`, `--token-file` and `PWD` are not.

/// What a secret value becomes.
pub const MASKED: &str = "***";

/// Whether a value named `name` is a secret (see the module's rule).
pub fn is_secret_name(name: &str) -> bool {
    let upper = name.trim_start_matches('-').to_ascii_uppercase();
    let Some(last) = upper.split(['_', '-', '.']).rfind(|part| !part.is_empty()) else {
        return false;
    };
    matches!(last, "KEY" | "APIKEY" | "PASS" | "PAT" | "AUTH")
        || ["TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIALS"]
            .iter()
            .any(|suffix| last.ends_with(suffix))
}

/// Whether `word` could name an environment variable or an option.
fn is_name(word: &str) -> bool {
    let bare = word.trim_start_matches('-');
    !bare.is_empty()
        && bare
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// `args` with every secret value masked; the rest exactly as given.
pub fn mask_args(args: &[String]) -> Vec<String> {
    let mut next_is_secret = false;
    args.iter()
        .map(|arg| {
            if next_is_secret && !arg.starts_with('-') {
                next_is_secret = false;
                return MASKED.to_owned();
            }
            let (masked, pending) = mask_text(arg);
            next_is_secret = pending;
            masked
        })
        .collect()
}

/// `text` (one argument, which may be a whole shell command) with its
/// secrets masked, and whether it ends in an option whose value is the
/// next argument (`--password`).
fn mask_text(text: &str) -> (String, bool) {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut next_is_secret = false;
    // Word by word (whitespace kept), so a shell string is masked too.
    while !rest.is_empty() {
        let space = rest.len() - rest.trim_start().len();
        out.push_str(&rest[..space]);
        rest = &rest[space..];
        if rest.is_empty() {
            break;
        }
        let word_end = word_end(rest);
        let word = &rest[..word_end];
        rest = &rest[word_end..];
        if next_is_secret && !word.starts_with('-') {
            out.push_str(&quote_like(word));
            next_is_secret = false;
            continue;
        }
        next_is_secret = false;
        if let Some((quote, inner)) = quoted(word) {
            // A quoted part of a shell string is masked as text of its own.
            let (masked, pending) = mask_text(inner);
            out.push(quote);
            out.push_str(&masked);
            out.push(quote);
            next_is_secret = pending;
        } else if let Some(masked) = mask_word(word) {
            out.push_str(&masked);
        } else if word.starts_with('-') && is_name(word) && is_secret_name(word) {
            // `--password VALUE`: the value is the next word.
            out.push_str(word);
            next_is_secret = true;
        } else if let Some(colon) = header_name(word) {
            // `Authorization: Bearer VALUE` split into words: the rest of
            // the text up to a quote or the end is the value.
            out.push_str(&word[..=colon]);
            let value_end = rest.find(['"', '\'']).unwrap_or(rest.len());
            let value = &rest[..value_end];
            if value.trim().is_empty() {
                next_is_secret = true;
            } else {
                let lead = value.len() - value.trim_start().len();
                out.push_str(&value[..lead]);
                out.push_str(MASKED);
            }
            rest = &rest[value_end..];
        } else {
            out.push_str(&mask_url(word));
        }
    }
    (out, next_is_secret)
}

/// Where the word at the start of `text` ends: at whitespace outside
/// quotes.
fn word_end(text: &str) -> usize {
    let mut quote = None;
    for (index, c) in text.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(open), c) if c == open => quote = None,
            (None, c) if c.is_whitespace() => return index,
            _ => {}
        }
    }
    text.len()
}

/// The quote and the inside of a word quoted whole (`"a b"`).
fn quoted(word: &str) -> Option<(char, &str)> {
    let quote = word.chars().next().filter(|c| matches!(c, '"' | '\''))?;
    let inner = word.strip_prefix(quote)?.strip_suffix(quote)?;
    Some((quote, inner))
}

/// A masked value keeps the quotes around it (`'***'`).
fn quote_like(value: &str) -> String {
    match value.chars().next() {
        Some(quote @ ('"' | '\'')) if value.len() > 1 && value.ends_with(quote) => {
            format!("{quote}{MASKED}{quote}")
        }
        _ => MASKED.to_owned(),
    }
}

/// `NAME=VALUE` or `--name=VALUE` with a secret name: masked.
fn mask_word(word: &str) -> Option<String> {
    let (name, value) = word.split_once('=')?;
    if !is_name(name) || !is_secret_name(name) || value.is_empty() {
        return None;
    }
    Some(format!("{name}={}", quote_like(value)))
}

/// The colon of a header name at the start of `word` (`Authorization:`,
/// `X-Api-Key:`), when the header carries a secret.
fn header_name(word: &str) -> Option<usize> {
    let bare = word.trim_start_matches(['"', '\'']);
    let name = bare.strip_suffix(':')?;
    let lower = name.to_ascii_lowercase();
    let secret = matches!(
        lower.as_str(),
        "authorization" | "proxy-authorization" | "cookie"
    ) || (is_name(name) && is_secret_name(name));
    secret.then(|| word.len() - 1)
}

/// A URL's password (`scheme://user:PASSWORD@host`) masked.
fn mask_url(word: &str) -> String {
    let Some(scheme_end) = word.find("://") else {
        return word.to_owned();
    };
    let authority_start = scheme_end + 3;
    let authority_end = word[authority_start..]
        .find(['/', '?', '#'])
        .map_or(word.len(), |end| authority_start + end);
    let authority = &word[authority_start..authority_end];
    let Some(at) = authority.rfind('@') else {
        return word.to_owned();
    };
    let Some(colon) = authority[..at].find(':') else {
        return word.to_owned();
    };
    format!(
        "{}{MASKED}{}",
        &word[..authority_start + colon + 1],
        &word[authority_start + at..]
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    fn masked(args: &[&str]) -> Vec<String> {
        mask_args(&args.iter().map(|arg| (*arg).to_owned()).collect::<Vec<_>>())
    }

    #[test]
    fn secret_names_are_told_by_their_last_part() {
        for name in [
            "API_KEY",
            "OPENAI_API_KEY",
            "GITHUB_TOKEN",
            "PGPASSWORD",
            "MYSQL_PWD_PASSWD",
            "AWS_SECRET_ACCESS_KEY",
            "CLIENT_SECRET",
            "--password",
            "--api-key",
            "--auth-token",
            "-token",
            "apikey",
            "GIT_CREDENTIALS",
        ] {
            assert!(is_secret_name(name), "{name}");
        }
        for name in [
            "PWD",
            "PATH",
            "TOKENIZERS_PARALLELISM",
            "API_KEY_ID",
            "--token-file",
            "MONKEY",
            "--keyboard",
            "AUTHOR",
            "--verbose",
        ] {
            assert!(!is_secret_name(name), "{name}");
        }
    }

    #[test]
    fn each_way_of_passing_a_secret_is_masked_and_the_rest_kept() {
        let cases: [(&[&str], &[&str]); 10] = [
            (
                &["API_KEY=sk-live-123", "prog", "--flag"],
                &["API_KEY=***", "prog", "--flag"],
            ),
            (&["--password=hunter2", "x"], &["--password=***", "x"]),
            (
                &["--api-key", "sk-1", "--name", "n"],
                &["--api-key", "***", "--name", "n"],
            ),
            (&["--password", "--verbose"], &["--password", "--verbose"]),
            (
                &["-c", "TOKEN=abc ./deploy --secret 'x y' --env=prod"],
                &["-c", "TOKEN=*** ./deploy --secret '***' --env=prod"],
            ),
            (
                &["-H", "Authorization: Bearer abc.def", "https://x.test"],
                &["-H", "Authorization: ***", "https://x.test"],
            ),
            (&["-H", "X-Api-Key: k123"], &["-H", "X-Api-Key: ***"]),
            (
                &["clone", "https://me:pa55@git.test/r.git"],
                &["clone", "https://me:***@git.test/r.git"],
            ),
            (
                &["postgres://u:p@db/x?sslmode=require", "psql"],
                &["postgres://u:***@db/x?sslmode=require", "psql"],
            ),
            (
                &[
                    "TOKENIZERS_PARALLELISM=false",
                    "PWD=/tmp",
                    "https://u@h/p",
                    "a=b",
                ],
                &[
                    "TOKENIZERS_PARALLELISM=false",
                    "PWD=/tmp",
                    "https://u@h/p",
                    "a=b",
                ],
            ),
        ];
        for (args, expected) in cases {
            assert_eq!(masked(args), expected, "{args:?}");
        }
    }

    #[test]
    fn no_masked_line_holds_the_secret() {
        let secret = "s3cr3t-VALUE";
        for line in [
            format!("SECRET={secret}"),
            format!("sh -c \"DB_PASSWORD={secret} run\""),
            format!("--client-secret={secret}"),
            format!("Authorization: Basic {secret}"),
            format!("curl -H \"Authorization: Bearer {secret}\" https://api.test"),
            format!("curl -H 'X-Auth-Token: {secret}' https://api.test"),
        ] {
            let shown = mask_args(std::slice::from_ref(&line)).join(" ");
            assert!(!shown.contains(secret), "{line} -> {shown}");
        }
    }
}
