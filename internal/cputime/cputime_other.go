//go:build !unix

// Package cputime reads the process's CPU time, for benchmarks that report
// CPU seconds beside wall time.
package cputime

import "time"

// Total is not measured here; benchmarks then report wall time only.
func Total() time.Duration { return 0 }
