// Command receiverd runs the pushtest receiver as a process: a real, small
// ingest endpoint on loopback for benchmarks and manual trials of `gpuprobe
// run` without the full backend (scripts/bench-footprint.sh uses it).
//
// For trials of step 5 of the observation pipeline (read, judge, observe,
// spool, push): the pushtest receiver as a process.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/gpusla/gpusla/probe/push/pushtest"
)

func main() {
	node := flag.String("node", "", "node id to accept")
	secretFile := flag.String("secret-file", "", "file holding the node's secret")
	flag.Parse()
	raw, err := os.ReadFile(*secretFile)
	if err != nil || *node == "" {
		log.Fatalf("receiverd: need -node and a readable -secret-file (%v)", err)
	}
	r, err := pushtest.Start(*node, bytes.TrimSpace(raw))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.URL())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	n, err := r.CheckChain()
	fmt.Fprintf(os.Stderr, "receiverd: %d batches stored, chain check: %v, counts %+v\n", n, err, r.Counts())
	r.Close()
}
