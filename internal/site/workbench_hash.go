package site

import "effectivelyonce/workbench"

// sourceHash is workbench.SourceHash, under the name the workbench's handlers here still call it
// by; it goes when they move into their own package and call workbench.SourceHash.
func sourceHash(src string) string { return workbench.SourceHash(src) }
