package billing

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/interval"
	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
	"github.com/gpusla/gpusla/sla/usage"
)

// Kinds of a full bill's line items: what a GPU rental bill charges besides
// (and including) GPU time, as the seed article lists them.
const (
	KindCompute        = "compute"         // GPU time, hours (the node's own line)
	KindPackageWeek    = "package_week"    // a weekly package, count
	KindPackageMonth   = "package_month"   // a monthly package, count
	KindBandwidthFixed = "bandwidth_fixed" // fixed-rate public bandwidth, Mbps for the line's period
	KindTraffic        = "traffic"         // public traffic out, GB
	KindSystemDisk     = "system_disk"     // GB over the line's period, class ssd or hdd
	KindDataDisk       = "data_disk"       // GB over the line's period, class ssd or hdd
	KindObjectStorage  = "object_storage"  // GB-months
	KindCrossZone      = "cross_zone"      // transfer between zones, GB
	// KindCredit is money the provider gives back (an SLA credit): its
	// amount is negative. A line of another kind with a negative amount is
	// a credit too. Credits are not judged; the claims ledger matches them
	// to claims (ReadCredits, docs/claims.md).
	KindCredit = "credit"
)

var itemKinds = []string{KindCompute, KindPackageWeek, KindPackageMonth, KindBandwidthFixed, KindTraffic,
	KindSystemDisk, KindDataDisk, KindObjectStorage, KindCrossZone}

var itemColumns = []string{"node", "period", "kind", "quantity", "unit_price", "amount", "currency", "class", "from", "to", "description", "reference"}

// Item is one line of a full bill.
type Item struct {
	Line        int
	Node        string
	Period      string // YYYY-MM
	Kind        string
	Quantity    float64 // hours, count, Mbps, GB or GB-months, by kind
	UnitPrice   float64 // as billed; 0 when the bill gives none
	Amount      float64
	Currency    string
	Class       string    // ssd or hdd, for disks
	From, To    time.Time // the line's own period, when the bill gives it
	Description string
	// AnyDisk: a disk line whose bill does not say whether it is the
	// system disk or a data disk (an imported bill): it is held to every
	// disk the node saw.
	AnyDisk bool
	// Reference is the provider's reference on a credit line (the claim's
	// case number), AmountText the amount as the bill writes it, read
	// exactly for a credit.
	Reference  string
	AmountText string
}

// IsCredit says whether the line gives money back: kind credit, or a
// negative amount.
func (it Item) IsCredit() bool { return it.Kind == KindCredit || it.Amount < 0 }

// IsItemized reports whether a bill's header is the full (itemized) form:
// it names a kind column.
func IsItemized(header []string) bool {
	for _, h := range header {
		if strings.EqualFold(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")), "kind") {
			return true
		}
	}
	return false
}

// ParseItems reads a full bill (docs/bills.md): a header naming columns in
// any order (node, period, kind, quantity and amount required), one line
// item per record. Anything it cannot use is an error naming line and field.
func ParseItems(name string, r io.Reader) ([]Item, error) {
	t, err := openTable(name, r, itemColumns, []string{"node", "period", "kind", "quantity", "amount"})
	if err != nil {
		return nil, err
	}
	var out []Item
	err = t.each(func(rec []string, line int) error {
		it, err := parseItem(rec, t.col, line)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		out = append(out, it)
		return nil
	})
	return out, err
}

