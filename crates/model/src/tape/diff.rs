//! `tapes diff A B`: how two recordings of a program differ, as a person
//! reads it — the command and folder, then exchange by exchange the input
//! and the output, the output compared as the index's fallback compares
//! (ANSI escapes, timestamps, `0x…` values and hex ids set aside, runs of
//! whitespace collapsed), so a re-recording that differs only in those is
//! the same.

use super::{
    Exchange, Tape,
    index::{input_bytes, normalise},
};

fn output_text(exchange: &Exchange) -> String {
    let bytes: Vec<u8> = exchange
        .output
        .chunks
        .iter()
        .flat_map(super::Chunk::bytes)
        .collect();
    normalise(&String::from_utf8_lossy(&bytes))
}

fn shown(bytes: &[u8]) -> String {
    format!("{:?}", String::from_utf8_lossy(bytes))
}

/// The differences, one line each (`-` for A, `+` for B); none when the
/// tapes record the same session.
pub fn diff(a: &Tape, b: &Tape) -> Vec<String> {
    let mut lines = Vec::new();
    let field = |lines: &mut Vec<String>, name: &str, left: String, right: String| {
        if left != right {
            lines.push(format!("{name}:"));
            lines.push(format!("- {left}"));
            lines.push(format!("+ {right}"));
        }
    };
    let command = |tape: &Tape| {
        std::iter::once(&tape.meta.program)
            .chain(&tape.meta.args)
            .cloned()
            .collect::<Vec<_>>()
            .join(" ")
    };
    field(&mut lines, "command", command(a), command(b));
    field(&mut lines, "cwd", a.meta.cwd.clone(), b.meta.cwd.clone());
    field(
        &mut lines,
        "env",
        format!("{:?}", a.meta.env),
        format!("{:?}", b.meta.env),
    );
    for n in 0..a.exchanges.len().max(b.exchanges.len()) {
        match (a.exchanges.get(n), b.exchanges.get(n)) {
            (Some(left), Some(right)) => {
                field(
                    &mut lines,
                    &format!("exchange {} input", n + 1),
                    shown(&input_bytes(left)),
                    shown(&input_bytes(right)),
                );
                field(
                    &mut lines,
                    &format!("exchange {} output", n + 1),
                    format!("{:?}", output_text(left)),
                    format!("{:?}", output_text(right)),
                );
            }
            (Some(left), None) => {
                lines.push(format!("exchange {} only in A:", n + 1));
                lines.push(format!("- {}", shown(&input_bytes(left))));
            }
            (None, Some(right)) => {
                lines.push(format!("exchange {} only in B:", n + 1));
                lines.push(format!("+ {}", shown(&input_bytes(right))));
            }
            (None, None) => {}
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly by design.
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use super::*;
    use crate::tape::codec::decode;

    fn tape(inputs: &[(&str, &str)]) -> Tape {
        use base64::Engine as _;
        let exchanges: Vec<String> = inputs
            .iter()
            .map(|(input, output)| {
                let data = base64::engine::general_purpose::STANDARD.encode(output);
                format!("{{input: {{type: 'line', dataText: '{input}'}}, output: {{chunks: [{{delay_ms: 1, dataB64: '{data}'}}]}}}}")
            })
            .collect();
        decode(&format!(
            "{{meta: {{program: 'git', args: ['log'], env: {{}}, cwd: '/r'}}, session: {{}}, exchanges: [{}]}}",
            exchanges.join(",")
        ))
        .unwrap()
    }

    #[test]
    fn volatile_output_is_the_same_and_real_changes_show() {
        let a = tape(&[("show", "commit 3f2a9c1d at 2025-01-01 10:00:00\n")]);
        let b = tape(&[(
            "show",
            "\u{1b}[33mcommit 9abc0de1\u{1b}[0m at 2026-11-22T08:30:00\n",
        )]);
        assert_eq!(diff(&a, &b), Vec::<String>::new());
        let c = tape(&[("show", "fatal: bad object\n"), ("quit", "")]);
        let lines = diff(&a, &c);
        assert_eq!(lines[0], "exchange 1 output:");
        assert!(lines[2].contains("fatal: bad object"), "{lines:?}");
        assert_eq!(lines[3], "exchange 2 only in B:");
        assert_eq!(lines[4], "+ \"quit\"");
    }
}
