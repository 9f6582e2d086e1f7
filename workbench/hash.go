package workbench

import (
	"crypto/sha256"
	"encoding/hex"
)

// SourceHash fingerprints a handler's source the way the experiments' params_hash does their
// inputs: the first 6 bytes of its SHA-256, in hex.
func SourceHash(src string) string {
	sum := sha256.Sum256([]byte(src))
	return hex.EncodeToString(sum[:6])
}
