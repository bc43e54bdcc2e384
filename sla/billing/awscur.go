package billing

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

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
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err == io.EOF {
		return nil, nil, fmt.Errorf("%s: empty file; want an AWS Cost and Usage Report CSV with a header line", name)
	}
	if err != nil {
		return nil, nil, csvErr(name, err)
	}
	col := map[string]int{}
	for i, h := range head {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		if _, dup := col[h]; dup {
			return nil, nil, fmt.Errorf("%s:1:%d: column %q appears twice", name, i+1, h)
		}
		col[h] = i
	}
	for _, c := range curRequired {
		if _, ok := col[c]; !ok {
			return nil, nil, fmt.Errorf("%s:1: header has no %q column (an AWS CUR in CSV; the %s tag must be activated as a cost allocation tag)", name, c, CURNodeTag)
		}
	}
	type key struct{ node, kind, class, resource, currency string }
	type acc struct {
		it        Item
		rows      []int
		resources []string
		rate      float64
		oneRate   bool
		gbMonths  bool
	}
	groups := map[key]*acc{}
	var order []key
	left := map[string]*LeftOut{}
	var leftOrder []string
	leave := func(reason msg.Text, cost float64, cur string) {
		k := reason.String() + "\x00" + cur
		l := left[k]
		if l == nil {
			l = &LeftOut{Reason: reason.String(), Text: reason, Currency: cur}
			left[k] = l
			leftOrder = append(leftOrder, k)
		}
		l.Rows++
		l.Amount = money(l.Amount + cost)
	}
	rows := 0
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, csvErr(name, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) != len(head) {
			return nil, nil, fmt.Errorf("%s:%d: %d fields, the header has %d", name, line, len(rec), len(head))
		}
		if rows++; rows > maxLines {
			return nil, nil, fmt.Errorf("%s:%d: more than %d rows; split the report by month", name, line, maxLines)
		}
		get := func(c string) string {
			if i, ok := col[c]; ok {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		bad := func(c, format string, args ...any) error {
			l, cn := cr.FieldPos(col[c])
			return fmt.Errorf("%s:%d:%d: %s: %s", name, l, cn, c, fmt.Sprintf(format, args...))
		}
		num := func(c string, signed bool) (float64, error) {
			v := get(c)
			f, err := number(strings.TrimPrefix(v, "-"))
			if err != nil {
				return 0, bad(c, "%q %v", v, err)
			}
			if strings.HasPrefix(v, "-") {
				if !signed {
					return 0, bad(c, "%q is negative", v)
				}
				f = -f
			}
			return f, nil
		}
		cost, err := num(curCost, true) // credits and refunds are negative
		if err != nil {
			return nil, nil, err
		}
		cur := get(curCurrency)
		if cur == "" {
			return nil, nil, bad(curCurrency, "empty")
		}
		switch t := get(curType); t {
		case "Usage":
		case "Tax", "Credit", "Refund", "Fee", "RIFee", "SavingsPlanRecurringFee", "SavingsPlanUpfrontFee", "SavingsPlanNegation",
			"BundledDiscount", "EdpDiscount", "PrivateRateDiscount", "DistributorDiscount", "DiscountedUsage", "SavingsPlanCoveredUsage":
			leave(msg.New("line item type %s: not a charge for a node's usage at its own price", t), cost, cur)
			continue
		default:
			return nil, nil, bad(curType, "%q is not a CUR line item type", t)
		}
		node := get(CURNodeTag)
		if node == "" {
			leave(msg.New("no gpusla-node tag on the resource"), cost, cur)
			continue
		}
		ut, unit, product := get(curUsageType), get(curUnit), get(curProduct)
		kind, class, gbMonths := curKind(product, ut)
		if kind == "" {
			leave(msg.New("usage type %s has no line kind", ut), cost, cur)
			continue
		}
		if kind == KindDataDisk {
			switch role := strings.ToLower(get(CURDiskTag)); role {
			case "system":
				kind = KindSystemDisk
			case "data", "":
			default:
				return nil, nil, bad(CURDiskTag, "%q is neither system nor data", role)
			}
		}
		if want := curUnits[kind]; unit != "" && !strings.EqualFold(unit, want) {
			return nil, nil, bad(curUnit, "%q for %s, want %s", unit, ut, want)
		}
		if cost < 0 {
			return nil, nil, bad(curCost, "a Usage row charges %v: negative", cost)
		}
		qty, err := num(curAmount, false)
		if err != nil {
			return nil, nil, err
		}
		ps, err := curTime(get(curPeriodStart))
		if err != nil {
			return nil, nil, bad(curPeriodStart, "%v", err)
		}
		from, err := curTime(get(curStart))
		if err != nil {
			return nil, nil, bad(curStart, "%v", err)
		}
		to, err := curTime(get(curEnd))
		if err != nil {
			return nil, nil, bad(curEnd, "%v", err)
		}
		if !to.After(from) {
			return nil, nil, bad(curEnd, "%s is not after %s %s", to.Format(time.RFC3339), curStart, from.Format(time.RFC3339))
		}
		rate := 0.0
		if v := get(curRate); v != "" {
			if rate, err = num(curRate, false); err != nil {
				return nil, nil, err
			}
		}
		// A node's GPU time is one line whatever instances it ran on (a
		// replaced instance is the same rented machine); storage, transfer
		// and buckets are a line per resource.
		res := get(curResource)
		k := key{node, kind, class, res, cur}
		if kind == KindCompute {
			k.resource = ""
		}
		a := groups[k]
		if a == nil {
			a = &acc{it: Item{Line: line, Node: node, Period: ps.UTC().Format("2006-01"), Kind: kind, Currency: cur, Class: class,
				From: from, To: to, AnyDisk: kind == KindDataDisk && get(CURDiskTag) == ""}, rate: rate, oneRate: true, gbMonths: gbMonths}
			groups[k] = a
			order = append(order, k)
		}
		if p := ps.UTC().Format("2006-01"); p != a.it.Period {
			return nil, nil, bad(curPeriodStart, "%s is another billing period than line %d's %s", p, a.rows[0], a.it.Period)
		}
		a.rows = append(a.rows, line)
		if res != "" && !slices.Contains(a.resources, res) {
			a.resources = append(a.resources, res)
		}
		a.it.Quantity += qty
		a.it.Amount += cost
		a.oneRate = a.oneRate && rate == a.rate
		a.it.From, a.it.To = minT(a.it.From, from), maxTime(a.it.To, to)
	}
	if rows == 0 {
		return nil, nil, fmt.Errorf("%s: header but no rows", name)
	}
	items := make([]Item, 0, len(order))
	for _, k := range order {
		a := groups[k]
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
	out := make([]LeftOut, 0, len(leftOrder))
	for _, k := range leftOrder {
		out = append(out, *left[k])
	}
	return items, out, nil
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
