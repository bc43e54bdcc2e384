package deploy

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/internal/golden"
)

// The plain manifests (manifests/gpusla.yaml, for a cluster without Helm)
// are the chart rendered with its own values into namespace gpusla, byte
// for byte: `go test ./deploy -run TestPlainManifests -update` (in deploy/)
// writes them again after a change to the chart.
func TestPlainManifestsAreTheChart(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("# gpusla: gpuprobe on every GPU node, a ServiceMonitor, the dashboard and the alert rules.\n" +
		"# Rendered from deploy/chart/gpusla with its own values into namespace gpusla; edit the chart, not this file.\n" +
		"# Before applying: set the image and backend.url (grep registry.example.com, sla.example.com), create the\n" +
		"# namespace (PodSecurity level privileged: host network, PIDs and paths) and the enrolment token's Secret:\n" +
		"#   kubectl create namespace gpusla && kubectl label namespace gpusla pod-security.kubernetes.io/enforce=privileged\n" +
		"#   kubectl -n gpusla create secret generic gpuprobe-enrol --from-literal=token=gpe_...\n")
	for _, r := range render(t, "") {
		b.WriteString("---\n# Source: " + r.Template + "\n")
		b.WriteString(strings.TrimRight(r.Text, "\n") + "\n")
	}
	golden.Dir = "manifests"
	golden.Check(t, "gpusla.yaml", b.Bytes())
}
