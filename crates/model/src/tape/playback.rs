//! The Tapes view's player arithmetic: positions are how many of a tape's
//! frames are shown (0 = none, `frames.len()` = all); time is each
//! frame's recorded delay with idle stretches capped, divided by the
//! speed. Pure, so it is tested here and the view only wires it to keys,
//! buttons and a timer.

use super::view::TapeView;

/// The position just after exchange `exchange`'s output (the banner and
/// earlier exchanges shown too).
pub fn end_of(tape: &TapeView, exchange: usize) -> usize {
    tape.frames
        .iter()
        .filter(|frame| frame.exchange.is_none_or(|n| n <= exchange))
        .count()
}

/// The positions a step by exchange stops at: the start, the end of the
/// banner, the end of each exchange.
pub fn stops(tape: &TapeView) -> Vec<usize> {
    let banner = tape
        .frames
        .iter()
        .filter(|frame| frame.exchange.is_none())
        .count();
    let mut stops = vec![0, banner];
    stops.extend((0..tape.exchanges.len()).map(|n| end_of(tape, n)));
    stops.sort_unstable();
    stops.dedup();
    stops
}

/// The time (ms, each delay capped at `cap`) at which each position is
/// reached: one more entry than there are frames.
pub fn times(tape: &TapeView, cap: u64) -> Vec<u64> {
    let mut at = 0_u64;
    let mut times = Vec::with_capacity(tape.frames.len() + 1);
    times.push(0);
    for frame in &tape.frames {
        at = at.saturating_add(frame.delay_ms.min(cap));
        times.push(at);
    }
    times
}

/// Where a step from `pos` lands: one frame, or (`by_exchange`) the next
/// or previous stop, forward or back, within the tape.
pub fn step(tape: &TapeView, pos: usize, forward: bool, by_exchange: bool) -> usize {
    let end = tape.frames.len();
    match (by_exchange, forward) {
        (false, true) => (pos + 1).min(end),
        (false, false) => pos.saturating_sub(1),
        (true, true) => stops(tape)
            .into_iter()
            .find(|stop| *stop > pos)
            .unwrap_or(end),
        (true, false) => stops(tape)
            .into_iter()
            .rev()
            .find(|stop| *stop < pos)
            .unwrap_or(0),
    }
}

/// The position shown at `wanted` ms on the capped clock: the last one
/// reached by then.
pub fn seek(tape: &TapeView, cap: u64, wanted: u64) -> usize {
    times(tape, cap)
        .iter()
        .filter(|at| **at <= wanted)
        .count()
        .saturating_sub(1)
}

/// How long to wait before showing a frame recorded `delay_ms` after the
/// previous one, idle capped at `cap`, at `speed` (a speed of zero or
/// less plays as fast as it can).
pub fn wait_ms(delay_ms: u64, cap: u64, speed: f64) -> u64 {
    let capped = delay_ms.min(cap) as f64;
    if speed > 0.0 {
        (capped / speed).round() as u64
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;
    use crate::tape::view::{ExchangeView, Frame, TapeSummary};

    /// A banner of two reads, then exchanges of one and two reads.
    fn tape() -> TapeView {
        let frame = |exchange: Option<usize>, delay_ms: u64| Frame {
            exchange,
            delay_ms,
            text: "x".into(),
        };
        let exchange = || ExchangeView {
            prompt: "> ".into(),
            input: "ls⏎".into(),
            raw: false,
            output: String::new(),
            note: String::new(),
            exit: None,
        };
        TapeView {
            summary: TapeSummary {
                id: "t".into(),
                program: "sh".into(),
                name: "t".into(),
                args: Vec::new(),
                exchanges: 2,
                duration_ms: 0,
                exit: None,
                tag: None,
                created_at: String::new(),
                redacted: None,
            },
            cols: 80,
            rows: 24,
            exchanges: vec![exchange(), exchange()],
            frames: vec![
                frame(None, 10),
                frame(None, 9000),
                frame(Some(0), 100),
                frame(Some(1), 20),
                frame(Some(1), 3000),
            ],
        }
    }

    #[test]
    fn steps_by_read_and_by_exchange_stay_in_the_tape() {
        let tape = tape();
        assert_eq!(stops(&tape), [0, 2, 3, 5]);
        assert_eq!(end_of(&tape, 0), 3);
        assert_eq!(step(&tape, 0, true, false), 1);
        assert_eq!(step(&tape, 5, true, false), 5, "not past the end");
        assert_eq!(step(&tape, 0, false, false), 0, "not before the start");
        assert_eq!(step(&tape, 1, true, true), 2, "the end of the banner");
        assert_eq!(step(&tape, 3, true, true), 5);
        assert_eq!(step(&tape, 5, true, true), 5);
        assert_eq!(step(&tape, 4, false, true), 3);
        assert_eq!(step(&tape, 2, false, true), 0);
    }

    #[test]
    fn idle_time_is_capped_and_seeking_finds_the_frame_shown() {
        let tape = tape();
        assert_eq!(times(&tape, 2000), [0, 10, 2010, 2110, 2130, 4130]);
        assert_eq!(times(&tape, u64::MAX), [0, 10, 9010, 9110, 9130, 12130]);
        assert_eq!(seek(&tape, 2000, 0), 0);
        assert_eq!(seek(&tape, 2000, 2109), 2);
        assert_eq!(seek(&tape, 2000, 2110), 3);
        assert_eq!(seek(&tape, 2000, u64::MAX), 5);
        assert_eq!(wait_ms(9000, 2000, 2.0), 1000);
        assert_eq!(wait_ms(100, 2000, 0.5), 200);
        assert_eq!(wait_ms(100, 2000, 0.0), 0);
    }
}
