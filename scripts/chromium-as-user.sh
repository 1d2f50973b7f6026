#!/bin/sh
# Starts Chromium as the unprivileged browser user (src/runner/browser.ts sets the variables). exec keeps the
# process ID and the DevTools pipes (file descriptors 3 and 4) that the service talks to the browser over.
set -eu
exec setpriv --reuid="$WEBGAUGE_BROWSER_UID" --regid="$WEBGAUGE_BROWSER_GID" --clear-groups \
  --inh-caps=-all --no-new-privs -- "$WEBGAUGE_CHROME" "$@"
