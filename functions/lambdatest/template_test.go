package lambdatest

import (
	"bufio"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/awslabs/goformation/v7"
	"github.com/awslabs/goformation/v7/cloudformation"
	"github.com/awslabs/goformation/v7/cloudformation/global"
	"github.com/awslabs/goformation/v7/cloudformation/serverless"
	"github.com/awslabs/goformation/v7/intrinsics"
	"go.yaml.in/yaml/v3"

	"github.com/gpusla/gpusla/infra/blob"
	"github.com/gpusla/gpusla/infra/sqsqueue"
	"github.com/gpusla/gpusla/infra/store/dynamo"
)

// wantFunctions is what each function must be: the folder of its main and
// its trigger. A function added to template.yaml without a line here fails
// the test, so nobody ships a function nobody checked.
var wantFunctions = map[string]struct {
	dir     string
	trigger string // "url" (Function URL, auth NONE), "schedule" (EventBridge Scheduler) or "sqs" (an event source mapping)
	every   string // a schedule's expression ("": rate(1 minute))
}{
	"IngestFunction":   {dir: "functions/ingest", trigger: "url"},
	"WatchdogFunction": {dir: "functions/watchdog", trigger: "schedule"},
	"TicketsFunction":  {dir: "functions/tickets", trigger: "url"},
	"ReportsFunction":  {dir: "functions/reports", trigger: "schedule", every: "rate(1 hour)"},
	"StatusFunction":   {dir: "functions/status", trigger: "url"},
	"PartsFunction":    {dir: "functions/parts", trigger: "sqs"},
	"SealerFunction":   {dir: "functions/sealer", trigger: "schedule", every: "cron(10 1 * * ? *)"}, // 01:10 UTC: the day before is over an hour
}

// Actions each function may be granted: the DynamoDB actions infra/store/dynamo
// actually calls, and reading the SecureStrings. Nothing else (no Scan, no
// DeleteItem: the code uses neither).
func allowedActions() map[string]bool {
	// lambda:InvokeFunction: the tickets function hands Slack jobs to itself.
	ok := map[string]bool{"ssm:GetParameters": true, "lambda:InvokeFunction": true}
	for _, a := range dynamo.IAMActions {
		ok[a] = true
	}
	for _, a := range blob.S3IAMActions { // the reports and status functions (infra/blob)
		ok[a] = true
	}
	// The reports function sends node-months; the parts function's event
	// source mapping receives them.
	for _, a := range append(slices.Clone(sqsqueue.IAMActions), sqsqueue.PollerIAMActions...) {
		ok[a] = true
	}
	return ok
}

// readable keeps the intrinsics the checks look at as plain strings instead
// of letting goformation resolve them to nothing (it has no stack to ask).
var readable = &intrinsics.ProcessorOptions{IntrinsicHandlerOverrides: map[string]intrinsics.IntrinsicHandler{
	"Ref": func(_ string, in, _ any) any { return fmt.Sprintf("Ref:%v", in) },
	"Fn::GetAtt": func(_ string, in, _ any) any {
		if parts, ok := in.([]any); ok {
			s := make([]string, len(parts))
			for i, p := range parts {
				s[i] = fmt.Sprint(p)
			}
			return "GetAtt:" + strings.Join(s, ".")
		}
		return fmt.Sprintf("GetAtt:%v", in)
	},
	"Fn::Sub": func(_ string, in, _ any) any { return fmt.Sprintf("Sub:%v", in) },
}}

