package workbench

import (
	"crypto/sha256"
	"encoding/hex"
)

// SourceHash fingerprints a handler's source the way the experiments' params_hash does their
// inputs: the check's JSON, CSV and table, the server's cache keys and the command line all name a
// handler by it, so it has one definition here.
func SourceHash(src string) string {
	sum := sha256.Sum256([]byte(src))
	return hex.EncodeToString(sum[:6])
}
