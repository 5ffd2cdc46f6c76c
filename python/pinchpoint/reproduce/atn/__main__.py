"""``python -m pinchpoint.reproduce.atn [DIR]`` writes the scenario files;
``--docs DIR`` redraws the algorithm pages' figures."""

import sys
from pathlib import Path

from . import docs_figures, write_scenarios

if len(sys.argv) > 2 and sys.argv[1] == "--docs":
    for p in docs_figures(Path(sys.argv[2])):
        print(p)
else:
    for p in write_scenarios(Path(sys.argv[1]) if len(sys.argv) > 1 else None):
        print(p)
