package lambdahttp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
)

// seen is what the handler under test observed of its request.
type seen struct {
	method, path, rawPath, query, host, remote, proto string
	header                                            http.Header
	body                                              string
	cookies                                           map[string]string
}

func recordingHandler(got *seen) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		*got = seen{
			method: r.Method, path: r.URL.Path, rawPath: r.URL.EscapedPath(), query: r.URL.RawQuery,
			host: r.Host, remote: r.RemoteAddr, proto: r.Proto, header: r.Header, body: string(b),
			cookies: map[string]string{},
		}
		for _, c := range r.Cookies() {
			got.cookies[c.Name] = c.Value
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write([]byte(`{"ok":true}`))
	})
}

func TestFunctionURLEventReachesHandler(t *testing.T) {
	raw, err := os.ReadFile("testdata/function-url-post.json")
	if err != nil {
		t.Fatal(err)
	}
	var ev events.APIGatewayV2HTTPRequest
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatal(err)
	}
	var got seen
	res, err := Handler(recordingHandler(&got))(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct{ name, got, want string }{
		{"method", got.method, "POST"},
		{"path", got.path, "/v1/batches"},
		{"query", got.query, "dry=1&x=a%20b"},
		{"host", got.host, "abcdefg.lambda-url.us-east-1.on.aws"},
		{"remote", got.remote, "203.0.113.7:0"},
		{"proto", got.proto, "HTTP/1.1"},
		{"body (base64-decoded)", got.body, `{"hello":"world"}`},
		{"node header", got.header.Get("X-Gpusla-Node"), "node-1"},
		{"signature header", got.header.Get("X-Gpusla-Signature"), "v1=00"},
		{"comma-joined header", got.header.Get("Accept"), "application/json, text/plain"},
		{"cookie session", got.cookies["session"], "abc"},
		{"cookie theme", got.cookies["theme"], "dark"},
		{"status", http.StatusText(res.StatusCode), http.StatusText(http.StatusAccepted)},
		{"response body", res.Body, `{"ok":true}`},
		{"response content type", res.Headers["Content-Type"], "application/json"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	if res.IsBase64Encoded {
		t.Error("JSON response was base64-encoded")
	}
}

func event(method, rawPath, body string, b64 bool) events.APIGatewayV2HTTPRequest {
	ev := events.APIGatewayV2HTTPRequest{RawPath: rawPath, Body: body, IsBase64Encoded: b64}
	ev.RequestContext.HTTP.Method = method
	return ev
}

func TestRequestEdgeCases(t *testing.T) {
	tests := []struct {
		name              string
		ev                events.APIGatewayV2HTTPRequest
		wantErr           string // substring; "" means success
		wantPath, wantRaw string
		wantBody          string
	}{
		{name: "plain body", ev: event("PUT", "/a", "hi", false), wantPath: "/a", wantRaw: "/a", wantBody: "hi"},
		{name: "empty path is root", ev: event("GET", "", "", false), wantPath: "/", wantRaw: "/"},
		{name: "escaped slash kept", ev: event("GET", "/nodes/a%2Fb", "", false), wantPath: "/nodes/a/b", wantRaw: "/nodes/a%2Fb"},
		{name: "binary body", ev: event("POST", "/b", base64.StdEncoding.EncodeToString([]byte{0, 255, 1}), true), wantPath: "/b", wantRaw: "/b", wantBody: "\x00\xff\x01"},
		{name: "no method", ev: event("", "/a", "", false), wantErr: "requestContext.http.method"},
		{name: "bad base64", ev: event("POST", "/a", "!!!", true), wantErr: "base64"},
		{name: "relative path", ev: event("GET", "a/b", "", false), wantErr: "does not start with '/'"},
		{name: "bad escape", ev: event("GET", "/a%zz", "", false), wantErr: "rawPath"},
		{name: "oversized body", ev: event("POST", "/a", strings.Repeat("x", MaxEventBody+1), false), wantErr: "over"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := Request(context.Background(), tt.ev)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if req.URL.Path != tt.wantPath || req.URL.EscapedPath() != tt.wantRaw {
				t.Errorf("path = %q (raw %q), want %q (raw %q)", req.URL.Path, req.URL.EscapedPath(), tt.wantPath, tt.wantRaw)
			}
			b, _ := io.ReadAll(req.Body)
			if string(b) != tt.wantBody || req.ContentLength != int64(len(tt.wantBody)) {
				t.Errorf("body = %q (len %d), want %q", b, req.ContentLength, tt.wantBody)
			}
		})
	}
}

func TestMalformedEventIsA400NotALambdaError(t *testing.T) {
	called := false
	h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { called = true })
	res, err := Handler(h)(context.Background(), event("", "/", "", false))
	if err != nil {
		t.Fatalf("Lambda error %v; want an HTTP 400", err)
	}
	if res.StatusCode != 400 || called {
		t.Fatalf("status %d, handler called %v; want 400 without calling the handler", res.StatusCode, called)
	}
	var body map[string]string
	if err := json.Unmarshal([]byte(res.Body), &body); err != nil || body["error"] == "" {
		t.Fatalf("body %q is not {\"error\": ...}", res.Body)
	}
}

