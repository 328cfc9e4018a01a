"""The Python half of `npm run bench:clients-python` (bench/clients-python.ts starts the hub): N
authenticated GETs of /api-platform/v1/users/{id}, one after another over a kept-alive connection,
with plain httpx and with the library (sync and asyncio), in alternating rounds. Prints requests per
second (median of the rounds), the ratio to plain httpx, and the CPU time the library adds per call.

Runs in the client's venv: python3 clients/python/scripts/run.py bench/clients-python/bench.py
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import httpx

from gaming_hub import AsyncHubClient, HubClient, models


@dataclass
class Sample:
    rps: float
    cpu_us: float


def measure(n: int, call: Callable[[int], object]) -> Sample:
    started, cpu = time.perf_counter(), time.process_time()
    for i in range(n):
        call(i % 40 + 1)
    elapsed, used = time.perf_counter() - started, time.process_time() - cpu
    return Sample(n / elapsed, used / n * 1e6)


def measure_async(n: int, call: Callable[[int], Awaitable[object]], loop: asyncio.AbstractEventLoop) -> Sample:
    async def run() -> None:
        for i in range(n):
            await call(i % 40 + 1)

    started, cpu = time.perf_counter(), time.process_time()
    loop.run_until_complete(run())
    elapsed, used = time.perf_counter() - started, time.process_time() - cpu
    return Sample(n / elapsed, used / n * 1e6)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    base, key = os.environ["HUB_URL"], os.environ["HUB_API_KEY"]
    headers = {"x-api-key": key}

    plain = httpx.Client(base_url=base)

    def plain_get(user_id: int) -> object:
        response = plain.get(f"/api-platform/v1/users/{user_id}", headers=headers)
        if response.status_code != 200:
            sys.exit(f"plain httpx: {response.status_code}")
        return response.json()

    hub = HubClient(base, api_key=key)

    def hub_get(user_id: int) -> object:
        return hub.get("/api-platform/v1/users/{id}", path_params={"id": user_id})

    def hub_typed(user_id: int) -> object:
        return hub.get_as(models.UsersGetResult, "/api-platform/v1/users/{id}", path_params={"id": user_id})

    loop = asyncio.new_event_loop()
    plain_async = httpx.AsyncClient(base_url=base)
    hub_async = AsyncHubClient(base, api_key=key)

    async def plain_async_get(user_id: int) -> object:
        response = await plain_async.get(f"/api-platform/v1/users/{user_id}", headers=headers)
        if response.status_code != 200:
            sys.exit(f"plain httpx (async): {response.status_code}")
        return response.json()

    async def hub_async_get(user_id: int) -> object:
        return await hub_async.get("/api-platform/v1/users/{id}", path_params={"id": user_id})

    sync_kinds: list[tuple[str, Callable[[int], object]]] = [
        ("plain httpx.Client", plain_get),
        ("HubClient.get", hub_get),
        ("HubClient.get_as (typed)", hub_typed),
    ]
    async_kinds: list[tuple[str, Callable[[int], Awaitable[object]]]] = [
        ("plain httpx.AsyncClient", plain_async_get),
        ("AsyncHubClient.get", hub_async_get),
    ]
    runs: dict[str, list[Sample]] = {name: [] for name, _ in [*sync_kinds, *async_kinds]}
    for _name, call in sync_kinds:  # warm up: connections, caches
        measure(args.requests // 4, call)
    for _name, acall in async_kinds:
        measure_async(args.requests // 4, acall, loop)
    for _ in range(args.rounds):
        for name, call in sync_kinds:
            runs[name].append(measure(args.requests, call))
        for name, acall in async_kinds:
            runs[name].append(measure_async(args.requests, acall, loop))

    print(
        f"{args.requests} GET /api-platform/v1/users/{{id}} per round, {args.rounds} alternating rounds, "
        f"one kept-alive connection, sequential (Python {sys.version.split()[0]}, httpx {httpx.__version__})"
    )
    for group in (sync_kinds, async_kinds):
        baseline = group[0][0]
        base_rps = statistics.median(s.rps for s in runs[baseline])
        base_cpu = statistics.median(s.cpu_us for s in runs[baseline])
        for name, _ in group:
            rps = statistics.median(s.rps for s in runs[name])
            cpu = statistics.median(s.cpu_us for s in runs[name])
            line = f"{name + ':':<28} {rps:6.0f} req/s  {cpu:5.0f} µs CPU per call"
            if name != baseline:
                line += f"   ratio {rps / base_rps:.2f} (target >= 0.90), adds {cpu - base_cpu:.0f} µs CPU per call"
            print(line)

    plain.close()
    hub.close()
    loop.run_until_complete(plain_async.aclose())
    loop.run_until_complete(hub_async.aclose())
    loop.close()


if __name__ == "__main__":
    main()
