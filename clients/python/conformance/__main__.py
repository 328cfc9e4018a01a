"""Runs the scenarios (those named in the arguments, else all) and prints one JSON line each."""

from __future__ import annotations

import json
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

from .custom import CUSTOM
from .declarative import run_calls, run_paginate
from .harness import FIXTURE


def runner_of(scenario: dict[str, Any]) -> Callable[[], None] | None:
    kind = scenario["kind"]
    if kind == "calls":
        return lambda: run_calls(scenario)
    if kind == "paginate":
        return lambda: run_paginate(scenario)
    custom = CUSTOM.get(scenario["name"])
    return None if custom is None else lambda: custom(scenario["name"])


def main() -> None:
    with open(FIXTURE["scenarios_file"]) as handle:
        scenarios: list[dict[str, Any]] = json.load(handle)["scenarios"]
    only = set(sys.argv[1:])
    for scenario in scenarios:
        if only and scenario["name"] not in only:
            continue
        run = runner_of(scenario)
        if run is None:
            continue
        started = time.monotonic()
        result: dict[str, Any] = {"scenario": scenario["name"], "language": "python"}
        try:
            run()
            result["status"] = "pass"
        except Exception as error:
            traceback.print_exc(file=sys.stderr)
            result["status"] = "fail"
            result["error"] = f"{type(error).__name__}: {error}".replace("\n", " ")[:300]
        result["duration_ms"] = round((time.monotonic() - started) * 1000)
        print(json.dumps(result), flush=True)


main()
