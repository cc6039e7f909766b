//! A paired browser named in words from the `User-Agent` it paired with
//! ("Chrome 120 on Android 14 (Pixel 7)"), so a list of paired browsers
//! tells two phones apart without reading a user-agent string.

/// The browser and system `user_agent` names, in words; the text itself
/// when neither is recognised.
pub fn describe(user_agent: &str) -> String {
    let browser = browser(user_agent);
    let system = system(user_agent);
    match (browser, system) {
        (Some(browser), Some(system)) => format!("{browser} on {system}"),
        (Some(browser), None) => browser,
        (None, Some(system)) => format!("a browser on {system}"),
        (None, None) if user_agent.trim().is_empty() => "a browser that gave no name".to_owned(),
        (None, None) => user_agent.trim().chars().take(80).collect(),
    }
}

/// The browser and its major version.
fn browser(agent: &str) -> Option<String> {
    // Most specific first: Edge, Opera and Samsung's say Chrome too, and
    // every one of them says Safari.
    const KNOWN: [(&str, &str); 11] = [
        ("EdgA/", "Edge"),
        ("EdgiOS/", "Edge"),
        ("Edg/", "Edge"),
        ("SamsungBrowser/", "Samsung Internet"),
        ("OPR/", "Opera"),
        ("FxiOS/", "Firefox"),
        ("Firefox/", "Firefox"),
        ("CriOS/", "Chrome"),
        ("HeadlessChrome/", "Headless Chrome"),
        ("Chromium/", "Chromium"),
        ("Chrome/", "Chrome"),
    ];
    for (marker, name) in KNOWN {
        if let Some(version) = version_after(agent, marker) {
            return Some(format!("{name} {version}"));
        }
    }
    if agent.contains("Safari/") {
        return Some(match version_after(agent, "Version/") {
            Some(version) => format!("Safari {version}"),
            None => "Safari".to_owned(),
        });
    }
    None
}

/// The major version right after `marker`, if `agent` has it.
fn version_after(agent: &str, marker: &str) -> Option<String> {
    let rest = &agent[agent.find(marker)? + marker.len()..];
    let major: String = rest.chars().take_while(char::is_ascii_digit).collect();
    (!major.is_empty()).then_some(major)
}

/// The system (and a phone's model, when it gives one).
fn system(agent: &str) -> Option<String> {
    let inside = agent
        .find('(')
        .and_then(|start| agent[start + 1..].split(')').next())
        .unwrap_or_default();
    let parts: Vec<&str> = inside.split(';').map(str::trim).collect();
    if let Some(at) = parts.iter().position(|part| part.starts_with("Android")) {
        let android = parts[at];
        // Newer Chrome says only "K" for the model.
        return Some(match parts.get(at + 1) {
            Some(model) if !model.is_empty() && *model != "K" && !model.starts_with("wv") => {
                format!("{android} ({model})")
            }
            _ => android.to_owned(),
        });
    }
    for device in ["iPhone", "iPad", "iPod"] {
        if inside.starts_with(device) {
            let version = inside
                .split(" OS ")
                .nth(1)
                .and_then(|rest| rest.split_whitespace().next())
                .map(|version| format!(" (iOS {})", version.replace('_', ".")));
            return Some(format!("{device}{}", version.unwrap_or_default()));
        }
    }
    [
        ("CrOS", "ChromeOS"),
        ("Macintosh", "macOS"),
        ("Windows", "Windows"),
        ("Linux", "Linux"),
    ]
    .into_iter()
    .find(|(marker, _)| inside.contains(marker))
    .map(|(_, name)| name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_phones_and_a_laptop_read_apart_in_words() {
        for (agent, words) in [
            (
                "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.43 Mobile Safari/537.36",
                "Chrome 120 on Android 14 (Pixel 7)",
            ),
            (
                "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36",
                "Samsung Internet 23 on Android 10",
            ),
            (
                "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
                "Safari 17 on iPhone (iOS 17.1.2)",
            ),
            (
                "Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/119.0.6045.109 Mobile/15E148 Safari/604.1",
                "Chrome 119 on iPad (iOS 16.6)",
            ),
            (
                "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0",
                "Firefox 121 on Linux",
            ),
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.2210.61",
                "Edge 120 on Windows",
            ),
            (
                "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1.15",
                "Safari 17 on macOS",
            ),
            ("curl/8.5.0", "curl/8.5.0"),
            ("", "a browser that gave no name"),
        ] {
            assert_eq!(describe(agent), words, "{agent}");
        }
    }
}
