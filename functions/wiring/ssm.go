package wiring

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// SSMClient makes the one SSM call the functions need, GetParameters,
// signed with the SDK's SigV4 signer. It exists instead of the SDK's ssm
// client because that package builds its serialisation schemas at program
// start — measured at about a quarter of the ingest function's cold start —
// for a call made once per cold start.
type SSMClient struct {
	Region      string
	Credentials aws.CredentialsProvider
	// Endpoint overrides https://ssm.<region>.amazonaws.com (also read from
	// AWS_ENDPOINT_URL_SSM by Open).
	Endpoint string
	HTTP     *http.Client
}

func (c *SSMClient) endpoint() string {
	if c.Endpoint != "" {
		return c.Endpoint
	}
	host := "ssm." + c.Region + ".amazonaws.com"
	if strings.HasPrefix(c.Region, "cn-") {
		host += ".cn"
	}
	return "https://" + host + "/"
}

// GetParameters returns the values of the named parameters that exist
// (decrypted when decrypt is set); missing names are simply absent.
func (c *SSMClient) GetParameters(ctx context.Context, names []string, decrypt bool) (map[string]string, error) {
	body, err := json.Marshal(map[string]any{"Names": names, "WithDecryption": decrypt})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint(), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("ssm: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.1")
	req.Header.Set("X-Amz-Target", "AmazonSSM.GetParameters")
	creds, err := c.Credentials.Retrieve(ctx)
	if err != nil {
		return nil, fmt.Errorf("ssm: credentials: %w", err)
	}
	sum := sha256.Sum256(body)
	if err := v4.NewSigner().SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), "ssm", c.Region, time.Now()); err != nil {
		return nil, fmt.Errorf("ssm: sign: %w", err)
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 5 * time.Second}
	}
	res, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("ssm GetParameters: %w", err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("ssm GetParameters: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		var e struct {
			Type    string `json:"__type"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal(raw, &e)
		return nil, fmt.Errorf("ssm GetParameters: HTTP %d %s: %s", res.StatusCode, e.Type, e.Message)
	}
	var out struct {
		Parameters []struct {
			Name  string `json:"Name"`
			Value string `json:"Value"`
		} `json:"Parameters"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("ssm GetParameters: answer: %w", err)
	}
	vals := make(map[string]string, len(out.Parameters))
	for _, p := range out.Parameters {
		vals[p.Name] = p.Value
	}
	return vals, nil
}
