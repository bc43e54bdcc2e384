package netcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"time"
)

// IperfResult is the throughput iperf3 measured at the receiving end.
type IperfResult struct {
	Mbps        float64 // received, Mbit/s
	SentMbps    float64
	Retransmits int
	Seconds     float64
}

// iperfJSON is the part of `iperf3 --json` output we read.
type iperfJSON struct {
	Error string `json:"error"`
	End   struct {
		SumSent *struct {
			Seconds       float64 `json:"seconds"`
			BitsPerSecond float64 `json:"bits_per_second"`
			Retransmits   int     `json:"retransmits"`
		} `json:"sum_sent"`
		SumReceived *struct {
			Seconds       float64 `json:"seconds"`
			BitsPerSecond float64 `json:"bits_per_second"`
		} `json:"sum_received"`
	} `json:"end"`
}

// ParseIperf reads iperf3's --json output of a TCP test.
func ParseIperf(out []byte) (IperfResult, error) {
	var j iperfJSON
	if err := json.Unmarshal(out, &j); err != nil {
		return IperfResult{}, fmt.Errorf("iperf3 output is not JSON: %w", err)
	}
	if j.Error != "" {
		return IperfResult{}, fmt.Errorf("iperf3: %s", j.Error)
	}
	if j.End.SumReceived == nil || j.End.SumSent == nil {
		return IperfResult{}, errors.New("iperf3 output has no end.sum_received/sum_sent (not a TCP test?)")
	}
	r := IperfResult{
		Mbps:        j.End.SumReceived.BitsPerSecond / 1e6,
		SentMbps:    j.End.SumSent.BitsPerSecond / 1e6,
		Retransmits: j.End.SumSent.Retransmits,
		Seconds:     j.End.SumReceived.Seconds,
	}
	if r.Mbps < 0 || r.SentMbps < 0 || r.Seconds < 0 {
		return IperfResult{}, errors.New("iperf3 output has negative figures")
	}
	return r, nil
}

// RunIperf runs the iperf3 client against the peer and parses its result.
func RunIperf(ctx context.Context, p Iperf) (IperfResult, error) {
	ctx, cancel := context.WithTimeout(ctx, p.Duration+30*time.Second)
	defer cancel()
	args := []string{"-c", p.Host, "-p", strconv.Itoa(p.Port),
		"-t", strconv.FormatFloat(p.Duration.Seconds(), 'f', -1, 64),
		"-P", strconv.Itoa(p.Parallel), "--json"}
	if p.Reverse {
		args = append(args, "-R")
	}
	cmd := exec.CommandContext(ctx, p.Binary, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	// iperf3 reports its own errors inside the JSON, even when it exits 1.
	if stdout.Len() > 0 {
		return ParseIperf(stdout.Bytes())
	}
	if runErr != nil {
		return IperfResult{}, fmt.Errorf("run %s: %w: %s", p.Binary, runErr, bytes.TrimSpace(stderr.Bytes()))
	}
	return IperfResult{}, errors.New("iperf3 printed nothing")
}
