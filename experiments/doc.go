// Package experiments holds the simulations behind every page of the notebook. Each one is a pure
// function of a context and a parameter struct, seeded explicitly with a port of CPython's
// random.Random so that the documents' defaults reproduce the documents' numbers digit for digit.
// It imports nothing of the site: no HTTP, no templates, no charts.
package experiments
