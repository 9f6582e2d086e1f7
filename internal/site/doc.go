// Package site assembles the server from its parts: the configuration (flags over environment,
// a value that does not parse stopping the start), the memory limit heavy runs are admitted
// under, the one lab runner, the shared metrics, and New, which builds each domain's handlers
// from only what that domain needs and hands one domain's parts to another's pages, so that no
// handler package imports another. routes.go is the one list of every URL, each a line naming a
// domain's handler. Serve runs the result within the connection bounds until its context
// ends, then lets the runs in flight finish.
//
// The binary opens what the server needs (the log, the content, the rooms' store and hub) and
// passes it in as Deps, so the tests here build the same server in process and drive the whole
// site through its middleware, a browser included.
package site
