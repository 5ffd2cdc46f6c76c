//! The engine: simulation time, the event queue and seeded random streams.
pub mod dary_heap;
pub mod event;
pub mod huge_pages;
pub mod link_heap;
pub mod math;
pub mod prefetch;
pub mod rng;
pub mod time;
pub mod timer_wheel;
pub mod units;

pub use event::{Event, EventQueue};
pub use rng::SimRng;
pub use time::*;
