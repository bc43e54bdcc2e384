package lambdafn

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/wiring"
)

// The smoke check of docs/aws.md, run as written: every line of its marked
// block against the ingest function and the tickets function (built as
// their mains build them) behind a loopback stand-in for their Function
// URLs. A variable set from a stack output is the URL of the function that
// output names; the API key is made with the scopes the block's `apikey
// create` asks for; each curl must answer the status its `# expect` says.
// A line the test cannot read, or a block with no curl, fails it: the doc
// and the handlers cannot drift apart unnoticed.
func TestAWSSmokeCheckAsDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "aws.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := smokeBlock(t, string(doc))

	st, svc, log := newService(t)
	b := &wiring.Backend{Service: svc, Log: log, Env: wiring.Env{TaskRoot: t.TempDir()}}
	ingest := Ingest(b)
	tickets, err := NewTickets(t.Context(), b)
	if err != nil {
		t.Fatal(err)
	}
	// What each stack output is (template.yaml's Outputs).
	urls := map[string]string{
		"IngestUrl": functionURL(t, func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
			return ingest(ctx, ev)
		}),
		"TicketsUrl": functionURL(t, func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
			raw, err := json.Marshal(ev)
			if err != nil {
				return events.APIGatewayV2HTTPResponse{}, err
			}
			out, err := tickets.Handle(ctx, raw)
			if err != nil {
				return events.APIGatewayV2HTTPResponse{}, err
			}
			return out.(events.APIGatewayV2HTTPResponse), nil
		}),
	}
	vars := map[string]string{}
	// Stack outputs assigned anywhere in the doc (URL is set in step 3).
	for _, m := range reStackOutput.FindAllStringSubmatch(joinContinued(string(doc)), -1) {
		if u, ok := urls[m[2]]; ok {
			vars[m[1]] = u
		}
	}

	curls := 0
	for _, line := range strings.Split(joinContinued(block), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "":
		case reStackOutput.MatchString(line):
			if m := reStackOutput.FindStringSubmatch(line); vars[m[1]] == "" {
				t.Fatalf("docs/aws.md smoke check: %s is set from stack output %s, which is no function URL", m[1], m[2])
			}
		case reAPIKey.MatchString(line):
			m := reAPIKey.FindStringSubmatch(line)
			scopes := strings.Split(m[3], ",")
			_, tok, err := app.CreateAPIKey(t.Context(), st, m[2], scopes, svc.Now())
			if err != nil {
				t.Fatalf("docs/aws.md smoke check: %s: %v", line, err)
			}
			vars[m[1]] = tok
		case strings.HasPrefix(line, "curl "):
			curls++
			runCurl(t, line, vars)
		default:
			t.Fatalf("docs/aws.md smoke check: a line the test does not know how to run: %q", line)
		}
	}
	if curls < 3 {
		t.Fatalf("docs/aws.md smoke check has %d curl lines, want the ingest URL's and the tickets URL's", curls)
	}
}

var (
	reSmokeBlock  = regexp.MustCompile(`(?s)<!-- smoke-check:.*?-->\n(.*?)<!-- /smoke-check -->`)
	reStackOutput = regexp.MustCompile(`(\w+)=\$\(aws cloudformation describe-stacks .*OutputKey=='(\w+)'.*\)`)
	reAPIKey      = regexp.MustCompile(`^(\w+)=\$\(.*gpusla apikey create .*--name (\S+) --scope (\S+)\)$`)
	reExpect      = regexp.MustCompile(`\s+# expect (\d{3})$`)
)

func smokeBlock(t *testing.T, doc string) string {
	t.Helper()
	m := reSmokeBlock.FindStringSubmatch(doc)
	if m == nil {
		t.Fatal("docs/aws.md has no <!-- smoke-check: … --> … <!-- /smoke-check --> block")
	}
	return m[1]
}

// joinContinued joins shell lines ending in a backslash with the next.
func joinContinued(s string) string {
	return regexp.MustCompile(`\\\n\s*`).ReplaceAllString(s, " ")
}

