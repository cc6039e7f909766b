//! A terminal drawn in the page: avt's screen as rows of styled spans —
//! colours, bold, italic, underline, inverse, the cursor — for the Tapes
//! player and the Terminals view alike.

use avt::{Color, Pen};
use leptos::prelude::*;

/// The rows of `terminal`'s screen, each a list of (text, CSS style) runs;
/// the cursor's cell is its own run with style ending in `cursor`.
pub fn styled_rows(terminal: &avt::Terminal) -> Vec<Vec<(String, String)>> {
    let cursor = terminal.cursor();
    terminal
        .screen()
        .visible_lines()
        .enumerate()
        .map(|(row, line)| {
            let mut runs: Vec<(String, String)> = Vec::new();
            for (col, cell) in line.cells().iter().enumerate() {
                if cell.width() == 0 {
                    continue;
                }
                let mut style = css(cell.pen());
                if cursor.visible && cursor.row == row && cursor.col == col {
                    style.push_str("cursor");
                }
                match runs.last_mut() {
                    Some((text, last)) if *last == style => text.push(cell.char()),
                    _ => runs.push((cell.char().to_string(), style)),
                }
            }
            runs
        })
        .collect()
}

/// xterm's 16 colours.
const BASIC: [(u8, u8, u8); 16] = [
    (0, 0, 0),
    (205, 0, 0),
    (0, 205, 0),
    (205, 205, 0),
    (0, 0, 238),
    (205, 0, 205),
    (0, 205, 205),
    (229, 229, 229),
    (127, 127, 127),
    (255, 0, 0),
    (0, 255, 0),
    (255, 255, 0),
    (92, 92, 255),
    (255, 0, 255),
    (0, 255, 255),
    (255, 255, 255),
];

fn rgb(color: Color) -> String {
    let (r, g, b) = match color {
        Color::RGB(rgb) => (rgb.r, rgb.g, rgb.b),
        Color::Indexed(n) if n < 16 => BASIC[usize::from(n)],
        Color::Indexed(n) if n < 232 => {
            let n = n - 16;
            let level = |v: u8| if v == 0 { 0 } else { 55 + v * 40 };
            (level(n / 36), level((n / 6) % 6), level(n % 6))
        }
        Color::Indexed(n) => {
            let gray = 8 + (n - 232) * 10;
            (gray, gray, gray)
        }
    };
    format!("rgb({r},{g},{b})")
}

/// A pen as inline CSS (empty for the default pen).
fn css(pen: &Pen) -> String {
    let (mut fg, mut bg) = (pen.foreground(), pen.background());
    if pen.is_inverse() {
        std::mem::swap(&mut fg, &mut bg);
        fg = fg.or(Some(Color::Indexed(0)));
        bg = bg.or(Some(Color::Indexed(7)));
    }
    let mut style = String::new();
    if let Some(fg) = fg {
        style.push_str(&format!("color:{};", rgb(fg)));
    }
    if let Some(bg) = bg {
        style.push_str(&format!("background:{};", rgb(bg)));
    }
    if pen.is_bold() {
        style.push_str("font-weight:bold;");
    }
    if pen.is_faint() {
        style.push_str("opacity:.7;");
    }
    if pen.is_italic() {
        style.push_str("font-style:italic;");
    }
    if pen.is_underline() {
        style.push_str("text-decoration:underline;");
    }
    if pen.is_strikethrough() {
        style.push_str("text-decoration:line-through;");
    }
    style
}

/// Draws `rows` (see [`styled_rows`]).
#[component]
pub fn Rows(rows: Vec<Vec<(String, String)>>) -> impl IntoView {
    rows.into_iter()
        .map(|runs| {
            let runs = runs
                .into_iter()
                .map(|(text, style)| match style.strip_suffix("cursor") {
                    Some(style) => {
                        view! { <span class="tape-cursor" style=style.to_owned()>{text}</span> }
                            .into_any()
                    }
                    None if style.is_empty() => view! { <span>{text}</span> }.into_any(),
                    None => view! { <span style=style>{text}</span> }.into_any(),
                })
                .collect_view();
            view! { <div class="tape-row">{runs}</div> }
        })
        .collect_view()
}
