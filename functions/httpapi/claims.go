package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/document"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/i18n"
)

// The claims ledger over HTTP (docs/claims.md), behind an API key with
// the claims scope (admin implies it): what `gpusla claims` does, for a
// backend that is running. A claim is named by its contract and month.
const (
	PathClaims          = "/v1/claims"
	PathClaim           = "/v1/claims/{contract}/{month}"
	PathClaimSent       = PathClaim + "/sent"
	PathClaimAnswer     = PathClaim + "/answer"
	PathClaimCredits    = PathClaim + "/credits"
	PathClaimLetter     = PathClaim + "/letter"
	PathBillCredits     = "/v1/claims/credits"
	PathBillCreditsIn   = "/v1/claims/credits/import"
	PathBillCreditApply = "/v1/claims/credits/{key}/apply"
	PathRecovery        = "/v1/claims/recovery"
)

// MaxClaimsBody caps a claims request body: an import carries a bill's
// credit lines, read by the client (a bill has a few).
const MaxClaimsBody = 256 << 10

// SentRequest is the body of POST …/sent: when (RFC 3339), how (one of
// claims.Vias) and the provider's case number.
type SentRequest struct {
	At        string `json:"at"`
	Via       string `json:"via"`
	Reference string `json:"reference,omitempty"`
}

// AnswerRequest is the body of POST …/answer. Granted is the amount
// granted (a decimal, at most two decimals): required when partial;
// Currency, when given, must be the claim's.
type AnswerRequest struct {
	At        string          `json:"at"`
	Outcome   string          `json:"outcome"`
	Granted   json.RawMessage `json:"granted,omitempty"`
	Currency  string          `json:"currency,omitempty"`
	Reason    string          `json:"reason,omitempty"`
	Reference string          `json:"reference,omitempty"`
}

// CreditRequest is the body of POST …/credits: a credit from a bill gpusla
// does not read, recorded by hand. On is the credit's own date (RFC 3339),
// if the bill gives one.
type CreditRequest struct {
	Period    string          `json:"period"`
	Amount    json.RawMessage `json:"amount"`
	Currency  string          `json:"currency"`
	On        string          `json:"on,omitempty"`
	Reference string          `json:"reference,omitempty"`
	Form      string          `json:"form,omitempty"`
}

// ImportRequest is the body of POST /v1/claims/credits/import: a bill's
// credit lines as sla/billing.ReadCredits read them, and the contracts
// whose claims they may be for (the bill's provider's).
type ImportRequest struct {
	Contracts []string            `json:"contracts"`
	Credits   []claims.BillCredit `json:"credits"`
}

// ApplyRequest is the body of POST /v1/claims/credits/{key}/apply.
type ApplyRequest struct {
	Claim string `json:"claim"`
}

// Claims serves the ledger.
type Claims struct {
	ledger *app.Ledger
	log    *slog.Logger
	keys   *keyGate
}

// RegisterClaims adds the claims ledger's routes to mux.
func RegisterClaims(mux *http.ServeMux, desk *app.TicketDesk, log *slog.Logger) (*Claims, error) {
	if log == nil {
		log = slog.Default()
	}
	l, err := desk.Ledger()
	if err != nil {
		return nil, err
	}
	c := &Claims{ledger: l, log: log, keys: newKeyGate(desk.Service(), "claims", log)}
	auth := func(h func(http.ResponseWriter, *http.Request, store.APIKey)) http.Handler {
		return c.keys.require(app.ScopeClaims, h)
	}
	mux.Handle("GET "+PathClaims, auth(c.list))
	mux.Handle("GET "+PathClaim, auth(c.get))
	mux.Handle("POST "+PathClaimSent, auth(c.sent))
	mux.Handle("POST "+PathClaimAnswer, auth(c.answer))
	mux.Handle("POST "+PathClaimCredits, auth(c.credit))
	mux.Handle("GET "+PathClaimLetter, auth(c.letter))
	mux.Handle("GET "+PathBillCredits, auth(c.credits))
	mux.Handle("POST "+PathBillCreditsIn, auth(c.importCredits))
	mux.Handle("POST "+PathBillCreditApply, auth(c.apply))
	mux.Handle("GET "+PathRecovery, auth(c.recovery))
	return c, nil
}

// amountOf reads an amount given as a JSON number or string exactly (at
// most two decimals), naming field when it is not one.
func amountOf(field string, raw json.RawMessage) (claims.Cents, error) {
	if len(raw) == 0 {
		return 0, app.Errorf(app.EInvalid, field, "missing")
	}
	var c claims.Cents
	if err := c.UnmarshalJSON(raw); err != nil {
		return 0, app.Errorf(app.EInvalid, field, "%s", strings.TrimPrefix(err.Error(), "amount "))
	}
	return c, nil
}

