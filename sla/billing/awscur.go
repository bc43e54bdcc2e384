package billing

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/interval"
	"github.com/gpusla/gpusla/sla/msg"
)

// The AWS Cost and Usage Report (CUR, legacy CSV form) as AWS documents its
// columns (docs.aws.amazon.com/cur/latest/userguide/data-dictionary.html:
// identity/, bill/, lineItem/, pricing/, resourceTags/). ParseAWSCUR maps
// its rows to the full bill's line kinds; docs/bills.md has the table.
const (
	curPeriodStart = "bill/BillingPeriodStartDate"
	curType        = "lineItem/LineItemType"
	curStart       = "lineItem/UsageStartDate"
	curEnd         = "lineItem/UsageEndDate"
	curProduct     = "lineItem/ProductCode"
	curUsageType   = "lineItem/UsageType"
	curResource    = "lineItem/ResourceId"
	curAmount      = "lineItem/UsageAmount"
	curCurrency    = "lineItem/CurrencyCode"
	curRate        = "lineItem/UnblendedRate"
	curCost        = "lineItem/UnblendedCost"
	curDesc        = "lineItem/LineItemDescription"
	curUnit        = "pricing/unit"
	// CURNodeTag is the cost allocation tag that names the gpusla node of
	// an instance, volume or bucket (tag key gpusla-node, activated as a
	// user-defined cost allocation tag); CURDiskTag says whether a volume is
	// the node's system disk (system) or a data disk (data).
	CURNodeTag = "resourceTags/user:gpusla-node"
	CURDiskTag = "resourceTags/user:gpusla-disk"
)

var curRequired = []string{curPeriodStart, curType, curStart, curEnd, curProduct, curUsageType, curResource, curAmount, curCurrency, curCost, CURNodeTag}

// LeftOut is a group of bill rows that were read but not judged, and why:
// they are listed with the judgment, never dropped without a word.
type LeftOut struct {
	Reason   string   `json:"reason"`
	Rows     int      `json:"rows"`
	Amount   float64  `json:"amount"`
	Currency string   `json:"currency"`
	Text     msg.Text `json:"-"` // Reason, translatable
}

// ParseAWSCUR reads an AWS Cost and Usage Report CSV and sums its rows into
// line items, one per node, kind, class and resource (a CUR has a row per
// resource and hour or day): EC2 instance hours (BoxUsage, unit Hrs) are
// compute; EBS volume storage (EBS:VolumeUsage*, GB-Mo) a disk, SSD for
// gp2/gp3/io1/io2, HDD for st1/sc1 and magnetic, the system disk when the
// volume's gpusla-disk tag says system, a data disk when it says data, and
// either (held to every disk the node saw) when it has none; data out to the
// internet (DataTransfer-Out-Bytes) traffic; data between availability zones
// (DataTransfer-Regional-Bytes) cross_zone; S3 storage (TimedStorage) object
// storage. Rows of no node (no gpusla-node tag), of a kind the bill CSV has
// no line for, and fees, taxes, credits and reserved or savings-plan usage
// (whose cost is not what the row's usage was charged) are left out and
// counted. A malformed row is an error naming file, line and column.
func ParseAWSCUR(name string, r io.Reader) ([]Item, []LeftOut, error) {
	f, err := openCUR(name, r)
	if err != nil {
		return nil, nil, err
	}
	b := curBook{groups: map[curKey]*curGroup{}, left: map[string]*LeftOut{}}
	for {
		ok, err := f.next()
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			break
		}
		if err := b.add(f); err != nil {
			return nil, nil, err
		}
	}
	if f.rows == 0 {
		return nil, nil, fmt.Errorf("%s: header but no rows", name)
	}
	return b.items(), b.leftOut(), nil
}

// curFile is a CUR being read: its header's columns and the row last read
// (rec, at line), whose fields get, bad and num read and name.
type curFile struct {
	name string
	cr   *csv.Reader
	head []string
	col  map[string]int
	rec  []string
	line int
	rows int
}

