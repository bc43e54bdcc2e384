// Command mkimage writes gpusla's container images as OCI image layouts
// (deploy/image): `mkimage -kind probe -bin gpuprobe -out DIR` and `-kind
// serve -bin gpusla`. It prints the digest and size; scripts/build-images.sh
// builds the binaries and runs it for both.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/gpusla/gpusla/deploy/image"
)

func main() {
	kind := flag.String("kind", "", "probe or serve")
	bin := flag.String("bin", "", "the binary to put in the image")
	out := flag.String("out", "", "OCI image layout folder to write (made afresh)")
	version := flag.String("version", "dev", "the image's version label and tag")
	flag.Parse()
	if err := run(*kind, *bin, *out, *version); err != nil {
		fmt.Fprintln(os.Stderr, "mkimage:", err)
		os.Exit(1)
	}
}

// created is SOURCE_DATE_EPOCH (the commit's time, set by the script),
// else the Unix epoch: never the build's own time.
func created() (time.Time, error) {
	v := os.Getenv("SOURCE_DATE_EPOCH")
	if v == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q is not Unix seconds", v)
	}
	return time.Unix(n, 0).UTC(), nil
}

func run(kind, bin, out, version string) error {
	if bin == "" || out == "" {
		return fmt.Errorf("-bin and -out are required")
	}
	at, err := created()
	if err != nil {
		return err
	}
	var spec image.Spec
	switch kind {
	case "probe":
		spec, err = image.Probe(bin, version, at)
	case "serve":
		spec, err = image.Serve(bin, version, at)
	default:
		return fmt.Errorf("-kind %q: want probe or serve", kind)
	}
	if err != nil {
		return err
	}
	img, err := image.Build(spec)
	if err != nil {
		return err
	}
	d, size, err := image.Write(out, img, spec.Name+":"+version)
	if err != nil {
		return err
	}
	fmt.Printf("%s %s %d %s\n", spec.Name, d, size, out)
	return nil
}
