#!/bin/sh
# The Java SDK's gates (what CI runs): compile with -Xlint:all -Werror, the enforcer, the unit tests.
# Maven downloads what it lacks into ~/.m2 once; with a warm cache it needs no network.
set -eu
cd "$(dirname "$0")/.."
exec mvn -B -q verify
