package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/enroltoken"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/store"
)

func init() {
	commands = append(commands, newTokenCmd, newEnrolCmd)
}

// target is where a token command acts: the local store (--data), or a
// running backend (--server, with an API key in $GPUSLA_API_KEY).
type target struct{ data, server string }

func (tg *target) flags(cmd *cobra.Command) {
	cmd.PersistentFlags().StringVar(&tg.data, "data", "./data", "data folder of the local backend (stop gpusla serve first, or use --server)")
	cmd.PersistentFlags().StringVar(&tg.server, "server", "", "send it to this running backend instead (key: $"+wiring.EnvAPIKey+")")
}

// offline runs fn on the local store's service, with the terms serve
// would load installed, so a token's contract is checked against them.
func (tg *target) offline(ctx context.Context, fn func(*app.Service) error) error {
	o, err := wiring.FromEnv().OpenOffline(ctx, tg.data, true) // $GPUSLA_TABLE: DynamoDB
	if err != nil {
		return err
	}
	defer o.Close()
	book, err := o.Terms()
	if err != nil {
		return err
	}
	if book != nil {
		o.Service.SetTerms(book)
	}
	return fn(o.Service)
}

// create makes a token locally or remotely and returns it as shown.
func (tg *target) create(ctx context.Context, req httpapi.TokenRequest) (httpapi.TokenView, error) {
	var v httpapi.TokenView
	if tg.server != "" {
		return v, remoteAdmin(ctx, tg.server, httpapi.PathEnrolTokens, req, &v)
	}
	err := tg.offline(ctx, func(svc *app.Service) error {
		in, err := httpapi.TokenOrder(req, cliActor())
		if err != nil {
			return flagError(err)
		}
		t, text, err := svc.CreateEnrolToken(ctx, in)
		if err != nil {
			return flagError(err)
		}
		v = httpapi.NewTokenView(t)
		v.Token = text
		return nil
	})
	return v, err
}

func newTokenCmd() *cobra.Command {
	var tg target
	cmd := &cobra.Command{Use: "token", Short: "Enrolment tokens: probes started with one register themselves as nodes of one order"}
	tg.flags(cmd)
	cmd.AddCommand(newTokenCreateCmd(&tg), newTokenListCmd(&tg), newTokenRevokeCmd(&tg))
	return cmd
}

