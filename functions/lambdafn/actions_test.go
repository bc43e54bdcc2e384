package lambdafn

import (
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/gpusla/gpusla/functions/actionlink"
	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/functions/lambdahttp"
	"github.com/gpusla/gpusla/functions/replacement"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/blob"
	"github.com/gpusla/gpusla/probe/wire"
)

// TestActionLinkThroughFunctionURL: the tickets function's routes, as
// Function URL events, serve the alert link: the GET's page, then its
// form's POST opening the hardware ticket with the pack put in the blob
// store (the report bucket in AWS) under replacements/; a replay of the POST
// is "already requested".
func TestActionLinkThroughFunctionURL(t *testing.T) {
	st, svc, log := newService(t)
	book, err := wiring.LoadTerms("../../testdata/terms")
	if err != nil {
		t.Fatal(err)
	}
	desk, err := svc.Tickets(book)
	if err != nil {
		t.Fatal(err)
	}
	n, secret, err := svc.AddNode(t.Context(), app.NewNode{ID: "ny-01", Provider: "acme", Contract: "us-example",
		OrderedAt: time.Now().Add(-time.Hour), GPUModel: "H200", GPUCount: 8})
	if err != nil {
		t.Fatal(err)
	}
	p := &apptest.Probe{Node: n.ID, Secret: secret}
	now := time.Now().UTC()
	_, body := p.Batch(now, wire.Observation{At: now, Kind: wire.KindHeartbeat}, apptest.Check(now,
		wire.Check{Name: "gpu.count", Category: wire.CategoryGPULost, Verdict: wire.Fail, Value: "7", Criterion: "8"}))
	if _, err := svc.Ingest(t.Context(), p.Request(now, body)); err != nil {
		t.Fatal(err)
	}
	incs, err := st.ListIncidents(t.Context(), n.ID, now.Add(-time.Hour), now.Add(time.Hour))
	if err != nil || len(incs) != 1 {
		t.Fatalf("incidents %+v %v", incs, err)
	}
	dir := t.TempDir()
	key, err := replacement.LoadOrCreateKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	packs, err := blob.NewDir(filepath.Join(dir, "bucket"))
	if err != nil {
		t.Fatal(err)
	}
	links, err := actionlink.NewSigner([]byte(strings.Repeat("k", 32)), "https://abc.lambda-url.eu-west-1.on.aws", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	api := httpapi.New(svc, log)
	rq := &replacement.Requester{Desk: desk, Key: key, Packs: packs, PacksAt: "s3://bucket/"}
	if err := RegisterActions(api.Mux(), links, desk, rq, log); err != nil {
		t.Fatal(err)
	}
	fn := lambdahttp.Handler(api)
	link, _ := links.ReplacementURL(n.ID, incs[0].ID)
	u, _ := url.Parse(link)
	ev := events.APIGatewayV2HTTPRequest{RawPath: u.Path, RawQueryString: u.RawQuery}
	ev.RequestContext.HTTP.Method = http.MethodGet
	resp, err := fn(t.Context(), ev)
	if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(resp.Body, "Request the replacement of the physical machine") {
		t.Fatalf("GET: %v %d\n%s", err, resp.StatusCode, resp.Body)
	}
	form := url.Values{}
	for _, m := range regexp.MustCompile(`<input type="hidden" name="([a-z]+)" value="([^"]*)">`).FindAllStringSubmatch(resp.Body, -1) {
		form.Set(m[1], strings.ReplaceAll(m[2], "&#43;", "+"))
	}
	post := events.APIGatewayV2HTTPRequest{RawPath: actionlink.PathReplacement, Body: form.Encode(),
		Headers: map[string]string{"content-type": "application/x-www-form-urlencoded"}}
	post.RequestContext.HTTP.Method = http.MethodPost
	resp, err = fn(t.Context(), post)
	if err != nil || resp.StatusCode != http.StatusCreated || !strings.Contains(resp.Body, "Evidence pack: s3://bucket/replacements/replacement-ny-01-") {
		t.Fatalf("POST: %v %d\n%s", err, resp.StatusCode, resp.Body)
	}
	objs, err := packs.List(t.Context(), replacement.PacksDir+"/")
	if err != nil || len(objs) != 2 {
		t.Fatalf("objects under replacements/: %+v %v", objs, err)
	}
	if resp, _ = fn(t.Context(), post); resp.StatusCode != http.StatusConflict || !strings.Contains(resp.Body, "Already requested") {
		t.Fatalf("POST again: %d\n%s", resp.StatusCode, resp.Body)
	}
}
