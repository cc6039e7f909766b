//! The player: the terminal at a position (how many of the tape's frames
//! are shown), moved by a timer while playing (each read's recorded delay,
//! idle time capped, divided by the speed), by the scrub bar, by steps of
//! one read or one exchange either way, and by jumps to an exchange.
//! Keys: Space plays or pauses, ← → step a read, Shift+← → an exchange.

use std::time::Duration;

use leptos::{ev, prelude::*};
use switchboard_model::tape::playback::{self, end_of, times};

use super::{TapesState, marked, minutes, screen::Screen};
use crate::views::terminal::Rows;
use crate::{ipc, kept::KeptText, tasks, views::composer::Composer};

/// The speeds offered.
const SPEEDS: [f64; 5] = [0.5, 1.0, 2.0, 4.0, 8.0];
/// The idle caps offered, in ms (`u64::MAX`: none).
const CAPS: [(u64, &str); 4] = [
    (500, "0.5 s"),
    (2000, "2 s"),
    (5000, "5 s"),
    (u64::MAX, "none"),
];

/// The player's own state: whether it plays, at which speed, idle time
/// capped at how much; and the moves every control makes.
#[derive(Clone, Copy)]
struct Playback {
    state: TapesState,
    playing: RwSignal<bool>,
    speed: RwSignal<f64>,
    cap: RwSignal<u64>,
}

impl Playback {
    /// How many frames the open tape has.
    fn len(self) -> usize {
        self.state
            .tape
            .with_untracked(|tape| tape.as_ref().map_or(0, |t| t.frames.len()))
    }

    /// One read, or one exchange, back or forward.
    fn step(self, forward: bool, by_exchange: bool) {
        self.playing.set(false);
        let pos = self.state.pos.get_untracked();
        let target = self.state.tape.with_untracked(|tape| {
            tape.as_ref()
                .map(|tape| playback::step(tape, pos, forward, by_exchange))
        });
        if let Some(target) = target {
            self.state.pos.set(target);
            self.state.selected.set(None);
        }
    }

    /// Plays or pauses (from the start again once at the end).
    fn toggle(self) {
        if !self.playing.get_untracked() && self.state.pos.get_untracked() >= self.len() {
            self.state.pos.set(0);
        }
        self.playing.update(|on| *on = !*on);
    }

    /// Where the position is and the whole length, in ms of play.
    fn clock(self) -> Option<(u64, u64)> {
        let cap = self.cap.get();
        self.state.tape.with(|tape| {
            tape.as_ref().map(|tape| {
                let times = times(tape, cap);
                let now = times.get(self.state.pos.get()).copied().unwrap_or(0);
                (now, times.last().copied().unwrap_or(0))
            })
        })
    }

    /// To `wanted` ms of play.
    fn seek(self, wanted: u64) {
        self.playing.set(false);
        let cap = self.cap.get_untracked();
        let pos = self
            .state
            .tape
            .with_untracked(|tape| tape.as_ref().map(|tape| playback::seek(tape, cap, wanted)));
        if let Some(pos) = pos {
            self.state.pos.set(pos);
        }
    }
}

