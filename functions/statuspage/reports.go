package statuspage

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/gpusla/gpusla/infra/blob"
	"path"
	"sort"
	"strings"

	"github.com/gpusla/gpusla/sla/i18n"
)

// ReportRow is one contract's stored month with its files.
type ReportRow struct {
	Month    string       `json:"month"` // YYYY-MM
	Title    string       `json:"title"`
	Contract string       `json:"contract"`
	Files    []ReportFile `json:"files"`
}

// ReportFile is one stored file of a month.
type ReportFile struct {
	Name string `json:"name"` // html, pdf, …
	Href string `json:"href"`
	Size int64  `json:"size"`
}

// maxReportMonths bounds the list (five years of one contract).
const maxReportMonths = 60

// reports are the stored months (month/contract/file), newest first, each
// offered only once it is complete (report.json, written last) and only if
// some node was in service in it: the job writes a report for every
// contract the terms define, and a contract whose nodes arrived after the
// month (the demo's first start, a new contract) has a month with no data,
// which is nothing to claim on and not offered.
func (h *Handler) reports(ctx context.Context, pr *i18n.Printer, p *Page, objs []blob.Object) []ReportRow {
	rows := map[string]*ReportRow{}
	for _, o := range objs {
		parts := strings.Split(o.Name, "/")
		if len(parts) != 3 {
			continue
		}
		key := parts[0] + "/" + parts[1]
		r := rows[key]
		if r == nil {
			r = &ReportRow{Month: parts[0], Contract: parts[1], Title: pr.T("%s, %s", pr.Month(parts[0]), parts[1])}
			rows[key] = r
		}
		name := strings.TrimPrefix(path.Ext(parts[2]), ".")
		switch {
		case parts[2] == "evidence.zip":
			name = pr.T("evidence bundle")
		case strings.HasPrefix(parts[2], "scorecard."):
			name = pr.T("provider scorecard (%s)", name)
		case !strings.HasPrefix(parts[2], "report."):
			name = parts[2]
		}
		r.Files = append(r.Files, ReportFile{Name: name, Href: PathReports + o.Name, Size: o.Size})
	}
	keys := make([]string, 0, len(rows))
	for k := range rows {
		keys = append(keys, k)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(keys)))
	var out []ReportRow
	for _, k := range keys {
		if len(out) >= maxReportMonths {
			break
		}
		has, err := h.hasData(ctx, k)
		if err != nil {
			p.Notes = append(p.Notes, "reports: "+err.Error())
			continue
		}
		if !has {
			continue
		}
		r := rows[k]
		sort.Slice(r.Files, func(i, j int) bool { return fileOrder(r.Files[i].Href) < fileOrder(r.Files[j].Href) })
		out = append(out, *r)
	}
	return out
}

// hasData reads the month's report.json: complete, and some node in
// service for some of the month.
func (h *Handler) hasData(ctx context.Context, prefix string) (bool, error) {
	raw, err := h.c.Reports.Get(ctx, prefix+"/report.json")
	if err != nil {
		if isNotFound(err) {
			return false, nil // still being written, or not a report
		}
		return false, err
	}
	var r struct {
		Nodes []struct {
			Period struct {
				InService bool  `json:"in_service"`
				Seconds   int64 `json:"seconds"`
			} `json:"period"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return false, err
	}
	for _, n := range r.Nodes {
		if n.Period.InService && n.Period.Seconds > 0 {
			return true, nil
		}
	}
	return false, nil
}

// fileOrder puts a month's report forms first, then the bundle, then the
// scorecard's forms in the same order.
func fileOrder(href string) int {
	if strings.Contains(path.Base(href), "scorecard") {
		return 20 + fileOrder(strings.Replace(href, "scorecard", "report", 1))
	}
	for i, s := range []string{".html", ".pdf", ".md", ".csv", ".json", "evidence.zip", "chain-head.txt"} {
		if strings.HasSuffix(href, s) {
			return i
		}
	}
	return 99
}

func isNotFound(err error) bool { return errors.Is(err, blob.ErrNotFound) }
