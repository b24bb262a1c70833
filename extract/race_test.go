//go:build race

package extract

// The race detector slows extraction several times over.
func init() { budget *= 10 }
