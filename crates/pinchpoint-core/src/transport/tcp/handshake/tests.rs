//! Exact timelines of the connection set-up, driven through `TcpConnection` with a scripted
//! wire: every packet takes `ONE_WAY` to cross, chosen packets are lost.

use super::super::testing::{receiver_settings, receiver_with, sender, settings, MSS};
use super::super::sender::SenderSettings;
use super::super::receiver::ReceiverSettings;
use super::super::{Recovery, TcpConnection};
use super::*;
use crate::sim::PS_PER_MS;
use crate::transport::testing::Harness;
use crate::transport::{Transport, NEVER, TIMER_SLOTS};

const ONE_WAY: SimTime = 50 * PS_PER_MS;
const RTT: SimTime = 2 * ONE_WAY;

/// A NewReno connection without SACK carrying `segments` segments; `ect_on_syn` also turns
/// ECN on at both ends.
fn connection(segments: u64, syn_retries: u32, ect_on_syn: bool) -> TcpConnection {
    let sender = sender(SenderSettings { ecn: if ect_on_syn { crate::transport::tcp::sender::EcnMode::Rfc3168 } else { crate::transport::tcp::sender::EcnMode::Off }, ..settings(Recovery::NewReno, false) }, 10, segments * MSS as u64);
    let receiver = receiver_with(ReceiverSettings { ecn: ect_on_syn, ..receiver_settings(false, false) });
    let hs = HandshakeSettings { syn_bytes: 40, ect_on_syn, initial_rto_ps: PS_PER_S, max_rto_ps: 60 * PS_PER_S, syn_retries, priority: 0 };
    TcpConnection { sender, receiver, handshake: Some(Box::new(Handshake::new(hs))) }
}

/// What happened on the scripted wire.
#[derive(Default)]
struct Timeline {
    /// Send times of SYNs.
    syns: Vec<SimTime>,
    /// Send times of SYN-ACKs.
    syn_acks: Vec<SimTime>,
    /// Send time of the first data segment.
    first_data: Option<SimTime>,
    /// The ECN codepoint of every SYN and SYN-ACK.
    setup_ecn: Vec<Ecn>,
    /// Time of the last event handled.
    last_event: SimTime,
}

/// Runs a connection for up to `until`: the `lose_syns` first SYNs and the `lose_syn_acks`
/// first SYN-ACKs are lost, everything else arrives after `ONE_WAY`.
fn run(c: &mut TcpConnection, lose_syns: u32, lose_syn_acks: u32, until: SimTime) -> Timeline {
    let mut tl = Timeline::default();
    let mut h = Harness::new("handshake");
    // In flight: (arrival time, packet).
    let mut wire: Vec<(SimTime, Packet)> = Vec::new();
    let (mut syns_seen, mut syn_acks_seen) = (0, 0);
    let mut now = 0;
    let mut first = true;
    loop {
        {
            let mut ctx = h.ctx(now);
            if first {
                c.on_start(&mut ctx);
                first = false;
            } else if let Some(i) = wire.iter().position(|(t, _)| *t == now) {
                let (_, p) = wire.remove(i);
                c.on_packet(&p, &mut ctx);
            } else if let Some(k) = (0..TIMER_SLOTS).find(|&k| ctx.timers[k] == now) {
                ctx.timers[k] = NEVER;
                c.on_timer(k as u8, &mut ctx);
            }
        }
        tl.last_event = now;
        // `TcpConnection::on_timer` reads the sender's flag instead of the boxed handshake: the
        // two must agree after every event, whatever is lost.
        assert_eq!(c.sender.is_started(), c.handshake.as_ref().is_some_and(|h| h.is_established()), "at {now} ps");
        for (p, _) in h.out.drain(..) {
            let setup = p.flags & flags::SETUP != 0;
            match (p.kind, setup) {
                (PacketKind::Control, true) => {
                    tl.syns.push(now);
                    tl.setup_ecn.push(p.ecn);
                    syns_seen += 1;
                    if syns_seen <= lose_syns {
                        continue;
                    }
                }
                (PacketKind::Ack, true) => {
                    tl.syn_acks.push(now);
                    tl.setup_ecn.push(p.ecn);
                    syn_acks_seen += 1;
                    if syn_acks_seen <= lose_syn_acks {
                        continue;
                    }
                }
                (PacketKind::Data, _) => {
                    tl.first_data.get_or_insert(now);
                }
                _ => {}
            }
            wire.push((now + ONE_WAY, p));
        }
        let next_pkt = wire.iter().map(|(t, _)| *t).min().unwrap_or(NEVER);
        let next_timer = h.timers.deadlines().min().unwrap_or(NEVER);
        let next = next_pkt.min(next_timer);
        if next == NEVER || next > until || c.is_complete() {
            return tl;
        }
        now = next;
    }
}

#[test]
fn data_starts_one_round_trip_after_the_syn_when_nothing_is_lost() {
    let mut c = connection(5, 6, false);
    let tl = run(&mut c, 0, 0, 10 * PS_PER_S);
    assert_eq!(tl.syns, vec![0]);
    assert_eq!(tl.syn_acks, vec![ONE_WAY]);
    assert_eq!(tl.first_data, Some(RTT));
    let r = c.report();
    assert_eq!(r.handshake, Some(HandshakeReport { established_after_ps: Some(RTT), syn_retransmits: 0, failed: false }));
    // RFC 6298 s2.2: the handshake's round trip is the first sample: SRTT = R, RTO = 3R,
    // clamped below by min_rto (200 ms): here 300 ms.
    assert_eq!(r.rtt_samples, 1 + 5, "the SYN's sample plus one per acknowledgement");
    assert!(c.is_complete());
}

