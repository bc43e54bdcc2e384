// Package deploy holds what runs gpusla on a fleet — the Helm chart
// (chart/gpusla: gpuprobe as a DaemonSet on the GPU nodes, gpusla serve as
// a Deployment, a ServiceMonitor, the Grafana dashboard and the Prometheus
// alert rules), the plain manifests rendered from it (manifests/), the
// container images' builder (cmd/mkimage), the chart's renderer
// (chartrender) and the probe container read back out of it (podspec,
// cmd/podspec) for bench/'s run of the DaemonSet's flags on a GPU machine —
// and the tests that hold them to Kubernetes' API types, Prometheus's own
// PromQL parser and the metrics the probe really exports.
//
// It is a Go module of its own: Helm, the Kubernetes API types and
// Prometheus are large, and the probe's and the Lambdas' builds stay
// without them. scripts/test.sh runs its tests.
package deploy
