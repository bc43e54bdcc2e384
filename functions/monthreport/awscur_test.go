package monthreport

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/functions/document/documenttest"
)

// awsTerms is a UTC contract at AWS's prices, the one sla/billing's CUR
// tests judge with.
func awsTerms(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile("../../sla/billing/testdata/aws-p5.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// usageObs is one usage reading of gpu-a as the event log carries it: the
// root and data volumes as NVMe disks, ens5 having sent tx bytes.
func usageObs(id, at string, tx uint64) string {
	return fmt.Sprintf(`{"type":"observation","id":%q,"node":"gpu-a","at":%q,"received_at":%q,"kind":"check","checks":[`+
		`{"name":"usage.boot","category":"host","verdict":"pass","number":60,"detail":"boot_id=b1&boot_time=1774994400"},`+
		`{"name":"usage.disk.nvme0n1","category":"host","verdict":"pass","detail":"rotational=0&size_bytes=107374182400&system=1&virtual=1"},`+
		`{"name":"usage.disk.nvme1n1","category":"host","verdict":"pass","detail":"rotational=0&size_bytes=536870912000&system=0&virtual=1"},`+
		`{"name":"usage.net.ens5","category":"host","verdict":"pass","detail":"default_route=1&physical=1&rx_bytes=0&tx_bytes=%d"}]}`+"\n", id, at, at, tx)
}

// TestAWSBillInEveryFormat: `gpusla report --bill cur.csv --bill-format
// aws-cur` from an event log with the probe's usage readings, in every
// format: the CUR's rows become lines (120 GB out billed, at most 100 GB
// sent: 1.80 over-billed), its taxes, credits and untagged rows are listed
// as not judged, and no format leaves the bill out.
func TestAWSBillInEveryFormat(t *testing.T) {
	dir := t.TempDir()
	tf := filepath.Join(dir, "aws.yaml")
	if err := os.WriteFile(tf, []byte(awsTerms(t)), 0o600); err != nil {
		t.Fatal(err)
	}
	events := `{"type":"node_registered","id":"r1","node":"gpu-a","contract":"aws-p5","ordered_at":"2026-03-30T00:00:00Z","hardware":{"gpu_model":"H100","gpu_count":8}}` + "\n" +
		usageObs("u1", "2026-03-31T23:00:00Z", 0) + usageObs("u2", "2026-04-16T00:00:00Z", 60e9) + usageObs("u3", "2026-05-01T01:00:00Z", 100e9)
	rep, _, err := Build(Request{Terms: []string{tf}, Events: writeLog(t, events), Month: "2026-04", AsOf: "2026-05-02T00:00:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	if u := rep.Nodes[0].Usage; u == nil || u.Readings != 3 || u.Traffic.Tx.Upper != 100e9 {
		t.Fatalf("usage %+v", u)
	}
	bill := "../../sla/billing/testdata/aws-cur-2026-04.csv"
	for _, f := range []string{"json", "md", "csv", "html", "pdf"} {
		for _, lang := range []string{"en", "zh"} {
			var buf bytes.Buffer
			if err := Write(rep, Output{Format: f, Lang: lang, Bill: bill, BillFormat: "aws-cur", Terms: []string{tf}, Stdout: &buf}); err != nil {
				t.Fatal(err)
			}
			text := buf.String()
			if f == "pdf" {
				text = documenttest.PDFText(t, buf.Bytes())
			}
			over := map[string]string{"en": "over-billed by 1.80 USD", "zh": "多计1.80 USD"}[lang]
			if f == "json" || f == "csv" {
				// Machine words; a Chinese sheet translates them (docs/reports.md).
				over = map[string]string{"en": "over_billed", "zh": "多计费"}[lang]
				if f == "json" {
					over = "over_billed"
				}
			}
			for _, want := range []string{"traffic", "object_storage", "cross_zone", "system_disk", over, "3.24"} {
				if !strings.Contains(text, want) {
					t.Errorf("%s %s lacks %q", f, lang, want)
				}
			}
		}
	}
	// A contract in another zone than AWS's UTC months is refused, naming
	// the bill's line.
	if err := os.WriteFile(tf, []byte(strings.Replace(awsTerms(t), "timezone: UTC", "timezone: Asia/Shanghai", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	rep2, _, err := Build(Request{Terms: []string{tf}, Events: writeLog(t, events), Month: "2026-04", AsOf: "2026-05-02T00:00:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(rep2, Output{Format: "md", Bill: bill, BillFormat: "aws-cur", Terms: []string{tf}, Stdout: &buf}); err == nil ||
		!strings.Contains(err.Error(), "aws-cur-2026-04.csv:2: node gpu-a: an AWS bill is in UTC months") || buf.Len() != 0 {
		t.Fatalf("non-UTC contract: %v (%d bytes written)", err, buf.Len())
	}
	for _, o := range []Output{{Format: "md", Bill: bill, BillFormat: "alibaba"}, {Format: "md", BillFormat: "aws-cur"}} {
		if err := o.Check(); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}
