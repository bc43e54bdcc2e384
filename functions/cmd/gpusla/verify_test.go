package main

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/functions/document/documenttest"
)

func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

// The claim month through the commands: report in every format with a
// bill, bundle, verify, a flipped byte, verify again.
func TestBundleVerifyAndReportFormatsCommands(t *testing.T) {
	dir := t.TempDir()
	ev := filepath.Join(dir, "events.jsonl")
	f, err := os.Create(ev)
	if err != nil {
		t.Fatal(err)
	}
	if err := documenttest.ClaimMonth().WriteLog(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	common := []string{"--terms", "../../../testdata/terms/us-example.yaml", "--events", ev, "--month", "2026-11", "--as-of", "2026-12-02T12:00:00Z"}

	bill := filepath.Join(dir, "bill.csv")
	os.WriteFile(bill, []byte("node,period,billed_hours\nva-01,2026-11,721\nva-02,2026-11,661\n"), 0o644)
	for _, format := range []string{"html", "pdf"} {
		out := filepath.Join(dir, "report."+format)
		if _, err := runCLI(t, append([]string{"report", "--format", format, "--bill", bill, "-o", out}, common...)...); err != nil {
			t.Fatalf("report --format %s: %v", format, err)
		}
		b, _ := os.ReadFile(out)
		if format == "html" && (!bytes.Contains(b, []byte("Billing reconciliation")) || !bytes.Contains(b, []byte("over-billed"))) { // the words for over_billed
			t.Fatalf("html report lacks the reconciliation")
		}
		if format == "pdf" && !bytes.HasPrefix(b, []byte("%PDF-")) {
			t.Fatalf("pdf report does not start with %%PDF-: %q", b[:min(len(b), 10)])
		}
	}
	// md, json and csv carry the bill too, line by line (they used to drop it).
	for _, x := range []struct{ format, want, over string }{{"md", "## Bill reconciliation 2026-11", "over-billed by 19.20 USD"},
		{"json", `"bill_reconciliation"`, `"over_amount": 19.2`}, {"csv", "bill_line,node,kind", "19.20,over_billed"}} {
		out, err := runCLI(t, append([]string{"report", "--format", x.format, "--bill", bill}, common...)...)
		if err != nil || !strings.Contains(out, x.want) || !strings.Contains(out, x.over) {
			t.Fatalf("report --format %s --bill: %v\n%s", x.format, err, out)
		}
	}
	// The full form: every line kind judged.
	full := filepath.Join(dir, "full.csv")
	os.WriteFile(full, []byte("node,period,kind,quantity,amount,class\nva-01,2026-11,compute,721,1,\nva-01,2026-11,data_disk,500,40,hdd\nva-01,2026-11,cross_zone,30,3,\n"), 0o644)
	out, err := runCLI(t, append([]string{"report", "--format", "md", "--bill", full}, common...)...)                      // declares out for the bundle steps
	if err != nil || !strings.Contains(out, "| 3 | va-01 | data_disk |") || !strings.Contains(out, "cannot be verified") { // cannot_verify, in words
		t.Fatalf("full bill: %v\n%s", err, out)
	}
	os.WriteFile(bill, []byte("node,period,billed_hours\nva-01,2026-11,7 21\n"), 0o644)
	_, err = runCLI(t, append([]string{"report", "--format", "html", "--bill", bill}, common...)...)
	if err == nil || !strings.Contains(err.Error(), "bill.csv:2: field billed_hours") {
		t.Fatalf("bad bill line: %v", err)
	}

	zipPath := filepath.Join(dir, "claim.zip")
	out, err = runCLI(t, append([]string{"bundle", "-o", zipPath}, common...)...)
	if err != nil || !strings.Contains(out, "4 counted outages") {
		t.Fatalf("bundle: %v\n%s", err, out)
	}
	out, err = runCLI(t, "verify", zipPath)
	if err != nil || !strings.Contains(out, "OK: every file") {
		t.Fatalf("verify of a fresh bundle: %v\n%s", err, out)
	}

	// Flip one byte of observations.jsonl's 3rd line (inside a hash).
	zb, _ := os.ReadFile(zipPath)
	zr, _ := zip.NewReader(bytes.NewReader(zb), int64(len(zb)))
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, zf := range zr.File {
		rc, _ := zf.Open()
		data, _ := io.ReadAll(rc)
		rc.Close()
		if zf.Name == "observations.jsonl" {
			lines := bytes.SplitAfter(data, []byte("\n"))
			i := bytes.Index(lines[2], []byte(`"hash":"`)) + len(`"hash":"`) + 3
			if lines[2][i] == 'a' {
				lines[2][i] = 'b'
			} else {
				lines[2][i] = 'a'
			}
			data = bytes.Join(lines, nil)
		}
		w, _ := zw.Create(zf.Name)
		w.Write(data)
	}
	zw.Close()
	os.WriteFile(zipPath, buf.Bytes(), 0o644)
	out, err = runCLI(t, "verify", zipPath)
	if err == nil || !strings.Contains(out, "MISMATCH observations.jsonl: SHA-256 is") || !strings.Contains(out, "MISMATCH observations.jsonl:3: batch va-01 seq") {
		t.Fatalf("verify of a changed bundle: %v\n%s", err, out)
	}
}
