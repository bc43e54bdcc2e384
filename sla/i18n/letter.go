package i18n

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// The forms a letter needs beyond a table's: the amount as a bank writes it
// (人民币 15,784.20 元 and the amount in capitals, 大写; USD 2,689.92 and the
// amount in words), a service period that ends at 24:00 of its last day
// rather than at 00:00 of the next (which reads as if that day were
// included), the zone named as people name it (北京时间), and dates as a
// letter writes them.

// zoneNames are the names readers use for the zones contracts are kept in;
// a zone not listed is named by its IANA name. Beijing time is, by
// convention, named without its offset (everyone knows it is UTC+08:00).
var zoneNames = map[string]struct{ zh, en string }{
	"Asia/Shanghai":       {"北京时间", "China Standard Time"},
	"Asia/Hong_Kong":      {"香港时间", "Hong Kong Time"},
	"Asia/Taipei":         {"台北时间", "Taipei Time"},
	"Asia/Singapore":      {"新加坡时间", "Singapore Time"},
	"Asia/Tokyo":          {"日本时间", "Japan Standard Time"},
	"Asia/Seoul":          {"韩国时间", "Korea Standard Time"},
	"America/New_York":    {"美国东部时间", "US Eastern Time"},
	"America/Chicago":     {"美国中部时间", "US Central Time"},
	"America/Denver":      {"美国山地时间", "US Mountain Time"},
	"America/Los_Angeles": {"美国太平洋时间", "US Pacific Time"},
	"Europe/London":       {"英国时间", "UK time"},
	"Europe/Berlin":       {"德国时间", "German time"},
	"Europe/Paris":        {"法国时间", "French time"},
	"UTC":                 {"协调世界时", "UTC"},
}

// offset is t's UTC offset with a true minus sign: UTC+08:00, UTC−04:00.
func offset(t time.Time) string {
	return "UTC" + strings.Replace(t.Format("-07:00"), "-", "−", 1)
}

// ZoneName names loc over [from, to) for a letter: 北京时间; (美国东部时间，
// UTC−05:00，3月8日起 UTC−04:00) where the clocks change inside the span;
// the IANA name with its offset for a zone without a common name. The
// result has no brackets; the caller puts them.
func (p *Printer) ZoneName(loc *time.Location, from, to time.Time) string {
	sep := ", "
	if p.Lang == ZH {
		sep = "，"
	}
	name, known := zoneNames[loc.String()]
	parts := []string{loc.String()}
	if known {
		parts[0] = name.en
		if p.Lang == ZH {
			parts[0] = name.zh
		}
		if loc.String() == "Asia/Shanghai" || loc.String() == "UTC" {
			return parts[0]
		}
	}
	at := from.In(loc)
	parts = append(parts, offset(at))
	for _, ch := range changes(loc, from, to) {
		if p.Lang == ZH {
			parts = append(parts, ch.Format("1月2日")+"起 "+offset(ch))
		} else {
			parts = append(parts, "from "+ch.Format("2 January")+" "+offset(ch))
		}
	}
	return strings.Join(parts, sep)
}

// changes are the instants in [from, to) at which loc's offset changes,
// found hour by hour (no zone changes its offset more than once a day).
func changes(loc *time.Location, from, to time.Time) []time.Time {
	var out []time.Time
	_, prev := from.In(loc).Zone()
	for t := from.Add(time.Hour); t.Before(to); t = t.Add(time.Hour) {
		if _, off := t.In(loc).Zone(); off != prev {
			out = append(out, t.In(loc).Truncate(time.Hour))
			prev = off
		}
	}
	return out
}

// LongDate is a letter's date: 2026年4月5日, 5 April 2026.
func (p *Printer) LongDate(t time.Time) string {
	if p.Lang == ZH {
		return t.Format("2006年1月2日")
	}
	return t.Format("2 January 2006")
}

// Clock is t to the minute in its own zone: 2026年5月1日 00:00, 1 May 2026
// 00:00. An instant at midnight may be written as 24:00 of the day before
// (endOfDay), as a period's end is.
func (p *Printer) Clock(t time.Time, endOfDay bool) string {
	if endOfDay && t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 {
		return p.LongDate(t.AddDate(0, 0, -1)) + " 24:00"
	}
	return p.LongDate(t) + " " + t.Format("15:04")
}

