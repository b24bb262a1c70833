//go:build !race

package evalrelevance

const raceEnabled = false
