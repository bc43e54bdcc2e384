package main

import (
	"bytes"
	"context"
	"net/http"
	"net/url"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/document"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/i18n"
)

// ledgerClient is the claims ledger as `gpusla claims` reaches it: the
// local store (the data folder or $GPUSLA_TABLE), or a running backend
// (--server, an API key with the claims scope). Both take the API's
// requests, so a refusal names the same field either way.
type ledgerClient interface {
	list(ctx context.Context) ([]app.ClaimView, error)
	get(ctx context.Context, id string) (app.ClaimView, error)
	sent(ctx context.Context, id string, req httpapi.SentRequest) (app.ClaimView, error)
	answer(ctx context.Context, id string, req httpapi.AnswerRequest) (app.ClaimView, error)
	credit(ctx context.Context, id string, req httpapi.CreditRequest) (app.ClaimView, error)
	credits(ctx context.Context) ([]claims.BillCredit, error)
	importCredits(ctx context.Context, req httpapi.ImportRequest) ([]app.CreditOutcome, error)
	apply(ctx context.Context, key, claim string) (app.ClaimView, error)
	recovery(ctx context.Context) (claims.Recovery, error)
	letter(ctx context.Context, id, lang string) ([]byte, error)
}

// localLedger is the ledger of the local store, recorded as cli:$USER.
type localLedger struct {
	l  *app.Ledger
	by string
}

// openLedger opens the ledger: remote with server, else the local store
// (closed by the returned func).
func openLedger(ctx context.Context, data, server string) (ledgerClient, func(), error) {
	if server != "" {
		return remoteLedger{base: server}, func() {}, nil
	}
	o, err := wiring.FromEnv().OpenOffline(ctx, data, false)
	if err != nil {
		return nil, nil, err
	}
	desk, err := o.Tickets()
	if err != nil {
		o.Close()
		return nil, nil, err
	}
	l, err := desk.Ledger()
	if err != nil {
		o.Close()
		return nil, nil, err
	}
	return localLedger{l: l, by: cliActor()}, func() { o.Close() }, nil
}

func (c localLedger) list(ctx context.Context) ([]app.ClaimView, error) { return c.l.Claims(ctx) }
func (c localLedger) get(ctx context.Context, id string) (app.ClaimView, error) {
	return c.l.Claim(ctx, id)
}

func (c localLedger) sent(ctx context.Context, id string, req httpapi.SentRequest) (app.ClaimView, error) {
	s, err := httpapi.SentOf(req, c.by)
	if err != nil {
		return app.ClaimView{}, err
	}
	return c.l.Send(ctx, id, s)
}

func (c localLedger) answer(ctx context.Context, id string, req httpapi.AnswerRequest) (app.ClaimView, error) {
	in, err := httpapi.AnswerOf(req, c.by)
	if err != nil {
		return app.ClaimView{}, err
	}
	return c.l.Answer(ctx, id, in)
}

func (c localLedger) credit(ctx context.Context, id string, req httpapi.CreditRequest) (app.ClaimView, error) {
	m, err := httpapi.CreditOf(id, req, c.by)
	if err != nil {
		return app.ClaimView{}, err
	}
	return c.l.CreditByHand(ctx, m)
}

func (c localLedger) credits(ctx context.Context) ([]claims.BillCredit, error) {
	bs, err := c.l.Credits(ctx)
	out := make([]claims.BillCredit, len(bs))
	for i, b := range bs {
		out[i] = b.BillCredit
	}
	return out, err
}

func (c localLedger) importCredits(ctx context.Context, req httpapi.ImportRequest) ([]app.CreditOutcome, error) {
	for i := range req.Credits {
		req.Credits[i].Contracts = req.Contracts
	}
	return c.l.ImportCredits(ctx, req.Credits, c.by)
}

func (c localLedger) apply(ctx context.Context, key, claim string) (app.ClaimView, error) {
	return c.l.Assign(ctx, key, claim, c.by)
}

func (c localLedger) recovery(ctx context.Context) (claims.Recovery, error) { return c.l.Recovery(ctx) }

func (c localLedger) letter(ctx context.Context, id, lang string) ([]byte, error) {
	v, err := c.l.Claim(ctx, id)
	if err != nil {
		return nil, err
	}
	if lang == "" {
		lang = v.Lang
	}
	l, err := i18n.Parse(lang)
	if err != nil {
		return nil, &app.Error{Kind: app.EInvalid, Field: "lang", Msg: err.Error()}
	}
	var b bytes.Buffer
	err = document.FollowUpLetter(&b, httpapi.FollowUpOf(c.l, v), l)
	return b.Bytes(), err
}

// remoteLedger is the ledger of a running backend.
type remoteLedger struct{ base string }

func claimPath(id, tail string) string { return httpapi.PathClaims + "/" + id + tail }

func (c remoteLedger) call(ctx context.Context, method, path string, body, out any) error {
	return remoteScoped(ctx, method, c.base, path, "claims", body, out)
}

func (c remoteLedger) list(ctx context.Context) ([]app.ClaimView, error) {
	var out struct{ Claims []app.ClaimView }
	return out.Claims, c.call(ctx, http.MethodGet, httpapi.PathClaims, nil, &out)
}

func (c remoteLedger) get(ctx context.Context, id string) (app.ClaimView, error) {
	var v app.ClaimView
	return v, c.call(ctx, http.MethodGet, claimPath(id, ""), nil, &v)
}

func (c remoteLedger) sent(ctx context.Context, id string, req httpapi.SentRequest) (app.ClaimView, error) {
	var v app.ClaimView
	return v, c.call(ctx, http.MethodPost, claimPath(id, "/sent"), req, &v)
}

func (c remoteLedger) answer(ctx context.Context, id string, req httpapi.AnswerRequest) (app.ClaimView, error) {
	var v app.ClaimView
	return v, c.call(ctx, http.MethodPost, claimPath(id, "/answer"), req, &v)
}

func (c remoteLedger) credit(ctx context.Context, id string, req httpapi.CreditRequest) (app.ClaimView, error) {
	var v app.ClaimView
	return v, c.call(ctx, http.MethodPost, claimPath(id, "/credits"), req, &v)
}

func (c remoteLedger) credits(ctx context.Context) ([]claims.BillCredit, error) {
	var out struct{ Credits []claims.BillCredit }
	return out.Credits, c.call(ctx, http.MethodGet, httpapi.PathBillCredits, nil, &out)
}

func (c remoteLedger) importCredits(ctx context.Context, req httpapi.ImportRequest) ([]app.CreditOutcome, error) {
	var out struct{ Credits []app.CreditOutcome }
	return out.Credits, c.call(ctx, http.MethodPost, httpapi.PathBillCreditsIn, req, &out)
}

func (c remoteLedger) apply(ctx context.Context, key, claim string) (app.ClaimView, error) {
	var v app.ClaimView
	return v, c.call(ctx, http.MethodPost, httpapi.PathBillCredits+"/"+url.PathEscape(key)+"/apply", httpapi.ApplyRequest{Claim: claim}, &v)
}

func (c remoteLedger) recovery(ctx context.Context) (claims.Recovery, error) {
	var r claims.Recovery
	return r, c.call(ctx, http.MethodGet, httpapi.PathRecovery, nil, &r)
}

func (c remoteLedger) letter(ctx context.Context, id, lang string) ([]byte, error) {
	var b []byte
	q := ""
	if lang != "" {
		q = "?lang=" + url.QueryEscape(lang)
	}
	return b, c.call(ctx, http.MethodGet, claimPath(id, "/letter")+q, nil, &b)
}