// openCUR reads the header and refuses a file that lacks a column the
// mapping needs, or names one twice.
func openCUR(name string, r io.Reader) (*curFile, error) {
	cr := csv.NewReader(newBounded(name, r, MaxCURLineBytes, MaxCURBytes))
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file; want an AWS Cost and Usage Report CSV with a header line", name)
	}
	if err != nil {
		return nil, csvErr(name, err)
	}
	if err := checkCells(name, head, nil, cr.FieldPos); err != nil {
		return nil, err
	}
	col := map[string]int{}
	for i, h := range head {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		if _, dup := col[h]; dup {
			return nil, fmt.Errorf("%s:1:%d: column %q appears twice", name, i+1, h)
		}
		col[h] = i
	}
	for _, c := range curRequired {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("%s:1: header has no %q column (an AWS CUR in CSV; the %s tag must be activated as a cost allocation tag)", name, c, CURNodeTag)
		}
	}
	return &curFile{name: name, cr: cr, head: head, col: col}, nil
}

// next reads the next non-blank row; false at the end of the file. A row
// whose field count differs from the header's, or one past maxLines, is an
// error.
func (f *curFile) next() (bool, error) {
	for {
		rec, err := f.cr.Read()
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, csvErr(f.name, err)
		}
		line, _ := f.cr.FieldPos(0)
		if err := checkCells(f.name, rec, f.head, f.cr.FieldPos); err != nil {
			return false, err
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) != len(f.head) {
			return false, fmt.Errorf("%s:%d: %d fields, the header has %d", f.name, line, len(rec), len(f.head))
		}
		if f.rows++; f.rows > maxLines {
			return false, fmt.Errorf("%s:%d: more than %d rows; split the report by month", f.name, line, maxLines)
		}
		f.rec, f.line = rec, line
		return true, nil
	}
}

// get is column c of the row, trimmed; "" when the header has no c.
func (f *curFile) get(c string) string {
	if i, ok := f.col[c]; ok {
		return strings.TrimSpace(f.rec[i])
	}
	return ""
}

// bad is an error at column c of the row: file, line, column and name.
func (f *curFile) bad(c, format string, args ...any) error {
	l, cn := f.cr.FieldPos(f.col[c])
	return fmt.Errorf("%s:%d:%d: %s: %s", f.name, l, cn, c, fmt.Sprintf(format, args...))
}

// num is column c of the row as a number; signed says it may be negative.
func (f *curFile) num(c string, signed bool) (float64, error) {
	v := f.get(c)
	n, err := number(strings.TrimPrefix(v, "-"))
	if err != nil {
		return 0, f.bad(c, "%q %v", v, err)
	}
	if strings.HasPrefix(v, "-") {
		if !signed {
			return 0, f.bad(c, "%q is negative", v)
		}
		n = -n
	}
	return n, nil
}

// at is column c of the row as a CUR time.
func (f *curFile) at(c string) (time.Time, error) {
	t, err := curTime(f.get(c))
	if err != nil {
		return time.Time{}, f.bad(c, "%v", err)
	}
	return t, nil
}

// curUsage is one Usage row of a node, read and checked: what it charged
// (cost in cur, at rate), how much (qty), for what and when.
type curUsage struct {
	node, kind, class, resource, cur string
	gbMonths, anyDisk                bool
	cost, qty, rate                  float64
	period, from, to                 time.Time
}

// curKey is the line item a usage row is summed into.
type curKey struct{ node, kind, class, resource, currency string }

// curGroup is a line item being summed: the rows and resources it holds,
// and whether they were all charged at one rate.
type curGroup struct {
	it        Item
	rows      []int
	resources []string
	rate      float64
	oneRate   bool
	gbMonths  bool
}

// curBook holds the line items and the left-out groups, each in the order
// its first row came.
type curBook struct {
	groups    map[curKey]*curGroup
	order     []curKey
	left      map[string]*LeftOut
	leftOrder []string
}

// add judges the row f last read: left out with its reason, or summed into
// its line item.
func (b *curBook) add(f *curFile) error {
	cost, err := f.num(curCost, true) // credits and refunds are negative
	if err != nil {
		return err
	}
	cur := f.get(curCurrency)
	if cur == "" {
		return f.bad(curCurrency, "empty")
	}
	u := curUsage{cost: cost, cur: cur}
	why, err := f.lineKind(&u)
	if err != nil {
		return err
	}
	if !why.IsZero() {
		b.leave(why, cost, cur)
		return nil
	}
	if err := f.usage(&u); err != nil {
		return err
	}
	return b.sum(f, u)
}

