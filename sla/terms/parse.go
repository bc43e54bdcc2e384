package terms

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	// The IANA zone database is built in, so a contract's time zone means
	// the same on a slim container without /usr/share/zoneinfo.
	_ "time/tzdata"

	"go.yaml.in/yaml/v3"
	"golang.org/x/text/currency"

	"github.com/gpusla/gpusla/sla/calendar"
	"github.com/gpusla/gpusla/sla/incident"
)

// MaxFileBytes caps a terms file; contracts are small.
const MaxFileBytes = 1 << 20

// Default detection settings, used when a contract leaves them out.
const (
	DefaultGrace            = 2 * time.Minute
	DefaultFailureThreshold = 3
	DefaultSuccessThreshold = 2
)

// ReadFile parses every contract in a terms file.
func ReadFile(path string) ([]*Terms, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read terms: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read terms %s: %w", path, err)
	}
	if len(b) > MaxFileBytes {
		return nil, fmt.Errorf("read terms %s: larger than %d bytes", path, MaxFileBytes)
	}
	return Parse(path, b)
}

// ReadPath parses every contract in a terms file or, when path is a
// folder, in each of its terms files (Files).
func ReadPath(path string) ([]*Terms, error) {
	files, err := Files(path)
	if err != nil {
		return nil, err
	}
	var out []*Terms
	for _, f := range files {
		ts, err := ReadFile(f)
		if err != nil {
			return nil, err
		}
		out = append(out, ts...)
	}
	return out, nil
}

// Files is path itself for a file and, for a folder, its *.yaml and *.yml
// files in name order (the data folder's terms/, which serve and node add
// read); sub-folders are not read.
func Files(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read terms: %w", err)
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	ents, err := os.ReadDir(path) // sorted by name
	if err != nil {
		return nil, fmt.Errorf("read terms: %w", err)
	}
	var out []string
	for _, e := range ents {
		if n := e.Name(); !e.IsDir() && (strings.HasSuffix(n, ".yaml") || strings.HasSuffix(n, ".yml")) {
			out = append(out, filepath.Join(path, n))
		}
	}
	return out, nil
}

// Parse reads the contracts in data (one per YAML document, documents
// separated by "---"); file names the source in errors.
func Parse(file string, data []byte) ([]*Terms, error) {
	p := &parser{file: file}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []*Terms
	seen := map[string]int{}
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if len(doc.Content) == 0 {
			continue
		}
		t, err := p.contract(doc.Content[0])
		if err != nil {
			return nil, err
		}
		if line, dup := seen[t.Contract]; dup {
			return nil, &Error{File: file, Line: t.Line, Field: "contract", Msg: fmt.Sprintf("%q is already defined on line %d", t.Contract, line),
				Format: "%q is already defined on line %d", Args: []any{t.Contract, line}}
		}
		seen[t.Contract] = t.Line
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, &Error{File: file, Line: 1, Msg: "no contract in the file", Format: "no contract in the file"}
	}
	return out, nil
}

type parser struct{ file string }

func (p *parser) err(n *yaml.Node, field, format string, args ...any) error {
	line := 0
	if n != nil {
		line = n.Line
	}
	return &Error{File: p.file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...), Format: format, Args: args}
}

// object is a YAML mapping whose keys have been checked against a list.
type object struct {
	n    *yaml.Node
	path string
	vals map[string]*yaml.Node
	keys []string // in file order
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// object checks that n is a mapping with only allowed keys, each once.
// allowed nil means any key (a map keyed by name, e.g. priorities).
func (p *parser) object(n *yaml.Node, path string, allowed ...string) (*object, error) {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind != yaml.MappingNode {
		return nil, p.err(n, path, "must be a mapping")
	}
	o := &object{n: n, path: path, vals: map[string]*yaml.Node{}}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, p.err(k, path, "keys must be plain names")
		}
		if allowed != nil && !slices.Contains(allowed, k.Value) {
			return nil, p.err(k, join(path, k.Value), "unknown field (known: %s)", strings.Join(allowed, ", "))
		}
		if _, dup := o.vals[k.Value]; dup {
			return nil, p.err(k, join(path, k.Value), "given twice")
		}
		if v.Kind == yaml.AliasNode {
			v = v.Alias
		}
		o.vals[k.Value] = v
		o.keys = append(o.keys, k.Value)
	}
	return o, nil
}

