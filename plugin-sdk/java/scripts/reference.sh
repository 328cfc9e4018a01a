#!/bin/sh
# The reference plugin against the hub of `npm run test:plugins` (HUB_PLUGIN_FIXTURE); exit 0 = its checks pass.
exec sh "$(dirname "$0")/java-main.sh" io.github.gaminghub.plugin.live.ReferenceCheck "$@"
