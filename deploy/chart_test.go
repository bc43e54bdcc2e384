package deploy

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	monv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"go.yaml.in/yaml/v3"
	chartcommon "helm.sh/helm/v4/pkg/chart/common"
	chartutil "helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/engine"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
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

// Rendered is one object of a rendered chart: its template, its text and
// the object decoded into its Kubernetes API type.
type Rendered struct {
	Template string
	Text     string
	Obj      runtime.Object
}

// scheme knows every kind the chart may make; anything else is an error.
func scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, monv1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}

// render renders the chart with Helm's own engine, with the chart's values
// overridden by the values file (none: ""), as `helm template gpusla
// --namespace gpusla` would, and decodes every object strictly (an unknown
// or duplicated field is an error) into its API type.
func render(t *testing.T, valuesFile string) []Rendered {
	t.Helper()
	ch, err := loader.Load(ChartDir)
	if err != nil {
		t.Fatal(err)
	}
	vals := map[string]any{}
	if valuesFile != "" {
		raw, err := os.ReadFile(valuesFile)
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(raw, &vals); err != nil {
			t.Fatalf("%s: %v", valuesFile, err)
		}
	}
	rv, err := chartutil.ToRenderValues(ch, vals, chartcommon.ReleaseOptions{Name: "gpusla", Namespace: "gpusla", IsInstall: true}, nil)
	if err != nil {
		t.Fatalf("%s: values: %v", valuesFile, err)
	}
	files, err := engine.Render(ch, rv)
	if err != nil {
		t.Fatalf("%s: render: %v", valuesFile, err)
	}
	sc := scheme()
	dec := k8sjson.NewSerializerWithOptions(k8sjson.DefaultMetaFactory, sc, sc, k8sjson.SerializerOptions{Yaml: true, Strict: true})
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Rendered
	for _, name := range names {
		if !strings.HasSuffix(name, ".yaml") {
			continue
		}
		for i, doc := range strings.Split(files[name], "\n---") {
			if strings.TrimSpace(strings.TrimPrefix(doc, "---")) == "" {
				continue
			}
			obj, gvk, err := dec.Decode([]byte(doc), nil, nil)
			if err != nil {
				t.Fatalf("%s (values %s), document %d: %v\n%s", name, valuesFile, i, err, doc)
			}
			if gvk.Kind == "" {
				t.Fatalf("%s: a document without a kind", name)
			}
			out = append(out, Rendered{Template: name, Text: strings.TrimPrefix(strings.TrimLeft(doc, "\n"), "---\n"), Obj: obj})
		}
	}
	return out
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