func claimID(r *http.Request) string { return claims.ID(r.PathValue("contract"), r.PathValue("month")) }

func (c *Claims) fail(w http.ResponseWriter, what string, err error) {
	var ue *app.Error
	if errors.As(err, &ue) {
		writeErr(w, StatusOf(err), ue.Error(), ue.Field)
		return
	}
	c.log.Error(what, "err", err)
	writeErr(w, http.StatusInternalServerError, "internal error", "")
}

// csvWanted says whether the caller asked for CSV (?format=csv); another
// format is refused naming it.
func csvWanted(w http.ResponseWriter, r *http.Request) (csv, ok bool) {
	switch f := r.URL.Query().Get("format"); f {
	case "", "json":
		return false, true
	case "csv":
		return true, true
	default:
		writeErr(w, http.StatusBadRequest, "format: "+quote(f)+" is not json or csv", "format")
		return false, false
	}
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

func writeCSV(w http.ResponseWriter, name string, write func(*bytes.Buffer) error) error {
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	_, err := w.Write(b.Bytes())
	return err
}

func (c *Claims) list(w http.ResponseWriter, r *http.Request, _ store.APIKey) {
	asCSV, ok := csvWanted(w, r)
	if !ok {
		return
	}
	vs, err := c.ledger.Claims(r.Context())
	if err != nil {
		c.fail(w, "claims", err)
		return
	}
	if asCSV {
		rows := make([]document.LedgerRow, len(vs))
		for i, v := range vs {
			rows[i] = document.LedgerRow{Claim: v.Claim.Claim, Status: v.Status}
		}
		if err := writeCSV(w, "gpusla-claims.csv", func(b *bytes.Buffer) error { return document.ClaimsCSV(b, rows) }); err != nil {
			c.log.Error("claims csv", "err", err)
		}
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"as_of": c.ledger.Now(), "claims": vs})
}

func (c *Claims) get(w http.ResponseWriter, r *http.Request, _ store.APIKey) {
	c.answerWith(w, "claim", func() (app.ClaimView, error) { return c.ledger.Claim(r.Context(), claimID(r)) })
}

// SentOf is the record a SentRequest asks for, recorded by by.
func SentOf(req SentRequest, by string) (claims.Sent, error) {
	at, err := app.ParseTime("at", req.At)
	return claims.Sent{At: at, Via: req.Via, Reference: req.Reference, Record: claims.Record{RecordedBy: by}}, err
}

// AnswerOf is the answer an AnswerRequest records, by by.
func AnswerOf(req AnswerRequest, by string) (claims.AnswerIn, error) {
	at, err := app.ParseTime("at", req.At)
	if err != nil {
		return claims.AnswerIn{}, err
	}
	in := claims.AnswerIn{Answer: claims.Answer{At: at, Outcome: req.Outcome, Reason: req.Reason, Reference: req.Reference,
		Record: claims.Record{RecordedBy: by}}, Currency: req.Currency}
	if len(req.Granted) > 0 {
		if in.Granted, err = amountOf("granted", req.Granted); err != nil {
			return claims.AnswerIn{}, err
		}
		in.HasGranted = true
	}
	return in, nil
}

// CreditOf is the credit a CreditRequest records against claim id, by by.
func CreditOf(id string, req CreditRequest, by string) (app.ManualCredit, error) {
	amount, err := amountOf("amount", req.Amount)
	if err != nil {
		return app.ManualCredit{}, err
	}
	m := app.ManualCredit{Claim: id, Period: req.Period, Amount: amount, Currency: req.Currency, Reference: req.Reference, Form: req.Form, By: by}
	if req.On != "" {
		if m.On, err = app.ParseTime("on", req.On); err != nil {
			return app.ManualCredit{}, err
		}
	}
	return m, nil
}

func (c *Claims) sent(w http.ResponseWriter, r *http.Request, k store.APIKey) {
	var req SentRequest
	if !decodeMax(w, r, &req, MaxClaimsBody) {
		return
	}
	c.answerWith(w, "claim sent", func() (app.ClaimView, error) {
		s, err := SentOf(req, keyActor(k))
		if err != nil {
			return app.ClaimView{}, err
		}
		return c.ledger.Send(r.Context(), claimID(r), s)
	})
}

