#!/bin/sh
# The `tests` command of clients/conformance/languages.json: the gates Go users expect (gofmt,
# go vet, go test -race). Modules come from the Go module proxy once, then from the module cache.
set -eu
cd "$(dirname "$0")/.."
unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then
  echo "gofmt: not formatted: $unformatted" >&2
  exit 1
fi
go vet ./...
go test -race ./...
