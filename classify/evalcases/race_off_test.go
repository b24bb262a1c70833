//go:build !race

package evalcases

const raceEnabled = false
