package main

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/functions/nodeadd"
	"github.com/gpusla/gpusla/functions/tables"
	"github.com/gpusla/gpusla/functions/wiring"
)

func init() {
	commands = append(commands, newNodeCmd)
}

func newNodeCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "node", Short: "Register, list and release rented nodes (local store)"}
	cmd.AddCommand(newNodeAddCmd(), newNodeListCmd(), newNodeReleaseCmd())
	return cmd
}

func newNodeAddCmd() *cobra.Command {
	var (
		data string
		req  nodeadd.Request
	)
	cmd := &cobra.Command{
		Use:   "add --id NODE --contract ID --gpu-model MODEL --gpus N [flags]",
		Short: "Register a node; prints its secret once and a ready probe config",
		Long: `Registers a rented node in the local store (--data, the folder of ` + "`gpusla serve`" + `;
stop serve first, the store file is locked while it runs) and prints:

  1. the node's secret — shown only this once, stored only encrypted (AES-GCM
     with the data folder's master key);
  2. a probe config (YAML for gpuprobe run --config) with the backend URL,
     the heartbeat schedule and the ordered hardware, to be saved on the node
     as /etc/gpuprobe/probe.yaml, the shipped systemd unit's path.

The provider, the currency and (unless --price is given) the price come from
the contract's terms in the data folder (<data>/terms, or $GPUSLA_TERMS); a
flag that contradicts them is refused. A probe on another machine pushes only
over https: give --backend-url https://… (serve with --tls-cert and --tls-key)
and --ca-file when its certificate is your own.

Save the secret on the node in the file the config names, mode 0600.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o, err := wiring.FromEnv().OpenOffline(cmd.Context(), data, true) // $GPUSLA_TABLE: DynamoDB
			if err != nil {
				return err
			}
			defer o.Close()
			if req.Terms, err = o.Terms(); err != nil {
				return err
			}
			req.Warn, req.TermsDir = cmd.ErrOrStderr(), filepath.Join(data, wiring.TermsDir)
			return nodeadd.Add(cmd.Context(), o.Service, req, cmd.OutOrStdout())
		},
	}
	in := &req.Node
	f := cmd.Flags()
	f.StringVar(&data, "data", "./data", "data folder of the local backend")
	f.StringVar(&in.ID, "id", "", "node id (letters, digits, '.', '_', '-')")
	f.StringVar(&in.Provider, "provider", "", "provider name (default: the contract's terms'; needed only without terms)")
	f.StringVar(&in.Contract, "contract", "", "contract id in the terms file")
	f.StringVar(&req.OrderedAt, "ordered-at", "", "when the node was ordered (RFC 3339; default now)")
	f.StringVar(&in.GPUModel, "gpu-model", "", "GPU model as ordered (e.g. H100, NVIDIA H200)")
	f.IntVar(&in.GPUCount, "gpus", 0, "number of GPUs ordered")
	f.Float64Var(&req.Probe.GPUMemoryGB, "gpu-memory-gb", 0, "memory per GPU as sold, in GB")
	f.Float64Var(&in.PricePerHour, "price", 0, "price per node-hour, all its GPUs together (default: the terms' billing.price_per_gpu_hour × --gpus; the report bills by the terms)")
	f.StringVar(&in.Currency, "currency", "", "currency of --price, ISO 4217 (default: the contract's terms', else USD)")
	f.StringVar(&in.InstanceID, "instance-id", "", "the provider's id of the instance (i-0abc…, ins-…), which a claim quotes")
	f.StringVar(&in.Region, "region", "", "the provider's region (and zone) it runs in, which a claim quotes")
	f.DurationVar(&in.HeartbeatInterval, "heartbeat", app.DefaultHeartbeatInterval, "probe heartbeat interval")
	f.DurationVar(&in.PushInterval, "push", app.DefaultPushInterval, "probe push interval")
	f.DurationVar(&in.Grace, "grace", app.DefaultGrace, "grace after a missed heartbeat before the node is called unreachable")
	f.StringVar(&req.Probe.BackendURL, "backend-url", "http://127.0.0.1:8080/v1/batches", "ingest `URL` the probe pushes to: https for a node on another machine (the SAM stack's IngestUrl, or serve with --tls-cert); plain http only to this machine")
	f.StringVar(&req.Probe.CAFile, "ca-file", "", "where the node keeps the PEM certificate of a backend serving https with its own certificate (backend.ca_file); default: the system's roots")
	f.StringVar(&req.Probe.SecretFile, "secret-file", "/etc/gpuprobe/secret", "where the probe config says the secret is kept on the node")
	return cmd
}

func newNodeListCmd() *cobra.Command {
	var data string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List registered nodes with their last heartbeat",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			store, _, err := wiring.FromEnv().OpenExisting(cmd.Context(), data) // $GPUSLA_TABLE: DynamoDB
			if err != nil {
				return err
			}
			defer store.Close()
			return tables.Nodes(cmd.Context(), cmd.OutOrStdout(), store)
		},
	}
	cmd.Flags().StringVar(&data, "data", "./data", "data folder of the local backend")
	return cmd
}

func newNodeReleaseCmd() *cobra.Command {
	var data, at, server, override string
	cmd := &cobra.Command{
		Use:   "release NODE --at TIME [--override REASON]",
		Short: "End a node's service period and billing at TIME (it was given back)",
		Long: `Records that NODE was given back at --at (RFC 3339, not before the node was
ordered, at most ` + app.MaxAdminLead.String() + ` ahead of now). The monthly report ends the node's period and
billing there; the live service raises no alerts about it from then on and
closes what was open at the release. A release is recorded once: the same
time again is accepted, another time is refused.

The release is recorded with when and by whom (cli:$USER here, the API key
with --server). A release dated before counted outage would put that outage
outside the service period: it is refused unless --override says why, and
the monthly report names every release dated before its recording in its
retroactive section (docs/reports.md).

The local store's file is locked while serve runs: stop serve first, or send
the command to the running backend with --server URL (serve's address or the
tickets function's URL) and an API key with the admin scope in $` + wiring.EnvAPIKey + `
(POST /v1/nodes/NODE/release).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := app.ParseTime("at", at)
			if err != nil {
				return flagError(err)
			}
			if server != "" {
				var v httpapi.NodeView
				if err := remoteAdmin(cmd.Context(), server, strings.Replace(httpapi.PathNodeRelease, "{id}", url.PathEscape(args[0]), 1),
					httpapi.ReleaseRequest{At: t.Format(time.RFC3339Nano), Override: override}, &v); err != nil {
					return err
				}
				_, err = fmt.Fprintf(cmd.OutOrStdout(), "node %s released at %s (recorded %s by %s)\n", v.ID, v.ReleasedAt.Format(time.RFC3339Nano),
					v.ReleaseRecordedAt.Format(time.RFC3339), v.ReleaseRecordedBy)
				return err
			}
			o, err := wiring.FromEnv().OpenOffline(cmd.Context(), data, false) // $GPUSLA_TABLE: DynamoDB
			if err != nil {
				return err
			}
			defer o.Close()
			n, err := o.Service.ReleaseNode(cmd.Context(), app.NodeRelease{Node: args[0], At: t, By: cliActor(), Override: override})
			if err != nil {
				return flagError(err)
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "node %s released at %s (recorded %s by %s)\n", n.ID, n.ReleasedAt.Format(time.RFC3339Nano),
				n.ReleaseRecordedAt.Format(time.RFC3339), n.ReleaseRecordedBy)
			return err
		},
	}
	cmd.Flags().StringVar(&data, "data", "./data", "data folder of the local backend")
	cmd.Flags().StringVar(&at, "at", "", "when the node was given back (RFC 3339)")
	cmd.Flags().StringVar(&override, "override", "", "why a release dated before counted outage should stand (the report names it)")
	cmd.Flags().StringVar(&server, "server", "", "send it to this running backend instead (key: $"+wiring.EnvAPIKey+")")
	return cmd
}

// flagError says an application error about a field as the flag of the
// same name (announced_at → --announced-at).
func flagError(err error) error {
	var ae *app.Error
	if errors.As(err, &ae) && ae.Field != "" && ae.Field != "node" {
		return fmt.Errorf("--%s: %s", strings.ReplaceAll(ae.Field, "_", "-"), ae.Msg)
	}
	return err
}