func (p *parser) require(o *object, key string) (*yaml.Node, error) {
	v, ok := o.vals[key]
	if !ok {
		return nil, p.err(o.n, join(o.path, key), "missing")
	}
	return v, nil
}

func (p *parser) scalar(n *yaml.Node, field string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", p.err(n, field, "must be a single value")
	}
	return n.Value, nil
}

func (p *parser) str(n *yaml.Node, field string) (string, error) {
	s, err := p.scalar(n, field)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(s) == "" {
		return "", p.err(n, field, "must not be empty")
	}
	return s, nil
}

// either reads a field that takes one of two words.
func (p *parser) either(n *yaml.Node, field, a, b string) (string, error) {
	s, err := p.str(n, field)
	if err != nil {
		return "", err
	}
	if s != a && s != b {
		return "", p.err(n, field, "%q is neither %q nor %q", s, a, b)
	}
	return s, nil
}

func (p *parser) num(n *yaml.Node, field string) (float64, error) {
	s, err := p.scalar(n, field)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, p.err(n, field, "%q is not a number", s)
	}
	return v, nil
}

func (p *parser) percent(n *yaml.Node, field string) (float64, error) {
	v, err := p.num(n, field)
	if err != nil {
		return 0, err
	}
	if v < 0 || v > 100 {
		return 0, p.err(n, field, "%v is not a percentage from 0 to 100", v)
	}
	return v, nil
}

func (p *parser) nonNegative(n *yaml.Node, field string) (float64, error) {
	v, err := p.num(n, field)
	if err != nil {
		return 0, err
	}
	if v < 0 {
		return 0, p.err(n, field, "must not be negative, got %v", v)
	}
	return v, nil
}

func (p *parser) integer(n *yaml.Node, field string, min int) (int, error) {
	s, err := p.scalar(n, field)
	if err != nil {
		return 0, err
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, p.err(n, field, "%q is not a whole number", s)
	}
	if v < min {
		return 0, p.err(n, field, "must be %d or more, got %d", min, v)
	}
	return v, nil
}

func (p *parser) boolean(n *yaml.Node, field string) (bool, error) {
	s, err := p.scalar(n, field)
	if err != nil {
		return false, err
	}
	switch s {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, p.err(n, field, "%q is neither true nor false", s)
}

// maxDuration bounds every duration in a contract (a year); larger values are
// typos and would overflow deadline arithmetic.
const maxDuration = 366 * 24 * time.Hour

// duration reads a Go duration ("90s", "15m", "4h30m") or whole days ("30d").
func (p *parser) duration(n *yaml.Node, field string) (time.Duration, error) {
	s, err := p.scalar(n, field)
	if err != nil {
		return 0, err
	}
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		v, perr := strconv.Atoi(days)
		if perr != nil {
			return 0, p.err(n, field, "%q is not a duration (e.g. 15m, 4h, 30d)", s)
		}
		d = time.Duration(v) * 24 * time.Hour
		if v > 366 || v < -366 {
			d = maxDuration + 1
		}
	} else {
		d, err = time.ParseDuration(s)
		if err != nil {
			return 0, p.err(n, field, "%q is not a duration (e.g. 15m, 4h, 30d)", s)
		}
	}
	if d < 0 {
		return 0, p.err(n, field, "negative duration %s", s)
	}
	if d > maxDuration {
		return 0, p.err(n, field, "%s is longer than a year", s)
	}
	return d, nil
}

func (p *parser) clock(n *yaml.Node, field string) (Clock, error) {
	s, err := p.scalar(n, field)
	if err != nil {
		return "", err
	}
	switch Clock(s) {
	case Wall, Business:
		return Clock(s), nil
	}
	return "", p.err(n, field, "%q is neither %q nor %q", s, Wall, Business)
}

func (p *parser) date(n *yaml.Node, field string) (calendar.Date, error) {
	s, err := p.scalar(n, field)
	if err != nil {
		return calendar.Date{}, err
	}
	d, err := calendar.ParseDate(s)
	if err != nil {
		return calendar.Date{}, p.err(n, field, "%v", err)
	}
	return d, nil
}