// lineKind decides whose and which line the row is (u's node, kind and
// class), or why it is left out: a fee, tax, credit or discounted usage,
// no gpusla-node tag, or a usage type the bill has no line kind for.
func (f *curFile) lineKind(u *curUsage) (leftOut msg.Text, err error) {
	switch t := f.get(curType); t {
	case "Usage":
	case "Tax", "Credit", "Refund", "Fee", "RIFee", "SavingsPlanRecurringFee", "SavingsPlanUpfrontFee", "SavingsPlanNegation",
		"BundledDiscount", "EdpDiscount", "PrivateRateDiscount", "DistributorDiscount", "DiscountedUsage", "SavingsPlanCoveredUsage":
		return msg.New("line item type %s: not a charge for a node's usage at its own price", t), nil
	default:
		return msg.Text{}, f.bad(curType, "%q is not a CUR line item type", t)
	}
	if u.node = f.get(CURNodeTag); u.node == "" {
		return msg.New("no gpusla-node tag on the resource"), nil
	}
	ut := f.get(curUsageType)
	if u.kind, u.class, u.gbMonths = curKind(f.get(curProduct), ut); u.kind == "" {
		return msg.New("usage type %s has no line kind", ut), nil
	}
	if u.kind == KindDataDisk {
		switch role := strings.ToLower(f.get(CURDiskTag)); role {
		case "system":
			u.kind = KindSystemDisk
		case "data", "":
		default:
			return msg.Text{}, f.bad(CURDiskTag, "%q is neither system nor data", role)
		}
	}
	return msg.Text{}, nil
}

// usage reads and checks the rest of a Usage row of a known kind: its unit,
// a cost that is not negative, the amount, the billing period and usage
// times, and the rate.
func (f *curFile) usage(u *curUsage) error {
	if want, unit := curUnits[u.kind], f.get(curUnit); unit != "" && !strings.EqualFold(unit, want) {
		return f.bad(curUnit, "%q for %s, want %s", unit, f.get(curUsageType), want)
	}
	if u.cost < 0 {
		return f.bad(curCost, "a Usage row charges %v: negative", u.cost)
	}
	var err error
	if u.qty, err = f.num(curAmount, false); err != nil {
		return err
	}
	if u.period, err = f.at(curPeriodStart); err != nil {
		return err
	}
	if u.from, err = f.at(curStart); err != nil {
		return err
	}
	if u.to, err = f.at(curEnd); err != nil {
		return err
	}
	if !u.to.After(u.from) {
		return f.bad(curEnd, "%s is not after %s %s", u.to.Format(time.RFC3339), curStart, u.from.Format(time.RFC3339))
	}
	if v := f.get(curRate); v != "" {
		if u.rate, err = f.num(curRate, false); err != nil {
			return err
		}
	}
	u.resource = f.get(curResource)
	u.anyDisk = u.kind == KindDataDisk && f.get(CURDiskTag) == ""
	return nil
}

// leave counts a row that is not judged under its reason and currency.
func (b *curBook) leave(reason msg.Text, cost float64, cur string) {
	k := reason.String() + "\x00" + cur
	l := b.left[k]
	if l == nil {
		l = &LeftOut{Reason: reason.String(), Text: reason, Currency: cur}
		b.left[k] = l
		b.leftOrder = append(b.leftOrder, k)
	}
	l.Rows++
	l.Amount = money(l.Amount + cost)
}

// sum adds a usage row to its line item. A node's GPU time is one line
// whatever instances it ran on (a replaced instance is the same rented
// machine); storage, transfer and buckets are a line per resource. Rows of
// one line item must be of one billing period.
func (b *curBook) sum(f *curFile, u curUsage) error {
	k := curKey{u.node, u.kind, u.class, u.resource, u.cur}
	if u.kind == KindCompute {
		k.resource = ""
	}
	a := b.groups[k]
	if a == nil {
		a = &curGroup{it: Item{Line: f.line, Node: u.node, Period: u.period.UTC().Format("2006-01"), Kind: u.kind, Currency: u.cur, Class: u.class,
			From: u.from, To: u.to, AnyDisk: u.anyDisk}, rate: u.rate, oneRate: true, gbMonths: u.gbMonths}
		b.groups[k] = a
		b.order = append(b.order, k)
	}
	if p := u.period.UTC().Format("2006-01"); p != a.it.Period {
		return f.bad(curPeriodStart, "%s is another billing period than line %d's %s", p, a.rows[0], a.it.Period)
	}
	a.rows = append(a.rows, f.line)
	if u.resource != "" && !slices.Contains(a.resources, u.resource) {
		a.resources = append(a.resources, u.resource)
	}
	a.it.Quantity += u.qty
	a.it.Amount += u.cost
	a.oneRate = a.oneRate && u.rate == a.rate
	a.it.From, a.it.To = interval.Earliest(a.it.From, u.from), interval.Latest(a.it.To, u.to)
	return nil
}

