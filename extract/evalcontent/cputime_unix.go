//go:build unix

package evalcontent

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used (user + system, all
// threads, so GC work counts too). Measured by CPU time, pages per second
// stay comparable when other processes load the machine.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
