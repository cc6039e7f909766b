//! `switchboard-floor`: the floor of Switchboard's start-up. One window
//! the size of the app's, one webview on a static page, on the same tao,
//! wry and WebKitGTK as the shell (compositing off, as the shell sets it),
//! reporting its phases and its first paint the way the app does: the page
//! posts after its first frame (`--protocol`: the page served by a custom
//! protocol, as a Tauri app's is), and the process prints
//! `floor: first paint N ms after start; phases: webview_created=… page_loaded=…`
//! on stderr, then exits — or, with `--stay`, stays open to be measured
//! idle. `make bench` times and measures it beside the app.

#![allow(clippy::disallowed_methods)] // Test and build code reads the files it made.
use std::{cell::RefCell, rc::Rc, time::Instant};

use tao::{
    dpi::LogicalSize,
    event::{Event, WindowEvent},
    event_loop::{ControlFlow, EventLoopBuilder},
    platform::unix::WindowExtUnix,
    window::WindowBuilder,
};
use wry::{PageLoadEvent, WebViewBuilder, WebViewBuilderExtUnix, WebViewExtUnix};

/// The page: one line of text, and word of its first frame.
const PAGE: &str = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>floor</title></head>\
<body><p>Switchboard's start-up floor.</p>\
<script>requestAnimationFrame(() => window.ipc.postMessage('painted'));</script></body></html>";

/// Why the floor could not run.
#[derive(Debug)]
enum Failure {
    Window(tao::error::OsError),
    Webview(wry::Error),
    NoContainer,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Window(error) => write!(f, "could not open the window: {error}"),
            Self::Webview(error) => write!(f, "could not create the webview: {error}"),
            Self::NoContainer => write!(f, "the window has no GTK container"),
        }
    }
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("floor: {failure}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Failure> {
    let started = Instant::now();
    let stay = std::env::args().any(|arg| arg == "--stay");
    // `--protocol`: the page served by a custom protocol, as a Tauri app
    // is served its own, instead of handed to the webview as a string.
    let protocol = std::env::args().any(|arg| arg == "--protocol");
    let event_loop = EventLoopBuilder::<()>::with_user_event().build();
    let proxy = event_loop.create_proxy();
    let window = WindowBuilder::new()
        .with_title("Switchboard floor")
        .with_inner_size(LogicalSize::new(1180.0, 760.0))
        .build(&event_loop)
        .map_err(Failure::Window)?;
    let phases = Rc::new(RefCell::new(Vec::<String>::new()));
    let loaded = Rc::clone(&phases);
    let painted = Rc::clone(&phases);
    let container = window.default_vbox().ok_or(Failure::NoContainer)?;
    let builder = if protocol {
        WebViewBuilder::new()
            .with_custom_protocol("floor".into(), |_, _request| {
                wry::http::Response::builder()
                    .header("Content-Type", "text/html")
                    .body(std::borrow::Cow::Borrowed(PAGE.as_bytes()))
                    .unwrap_or_else(|_| {
                        wry::http::Response::new(std::borrow::Cow::Borrowed(&[][..]))
                    })
            })
            .with_url("floor://localhost/")
    } else {
        WebViewBuilder::new().with_html(PAGE)
    };
    let webview = builder
        .with_on_page_load_handler(move |event, _| {
            if matches!(event, PageLoadEvent::Finished) {
                loaded
                    .borrow_mut()
                    .push(format!("page_loaded={}", started.elapsed().as_millis()));
            }
        })
        .with_ipc_handler(move |request| {
            if request.body() == "painted" {
                eprintln!(
                    "floor: first paint {} ms after start; phases: {}",
                    started.elapsed().as_millis(),
                    painted.borrow().join(" ")
                );
                if !stay {
                    let _ = proxy.send_event(());
                }
            }
        })
        .build_gtk(container)
        .map_err(Failure::Webview)?;
    phases.borrow_mut().insert(
        0,
        format!("webview_created={}", started.elapsed().as_millis()),
    );
    {
        use webkit2gtk::{HardwareAccelerationPolicy, SettingsExt as _, WebViewExt as _};
        if let Some(settings) = webview.webview().settings() {
            settings.set_hardware_acceleration_policy(HardwareAccelerationPolicy::Never);
        }
    }
    event_loop.run(move |event, _, control_flow| {
        *control_flow = ControlFlow::Wait;
        match event {
            Event::UserEvent(()) => *control_flow = ControlFlow::Exit,
            Event::WindowEvent {
                event: WindowEvent::CloseRequested,
                ..
            } => *control_flow = ControlFlow::Exit,
            _ => {}
        }
        // The loop owns the webview: it lives as long as the window.
        let _ = &webview;
    })
}
