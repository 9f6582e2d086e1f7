package experiments

import (
	"embed"
	"io/fs"
)

// sources is this package's own code, so the notebook can show the exact function that produced a
// number instead of a copy that could drift from it.
//
//go:embed *.go
var sources embed.FS

// Sources returns the package's Go files (tests included; readers of the site skip them).
func Sources() fs.FS { return sources }
