// Package lambdahttp runs a plain net/http Handler behind a Lambda Function
// URL or an API Gateway HTTP API. Both deliver the same "payload format 2.0"
// event, so one adapter serves either trigger, and the Lambda answers exactly
// what `gpusla serve` answers for the same request: one behaviour, two entry
// points.
package lambdahttp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
)

// MaxEventBody is the most body bytes the adapter will decode. Lambda itself
// refuses invocation payloads over 6 MB, so this only guards against a
// malformed event; the HTTP handler applies the protocol's own, smaller cap.
const MaxEventBody = 6 << 20

// Handler is the function lambda.Start runs: it turns each event into an
// *http.Request, serves it with h, and turns what h wrote into the response
// event. An error is returned only for an event that is not an HTTP request
// at all; every HTTP-level problem is an HTTP status from h.
func Handler(h http.Handler) func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	return func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		req, err := Request(ctx, ev)
		if err != nil {
			// A malformed event never reaches the application; the caller
			// still gets an HTTP answer rather than a Lambda error (502).
			return errorResponse(http.StatusBadRequest, err.Error()), nil
		}
		w := newResponseWriter()
		h.ServeHTTP(w, req)
		return w.event(), nil
	}
}

// Request builds the *http.Request an HTTP server would have handed the
// handler for this event.
func Request(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (*http.Request, error) {
	method := ev.RequestContext.HTTP.Method
	if method == "" {
		return nil, fmt.Errorf("lambda event: requestContext.http.method is empty (not an HTTP API / Function URL event?)")
	}
	path := ev.RawPath
	if path == "" {
		path = ev.RequestContext.HTTP.Path
	}
	if path == "" {
		path = "/"
	}
	if !strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("lambda event: rawPath %q does not start with '/'", path)
	}
	u := &url.URL{Path: path, RawQuery: ev.RawQueryString}
	// RawPath keeps percent-encoding (e.g. %2F in an id) exactly as sent.
	if unescaped, err := url.PathUnescape(path); err == nil {
		u.Path = unescaped
		if unescaped != path {
			u.RawPath = path
		}
	} else {
		return nil, fmt.Errorf("lambda event: rawPath %q: %w", path, err)
	}

	var body []byte
	if ev.IsBase64Encoded {
		if base64.StdEncoding.DecodedLen(len(ev.Body)) > MaxEventBody {
			return nil, fmt.Errorf("lambda event: body over %d bytes", MaxEventBody)
		}
		b, err := base64.StdEncoding.DecodeString(ev.Body)
		if err != nil {
			return nil, fmt.Errorf("lambda event: body is marked base64 but does not decode: %w", err)
		}
		body = b
	} else {
		if len(ev.Body) > MaxEventBody {
			return nil, fmt.Errorf("lambda event: body over %d bytes", MaxEventBody)
		}
		body = []byte(ev.Body)
	}

	req, err := http.NewRequestWithContext(ctx, method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("lambda event: %s %s: %w", method, path, err)
	}
	req.URL = u
	req.RequestURI = u.RequestURI()
	req.Proto, req.ProtoMajor, req.ProtoMinor = "HTTP/1.1", 1, 1
	if p := ev.RequestContext.HTTP.Protocol; p != "" {
		if major, minor, ok := http.ParseHTTPVersion(p); ok {
			req.Proto, req.ProtoMajor, req.ProtoMinor = p, major, minor
		}
	}
	// Format 2.0 joins repeated headers with commas; that is also how
	// HTTP/1.1 allows a list-valued header to be folded, so one value each
	// is faithful.
	for k, v := range ev.Headers {
		req.Header.Set(k, v)
	}
	if len(ev.Cookies) > 0 {
		req.Header.Set("Cookie", strings.Join(ev.Cookies, "; "))
	}
	req.ContentLength = int64(len(body))
	req.Host = ev.RequestContext.DomainName
	if h := req.Header.Get("Host"); h != "" {
		req.Host = h
	}
	if ip := ev.RequestContext.HTTP.SourceIP; ip != "" {
		req.RemoteAddr = net.JoinHostPort(ip, "0")
	}
	return req, nil
}

// responseWriter collects what the handler writes; a Lambda answers once,
// with the whole body, so there is nothing to stream.
type responseWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func newResponseWriter() *responseWriter { return &responseWriter{header: http.Header{}} }

func (w *responseWriter) Header() http.Header { return w.header }

func (w *responseWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *responseWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(p)
}

// event turns what the handler wrote into the event Lambda returns. Text
// bodies go as they are; anything else is base64 so no byte is mangled.
func (w *responseWriter) event() events.APIGatewayV2HTTPResponse {
	status := w.status
	if status == 0 {
		status = http.StatusOK
	}
	body := w.body.Bytes()
	if w.header.Get("Content-Type") == "" && len(body) > 0 {
		w.header.Set("Content-Type", http.DetectContentType(body))
	}
	out := events.APIGatewayV2HTTPResponse{
		StatusCode: status,
		Headers:    make(map[string]string, len(w.header)),
	}
	for k, vs := range w.header {
		if http.CanonicalHeaderKey(k) == "Set-Cookie" {
			// Cookies cannot be comma-joined (dates contain commas); format
			// 2.0 has a field of their own.
			out.Cookies = append(out.Cookies, vs...)
			continue
		}
		out.Headers[k] = strings.Join(vs, ", ")
	}
	if isText(w.header.Get("Content-Type"), body) {
		out.Body = string(body)
	} else {
		out.Body = base64.StdEncoding.EncodeToString(body)
		out.IsBase64Encoded = true
	}
	return out
}

// isText says whether a body can travel as a JSON string unchanged.
func isText(contentType string, body []byte) bool {
	if !utf8.Valid(body) {
		return false
	}
	ct := strings.ToLower(contentType)
	switch {
	case ct == "", strings.HasPrefix(ct, "text/"), strings.Contains(ct, "json"),
		strings.Contains(ct, "xml"), strings.Contains(ct, "javascript"),
		strings.HasPrefix(ct, "application/x-www-form-urlencoded"):
		return true
	}
	return false
}

// errorResponse has the shape of every error body of the API
// ({"error": "..."}, probe/wire.Error).
func errorResponse(status int, msg string) events.APIGatewayV2HTTPResponse {
	b, _ := json.Marshal(map[string]string{"error": msg})
	return events.APIGatewayV2HTTPResponse{
		StatusCode: status,
		Headers:    map[string]string{"Content-Type": "application/json"},
		Body:       string(b),
	}
}