// checkTemplate returns every way the SAM template at path breaks the
// deployment rules of docs/aws.md (the architecture parameter, each
// function's make target, folder and settings); empty means it is fine.
// Makefile targets are read from makefile, function folders are resolved
// against root.
func checkTemplate(path, makefile, root string) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	tpl, err := goformation.OpenWithOptions(path, readable)
	if err != nil {
		return []error{fmt.Errorf("goformation cannot load %s: %w", path, err)}
	}
	raw, err := loadYAML(path)
	if err != nil {
		return []error{err}
	}
	targets, err := makeTargets(makefile)
	if err != nil {
		return []error{err}
	}

	var globals global.Function
	if g, ok := tpl.Globals["Function"].(*global.Function); ok && g != nil {
		globals = *g
	}
	// Architecture: a parameter defaulting to arm64 that allows x86_64.
	if p, ok := tpl.Parameters["Architecture"]; !ok {
		bad("parameter Architecture missing")
	} else if fmt.Sprint(p.Default) != "arm64" || !slices.Equal(anyStrings(p.AllowedValues), []string{"arm64", "x86_64"}) {
		bad("parameter Architecture: default %v allowed %v, want arm64 of [arm64 x86_64]", p.Default, p.AllowedValues)
	}

	fns := tpl.GetAllServerlessFunctionResources()
	for name := range fns {
		if _, ok := wantFunctions[name]; !ok {
			bad("function %s is not checked by this test (add it to wantFunctions)", name)
		}
	}
	names := make([]string, 0, len(wantFunctions))
	for name := range wantFunctions {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		want := wantFunctions[name]
		fn, ok := fns[name]
		if !ok {
			bad("function %s missing", name)
			continue
		}
		if fn.AWSCloudFormationMetadata["BuildMethod"] != "makefile" {
			bad("%s: Metadata.BuildMethod = %v, want makefile", name, fn.AWSCloudFormationMetadata["BuildMethod"])
		}
		if fn.CodeUri == nil || fn.CodeUri.String == nil || *fn.CodeUri.String != "." {
			bad("%s: CodeUri must be \".\" (the module root, where the Makefile is)", name)
		}
		if tg, ok := targets["build-"+name]; !ok {
			bad("%s: Makefile has no target build-%s (sam build would fail)", name, name)
		} else if tg.dir != "./"+want.dir {
			bad("%s: Makefile builds %s, want ./%s", name, tg.dir, want.dir)
		} else if !tg.terms && globalEnv(globals, "GPUSLA_TERMS") != "" {
			// Globals give every function GPUSLA_TERMS; a listed path that is
			// missing fails the function's init (wiring.Open reads the terms).
			bad("%s: template.yaml sets GPUSLA_TERMS for every function but build-%s copies no terms ($(COPY_TERMS)): its init would fail", name, name)
		}
		if _, err := os.Stat(filepath.Join(root, want.dir, "main.go")); err != nil {
			bad("%s: %s/main.go: %v", name, want.dir, err)
		}
		if got := pick(fn.Handler, globals.Handler); got != "bootstrap" {
			bad("%s: Handler = %q, want bootstrap", name, got)
		}
		if got := pick(fn.Runtime, globals.Runtime); got != "provided.al2023" {
			bad("%s: Runtime = %q, want provided.al2023", name, got)
		}
		arch := fn.Architectures
		if arch == nil && globals.Architectures != nil {
			arch = *globals.Architectures
		}
		if !slices.Equal(arch, []string{"Ref:Architecture"}) {
			bad("%s: Architectures = %v, want [!Ref Architecture]", name, arch)
		}

		switch want.trigger {
		case "url":
			if fn.FunctionUrlConfig == nil || fn.FunctionUrlConfig.AuthType != "NONE" {
				bad("%s: want a Function URL with AuthType NONE (batches are HMAC-signed)", name)
			}
			if len(fn.Events) != 0 {
				bad("%s: unexpected events %v", name, keys(fn.Events))
			}
		case "sqs":
			if fn.FunctionUrlConfig != nil || len(fn.Events) != 0 {
				bad("%s: fed by a queue, it has no Function URL and no events (its event source mapping is a resource of its own)", name)
			}
			errs = append(errs, checkQueueMapping(tpl, name)...)
		case "schedule":
			if fn.FunctionUrlConfig != nil {
				bad("%s: a scheduled function must not have a Function URL", name)
			}
			if len(fn.Events) != 1 {
				bad("%s: want exactly one schedule event, got %v", name, keys(fn.Events))
			}
			for ev, e := range fn.Events {
				// goformation v7 knows ScheduleV2 only by name; its properties
				// are read from the YAML itself.
				if e.Type != "ScheduleV2" {
					bad("%s: event %s is %s, want ScheduleV2 (EventBridge Scheduler)", name, ev, e.Type)
					continue
				}
				props := raw.path("Resources", name, "Properties", "Events", ev, "Properties")
				every := cmp.Or(want.every, "rate(1 minute)")
				if v := props.path("ScheduleExpression").value(); v != every {
					bad("%s: event %s ScheduleExpression = %q, want %s", name, ev, v, every)
				}
				if v := props.path("Input").value(); !strings.Contains(v, "<aws.scheduler.scheduled-time>") {
					bad("%s: event %s Input %q does not pass the scheduled time", name, ev, v)
				}
			}
		}

		errs = append(errs, checkPolicies(name, fn.Policies)...)
		errs = append(errs, checkMemoryLimit(name, fn)...)
	}

	// No secret passes through the template: environment variables and
	// parameters may name where secrets are, never hold one.
	secretish := regexp.MustCompile(`(?i)secret|token|password|webhook|master.?key|signing`)
	env := map[string]string{}
	if globals.Environment != nil && globals.Environment.Variables != nil {
		for k, v := range globals.Environment.Variables {
			env[k] = v
		}
	}
	for name, fn := range fns {
		if fn.Environment != nil {
			for k, v := range fn.Environment.Variables {
				env[name+"."+k] = v
			}
		}
	}
	for k := range env {
		if secretish.MatchString(k) && !strings.HasSuffix(k, "_PATH") {
			bad("environment variable %s looks like a secret; read it from SSM at init instead", k)
		}
	}
	for k := range tpl.Parameters {
		if secretish.MatchString(k) && !strings.HasSuffix(k, "Path") {
			bad("parameter %s looks like a secret value; store it in SSM Parameter Store", k)
		}
	}
	for k, o := range tpl.Outputs {
		if secretish.MatchString(k) || secretish.MatchString(fmt.Sprint(o.Value)) {
			bad("output %s may expose a secret", k)
		}
	}

	// The table: on demand, TTL on the attribute the store writes, the keys
	// the store uses.
	table, err := tpl.GetDynamoDBTableWithName("Table")
	if err != nil {
		bad("table: %v", err)
	} else {
		if table.BillingMode == nil || *table.BillingMode != "PAY_PER_REQUEST" {
			bad("table: BillingMode must be PAY_PER_REQUEST")
		}
		if ttl := table.TimeToLiveSpecification; ttl == nil || !ttl.Enabled || ttl.AttributeName == nil || *ttl.AttributeName != dynamo.TTLAttribute {
			bad("table: TTL must be enabled on %q", dynamo.TTLAttribute)
		}
		var ks []string
		for _, k := range table.KeySchema {
			ks = append(ks, k.AttributeName+":"+k.KeyType)
		}
		if !slices.Equal(ks, []string{dynamo.PartitionKey + ":HASH", dynamo.SortKey + ":RANGE"}) {
			bad("table: key schema %v, want %s/%s", ks, dynamo.PartitionKey, dynamo.SortKey)
		}
		var idx []string
		for _, g := range table.GlobalSecondaryIndexes {
			idx = append(idx, g.IndexName)
		}
		if !slices.Equal(idx, []string{dynamo.IndexName}) {
			bad("table: indexes %v, want [%s]", idx, dynamo.IndexName)
		}
	}

	bucket, err := tpl.GetS3BucketWithName("ReportBucket")
	if err != nil {
		bad("report bucket: %v", err)
	} else {
		pab := bucket.PublicAccessBlockConfiguration
		if pab == nil || !isTrue(pab.BlockPublicAcls) || !isTrue(pab.BlockPublicPolicy) || !isTrue(pab.IgnorePublicAcls) || !isTrue(pab.RestrictPublicBuckets) {
			bad("report bucket: public access must be blocked entirely")
		}
		if bucket.BucketEncryption == nil {
			bad("report bucket: no default encryption")
		}
	}

	if o, ok := tpl.Outputs["IngestUrl"]; !ok || fmt.Sprint(o.Value) != "GetAtt:IngestFunctionUrl.FunctionUrl" {
		bad("output IngestUrl must be !GetAtt IngestFunctionUrl.FunctionUrl, got %v", o.Value)
	}
	return errs
}

