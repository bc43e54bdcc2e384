package lambdafn

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	lambdasvc "github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/functions/lambdahttp"
	"github.com/gpusla/gpusla/functions/slackapi"
	"github.com/gpusla/gpusla/infra/store/bolt"
)

// newService is the application on an embedded store in a temporary
// folder, logging nowhere.
func newService(t *testing.T) (*bolt.Store, *app.Service, *slog.Logger) {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	log := slog.New(slog.DiscardHandler)
	svc, err := app.New(app.Config{Store: st, Notifier: &apptest.Notifier{}, Box: apptest.Box(t), Log: log})
	if err != nil {
		t.Fatal(err)
	}
	return st, svc, log
}

type fakeInvoker struct {
	mu   sync.Mutex
	ins  []*lambdasvc.InvokeInput
	code int32
}

func (f *fakeInvoker) Invoke(_ context.Context, in *lambdasvc.InvokeInput, _ ...func(*lambdasvc.Options)) (*lambdasvc.InvokeOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ins = append(f.ins, in)
	return &lambdasvc.InvokeOutput{StatusCode: f.code}, nil
}

// TestSlackJobsGoThroughASecondInvocation: a job handed to the self runner
// is an asynchronous (Event) invocation of this function whose payload,
// handled, does the job — here, posting the reply to response_url.
func TestSlackJobsGoThroughASecondInvocation(t *testing.T) {
	_, svc, log := newService(t)
	desk, err := svc.Tickets(app.TermsBook{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := slackapi.New(slackapi.Config{Desk: desk, SigningSecret: "s", Log: log})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- string(b)
	}))
	defer hook.Close()

	inv := &fakeInvoker{code: http.StatusAccepted}
	r := &selfRunner{c: inv, name: "stack-tickets"}
	if err := r.Run(t.Context(), slackapi.Job{Kind: slackapi.JobReply, ResponseURL: hook.URL, Text: "recorded"}); err != nil {
		t.Fatal(err)
	}
	if len(inv.ins) != 1 || *inv.ins[0].FunctionName != "stack-tickets" || inv.ins[0].InvocationType != lambdatypes.InvocationTypeEvent {
		t.Fatalf("invocation: %+v", inv.ins)
	}
	api := httpapi.New(svc, log)
	httpapi.RegisterTickets(api.Mux(), desk, log)
	f := &Tickets{http: lambdahttp.Handler(api), slack: h, log: log}
	if _, err := f.Handle(t.Context(), inv.ins[0].Payload); err != nil {
		t.Fatal(err)
	}
	if body := <-got; !strings.Contains(body, `"text":"recorded"`) {
		t.Fatalf("response_url got %s", body)
	}

	// A refused invocation is an error the handler logs.
	inv.code = 500
	if err := r.Run(t.Context(), slackapi.Job{Kind: slackapi.JobFlush, Ticket: "T-aaaaaaaa"}); err == nil {
		t.Fatal("a non-202 invocation must be an error")
	}

	// The same function answers its Function URL.
	ev := events.APIGatewayV2HTTPRequest{RawPath: httpapi.PathTickets, RequestContext: events.APIGatewayV2HTTPRequestContext{
		HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "GET", Path: httpapi.PathTickets}}}
	raw, _ := json.Marshal(ev)
	out, err := f.Handle(t.Context(), raw)
	if err != nil {
		t.Fatal(err)
	}
	if resp := out.(events.APIGatewayV2HTTPResponse); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("http event: %d %s", resp.StatusCode, resp.Body)
	}
	if _, err := f.Handle(t.Context(), json.RawMessage(`{"source":"somewhere"}`)); err == nil {
		t.Fatal("an unknown event must be an error")
	}
}
