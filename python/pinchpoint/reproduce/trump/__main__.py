"""``python -m pinchpoint.reproduce.trump [DIR]`` writes the scenario files from the builders."""

import sys
from pathlib import Path

from .scenarios import write_scenarios

for p in write_scenarios(Path(sys.argv[1]) if len(sys.argv) > 1 else None):
    print(p)
