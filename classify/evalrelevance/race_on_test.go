//go:build race

package evalrelevance

// Under the race detector a refit of the gate (500 posts extracted, 25
// leave-one-source-out fits) takes over a minute; `make test` runs the
// freshness check once without -race instead.
const raceEnabled = true
