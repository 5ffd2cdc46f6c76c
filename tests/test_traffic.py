"""Workload and link-loss helpers of the builder reach the engine."""

import pinchpoint as pp


def test_builder_helpers_make_a_square_wave_and_a_lossy_link_that_run():
    s = pp.Scenario("sq", duration="4s", seed=2)
    s.host("a").host("b")
    s.link("a", "b", rate="100Mbps", delay="1ms", loss=pp.bernoulli_loss(0.05))
    s.flow("w", "a", "b", transport="udp",
           workload=pp.square_wave("8Mbps", 1000, period="1s", duty=0.25, duration="4s"))
    s.flow("o", "a", "b", transport="udp",
           workload=pp.on_off("8Mbps", 1000, on="100ms", off="100ms", distribution="exponential"))
    r = pp.run(s)
    flows = r.flows.set_index("flow")
    # 250 messages of 1000 B per 1 s period (on 250 ms at one per ms), four periods.
    assert flows.loc["w", "sent_pkts"] == 1000
    port = r.ports.set_index("port").loc["a->b"]
    assert port["link_losses_pkts"] > 0 and port["drops"] == 0
    assert port["link_losses_pkts"] == flows["lost_pkts"].sum()


def test_gilbert_elliott_parameters_are_checked_with_their_field_path():
    s = pp.Scenario("ge", duration="1s")
    s.host("a").host("b")
    s.link("a", "b", rate="10Mbps", delay="1ms", loss=pp.gilbert_elliott_loss(0.1, 2.0))
    s.flow("f", "a", "b", workload=pp.bulk())
    try:
        pp.run(s)
    except pp.ScenarioError as e:
        assert "links[0].loss.p_bg" in str(e)
    else:
        raise AssertionError("p_bg = 2 accepted")
