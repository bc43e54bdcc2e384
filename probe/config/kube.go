package config

import (
	"path/filepath"

	"github.com/gpusla/gpusla/probe/kube"
)

// Kubernetes is the `kubernetes:` section.
type Kubernetes struct {
	// RenterPods: "true" takes every pod's process on a GPU as the
	// renter's own work (a cluster the renter runs), "false" judges them
	// like any process; "auto" (the default) is true when the probe itself
	// runs in a pod.
	RenterPods string `yaml:"renter_pods"`
	// Renter is RenterPods resolved.
	Renter bool `yaml:"-"`
}

// validateHost checks host_root (default "/") and resolves
// kubernetes.renter_pods.
func (c *Config) validateHost() error {
	if c.HostRoot == "" {
		c.HostRoot = "/"
	}
	if !filepath.IsAbs(c.HostRoot) {
		return badField("host_root", "%q is not an absolute path (the host's /proc and /sys are read under it: / or /host)", c.HostRoot)
	}
	switch c.Kubernetes.RenterPods {
	case "", "auto":
		c.Kubernetes.RenterPods, c.Kubernetes.Renter = "auto", kube.InPod()
	case "true":
		c.Kubernetes.Renter = true
	case "false":
		c.Kubernetes.Renter = false
	default:
		return badField("kubernetes.renter_pods", "%q is not auto, true or false", c.Kubernetes.RenterPods)
	}
	return nil
}

// Proc is the host's /proc.
func (c *Config) Proc() string { return filepath.Join(c.HostRoot, "proc") }
