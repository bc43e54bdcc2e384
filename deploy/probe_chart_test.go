package deploy

import (
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/gpusla/gpusla/deploy/chartrender"
	"github.com/gpusla/gpusla/probe/config"
)

// Every values file renders, every object decodes strictly into its API
// type, and each kind is there as many times as the values ask for.
func TestChartRendersForEveryValuesFile(t *testing.T) {
	want := map[string]map[string]int{
		"":                                    {"ConfigMap": 3, "DaemonSet": 2, "Service": 1, "ServiceMonitor": 1, "PrometheusRule": 1},
		"chart/gpusla/ci/minimal-values.yaml": {"ConfigMap": 2, "DaemonSet": 1, "Secret": 1},
		"chart/gpusla/ci/serve-values.yaml": {"ConfigMap": 4, "DaemonSet": 2, "Service": 2, "ServiceMonitor": 1, "PrometheusRule": 1,
			"Deployment": 1, "PersistentVolumeClaim": 1},
	}
	files := valuesFiles(t)
	if len(files) != len(want) {
		t.Fatalf("values files %v; this test knows %d", files, len(want))
	}
	for _, f := range files {
		rs := render(t, f)
		got := kinds(rs)
		for k, n := range want[f] {
			if got[k] != n {
				t.Errorf("values %q: %d %s, want %d (all: %v)", f, got[k], k, n, got)
			}
		}
		for k := range got {
			if _, ok := want[f][k]; !ok {
				t.Errorf("values %q: an unexpected %s", f, k)
			}
		}
		seen := map[string]bool{}
		for _, r := range rs {
			key := r.Obj.GetObjectKind().GroupVersionKind().Kind + "/" + objectMeta(r.Obj).Name
			if seen[key] {
				t.Errorf("values %q: %s twice", f, key)
			}
			seen[key] = true
		}
	}
}

func daemonSets(rs []Rendered) []*appsv1.DaemonSet {
	var out []*appsv1.DaemonSet
	for _, r := range rs {
		if ds, ok := r.Obj.(*appsv1.DaemonSet); ok {
			out = append(out, ds)
		}
	}
	return out
}

func configMap(t *testing.T, rs []Rendered, name string) *corev1.ConfigMap {
	t.Helper()
	for _, r := range rs {
		if cm, ok := r.Obj.(*corev1.ConfigMap); ok && cm.Name == name {
			return cm
		}
	}
	t.Fatalf("no ConfigMap %s", name)
	return nil
}

// The probe's DaemonSet is what docs/probe.md says: on GPU nodes (node
// selector, the NVIDIA taint tolerated, the nvidia runtime), on the host's
// network and PIDs, root with NET_RAW and SYSLOG alone, a read-only root
// file system, exactly the host mounts the checks need (host /proc and
// /sys read-only, /dev/kmsg read-only, the state directory), the token
// from a Secret only root can read, its id from the node's name — and its
// config is one the probe itself accepts, with stress only on the nodes
// the label allows, the two DaemonSets' nodes never the same.
func TestProbeDaemonSet(t *testing.T) {
	for _, f := range valuesFiles(t) {
		rs := render(t, f)
		dss := daemonSets(rs)
		for _, ds := range dss {
			checkProbePod(t, f, ds)
			cm := configMap(t, rs, ds.Spec.Template.Spec.Volumes[0].ConfigMap.Name)
			c, err := config.Parse([]byte(cm.Data["probe.yaml"]), ds.Name+"/probe.yaml")
			if err != nil {
				t.Fatalf("values %q: the probe refuses its config: %v\n%s", f, err, cm.Data["probe.yaml"])
			}
			stress := strings.HasSuffix(ds.Name, "-stress")
			if c.HostRoot != "/host" || c.Enrol.TokenFile != "/etc/gpuprobe/enrol/token" || c.Enrol.State != "/var/lib/gpuprobe/enrolment.json" ||
				c.Spool.Dir != "/var/lib/gpuprobe/spool" || !c.Metrics.Remote || !c.Kubernetes.Renter || (c.Schedules.StressEvery != nil) != stress {
				t.Errorf("values %q, %s: config %+v", f, ds.Name, c)
			}
		}
		if len(dss) == 2 {
			a, b := dss[0].Spec.Template.Spec.Affinity, dss[1].Spec.Template.Spec.Affinity
			ea := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions[0]
			eb := b.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions[0]
			if ea.Key != eb.Key || !slices.Equal(ea.Values, eb.Values) || ea.Operator == eb.Operator ||
				!slices.Contains([]string{"In", "NotIn"}, string(ea.Operator)) || !slices.Contains([]string{"In", "NotIn"}, string(eb.Operator)) {
				t.Errorf("values %q: the two DaemonSets' nodes may overlap: %+v, %+v", f, ea, eb)
			}
		}
	}
}