// checkQueueMapping checks that one event source mapping feeds function
// name from a queue with a dead-letter queue, handing back only the
// records that failed (ReportBatchItemFailures: a batch's good parts are
// not built again), at a bounded concurrency.
func checkQueueMapping(tpl *cloudformation.Template, name string) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(name+": "+format, args...)) }
	var found int
	for id, m := range tpl.GetAllLambdaEventSourceMappingResources() {
		if m.FunctionName != "Ref:"+name {
			continue
		}
		found++
		if !slices.Contains(m.FunctionResponseTypes, "ReportBatchItemFailures") {
			bad("mapping %s: FunctionResponseTypes %v, want ReportBatchItemFailures", id, m.FunctionResponseTypes)
		}
		if m.ScalingConfig == nil || m.ScalingConfig.MaximumConcurrency == nil {
			bad("mapping %s: no ScalingConfig.MaximumConcurrency", id)
		}
		arn := ""
		if m.EventSourceArn != nil {
			arn = *m.EventSourceArn
		}
		queue, ok := strings.CutSuffix(strings.TrimPrefix(arn, "GetAtt:"), ".Arn")
		q, err := tpl.GetSQSQueueWithName(queue)
		if !ok || err != nil {
			bad("mapping %s: EventSourceArn %q is not a queue of the template", id, arn)
			continue
		}
		if q.RedrivePolicy == nil {
			bad("queue %s: no RedrivePolicy (a message failing for ever would be retried for ever)", queue)
		}
	}
	if found != 1 {
		bad("%d event source mappings, want one", found)
	}
	return errs
}

