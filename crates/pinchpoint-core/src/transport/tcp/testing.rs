//! The TCP unit tests' set-up, shared by the sender/receiver tests (`tests.rs`) and the
//! connection set-up tests (`handshake/tests.rs`): 1000-byte segments, 40-byte headers and
//! acknowledgements, RFC 6298 timers with Linux's 200 ms minimum RTO, and an end of the
//! engine per side ([`crate::transport::testing::Harness`]).

use super::cc::{AnyCc, CcConfig, CcInit};
use super::receiver::{ReceiverSettings, TcpReceiver};
use super::sender::{SenderSettings, TcpSender};
use super::Recovery;
use crate::sim::{PS_PER_MS, PS_PER_S};
use crate::transport::credit::{AnyReceiverPolicy, ReceiverConfig, ReceiverInit};

/// Segment payload, bytes.
pub(crate) const MSS: u32 = 1000;

/// Sender settings with the given loss recovery (SACK on exactly for the recoveries that read it).
pub(crate) fn settings(recovery: Recovery, prr: bool) -> SenderSettings {
    SenderSettings {
        mss: MSS,
        header_bytes: 40,
        dupack_threshold: 3,
        packets_per_segment: 1,
        min_rto_ps: 200 * PS_PER_MS,
        initial_rto_ps: PS_PER_S,
        max_rto_ps: 60 * PS_PER_S,
        ecn: super::sender::EcnMode::Off,
        limited_transmit: true,
        priority: 0,
        sack: recovery.reads_sack(),
        recovery,
        prr,
        pacing: false,
        slow_start_after_idle: false,
    }
}

/// A NewReno sender of `total_bytes` with an initial window of `init_cwnd_pkts` segments.
pub(crate) fn sender(s: SenderSettings, init_cwnd_pkts: u32, total_bytes: u64) -> TcpSender {
    let cc = AnyCc::build(&CcConfig::default(), CcInit { mss: MSS, init_cwnd_pkts });
    TcpSender::new(s, cc, total_bytes)
}

/// Receiver settings: 40 ms delayed-ACK timeout, no ECN.
pub(crate) fn receiver_settings(delayed_ack: bool, sack: bool) -> ReceiverSettings {
    ReceiverSettings { ack_bytes: 40, delayed_ack, delack_timeout_ps: 40 * PS_PER_MS, ecn: false, mss: MSS, sack, dctcp_echo: false, dsack: false }
}

/// A receiver with `settings` that advertises an unlimited window.
pub(crate) fn receiver_with(settings: ReceiverSettings) -> TcpReceiver {
    let policy = AnyReceiverPolicy::build(&ReceiverConfig::Fixed(Default::default()), ReceiverInit { mss: MSS, max_window_bytes: None });
    TcpReceiver::new(settings, policy)
}

/// A receiver of [`receiver_settings`].
pub(crate) fn receiver(delayed_ack: bool, sack: bool) -> TcpReceiver {
    receiver_with(receiver_settings(delayed_ack, sack))
}
