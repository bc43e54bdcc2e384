package deploy

import (
	"fmt"
	"path/filepath"
	"testing"

	monv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/gpusla/gpusla/deploy/chartrender"
)

// ChartDir is the Helm chart.
const ChartDir = "chart/gpusla"

// valuesFiles are the chart's own values and every file of its ci/
// folder (Helm's convention for the values a chart is tested with).
func valuesFiles(t *testing.T) []string {
	t.Helper()
	ci, err := filepath.Glob(filepath.Join(ChartDir, "ci", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{""}, ci...)
}

// Rendered is one object of a rendered chart.
type Rendered = chartrender.Rendered

// render renders the chart with the values file's values (none: ""), as
// `helm template gpusla --namespace gpusla` would, every object decoded
// strictly into its API type.
func render(t *testing.T, valuesFile string) []Rendered {
	t.Helper()
	vals, err := chartrender.ReadValues(valuesFile)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := chartrender.Render(ChartDir, vals)
	if err != nil {
		t.Fatalf("values %q: %v", valuesFile, err)
	}
	return rs
}

// kinds counts the rendered objects by kind.
func kinds(rs []Rendered) map[string]int {
	m := map[string]int{}
	for _, r := range rs {
		m[r.Obj.GetObjectKind().GroupVersionKind().Kind]++
	}
	return m
}

// objectMeta is an object's metadata.
func objectMeta(o runtime.Object) *metav1.ObjectMeta {
	switch x := o.(type) {
	case *appsv1.DaemonSet:
		return &x.ObjectMeta
	case *appsv1.Deployment:
		return &x.ObjectMeta
	case *corev1.ConfigMap:
		return &x.ObjectMeta
	case *corev1.Secret:
		return &x.ObjectMeta
	case *corev1.Service:
		return &x.ObjectMeta
	case *corev1.PersistentVolumeClaim:
		return &x.ObjectMeta
	case *monv1.ServiceMonitor:
		return &x.ObjectMeta
	case *monv1.PrometheusRule:
		return &x.ObjectMeta
	}
	panic(fmt.Sprintf("no metadata for %T", o))
}