// checkPolicies enforces least privilege: inline statements only, no
// wildcard in any action, only actions the code uses, resources named.
func checkPolicies(name string, p *serverless.Function_Policies) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(name+": "+format, args...)) }
	if p == nil {
		return []error{fmt.Errorf("%s: no policies (the function could not reach its table)", name)}
	}
	// goformation fills every branch of its union that decodes; a list of
	// policies decodes as documents, and an element without statements is a
	// managed policy name or a SAM policy template (broad by design).
	if p.String != nil {
		bad("managed policy %q is not allowed; write the statements", *p.String)
	}
	var docs []serverless.Function_IAMPolicyDocument
	if p.IAMPolicyDocument != nil {
		docs = append(docs, *p.IAMPolicyDocument)
	}
	if p.IAMPolicyDocumentArray != nil {
		docs = append(docs, *p.IAMPolicyDocumentArray...)
	}
	for i, d := range docs {
		if len(d.Statement) == 0 {
			bad("policy %d has no statements (a managed policy or SAM policy template?); write the statements", i)
		}
	}
	if len(docs) == 0 {
		bad("no policy statements")
	}
	allowed := allowedActions()
	for _, d := range docs {
		for i, st := range d.Statement {
			m, ok := st.(map[string]any)
			if !ok {
				bad("statement %d is not a map", i)
				continue
			}
			if m["Effect"] != "Allow" {
				continue
			}
			if _, ok := m["NotAction"]; ok {
				bad("statement %d uses NotAction", i)
			}
			for _, a := range anyStrings(m["Action"]) {
				if strings.Contains(a, "*") {
					bad("statement %d: wildcard action %q", i, a)
				} else if !allowed[a] {
					bad("statement %d: action %q is not used by the code", i, a)
				}
			}
			res := anyStrings(m["Resource"])
			if len(res) == 0 {
				bad("statement %d: no Resource", i)
			}
			for _, r := range res {
				if r == "*" || r == "Sub:*" {
					bad("statement %d: wildcard resource", i)
				}
			}
		}
	}
	return errs
}

func TestTemplate(t *testing.T) {
	for _, err := range checkTemplate("../../template.yaml", "../../Makefile", "../..") {
		t.Error(err)
	}
}