func (c *Claims) answer(w http.ResponseWriter, r *http.Request, k store.APIKey) {
	var req AnswerRequest
	if !decodeMax(w, r, &req, MaxClaimsBody) {
		return
	}
	c.answerWith(w, "claim answer", func() (app.ClaimView, error) {
		in, err := AnswerOf(req, keyActor(k))
		if err != nil {
			return app.ClaimView{}, err
		}
		return c.ledger.Answer(r.Context(), claimID(r), in)
	})
}

func (c *Claims) credit(w http.ResponseWriter, r *http.Request, k store.APIKey) {
	var req CreditRequest
	if !decodeMax(w, r, &req, MaxClaimsBody) {
		return
	}
	c.answerWith(w, "claim credit", func() (app.ClaimView, error) {
		m, err := CreditOf(claimID(r), req, keyActor(k))
		if err != nil {
			return app.ClaimView{}, err
		}
		return c.ledger.CreditByHand(r.Context(), m)
	})
}

// answerWith answers with the claim do returns, or its refusal.
func (c *Claims) answerWith(w http.ResponseWriter, what string, do func() (app.ClaimView, error)) {
	v, err := do()
	if err != nil {
		c.fail(w, what, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

func (c *Claims) letter(w http.ResponseWriter, r *http.Request, _ store.APIKey) {
	v, err := c.ledger.Claim(r.Context(), claimID(r))
	if err != nil {
		c.fail(w, "claim letter", err)
		return
	}
	lang := r.URL.Query().Get("lang")
	if lang == "" {
		lang = v.Lang
	}
	l, err := i18n.Parse(lang)
	if err != nil {
		writeErr(w, http.StatusBadRequest, "lang: "+err.Error(), "lang")
		return
	}
	var b bytes.Buffer
	err = document.FollowUpLetter(&b, FollowUpOf(c.ledger, v), l)
	var none *document.ErrNothingOverdue
	if errors.As(err, &none) {
		writeErr(w, http.StatusConflict, err.Error(), "claim")
		return
	}
	if err != nil {
		c.fail(w, "claim letter", err)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write(b.Bytes())
}

// FollowUpOf is what the follow-up letter on v needs, its contract's
// paperwork included, dated now.
func FollowUpOf(l *app.Ledger, v app.ClaimView) document.FollowUp {
	f := document.FollowUp{Claim: v.Claim.Claim, Status: v.Status, Date: l.Now()}
	if v.Deadlines != nil {
		f.Deadlines = v.Deadlines.Of
	}
	f.Renter, f.ContractNumber = l.Paperwork(v.Contract)
	return f
}

func (c *Claims) credits(w http.ResponseWriter, r *http.Request, _ store.APIKey) {
	asCSV, ok := csvWanted(w, r)
	if !ok {
		return
	}
	bs, err := c.ledger.Credits(r.Context())
	if err != nil {
		c.fail(w, "bill credits", err)
		return
	}
	out := make([]claims.BillCredit, len(bs))
	for i, b := range bs {
		out[i] = b.BillCredit
	}
	if asCSV {
		if err := writeCSV(w, "gpusla-bill-credits.csv", func(b *bytes.Buffer) error { return document.CreditsCSV(b, out) }); err != nil {
			c.log.Error("credits csv", "err", err)
		}
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"credits": out})
}

func (c *Claims) importCredits(w http.ResponseWriter, r *http.Request, k store.APIKey) {
	var req ImportRequest
	if !decodeMax(w, r, &req, MaxClaimsBody) {
		return
	}
	for i := range req.Credits {
		req.Credits[i].Contracts = req.Contracts
		req.Credits[i].Claim, req.Credits[i].MatchedBy, req.Credits[i].Unmatched = "", "", "" // the ledger decides
	}
	out, err := c.ledger.ImportCredits(r.Context(), req.Credits, keyActor(k))
	if err != nil {
		c.fail(w, "import credits", err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"credits": out})
}

func (c *Claims) apply(w http.ResponseWriter, r *http.Request, k store.APIKey) {
	var req ApplyRequest
	if !decodeMax(w, r, &req, MaxClaimsBody) {
		return
	}
	c.answerWith(w, "apply credit", func() (app.ClaimView, error) {
		return c.ledger.Assign(r.Context(), r.PathValue("key"), req.Claim, keyActor(k))
	})
}

func (c *Claims) recovery(w http.ResponseWriter, r *http.Request, _ store.APIKey) {
	rec, err := c.ledger.Recovery(r.Context())
	if err != nil {
		c.fail(w, "recovery", err)
		return
	}
	writeJSON(w, http.StatusOK, rec)
}