// hours reads "09:00-18:00" or "closed".
func (p *parser) hours(n *yaml.Node, field string) (calendar.Hours, error) {
	s, err := p.scalar(n, field)
	if err != nil {
		return calendar.Hours{}, err
	}
	if s == "closed" {
		return calendar.Closed, nil
	}
	from, to, ok := strings.Cut(s, "-")
	if !ok {
		return calendar.Hours{}, p.err(n, field, "%q is neither \"closed\" nor a range like \"09:00-18:00\"", s)
	}
	start, err1 := clockMinute(strings.TrimSpace(from))
	end, err2 := clockMinute(strings.TrimSpace(to))
	if err1 != nil || err2 != nil {
		return calendar.Hours{}, p.err(n, field, "%q is not a range like \"09:00-18:00\" (times HH:MM, 24:00 allowed as an end)", s)
	}
	if end <= start {
		return calendar.Hours{}, p.err(n, field, "business hours %q end before they start", s)
	}
	return calendar.Hours{Open: true, Start: start, End: end}, nil
}

func clockMinute(s string) (int, error) {
	h, m, ok := strings.Cut(s, ":")
	if !ok || len(h) != 2 || len(m) != 2 {
		return 0, errors.New("bad time")
	}
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if err1 != nil || err2 != nil || hh < 0 || mm < 0 || mm > 59 || hh > 24 || (hh == 24 && mm != 0) {
		return 0, errors.New("bad time")
	}
	return hh*60 + mm, nil
}

func (p *parser) seq(n *yaml.Node, field string) ([]*yaml.Node, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, p.err(n, field, "must be a list")
	}
	return n.Content, nil
}

var weekdays = []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"}

func (p *parser) contract(root *yaml.Node) (*Terms, error) {
	o, err := p.object(root, "", "contract", "provider", "currency", "timezone", "business_hours", "holidays",
		"extra_working_days", "uptime", "maintenance", "detection", "support", "hardware_replacement",
		"delivery", "claim", "billing", "credits", "prices", "network", "renter", "contract_number", "report", "clauses", "status_page", "provider_status_page", "sources",
		"approximations")
	if err != nil {
		return nil, err
	}
	t := &Terms{File: p.file, Line: root.Line}
	for _, f := range []struct {
		key string
		dst *string
	}{{"contract", &t.Contract}, {"provider", &t.Provider}, {"currency", &t.Currency}, {"timezone", &t.TimeZone}} {
		n, err := p.require(o, f.key)
		if err != nil {
			return nil, err
		}
		if *f.dst, err = p.str(n, f.key); err != nil {
			return nil, err
		}
	}
	if n := o.vals["contract"]; !validID(t.Contract) {
		return nil, p.err(n, "contract", "%q is not an id (letters, digits, '.', '_', '-'; 1 to 64)", t.Contract)
	}
	if n := o.vals["currency"]; len(t.Currency) != 3 || strings.ToUpper(t.Currency) != t.Currency {
		return nil, p.err(n, "currency", "%q is not an ISO 4217 code like CNY or USD", t.Currency)
	} else if err := hundredths(t.Currency); err != nil {
		return nil, p.err(n, "currency", "%v", err)
	}
	loc, err := time.LoadLocation(t.TimeZone)
	if err != nil || t.TimeZone == "Local" || t.TimeZone == "" {
		return nil, p.err(o.vals["timezone"], "timezone", "%q is not an IANA time zone (e.g. Asia/Shanghai)", t.TimeZone)
	}
	cal := &calendar.Calendar{Loc: loc, Holidays: map[calendar.Date]string{}, Extra: map[calendar.Date]calendar.Hours{}}
	t.Calendar = cal

	n, err := p.require(o, "business_hours")
	if err != nil {
		return nil, err
	}
	bh, err := p.object(n, "business_hours", weekdays...)
	if err != nil {
		return nil, err
	}
	anyOpen := false
	for wd, name := range weekdays {
		v, ok := bh.vals[name]
		if !ok {
			continue // not listed: closed
		}
		if cal.Week[wd], err = p.hours(v, "business_hours."+name); err != nil {
			return nil, err
		}
		anyOpen = anyOpen || cal.Week[wd].Open
	}
	if !anyOpen {
		return nil, p.err(n, "business_hours", "no weekday has business hours")
	}
	if n, ok := o.vals["holidays"]; ok {
		if err := p.holidays(n, cal); err != nil {
			return nil, err
		}
	}
	if n, ok := o.vals["extra_working_days"]; ok {
		if err := p.extraDays(n, cal); err != nil {
			return nil, err
		}
	}
	if err := p.uptime(o, t); err != nil {
		return nil, err
	}
	if err := p.sections(o, t); err != nil {
		return nil, err
	}
	if err := p.paperwork(root, o, t); err != nil {
		return nil, err
	}
	if err := p.statusPage(o, t); err != nil {
		return nil, err
	}
	if err := p.sources(root, o, t); err != nil {
		return nil, err
	}
	if err := p.approximations(root, o, t); err != nil {
		return nil, err
	}
	return t, nil
}