// TestTemplateCheckCatches proves checkTemplate can fail: each broken
// variant of the real template must be reported with the expected message.
func TestTemplateCheckCatches(t *testing.T) {
	orig, err := os.ReadFile("../../template.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, from, to, want string }{
		{"wildcard action", "Action: [dynamodb:GetItem, dynamodb:PutItem, dynamodb:Query]", "Action: [dynamodb:*]", "wildcard action"},
		{"scan not used", "Action: [dynamodb:GetItem, dynamodb:PutItem, dynamodb:Query]", "Action: [dynamodb:GetItem, dynamodb:Scan]", `"dynamodb:Scan" is not used`},
		{"delete not used", "Action: [dynamodb:GetItem, dynamodb:PutItem, dynamodb:Query]", "Action: [dynamodb:DeleteItem]", `"dynamodb:DeleteItem" is not used`},
		{"x86 default", "Default: arm64", "Default: x86_64", "parameter Architecture"},
		{"other runtime", "Runtime: provided.al2023", "Runtime: go1.x", "Runtime"},
		{"no makefile build", "      BuildMethod: makefile\n    Properties:\n      CodeUri: .\n      Description: Verifies", "      BuildMethod: go1.x\n    Properties:\n      CodeUri: .\n      Description: Verifies", "BuildMethod"},
		{"url with IAM auth", "AuthType: NONE", "AuthType: AWS_IAM", "AuthType NONE"},
		{"hourly watchdog", "rate(1 minute)", "rate(1 hour)", "ScheduleExpression"},
		{"provisioned table", "BillingMode: PAY_PER_REQUEST", "BillingMode: PROVISIONED", "PAY_PER_REQUEST"},
		{"ttl off", "AttributeName: ttl\n        Enabled: true", "AttributeName: ttl\n        Enabled: false", "TTL"},
		{"secret parameter", "  SlackChannel:\n", "  SlackToken:\n    Type: String\n    NoEcho: true\n  SlackChannel:\n", "parameter SlackToken"},
		{"secret env", "GPUSLA_SLACK_CHANNEL: !Ref SlackChannel", "GPUSLA_SLACK_WEBHOOK: https://hooks.slack.com/x", "GPUSLA_SLACK_WEBHOOK"},
		{"public bucket", "RestrictPublicBuckets: true", "RestrictPublicBuckets: false", "public access"},
		{"sam policy template", "      Policies:\n        - Statement:\n            - Sid: Store", "      Policies:\n        - DynamoDBCrudPolicy: {TableName: !Ref Table}\n        - Statement:\n            - Sid: Store", "no statements"},
		{"managed policy", "      Policies:\n        - Statement:\n            - Sid: Store", "      Policies:\n        - AmazonDynamoDBFullAccess\n        - Statement:\n            - Sid: Store", "no statements"},
		{"no url output", "!GetAtt IngestFunctionUrl.FunctionUrl", "!Ref IngestFunction", "IngestUrl"},
		{"whole batch retried", "FunctionResponseTypes: [ReportBatchItemFailures]", "FunctionResponseTypes: []", "ReportBatchItemFailures"},
		{"no dead-letter queue", "      RedrivePolicy:\n        deadLetterTargetArn: !GetAtt PartsDeadLetters.Arn\n        maxReceiveCount: 4\n", "", "RedrivePolicy"},
		{"no mapping", "FunctionName: !Ref PartsFunction", "FunctionName: !Ref ReportsFunction", "0 event source mappings"},
		{"queue wildcard", "Action: [sqs:SendMessage]", "Action: [sqs:*]", "wildcard action"},
		{"purge not used", "Action: [sqs:SendMessage]", "Action: [sqs:PurgeQueue]", `"sqs:PurgeQueue" is not used`},
		{"collector off, no limit", "          GOMEMLIMIT: 384MiB\n", "", "GOGC=off without a GOMEMLIMIT"},
		{"limit over the size", "GOMEMLIMIT: 5632MiB", "GOMEMLIMIT: 6GiB", "leaves less than 64 MiB"},
		{"limit not a size", "GOMEMLIMIT: 5632MiB", "GOMEMLIMIT: 5.5GB", "not a size Go reads"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(string(orig), c.from) {
				t.Fatalf("template.yaml no longer contains %q; update this case", c.from)
			}
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".yaml")
			if err := os.WriteFile(path, []byte(strings.Replace(string(orig), c.from, c.to, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			errs := checkTemplate(path, "../../Makefile", "../..")
			for _, e := range errs {
				if strings.Contains(e.Error(), c.want) {
					return
				}
			}
			t.Errorf("no error mentioning %q; got %v", c.want, errs)
		})
	}
}

// TestEveryBuildShipsTheTerms: template.yaml gives every function
// GPUSLA_TERMS, so a make target that copies no terms builds a function
// whose init fails on AWS (the listed folder is missing). A Makefile whose
// ingest target lost its terms copy is refused, naming the function.
func TestEveryBuildShipsTheTerms(t *testing.T) {
	orig, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	const from = "./functions/ingest && $(COPY_TERMS)"
	if !strings.Contains(string(orig), from) {
		t.Fatalf("the Makefile no longer contains %q; update this test", from)
	}
	mk := filepath.Join(t.TempDir(), "Makefile")
	if err := os.WriteFile(mk, []byte(strings.Replace(string(orig), from, "./functions/ingest", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	errs := checkTemplate("../../template.yaml", mk, "../..")
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "IngestFunction: template.yaml sets GPUSLA_TERMS for every function but build-IngestFunction copies no terms") {
		t.Errorf("got %v, want one error naming IngestFunction's missing terms", errs)
	}
}

// checkMemoryLimit holds a function's Go memory settings to its size: a
// GOMEMLIMIT is a size Go reads (a number and B, KiB, MiB or GiB) below
// the function's MemorySize, leaving the runtime and the binary 64 MiB;
// and a collector turned off (GOGC=off, which a worker whose live heap is a
// few tens of MiB runs with) must have one, or the heap grows until Lambda
// kills the function.
func checkMemoryLimit(name string, fn *serverless.Function) []error {
	var errs []error
	var env map[string]string
	if fn.Environment != nil {
		env = fn.Environment.Variables
	}
	limit, set := env["GOMEMLIMIT"]
	if !set {
		if strings.EqualFold(env["GOGC"], "off") {
			errs = append(errs, fmt.Errorf("%s: GOGC=off without a GOMEMLIMIT", name))
		}
		return errs
	}
	m := regexp.MustCompile(`^([0-9]+)(B|KiB|MiB|GiB)$`).FindStringSubmatch(limit)
	if m == nil {
		return append(errs, fmt.Errorf("%s: GOMEMLIMIT %q is not a size Go reads here (a number and B, KiB, MiB or GiB)", name, limit))
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return append(errs, fmt.Errorf("%s: GOMEMLIMIT %q: %v", name, limit, err))
	}
	bytes := n << map[string]int{"B": 0, "KiB": 10, "MiB": 20, "GiB": 30}[m[2]]
	if fn.MemorySize == nil || bytes > int64(*fn.MemorySize-64)<<20 {
		errs = append(errs, fmt.Errorf("%s: GOMEMLIMIT %s leaves less than 64 MiB of the function's MemorySize %v MB", name, limit, fn.MemorySize))
	}
	return errs
}

// makeTarget is what one build-<LogicalId> target of the Makefile does:
// the package it builds, and whether it copies the contract terms beside
// the bootstrap.
type makeTarget struct {
	dir   string
	terms bool
}

// globalEnv is the Globals' value of an environment variable ("" if unset).
func globalEnv(g global.Function, name string) string {
	if g.Environment == nil || g.Environment.Variables == nil {
		return ""
	}
	return g.Environment.Variables[name]
}

// makeTargets maps each build-<LogicalId> target of the Makefile to what
// it builds.
func makeTargets(path string) (map[string]makeTarget, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	re := regexp.MustCompile(`^(build-[A-Za-z0-9]+):.*\$\(LAMBDA_BUILD\)\s+(\./functions/\S+)`)
	out := map[string]makeTarget{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			out[m[1]] = makeTarget{dir: m[2], terms: strings.Contains(sc.Text(), "$(COPY_TERMS)")}
		}
	}
	return out, sc.Err()
}

// node is a YAML tree that tolerates CloudFormation's custom tags.
type node struct{ n *yaml.Node }

func loadYAML(path string) (node, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return node{}, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return node{}, fmt.Errorf("%s: %w", path, err)
	}
	if len(doc.Content) == 0 {
		return node{}, fmt.Errorf("%s: empty", path)
	}
	return node{doc.Content[0]}, nil
}

func (n node) path(keys ...string) node {
	cur := n.n
	for _, k := range keys {
		if cur == nil || cur.Kind != yaml.MappingNode {
			return node{}
		}
		var next *yaml.Node
		for i := 0; i+1 < len(cur.Content); i += 2 {
			if cur.Content[i].Value == k {
				next = cur.Content[i+1]
			}
		}
		cur = next
	}
	return node{cur}
}

func (n node) value() string {
	if n.n == nil {
		return ""
	}
	return n.n.Value
}

func pick(p *string, g *string) string {
	if p != nil && *p != "" {
		return *p
	}
	if g != nil {
		return *g
	}
	return ""
}

func isTrue(b *bool) bool { return b != nil && *b }

func anyStrings(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []string:
		return x
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			out = append(out, fmt.Sprint(e))
		}
		return out
	}
	return nil
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
