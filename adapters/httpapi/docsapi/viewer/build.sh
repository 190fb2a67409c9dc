#!/usr/bin/env bash
# build.sh rebuilds the viewer embedded in feria's binary (GET /docs) from
# the npm package pinned in package-lock.json: `npm ci`, then the standalone
# bundle and its licence are copied beside this script and committed, so
# that `go build` needs no npm. docsapi's tests check the copy is the
# pinned version.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --ignore-scripts --no-audit --no-fund
cp node_modules/redoc/bundles/redoc.standalone.js redoc.standalone.js
cp node_modules/redoc/bundles/redoc.standalone.js.LICENSE.txt redoc.standalone.js.LICENSE.txt
cp node_modules/redoc/LICENSE LICENSE
rm -rf node_modules
echo "viewer: redoc $(node -p 'require("./package-lock.json").packages["node_modules/redoc"].version') copied"
