//! One module per view of the window.

pub mod coming;
pub mod inbox;
