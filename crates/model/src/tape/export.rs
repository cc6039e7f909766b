//! A tape as an asciinema v2 recording (`tapes export ID --cast`): a
//! header line, then one `[seconds, "o", text]` event per output read and
//! one `[seconds, "i", text]` per input, at the recorded times.

use serde_json::{Value, json};

use super::{Exchange, Tape};

fn decode(encoded: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .unwrap_or_default()
}

fn input_text(exchange: &Exchange) -> String {
    match (&exchange.input.data_text, &exchange.input.data_b64) {
        (Some(text), _) => text.clone(),
        (None, Some(encoded)) => String::from_utf8_lossy(&decode(encoded)).into_owned(),
        (None, None) => String::new(),
    }
}

/// The tape as asciinema v2 (newline-delimited JSON).
pub fn cast(tape: &Tape, title: &str) -> String {
    let (width, height) = tape.meta.pty.map_or((80, 24), |pty| (pty.cols, pty.rows));
    let mut command = vec![tape.meta.program.clone()];
    command.extend(tape.meta.args.iter().cloned());
    let header = json!({"version": 2, "width": width, "height": height,
                        "command": command.join(" "), "title": title,
                        "env": {"TERM": tape.meta.env.get("TERM").cloned().unwrap_or_else(|| "xterm-256color".into())}});
    let mut lines = vec![header.to_string()];
    let mut at_ms: u64 = 0;
    let mut event = |at_ms: u64, kind: &str, text: String| {
        let seconds = at_ms as f64 / 1000.0;
        lines.push(Value::Array(vec![json!(seconds), json!(kind), json!(text)]).to_string());
    };
    if let Some(banner) = tape
        .meta
        .extra
        .get("banner")
        .and_then(|b| b.get("chunks"))
        .and_then(Value::as_array)
    {
        for chunk in banner {
            at_ms += chunk.get("delay_ms").and_then(Value::as_u64).unwrap_or(0);
            let data = chunk.get("dataB64").and_then(Value::as_str).unwrap_or("");
            event(
                at_ms,
                "o",
                String::from_utf8_lossy(&decode(data)).into_owned(),
            );
        }
    }
    for exchange in &tape.exchanges {
        event(at_ms, "i", input_text(exchange));
        for chunk in &exchange.output.chunks {
            at_ms += chunk.delay_ms;
            event(
                at_ms,
                "o",
                String::from_utf8_lossy(&decode(&chunk.data_b64)).into_owned(),
            );
        }
    }
    lines.join("\n") + "\n"
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly by design.

    use super::*;
    use crate::tape::codec::decode as read;

    #[test]
    fn a_tape_becomes_an_asciinema_v2_recording() {
        let tape = read(
            "{meta: {program: 'bc', args: ['-q'], env: {}, cwd: '/', pty: {rows: 30, cols: 100}, \
              banner: {chunks: [{delay_ms: 5, dataB64: 'YmMgMS4w', isUtf8: true}]}}, session: {}, \
              exchanges: [{pre: {prompt: null}, input: {type: 'line', dataText: '1+1\\n'}, \
              output: {chunks: [{delay_ms: 20, dataB64: 'Mg0K', isUtf8: true}]}}]}",
        )
        .unwrap();
        let cast = cast(&tape, "sum");
        let lines: Vec<Value> = cast
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(lines[0]["version"], 2);
        assert_eq!(
            (lines[0]["width"].as_u64(), lines[0]["height"].as_u64()),
            (Some(100), Some(30))
        );
        assert_eq!(lines[1], json!([0.005, "o", "bc 1.0"]));
        assert_eq!(lines[2], json!([0.005, "i", "1+1\n"]));
        assert_eq!(lines[3], json!([0.025, "o", "2\r\n"]));
    }
}
