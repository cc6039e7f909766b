//! The window's page's program: starts the app (`switchboard_ui::start`).

fn main() {
    switchboard_ui::start();
}
