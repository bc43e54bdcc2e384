package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/store/bolt"
)

func init() {
	commands = append(commands, newBackupCmd, newRestoreCmd)
}

func newBackupCmd() *cobra.Command {
	var data, output, keyFile string
	cmd := &cobra.Command{
		Use:   "backup --data DIR -o FILE",
		Short: "Write a consistent snapshot of the embedded store, also while serve runs",
		Long: `Writes a snapshot of the data folder's store (` + wiring.StoreFile + `) to FILE: from the running
` + "`gpusla serve`" + ` through its backup socket (one read transaction, while ingest goes on), or
from the file itself when nothing runs. The snapshot is written whole or not at all and
verified before it is kept. The master key is not in it: keep a copy of ` + wiring.MasterKeyFile + `
apart from the backups (docs/security.md).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output == "" {
				return errors.New("-o FILE: where to write the snapshot")
			}
			// Before anything is written: not over the live store, its key
			// or another store in use, however the path reaches them.
			if err := wiring.CheckBackupTarget(data, output, masterKeyPath(cmd, data, keyFile)); err != nil {
				return err
			}
			n, ok, err := bolt.FetchBackup(filepath.Join(data, wiring.BackupSocket), output)
			if !ok {
				n, err = bolt.BackupFile(filepath.Join(data, wiring.StoreFile), output)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%d bytes)\n", output, n)
			return nil
		},
	}
	cmd.Flags().StringVar(&data, "data", "./data", "data folder")
	cmd.Flags().StringVarP(&output, "output", "o", "", "snapshot file to write (never a file of the data folder, nor a store in use)")
	masterKeyFlag(cmd, &keyFile)
	return cmd
}

// masterKeyFlag is --master-key-file, as serve takes it.
func masterKeyFlag(cmd *cobra.Command, keyFile *string) {
	cmd.Flags().StringVar(keyFile, "master-key-file", "", "the data folder's master key file (default: $"+wiring.EnvMasterKeyFile+", else DATA/"+wiring.MasterKeyFile+")")
}

// masterKeyPath is the master key file serve would use on data: the flag,
// else $GPUSLA_MASTER_KEY_FILE, else DATA/master.key.
func masterKeyPath(cmd *cobra.Command, data, keyFile string) string {
	env := wiring.FromEnv()
	if cmd.Flags().Changed("master-key-file") {
		env.MasterKeyFile = keyFile
	}
	return env.MasterKeyPath(data)
}

func newRestoreCmd() *cobra.Command {
	var data, from, keyFile string
	cmd := &cobra.Command{
		Use:   "restore --data DIR --from FILE",
		Short: "Put a backup in place of the embedded store (serve must be stopped)",
		Long: `Verifies the backup FILE, then puts it in place of the data folder's store. Refused while
` + "`gpusla serve`" + ` runs on the folder (the store is locked). A store already there is kept beside
it as ` + wiring.StoreFile + `.replaced-<time>; nothing is overwritten. A backup whose node secrets the
data folder's master key does not open (another data folder's) is refused before anything
changes.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if from == "" {
				return errors.New("--from FILE: the backup to restore")
			}
			if err := wiring.CheckRestoreKey(cmd.Context(), from, masterKeyPath(cmd, data, keyFile)); err != nil {
				return err
			}
			kept, err := bolt.Restore(from, filepath.Join(data, wiring.StoreFile))
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "restored %s from %s\n", filepath.Join(data, wiring.StoreFile), from)
			if kept != "" {
				fmt.Fprintf(cmd.OutOrStdout(), "the store it replaced is kept as %s\n", kept)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&data, "data", "./data", "data folder")
	cmd.Flags().StringVar(&from, "from", "", "backup file to restore")
	masterKeyFlag(cmd, &keyFile)
	return cmd
}
