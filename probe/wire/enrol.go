package wire

import (
	"net/url"
	"regexp"
	"strings"
)

// Enrolment: a probe started with a renter's token registers itself as a
// node (POST PathEnrol, "Authorization: Bearer gpe_…"), proposing only its
// id, and is answered with its own secret and the order it is judged by.
const (
	PathEnrol = "/v1/enrol"
	// MaxEnrolBody caps an enrolment request.
	MaxEnrolBody = 4 << 10
)

// EnrolRequest is the body of POST PathEnrol.
type EnrolRequest struct {
	// Node is the id the probe proposes: its host or Kubernetes node name,
	// or one it was given; a re-enrolment token's own node when empty.
	Node string `json:"node,omitempty"`
	// Key is random, made once by the probe and kept until it has its
	// secret: a retry with the same key gets the same node and secret.
	Key          string `json:"key"`
	Hostname     string `json:"hostname,omitempty"`
	ProbeVersion string `json:"probe_version,omitempty"`
}

// EnrolResponse is the answer: the node's id and secret (the HMAC key
// bytes, hex), and what the renter ordered, which the probe's hardware
// checks are held to.
type EnrolResponse struct {
	Node     string `json:"node"`
	Secret   string `json:"secret"`
	Provider string `json:"provider"`
	Contract string `json:"contract"`
	// GPUModel, GPUs and GPUMemoryGB are the order (GB of 1024 MiB, as
	// the probe's expected.gpu_memory_gb reads them).
	GPUModel    string  `json:"gpu_model"`
	GPUs        int     `json:"gpus"`
	GPUMemoryGB float64 `json:"gpu_memory_gb,omitempty"`
	// GPUDriver is the NVIDIA driver the order names ("580.159.04", or a
	// leading part: "580"), empty when the order names none.
	GPUDriver string `json:"gpu_driver,omitempty"`
	// Heartbeat and Push are the schedule the backend judges the node's
	// liveness by (Go durations).
	Heartbeat string `json:"heartbeat"`
	Push      string `json:"push"`
	Reenrol   bool   `json:"reenrol,omitempty"`
}

// EnrolURL is the enrolment endpoint beside an ingest URL: the same scheme
// and host, PathEnrol in place of PathBatches ("https://h/v1/batches" →
// "https://h/v1/enrol"; a prefix before /v1/batches is kept).
func EnrolURL(ingest string) (string, error) {
	u, err := url.Parse(ingest)
	if err != nil {
		return "", err
	}
	prefix, _ := strings.CutSuffix(strings.TrimRight(u.Path, "/"), "/v1/batches")
	u.Path, u.RawQuery, u.Fragment = prefix+PathEnrol, "", ""
	return u.String(), nil
}

// BareIngestURL reports whether ingest names a host and no path
// ("https://h:8443", or a Function URL as output, "https://h/"): the
// backend's address, where a probe's pushes are told 404, not its ingest
// URL; want is the ingest URL it stands for.
func BareIngestURL(ingest string) (want string, bare bool) {
	u, err := url.Parse(ingest)
	if err != nil || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return "", false
	}
	return strings.TrimSuffix(ingest, "/") + "/v1/batches", true
}

// driverVersion is an NVIDIA driver version as nvidia-smi shows it, or a
// leading part of one: whole numbers separated by dots.
var driverVersion = regexp.MustCompile(`^[0-9]+(\.[0-9]+)*$`)

// ValidDriverVersion reports whether v names a driver as an order does
// ("580.159.04", "580.159" or "580"): the probe's expected.driver and an
// enrolment token's ordered driver are both held to it.
func ValidDriverVersion(v string) bool { return len(v) <= 32 && driverVersion.MatchString(v) }
