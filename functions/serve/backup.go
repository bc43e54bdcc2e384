package serve

import (
	"log/slog"
	"os"
	"path/filepath"

	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/store/bolt"
)

// serveBackups offers snapshots of st on the data folder's backup socket
// (`gpusla backup` reads it) until the returned stop is called.
func serveBackups(st *bolt.Store, data string, log *slog.Logger) (stop func(), err error) {
	sock := filepath.Join(data, wiring.BackupSocket)
	ln, err := bolt.ListenBackups(sock)
	if err != nil {
		return nil, err
	}
	go func() {
		if err := st.ServeBackups(ln); err != nil {
			log.Error("backup socket", "err", err)
		}
	}()
	return func() { ln.Close(); os.Remove(sock) }, nil
}
