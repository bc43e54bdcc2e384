package document

import (
	"bytes"
	"regexp"
)

// zhDuration is a Chinese duration as sla/i18n writes it: 30分钟,
// 1小时9分3秒, 7天17小时.
var zhDuration = regexp.MustCompile(`\d+(?:天|小时|分钟|分|秒)(?:\d+(?:小时|分钟|分|秒))*`)

// keepDurationsWhole wraps every Chinese duration in the page's text in
// <span class="nb"> (white-space: nowrap), so a line never ends inside
// one: Chinese breaks between any two characters, and a PDF cell read
// "1小时9分3" on one line and "0秒" on the next. Tags, attributes, and what
// <style> and <svg> hold are left as they are.
func keepDurationsWhole(page []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(page) + len(page)/20)
	skip := 0 // inside <style> or <svg>
	for len(page) > 0 {
		lt := bytes.IndexByte(page, '<')
		if lt < 0 {
			lt = len(page)
		}
		text := page[:lt]
		if skip == 0 {
			text = zhDuration.ReplaceAll(text, []byte(`<span class="nb">$0</span>`))
		}
		out.Write(text)
		page = page[lt:]
		if len(page) == 0 {
			break
		}
		gt := bytes.IndexByte(page, '>')
		if gt < 0 {
			out.Write(page)
			break
		}
		tag := page[:gt+1]
		switch {
		case bytes.HasPrefix(tag, []byte("<style")), bytes.HasPrefix(tag, []byte("<svg")):
			skip++
		case bytes.HasPrefix(tag, []byte("</style")), bytes.HasPrefix(tag, []byte("</svg")):
			skip = max(0, skip-1)
		}
		out.Write(tag)
		page = page[gt+1:]
	}
	return out.Bytes()
}
