//go:build !unix

package evalcontent

import "time"

// processCPU is not available here; CPU-based speed is then reported as 0.
func processCPU() time.Duration { return 0 }
