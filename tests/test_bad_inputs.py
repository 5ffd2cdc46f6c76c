"""Every bad input of tests/data/bad_inputs.json is refused by `pinchpoint validate` with exit
code 2 (no panic, no hang), naming the file, the field path and what was expected. The same table
runs through the Rust API in crates/pinchpoint-core/tests/validation.rs."""

import json
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).parent / "data"


def test_validate_refuses_every_bad_input_with_exit_code_2_and_the_field_path(tmp_path):
    base = (DATA / "base_scenario.toml").read_text()
    cases = json.loads((DATA / "bad_inputs.json").read_text())
    files = []
    for i, c in enumerate(cases):
        assert base.count(c["old"]) == 1, c["old"]
        f = tmp_path / f"bad{i:02d}.toml"
        f.write_text(base.replace(c["old"], c["new"], 1))
        files.append(f)
    p = subprocess.run([sys.executable, "-m", "pinchpoint.cli", "validate", *map(str, files)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2, p.stderr[-2000:]
    out = p.stdout + p.stderr
    assert "Traceback" not in out and "panicked" not in out, out[-2000:]
    lines = {f.name: [ln for ln in out.splitlines() if f.name in ln] for f in files}
    for f, c in zip(files, cases):
        text = " ".join(lines[f.name])
        assert f"{f.name}: {c['path']}: " in text and c["says"] in text, (c, text)
