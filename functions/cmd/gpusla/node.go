package main

import (
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/config"
	"github.com/gpusla/gpusla/probe/expect"
)

func init() {
	commands = append(commands, newNodeCmd)
}

func newNodeCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "node", Short: "Register and list rented nodes (local store)"}
	cmd.AddCommand(newNodeAddCmd(), newNodeListCmd())
	return cmd
}

// probeConfig is the part of the probe's config file (probe/config) that
// `node add` fills in; the probe's defaults cover the rest.
type probeConfig struct {
	Node       string            `yaml:"node"`
	Backend    probeBackend      `yaml:"backend"`
	SecretFile string            `yaml:"secret_file"`
	Schedules  map[string]string `yaml:"schedules"`
	Expected   expect.Expected   `yaml:"expected"`
}

type probeBackend struct {
	URL string `yaml:"url"`
}

func newNodeAddCmd() *cobra.Command {
	var (
		data, orderedAt, backendURL, secretPath string
		gpuMemGB                                float64
		in                                      app.NewNode
	)
	cmd := &cobra.Command{
		Use:   "add --id NODE --provider NAME --contract ID [flags]",
		Short: "Register a node; prints its secret once and a ready probe config",
		Long: `Registers a rented node in the local store (--data, the folder of ` + "`gpusla serve`" + `;
stop serve first, the store file is locked while it runs) and prints:

  1. the node's secret — shown only this once, stored only encrypted (AES-GCM
     with the data folder's master key);
  2. a probe config (YAML for ` + "`gpuprobe run --config`" + `) with the backend URL,
     the heartbeat schedule and the ordered hardware.

Save the secret on the node in the file the config names, mode 0600.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			in.OrderedAt = time.Now().UTC()
			if orderedAt != "" {
				t, err := time.Parse(time.RFC3339, orderedAt)
				if err != nil {
					return fmt.Errorf("--ordered-at %q: want an RFC 3339 time such as 2026-11-30T08:00:00Z", orderedAt)
				}
				in.OrderedAt = t
			}
			if gpuMemGB < 0 {
				return fmt.Errorf("--gpu-memory-gb: must not be negative")
			}
			in.GPUMemoryMiB = int(gpuMemGB * 1024)
			store, box, _, err := wiring.FromEnv().OpenStore(cmd.Context(), data) // $GPUSLA_TABLE: DynamoDB
			if err != nil {
				return err
			}
			defer store.Close()
			svc, err := app.New(app.Config{Store: store, Notifier: noNotifier{}, Box: box, Log: quietLogger()})
			if err != nil {
				return err
			}
			n, secret, err := svc.AddNode(cmd.Context(), in)
			var fe *app.Error
			if errors.As(err, &fe) {
				return fmt.Errorf("--%s: %s", flagOf(fe.Field), fe.Msg)
			} else if err != nil {
				return err
			}
			return printNodeAdded(cmd.OutOrStdout(), n, secret, backendURL, secretPath, gpuMemGB)
		},
	}
	f := cmd.Flags()
	f.StringVar(&data, "data", "./data", "data folder of the local backend")
	f.StringVar(&in.ID, "id", "", "node id (letters, digits, '.', '_', '-')")
	f.StringVar(&in.Provider, "provider", "", "provider name")
	f.StringVar(&in.Contract, "contract", "", "contract id in the terms file")
	f.StringVar(&orderedAt, "ordered-at", "", "when the node was ordered (RFC 3339; default now)")
	f.StringVar(&in.GPUModel, "gpu-model", "", "GPU model as ordered (e.g. H100, NVIDIA H200)")
	f.IntVar(&in.GPUCount, "gpus", 0, "number of GPUs ordered")
	f.Float64Var(&gpuMemGB, "gpu-memory-gb", 0, "memory per GPU as sold, in GB")
	f.Float64Var(&in.PricePerHour, "price", 0, "price per node-hour")
	f.StringVar(&in.Currency, "currency", "USD", "currency of --price")
	f.DurationVar(&in.HeartbeatInterval, "heartbeat", app.DefaultHeartbeatInterval, "probe heartbeat interval")
	f.DurationVar(&in.PushInterval, "push", app.DefaultPushInterval, "probe push interval")
	f.DurationVar(&in.Grace, "grace", app.DefaultGrace, "grace after a missed heartbeat before the node is called unreachable")
	f.StringVar(&backendURL, "backend-url", "http://127.0.0.1:8080/v1/batches", "ingest URL the probe pushes to (the SAM stack's output, or serve's)")
	f.StringVar(&secretPath, "secret-file", "/etc/gpuprobe/secret", "where the probe config says the secret is kept on the node")
	return cmd
}

// flagOf maps an application field name to this command's flag.
func flagOf(field string) string {
	switch field {
	case "heartbeat_interval":
		return "heartbeat"
	case "push_interval":
		return "push"
	case "ordered_at":
		return "ordered-at"
	}
	return field
}

func printNodeAdded(w io.Writer, n store.Node, secret []byte, url, secretPath string, gpuMemGB float64) error {
	pc := probeConfig{Node: n.ID, Backend: probeBackend{URL: url}, SecretFile: secretPath,
		Schedules: map[string]string{"heartbeat": n.HeartbeatInterval.String(), "push": n.PushInterval.String()},
		Expected:  expect.Expected{Model: n.GPUModel, GPUs: n.GPUCount, GPUMemoryGB: gpuMemGB}}
	y, err := yaml.Marshal(pc)
	if err != nil {
		return err
	}
	// The printed config must be one the probe accepts.
	if _, err := config.Parse(y, "probe config"); err != nil {
		return fmt.Errorf("internal: generated probe config is invalid: %w", err)
	}
	_, err = fmt.Fprintf(w, `# Registered %s (provider %s, contract %s).
# Its secret, shown only this once (stored here only encrypted):
%s
#
# On the node, save it (mode 0600) where the config below expects it:
#   sudo install -d -m 700 %s && printf '%%s\n' '<secret>' | sudo install -m 600 /dev/stdin %s
# and run the probe with this config (gpuprobe run --config /etc/gpuprobe/config.yaml):
---
%s`, n.ID, n.Provider, n.Contract, secret, dirOf(secretPath), secretPath, y)
	return err
}

func dirOf(p string) string {
	for i := len(p) - 1; i > 0; i-- {
		if p[i] == '/' {
			return p[:i]
		}
	}
	return "."
}

func newNodeListCmd() *cobra.Command {
	var data string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List registered nodes with their last heartbeat",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			store, _, err := wiring.OpenData(data, false)
			if err != nil {
				return err
			}
			defer store.Close()
			nodes, err := store.ListNodes(cmd.Context())
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NODE\tPROVIDER\tCONTRACT\tGPUS\tLAST SEQ\tLAST RECEIVED\tUNREACHABLE")
			for _, n := range nodes {
				st, _ := store.GetState(cmd.Context(), n.ID)
				last := "-"
				if !st.LastReceivedAt.IsZero() {
					last = st.LastReceivedAt.Format(time.RFC3339)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%v\n", n.ID, n.Provider, n.Contract, n.GPUCount, st.LastSeq, last, st.Eval.Unreachable != nil)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&data, "data", "./data", "data folder of the local backend")
	return cmd
}
