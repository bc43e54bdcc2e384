//go:build unix

// Package cputime reads the process's CPU time, for benchmarks that report
// CPU seconds beside wall time (on a shared machine, wall time measures the
// neighbours as much as the code).
package cputime

import (
	"syscall"
	"time"
)

// Total is the process's user + system CPU time so far.
func Total() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
