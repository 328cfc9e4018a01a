#!/bin/sh
# The `tests` command of clients/conformance/languages.json: the gates this crate's users expect
# (rustfmt, clippy with warnings as errors) and its tests (unit, integration, README examples).
# One target dir (./target) serves these, the conformance example and the generator.
set -e
cd "$(dirname "$0")/.."
# CI's second run has the clock a year ahead through libfaketime (LD_PRELOAD), under which rustc
# hangs; these tests do not read the date, so the toolchain runs without it
unset LD_PRELOAD FAKETIME
cargo fmt --check
cargo clippy --locked --all-targets -- -D warnings
cargo test --locked
