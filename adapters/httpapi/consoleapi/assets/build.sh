#!/usr/bin/env bash
# build.sh copies the front-end library the console embeds (htmx, from the
# npm registry, the version pinned in package.json and package-lock.json)
# beside this script, so that `go build` needs no npm and the console needs
# no network. consoleapi's tests check the copy is the pinned version.
# console.css is feria's own.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --ignore-scripts --no-audit --no-fund
cp node_modules/htmx.org/dist/htmx.min.js htmx.min.js
cp node_modules/htmx.org/LICENSE LICENSE.htmx
rm -rf node_modules
echo "console assets: htmx.org $(node -p 'require("./package-lock.json").packages["node_modules/htmx.org"].version') copied"
