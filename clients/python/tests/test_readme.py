"""The README's examples compile, and the ones that need no hub run (so none can rot)."""

from __future__ import annotations

import re
from pathlib import Path

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()
BLOCKS = re.findall(r"```python\n(.*?)```", README, re.S)


def test_every_example_compiles_and_defines_what_it_shows() -> None:
    assert len(BLOCKS) >= 7
    for index, block in enumerate(BLOCKS):
        code = compile(block, f"README.md example {index + 1}", "exec")
        # only the examples that open no connection at import time run
        if "with HubClient(" not in block:
            exec(code, {"__name__": "readme"})
