package usage

import (
	"net/url"
	"testing"
)

// FuzzParseDetail holds the split where it lies to url.ParseQuery: the
// same error or none, and the same first value of every key either sees.
func FuzzParseDetail(f *testing.F) {
	for _, s := range []string{"size_bytes=1920383410176&system=1&vendor=Samsung&model=PM9A3", "a=1&a=2&&b", "=x&k=", "a%20b=c+d",
		"a=1;b=2", "a=%zz", "", "&", "k=v=w",
		"a=1&b=2&c=3&d=4&e=5&f=6&g=7&h=8&i=9&j=10&k=11&&l=12&m=13&a=14&m=15&=16&n"} {
		f.Add(s, "a")
	}
	f.Fuzz(func(t *testing.T, s, key string) {
		got, gerr := parseDetail(s)
		want, werr := url.ParseQuery(s)
		if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
			t.Fatalf("%q: error %v, url.ParseQuery's %v", s, gerr, werr)
		}
		for k := range want {
			if got.Get(k) != want.Get(k) {
				t.Fatalf("%q: %q is %q, url.ParseQuery's %q", s, k, got.Get(k), want.Get(k))
			}
		}
		if got.Get(key) != want.Get(key) {
			t.Fatalf("%q: %q is %q, url.ParseQuery's %q", s, key, got.Get(key), want.Get(key))
		}
	})
}
