// Package netchecktest holds the real (tiny) servers the network checks are
// tested against — an HTTP mirror and a DNS server — so that netcheck's own
// tests and those of the commands built on it (`gpuprobe check`) measure the
// same thing. They listen only where the test says: loopback, or an
// address inside a network namespace the test created.
//
// For tests of steps 1 and 2 of the observation pipeline (read, judge,
// observe, spool, push): the servers the network is measured against.
package netchecktest

import (
	"net"
	"net/http"
	"testing"

	"golang.org/x/net/dns/dnsmessage"

	"github.com/gpusla/gpusla/probe/wire"
)

// ServeDNS answers every A question with ip on pc, until pc is closed. It
// is a real DNS server, so a lookup goes through the same code path as
// with the node's resolver.
func ServeDNS(pc net.PacketConn, ip [4]byte) {
	buf := make([]byte, 1500)
	for {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			return
		}
		var p dnsmessage.Parser
		h, err := p.Start(buf[:n])
		if err != nil {
			continue
		}
		q, err := p.Question()
		if err != nil {
			continue
		}
		b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true})
		b.EnableCompression()
		b.StartQuestions()
		b.Question(q)
		b.StartAnswers()
		if q.Type == dnsmessage.TypeA {
			b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 60}, dnsmessage.AResource{A: ip})
		}
		msg, err := b.Finish()
		if err != nil {
			continue
		}
		pc.WriteTo(msg, from)
	}
}

// MirrorHandler answers like a package mirror: 200 with a body, except
// 404 for /missing.
func MirrorHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte("mirror\n"))
	})
}

// DNSAnswer is the address the DNS server of StartServers gives every name.
var DNSAnswer = [4]byte{10, 1, 2, 3}

// StartServers starts HTTP (which also serves the TCP connect check) and
// DNS on host, returning their addresses and a stop function.
func StartServers(t testing.TB, host string) (httpAddr, dnsAddr string, stop func()) {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: MirrorHandler()}
	go srv.Serve(ln)
	pc, err := net.ListenPacket("udp", net.JoinHostPort(host, "0"))
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	go ServeDNS(pc, DNSAnswer)
	return ln.Addr().String(), pc.LocalAddr().String(), func() { srv.Close(); pc.Close() }
}

// ByName indexes checks by name, for tests that look rows up.
func ByName(cs []wire.Check) map[string]wire.Check {
	m := map[string]wire.Check{}
	for _, c := range cs {
		m[c.Name] = c
	}
	return m
}
