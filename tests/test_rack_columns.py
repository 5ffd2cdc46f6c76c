"""RACK-TLP's counters in the flows table (`tcp.recovery = "rack_tlp"`): present only in runs
with such a flow, and a run with them and a run without go into one store."""

import pinchpoint as pp
from pinchpoint.scenario import Scenario
from pinchpoint.store import Store

RACK_COLUMNS = ["tlp_probes", "tlp_recoveries", "rack_marked_lost_segs", "dsacks_received", "recoveries_undone",
                "timeouts_undone", "frto_spurious_rtos"]


def two_flows(root, recovery: str) -> Scenario:
    # The bundled two-flow dumbbell, 3 s, its bottleneck buffer cut to 10 packets: losses and
    # recoveries for both flows.
    sc = Scenario.from_file(root / "scenarios/examples/two_flows_newreno.toml")
    sc.data["simulation"]["duration"] = "3s"
    sc.data["links"][2]["queue"]["limit_pkts"] = 10
    for f in sc.data["flows"]:
        f["tcp"] = {"recovery": recovery}
    return sc


def test_rack_columns_appear_only_with_rack_tlp_and_both_kinds_of_run_share_a_store(root, tmp_path):
    rack = pp.run(two_flows(root, "rack_tlp"))
    sack = pp.run(two_flows(root, "sack"))
    for c in RACK_COLUMNS:
        assert c in rack.flows.columns and c not in sack.flows.columns
    assert rack.flows["rack_marked_lost_segs"].sum() > 0
    assert (rack.flows["fast_retx"] > 0).all()
    st = Store(tmp_path / "s.duckdb")
    st.put(rack)
    st.put(sack)
    q = st.query("SELECT count(*) AS n, count(rack_marked_lost_segs) AS with_rack FROM flows")
    assert list(q["n"]) == [4] and list(q["with_rack"]) == [2]
