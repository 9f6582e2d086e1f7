// Package runs is how the server does work on a reader's behalf: the admission every run passes
// (light and heavy slots, the memory budget the heavy ones share, the queue wait and the run
// timeout), the result cache with one flight per key, and Tasks, the one mechanism for work that
// goes on in the background with progress, watchers and cancel (a page's spread over seeds, a
// lab run). It knows experiments, not HTTP: a refusal is an *Error that carries the status and
// the sentence the web layer answers with.
package runs
