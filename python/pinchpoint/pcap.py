"""Packet captures: the packets a port transmitted, as a pcapng file for Wireshark and tshark.

Record with ``metrics.capture = ["r1->r2"]`` in a scenario (or ``pinchpoint run FILE --pcap
r1->r2``); the simulator keeps the header fields of every packet the port starts to transmit
(``Results.capture``), and :func:`write_pcapng` writes them as one pcapng file per port.

What the file holds (raw IPv4 framing, ``LINKTYPE_RAW``, nanosecond timestamps of simulated
time at the start of transmission):

- IPv4 header: node ``i`` of the scenario's ``nodes`` list is ``10.x.y.z`` with ``x.y.z`` the
  number ``i + 1``; total length is the packet's size on the wire (``size_bytes``); the ECN field
  is the packet's codepoint (ECT(0) for ECN-capable, CE); DF set, TTL 64, a valid header checksum.
- TCP header: the sender's port is ``10000 + flow index``, the receiver's ``5001``; data
  segments carry their sequence number (mod 2^32) and ACK 1, acknowledgements sequence 1 and the
  cumulative acknowledgement; flags ACK, plus ECE and CWR from the packet; window is the
  advertised window in bytes, capped at 65535 (no SYN announces a window scale); options:
  timestamps (TSval = send time, TSecr = echoed time, both in microseconds mod 2^32) and SACK
  blocks (absolute sequence numbers). UDP datagrams get a UDP header with those ports.
- Only the headers are captured (like ``tcpdump -s``): the captured length is the header
  length, the original length the size on the wire; checksums of TCP and UDP are left at 0 (the
  payload is not stored), which Wireshark does not check by default.

The simulation has no handshake, so Wireshark's "relative sequence numbers" start at the first
segment it sees. A capture keeps a copy of every transmitted packet in memory until the run
ends: capture the ports you need, for the time you need.
"""

from __future__ import annotations

import struct
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .results import Results

LINKTYPE_RAW = 101
DATA, ACK, CONTROL = 0, 1, 2
_ECE, _CWR = 1 << 1, 1 << 2  # Packet::flags bits (net/packet.rs)
_ECN_FIELD = {0: 0b00, 1: 0b10, 3: 0b11}  # NotEct, Ect -> ECT(0), Ce
SERVER_PORT = 5001


def _block(block_type: int, body: bytes) -> bytes:
    body += b"\0" * (-len(body) % 4)
    n = len(body) + 12
    return struct.pack("<II", block_type, n) + body + struct.pack("<I", n)


def _option(code: int, value: bytes) -> bytes:
    return struct.pack("<HH", code, len(value)) + value + b"\0" * (-len(value) % 4)


def _ip(i: int) -> bytes:
    n = i + 1
    return bytes([10, (n >> 16) & 255, (n >> 8) & 255, n & 255])


def _checksum(b: bytes) -> int:
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def packet_bytes(row: dict, src_ip: bytes, dst_ip: bytes, sport: int, dport: int, udp: bool, ident: int) -> bytes:
    """IPv4 + TCP/UDP headers of one captured packet (a row of ``Results.capture``)."""
    size = int(row["size_bytes"])
    if udp:
        l4 = struct.pack("!HHHH", sport, dport, max(size - 20, 8) & 0xFFFF, 0)
        proto = 17
    else:
        opts = b"\x01\x01" + struct.pack("!BBII", 8, 10, (int(row["sent_at_ps"]) // 1_000_000) & 0xFFFFFFFF,
                                         (int(row["ts_echo_ps"]) // 1_000_000) & 0xFFFFFFFF)
        n = int(row["sack_blocks"])
        if n:
            opts += b"\x01\x01" + struct.pack("!BB", 5, 2 + 8 * n)
            for k in range(n):
                opts += struct.pack("!II", int(row[f"sack{k}_start"]) & 0xFFFFFFFF, int(row[f"sack{k}_end"]) & 0xFFFFFFFF)
        opts += b"\x01" * (-len(opts) % 4)
        flags = 0x10  # ACK
        if int(row["flags"]) & _ECE:
            flags |= 0x40
        if int(row["flags"]) & _CWR:
            flags |= 0x80
        if int(row["kind"]) == DATA:
            seq, ack = int(row["seq"]) & 0xFFFFFFFF, 1
            if int(row["payload_bytes"]):
                flags |= 0x08  # PSH
        else:
            seq, ack = 1, int(row["ack"]) & 0xFFFFFFFF
        off = (20 + len(opts)) // 4
        l4 = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, off << 4, flags,
                         min(int(row["window_bytes"]), 0xFFFF), 0, 0) + opts
        proto = 6
    total = max(size, 20 + len(l4))
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, _ECN_FIELD.get(int(row["ecn"]), 0), total & 0xFFFF, ident & 0xFFFF,
                      0x4000, 64, proto, 0, src_ip, dst_ip)
    hdr = hdr[:10] + struct.pack("!H", _checksum(hdr)) + hdr[12:]
    return hdr + l4


def write_pcapng(results: Results, port: str, path: str | Path) -> Path:
    """Writes the packets captured at ``port`` to ``path`` (pcapng, one interface)."""
    cap = results.capture
    if cap.num_rows == 0 or port not in set(cap.column("port").to_pylist()):
        raise ValueError(f"no packets captured at port {port!r}: add it to metrics.capture "
                         f"(or pinchpoint run --pcap {port!r})")
    sc = tomllib.loads(results.scenario_toml)
    node_index = {n["name"]: i for i, n in enumerate(sc.get("nodes", []))}
    flows = {f["name"]: (i, f) for i, f in enumerate(sc.get("flows", []))}
    rows = cap.filter(cap.column("port").to_numpy(zero_copy_only=False) == port).to_pylist()
    out = bytearray()
    out += _block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)
                  + _option(4, b"pinchpoint " + str(results.meta.get("pinchpoint_version", "")).encode())
                  + _option(0, b""))
    out += _block(1, struct.pack("<HHI", LINKTYPE_RAW, 0, 0)
                  + _option(2, port.encode()) + _option(9, bytes([9])) + _option(0, b""))
    for ident, row in enumerate(rows):
        i, f = flows[row["flow"]]
        src, dst = _ip(node_index[f["src"]]), _ip(node_index[f["dst"]])
        sport, dport = 10000 + i, SERVER_PORT
        if int(row["kind"]) != DATA:
            src, dst, sport, dport = dst, src, dport, sport
        data = packet_bytes(row, src, dst, sport, dport, f.get("transport", "tcp") == "udp", ident)
        t_ns = int(row["t_ps"]) // 1000
        out += _block(6, struct.pack("<IIIII", 0, t_ns >> 32, t_ns & 0xFFFFFFFF, len(data),
                                     max(int(row["size_bytes"]), len(data))) + data)
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(bytes(out))
    return p


def file_name(port: str) -> str:
    """``r1->r2`` -> ``r1-r2.pcapng``."""
    return port.replace("->", "-").replace("/", "_") + ".pcapng"
