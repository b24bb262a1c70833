//go:build race

package evalcases

// Under the race detector the 22 leave-one-source-out refits take minutes.
const raceEnabled = true