// runCurl makes the request a documented curl line makes and checks the
// status its # expect names.
func runCurl(t *testing.T, line string, vars map[string]string) {
	t.Helper()
	m := reExpect.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("docs/aws.md smoke check: %q says no `# expect NNN`", line)
	}
	want, _ := strconv.Atoi(m[1])
	args, err := shellWords(strings.TrimSuffix(line, m[0]), vars)
	if err != nil {
		t.Fatalf("docs/aws.md smoke check: %q: %v", line, err)
	}
	method, target, body := "", "", ""
	header := http.Header{}
	for i := 1; i < len(args); i++ {
		flagArg := func() string {
			if i+1 >= len(args) {
				t.Fatalf("docs/aws.md smoke check: %q: %s needs a value", line, args[i])
			}
			i++
			return args[i]
		}
		switch a := args[i]; a {
		case "-s":
		case "-o", "-w":
			flagArg() // where the body goes, what is printed: the status is checked here
		case "-X":
			method = flagArg()
		case "-d":
			body = flagArg()
			header.Set("Content-Type", "application/x-www-form-urlencoded") // curl's, for -d
		case "-H":
			k, v, ok := strings.Cut(flagArg(), ":")
			if !ok {
				t.Fatalf("docs/aws.md smoke check: %q: header %q has no colon", line, args[i])
			}
			header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
		default:
			if strings.HasPrefix(a, "-") || target != "" {
				t.Fatalf("docs/aws.md smoke check: %q: the test does not know curl's %q", line, a)
			}
			target = a
		}
	}
	if method == "" {
		method = http.MethodGet
		if body != "" {
			method = http.MethodPost
		}
	}
	if !strings.HasPrefix(target, "http://127.0.0.1:") {
		t.Fatalf("docs/aws.md smoke check: %q: URL %q is not built from a function URL variable", line, target)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, target, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("docs/aws.md smoke check: %q: %v", line, err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != want {
		t.Errorf("docs/aws.md smoke check: %q answered %d %s, the doc expects %d", line, resp.StatusCode, got, want)
	}
}

// shellWords splits a shell command line as sh would for these lines:
// single quotes literal, double quotes with $VAR and ${VAR} expanded,
// bare words expanded too. An unset variable is an error.
func shellWords(s string, vars map[string]string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in := false // a word is under way
	expand := func(s string, i int) (string, int, error) {
		j := i + 1
		name := ""
		if j < len(s) && s[j] == '{' {
			end := strings.IndexByte(s[j:], '}')
			if end < 0 {
				return "", 0, fmt.Errorf("unclosed ${ at %d", i)
			}
			name, j = s[j+1:j+end], j+end+1
		} else {
			for j < len(s) && (s[j] == '_' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			name = s[i+1 : j]
		}
		v, ok := vars[name]
		if !ok {
			return "", 0, fmt.Errorf("$%s is not set by the doc", name)
		}
		return v, j, nil
	}
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == ' ' || c == '\t':
			if in {
				words, in = append(words, cur.String()), false
				cur.Reset()
			}
			i++
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unclosed ' at %d", i)
			}
			cur.WriteString(s[i+1 : i+1+end])
			in, i = true, i+end+2
		case c == '"':
			i++
			for i < len(s) && s[i] != '"' {
				if s[i] == '$' {
					v, j, err := expand(s, i)
					if err != nil {
						return nil, err
					}
					cur.WriteString(v)
					i = j
					continue
				}
				cur.WriteByte(s[i])
				i++
			}
			if i >= len(s) {
				return nil, fmt.Errorf(`unclosed "`)
			}
			in, i = true, i+1
		case c == '$':
			v, j, err := expand(s, i)
			if err != nil {
				return nil, err
			}
			cur.WriteString(v)
			in, i = true, j
		default:
			cur.WriteByte(c)
			in, i = true, i+1
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}

// functionURL serves a Lambda HTTP handler on 127.0.0.1 as a Function URL
// does (payload format 2.0) and returns its base URL, ending in "/" like
// the stack's outputs.
func functionURL(t *testing.T, h func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ev := events.APIGatewayV2HTTPRequest{Version: "2.0", RawPath: r.URL.Path, RawQueryString: r.URL.RawQuery,
			Headers: map[string]string{}, Body: string(body),
			RequestContext: events.APIGatewayV2HTTPRequestContext{HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{
				Method: r.Method, Path: r.URL.Path, SourceIP: "127.0.0.1"}}}
		for k, v := range r.Header {
			ev.Headers[strings.ToLower(k)] = strings.Join(v, ",")
		}
		resp, err := h(r.Context(), ev)
		if err != nil {
			http.Error(w, "function error: "+err.Error(), http.StatusBadGateway)
			return
		}
		for k, v := range resp.Headers {
			w.Header().Set(k, v)
		}
		w.WriteHeader(resp.StatusCode)
		out := []byte(resp.Body)
		if resp.IsBase64Encoded {
			out, _ = base64.StdEncoding.DecodeString(resp.Body)
		}
		w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}
