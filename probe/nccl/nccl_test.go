package nccl

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ebitengine/purego"
)

func TestVersionString(t *testing.T) {
	for code, want := range map[int]string{22105: "2.21.5", 21003: "2.10.3", 2804: "2.8.4", 2708: "2.7.8"} {
		if got := VersionString(code); got != want {
			t.Errorf("VersionString(%d) = %s, want %s", code, got, want)
		}
	}
}

func TestDataTypes(t *testing.T) {
	if Float32.Size() != 4 || BFloat16.Size() != 2 || DataType(3).Size() != 0 {
		t.Fatal("element sizes")
	}
	if Float32.String() != "float32" || BFloat16.String() != "bfloat16" {
		t.Fatal("names")
	}
}

// A library that does not exist, or a file that is not NCCL, is refused
// with the reason, and the forced path is the only one tried.
func TestLoadRefusesMissingAndForeignLibraries(t *testing.T) {
	_, err := load("", []string{filepath.Join(t.TempDir(), "libnccl.so.2")})
	if !errors.Is(err, ErrNoLibrary) {
		t.Fatalf("missing library: %v", err)
	}
	_, err = load(filepath.Join(t.TempDir(), "nope.so"), []string{"libc.so.6"})
	if !errors.Is(err, ErrNoLibrary) {
		t.Fatalf("forced missing library: %v", err)
	}
	// libc opens but has no NCCL symbols.
	_, err = load("libc.so.6", nil)
	if err == nil || errors.Is(err, ErrNoLibrary) {
		t.Fatalf("libc taken for NCCL: %v", err)
	}
}

// The multicast switch is off in the C environment NCCL reads, even when
// the caller's environment turned it on.
func TestSafeEnvReachesTheCLibrary(t *testing.T) {
	t.Setenv("NCCL_NVLS_ENABLE", "1")
	_, _ = load("", []string{filepath.Join(t.TempDir(), "absent.so")})
	libc, err := purego.Dlopen("libc.so.6", purego.RTLD_NOW)
	if err != nil {
		t.Fatal(err)
	}
	var getenv func(string) string
	purego.RegisterLibFunc(&getenv, libc, "getenv")
	if got := getenv("NCCL_NVLS_ENABLE"); got != "0" {
		t.Fatalf("C getenv NCCL_NVLS_ENABLE = %q, want 0", got)
	}
	if got := os.Getenv("NCCL_NVLS_ENABLE"); got != "0" {
		t.Fatalf("os.Getenv NCCL_NVLS_ENABLE = %q, want 0", got)
	}
}
