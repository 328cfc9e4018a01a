"""Runs a command in this package's virtual environment, creating it first when it is missing or
its pinned requirements changed (CI on a fresh machine installs from PyPI once, then reuses it).

    python3 scripts/run.py -m pytest          # the venv's python with these arguments
    python3 scripts/run.py --exec ruff check  # a tool of the venv

Concurrent runs (the drift test and the tests command) wait for one another on a lock file.
"""

import fcntl
import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
REQUIREMENTS = ROOT / "requirements-dev.txt"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")


def ensure() -> None:
    wanted = hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()
    stamp = VENV / ".requirements.sha256"
    VENV.parent.mkdir(parents=True, exist_ok=True)
    with open(ROOT / ".venv.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.exists() and stamp.read_text() == wanted:
            return
        print(f"creating {VENV} from {REQUIREMENTS.name}", file=sys.stderr)
        venv.EnvBuilder(clear=True, with_pip=True).create(VENV)
        subprocess.run(
            [BIN / "python", "-m", "pip", "install", "-q", "--disable-pip-version-check", "-r", REQUIREMENTS],
            check=True,
            stdout=sys.stderr,
        )
        stamp.write_text(wanted)


def main() -> None:
    ensure()
    args = sys.argv[1:]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    # --exec: a tool of the venv (ruff, mypy); else its python
    command = [str(BIN / args[1]), *args[2:]] if args[:1] == ["--exec"] else [str(BIN / "python"), *args]
    os.execve(command[0], command, env)


if __name__ == "__main__":
    main()
