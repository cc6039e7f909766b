//! A tape as an asciicast v3 recording (`tapes export ID --cast`), which
//! asciinema's player plays: a header line (`term` with the recorded size),
//! then events `[interval, code, data]` — intervals in seconds since the
//! previous event — `"o"` for each output read (the banner's first), `"i"`
//! for each input, and `"x"` with the exit status when the program ended.

use serde_json::{Value, json};

use super::{Exchange, Tape};

fn input_text(exchange: &Exchange) -> String {
    String::from_utf8_lossy(&super::index::input_bytes(exchange)).into_owned()
}

/// The tape as asciicast v3 (newline-delimited JSON).
pub fn cast(tape: &Tape, title: &str) -> String {
    let (width, height) = tape.meta.pty.map_or((80, 24), |pty| (pty.cols, pty.rows));
    let mut command = vec![tape.meta.program.clone()];
    command.extend(tape.meta.args.iter().cloned());
    let term = tape
        .meta
        .env
        .get("TERM")
        .cloned()
        .unwrap_or_else(|| "xterm-256color".into());
    let header = json!({"version": 3, "term": {"cols": width, "rows": height, "type": term},
                        "command": command.join(" "), "title": title});
    let mut lines = vec![header.to_string()];
    let mut event = |after_ms: u64, kind: &str, text: String| {
        let seconds = after_ms as f64 / 1000.0;
        lines.push(Value::Array(vec![json!(seconds), json!(kind), json!(text)]).to_string());
    };
    for chunk in tape.meta.banner() {
        let text = String::from_utf8_lossy(&chunk.bytes()).into_owned();
        event(chunk.delay_ms, "o", text);
    }
    for exchange in &tape.exchanges {
        event(0, "i", input_text(exchange));
        for chunk in &exchange.output.chunks {
            let text = String::from_utf8_lossy(&chunk.bytes()).into_owned();
            event(chunk.delay_ms, "o", text);
        }
        if let Some(exit) = &exchange.exit {
            let status = match (&exit.code, &exit.signal) {
                (Some(code), _) => code.to_string(),
                (None, Some(signal)) => format!("signal {signal}"),
                (None, None) => "0".to_owned(),
            };
            event(0, "x", status);
        }
    }
    lines.join("\n") + "\n"
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly by design.
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use super::*;
    use crate::tape::codec::decode as read;

    #[test]
    fn a_tape_becomes_an_asciicast_v3_recording() {
        let tape = read(
            "{meta: {program: 'bc', args: ['-q'], env: {}, cwd: '/', pty: {rows: 30, cols: 100}, \
              banner: {chunks: [{delay_ms: 5, dataB64: 'YmMgMS4w', isUtf8: true}]}}, session: {}, \
              exchanges: [{pre: {prompt: null}, input: {type: 'line', dataText: '1+1\\n'}, \
              output: {chunks: [{delay_ms: 20, dataB64: 'Mg0K', isUtf8: true}]}, exit: {code: 0}}]}",
        )
        .unwrap();
        let cast = cast(&tape, "sum");
        let lines: Vec<Value> = cast
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(lines[0]["version"], 3);
        assert_eq!(
            lines[0]["term"],
            json!({"cols": 100, "rows": 30, "type": "xterm-256color"})
        );
        assert_eq!(lines[1], json!([0.005, "o", "bc 1.0"]));
        assert_eq!(lines[2], json!([0.0, "i", "1+1\n"]));
        assert_eq!(
            lines[3],
            json!([0.02, "o", "2\r\n"]),
            "intervals, not times"
        );
        assert_eq!(lines[4], json!([0.0, "x", "0"]));
    }
}
