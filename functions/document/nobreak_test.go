package document

import "testing"

// TestDurationsKeptWhole: a Chinese duration in the page's text is one
// unbreakable piece; tags, attributes, CSS and SVG text are untouched, and
// a text without one is as it was.
func TestDurationsKeptWhole(t *testing.T) {
	for in, want := range map[string]string{
		`<td>计入故障1小时9分30秒，其中</td>`:                 `<td>计入故障<span class="nb">1小时9分30秒</span>，其中</td>`,
		`<td title="持续30分钟">7天17小时</td>`:           `<td title="持续30分钟"><span class="nb">7天17小时</span></td>`,
		`<style>.a::after{content:"5分钟"}</style>x`: `<style>.a::after{content:"5分钟"}</style>x`,
		`<svg><text>4小时</text></svg><p>4小时</p>`:    `<svg><text>4小时</text></svg><p><span class="nb">4小时</span></p>`,
		`<p>4 hours 30 minutes</p>`:                `<p>4 hours 30 minutes</p>`,
	} {
		if got := string(keepDurationsWhole([]byte(in))); got != want {
			t.Errorf("%s\n got %s\nwant %s", in, got, want)
		}
	}
}
