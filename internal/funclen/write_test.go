package funclen

import (
	"os"
	"path/filepath"
)

func mkdirWrite(path, src string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(src), 0o644)
}
