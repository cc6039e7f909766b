//! What pairing says, through the real binary: the QR code `switchboard
//! pair` prints reads back as its link on a dark terminal too (dark on
//! light, its quiet zone), a loopback link says how a phone reaches it,
//! and every pairing says what a paired browser reaches; a second `serve`
//! of a served workspace points to `switchboard pair`, a used link does
//! too; `--sessions` tells two phones apart by what they are and when
//! they were last seen.

use std::path::Path;

use serde_json::Value;

use super::{folders, header, invoke, link_path, paired, request, serve};

/// The image a terminal with light text on a dark background draws of
/// `lines`: its colours where the text sets them, two pixels a cell (the
/// half blocks), `true` dark.
fn drawn_on_a_dark_terminal(lines: &[&str]) -> Vec<Vec<bool>> {
    let mut image = Vec::new();
    for line in lines {
        // A dark terminal: light text, dark ground.
        let (mut text_dark, mut ground_dark) = (false, true);
        let (mut top, mut bottom) = (Vec::new(), Vec::new());
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\u{1b}' {
                let mut sequence = String::new();
                for next in chars.by_ref() {
                    if next == 'm' {
                        break;
                    }
                    sequence.push(next);
                }
                let codes: Vec<&str> = sequence.trim_start_matches('[').split(';').collect();
                let mut index = 0;
                while index < codes.len() {
                    match codes[index] {
                        "0" | "" => (text_dark, ground_dark) = (false, true),
                        "38" | "48" if codes.get(index + 1) == Some(&"5") => {
                            let colour: u8 = codes[index + 2].parse().unwrap();
                            // 16 is black, 231 white; the grays between.
                            let dark = colour == 16 || colour == 0 || (232..=243).contains(&colour);
                            if codes[index] == "38" {
                                text_dark = dark;
                            } else {
                                ground_dark = dark;
                            }
                            index += 2;
                        }
                        "30" => text_dark = true,
                        "47" | "107" => ground_dark = false,
                        _ => {}
                    }
                    index += 1;
                }
                continue;
            }
            let (upper, lower) = match c {
                '▀' => (text_dark, ground_dark),
                '▄' => (ground_dark, text_dark),
                '█' => (text_dark, text_dark),
                _ => (ground_dark, ground_dark),
            };
            top.push(upper);
            bottom.push(lower);
        }
        image.push(top);
        image.push(bottom);
    }
    image
}

/// What a phone's camera reads in `image`, if anything.
fn read_qr(image: &[Vec<bool>]) -> Option<String> {
    let scale = 4;
    let width = image.iter().map(Vec::len).max()? * scale;
    let height = image.len() * scale;
    // Whatever lies around the printed code is the terminal's ground.
    let mut prepared = rqrr::PreparedImage::prepare_from_greyscale(width, height, |x, y| {
        let dark = image[y / scale].get(x / scale).copied().unwrap_or(true);
        if dark { 0 } else { 255 }
    });
    let grids = prepared.detect_grids();
    grids.first()?.decode().ok().map(|(_, text)| text)
}

/// The lines of `printed` that draw its QR code: those of block
/// characters, spaces and colours only.
fn qr_lines(printed: &str) -> Vec<&str> {
    printed
        .lines()
        .filter(|line| {
            line.contains(['▀', '▄', '█'])
                && line.chars().all(|c| {
                    matches!(c, '▀' | '▄' | '█' | ' ' | '\u{1b}' | '[' | ';' | 'm')
                        || c.is_ascii_digit()
                })
        })
        .collect()
}

fn envs<'a>(config: &'a Path, runtime: &'a Path) -> [(&'static str, &'a Path); 2] {
    [
        ("SWITCHBOARD_CONFIG_DIR", config),
        ("SWITCHBOARD_RUNTIME_DIR", runtime),
    ]
}

#[test]
fn switchboard_pair_draws_a_code_a_phone_reads_on_a_dark_terminal_and_says_how_to_reach_it() {
    let (_dir, workspace, config) = folders();
    let runtime = workspace.join(".test-runtime");
    let served = serve(&workspace, &config);
    let output = crate::switchboard_with(&workspace, &["pair"], &envs(&config, &runtime));
    assert!(output.status.success(), "{output:?}");
    let printed = String::from_utf8_lossy(&output.stdout);
    let link = printed
        .lines()
        .find(|line| line.starts_with(&format!("{}/pair?code=", served.origin)))
        .unwrap();
    let lines = qr_lines(&printed);
    assert!(lines.len() > 10, "a QR code is printed: {printed}");
    assert_eq!(
        read_qr(&drawn_on_a_dark_terminal(&lines)).as_deref(),
        Some(link),
        "a camera reads the link off a dark terminal"
    );
    let port = served.origin.rsplit(':').next().unwrap();
    assert!(
        printed.contains(&format!("ssh -N -L {port}:127.0.0.1:{port} "))
            && printed.contains("loopback")
            && printed.contains("--tls-self-signed"),
        "a loopback link says how a phone reaches it: {printed}"
    );
    assert!(
        printed.contains("reaches every workspace served to browsers on this machine"),
        "pairing says what a paired browser reaches: {printed}"
    );
}