func newTokenCreateCmd(tg *target) *cobra.Command {
	var (
		req              httpapi.TokenRequest
		expires, backend string
	)
	cmd := &cobra.Command{
		Use:   "create --provider NAME --contract ID --gpu-model MODEL --gpus N [flags]",
		Short: "Make an enrolment token for a fleet of one order; prints it once with the probe config",
		Long: `Makes an enrolment token — "gpe_<id>_<secret>", shown only this once, stored as a
hash — that carries one contract and what was ordered (GPU model, count, memory
per GPU, the driver when the order names one, price). A probe started with it (config enrol.token_file) registers
itself as a node on its first start, proposing only its id (the host name, the
Kubernetes node name, or node: in its config), and receives its own secret.
The order is the token's, never the node's own report: hardware truth is
judged against it.

The token expires (--expires, default 24h, at most 90 days) and is good for
--uses enrolments (default 1); a token never takes an existing node's id.
Revoke it with ` + "`gpusla token revoke ID`" + `. Every enrolment is recorded with
its token, who made it, and when (` + "`gpusla enrol list`" + `, the evidence bundle).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := enroltoken.CheckModel(req.GPUModel); err != nil {
				return err
			}
			if _, err := enroltoken.FleetConfig(backend); err != nil {
				return err
			}
			at, err := expiry(expires, time.Now())
			if err != nil {
				return err
			}
			req.ExpiresAt = at
			v, err := tg.create(cmd.Context(), req)
			if err != nil {
				return err
			}
			return enroltoken.Print(cmd.OutOrStdout(), v, backend)
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.Name, "name", "", "what the token is for (a rack, a batch of the order)")
	f.StringVar(&req.Provider, "provider", "", "provider name")
	f.StringVar(&req.Contract, "contract", "", "contract id in the terms file")
	f.StringVar(&req.OrderedAt, "ordered-at", "", "when the nodes were ordered (RFC 3339; default now): delivery is measured from here")
	f.StringVar(&req.GPUModel, "gpu-model", "", "GPU model as ordered (e.g. H100, NVIDIA H200)")
	f.IntVar(&req.GPUs, "gpus", 0, "GPUs per node, as ordered")
	f.Float64Var(&req.GPUMemoryGB, "gpu-memory-gb", 0, "memory per GPU as sold, in GB")
	f.StringVar(&req.GPUDriver, "driver", "", "NVIDIA driver as ordered, when the order names one (580.159.04, or 580 for any 580 release)")
	f.Float64Var(&req.PricePerHour, "price", 0, "price per node-hour, all its GPUs together")
	f.StringVar(&req.Currency, "currency", "USD", "currency of --price (ISO 4217)")
	f.StringVar(&req.Heartbeat, "heartbeat", "", "probe heartbeat interval (default 30s)")
	f.StringVar(&req.Push, "push", "", "probe push interval (default 60s)")
	f.StringVar(&req.Grace, "grace", "", "grace after a missed heartbeat before a node is called unreachable (default 90s)")
	f.StringVar(&expires, "expires", "24h", "how long the token works: a duration (24h) or an RFC 3339 time")
	f.IntVar(&req.Uses, "uses", 1, "how many nodes may enrol with it")
	f.StringVar(&backend, "backend-url", "http://127.0.0.1:8080/v1/batches", "ingest URL the probes push to (the SAM stack's output, or serve's), put in the printed config")
	return cmd
}

// expiry reads --expires: a duration from now or an RFC 3339 time.
func expiry(v string, now time.Time) (string, error) {
	if d, err := time.ParseDuration(v); err == nil {
		if d <= 0 {
			return "", fmt.Errorf("--expires: %s is not ahead", v)
		}
		return now.Add(d).UTC().Format(time.RFC3339), nil
	}
	if _, err := time.Parse(time.RFC3339, v); err != nil {
		return "", fmt.Errorf("--expires: %q is neither a duration (24h) nor an RFC 3339 time", v)
	}
	return v, nil
}

func newTokenListCmd(tg *target) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List enrolment tokens: order, uses, expiry, who made them",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var vs []httpapi.TokenView
			if tg.server != "" {
				if err := remoteCall(cmd.Context(), http.MethodGet, tg.server, httpapi.PathEnrolTokens, nil, &vs); err != nil {
					return err
				}
			} else if err := tg.offline(cmd.Context(), func(svc *app.Service) error {
				ts, err := svc.ListEnrolTokens(cmd.Context())
				for _, t := range ts {
					vs = append(vs, httpapi.NewTokenView(t))
				}
				return err
			}); err != nil {
				return err
			}
			return enroltoken.Tokens(cmd.OutOrStdout(), vs, time.Now())
		},
	}
}

func newTokenRevokeCmd(tg *target) *cobra.Command {
	return &cobra.Command{
		Use:   "revoke ID",
		Short: "Stop a token from enrolling any more nodes (those it enrolled keep their secrets)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var v httpapi.TokenView
			if tg.server != "" {
				if err := remoteAdmin(cmd.Context(), tg.server, strings.Replace(httpapi.PathTokenRevoke, "{id}", url.PathEscape(args[0]), 1), struct{}{}, &v); err != nil {
					return err
				}
			} else if err := tg.offline(cmd.Context(), func(svc *app.Service) error {
				t, err := svc.RevokeEnrolToken(cmd.Context(), args[0], cliActor())
				v = httpapi.NewTokenView(t)
				return flagError(err)
			}); err != nil {
				return err
			}
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "token %s revoked at %s by %s (%d of %d uses taken)\n", v.ID, v.RevokedAt.Format(time.RFC3339), v.RevokedBy, v.Uses, v.MaxUses)
			return err
		},
	}
}

func newEnrolCmd() *cobra.Command {
	var tg target
	cmd := &cobra.Command{Use: "enrol", Short: "Enrolments: the record of every node that enrolled, and re-enrolling one"}
	tg.flags(cmd)
	var node string
	list := &cobra.Command{
		Use:   "list [--node NODE]",
		Short: "List enrolments: node, when, token, who made the token, host, probe version, from where",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var es []store.Enrolment
			if tg.server != "" {
				if err := remoteCall(cmd.Context(), http.MethodGet, tg.server, httpapi.PathEnrolments+"?node="+url.QueryEscape(node), nil, &es); err != nil {
					return err
				}
			} else if err := tg.offline(cmd.Context(), func(svc *app.Service) error {
				var err error
				es, err = svc.Enrolments(cmd.Context(), node)
				return err
			}); err != nil {
				return err
			}
			return enroltoken.Enrolments(cmd.OutOrStdout(), es)
		},
	}
	list.Flags().StringVar(&node, "node", "", "only this node's")
	cmd.AddCommand(list, newEnrolAgainCmd(&tg))
	return cmd
}

func newEnrolAgainCmd(tg *target) *cobra.Command {
	var expires, backend string
	cmd := &cobra.Command{
		Use:   "again NODE",
		Short: "Let an existing node enrol again (its secret was lost): prints a one-use token for it alone",
		Long: `A probe never enrols again on its own, and a token never takes an existing
node's id: when a node's disk was wiped and its secret lost, re-enrolling it is
the renter's act. This makes a token good once, for NODE alone, with NODE's
order. Put it in the node's enrol.token_file and remove its enrol.state file
(` + "/var/lib/gpuprobe/enrolment.json" + `); its next start replaces the node's secret,
and the old one stops working. The re-enrolment is recorded like an enrolment.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			at, err := expiry(expires, time.Now())
			if err != nil {
				return err
			}
			if _, err := enroltoken.FleetConfig(backend); err != nil {
				return err
			}
			v, err := tg.create(cmd.Context(), httpapi.TokenRequest{Reenrol: args[0], ExpiresAt: at, Name: "re-enrol " + args[0]})
			if err != nil {
				return err
			}
			return enroltoken.Print(cmd.OutOrStdout(), v, backend)
		},
	}
	cmd.Flags().StringVar(&expires, "expires", "24h", "how long the token works: a duration (24h) or an RFC 3339 time")
	cmd.Flags().StringVar(&backend, "backend-url", "http://127.0.0.1:8080/v1/batches", "ingest URL the probe pushes to, put in the printed config")
	return cmd
}
