//! Secrets kept out of tapes: ClaudeControl's three patterns (`api_key:
//! …`/`token=…`/`password …`, AWS access key ids, `secret…`), masked as it
//! masks them — but over a whole exchange's output, so a secret split
//! across two reads is caught too, and over inputs as well.

use std::sync::OnceLock;

use regex::Regex;

/// The variable that turns redaction off (`0` or `false`).
pub const REDACT_ENV: &str = "CLAUDECONTROL_REDACT";

/// Whether a value of [`REDACT_ENV`] turns redaction off.
pub fn disabled_by(value: Option<&str>) -> bool {
    matches!(value, Some("0" | "false" | "False"))
}

fn patterns() -> &'static [Regex; 3] {
    static PATTERNS: OnceLock<[Regex; 3]> = OnceLock::new();
    PATTERNS.get_or_init(|| {
        [
            r"(?i)(api[_-]?key|token|password)\s*[:=]\s*[^\s]+",
            r"AKIA[0-9A-Z]{16}",
            r"(?i)secret[^\s]{6,}",
        ]
        .map(|pattern| Regex::new(pattern).unwrap_or_else(|_| unreachable!("fixed patterns")))
    })
}

/// ClaudeControl's mask: the key before the first `:` or `=`, then `***`.
fn mask(found: &str) -> String {
    if let Some((key, _)) = found.split_once(':') {
        format!("{key}: ***")
    } else if let Some((key, _)) = found.split_once('=') {
        format!("{key}=***")
    } else {
        "***".to_owned()
    }
}

