#!/bin/sh
# Runs a main class of the test sources (the live scenarios, the reference check) with the SDK's
# classpath: target/classes, target/test-classes and Gson from Maven's cache. Compiles first.
set -eu
cd "$(dirname "$0")/.."
mvn -B -q test-compile >&2
repo="${MAVEN_REPOSITORY:-$HOME/.m2/repository}"
main="$1"
shift
exec java -cp "target/classes:target/test-classes:$repo/com/google/code/gson/gson/2.15.0/gson-2.15.0.jar" "$main" "$@"
