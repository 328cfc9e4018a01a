#!/bin/sh
# Runs the reference plugin (the simulated game server) against HUB_URL with HUB_TOKEN.
exec sh "$(dirname "$0")/java-main.sh" io.github.gaminghub.plugin.example.SimulatedGameServer "$@"