// Period is a service period in loc, its end written as 24:00 of its last
// day: 2026年3月1日 00:00 至 2026年3月31日 24:00（北京时间）; 1 March 2026
// 00:00 to 31 March 2026 24:00 (US Eastern Time, UTC−05:00, from 8 March
// UTC−04:00).
func (p *Printer) Period(from, to time.Time, loc *time.Location) string {
	a, b, z := p.Clock(from.In(loc), false), p.Clock(to.In(loc), true), p.ZoneName(loc, from, to)
	if p.Lang == ZH {
		return a + " 至 " + b + "（" + z + "）"
	}
	return a + " to " + b + " (" + z + ")"
}

// At is an instant to the minute with its zone named: 2026年5月1日 00:00
// （北京时间）, 1 May 2026 00:00 (US Eastern Time, UTC−04:00); midnight as
// 24:00 of the day before where endOfDay.
func (p *Printer) At(t time.Time, loc *time.Location, endOfDay bool) string {
	z := p.ZoneName(loc, t, t)
	if p.Lang == ZH {
		return p.Clock(t.In(loc), endOfDay) + "（" + z + "）"
	}
	return p.Clock(t.In(loc), endOfDay) + " (" + z + ")"
}

// Elapsed is Dur with its unit even at zero (0秒, 0s): "delivered 0
// after the order" names no unit.
func (p *Printer) Elapsed(d time.Duration) string {
	if d/time.Second == 0 {
		if p.Lang == ZH {
			return "0秒"
		}
		return "0s"
	}
	return p.Dur(d)
}

// Colon is the label separator: "：" in Chinese, ": " in English.
func (p *Printer) Colon() string {
	if p.Lang == ZH {
		return "："
	}
	return ": "
}

// Pct is a percentage as running text writes it: 99.7887%, 99.7887 %.
func (p *Printer) Pct(v float64, prec int) string {
	if p.Lang == ZH {
		return p.Num(v, prec) + "%"
	}
	return p.Num(v, prec) + " %"
}

// currencies are the words for the currencies contracts are priced in;
// another code is written as it is.
var currencies = map[string]struct{ zh, en, unitZH string }{
	"CNY": {"人民币", "Chinese yuan", "元"},
	"USD": {"美元", "US dollars", "美元"},
	"EUR": {"欧元", "euros", "欧元"},
	"HKD": {"港币", "Hong Kong dollars", "港元"},
	"JPY": {"日元", "Japanese yen", "日元"},
	"SGD": {"新加坡元", "Singapore dollars", "新加坡元"},
	"GBP": {"英镑", "pounds sterling", "英镑"},
}

// LetterMoney is an amount as a letter writes it, the currency first:
// 人民币 15,784.20 元, 美元 2,689.92; CNY 15,784.20, USD 2,689.92.
func (p *Printer) LetterMoney(v float64, cur string) string {
	c, ok := currencies[cur]
	switch {
	case p.Lang == ZH && cur == "CNY":
		return c.zh + " " + p.Num(v, 2) + " " + c.unitZH
	case p.Lang == ZH && ok:
		return c.zh + " " + p.Num(v, 2)
	}
	return cur + " " + p.Num(v, 2)
}

// Price is a unit price: 18.50 元, 3.20 美元; CNY 18.50.
func (p *Printer) Price(v float64, cur string) string {
	if c, ok := currencies[cur]; ok && p.Lang == ZH {
		return p.Num(v, 2) + " " + c.unitZH
	}
	return cur + " " + p.Num(v, 2)
}

// InWords is an amount written out, as on a cheque or a bank form: the
// capitals (大写) in Chinese, 壹万伍仟柒佰捌拾肆元贰角整 (a currency other
// than the yuan named first: 美元贰仟陆佰捌拾玖元玖角贰分); in English,
// "fifteen thousand seven hundred eighty-four and 20/100 Chinese yuan".
func (p *Printer) InWords(v float64, cur string) string {
	cents := int64(math.Round(math.Abs(v) * 100))
	neg := v < 0 && cents > 0
	if p.Lang == ZH {
		s := Capitals(cents)
		if c, ok := currencies[cur]; ok && cur != "CNY" {
			s = c.zh + s
		} else if !ok {
			s = cur + " " + s
		}
		if neg {
			s = "负" + s
		}
		return s
	}
	name := cur
	if c, ok := currencies[cur]; ok {
		name = c.en
	}
	s := fmt.Sprintf("%s and %02d/100 %s", englishNumber(cents/100), cents%100, name)
	if neg {
		s = "minus " + s
	}
	return s
}

