#!/bin/sh
# Runs the reference plugin (the simulated game server) against HUB_URL with HUB_TOKEN.
set -eu
cd "$(dirname "$0")/.."
mvn -B -q test-compile
repo="${MAVEN_REPOSITORY:-$HOME/.m2/repository}"
exec java -cp "target/classes:target/test-classes:$repo/com/google/code/gson/gson/2.15.0/gson-2.15.0.jar" \
  io.github.gaminghub.plugin.example.SimulatedGameServer
