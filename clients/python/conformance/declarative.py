"""The scenarios written as data ("calls" and "paginate"), through the generic call and the paginator."""

from __future__ import annotations

from typing import Any

from gaming_hub import HubAPIError

from .harness import UNKNOWN_KEY, client_for, resolve


def _run_step(scenario: str, raw: dict[str, Any], index: int) -> None:
    step = resolve(raw)
    method, path = step["call"].split(" ")
    auth = step.get("auth", "api_key")
    if auth == "invalid_api_key":
        hub = client_for(scenario, api_key=UNKNOWN_KEY)
    elif auth == "none":
        hub = client_for(scenario, api_key=None)
    else:
        hub = client_for(scenario)
    params = step.get("params", {})
    expect = step["expect"]
    where = f"step {index + 1} ({step['call']} {params})"
    with hub:
        try:
            body = hub.request(method, path, path_params=params.get("path"), params=params.get("query"))
        except HubAPIError as error:
            assert error.status == expect["status"], f"{where}: {error}"
            assert error.code == expect.get("code"), f"{where}: code {error.code}"
            # the problem document is carried whole
            assert error.title and error.detail and error.request_id, f"{where}: title, detail and request id"
            assert error.problem.get("status") == error.status, where
            return
    assert expect["status"] < 300, f"{where}: expected {expect['status']}, got a success"
    for field in expect.get("fields", []):
        assert field in body, f"{where}: no field {field}"
    if "items_min" in expect:
        items = next((v for v in body.values() if isinstance(v, list)), [])
        assert len(items) >= expect["items_min"], f"{where}: fewer than {expect['items_min']} items"


def run_calls(scenario: dict[str, Any]) -> None:
    for index, step in enumerate(scenario.get("steps", [])):
        _run_step(scenario["name"], step, index)


def run_paginate(raw: dict[str, Any]) -> None:
    scenario = resolve(raw)
    _, path = scenario["call"].split(" ")
    params = scenario.get("params", {})
    with client_for(scenario["name"]) as hub:
        items = list(hub.paginate(path, path_params=params.get("path"), params=params.get("query")))
    expect = scenario.get("expect", {})
    if "count" in expect:
        assert len(items) == expect["count"], f"item count {len(items)} != {expect['count']}"
    if "count_min" in expect:
        assert len(items) >= expect["count_min"], "too few items"
    if "unique" in expect:
        key = expect["unique"]
        assert len({i[key] for i in items}) == len(items), f"{key}s repeat"
    if "increasing" in expect:
        ids = [str(i[expect["increasing"]]) for i in items]
        assert ids == sorted(set(ids)), f"{expect['increasing']}s not strictly increasing"
