package feishu

import (
	"errors"
	"net/http"
	"testing"

	"github.com/gpusla/gpusla/infra/notify/robot"
)

// Both of Feishu's "too many" answers are waited out as rate limits (not
// failures): the custom bot's 11232 and the gateway's 9499; another code
// is a failure.
func TestRateLimitCodes(t *testing.T) {
	for _, c := range []struct {
		body    string
		limited bool
	}{
		{`{"code":11232,"msg":"frequency limited psm[lark.oapi.app_platform_runtime]appID[1]"}`, true},
		{`{"code":9499,"msg":"Too Many Request","data":{}}`, true},
		{`{"code":19024,"msg":"Key Words Not Found"}`, false},
	} {
		err := check(http.StatusOK, http.Header{}, []byte(c.body))
		var re *robot.RetryError
		if got := errors.As(err, &re) && re.Limited; got != c.limited {
			t.Errorf("%s: rate limited %v, want %v (%v)", c.body, got, c.limited, err)
		}
	}
}
