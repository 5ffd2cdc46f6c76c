"""Small scenarios several test files build (imported by name: pytest puts `tests/` on the path)."""

import pinchpoint as pp


def tiny(duration: str = "1s") -> pp.Scenario:
    """One NewReno flow a -> r -> b over a 5 Mbit/s, 10 ms bottleneck."""
    s = pp.Scenario("tiny", duration=duration)
    s.host("a").host("b").router("r")
    s.link("a", "r", rate="100Mbps", delay="1ms").link("r", "b", rate="5Mbps", delay="10ms")
    s.flow("f", "a", "b", cc="newreno")
    return s
