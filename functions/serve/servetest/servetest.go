// Package servetest prepares what tests of `gpusla serve` start it on: a
// data folder with a registered node and a read key, and a self-signed
// certificate for loopback.
package servetest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/store"
)

// Registered is what Register made.
type Registered struct {
	Node     store.Node
	Secret   []byte // the node's HMAC secret
	ReadKey  string // an API key token with the read scope
	AdminKey string // one with the admin scope
}

// Register creates the embedded store in data with node gz-01, a read
// key and an admin key, and closes it again (serve locks it while it runs).
func Register(t testing.TB, data string) Registered {
	t.Helper()
	st, box, err := wiring.OpenData(data, true)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc, err := app.New(app.Config{Store: st, Notifier: wiring.NoNotifier{}, Box: box, Log: wiring.QuietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	n, secret, err := svc.AddNode(t.Context(), app.NewNode{ID: "gz-01", Provider: "acme", Contract: "c", OrderedAt: time.Now(), GPUCount: 8})
	if err != nil {
		t.Fatal(err)
	}
	_, readKey, err := app.CreateAPIKey(t.Context(), st, "test", []string{"read"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	_, adminKey, err := app.CreateAPIKey(t.Context(), st, "test-admin", []string{"admin"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return Registered{Node: n, Secret: secret, ReadKey: readKey, AdminKey: adminKey}
}

// SelfSigned writes a self-signed ECDSA certificate for 127.0.0.1 and its
// key into dir, as an operator's `openssl req -x509` would.
func SelfSigned(t testing.TB, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "gpusla serve test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}
