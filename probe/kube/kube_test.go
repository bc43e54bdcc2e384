package kube

import (
	"os"
	"path/filepath"
	"testing"
)

// The cgroup lines of a container as the kubelet places it, for both
// cgroup drivers and both cgroup versions, and of processes that are in no
// pod (a systemd service, a Docker container outside Kubernetes, a
// user's shell).
func TestPodOfCgroup(t *testing.T) {
	const uid = "4a1f9c2e-7b3d-4e5f-9a8b-0c1d2e3f4a5b"
	for _, c := range []struct {
		name, cgroup, want string
	}{
		{"cgroup v2, systemd driver", "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod4a1f9c2e_7b3d_4e5f_9a8b_0c1d2e3f4a5b.slice/cri-containerd-0123abcd.scope\n", uid},
		{"cgroup v2, cgroupfs driver", "0::/kubepods/besteffort/pod4a1f9c2e-7b3d-4e5f-9a8b-0c1d2e3f4a5b/0123abcd\n", uid},
		{"cgroup v2, guaranteed QoS", "0::/kubepods.slice/kubepods-pod4a1f9c2e_7b3d_4e5f_9a8b_0c1d2e3f4a5b.slice/cri-containerd-9f.scope\n", uid},
		{"cgroup v1, cgroupfs driver", "12:memory:/kubepods/burstable/pod4a1f9c2e-7b3d-4e5f-9a8b-0c1d2e3f4a5b/0123abcd\n11:devices:/kubepods/burstable/pod4a1f9c2e-7b3d-4e5f-9a8b-0c1d2e3f4a5b/0123abcd\n1:name=systemd:/kubepods/burstable/pod4a1f9c2e-7b3d-4e5f-9a8b-0c1d2e3f4a5b/0123abcd\n", uid},
		{"a systemd service", "0::/system.slice/gpuprobe.service\n", ""},
		{"a Docker container outside Kubernetes", "0::/system.slice/docker-0123abcd.scope\n", ""},
		{"a user's shell", "0::/user.slice/user-1000.slice/session-3.scope\n", ""},
		{"kubepods without a pod (the QoS slice itself)", "0::/kubepods.slice/kubepods-burstable.slice\n", ""},
		{"a UID-like name outside kubepods", "0::/system.slice/pod4a1f9c2e-7b3d-4e5f-9a8b-0c1d2e3f4a5b.service\n", ""},
		{"garbage", "not a cgroup file", ""},
	} {
		if got := PodOfCgroup(c.cgroup); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// Of reads the cgroup under a /proc tree; a process that ended (no
// directory) is in no pod.
func TestPodsOfReadsTheProcTree(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "4242")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cgroup"), []byte("0::/kubepods/burstable/pod4a1f9c2e-7b3d-4e5f-9a8b-0c1d2e3f4a5b/c1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := Pods{Proc: root}
	if got := p.Of(4242); got != "4a1f9c2e-7b3d-4e5f-9a8b-0c1d2e3f4a5b" {
		t.Fatalf("pid 4242: %q", got)
	}
	if got := p.Of(4243); got != "" {
		t.Fatalf("an ended process: %q", got)
	}
	// This test's own process, on the live /proc, is in no pod here.
	if got := (Pods{}).Of(uint32(os.Getpid())); got != "" && !InPod() {
		t.Fatalf("this process outside Kubernetes: pod %q", got)
	}
}
