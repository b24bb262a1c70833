//go:build race

package classify

// The race detector multiplies resident memory, so RSS budgets are not
// checked under it (the heap figure still is).
const raceEnabled = true
