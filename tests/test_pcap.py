"""pcapng export of captured ports, read back with dpkt (issue 16, Packets)."""

import struct

import pytest

import pinchpoint as pp

dpkt = pytest.importorskip("dpkt")


def lossy_ecn_run():
    s = pp.Scenario("cap", duration="1s")
    s.host("a").host("b").router("r")
    s.link("a", "r", rate="100Mbps", delay="1ms")
    s.link("r", "b", rate="5Mbps", delay="10ms", queue_ab={"kind": "droptail", "limit_pkts": 8},
           hooks_ab=[{"kind": "ce_threshold", "threshold_pkts": 4}])
    s.flow("f", "a", "b", cc="newreno", tcp={"ecn": True, "sack": True})
    s.metrics(capture=["r->b", "r->a"])
    return pp.run(s)


def test_pcapng_holds_every_transmitted_packet_with_seq_ecn_and_sack(tmp_path):
    r = lossy_ecn_run()
    cap = r.capture.to_pandas()
    data = cap[cap["port"] == "r->b"]
    acks = cap[cap["port"] == "r->a"]
    assert len(data) == r.port("r->b")["tx_pkts"] and len(acks) == r.port("r->a")["tx_pkts"]
    p = r.write_pcap("r->b", tmp_path / "data.pcapng")
    q = r.write_pcap("r->a", tmp_path / "acks.pcapng")

    with p.open("rb") as fh:
        rd = dpkt.pcapng.Reader(fh)
        assert rd.datalink() == 101
        got = [(ts, buf) for ts, buf in rd]
    assert len(got) == len(data)
    ce = 0
    for (ts, buf), (_, row) in zip(got, data.iterrows()):
        ip = dpkt.ip.IP(buf)
        assert abs(ts - row["t_ps"] * 1e-12) < 1e-9
        assert ip.len == row["size_bytes"] and ip.p == 6 and ip.src == bytes([10, 0, 0, 1])
        assert ip.dst == bytes([10, 0, 0, 2])
        hdr = bytes(buf[:20])
        s = sum(struct.unpack("!10H", hdr))
        while s >> 16:
            s = (s & 0xFFFF) + (s >> 16)
        assert s == 0xFFFF  # valid IPv4 header checksum
        assert ip.data.seq == row["seq"] % 2**32
        ce += (ip.tos & 3) == 3
    assert ce == int(data["ecn"].eq(3).sum()) and ce > 0

    with q.open("rb") as fh:
        acks_read = [dpkt.ip.IP(buf) for _, buf in dpkt.pcapng.Reader(fh)]
    sacked = 0
    for ip, (_, row) in zip(acks_read, acks.iterrows()):
        tcp = ip.data
        assert tcp.ack == row["ack"] % 2**32 and tcp.sport == 5001
        opts = dict(dpkt.tcp.parse_opts(tcp.opts))
        if dpkt.tcp.TCP_OPT_SACK in opts:
            sacked += 1
            first = struct.unpack("!II", opts[dpkt.tcp.TCP_OPT_SACK][:8])
            assert first == (row["sack0_start"] % 2**32, row["sack0_end"] % 2**32)
        assert bool(tcp.flags & dpkt.tcp.TH_ECE) == bool(row["flags"] & 2)
    assert sacked == int((acks["sack_blocks"] > 0).sum()) and sacked > 0


def test_capturing_an_unknown_port_is_refused_with_its_field():
    s = pp.Scenario("cap", duration="1s")
    s.host("a").host("b").link("a", "b", rate="1Mbps", delay="1ms").flow("f", "a", "b")
    s.metrics(capture=["a->c"])
    with pytest.raises(pp.ScenarioError, match=r"metrics.capture\[0\]: unknown port 'a->c'"):
        pp.run(s)