func validID(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

func (p *parser) holidays(n *yaml.Node, cal *calendar.Calendar) error {
	items, err := p.seq(n, "holidays")
	if err != nil {
		return err
	}
	for i, it := range items {
		f := fmt.Sprintf("holidays[%d]", i)
		if it.Kind == yaml.ScalarNode {
			d, err := p.date(it, f)
			if err != nil {
				return err
			}
			cal.Holidays[d] = ""
			continue
		}
		h, err := p.object(it, f, "date", "from", "to", "name")
		if err != nil {
			return err
		}
		name := ""
		if v, ok := h.vals["name"]; ok {
			if name, err = p.str(v, f+".name"); err != nil {
				return err
			}
		}
		if v, ok := h.vals["date"]; ok {
			if _, ok := h.vals["from"]; ok {
				return p.err(it, f, "give either date or from/to, not both")
			}
			d, err := p.date(v, f+".date")
			if err != nil {
				return err
			}
			cal.Holidays[d] = name
			continue
		}
		fromN, err := p.require(h, "from")
		if err != nil {
			return err
		}
		toN, err := p.require(h, "to")
		if err != nil {
			return err
		}
		from, err := p.date(fromN, f+".from")
		if err != nil {
			return err
		}
		to, err := p.date(toN, f+".to")
		if err != nil {
			return err
		}
		if to.Before(from) {
			return p.err(toN, f+".to", "%s is before from %s", to, from)
		}
		if from.AddDays(366).Before(to) {
			return p.err(toN, f+".to", "a holiday longer than a year")
		}
		for d := from; !to.Before(d); d = d.AddDays(1) {
			cal.Holidays[d] = name
		}
	}
	return nil
}

func (p *parser) extraDays(n *yaml.Node, cal *calendar.Calendar) error {
	items, err := p.seq(n, "extra_working_days")
	if err != nil {
		return err
	}
	for i, it := range items {
		f := fmt.Sprintf("extra_working_days[%d]", i)
		var d calendar.Date
		var hours calendar.Hours
		hasHours := false
		if it.Kind == yaml.ScalarNode {
			if d, err = p.date(it, f); err != nil {
				return err
			}
		} else {
			e, err := p.object(it, f, "date", "hours", "name")
			if err != nil {
				return err
			}
			dn, err := p.require(e, "date")
			if err != nil {
				return err
			}
			if d, err = p.date(dn, f+".date"); err != nil {
				return err
			}
			if hn, ok := e.vals["hours"]; ok {
				if hours, err = p.hours(hn, f+".hours"); err != nil {
					return err
				}
				hasHours = true
			}
			if nn, ok := e.vals["name"]; ok {
				if _, err := p.str(nn, f+".name"); err != nil {
					return err
				}
			}
		}
		if !hasHours {
			// An adjusted working day works like a regular Monday.
			hours = cal.Week[time.Monday]
			if !hours.Open {
				return p.err(it, f+".hours", "missing, and Monday has no business hours to copy")
			}
		}
		cal.Extra[d] = hours
	}
	return nil
}

func (p *parser) uptime(o *object, t *Terms) error {
	n, err := p.require(o, "uptime")
	if err != nil {
		return err
	}
	u, err := p.object(n, "uptime", "target", "unavailable", "minimum_outage", "downtime_period", "denominator",
		"partial_month", "tiers", "credit_cap", "minimum_credit")
	if err != nil {
		return err
	}
	tn, err := p.require(u, "target")
	if err != nil {
		return err
	}
	if t.Uptime.Target, err = p.percent(tn, "uptime.target"); err != nil {
		return err
	}
	if err := p.unavailable(u, t); err != nil {
		return err
	}
	if t.Uptime.DowntimePeriod, err = p.downtimePeriod(u); err != nil {
		return err
	}
	t.Uptime.Denominator = ServicePeriod
	if v, ok := u.vals["denominator"]; ok {
		s, err := p.either(v, "uptime.denominator", string(ServicePeriod), string(CalendarMonth))
		if err != nil {
			return err
		}
		t.Uptime.Denominator = Denominator(s)
	}
	if err := p.partialMonth(u, t); err != nil {
		return err
	}
	t.Uptime.CreditCap = 100
	if cn, ok := u.vals["credit_cap"]; ok {
		if t.Uptime.CreditCap, err = p.creditCap(cn); err != nil {
			return err
		}
	}
	if tiersN, ok := u.vals["tiers"]; ok {
		if t.Uptime.Tiers, err = p.tiers(tiersN, t.Uptime.Target); err != nil {
			return err
		}
	}
	if mn, ok := u.vals["minimum_credit"]; ok {
		v, err := p.num(mn, "uptime.minimum_credit")
		if err != nil {
			return err
		}
		if v <= 0 {
			return p.err(mn, "uptime.minimum_credit", "%v is not an amount above 0 (leave the field out for none)", v)
		}
		t.Uptime.MinimumCredit = v
	}
	return nil
}

func (p *parser) unavailable(u *object, t *Terms) error {
	t.Uptime.Unavailable = map[incident.Kind]bool{incident.Unreachable: true, incident.GPULost: true}
	un, ok := u.vals["unavailable"]
	if !ok {
		return nil
	}
	items, err := p.seq(un, "uptime.unavailable")
	if err != nil {
		return err
	}
	t.Uptime.Unavailable = map[incident.Kind]bool{}
	for i, it := range items {
		f := fmt.Sprintf("uptime.unavailable[%d]", i)
		s, err := p.str(it, f)
		if err != nil {
			return err
		}
		if !incident.Kind(s).Valid() {
			return p.err(it, f, "unknown incident kind %q (known: %v)", s, incident.Kinds)
		}
		t.Uptime.Unavailable[incident.Kind(s)] = true
	}
	return nil
}

// maxCapPercent bounds a cap above 100 % of the charge: published vouchers
// reach a few times the charge (GPUhub's 1.5× the downtime); more is a typo.
const maxCapPercent = 1000

// creditCap reads uptime.credit_cap: a percent of the monthly charge
// (above 100 where the text allows it) or none.
func (p *parser) creditCap(n *yaml.Node) (float64, error) {
	if n.Kind == yaml.ScalarNode && n.Value == "none" {
		return NoCreditCap, nil
	}
	v, err := p.num(n, "uptime.credit_cap")
	if err != nil {
		return 0, p.err(n, "uptime.credit_cap", "%q is neither a percent of the monthly charge nor none", n.Value)
	}
	if v < 0 || v > maxCapPercent {
		return 0, p.err(n, "uptime.credit_cap", "%v is not a percent from 0 to %d (none: no cap)", v, maxCapPercent)
	}
	return v, nil
}

// capOf reads a credit cap: hours of downtime ("24h"), {amount: 500} in the
// contract's currency, {percent: 150} of the monthly charge, or none (the
// zero Cap).
func (p *parser) capOf(n *yaml.Node, field string) (Cap, error) {
	var c Cap
	if n.Kind == yaml.ScalarNode {
		if n.Value == "none" {
			return c, nil
		}
		d, err := p.duration(n, field)
		var e *Error
		if errors.As(err, &e) {
			e.Msg += "; a cap is hours of downtime (24h), {amount: N}, {percent: N} or none"
		}
		if err != nil {
			return c, err
		}
		if d == 0 {
			return c, p.err(n, field, "must be more than zero (none: no cap)")
		}
		c.Hours = d
		return c, nil
	}
	o, err := p.object(n, field, "amount", "percent")
	if err != nil {
		return c, err
	}
	if len(o.keys) != 1 {
		return c, p.err(n, field, "give exactly one of amount or percent")
	}
	if v, ok := o.vals["amount"]; ok {
		if c.Amount, err = p.nonNegative(v, field+".amount"); err == nil && c.Amount == 0 {
			err = p.err(v, field+".amount", "must be more than zero (none: no cap)")
		}
		return c, err
	}
	v := o.vals["percent"]
	if c.Percent, err = p.num(v, field+".percent"); err != nil {
		return c, err
	}
	if c.Percent <= 0 || c.Percent > maxCapPercent {
		return c, p.err(v, field+".percent", "%v is not a percent above 0 and at most %d", c.Percent, maxCapPercent)
	}
	return c, nil
}

func (p *parser) tiers(n *yaml.Node, target float64) ([]Tier, error) {
	items, err := p.seq(n, "uptime.tiers")
	if err != nil {
		return nil, err
	}
	var out []Tier
	for i, it := range items {
		f := fmt.Sprintf("uptime.tiers[%d]", i)
		to, err := p.object(it, f, "min", "max", "credit")
		if err != nil {
			return nil, err
		}
		var tier Tier
		for _, x := range []struct {
			key string
			dst *float64
		}{{"min", &tier.Min}, {"max", &tier.Max}, {"credit", &tier.Credit}} {
			v, err := p.require(to, x.key)
			if err != nil {
				return nil, err
			}
			if *x.dst, err = p.percent(v, f+"."+x.key); err != nil {
				return nil, err
			}
		}
		if tier.Max <= tier.Min {
			return nil, p.err(to.vals["max"], f+".max", "%v is not above min %v", tier.Max, tier.Min)
		}
		if tier.Max > target {
			return nil, p.err(to.vals["max"], f+".max", "%v is above the uptime target %v (a met target earns no credit)", tier.Max, target)
		}
		if i > 0 {
			prev := out[i-1]
			if tier.Max > prev.Max {
				return nil, p.err(to.vals["max"], f+".max", "tiers must be listed from the highest uptime down (%v follows %v)", tier.Max, prev.Max)
			}
			if tier.Max > prev.Min {
				return nil, p.err(to.vals["max"], f+".max", "[%v, %v) overlaps the tier above, [%v, %v)", tier.Min, tier.Max, prev.Min, prev.Max)
			}
		}
		out = append(out, tier)
	}
	return out, nil
}

func (p *parser) target(n *yaml.Node, field string) (Target, error) {
	o, err := p.object(n, field, "business_hours", "off_hours", "clock")
	if err != nil {
		return Target{}, err
	}
	tg := Target{Clock: Wall}
	bn, err := p.require(o, "business_hours")
	if err != nil {
		return Target{}, err
	}
	if tg.BusinessHours, err = p.duration(bn, field+".business_hours"); err != nil {
		return Target{}, err
	}
	tg.OffHours = tg.BusinessHours
	if on, ok := o.vals["off_hours"]; ok {
		if tg.OffHours, err = p.duration(on, field+".off_hours"); err != nil {
			return Target{}, err
		}
	}
	if cn, ok := o.vals["clock"]; ok {
		if tg.Clock, err = p.clock(cn, field+".clock"); err != nil {
			return Target{}, err
		}
	}
	return tg, nil
}

func (p *parser) step(n *yaml.Node, field string) (StepPenalty, error) {
	o, err := p.object(n, field, "percent", "per", "max")
	if err != nil {
		return StepPenalty{}, err
	}
	var sp StepPenalty
	pn, err := p.require(o, "percent")
	if err != nil {
		return sp, err
	}
	if sp.Percent, err = p.percent(pn, field+".percent"); err != nil {
		return sp, err
	}
	if v, ok := o.vals["per"]; ok {
		if sp.Per, err = p.duration(v, field+".per"); err != nil {
			return sp, err
		}
	}
	if v, ok := o.vals["max"]; ok {
		if sp.Max, err = p.percent(v, field+".max"); err != nil {
			return sp, err
		}
	}
	return sp, nil
}

// hundredths checks that code is an ISO 4217 currency whose minor unit is
// a hundredth (the cent, fen, øre, kopek): every credit and claim is kept
// and truncated in hundredths, and a claim in a currency of whole units
// (JPY) or thousandths (KWD) would ask for an amount its provider cannot
// credit.
func hundredths(code string) error {
	u, err := currency.ParseISO(code)
	if err != nil {
		return fmt.Errorf("%q is not an ISO 4217 code like CNY or USD", code)
	}
	if scale, _ := currency.Standard.Rounding(u); scale != 2 {
		return fmt.Errorf("%s's minor unit is %s of a unit, not a hundredth: credits and claims are figured in hundredths, which it cannot pay", code, minorUnit(scale))
	}
	return nil
}

func minorUnit(scale int) string {
	if scale == 0 {
		return "the whole"
	}
	return "1/" + strconv.Itoa(int(math.Pow10(scale)))
}