func checkProbePod(t *testing.T, f string, ds *appsv1.DaemonSet) {
	t.Helper()
	p := ds.Spec.Template.Spec
	if !p.HostNetwork || !p.HostPID || p.DNSPolicy != corev1.DNSClusterFirstWithHostNet || p.AutomountServiceAccountToken == nil || *p.AutomountServiceAccountToken {
		t.Errorf("values %q: %s: host network %v, host PID %v, dns %v, service account token mounted", f, ds.Name, p.HostNetwork, p.HostPID, p.DNSPolicy)
	}
	if p.NodeSelector["nvidia.com/gpu.present"] != "true" && f == "" {
		t.Errorf("%s: node selector %v", ds.Name, p.NodeSelector)
	}
	if f == "" && (len(p.Tolerations) == 0 || p.Tolerations[0].Key != "nvidia.com/gpu" || p.RuntimeClassName == nil || *p.RuntimeClassName != "nvidia") {
		t.Errorf("%s: tolerations %v, runtime class %v", ds.Name, p.Tolerations, p.RuntimeClassName)
	}
	c := p.Containers[0]
	sc := c.SecurityContext
	if sc == nil || sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) ||
		!slices.Equal(sc.Capabilities.Add, []corev1.Capability{"NET_RAW", "SYSLOG"}) || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Errorf("values %q: %s: security context %+v", f, ds.Name, sc)
	}
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	if e := env[config.EnvNodeName]; e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || e.ValueFrom.FieldRef.FieldPath != "spec.nodeName" {
		t.Errorf("%s: %s is not the node's name: %+v", ds.Name, config.EnvNodeName, e)
	}
	// Host mounts: exactly these, read-only but the state directory.
	host := map[string]string{}
	for _, v := range p.Volumes {
		if v.HostPath != nil {
			host[v.Name] = v.HostPath.Path
		}
		if v.Secret != nil && v.Name == "enrol" && (v.Secret.DefaultMode == nil || *v.Secret.DefaultMode != 0o400) {
			t.Errorf("%s: the token's mode %v", ds.Name, v.Secret.DefaultMode)
		}
	}
	wantHost := map[string]string{"state": "/var/lib/gpuprobe", "host-proc": "/proc", "host-sys": "/sys", "kmsg": "/dev/kmsg"}
	if len(host) != len(wantHost) {
		t.Errorf("%s: host paths %v, want %v", ds.Name, host, wantHost)
	}
	for n, path := range wantHost {
		if host[n] != path {
			t.Errorf("%s: host path %s = %q, want %q", ds.Name, n, host[n], path)
		}
	}
	for _, m := range c.VolumeMounts {
		if _, isHost := host[m.Name]; isHost && m.Name != "state" && !m.ReadOnly {
			t.Errorf("%s: host mount %s is writable", ds.Name, m.Name)
		}
	}
	if c.Resources.Limits.Memory().IsZero() || c.Resources.Requests.Cpu().IsZero() {
		t.Errorf("%s: resources %+v", ds.Name, c.Resources)
	}
}

// serve's pod meets the PodSecurity "restricted" level: non-root, no
// privilege escalation, every capability dropped, the runtime's seccomp
// profile, no host namespaces or paths; its store is on a claim.
func TestServeDeploymentIsRestricted(t *testing.T) {
	rs := render(t, "chart/gpusla/ci/serve-values.yaml")
	var dep *appsv1.Deployment
	for _, r := range rs {
		if d, ok := r.Obj.(*appsv1.Deployment); ok {
			dep = d
		}
	}
	if dep == nil {
		t.Fatal("no serve Deployment")
	}
	p := dep.Spec.Template.Spec
	psc, c := p.SecurityContext, p.Containers[0]
	sc := c.SecurityContext
	switch {
	case p.HostNetwork || p.HostPID || p.HostIPC:
		t.Error("host namespaces")
	case psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0:
		t.Errorf("pod security context %+v", psc)
	case psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault:
		t.Errorf("seccomp %+v", psc.SeccompProfile)
	case sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.Capabilities == nil ||
		!slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) != 0:
		t.Errorf("container security context %+v", sc)
	case dep.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType || *dep.Spec.Replicas != 1:
		t.Errorf("strategy %v, replicas %d: the store file is one process's", dep.Spec.Strategy.Type, *dep.Spec.Replicas)
	}
	for _, v := range p.Volumes {
		if v.HostPath != nil {
			t.Errorf("host path %s", v.Name)
		}
		if v.Name == "data" && (v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != "gpusla-serve-data") {
			t.Errorf("data volume %+v", v)
		}
	}
	if !slices.Contains(c.Args, "--tls-cert=/etc/gpusla/tls/tls.crt") || !slices.Contains(c.Args, "--data=/data") {
		t.Errorf("args %v", c.Args)
	}
}

// What `helm install` prints after installing names the Secret the token
// must be in, the PodSecurity level, and how stress is allowed on a node —
// or that it is off — for every values file.
func TestChartNotes(t *testing.T) {
	want := map[string][]string{
		"": {"Secret gpuprobe-enrol (key \"token\")", "create secret generic gpuprobe-enrol", "pod-security.kubernetes.io/enforce=privileged",
			"kubectl label node NODE gpusla.io/stress=allowed", "inside 02:00-05:00"},
		"chart/gpusla/ci/minimal-values.yaml": {"Secret gpusla-gpuprobe-enrol (key \"token\")", "Stress is off on every node"},
		"chart/gpusla/ci/serve-values.yaml":   {"pushes to https://gpusla-serve.gpusla.svc:8443/v1/batches", "gpusla.io/stress=allowed"},
	}
	for _, f := range valuesFiles(t) {
		vals, err := chartrender.ReadValues(f)
		if err != nil {
			t.Fatal(err)
		}
		notes, err := chartrender.Notes(ChartDir, vals)
		if err != nil {
			t.Fatalf("values %q: %v", f, err)
		}
		for _, w := range want[f] {
			if !strings.Contains(notes, w) {
				t.Errorf("values %q: no %q in the notes:\n%s", f, w, notes)
			}
		}
		if f == "chart/gpusla/ci/minimal-values.yaml" && strings.Contains(notes, "create secret generic") {
			t.Errorf("the chart makes the Secret, yet the notes ask for one:\n%s", notes)
		}
	}
}
