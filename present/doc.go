// Package present says what an experiment's run means, for every place that shows one: per
// experiment, its charts' options, its tables (the same tables are the CSV export and the command
// line's output, each cell a typed number beside its text), its reading in sentences, the numbers
// a prediction measures, and the spread over seeds in words and bands. It imports only experiments:
// the pages (templ components and view models), the API, the CLI and the study rooms all read
// results through it, and none of it knows about HTTP or HTML.
package present