func TestResponseShapes(t *testing.T) {
	tests := []struct {
		name        string
		handler     http.HandlerFunc
		wantStatus  int
		wantBody    string
		wantB64     bool
		wantHeaders map[string]string
		wantCookies []string
	}{
		{
			name:       "nothing written is 200 empty",
			handler:    func(http.ResponseWriter, *http.Request) {},
			wantStatus: 200,
		},
		{
			name: "error from http.Error",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				http.Error(w, "bad signature", http.StatusUnauthorized)
			},
			wantStatus: 401, wantBody: "bad signature\n",
			wantHeaders: map[string]string{"Content-Type": "text/plain; charset=utf-8"},
		},
		{
			name: "binary body is base64",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/pdf")
				_, _ = w.Write([]byte("%PDF-\xff\x00"))
			},
			wantStatus: 200, wantBody: base64.StdEncoding.EncodeToString([]byte("%PDF-\xff\x00")), wantB64: true,
		},
		{
			name: "multi-value headers joined, cookies separate, first status wins",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Add("Vary", "Accept")
				w.Header().Add("Vary", "Origin")
				w.Header().Add("Set-Cookie", "a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT")
				w.Header().Add("Set-Cookie", "b=2")
				w.WriteHeader(http.StatusCreated)
				w.WriteHeader(http.StatusTeapot)
				_, _ = w.Write([]byte("plain words"))
			},
			wantStatus: 201, wantBody: "plain words",
			wantHeaders: map[string]string{"Vary": "Accept, Origin", "Content-Type": "text/plain; charset=utf-8"},
			wantCookies: []string{"a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT", "b=2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Handler(tt.handler)(context.Background(), event("GET", "/", "", false))
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != tt.wantStatus || res.Body != tt.wantBody || res.IsBase64Encoded != tt.wantB64 {
				t.Errorf("got %d %q base64=%v, want %d %q base64=%v", res.StatusCode, res.Body, res.IsBase64Encoded, tt.wantStatus, tt.wantBody, tt.wantB64)
			}
			for k, v := range tt.wantHeaders {
				if res.Headers[k] != v {
					t.Errorf("header %s = %q, want %q", k, res.Headers[k], v)
				}
			}
			if _, ok := res.Headers["Set-Cookie"]; ok {
				t.Error("Set-Cookie left in headers")
			}
			if strings.Join(res.Cookies, "|") != strings.Join(tt.wantCookies, "|") {
				t.Errorf("cookies = %q, want %q", res.Cookies, tt.wantCookies)
			}
		})
	}
}

// FuzzRequest: whatever path, query, headers and body an event carries, the
// adapter either refuses it with an error or builds a request whose body is
// exactly the decoded event body — it never panics.
func FuzzRequest(f *testing.F) {
	f.Add("POST", "/v1/batches", "a=1", "x-gpusla-node", "n1", `{"v":1}`, false)
	f.Add("GET", "/nodes/a%2Fb", "", "cookie", "a=b", "aGk=", true)
	f.Add("", "", "", "", "", "", false)
	f.Fuzz(func(t *testing.T, method, path, query, hk, hv, body string, b64 bool) {
		ev := event(method, path, body, b64)
		ev.RawQueryString = query
		ev.Headers = map[string]string{hk: hv}
		req, err := Request(context.Background(), ev)
		if err != nil {
			return
		}
		got, _ := io.ReadAll(req.Body)
		want := []byte(body)
		if b64 {
			want, _ = base64.StdEncoding.DecodeString(body)
		}
		if string(got) != string(want) {
			t.Fatalf("body %q, want %q", got, want)
		}
		// The handler's answer always becomes a valid event.
		res, err := Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set(hk, hv)
			_, _ = w.Write(got)
		}))(context.Background(), ev)
		if err != nil || res.StatusCode == 0 {
			t.Fatalf("handler: %+v %v", res, err)
		}
	})
}
