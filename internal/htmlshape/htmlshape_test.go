package htmlshape

import (
	"strings"
	"testing"
)

// An escaped tag is text; a live one is an element with its attributes.
func TestOf(t *testing.T) {
	shape, text, err := Of(strings.NewReader(`<p class="x">a &lt;img src=x&gt; <img src=y onerror=z><!-- c --></p>`))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(shape, " "); got != "html head body p[class] img[src][onerror] <!--comment-->" {
		t.Errorf("shape %q", got)
	}
	if !strings.Contains(text, "a <img src=x>") {
		t.Errorf("text %q", text)
	}
}
