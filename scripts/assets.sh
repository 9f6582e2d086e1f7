#!/bin/sh
# Copies the pinned front-end libraries from node_modules into static/lib, where go:embed picks them
# up. static/lib is generated, never committed: package-lock.json is the record of what it holds.
set -eu
cd "$(dirname "$0")/.."
if [ ! -d node_modules/echarts ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
	npm ci --no-audit --no-fund --loglevel=error
fi
mkdir -p static/lib
cp node_modules/echarts/dist/echarts.common.min.js static/lib/echarts.min.js
cp node_modules/htmx.org/dist/htmx.min.js static/lib/htmx.min.js
cp node_modules/htmx-ext-sse/dist/sse.min.js static/lib/htmx-sse.min.js
