package config

import (
	"strings"
	"testing"

	"github.com/gpusla/gpusla/probe/kube"
)

// host_root and kubernetes.renter_pods: defaults, the DaemonSet's values,
// and bad ones refused naming the field and line.
func TestHostRootAndRenterPods(t *testing.T) {
	base := "node: n1\nbackend: {url: https://sla.example.com/v1/batches}\nsecret_file: secret\n"
	t.Setenv(kube.EnvServiceHost, "")
	c, err := Parse([]byte(base), "probe.yaml")
	if err != nil || c.HostRoot != "/" || c.Proc() != "/proc" || c.Kubernetes.Renter || c.Kubernetes.RenterPods != "auto" {
		t.Fatalf("defaults outside a pod: %+v %v", c, err)
	}
	t.Setenv(kube.EnvServiceHost, "10.96.0.1")
	c, err = Parse([]byte(base+"host_root: /host\n"), "probe.yaml")
	if err != nil || c.Proc() != "/host/proc" || !c.Kubernetes.Renter {
		t.Fatalf("in a pod: %+v %v", c, err)
	}
	if _, err := Parse([]byte(base+"metrics: {listen: \"0.0.0.0:9464\", remote: true}\n"), "probe.yaml"); err != nil {
		t.Fatalf("a DaemonSet's metrics on the host network: %v", err)
	}
	if c, err = Parse([]byte(base+"kubernetes: {renter_pods: \"false\"}\n"), "probe.yaml"); err != nil || c.Kubernetes.Renter {
		t.Fatalf("renter_pods false in a pod: %+v %v", c.Kubernetes, err)
	}
	for body, want := range map[string]string{
		base + "host_root: host\n":                     `probe.yaml:4: host_root: "host" is not an absolute path`,
		base + "kubernetes:\n  renter_pods: maybe\n":   `probe.yaml:5: kubernetes.renter_pods: "maybe" is not auto, true or false`,
		base + "metrics: {listen: \"0.0.0.0:9464\"}\n": `metrics.listen: "0.0.0.0:9464": the metrics endpoint may listen only on localhost (127.0.0.1, ::1), unless metrics.remote: true`,
	} {
		if _, err := Parse([]byte(body), "probe.yaml"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v; want %q", body, err, want)
		}
	}
}
