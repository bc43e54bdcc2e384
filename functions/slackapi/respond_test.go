package slackapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A response_url lets anyone post into the channel for half an hour; a
// failed post logs its error, which must not carry it: logs reach more people than the channel does.
func TestRespondErrorWithholdsTheResponseURL(t *testing.T) {
	gone := httptest.NewServer(http.NotFoundHandler())
	url := gone.URL + "/commands/T0001/123456789/SecretResponseToken0123456789"
	gone.Close()
	h := &Handler{client: &http.Client{}}
	err := h.respond(context.Background(), url, Message{Text: "done"})
	if err == nil {
		t.Fatal("posted to a closed server")
	}
	if strings.Contains(err.Error(), "SecretResponseToken") || strings.Contains(err.Error(), "/commands/") {
		t.Fatalf("the error shows the response_url: %v", err)
	}
}