#[test]
fn a_second_server_of_a_served_workspace_and_a_used_link_point_to_switchboard_pair() {
    let (_dir, workspace, config) = folders();
    let runtime = workspace.join(".test-runtime");
    let served = serve(&workspace, &config);
    let port = served.origin.rsplit(':').next().unwrap().to_owned();
    let listen = format!("127.0.0.1:{port}");
    for args in [
        vec!["serve", "--pair"],
        vec!["serve", "--listen", listen.as_str(), "--pair"],
        vec!["serve", "--listen", listen.as_str()],
    ] {
        let output = crate::switchboard_with(&workspace, &args, &envs(&config, &runtime));
        let said = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{args:?} is refused");
        assert!(
            said.contains("error[CONFLICT]")
                && said.contains("switchboard pair")
                && said.contains(&served.origin)
                && !said.contains("Address already in use"),
            "{args:?} points to the running server's `switchboard pair`: {said}"
        );
    }

    // The link used once: its page points to `switchboard pair` too.
    let path = link_path(&served);
    let (status, _, _) = request(&served.origin, "GET", &path, &[], "");
    assert_eq!(status, 200);
    let (status, _, body) = request(&served.origin, "GET", &path, &[], "");
    assert_eq!(status, 403);
    assert!(
        body.contains("switchboard pair") && !body.contains("serve --pair for"),
        "a used link says how to get another from the running server: {body}"
    );
}

#[test]
fn another_program_on_an_asked_port_is_refused_saying_how_to_choose_another() {
    let (_dir, workspace, config) = folders();
    let runtime = workspace.join(".test-runtime");
    // Another program holds a port: asked for by --listen, it is refused
    // in words with how to choose another.
    let holder = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let taken = holder.local_addr().unwrap().to_string();
    let output = crate::switchboard_with(
        &workspace,
        &["serve", "--listen", &taken],
        &envs(&config, &runtime),
    );
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success()
            && said.contains("error[CONFLICT]")
            && said.contains("--listen 127.0.0.1:0")
            && !said.contains("os error"),
        "{said}"
    );
}

#[test]
fn sessions_tell_two_phones_apart_by_what_they_are_and_when_they_were_last_seen() {
    let (_dir, workspace, config) = folders();
    let runtime = workspace.join(".test-runtime");
    let served = serve(&workspace, &config);
    let pixel = "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";
    let iphone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1";
    let second = crate::switchboard_with(&workspace, &["pair"], &envs(&config, &runtime));
    assert!(second.status.success());
    let second = String::from_utf8_lossy(&second.stdout).into_owned();
    let second = second
        .lines()
        .find(|line| line.contains("/pair?code="))
        .unwrap();
    let mut phones = Vec::new();
    for (link, agent) in [(served.link.as_str(), pixel), (second, iphone)] {
        let path = &link[link.find("/pair?").unwrap()..];
        let (status, headers, body) =
            request(&served.origin, "GET", path, &[("User-Agent", agent)], "");
        assert_eq!(status, 200, "{body}");
        assert!(
            body.contains("reaches every workspace") && !body.contains("(session "),
            "the pairing page says what a paired browser reaches: {body}"
        );
        phones.push(paired(header(&headers, "set-cookie").unwrap(), &body));
    }
    // Only the Pixel's page asks anything.
    let (status, _) = invoke(&served, &phones[0], "list_deliveries", &Value::Null);
    assert_eq!(status, 200);
    let output = crate::switchboard_with(
        &workspace,
        &["serve", "--sessions"],
        &[("SWITCHBOARD_CONFIG_DIR", config.as_path())],
    );
    let text = String::from_utf8_lossy(&output.stdout);
    let line_of = |what: &str| text.lines().find(|line| line.contains(what)).unwrap();
    let (pixel_line, iphone_line) = (line_of("Pixel"), line_of("iPhone"));
    assert!(
        pixel_line.contains("\tChrome 120 on Android 14 (Pixel 7)\t")
            && pixel_line.contains("last seen 20"),
        "{text}"
    );
    assert!(
        iphone_line.contains("\tSafari 17 on iPhone (iOS 17.1)\t")
            && iphone_line.contains("last seen never"),
        "{text}"
    );
    assert!(
        pixel_line.starts_with('b') && iphone_line.starts_with('b'),
        "the id first, as --revoke takes it: {text}"
    );
}