#[test]
fn the_first_sample_sets_the_rto_before_any_data_is_acknowledged() {
    let mut c = connection(5, 6, false);
    // Stop right after the SYN-ACK: the data's RTO comes from the handshake RTT alone.
    run(&mut c, 0, 0, RTT);
    assert_eq!(c.sender.srtt_ps(), RTT);
    assert_eq!(c.sender.rto_ps(), 3 * RTT);
}

#[test]
fn a_syn_lost_twice_is_resent_at_1_and_3_s_and_data_starts_at_3_s_plus_one_rtt() {
    let mut c = connection(5, 6, false);
    let tl = run(&mut c, 2, 0, 60 * PS_PER_S);
    assert_eq!(tl.syns, vec![0, PS_PER_S, 3 * PS_PER_S]);
    assert_eq!(tl.first_data, Some(3 * PS_PER_S + RTT));
    let h = c.report().handshake.unwrap();
    assert_eq!(h.established_after_ps, Some(3 * PS_PER_S + RTT));
    assert_eq!(h.syn_retransmits, 2);
    // Karn: no sample from the retransmitted SYN, one per acknowledgement of data.
    assert_eq!(c.report().rtt_samples, 5);
}

#[test]
fn a_syn_lost_three_times_delays_data_by_1_plus_2_plus_4_s_plus_one_rtt_and_the_rto_starts_at_3_s() {
    let mut c = connection(5, 6, false);
    let tl = run(&mut c, 3, 0, 7 * PS_PER_S + RTT);
    assert_eq!(tl.syns, vec![0, PS_PER_S, 3 * PS_PER_S, 7 * PS_PER_S]);
    assert_eq!(tl.first_data, Some(7 * PS_PER_S + RTT));
    assert_eq!(c.sender.rto_ps(), RTO_AFTER_SYN_TIMEOUT_PS);
}

#[test]
fn a_lost_syn_ack_is_repaired_by_the_retransmitted_syn() {
    let mut c = connection(5, 6, false);
    let tl = run(&mut c, 0, 1, 60 * PS_PER_S);
    assert_eq!(tl.syns, vec![0, PS_PER_S]);
    assert_eq!(tl.syn_acks, vec![ONE_WAY, PS_PER_S + ONE_WAY]);
    assert_eq!(tl.first_data, Some(PS_PER_S + RTT));
    assert_eq!(c.report().handshake.unwrap().syn_retransmits, 1);
}

#[test]
fn after_six_retries_the_attempt_fails_at_127_s_and_no_data_is_sent() {
    let mut c = connection(5, 6, false);
    // Linux's TCP_RTO_MAX (120 s) leaves the last 64 s timeout whole.
    if let Some(h) = c.handshake.as_mut() {
        h.s.max_rto_ps = 120 * PS_PER_S;
    }
    let tl = run(&mut c, u32::MAX, 0, 1000 * PS_PER_S);
    // Linux tcp_syn_retries = 6 with a 1 s initial RTO: SYNs at 0, 1, 3, 7, 15, 31, 63 s.
    let s = PS_PER_S;
    assert_eq!(tl.syns, vec![0, s, 3 * s, 7 * s, 15 * s, 31 * s, 63 * s]);
    assert_eq!(tl.first_data, None);
    assert_eq!(tl.last_event, 127 * s, "the last SYN's 64 s timeout ends the attempt");
    assert_eq!(c.handshake.as_ref().unwrap().state(), OpenState::Failed);
    let h = c.report().handshake.unwrap();
    assert_eq!(h, HandshakeReport { established_after_ps: None, syn_retransmits: 6, failed: true });
    assert!(!c.is_complete());
}

#[test]
fn the_backed_off_syn_timeout_is_capped_at_max_rto() {
    let mut c = connection(5, 10, false);
    if let Some(h) = c.handshake.as_mut() {
        h.s.max_rto_ps = 5 * PS_PER_S;
    }
    let tl = run(&mut c, u32::MAX, 0, 1000 * PS_PER_S);
    let s = PS_PER_S;
    assert_eq!(&tl.syns[..6], &[0, s, 3 * s, 7 * s, 12 * s, 17 * s]);
}

#[test]
fn syn_and_syn_ack_carry_ect_only_with_ect_on_syn() {
    for ect in [false, true] {
        let mut c = connection(2, 6, ect);
        let tl = run(&mut c, 0, 0, 10 * PS_PER_S);
        let want = if ect { Ecn::Ect } else { Ecn::NotEct };
        assert_eq!(tl.setup_ecn, vec![want, want]);
    }
}

#[test]
fn with_the_default_60_s_max_rto_the_last_syn_timeout_is_cut_to_60_s() {
    let mut c = connection(5, 6, false);
    let tl = run(&mut c, u32::MAX, 0, 1000 * PS_PER_S);
    assert_eq!(tl.last_event, 123 * PS_PER_S);
    assert!(c.report().handshake.unwrap().failed);
}
