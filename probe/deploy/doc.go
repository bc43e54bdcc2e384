// Package deploy holds what installs the probe on a node: the systemd unit
// gpuprobe.service. Its test keeps the unit hardened (systemd-analyze
// security) without taking away what the checks need.
//
// It is no step of the observation pipeline (read, judge, observe, spool,
// push): it installs the daemon that runs it.
package deploy
