// Command site serves the Effectively Once notebook, and runs its experiments from the command line:
//
//	site [serve] [-addr HOST:PORT]   serve the notebook (default 127.0.0.1:8080, env ADDR)
//	site run EXPERIMENT [-param value ...] [-format json|csv|table]
//	site verify [-param value ...]   re-derive every claim; exit 1 if any fails
//	site list                        list experiments and their parameters
//	site healthcheck                 ask a running server for /healthz (for container health checks)
//	site lab [-designs all] [-jobs N] [-workers W] [-crash_rate R] [-seed S] [-format table|json]
//	                                 run the designs on a real broker, database and worker processes
//	site check handler.star [-param value ...] [-format table|json|csv]
//	                                 crash a handler at every step; exit 1 if a crash point breaks it
package main

import "effectivelyonce/internal/site"

func main() { site.Main() }
