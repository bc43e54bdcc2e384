package netcheck

import (
	"net"
	"net/http"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// serveDNS answers every A question with ip, on a UDP socket at addr, until
// the socket is closed. It is a real (tiny) DNS server, so Resolve goes
// through the same code path as with the node's resolver.
func serveDNS(pc net.PacketConn, ip [4]byte) {
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

// startServers starts HTTP (which also serves the TCP connect check) and DNS
// on host, returning their addresses and a stop function.
func startServers(t testing.TB, host string) (httpAddr, dnsAddr string, stop func()) {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte("mirror\n"))
	})}
	go srv.Serve(ln)
	pc, err := net.ListenPacket("udp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatal(err)
	}
	go serveDNS(pc, [4]byte{10, 1, 2, 3})
	return ln.Addr().String(), pc.LocalAddr().String(), func() { srv.Close(); pc.Close() }
}