var (
	capDigits = []string{"零", "壹", "贰", "叁", "肆", "伍", "陆", "柒", "捌", "玖"}
	capUnits  = []string{"", "拾", "佰", "仟"}
	capGroups = []string{"", "万", "亿", "万亿"}
)

// Capitals is an amount of cents in the capitals of 《支付结算办法》 (the
// People's Bank of China's rules for writing amounts): 元 after the
// yuan, 角 and 分 after their digits, 整 where it ends at 元 or 角, one 零
// for each run of zeros inside the number, 零 between 元 and a 分 with no
// 角, and the leading 壹 of 壹拾 kept (¥10.00 is 壹拾元整). Below one yuan
// there is no 元: ¥0.05 is 伍分.
func Capitals(cents int64) string {
	yuan, jiao, fen := cents/100, cents/10%10, cents%10
	var b strings.Builder
	if yuan > 0 {
		b.WriteString(capInteger(yuan))
		b.WriteString("元")
	}
	switch {
	case yuan == 0 && jiao == 0 && fen == 0:
		return "零元整"
	case jiao == 0 && fen == 0:
		b.WriteString("整")
		return b.String()
	}
	if jiao > 0 {
		if yuan > 0 && yuan%10 == 0 {
			// ¥1,680.32: 壹仟陆佰捌拾元零叁角贰分 (the official example).
			b.WriteString("零")
		}
		b.WriteString(capDigits[jiao] + "角")
	} else if yuan > 0 {
		b.WriteString("零") // ¥325.04: 叁佰贰拾伍元零肆分
	}
	if fen > 0 {
		b.WriteString(capDigits[fen] + "分")
	} else {
		b.WriteString("整")
	}
	return b.String()
}

// capInteger writes n > 0 in capitals: groups of four digits, each with its
// 万 or 亿, one 零 for a run of zeros between two non-zero digits, except
// zeros that end a group (a group of zeros, or one that starts with zeros,
// still owes its 零: ¥100,000,700 is 壹亿零柒佰).
func capInteger(n int64) string {
	var groups []int64
	for ; n > 0; n /= 10000 {
		groups = append(groups, n%10000)
	}
	var b strings.Builder
	zero := false // a zero is owed before the next non-zero digit
	for g := len(groups) - 1; g >= 0; g-- {
		v := groups[g]
		if v == 0 {
			zero = b.Len() > 0
			continue
		}
		digits := []int64{v / 1000, v / 100 % 10, v / 10 % 10, v % 10}
		for i, d := range digits {
			if d == 0 {
				zero = zero || b.Len() > 0
				continue
			}
			if zero {
				b.WriteString("零")
				zero = false
			}
			b.WriteString(capDigits[d] + capUnits[3-i])
		}
		b.WriteString(capGroups[g])
		// Zeros that end a group owe nothing: ¥107,000 is 壹拾万柒仟.
		zero = false
	}
	return b.String()
}

var (
	enOnes = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
		"thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"}
	enTens   = []string{"", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"}
	enScales = []string{"", " thousand", " million", " billion", " trillion"}
)

// englishNumber writes n ≥ 0 in words, as a cheque does: "two thousand six
// hundred eighty-nine".
func englishNumber(n int64) string {
	if n == 0 {
		return "zero"
	}
	var parts []string
	for s := 0; n > 0; s, n = s+1, n/1000 {
		if g := n % 1000; g > 0 {
			parts = append([]string{below1000(g) + enScales[s]}, parts...)
		}
	}
	return strings.Join(parts, " ")
}

func below1000(n int64) string {
	var w []string
	if n >= 100 {
		w = append(w, enOnes[n/100]+" hundred")
		n %= 100
	}
	switch {
	case n >= 20 && n%10 > 0:
		w = append(w, enTens[n/10]+"-"+enOnes[n%10])
	case n >= 20:
		w = append(w, enTens[n/10])
	case n > 0:
		w = append(w, enOnes[n])
	}
	return strings.Join(w, " ")
}
