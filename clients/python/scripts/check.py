"""The `tests` command of clients/conformance/languages.json: the gates this package's users
expect (ruff lint and format, mypy --strict) and its unit tests, in the package's venv."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUN = [sys.executable, str(ROOT / "scripts/run.py")]
STEPS = [
    [*RUN, "--exec", "ruff", "check", "."],
    [*RUN, "--exec", "ruff", "format", "--check", "."],
    [*RUN, "--exec", "mypy"],
    [*RUN, "-m", "pytest", "-q"],
]

for step in STEPS:
    print("$", " ".join(step[2:]), file=sys.stderr, flush=True)
    if subprocess.run(step, cwd=ROOT, stdout=sys.stderr).returncode != 0:
        sys.exit(1)
