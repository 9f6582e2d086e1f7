#!/bin/sh
# Puts the pinned front-end libraries from node_modules into static/lib, where go:embed picks them
# up: the dist files copied as they are, and the workbench's editor (static/editor, our code on
# CodeMirror) bundled by esbuild into one minified file. static/lib is generated, never committed:
# package-lock.json is the record of what it holds.
set -eu
cd "$(dirname "$0")/.."
if [ ! -d node_modules/echarts ] || [ ! -x node_modules/.bin/esbuild ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
	npm ci --no-audit --no-fund --loglevel=error
fi
mkdir -p static/lib
cp node_modules/echarts/dist/echarts.common.min.js static/lib/echarts.min.js
cp node_modules/htmx.org/dist/htmx.min.js static/lib/htmx.min.js
cp node_modules/htmx-ext-sse/dist/sse.min.js static/lib/htmx-sse.min.js
# One IIFE for the page's <script src>; es2020 is what CodeMirror 6 itself is written for. The
# libraries carry no licence comments of their own, so the banner names them.
node_modules/.bin/esbuild static/editor/editor.js --bundle --minify --format=iife --target=es2020 \
	--banner:js='/*! The workbench editor: CodeMirror 6 and Lezer (MIT, (c) Marijn Haverbeke and others) with style-mod, crelt, w3c-keyname and find-cluster-break (MIT); versions in package-lock.json. */' \
	--log-level=warning --outfile=static/lib/editor.min.js
