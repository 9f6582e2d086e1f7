// Package web is the HTTP layer every domain's handlers share, and it knows no domain: echo's
// middleware (security headers and the strict CSP, cross-origin protection, the request log),
// the one error type and the one handler that turns errors into pages or JSON and logs them
// once, rendering into a buffer before anything is written, htmx's headers, hashed static
// assets, the connection, stream and rate limiters, the public origins links may name, cookies,
// ReadJSON, /healthz and the metrics every part shares.
//
// What it must know of a domain (which errors name a field, what a refused API request's body
// looks like, the error page) the assembly in internal/site hands it; the handler packages
// below it (notebook, roomsweb, labweb, workbenchweb) import it, never the other way round.
package web
