package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/gpusla/gpusla/internal/atomicfile"

	"github.com/gpusla/gpusla/probe/expect"
	"github.com/gpusla/gpusla/probe/wire"
)

// DefaultEnrolState is where an enrolled probe keeps its id, secret and
// order: beside the spool, in the one directory the systemd unit lets it
// write and the DaemonSet keeps on the host across pod restarts.
const DefaultEnrolState = "/var/lib/gpuprobe/enrolment.json"

// EnvNodeName is the variable a Kubernetes DaemonSet sets from the downward
// API (spec.nodeName): an enrolling probe proposes it as its id.
const EnvNodeName = "NODE_NAME"

// Enrol is the `enrol:` section: instead of a node id and a secret handed
// out by `gpusla node add`, a renter's enrolment token with which the probe
// registers itself on its first start. The id it proposes is `node:` when
// set, else $NODE_NAME (a Kubernetes node), else the host name.
type Enrol struct {
	// TokenFile holds the token (gpe_…); relative to the config file.
	TokenFile string `yaml:"token_file"`
	// State is where the answer is kept, mode 0600: the node's id, its
	// secret and the order (default DefaultEnrolState).
	State string `yaml:"state"`
}

// Enabled reports whether the section is there.
func (e Enrol) Enabled() bool { return e.TokenFile != "" || e.State != "" }

// EnrolState is what an enrolled probe keeps: who it is, its secret and
// what the renter ordered, as the backend answered.
type EnrolState struct {
	// Backend is the ingest URL it enrolled with: its secret is that
	// backend's.
	Backend string `json:"backend"`
	// Node and Key are what the probe proposed and enrolled with, kept
	// before the first request so that a retry asks for the same node.
	Node     string             `json:"node"`
	Key      string             `json:"key"`
	Enrolled time.Time          `json:"enrolled_at,omitzero"`
	Answer   wire.EnrolResponse `json:"answer,omitzero"`
}

// Done reports whether the backend answered: the node has its secret.
func (s EnrolState) Done() bool { return s.Answer.Node != "" && len(s.Answer.Secret) >= MinSecretBytes }

// validateEnrol checks the section: a token file, and no secret_file
// beside it (the secret is the enrolment's).
func (c *Config) validateEnrol() error {
	if !c.Enrol.Enabled() {
		return nil
	}
	if c.Enrol.TokenFile == "" {
		return badField("enrol.token_file", "missing: the file holding the renter's enrolment token (gpe_…)")
	}
	if c.SecretFile != "" {
		return badField("secret_file", "not with enrol: an enrolled node's secret is the one the backend gave it (kept in enrol.state)")
	}
	if c.Enrol.State == "" {
		c.Enrol.State = DefaultEnrolState
	}
	return nil
}

// resolve makes p absolute against the config file's folder.
func (c *Config) resolve(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(filepath.Dir(c.Path), p)
}

// StatePath is the enrolment state file, resolved.
func (c *Config) StatePath() string { return c.resolve(c.Enrol.State) }

// TokenPath is the token file, resolved.
func (c *Config) TokenPath() string { return c.resolve(c.Enrol.TokenFile) }

// ErrNotEnrolled: the config enrols, and the state file holds no answer yet.
var ErrNotEnrolled = errors.New("not enrolled yet")

// ReadEnrolState reads the state file; ErrNotEnrolled (wrapped) when it
// does not exist. A file readable by others is refused: it holds the
// node's secret.
func ReadEnrolState(path string) (EnrolState, error) {
	var st EnrolState
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return st, fmt.Errorf("%s: %w", path, ErrNotEnrolled)
	}
	if err != nil {
		return st, err
	}
	if info.Mode().Perm()&0o077 != 0 {
		return st, fmt.Errorf("%s is readable by others (mode %04o); it holds the node's secret: chmod 600 it", path, info.Mode().Perm())
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		return st, fmt.Errorf("%s: %v", path, err)
	}
	return st, nil
}

// WriteEnrolState replaces the state file atomically, mode 0600, creating
// its folder (0700) if needed.
func WriteEnrolState(path string, st EnrolState) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	raw, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(raw, '\n'), 0o600)
}

