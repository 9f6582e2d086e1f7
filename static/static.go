// Package static holds the stylesheet, the page script and the front-end libraries (static/lib,
// copied from npm by scripts/assets.sh, which also bundles the editor in static/editor into
// lib/editor.min.js), embedded so the binary serves everything itself.
package static

import "embed"

// Files is every asset the site serves under /static/.
//
//go:embed app.css app.js favicon.svg lib
var Files embed.FS
