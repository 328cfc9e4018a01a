#!/bin/sh
# plugin-sdk/scenarios.json against the hub of `npm run test:plugins` (HUB_PLUGIN_FIXTURE).
exec sh "$(dirname "$0")/java-main.sh" io.github.gaminghub.plugin.live.LiveScenarios "$@"
