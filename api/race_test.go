//go:build race

package api

// raceSlowdown scales time bounds: the race detector makes this code ~15x slower.
const raceSlowdown = 15
