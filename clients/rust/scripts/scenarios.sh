#!/bin/sh
# The `scenarios` command of clients/conformance/languages.json: builds the conformance example,
# then runs it with the given scenario names. The build runs without libfaketime (rustc hangs under
# it in CI's run with the clock a year ahead); the scenarios run with the caller's clock, as the hub
# does, since they compare the hub's times (rate-limit reset, webhook timestamps) with their own.
set -e
cd "$(dirname "$0")/.."
env -u LD_PRELOAD -u FAKETIME cargo build --quiet --locked --example conformance
exec "${CARGO_TARGET_DIR:-target}/debug/examples/conformance" "$@"
