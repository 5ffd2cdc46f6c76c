"""RACK-TLP's counters in the flows table (`tcp.recovery = "rack_tlp"`): present only in runs
with such a flow, and a run with them and a run without go into one store."""

import tomllib

import pinchpoint as pp
from pinchpoint.scenario import Scenario
from pinchpoint.store import Store


def dumbbell(recovery: str) -> Scenario:
    # Two bulk flows into a 10-packet bottleneck buffer: losses, recoveries and probes.
    s = """
[simulation]
duration = "3s"
seed = 1
[[nodes]]
name = "a"
[[nodes]]
name = "r"
kind = "router"
[[nodes]]
name = "b"
[[links]]
a = "a"
b = "r"
rate = "100Mbps"
delay = "1ms"
[[links]]
a = "r"
b = "b"
rate = "10Mbps"
delay = "10ms"
queue = { kind = "droptail", limit_pkts = 10 }
"""
    for i in (1, 2):
        s += f"""
[[flows]]
name = "f{i}"
src = "a"
dst = "b"
start = "{(i - 1) * 100}ms"
workload = {{ kind = "bulk" }}
tcp = {{ recovery = "{recovery}" }}
"""
    return Scenario.from_dict(tomllib.loads(s))


RACK_COLUMNS = ["tlp_probes", "tlp_recoveries", "rack_marked_lost_segs", "dsacks_received"]


def test_rack_columns_appear_only_with_rack_tlp_and_both_kinds_of_run_share_a_store(tmp_path):
    rack = pp.run(dumbbell("rack_tlp"))
    sack = pp.run(dumbbell("sack"))
    for c in RACK_COLUMNS:
        assert c in rack.flows.columns and c not in sack.flows.columns
    assert rack.flows["rack_marked_lost_segs"].sum() > 0
    assert (rack.flows["fast_retx"] > 0).all()
    st = Store(tmp_path / "s.duckdb")
    st.put(rack)
    st.put(sack)
    q = st.query("SELECT count(*) AS n, count(rack_marked_lost_segs) AS with_rack FROM flows")
    assert list(q["n"]) == [4] and list(q["with_rack"]) == [2]