func parseItem(rec []string, col map[string]int, line int) (Item, error) {
	get := func(c string) string {
		if i, ok := col[c]; ok {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	it := Item{Line: line, Node: get("node"), Period: get("period"), Kind: strings.ToLower(get("kind")),
		Currency: get("currency"), Class: strings.ToLower(get("class")), Description: get("description"), Reference: get("reference")}
	if _, err := time.Parse("2006-01", it.Period); err != nil {
		return it, fmt.Errorf("field period: %q is not a month (want YYYY-MM)", it.Period)
	}
	if !slices.Contains(itemKinds, it.Kind) && it.Kind != KindCredit {
		return it, fmt.Errorf("field kind: %q is not one of %s, %s", it.Kind, strings.Join(itemKinds, ", "), KindCredit)
	}
	if err := itemAmount(&it, get("amount")); err != nil {
		return it, err
	}
	if it.Node == "" && !it.IsCredit() {
		return it, fmt.Errorf("field node: empty")
	}
	if it.Reference != "" && !it.IsCredit() {
		return it, fmt.Errorf("field reference: %q is only for credit lines (kind credit, or a negative amount)", it.Reference)
	}
	for _, f := range []struct {
		c   string
		dst *float64
		req bool
	}{{"quantity", &it.Quantity, !it.IsCredit()}, {"unit_price", &it.UnitPrice, false}} {
		v := get(f.c)
		if v == "" {
			if f.req {
				return it, fmt.Errorf("field %s: empty", f.c)
			}
			continue
		}
		n, err := number(v)
		if err != nil {
			return it, fmt.Errorf("field %s: %q %v", f.c, v, err)
		}
		*f.dst = n
	}
	if it.Kind == KindSystemDisk || it.Kind == KindDataDisk {
		if it.Class != "ssd" && it.Class != "hdd" {
			return it, fmt.Errorf("field class: %q; a disk line needs ssd or hdd (they are priced apart)", it.Class)
		}
	} else if it.Class != "" {
		return it, fmt.Errorf("field class: %q is only for system_disk and data_disk lines", it.Class)
	}
	for _, f := range []struct {
		c   string
		dst *time.Time
	}{{"from", &it.From}, {"to", &it.To}} {
		if v := get(f.c); v != "" {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				return it, fmt.Errorf("field %s: %q is not an RFC 3339 time", f.c, v)
			}
			*f.dst = t
		}
	}
	if !it.From.IsZero() && !it.To.IsZero() && !it.To.After(it.From) {
		return it, fmt.Errorf("field to: %s is not after from %s", it.To.Format(time.RFC3339), it.From.Format(time.RFC3339))
	}
	return it, nil
}

// itemAmount reads a line's amount: a plain decimal, negative only on a
// credit (money given back), and a credit line's always negative.
func itemAmount(it *Item, v string) error {
	if v == "" {
		return fmt.Errorf("field amount: empty")
	}
	n, err := number(strings.TrimPrefix(v, "-"))
	if err != nil {
		return fmt.Errorf("field amount: %q %v", v, err)
	}
	if strings.HasPrefix(v, "-") {
		n = -n
	}
	if it.Kind == KindCredit && n >= 0 {
		return fmt.Errorf("field amount: %q: a credit line gives money back, so its amount is negative (-%s)", v, v)
	}
	it.Amount, it.AmountText = n, v
	return nil
}

// Verdicts of one line item.
const (
	VerdictMatches    = "matches"
	VerdictOverBilled = "over_billed"
	VerdictUnder      = "under_billed"
	VerdictUnverified = "cannot_verify"
	// VerdictNotJudged marks an imported bill's rows that are no node's
	// line (Full.LeftOut).
	VerdictNotJudged = "not_judged"
)

// Judgment is one bill line item judged.
type Judgment struct {
	Line        int     `json:"bill_line"`
	Node        string  `json:"node"`
	Kind        string  `json:"kind"`
	Description string  `json:"description,omitempty"`
	Quantity    float64 `json:"quantity"`
	Billed      float64 `json:"billed_amount"`
	Currency    string  `json:"currency"`
	// Expected is what the contract's prices give; nil when the line cannot
	// be checked.
	Expected *float64 `json:"expected_amount"`
	Over     float64  `json:"over_amount"` // billed − expected, when over-billed
	Verdict  string   `json:"verdict"`
	Why      string   `json:"why"`
	// Needed says, for a line that cannot be verified, what evidence would
	// settle it.
	Needed string `json:"evidence_needed,omitempty"`
	// WhyText and NeededText are Why and Needed as sentences a renderer
	// translates (sla/msg); Why and Needed are their English.
	WhyText    []msg.Text `json:"-"`
	NeededText msg.Text   `json:"-"`
}

// say sets the judgment's reasons and the evidence it needs, in both forms.
func (j *Judgment) say(why []msg.Text, needed msg.Text) {
	j.WhyText, j.NeededText = why, needed
	j.Why, j.Needed = strings.Join(msg.Strings(why), "; "), needed.String()
}

// Full is a full bill judged line by line.
type Full struct {
	Month string     `json:"month"`
	Items []Judgment `json:"items"`
	// Totals by currency.
	Billed     map[string]float64 `json:"billed"`
	OverBilled map[string]float64 `json:"over_billed"`
	Unverified map[string]float64 `json:"cannot_verify"`
	// LeftOut are an imported bill's rows that were read but are not a
	// node's line (taxes, credits, untagged resources), with why.
	LeftOut []LeftOut `json:"not_judged,omitempty"`
}

// JudgeItems judges every line of a full bill against the report (the GPU
// time, each node's service period) and the contracts' price sheets.
func JudgeItems(r *report.Report, book map[string]*terms.Terms, items []Item) (*Full, error) {
	byNode := map[string]*report.Node{}
	for i := range r.Nodes {
		byNode[r.Nodes[i].Node] = &r.Nodes[i]
	}
	f := &Full{Month: r.Month, Items: []Judgment{}, Billed: map[string]float64{}, OverBilled: map[string]float64{}, Unverified: map[string]float64{}}
	items, f.LeftOut = splitCredits(items, soleCurrency(r))
	// In bill-line order, so the lines of a shared meter take their parts
	// of it in the order the bill lists them.
	items = slices.Clone(items)
	sort.SliceStable(items, func(a, b int) bool { return items[a].Line < items[b].Line })
	disks := matchDisks(r, items)
	shared := meters(r, items, disks)
	for _, it := range items {
		if it.Period != r.Month {
			return nil, fmt.Errorf("bill line %d: field period: %s is not the report's month %s", it.Line, it.Period, r.Month)
		}
		n := byNode[it.Node]
		j := Judgment{Line: it.Line, Node: it.Node, Kind: it.Kind, Description: it.Description, Quantity: it.Quantity, Billed: it.Amount, Currency: it.Currency}
		if n == nil {
			if j.Currency == "" {
				j.Currency = soleCurrency(r) // so the line adds to the bill's total, not a currency of its own
			}
			j.Verdict = VerdictUnverified
			j.say([]msg.Text{msg.New("the bill charges a node the report does not know")},
				msg.New("the node's registration, or the provider's resource id mapped to a node id"))
			f.add(j)
			continue
		}
		if j.Currency == "" {
			j.Currency = n.Currency
		}
		if !strings.EqualFold(j.Currency, n.Currency) {
			return nil, fmt.Errorf("bill line %d: field currency: %s, but contract %s is in %s", it.Line, j.Currency, n.Contract, n.Currency)
		}
		tm := book[n.Contract]
		if tm == nil {
			return nil, fmt.Errorf("bill line %d: node %s: contract %s is not among the terms given", it.Line, it.Node, n.Contract)
		}
		if it.Kind == KindCompute {
			continue // judged together below, with the node form's arithmetic
		}
		judgeItem(&j, it, n, tm, disks[it.Line], shared[it.Line])
		f.add(j)
	}
	// A compute line for a node the report does not know was judged above,
	// once; judgeCompute holds the known nodes' lines to their months.
	if compute := ComputeLines(known(items, byNode)); len(compute) > 0 {
		if err := f.judgeCompute(r, compute); err != nil {
			return nil, err
		}
	}
	sort.SliceStable(f.Items, func(a, b int) bool { return f.Items[a].Line < f.Items[b].Line })
	return f, nil
}

// soleCurrency is the currency of every node of the report, "" when
// they differ.
func soleCurrency(r *report.Report) string {
	cur := ""
	for _, n := range r.Nodes {
		if cur != "" && n.Currency != cur {
			return ""
		}
		cur = n.Currency
	}
	return cur
}

// known are the items of nodes the report knows.
func known(items []Item, byNode map[string]*report.Node) []Item {
	var out []Item
	for _, it := range items {
		if byNode[it.Node] != nil {
			out = append(out, it)
		}
	}
	return out
}

// JudgeLines judges a node bill (one GPU-time line per node, ParseCSV) the
// same way, so every report format shows it line by line.
func JudgeLines(r *report.Report, lines []Line) (*Full, error) {
	f := &Full{Month: r.Month, Items: []Judgment{}, Billed: map[string]float64{}, OverBilled: map[string]float64{}, Unverified: map[string]float64{}}
	if err := f.judgeCompute(r, lines); err != nil {
		return nil, err
	}
	sort.SliceStable(f.Items, func(a, b int) bool { return f.Items[a].Line < f.Items[b].Line })
	return f, nil
}

// judgeCompute judges GPU-time lines with Reconcile's arithmetic (hours
// rounded to the contract's granularity, at its price; usable hours).
func (f *Full) judgeCompute(r *report.Report, compute []Line) error {
	rc, err := Reconcile(r, compute)
	if err != nil {
		return err
	}
	parts := map[int][]Line{}
	for _, l := range compute {
		parts[l.Line] = l.Parts
	}
	for _, row := range rc.Rows {
		if row.BillLine == 0 {
			continue // a node the bill has no line for: not a line item
		}
		j := Judgment{Line: row.BillLine, Node: row.Node, Kind: KindCompute, Currency: row.Currency}
		if j.Currency == "" {
			j.Currency = soleCurrency(r) // a node the report does not know, its bill line giving none
		}
		if row.BilledHours != nil {
			j.Quantity = *row.BilledHours
		}
		if row.BilledAmount != nil {
			j.Billed = *row.BilledAmount
		} else {
			j.Billed = money(row.ContractAmount + row.OverAmount)
		}
		exp := row.ContractAmount
		j.Expected = &exp
		// The reconciliation's own note is shown as it is written.
		var why []msg.Text
		var needed msg.Text
		switch row.Status {
		case StatusOverBilled:
			j.Verdict, j.Over = VerdictOverBilled, money(math.Max(row.OverAmount, 0))
			why = []msg.Text{msg.Plain(row.Note)}
		case StatusUnderBilled:
			j.Verdict = VerdictUnder
			why = []msg.Text{msg.New("billed less than the contract gives")}
		case StatusNotInReport:
			j.Verdict, j.Expected = VerdictUnverified, nil
			why, needed = []msg.Text{msg.Plain(row.Note)}, msg.New("the node's registration")
		default:
			j.Verdict = VerdictMatches
			why = []msg.Text{msg.New("%s h at the contract price", fh(row.ContractHours))}
		}
		if j.Verdict != VerdictUnverified && row.UnusableBilled > hourTol {
			why = append(why, msg.New("%s h of it were not usable (counted outages), worth %.2f at the contract price", fh(row.UnusableBilled), row.UnusableAmount))
		}
		j.say(why, needed)
		f.addParts(j, parts[row.BillLine])
	}
	return nil
}

// addParts adds the judgment of a node's GPU time billed over several
// lines (parts) as one judgment per line, so each line is listed once with
// its own amount: the lines are one charge, held together to the
// contract's amount, each taking what is left of it in bill-line order, so
// the charge's over-billing falls on its last lines and the totals are the
// charge's own — the same as one line billing it all.
func (f *Full) addParts(j Judgment, parts []Line) {
	if len(parts) < 2 {
		f.add(j)
		return
	}
	nums := make([]int, len(parts))
	for i, p := range parts {
		nums[i] = p.Line
	}
	head := msg.New("bill lines %s are judged together as node %s's GPU time: %s h, %.2f", LineList(nums), j.Node, fh(round6(j.Quantity)), j.Billed)
	left := 0.0
	if j.Expected != nil {
		left = *j.Expected
	}
	for i, p := range parts {
		k := j
		k.Line, k.Quantity, k.Billed, k.Over = p.Line, p.Hours, p.Amount, 0
		last := i == len(parts)-1
		if j.Expected != nil {
			exp := money(math.Min(p.Amount, left))
			if last {
				exp = money(left) // an under-billed charge is short on its last line
			}
			left = money(left - exp)
			k.Expected = &exp
			k.Over = money(math.Max(0, p.Amount-exp))
			switch {
			case k.Over > moneyTol:
				k.Verdict = VerdictOverBilled
			case last:
				k.Verdict = j.Verdict
			default:
				k.Verdict = VerdictMatches
			}
		}
		k.say(append([]msg.Text{head}, j.WhyText...), j.NeededText)
		f.add(k)
	}
}

// LineList is bill line numbers as a reason names them: "2, 5".
func LineList(lines []int) string {
	s := make([]string, len(lines))
	for i, l := range lines {
		s[i] = strconv.Itoa(l)
	}
	return strings.Join(s, ", ")
}

func (f *Full) add(j Judgment) {
	f.Billed[j.Currency] = money(f.Billed[j.Currency] + j.Billed)
	switch j.Verdict {
	case VerdictOverBilled:
		f.OverBilled[j.Currency] = money(f.OverBilled[j.Currency] + j.Over)
	case VerdictUnverified:
		f.Unverified[j.Currency] = money(f.Unverified[j.Currency] + j.Billed)
	}
	f.Items = append(f.Items, j)
}

// judgeItem judges a line other than GPU time: the quantity at the
// contract's unit price, what the report knows of the node's period, and
// what its probe measured (disk is the disk matched to a disk line). Where a
// part of the line cannot be settled the provider gets the benefit of the
// doubt in the expected amount, so an over-billed amount is always one the
// evidence proves, at least.
func judgeItem(j *Judgment, it Item, n *report.Node, tm *terms.Terms, disk diskMatch, m *meter) {
	p := tm.Prices
	price, unit, field := priceOf(it, p)
	if price == 0 {
		j.Verdict = VerdictUnverified
		j.say([]msg.Text{msg.New("the contract gives no price for %s", it.Kind)}, msg.New("the contract's price (%s in the terms)", field))
		return
	}
	months := 1.0 // the share of a month a per-month price is charged for
	if it.Kind == KindBandwidthFixed || it.Kind == KindSystemDisk || it.Kind == KindDataDisk {
		months = monthShare(it, n)
	}
	c := &lineCheck{q: it.Quantity, price: price, months: months}
	switch it.Kind {
	case KindSystemDisk, KindDataDisk:
		c.release(it, n, price, p.DisksEndWithNode)
		c.disk(it, n, p, disk)
	case KindTraffic:
		c.traffic(it, n)
	case KindCrossZone:
		c.question(msg.New("traffic by destination zone (provider flow logs); interface byte counts do not say which zone data went to"))
	case KindObjectStorage:
		c.question(msg.New("the bucket's stored GB over the month (the provider's storage metrics); a node cannot see it"))
	}
	m.take(c, unit)
	exp := money(c.q * c.price * c.months)
	j.Expected = &exp
	why := c.why
	if it.UnitPrice > 0 && math.Abs(it.UnitPrice-price) > 1e-9 {
		why = append(why, msg.New("unit price %s, the contract's is %s per %s", fh(it.UnitPrice), fh(price), unit))
	}
	arith := msg.New("%s %s × %s%s", fh(round6(c.q)), unit, fh(c.price), shareText(c.months))
	switch d := money(it.Amount - exp); {
	case d > moneyTol:
		j.Verdict, j.Over = VerdictOverBilled, d
		why = append([]msg.Text{msg.New("%s = %.2f, billed %.2f: %.2f over", arith, exp, it.Amount, d)}, why...)
	case d < -moneyTol:
		j.Verdict = VerdictUnder
		why = append([]msg.Text{msg.New("%s = %.2f, billed %.2f", arith, exp, it.Amount)}, why...)
	case c.open:
		j.Verdict = VerdictUnverified
		why = append([]msg.Text{arith}, why...)
		why = append(why, msg.New("the price is right, the quantity cannot be checked"))
	default:
		j.Verdict = VerdictMatches
		why = append([]msg.Text{arith}, why...)
	}
	j.say(why, c.needed)
}

// lineCheck is what a line's checks settle: the quantity, price and share
// of the month the contract allows for it, the reasons, and what stays open.
type lineCheck struct {
	q, price, months float64
	why              []msg.Text
	needed           msg.Text
	open             bool // a part of the line cannot be settled from what gpusla holds
}

func (c *lineCheck) question(needed msg.Text) {
	c.open = true
	if c.needed.IsZero() {
		c.needed = needed
	}
}

func priceOf(it Item, p terms.Prices) (price float64, unit msg.Text, field string) {
	switch it.Kind {
	case KindPackageWeek:
		return p.PackageWeekly, msg.New("package"), "prices.package_weekly"
	case KindPackageMonth:
		return p.PackageMonthly, msg.New("package"), "prices.package_monthly"
	case KindBandwidthFixed:
		return p.BandwidthPerMbpsMonth, msg.New("Mbps-month"), "prices.bandwidth_per_mbps_month"
	case KindTraffic:
		return p.TrafficPerGB, msg.New("GB"), "prices.traffic_per_gb"
	case KindSystemDisk, KindDataDisk:
		if it.Class == "hdd" {
			return p.DiskHDDPerGBMonth, msg.New("GB-month"), "prices.disk_hdd_per_gb_month"
		}
		return p.DiskSSDPerGBMonth, msg.New("GB-month"), "prices.disk_ssd_per_gb_month"
	case KindObjectStorage:
		return p.ObjectStoragePerGBMonth, msg.New("GB-month"), "prices.object_storage_per_gb_month"
	case KindCrossZone:
		return p.CrossZonePerGB, msg.New("GB"), "prices.cross_zone_per_gb"
	}
	return 0, msg.Text{}, ""
}

// release holds storage billed after the node left service to the
// contract: deleted with the node (disks_end_with_node), only the part up
// to the release is due; else the part after it is a question. A node
// never released but silent since long before the line's end is a question
// too: its last sign of life may be when it was given back.
func (c *lineCheck) release(it Item, n *report.Node, price float64, endWithNode bool) {
	if it.To.IsZero() {
		return
	}
	if end, released := releasedAt(n); released {
		if !it.To.After(end) {
			return
		}
		after := it.To.Sub(interval.Latest(end, it.From))
		if endWithNode {
			c.months = monthShareOf(interval.Latest(it.From, monthStart(n)), end, n)
			c.why = append(c.why, msg.New("billed %s after the node was released at %s; the contract deletes disks with the node", after.Round(time.Minute), msg.Time{Time: end}))
			return
		}
		c.why = append(c.why, msg.New("billed %s after the node was released at %s", after.Round(time.Minute), msg.Time{Time: end}))
		c.question(msg.New("whether the disk was kept on purpose: the release request, or the provider's deletion record for the disk"))
		return
	}
	if u := n.Usage; u != nil && !u.LastSeen.IsZero() && it.To.Sub(u.LastSeen) > silentBeforeEnd {
		share := monthShareOf(interval.Latest(it.From, u.LastSeen), it.To, n)
		c.why = append(c.why, msg.New("the node was last heard from at %s and not again before the line ends at %s; %.2f of it is billed after", msg.Time{Time: u.LastSeen}, msg.Time{Time: it.To}, money(it.Quantity*price*share)))
		c.question(msg.New("whether the machine was released when it went silent: its release record (gpusla node release) or the provider's instance history"))
	}
}

// silentBeforeEnd: a node unheard for longer than this before a storage
// line ends may have been given back; shorter silences are outages.
const silentBeforeEnd = 24 * time.Hour

// diskMatch is the disk the node's probe saw that a disk line is held to.
type diskMatch struct {
	measured bool            // the node sent usage readings with disks
	disk     *usage.DiskSeen // nil: no disk left for this line
	seen     []usage.DiskSeen
	noSystem bool // the probe could not tell which disk holds the root filesystem
}

// disk holds a disk line to the disk the probe saw: its size (a bill's GB
// read as 10⁹ bytes, the reading that gives the provider the most) and its
// class (a rotational disk billed as SSD, unless it is a hypervisor's disk,
// whose flag says nothing of the medium).
func (c *lineCheck) disk(it Item, n *report.Node, p terms.Prices, m diskMatch) {
	switch {
	case !m.measured:
		c.question(msg.New("the disk's size and type as the node sees it (the probe's usage.disk readings: size, rotational = HDD) to check GB and class"))
		return
	case m.noSystem:
		c.question(msg.New("which disk holds the node's root filesystem: the probe could not tell the system disk from the data disks"))
		return
	case m.disk == nil:
		c.why = append(c.why, msg.New("the node saw no %s for this line (it saw %s)", it.Kind, seenText(m.seen)))
		c.question(msg.New("the disk's attachment record (which machine it was attached to): a detached disk is still billed"))
		return
	}
	d := m.disk
	if gb := float64(d.SizeBytes) / 1e9; it.Quantity > gb+1e-9 {
		c.q = math.Min(c.q, gb)
		c.why = append(c.why, msg.New("billed %s GB, but %s holds %s bytes = %s GB (%s GiB)", fh(it.Quantity), d.Name, fmt.Sprint(d.SizeBytes), fh(round3(gb)), fh(round3(float64(d.SizeBytes)/(1<<30)))))
	} else {
		c.why = append(c.why, msg.New("%s holds %s GB (%s GiB)", d.Name, fh(round3(gb)), fh(round3(float64(d.SizeBytes)/(1<<30)))))
	}
	if it.Class != "ssd" || !d.Rotational {
		return
	}
	if d.Virtual {
		c.why = append(c.why, msg.New("%s reports itself rotational, but it is a hypervisor's disk, whose flag says nothing of the medium", d.Name))
		c.question(msg.New("the disk's type from the provider (its console or API, or a random-read latency test): a virtual disk's rotational flag is set by the hypervisor"))
		return
	}
	if p.DiskHDDPerGBMonth == 0 {
		c.why = append(c.why, msg.New("%s is a rotational disk (HDD) billed as SSD", d.Name))
		c.question(msg.New("the contract's HDD price (prices.disk_hdd_per_gb_month in the terms)"))
		return
	}
	c.price = p.DiskHDDPerGBMonth
	c.why = append(c.why, msg.New("%s is a rotational disk (HDD) billed as SSD: the HDD price %s applies", d.Name, fh(p.DiskHDDPerGBMonth)))
}

func seenText(ds []usage.DiskSeen) string {
	if len(ds) == 0 {
		return "no disk"
	}
	var parts []string
	for _, d := range ds {
		role := ""
		if d.System {
			role = ", system"
		}
		parts = append(parts, fmt.Sprintf("%s %s GB%s", d.Name, fh(round3(float64(d.SizeBytes)/1e9)), role))
	}
	return strings.Join(parts, "; ")
}

// anyDisk is matchDisks' group of a node's disk lines of any role.
const anyDisk = "disk"

// matchDisks pairs each node's disk lines with the disks its probe saw:
// system_disk lines with the system disk, data_disk lines with the others,
// the largest billed with the largest seen, which leaves the least billed
// over what was seen of any pairing (so an over-billing found holds for
// every one).
func matchDisks(r *report.Report, items []Item) map[int]diskMatch {
	out := map[int]diskMatch{}
	byNode := map[string]*report.Node{}
	for i := range r.Nodes {
		byNode[r.Nodes[i].Node] = &r.Nodes[i]
	}
	// A node with a disk line of unknown role has all its disk lines held
	// to all its disks together.
	unknownRole := map[string]bool{}
	for _, it := range items {
		unknownRole[it.Node] = unknownRole[it.Node] || it.AnyDisk
	}
	groups := map[[2]string][]Item{}
	for _, it := range items {
		if it.Kind == KindSystemDisk || it.Kind == KindDataDisk {
			k := [2]string{it.Node, it.Kind}
			if unknownRole[it.Node] {
				k[1] = anyDisk
			}
			groups[k] = append(groups[k], it)
		}
	}
	for k, lines := range groups {
		n := byNode[k[0]]
		if n == nil || n.Usage == nil || len(n.Usage.Disks) == 0 {
			for _, it := range lines {
				out[it.Line] = diskMatch{}
			}
			continue
		}
		all := n.Usage.Disks
		anySystem, sysLines := false, false
		for _, d := range all {
			anySystem = anySystem || d.System
		}
		for _, it := range items {
			sysLines = sysLines || (it.Node == k[0] && it.Kind == KindSystemDisk)
		}
		var cand []usage.DiskSeen
		for _, d := range all {
			if k[1] == anyDisk || d.System == (k[1] == KindSystemDisk) {
				cand = append(cand, d)
			}
		}
		sort.SliceStable(cand, func(a, b int) bool { return cand[a].SizeBytes > cand[b].SizeBytes })
		sort.SliceStable(lines, func(a, b int) bool { return lines[a].Quantity > lines[b].Quantity })
		for i, it := range lines {
			m := diskMatch{measured: true, seen: all, noSystem: !anySystem && sysLines}
			if i < len(cand) {
				m.disk = &cand[i]
			} else if k[1] == KindSystemDisk && len(cand) > 0 {
				// A node boots from one system disk at a time: a further
				// system disk line is part of the same disk's charge, held
				// with the others to it (systemDiskMeter).
				m.disk = &cand[0]
			}
			out[it.Line] = m
		}
	}
	return out
}

// traffic holds a traffic line (GB out) to the node's interface counters
// over the line's period (the node's service period when the line gives
// none): billed more than the most its physical interfaces can have sent is
// over-billed by the excess, read with GB as 10⁹ bytes (the reading that
// gives the provider the most); anything within it stays a question, since
// counters do not tell public traffic from private.
func (c *lineCheck) traffic(it Item, n *report.Node) {
	var tr *usage.Traffic
	if u := n.Usage; u != nil {
		tr = u.Traffic
		if !it.From.IsZero() && !it.To.IsZero() {
			tr = usage.TrafficIn(u.All, it.From, it.To)
		}
	}
	if tr == nil {
		c.question(msg.New("bytes sent by the node's public interface over the month (the probe's usage.net readings, /proc/net/dev) to check the GB billed"))
		return
	}
	lo, hi := float64(tr.Tx.Lower)/1e9, float64(tr.Tx.Upper)/1e9
	ifs := strings.Join(tr.UpperIfaces, ", ")
	if tr.Tx.Unbounded {
		c.why = append(c.why, msg.New("the node's interfaces (%s) sent at least %s GB in %s – %s, but part of it is covered by no reading and the link speed is unknown", ifs, fh(round3(lo)), msg.Time{Time: tr.From}, msg.Time{Time: tr.To}))
		c.question(msg.New("usage readings around the unobserved spans (the probe running through the month's ends and reboots), or the interface's link speed"))
		return
	}
	if it.Quantity > hi+1e-9 {
		c.q = hi
		c.why = append(c.why, msg.New("billed %s GB out, but the node's interfaces (%s) sent at most %s GB in %s – %s", fh(it.Quantity), ifs, fh(round3(hi)), msg.Time{Time: tr.From}, msg.Time{Time: tr.To}))
		return
	}
	c.why = append(c.why, msg.New("within the node's counters: its interfaces (%s) sent at most %s GB, its default-route interface at least %s GB", ifs, fh(round3(hi)), fh(round3(lo))))
	c.question(msg.New("which part of the node's traffic went to the internet (the provider's flow logs or its traffic statement): interface counters also count private traffic"))
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

func shareText(m float64) msg.Text {
	if m == 1 {
		return msg.Text{}
	}
	return msg.New(" × %s of the month", fh(math.Round(m*1e6)/1e6))
}

// monthShare is the part of the month a per-month line covers: its from–to
// when given, else the whole month.
func monthShare(it Item, n *report.Node) float64 {
	if it.From.IsZero() || it.To.IsZero() {
		return 1
	}
	return monthShareOf(it.From, it.To, n)
}

func monthShareOf(from, to time.Time, n *report.Node) float64 {
	ms, me := monthStart(n), monthEnd(n)
	if ms.IsZero() || me.IsZero() {
		return 1
	}
	from, to = interval.Latest(from, ms), interval.Earliest(to, me)
	if !to.After(from) {
		return 0
	}
	return to.Sub(from).Seconds() / me.Sub(ms).Seconds()
}

func monthStart(n *report.Node) time.Time { return bounds(n, true) }
func monthEnd(n *report.Node) time.Time   { return bounds(n, false) }

// bounds are the report month's bounds in the node's zone.
func bounds(n *report.Node, start bool) time.Time {
	loc, err := time.LoadLocation(n.TimeZone)
	if err != nil {
		return time.Time{}
	}
	var from string
	if n.Billing.From != "" {
		from = n.Billing.From
	} else {
		from = n.Period.Start
	}
	t, err := time.Parse(time.RFC3339, from)
	if err != nil {
		return time.Time{}
	}
	t = t.In(loc)
	ms := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, loc)
	if start {
		return ms
	}
	return ms.AddDate(0, 1, 0)
}

// releasedAt is when the node left service inside the month, if it did.
func releasedAt(n *report.Node) (time.Time, bool) {
	if !n.Period.Released || n.Period.End == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, n.Period.End)
	return t, err == nil
}

// ComputeLines are a full bill's GPU-time lines in the node form, for the
// formats that draw the node reconciliation (html, pdf): one line per node
// and month, a node's GPU time split over several lines summed into one
// (its Parts), since each is judged against the node's whole month.
func ComputeLines(items []Item) []Line {
	var out []Line
	at := map[[2]string]int{}
	for _, it := range items {
		if it.Kind != KindCompute {
			continue
		}
		l := Line{Line: it.Line, Node: it.Node, Period: it.Period, Hours: it.Quantity, HasHours: true,
			Amount: it.Amount, HasAmt: true, Currency: it.Currency}
		k := [2]string{it.Node, it.Period}
		i, seen := at[k]
		if !seen {
			at[k] = len(out)
			out = append(out, l)
			continue
		}
		m := &out[i]
		if m.Parts == nil {
			m.Parts = []Line{*m}
		}
		m.Parts = append(m.Parts, l)
		m.Hours, m.Amount = m.Hours+l.Hours, m.Amount+l.Amount
		if m.Currency == "" {
			m.Currency = l.Currency
		}
	}
	return out
}
