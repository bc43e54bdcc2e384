// Package podspec reads what the probe's container runs with out of a
// rendered chart — its arguments, environment, mounts, user and
// capabilities, and the ConfigMap files it mounts — so that the probe can
// be run on a machine without Kubernetes exactly as the DaemonSet runs it
// (deploy/bench/device_daemonset_flags.sh).
package podspec

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"

	"github.com/gpusla/gpusla/deploy/chartrender"
)

// Mount kinds: a host path bound in, a memory or disk scratch folder, a
// file of a ConfigMap, the files of a Secret (which the caller supplies).
const (
	KindBind   = "bind"
	KindTmpfs  = "tmpfs"
	KindFile   = "file"
	KindSecret = "secret"
)

// Mount is one volume mount of the container.
type Mount struct {
	Target string
	Kind   string
	// Source is the host path (bind), the size limit (tmpfs, "" for
	// none), the file under Pod.Files (file), or the Secret's name.
	Source   string
	ReadOnly bool
}

// Pod is what the container runs with.
type Pod struct {
	Image   string
	Command []string
	Args    []string
	// Env is NAME=VALUE, in the container's order.
	Env    []string
	Mounts []Mount
	// Files are the ConfigMap files mounted, by the path under Write's
	// folder files/ (their mount path).
	Files map[string]string
	// User is the UID the container runs as; Caps the capabilities it
	// keeps (after dropping the rest); Privileged, NoNewPrivs and
	// ReadOnlyRoot its security context's.
	User                                 int64
	Caps                                 []string
	Privileged, NoNewPrivs, ReadOnlyRoot bool
	HostNetwork, HostPID                 bool
}

// Of reads the first container of the DaemonSet called ds, resolving the
// downward API's spec.nodeName to node.
func Of(rs []chartrender.Rendered, ds, node string) (Pod, error) {
	d, err := chartrender.DaemonSet(rs, ds)
	if err != nil {
		return Pod{}, err
	}
	spec := d.Spec.Template.Spec
	if len(spec.Containers) == 0 {
		return Pod{}, fmt.Errorf("DaemonSet %s has no container", ds)
	}
	c := spec.Containers[0]
	p := Pod{Image: c.Image, Command: c.Command, Args: c.Args, Files: map[string]string{}, HostNetwork: spec.HostNetwork, HostPID: spec.HostPID}
	for _, e := range c.Env {
		v, err := envValue(e, node)
		if err != nil {
			return Pod{}, err
		}
		p.Env = append(p.Env, e.Name+"="+v)
	}
	vols := map[string]corev1.Volume{}
	for _, v := range spec.Volumes {
		vols[v.Name] = v
	}
	for _, m := range c.VolumeMounts {
		mt, err := p.mount(rs, vols, m)
		if err != nil {
			return Pod{}, fmt.Errorf("DaemonSet %s, mount %s: %w", ds, m.Name, err)
		}
		p.Mounts = append(p.Mounts, mt)
	}
	p.security(spec.SecurityContext, c.SecurityContext)
	return p, nil
}

func envValue(e corev1.EnvVar, node string) (string, error) {
	switch {
	case e.ValueFrom == nil:
		return e.Value, nil
	case e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "spec.nodeName":
		return node, nil
	}
	return "", fmt.Errorf("env %s: only values and the downward API's spec.nodeName can be given outside Kubernetes", e.Name)
}

