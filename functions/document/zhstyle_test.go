package document

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/internal/zhstyle"
)

// TestChineseDocumentsByTheirOwnRules: every zh golden document (the month
// report in md, csv and html, the claim letters, the trial) holds to the
// house style's words (docs/i18n.md, internal/zhstyle): no English word
// outside the allowed names, 服务商 for the provider, the zone as readers
// name it, no 原文 the reader was never shown. The fixtures' own data —
// names, the renter's notes, the provider's clause numbers, a probe's
// reading — is data. (Spacing and punctuation are held by the catalog's
// tidying and by the chat and status page tests; a document's Markdown
// tables put spaces around their own bars.)
func TestChineseDocumentsByTheirOwnRules(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.zh.*"))
	if err != nil || len(files) < 5 {
		t.Fatalf("zh goldens %v: %v", files, err)
	}
	markup := regexp.MustCompile(`(?s)<style.*?</style>|<svg.*?</svg>|<[^>]+>`)
	data := []string{"Example GPU Cloud Inc.", "Galaxy AI Ltd.", "Example Compute (Guangzhou)", "Sec.", // names, clause numbers
		"core switch firmware", "BMC update", "NCCL all-reduce hangs", "ECC errors on GPU 5", "Thanksgiving", // the renter's and the calendar's words
		"xid 79", "GPU has fallen off the bus", "api:k7q2m4xa (ops)", "Alpha", "Beta", "gpusla bundle", "ta", "tb", "df -h"} // a probe's reading, who recorded, trial providers
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(raw)
		if strings.HasSuffix(f, ".html") {
			text = html.UnescapeString(markup.ReplaceAllString(text, "\n"))
		}
		for _, finding := range zhstyle.Check(text, data...) {
			if strings.HasPrefix(finding.Rule, "an English word") || strings.Contains(finding.Rule, "服务商") ||
				strings.Contains(finding.Rule, "zone") || strings.Contains(finding.Rule, "原文") {
				t.Errorf("%s: %s", filepath.Base(f), finding)
			}
		}
	}
}