/// `text` with every secret masked, pattern after pattern as
/// ClaudeControl applies them.
pub fn redact_text(text: &str) -> String {
    let mut out = text.to_owned();
    for pattern in patterns() {
        out = pattern
            .replace_all(&out, |found: &regex::Captures<'_>| mask(&found[0]))
            .into_owned();
    }
    out
}

/// The byte ranges of `text` that hold secrets, with the mask for each,
/// found in one pass of all three patterns (earliest first, none
/// overlapping).
fn secrets(text: &str) -> Vec<(usize, usize, String)> {
    let mut found: Vec<(usize, usize, String)> = patterns()
        .iter()
        .flat_map(|pattern| pattern.find_iter(text))
        .map(|hit| (hit.start(), hit.end(), mask(hit.as_str())))
        .collect();
    found.sort_by_key(|(start, end, _)| (*start, std::cmp::Reverse(*end)));
    let mut kept: Vec<(usize, usize, String)> = Vec::new();
    for hit in found {
        match kept.last_mut() {
            Some(last) if hit.0 < last.1 => last.1 = last.1.max(hit.1),
            _ => kept.push(hit),
        }
    }
    kept
}

/// Masks secrets across `chunks` read one after another, keeping every
/// chunk (and so every delay): a secret's mask goes where it starts, the
/// rest of it leaves the chunks it spilled into. Output that is not UTF-8
/// as a whole is left as it is.
pub fn redact_chunks(chunks: &mut [Vec<u8>]) {
    let joined: Vec<u8> = chunks.concat();
    let Ok(text) = std::str::from_utf8(&joined) else {
        return;
    };
    let found = secrets(text);
    if found.is_empty() {
        return;
    }
    let mut offset = 0;
    for chunk in chunks.iter_mut() {
        let (start, end) = (offset, offset + chunk.len());
        offset = end;
        let mut rewritten = Vec::with_capacity(chunk.len());
        let mut at = start;
        for (from, to, masked) in &found {
            if *to <= start || *from >= end {
                continue;
            }
            let cut = (*from).max(start);
            rewritten.extend_from_slice(&joined[at..cut]);
            if *from >= start {
                rewritten.extend_from_slice(masked.as_bytes());
            }
            at = (*to).min(end);
        }
        rewritten.extend_from_slice(&joined[at..end]);
        *chunk = rewritten;
    }
}

/// Masks the secrets of a whole tape in place: each exchange's reads
/// together, and each input. Returns how many reads and inputs changed.
pub fn redact_tape(tape: &mut super::Tape) -> usize {
    use base64::Engine as _;
    let engine = base64::engine::general_purpose::STANDARD;
    let mut changed = 0;
    for exchange in &mut tape.exchanges {
        let mut reads: Vec<Vec<u8>> = exchange
            .output
            .chunks
            .iter()
            .map(super::Chunk::bytes)
            .collect();
        let before = reads.clone();
        redact_chunks(&mut reads);
        for ((chunk, read), old) in exchange.output.chunks.iter_mut().zip(&reads).zip(&before) {
            if read != old {
                chunk.data_b64 = engine.encode(read);
                chunk.is_utf8 = std::str::from_utf8(read).is_ok();
                changed += 1;
            }
        }
        let input = &mut exchange.input;
        if let Some(text) = &input.data_text {
            let masked = redact_text(text);
            if masked != *text {
                input.data_text = Some(masked);
                changed += 1;
            }
        } else if let Some(encoded) = &input.data_b64
            && let Ok(bytes) = engine.decode(encoded)
            && let Ok(text) = String::from_utf8(bytes)
        {
            let masked = redact_text(&text);
            if masked != text {
                input.data_b64 = Some(engine.encode(masked.as_bytes()));
                changed += 1;
            }
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly by design.
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use super::*;

    #[test]
    fn claudecontrols_masks() {
        assert_eq!(redact_text("API_KEY: abc123 ok"), "API_KEY: *** ok");
        assert_eq!(redact_text("token=xyz next"), "token=*** next");
        assert_eq!(redact_text("id AKIAABCDEFGHIJKLMNOP end"), "id *** end");
        assert_eq!(redact_text("mysecretvalue123 x"), "my*** x");
        assert_eq!(redact_text("nothing here"), "nothing here");
        assert!(disabled_by(Some("0")) && disabled_by(Some("false")));
        assert!(!disabled_by(None) && !disabled_by(Some("1")));
    }

    #[test]
    fn a_secret_split_across_reads_is_masked_and_every_read_kept() {
        let mut chunks = vec![
            b"login ok\r\npass".to_vec(),
            b"word: hunter".to_vec(),
            b"2 done\r\n$ ".to_vec(),
        ];
        redact_chunks(&mut chunks);
        assert_eq!(chunks.len(), 3);
        let joined = String::from_utf8(chunks.concat()).unwrap();
        assert_eq!(joined, "login ok\r\npassword: *** done\r\n$ ");
        assert!(!joined.contains("hunter"));
        assert_eq!(chunks[0], b"login ok\r\npassword: ***".to_vec());
        assert_eq!(chunks[2], b" done\r\n$ ".to_vec());
    }

    #[test]
    fn a_whole_tape_is_redacted_reads_and_inputs() {
        let mut tape = crate::tape::codec::decode(
            "{meta: {program: 'login', args: [], env: {}, cwd: '/'}, session: {}, exchanges: [\
             {pre: {prompt: null}, input: {type: 'line', dataText: 'password=hunter2\\n'}, \
              output: {chunks: [{delay_ms: 1, dataB64: 'dG9rZW46IGFi', isUtf8: true}, \
                                {delay_ms: 1, dataB64: 'YzEyMyBvaw==', isUtf8: true}]}}]}",
        )
        .unwrap();
        assert_eq!(redact_tape(&mut tape), 3);
        let exchange = &tape.exchanges[0];
        assert_eq!(exchange.input.data_text.as_deref(), Some("password=***\n"));
        use base64::Engine as _;
        let reads: Vec<String> = exchange
            .output
            .chunks
            .iter()
            .map(|chunk| {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(&chunk.data_b64)
                    .unwrap();
                String::from_utf8(bytes).unwrap()
            })
            .collect();
        assert_eq!(reads, ["token: ***", " ok"]);
        assert_eq!(redact_tape(&mut tape), 0, "nothing left to mask");
    }

    #[test]
    fn output_that_is_not_text_is_left_alone() {
        let mut chunks = vec![vec![0xff, b't', b'o'], b"ken=abc".to_vec()];
        let before = chunks.clone();
        redact_chunks(&mut chunks);
        assert_eq!(chunks, before);
    }
}
