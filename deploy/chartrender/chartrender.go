// Package chartrender renders gpusla's Helm chart with Helm's own engine,
// as `helm template` would, and decodes every object strictly into its
// Kubernetes API type: the chart's tests hold what it makes to those
// types, and cmd/podspec reads the probe's DaemonSet from it to run the
// probe with exactly that pod's arguments, environment and config.
package chartrender

import (
	"fmt"
	"os"
	"sort"
	"strings"

	monv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"go.yaml.in/yaml/v3"
	chartcommon "helm.sh/helm/v4/pkg/chart/common"
	chartutil "helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/engine"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
)

// Release is the release name and namespace the chart is rendered for.
const (
	Release   = "gpusla"
	Namespace = "gpusla"
)

// Rendered is one object of a rendered chart: its template, its text and
// the object decoded into its API type.
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

// ReadValues reads a values file ("" gives none).
func ReadValues(file string) (map[string]any, error) {
	vals := map[string]any{}
	if file == "" {
		return vals, nil
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if err := yaml.Unmarshal(raw, &vals); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return vals, nil
}

// Render renders the chart in dir with its values overridden by vals
// (Helm's coalescing: maps merge, anything else replaces) for the release
// Release in Namespace, and decodes every object strictly (an unknown or
// duplicated field is an error), in template order.
func Render(dir string, vals map[string]any) ([]Rendered, error) {
	files, err := renderFiles(dir, vals)
	if err != nil {
		return nil, err
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
				return nil, fmt.Errorf("%s, document %d: %w\n%s", name, i, err, doc)
			}
			if gvk.Kind == "" {
				return nil, fmt.Errorf("%s, document %d: no kind", name, i)
			}
			out = append(out, Rendered{Template: name, Text: strings.TrimPrefix(strings.TrimLeft(doc, "\n"), "---\n"), Obj: obj})
		}
	}
	return out, nil
}

// renderFiles is Helm's engine over the chart: every template's text by
// its name.
func renderFiles(dir string, vals map[string]any) (map[string]string, error) {
	ch, err := loader.Load(dir)
	if err != nil {
		return nil, err
	}
	rv, err := chartutil.ToRenderValues(ch, vals, chartcommon.ReleaseOptions{Name: Release, Namespace: Namespace, IsInstall: true}, nil)
	if err != nil {
		return nil, fmt.Errorf("values: %w", err)
	}
	files, err := engine.Render(ch, rv)
	if err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	return files, nil
}

// Notes is the chart's NOTES.txt as `helm install` prints it.
func Notes(dir string, vals map[string]any) (string, error) {
	files, err := renderFiles(dir, vals)
	if err != nil {
		return "", err
	}
	for name, text := range files {
		if strings.HasSuffix(name, "/templates/NOTES.txt") {
			return strings.TrimSpace(text), nil
		}
	}
	return "", fmt.Errorf("%s: no templates/NOTES.txt", dir)
}

// DaemonSet is the rendered DaemonSet called name.
func DaemonSet(rs []Rendered, name string) (*appsv1.DaemonSet, error) {
	var names []string
	for _, r := range rs {
		if ds, ok := r.Obj.(*appsv1.DaemonSet); ok {
			if ds.Name == name {
				return ds, nil
			}
			names = append(names, ds.Name)
		}
	}
	return nil, fmt.Errorf("no DaemonSet %q (the chart made %s)", name, strings.Join(names, ", "))
}

// ConfigMap is the rendered ConfigMap called name.
func ConfigMap(rs []Rendered, name string) (*corev1.ConfigMap, error) {
	for _, r := range rs {
		if cm, ok := r.Obj.(*corev1.ConfigMap); ok && cm.Name == name {
			return cm, nil
		}
	}
	return nil, fmt.Errorf("no ConfigMap %q", name)
}