// items are the summed line items in the order of their first rows, their
// amounts rounded to cents, GB-months turned into the GB held.
func (b *curBook) items() []Item {
	items := make([]Item, 0, len(b.order))
	for _, k := range b.order {
		a := b.groups[k]
		it := a.it
		it.Amount = money(it.Amount)
		if a.oneRate {
			it.UnitPrice = a.rate
		}
		if a.gbMonths {
			// GB-months to the GB a disk or bucket held: AWS charges
			// GB × hours / hours in the month, and the line's share of the
			// month (from–to) is applied again when it is judged.
			ms := time.Date(it.From.Year(), it.From.Month(), 1, 0, 0, 0, 0, time.UTC)
			month := ms.AddDate(0, 1, 0).Sub(ms)
			if it.Kind != KindObjectStorage {
				it.Quantity = it.Quantity * month.Hours() / it.To.Sub(it.From).Hours()
			}
		}
		it.Quantity = round6(it.Quantity)
		it.Description = fmt.Sprintf("%s, %d AWS CUR row(s) from line %d", strings.Join(a.resources, " "), len(a.rows), a.rows[0])
		items = append(items, it)
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].Line < items[j].Line })
	return items
}

// leftOut are the left-out groups in the order their first rows came.
func (b *curBook) leftOut() []LeftOut {
	out := make([]LeftOut, 0, len(b.leftOrder))
	for _, k := range b.leftOrder {
		out = append(out, *b.left[k])
	}
	return out
}

// curUnits are the pricing/unit each mapped kind is charged in.
var curUnits = map[string]string{KindCompute: "Hrs", KindDataDisk: "GB-Mo", KindSystemDisk: "GB-Mo", KindTraffic: "GB", KindCrossZone: "GB", KindObjectStorage: "GB-Mo"}

// curKind maps a product and usage type (which AWS prefixes with a region
// code, USE1-BoxUsage:p5.48xlarge) to a line kind; gbMonths says the usage
// amount is in GB-months.
func curKind(product, usageType string) (kind, class string, gbMonths bool) {
	ut := usageType
	if region, rest, ok := strings.Cut(usageType, "-"); ok && regionCode(region) {
		ut = rest // us-east-1's usage types have no region prefix
	}
	switch {
	case product == "AmazonEC2" && (strings.HasPrefix(ut, "BoxUsage") || strings.HasPrefix(ut, "DedicatedUsage") || strings.HasPrefix(ut, "HostBoxUsage")):
		return KindCompute, "", false
	case product == "AmazonEC2" && strings.HasPrefix(ut, "EBS:VolumeUsage"):
		switch strings.TrimPrefix(ut, "EBS:VolumeUsage") {
		case ".gp2", ".gp3", ".piops", ".io2":
			return KindDataDisk, "ssd", true
		case ".st1", ".sc1", "":
			return KindDataDisk, "hdd", true // "" is the previous-generation magnetic volume
		}
		return "", "", false
	case ut == "DataTransfer-Out-Bytes":
		return KindTraffic, "", false
	case ut == "DataTransfer-Regional-Bytes":
		return KindCrossZone, "", false
	case product == "AmazonS3" && strings.HasPrefix(ut, "TimedStorage"):
		return KindObjectStorage, "", true
	}
	return "", "", false
}

// regionCode tells AWS's region prefixes of usage types (USE1, APN1, EU).
func regionCode(s string) bool {
	if len(s) < 2 || len(s) > 5 {
		return false
	}
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// curTime reads the CUR's times: ISO 8601 in UTC, with or without seconds.
func curTime(s string) (time.Time, error) {
	for _, f := range []string{time.RFC3339, "2006-01-02T15:04Z07:00"} {
		if t, err := time.Parse(f, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not an ISO 8601 time such as 2026-04-01T00:00:00Z", s)
}
