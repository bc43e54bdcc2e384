package i18n

import (
	"testing"
	"time"
)

// The capitals of 《支付结算办法》(附一《正确填写票据和结算凭证的基本规定》),
// worked by hand digit by digit. Where the rules give an example it is
// quoted: "￥1680.32，应写成人民币壹仟陆佰捌拾元零叁角贰分"; "￥107000.53，
// 应写成人民币壹拾万柒仟元零伍角叁分"; "￥1004.56，应写成人民币壹仟零肆元伍角
// 陆分"; "￥325.04，应写成人民币叁佰贰拾伍元零肆分".
func TestCapitals(t *testing.T) {
	for _, c := range []struct {
		cents int64
		want  string
	}{
		// 1 万, 5 仟, 7 佰, 8 拾, 4 元, 2 角, 0 分 → 整 after the 角.
		{1578420, "壹万伍仟柒佰捌拾肆元贰角整"},
		// Below one yuan: no 元, no 零元.
		{5, "伍分"},
		{50, "伍角整"},
		// 10: the leading 壹 of 壹拾 is written.
		{1000, "壹拾元整"},
		// 100,000.01: 壹拾万 元, 角 is 0 so 零 before 壹分.
		{10000001, "壹拾万元零壹分"},
		// 1,000,000: 壹佰万 元 整.
		{100000000, "壹佰万元整"},
		{168032, "壹仟陆佰捌拾元零叁角贰分"},
		{10700053, "壹拾万柒仟元零伍角叁分"},
		{100456, "壹仟零肆元伍角陆分"},
		{32504, "叁佰贰拾伍元零肆分"},
		{0, "零元整"},
		// 100,010,000: 壹亿, the 万 group 0001 starts with zeros: 零壹万.
		{10001000000, "壹亿零壹万元整"},
		// 100,000,700: a whole group of zeros owes one 零.
		{10000070000, "壹亿零柒佰元整"},
		// 1,010: 壹仟, the 佰 digit 0: 零壹拾.
		{101000, "壹仟零壹拾元整"},
		// 2,689.92: 贰仟 陆佰 捌拾 玖 元 玖角 贰分.
		{268992, "贰仟陆佰捌拾玖元玖角贰分"},
	} {
		if got := Capitals(c.cents); got != c.want {
			t.Errorf("Capitals(%d) = %s, want %s", c.cents, got, c.want)
		}
	}
}

func TestInWords(t *testing.T) {
	zh, en := New(ZH), New(EN)
	for _, c := range []struct {
		p    *Printer
		v    float64
		cur  string
		want string
	}{
		{zh, 15784.20, "CNY", "壹万伍仟柒佰捌拾肆元贰角整"},
		{zh, 2689.92, "USD", "美元贰仟陆佰捌拾玖元玖角贰分"},
		{en, 2689.92, "USD", "two thousand six hundred eighty-nine and 92/100 US dollars"},
		{en, 15784.20, "CNY", "fifteen thousand seven hundred eighty-four and 20/100 Chinese yuan"},
		{en, 0.05, "USD", "zero and 05/100 US dollars"},
		{en, 1000000, "USD", "one million and 00/100 US dollars"},
		{en, 100000.01, "EUR", "one hundred thousand and 01/100 euros"},
	} {
		if got := c.p.InWords(c.v, c.cur); got != c.want {
			t.Errorf("%s InWords(%v %s) = %q, want %q", c.p.Lang, c.v, c.cur, got, c.want)
		}
	}
	if got := zh.LetterMoney(15784.2, "CNY"); got != "人民币 15,784.20 元" {
		t.Errorf("LetterMoney = %q", got)
	}
	if got := en.LetterMoney(2689.92, "USD"); got != "USD 2,689.92" {
		t.Errorf("LetterMoney = %q", got)
	}
}

// A month ends at 24:00 of its last day, in the zone named as its readers
// name it; where the clocks change inside the month, both offsets.
func TestPeriod(t *testing.T) {
	sh, _ := time.LoadLocation("Asia/Shanghai")
	ny, _ := time.LoadLocation("America/New_York")
	sa, _ := time.LoadLocation("America/Santiago")
	cases := []struct {
		p        *Printer
		loc      *time.Location
		from, to time.Time
		want     string
	}{
		{New(ZH), sh, time.Date(2026, 3, 1, 0, 0, 0, 0, sh), time.Date(2026, 4, 1, 0, 0, 0, 0, sh),
			"2026年3月1日 00:00 至 2026年3月31日 24:00（北京时间）"},
		{New(EN), sh, time.Date(2026, 3, 1, 0, 0, 0, 0, sh), time.Date(2026, 4, 1, 0, 0, 0, 0, sh),
			"1 March 2026 00:00 to 31 March 2026 24:00 (China Standard Time)"},
		// DST starts in New York on 8 March 2026 (second Sunday of March).
		{New(ZH), ny, time.Date(2026, 3, 1, 0, 0, 0, 0, ny), time.Date(2026, 4, 1, 0, 0, 0, 0, ny),
			"2026年3月1日 00:00 至 2026年3月31日 24:00（美国东部时间，UTC−05:00，3月8日起 UTC−04:00）"},
		{New(EN), ny, time.Date(2026, 6, 1, 0, 0, 0, 0, ny), time.Date(2026, 7, 1, 0, 0, 0, 0, ny),
			"1 June 2026 00:00 to 30 June 2026 24:00 (US Eastern Time, UTC−04:00)"},
		// A zone without a common name: its IANA name and offset.
		{New(ZH), sa, time.Date(2026, 6, 1, 0, 0, 0, 0, sa), time.Date(2026, 7, 1, 0, 0, 0, 0, sa),
			"2026年6月1日 00:00 至 2026年6月30日 24:00（America/Santiago，UTC−04:00）"},
	}
	for _, c := range cases {
		if got := c.p.Period(c.from, c.to, c.loc); got != c.want {
			t.Errorf("Period = %q, want %q", got, c.want)
		}
	}
}

// Durations in Chinese: 分钟 where minutes end it, 分 before seconds.
func TestDurZH(t *testing.T) {
	zh := New(ZH)
	for d, want := range map[time.Duration]string{
		15 * time.Minute: "15分钟",
		90 * time.Minute: "1小时30分钟",
		12*time.Hour + 10*time.Minute + 14*time.Second: "12小时10分14秒",
		12 * time.Second: "12秒",
		2 * time.Hour:    "2小时",
	} {
		if got := zh.Dur(d); got != want {
			t.Errorf("Dur(%s) = %q, want %q", d, got, want)
		}
	}
}

// English pages say "GPU lost", not the JSON's gpu_lost; every such word
// has its Chinese too.
func TestEnglishWords(t *testing.T) {
	en := New(EN)
	if got := en.Word("check_failed"); got != "check failed" {
		t.Errorf("Word(check_failed) = %q", got)
	}
	if got := New(ZH).Word("gpu_degraded"); got != "GPU 硬件异常" {
		t.Errorf("zh gpu_degraded = %q, want GPU 硬件异常 (a hardware fault, not a slowdown)", got)
	}
	for k := range enWords {
		if _, ok := zh[k]; !ok {
			t.Errorf("en word %q has no zh entry", k)
		}
	}
}
