// Package deploy holds what installs the probe on a node: the systemd unit
// gpuprobe.service. Its test keeps the unit hardened (systemd-analyze
// security) without taking away what the checks need.
package deploy