// mount reads one volume mount.
func (p *Pod) mount(rs []chartrender.Rendered, vols map[string]corev1.Volume, m corev1.VolumeMount) (Mount, error) {
	v, ok := vols[m.Name]
	if !ok {
		return Mount{}, fmt.Errorf("no volume %q", m.Name)
	}
	out := Mount{Target: m.MountPath, ReadOnly: m.ReadOnly}
	switch {
	case v.HostPath != nil:
		out.Kind, out.Source = KindBind, v.HostPath.Path
	case v.EmptyDir != nil:
		out.Kind = KindTmpfs
		if v.EmptyDir.SizeLimit != nil {
			out.Source = strconv.FormatInt(v.EmptyDir.SizeLimit.Value(), 10)
		}
	case v.Secret != nil:
		out.Kind, out.Source = KindSecret, v.Secret.SecretName
	case v.ConfigMap != nil:
		cm, err := chartrender.ConfigMap(rs, v.ConfigMap.Name)
		if err != nil {
			return Mount{}, err
		}
		if m.SubPath == "" {
			return Mount{}, fmt.Errorf("a whole ConfigMap mounted: only a file of one (subPath) is supported")
		}
		data, ok := cm.Data[m.SubPath]
		if !ok {
			return Mount{}, fmt.Errorf("ConfigMap %s has no %s", cm.Name, m.SubPath)
		}
		out.Kind, out.Source = KindFile, strings.TrimPrefix(m.MountPath, "/")
		p.Files[out.Source] = data
	default:
		return Mount{}, fmt.Errorf("a volume kind this reader does not know")
	}
	return out, nil
}

// security reads the pod's and the container's security contexts, the
// container's winning.
func (p *Pod) security(pod *corev1.PodSecurityContext, c *corev1.SecurityContext) {
	if pod != nil && pod.RunAsUser != nil {
		p.User = *pod.RunAsUser
	}
	if c == nil {
		return
	}
	if c.RunAsUser != nil {
		p.User = *c.RunAsUser
	}
	if c.Capabilities != nil {
		for _, cp := range c.Capabilities.Add {
			p.Caps = append(p.Caps, string(cp))
		}
	}
	p.Privileged = c.Privileged != nil && *c.Privileged
	p.NoNewPrivs = c.AllowPrivilegeEscalation != nil && !*c.AllowPrivilegeEscalation
	p.ReadOnlyRoot = c.ReadOnlyRootFilesystem != nil && *c.ReadOnlyRootFilesystem
}

// Write writes the pod into dir as documented in cmd/podspec: args, env,
// mounts, security and files/.
func (p Pod) Write(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "files"), 0o755); err != nil {
		return err
	}
	var mounts strings.Builder
	for _, m := range p.Mounts {
		rw := "rw"
		if m.ReadOnly {
			rw = "ro"
		}
		src := m.Source
		if src == "" {
			src = "-"
		}
		fmt.Fprintf(&mounts, "%s\t%s\t%s\t%s\n", m.Target, m.Kind, src, rw)
	}
	caps := strings.Join(p.Caps, ",")
	sec := fmt.Sprintf("image\t%s\nuser\t%d\ncaps\t%s\nprivileged\t%t\nno_new_privs\t%t\nread_only_root\t%t\nhost_network\t%t\nhost_pid\t%t\n",
		p.Image, p.User, caps, p.Privileged, p.NoNewPrivs, p.ReadOnlyRoot, p.HostNetwork, p.HostPID)
	lines := func(xs []string) string {
		if len(xs) == 0 {
			return ""
		}
		return strings.Join(xs, "\n") + "\n"
	}
	for name, data := range map[string]string{"command": lines(p.Command), "args": lines(p.Args), "env": lines(p.Env),
		"mounts": mounts.String(), "security": sec} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			return err
		}
	}
	for rel, data := range p.Files {
		f := filepath.Join(dir, "files", filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(f, []byte(data), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// SetValue sets a dotted path in vals to a value read as YAML reads a
// scalar (true, 12 and "x" as such), as `helm --set` does for simple
// values.
func SetValue(vals map[string]any, kv string) error {
	path, raw, ok := strings.Cut(kv, "=")
	if !ok || path == "" {
		return fmt.Errorf("-set %q: want path.to.key=value", kv)
	}
	var v any
	if err := yaml.Unmarshal([]byte(raw), &v); err != nil {
		v = raw
	}
	keys := strings.Split(path, ".")
	m := vals
	for i, k := range keys[:len(keys)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			if _, taken := m[k]; taken {
				return fmt.Errorf("-set %q: %s is not a map", kv, strings.Join(keys[:i+1], "."))
			}
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[keys[len(keys)-1]] = v
	return nil
}
