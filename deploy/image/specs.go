package image

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Paths of the Debian packages' files the images carry.
const (
	// CACerts is ca-certificates' bundle: the probe pushes over https and
	// serve fetches status pages and posts alerts.
	CACerts = "/etc/ssl/certs/ca-certificates.crt"
)

// NonRoot is the user serve runs as (distroless' "nonroot").
const NonRoot = 65532

func gzipped(raw []byte) ([]byte, error) {
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	// No name, no time in the header: the same tar gives the same bytes.
	if _, err := zw.Write(raw); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// base is what both images hold: users, CA certificates, /tmp.
func base() ([]File, error) {
	ca, err := HostFile(CACerts)
	if err != nil {
		return nil, fmt.Errorf("%s (Debian's ca-certificates): %w", CACerts, err)
	}
	return []File{
		{Path: "etc/passwd", Mode: 0o644, Data: []byte(fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n", NonRoot, NonRoot))},
		{Path: "etc/group", Mode: 0o644, Data: []byte(fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", NonRoot))},
		{Path: "etc/nsswitch.conf", Mode: 0o644, Data: []byte("hosts: files dns\n")},
		ca,
		{Path: "tmp", Dir: true, Mode: 0o1777},
		{Path: "root", Dir: true, Mode: 0o700},
		{Path: "home/nonroot", Dir: true, Mode: 0o700, UID: NonRoot, GID: NonRoot},
	}, nil
}

// Libc is the shared objects of Debian's libc6 the probe needs: the C
// library and its loader (gpuprobe is built with cgo for NVML), and the
// rest of libc6's libraries, which the driver libraries the NVIDIA
// container runtime mounts at run time (libnvidia-ml, libcuda) link
// against. The files are listed by dpkg, so they are the package's, at
// its version (returned for the image's labels).
func Libc() ([]File, string, error) {
	out, err := exec.Command("dpkg", "-L", "libc6").Output()
	if err != nil {
		return nil, "", fmt.Errorf("dpkg -L libc6: %w", err)
	}
	var files []File
	for _, p := range strings.Split(string(out), "\n") {
		if !strings.Contains(p, "/x86_64-linux-gnu/") || !strings.Contains(p, ".so") || strings.Contains(p, "/gconv/") ||
			strings.Contains(p, "/audit/") {
			continue
		}
		f, err := HostFile(p)
		if err != nil {
			continue // a directory, or a file this system removed
		}
		files = append(files, f)
	}
	files = append(files,
		File{Path: "lib64/ld-linux-x86-64.so.2", Link: "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"},
		// The NVIDIA runtime's hook adds the driver's folder here and runs
		// ldconfig in the container.
		File{Path: "etc/ld.so.conf", Mode: 0o644, Data: []byte("include /etc/ld.so.conf.d/*.conf\n")},
		File{Path: "etc/ld.so.conf.d/x86_64-linux-gnu.conf", Mode: 0o644, Data: []byte("/usr/local/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu\n")},
		File{Path: "usr/lib/x86_64-linux-gnu", Dir: true, Mode: 0o755})
	ver, err := exec.Command("dpkg-query", "-W", "-f", "${Version}", "libc6").Output()
	if err != nil {
		return nil, "", fmt.Errorf("dpkg-query libc6: %w", err)
	}
	return files, string(ver), nil
}

// Probe is gpuprobe's image: the binary, libc6, root (NVML, raw ICMP,
// CUDA need it; the DaemonSet keeps two capabilities), its state folder.
func Probe(bin, version string, created time.Time) (Spec, error) {
	files, err := base()
	if err != nil {
		return Spec{}, err
	}
	libc, libcVersion, err := Libc()
	if err != nil {
		return Spec{}, err
	}
	b, err := readAll(bin, "usr/local/bin/gpuprobe")
	if err != nil {
		return Spec{}, err
	}
	files = append(append(files, libc...), b,
		File{Path: "etc/gpuprobe", Dir: true, Mode: 0o700},
		File{Path: "var/lib/gpuprobe", Dir: true, Mode: 0o700},
		File{Path: "run/gpuprobe", Dir: true, Mode: 0o700})
	return Spec{Name: "gpuprobe", Files: files, Entrypoint: []string{"/usr/local/bin/gpuprobe"}, Cmd: []string{"run", "--config", "/etc/gpuprobe/probe.yaml"},
		Env:  []string{"PATH=/usr/local/bin:/usr/bin:/bin", "SSL_CERT_FILE=" + CACerts, "CUDA_CACHE_DISABLE=1", "NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_DRIVER_CAPABILITIES=compute,utility"},
		User: "0:0", WorkDir: "/",
		Labels: map[string]string{"org.opencontainers.image.title": "gpuprobe", "org.opencontainers.image.version": version,
			"org.opencontainers.image.source": "https://github.com/gpusla/gpusla", "org.debian.libc6": libcVersion},
		Created: created}, nil
}

// Serve is gpusla serve's image: the binary (CGO_ENABLED=0, but purego,
// through the demo node's probe code, links it against the C library's
// loader, so libc6 comes along), running as the non-root user, its data
// folder /data (a volume).
func Serve(bin, version string, created time.Time) (Spec, error) {
	files, err := base()
	if err != nil {
		return Spec{}, err
	}
	libc, libcVersion, err := Libc()
	if err != nil {
		return Spec{}, err
	}
	b, err := readAll(bin, "usr/local/bin/gpusla")
	if err != nil {
		return Spec{}, err
	}
	files = append(append(files, libc...), b, File{Path: "data", Dir: true, Mode: 0o700, UID: NonRoot, GID: NonRoot},
		File{Path: "etc/gpusla", Dir: true, Mode: 0o755})
	return Spec{Name: "gpusla", Files: files, Entrypoint: []string{"/usr/local/bin/gpusla"},
		Cmd:  []string{"serve", "--listen", "0.0.0.0:8443", "--data", "/data", "--demo", "off", "--log-format", "json"},
		Env:  []string{"PATH=/usr/local/bin:/usr/bin:/bin", "SSL_CERT_FILE=" + CACerts},
		User: fmt.Sprintf("%d:%d", NonRoot, NonRoot), WorkDir: "/data",
		Labels: map[string]string{"org.opencontainers.image.title": "gpusla", "org.opencontainers.image.version": version,
			"org.opencontainers.image.source": "https://github.com/gpusla/gpusla", "org.debian.libc6": libcVersion},
		Created: created}, nil
}