/// The player of the open tape: its timer and keys live as long as it.
#[component]
pub fn Player(state: TapesState) -> impl IntoView {
    let play = Playback {
        state,
        playing: RwSignal::new(false),
        speed: RwSignal::new(1.0_f64),
        cap: RwSignal::new(2000_u64),
    };
    let timer = StoredValue::new(None::<TimeoutHandle>);
    let stop_timer = move || {
        if let Some(handle) = timer.try_update_value(Option::take).flatten() {
            handle.clear();
        }
    };
    Effect::new(move |_| {
        let (on, pos) = (play.playing.get(), state.pos.get());
        let (speed, cap) = (play.speed.get(), play.cap.get());
        stop_timer();
        if !on {
            return;
        }
        let Some(delay) = state.tape.with_untracked(|tape| {
            tape.as_ref()
                .and_then(|tape| tape.frames.get(pos).map(|frame| frame.delay_ms))
        }) else {
            play.playing.set(false);
            return;
        };
        let wait = playback::wait_ms(delay, cap, speed);
        let handle = set_timeout_with_handle(
            move || state.pos.update(|pos| *pos += 1),
            Duration::from_millis(wait),
        );
        timer.set_value(handle.ok());
    });
    on_cleanup(stop_timer);
    let keys = window_event_listener(ev::keydown, move |event| {
        let typing = event
            .target()
            .and_then(|target| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(target).ok())
            .is_some_and(|element| {
                matches!(element.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
            });
        if typing {
            return;
        }
        match event.key().as_str() {
            " " => play.toggle(),
            "ArrowLeft" => play.step(false, event.shift_key()),
            "ArrowRight" => play.step(true, event.shift_key()),
            _ => return,
        }
        event.prevent_default();
    });
    on_cleanup(move || keys.remove());
    view! {
        <Controls play />
        <PlayerScreen state />
        <ExchangeList play />
    }
}

/// The toolbar: steps, play, the scrub bar and time, speed, idle cap, and
/// the export of a tapes folder's tape.
#[component]
fn Controls(play: Playback) -> impl IntoView {
    let state = play.state;
    let exported = RwSignal::new(None::<String>);
    let export = move |_| {
        let Some(id) = state
            .tape
            .with_untracked(|tape| tape.as_ref().map(|t| t.summary.id.clone()))
        else {
            return;
        };
        tasks::act(async move {
            match ipc::tape_export_cast(&id).await {
                Ok(path) => exported.set(Some(path)),
                Err(failure) => state.error.set(Some(failure.message)),
            }
        });
    };
    view! {
        <div class="tape-controls" role="toolbar" aria-label="Player">
            <button id="tape-back-exchange" title="Back one exchange (Shift+←)" on:click=move |_| play.step(false, true)>"◀◀"</button>
            <button id="tape-back-chunk" title="Back one read (←)" on:click=move |_| play.step(false, false)>"◀"</button>
            <button id="tape-play" title="Play or pause (Space)" on:click=move |_| play.toggle()>
                {move || if play.playing.get() { "Pause" } else { "Play" }}
            </button>
            <button id="tape-forward-chunk" title="Forward one read (→)" on:click=move |_| play.step(true, false)>"▶"</button>
            <button id="tape-forward-exchange" title="Forward one exchange (Shift+→)" on:click=move |_| play.step(true, true)>"▶▶"</button>
            <input
                id="tape-scrub"
                type="range"
                min="0"
                aria-label="Position"
                prop:max=move || play.clock().map_or(0, |(_, total)| total).to_string()
                prop:value=move || play.clock().map_or(0, |(now, _)| now).to_string()
                on:input=move |event| {
                    if let Ok(wanted) = event_target_value(&event).parse::<u64>() {
                        play.seek(wanted);
                    }
                }
            />
            <span id="tape-time" class="muted">
                {move || play.clock().map(|(now, total)| format!("{} / {}", minutes(now), minutes(total)))}
            </span>
            <label>
                "Speed "
                <select id="tape-speed" on:change=move |event| {
                    if let Ok(chosen) = event_target_value(&event).parse() {
                        play.speed.set(chosen);
                    }
                }>
                    {SPEEDS.map(|s| view! { <option value=s.to_string() selected=s == 1.0>{format!("{s}×")}</option> }).collect_view()}
                </select>
            </label>
            <label>
                "Idle at most "
                <select id="tape-idle" on:change=move |event| {
                    if let Ok(chosen) = event_target_value(&event).parse() {
                        play.cap.set(chosen);
                    }
                }>
                    {CAPS.map(|(ms, label)| view! { <option value=ms.to_string() selected=ms == 2000>{label}</option> }).collect_view()}
                </select>
            </label>
            <button id="tape-export" title="Write the tape as asciicast v3 beside it" hidden=!state.files on:click=export>"Export .cast"</button>
        </div>
        {move || exported.get().map(|path| view! { <p class="muted" id="tape-exported" role="status">{format!("Written: {path}")}</p> })}
    }
}

/// The terminal at the position: fed forward from the last screen, rebuilt
/// when stepping back.
#[component]
fn PlayerScreen(state: TapesState) -> impl IntoView {
    let cache = StoredValue::new_local(None::<Screen>);
    let screen_rows = move || {
        let pos = state.pos.get();
        state.tape.with(|tape| {
            let tape = tape.as_ref()?;
            let screen = Screen::at(cache.try_update_value(Option::take).flatten(), tape, pos);
            let (rows, text) = (screen.rows(), screen.text());
            cache.set_value(Some(screen));
            Some((rows, text))
        })
    };
    move || {
        screen_rows().map(|(rows, text)| {
            view! {
                <pre id="tape-screen" class="tape-screen" data-text=text aria-label="Terminal"><Rows rows /></pre>
            }
        })
    }
}

/// The exchanges: each a jump to the terminal after it, its output, and
/// (a tapes folder's tape) its note.
#[component]
fn ExchangeList(play: Playback) -> impl IntoView {
    let state = play.state;
    let current = Memo::new(move |_| {
        let pos = state.pos.get();
        state.tape.with(|tape| {
            tape.as_ref()
                .and_then(|tape| pos.checked_sub(1).and_then(|last| tape.frames.get(last)))
                .and_then(|frame| frame.exchange)
        })
    });
    view! {
        <ol class="tape-exchanges">
            {move || state.tape.with(|tape| tape.as_ref().map(|tape| {
                let highlight = state.highlight.get();
                tape.exchanges
                    .iter()
                    .enumerate()
                    .map(|(n, exchange)| {
                        let end = end_of(tape, n);
                        let output: String = exchange.output.chars().take(400).collect();
                        view! {
                            <li
                                class="exchange"
                                data-index=n.to_string()
                                class:selected=move || state.selected.get() == Some(n)
                                class:current=move || current.get() == Some(n)
                            >
                                <button class="exchange-jump" title="Show the terminal after this exchange" on:click=move |_| {
                                    play.playing.set(false);
                                    state.selected.set(Some(n));
                                    state.pos.set(end);
                                }>
                                    <span class="muted">{exchange.prompt.clone()}</span>
                                    <code>{marked(&exchange.input, &highlight)}</code>
                                    {exchange.raw.then(|| view! { <span class="badge">"raw"</span> })}
                                    {exchange.exit.clone().map(|exit| view! { <span class="badge">{exit}</span> })}
                                </button>
                                <pre class="exchange-output">{marked(&output, &highlight)}</pre>
                                {state.files.then(|| view! { <Note state index=n note=exchange.note.clone() /> })}
                            </li>
                        }
                    })
                    .collect_view()
            }))}
        </ol>
    }
}

/// The note on one exchange, kept in its `annotations`. An unsaved edit
/// is the window's ([`KeptText`]) until it is saved: the tape read again
/// (another process noting it), opened again or the view left, it is still
/// there.
#[component]
fn Note(state: TapesState, index: usize, note: String) -> impl IntoView {
    let tape = state
        .tape
        .with_untracked(|tape| tape.as_ref().map(|t| t.summary.id.clone()))
        .unwrap_or_default();
    let kept = KeptText::new(format!("tape-note:{tape}:{index}"), note.clone());
    let draft = kept.text;
    let saved = RwSignal::new(note);
    let save = move || {
        let Some(id) = state
            .tape
            .with_untracked(|tape| tape.as_ref().map(|t| t.summary.id.clone()))
        else {
            return;
        };
        let text = draft.get_untracked();
        tasks::act(async move {
            match ipc::tape_note(&id, index, &text).await {
                Ok(()) => {
                    kept.forget();
                    saved.try_set(text);
                }
                Err(failure) => state.error.set(Some(failure.message)),
            }
        });
    };
    view! {
        <div class="exchange-note">
            <Composer
                rows=1
                placeholder="Note (Ctrl+Enter saves)"
                label=format!("Note on exchange {}", index + 1)
                text=draft
                on_submit=move |()| save()
            />
            <button class="exchange-note-save" disabled=move || draft.get() == saved.get() on:click=move |_| save()>"Save note"</button>
        </div>
    }
}
