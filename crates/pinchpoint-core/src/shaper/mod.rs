//! Per-flow shapers between a transport and its host's NIC.
pub mod token_bucket;
pub mod wtp;
pub use token_bucket::TokenBucket;