// applyEnrolment fills what the enrolment gave into a config that enrols:
// the node id, the secret, the order (unless the config states one) and
// the schedule the backend judges the node by (unless the config sets
// one). It runs before validation, so all of it is checked as if written
// in the file.
func (c *Config) applyEnrolment() error {
	if !c.Enrol.Enabled() {
		return nil
	}
	if c.Enrol.State == "" {
		c.Enrol.State = DefaultEnrolState
	}
	path := c.StatePath()
	st, err := ReadEnrolState(path)
	if err == nil && !st.Done() {
		err = fmt.Errorf("%s: %w (the backend has not answered)", path, ErrNotEnrolled)
	}
	if err != nil {
		return &Error{File: c.Path, Field: "enrol.state", Msg: err.Error()}
	}
	a := st.Answer
	if c.Node != "" && c.Node != a.Node {
		return &Error{File: c.Path, Field: "node", Msg: fmt.Sprintf("%q, but this machine enrolled as %q (%s): a node id is not changed by editing the config; re-enrolment is the renter's act",
			c.Node, a.Node, path)}
	}
	if strings.TrimRight(st.Backend, "/") != strings.TrimRight(c.Backend.URL, "/") {
		return &Error{File: c.Path, Field: "backend.url", Msg: fmt.Sprintf("%q, but this machine enrolled with %q: its secret is that backend's", c.Backend.URL, st.Backend)}
	}
	c.Node, c.Secret = a.Node, []byte(a.Secret)
	if err := c.holdToOrder(a, path); err != nil {
		return err
	}
	if c.Schedules.Heartbeat == "" {
		c.Schedules.Heartbeat = a.Heartbeat
	}
	if c.Schedules.Push == "" && c.Schedules.Heartbeat == a.Heartbeat {
		c.Schedules.Push = a.Push
	}
	return nil
}

// holdToOrder makes what was ordered — the token's, as the backend
// answered — the expectations the hardware is judged by. The config may
// add what the order does not state (CPUs, RAM, disks, a driver the order
// leaves open) but not restate an ordered field differently: the node's
// side never decides what was bought.
func (c *Config) holdToOrder(a wire.EnrolResponse, path string) error {
	e := &c.Expected
	clash := func(field string, mine, ordered any) error {
		return &Error{File: c.Path, Field: "expected." + field, Msg: fmt.Sprintf("%v, but the order this machine enrolled under (%s) says %v: "+
			"what was ordered comes from the enrolment token; remove expected.%s", mine, path, ordered, field)}
	}
	switch {
	case a.GPUModel != "" && e.Model != "" && !strings.EqualFold(strings.TrimSpace(e.Model), strings.TrimSpace(a.GPUModel)):
		return clash("model", strconv.Quote(e.Model), strconv.Quote(a.GPUModel))
	case a.GPUs != 0 && e.GPUs != 0 && e.GPUs != a.GPUs:
		return clash("gpus", e.GPUs, a.GPUs)
	case a.GPUMemoryGB != 0 && e.GPUMemoryGB != 0 && math.Abs(e.GPUMemoryGB-a.GPUMemoryGB)*1024 >= 1:
		return clash("gpu_memory_gb", e.GPUMemoryGB, a.GPUMemoryGB)
	case a.GPUDriver != "" && e.Driver != "" && e.Driver != a.GPUDriver:
		return clash("driver", strconv.Quote(e.Driver), strconv.Quote(a.GPUDriver))
	}
	e.Merge(expect.Expected{Model: a.GPUModel, GPUs: a.GPUs, GPUMemoryGB: a.GPUMemoryGB, Driver: a.GPUDriver})
	return nil
}

// EnrolledOrder is what the hardware of an enrolled machine is judged
// by: the expectations of the config at path with the enrolment's order
// applied, as `gpuprobe run` loads them. enrolled is false (and nothing
// else is read) when the config has no enrol: section.
func EnrolledOrder(path string) (e expect.Expected, enrolled bool, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return e, false, fmt.Errorf("config: %w", err)
	}
	var probe struct {
		Enrol Enrol `yaml:"enrol"`
	}
	if yaml.Unmarshal(data, &probe) != nil || !probe.Enrol.Enabled() {
		return e, false, nil // not an enrolled config; the caller's own parser names any mistake
	}
	c, err := Load(path)
	if err != nil {
		return e, true, err
	}
	return c.Expected, true, nil
}

// ProposedNode is the id an enrolling probe proposes: the config's node,
// else $NODE_NAME, else the host name, checked as a node id.
func (c *Config) ProposedNode() (string, error) {
	id, from := c.Node, "node"
	if id == "" {
		id, from = os.Getenv(EnvNodeName), "$"+EnvNodeName
	}
	if id == "" {
		h, err := os.Hostname()
		if err != nil {
			return "", fmt.Errorf("the host name: %w", err)
		}
		id, from = h, "the host name"
	}
	if !wire.ValidNodeID(id) {
		return "", &Error{File: c.Path, Field: "node", Msg: fmt.Sprintf("%q (from %s) is not a node id (letters, digits, '.', '_', '-'; 1 to 64): set node: in the config", id, from)}
	}
	return id, nil
}

// LoadForEnrol reads and validates the config at path as far as an
// enrolment needs it — everything but the node's secret and what the
// enrolment will give — and its backend.ca_file.
func LoadForEnrol(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	c, err := Parse(data, path)
	if err != nil {
		return nil, err
	}
	return c, c.readCAFile()
}
