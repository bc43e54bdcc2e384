// Package e2e proves the whole system end to end: it builds the real
// `gpusla` and `gpuprobe` binaries, runs `gpusla serve` (on the embedded
// store and on DynamoDB through dynalite) with a slacktest server as its
// Slack, several `gpuprobe run` daemons whose GPU readings are replayed from
// recorded snapshots, and scripts faults — a probe killed, the backend
// stopped, a GPU falling off the bus, a late ticket answer, a degraded
// network, kill -9 under load — checking the exact outcome of each: Slack
// messages, incidents, stored batches and the month's report.
//
// Everything is in the tests (docs/e2e.md); this file only names the
// package. Long runs (the 1,000-node load) are behind -e2e.load.
package e2e
