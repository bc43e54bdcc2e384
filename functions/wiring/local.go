package wiring

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/slack"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/infra/store/dynamo"
	"github.com/gpusla/gpusla/internal/atomicfile"
)

// The data folder of the local backend (`gpusla serve` and the offline
// commands): the store, the master key that seals node secrets, the status
// token, the contract terms, the reports and the demo probe's spool.
const (
	StoreFile       = "gpusla.db"
	MasterKeyFile   = "master.key"
	StatusTokenFile = "status.token"
	TermsDir        = "terms"
	// BackupSocket is where a running `gpusla serve` hands out snapshots
	// of its embedded store (the folder is 0700, the socket 0600).
	BackupSocket = "backup.sock"
	ReportsDir   = "reports"
)

// LocalStore is what the local backend needs of its store, embedded or
// DynamoDB.
type LocalStore interface {
	store.Store
	store.TicketStore
	store.ProviderStatusStore
	store.History
	Close() error
}

// Sweeper is a store that deletes expired batches itself (the embedded
// one; DynamoDB does it with TTL).
type Sweeper interface {
	Sweep(now time.Time) (int, error)
}

// OpenData opens (creating if asked) the data folder's embedded store and
// secret box, with the master key of the data folder.
func OpenData(dir string, create bool) (*bolt.Store, app.SecretBox, error) {
	return openData(context.Background(), dir, filepath.Join(dir, MasterKeyFile), create)
}

// MasterKeyPath is the master key file of the local backend: $GPUSLA_MASTER_KEY_FILE
// (or serve's --master-key-file), so the key need not sit beside the store
// and its backups, else the data folder's master.key.
func (e Env) MasterKeyPath(dir string) string {
	if e.MasterKeyFile != "" {
		return e.MasterKeyFile
	}
	return filepath.Join(dir, MasterKeyFile)
}

// openData opens the embedded store with the key at keyPath and checks
// that the key opens the secrets already sealed in it.
func openData(ctx context.Context, dir, keyPath string, create bool) (*bolt.Store, app.SecretBox, error) {
	if !create {
		if _, err := os.Stat(filepath.Join(dir, StoreFile)); err != nil {
			return nil, nil, fmt.Errorf("data folder %s has no store (%s): run `gpusla serve --data %s` or `gpusla node add --data %s` first", dir, StoreFile, dir, dir)
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("data folder: %w", err)
	}
	// A master key with no store beside it means the store was there and
	// is gone (deleted, moved, a wrong --data): starting an empty one would
	// hide that all history is missing.
	if _, err := os.Stat(filepath.Join(dir, StoreFile)); errors.Is(err, fs.ErrNotExist) {
		if _, kerr := os.Stat(filepath.Join(dir, MasterKeyFile)); kerr == nil {
			return nil, nil, fmt.Errorf("data folder %s has a master key but no store %s: the store is missing. Restore it (`gpusla restore --data %s --from BACKUP`), or move %s away to start an empty store",
				dir, StoreFile, dir, MasterKeyFile)
		}
	}
	// A key is made only with a new store: for a store that exists, a
	// missing key file is a wrong path, and a new key would seal nothing
	// the store holds.
	_, serr := os.Stat(filepath.Join(dir, StoreFile))
	box, err := LoadMasterKey(keyPath, create && errors.Is(serr, fs.ErrNotExist))
	if errors.Is(err, fs.ErrNotExist) && serr == nil {
		return nil, nil, fmt.Errorf("master key %s does not exist, but the store %s does: give the key it was made with (--master-key-file or $%s)",
			keyPath, filepath.Join(dir, StoreFile), EnvMasterKeyFile)
	}
	if err != nil {
		return nil, nil, err
	}
	st, err := bolt.Open(filepath.Join(dir, StoreFile))
	if err != nil {
		return nil, nil, err
	}
	if err := checkKey(ctx, st, box, keyPath); err != nil {
		st.Close()
		return nil, nil, err
	}
	return st, box, nil
}

// checkKey refuses a master key that opens none of the stored node secrets
// (app.CheckMasterKey), naming the key file; nodes whose records alone
// cannot be opened are reported on stderr and do not stop the backend.
func checkKey(ctx context.Context, st store.Store, box app.SecretBox, keyPath string) error {
	unreadable, err := app.CheckMasterKey(ctx, st, box)
	if err != nil {
		return fmt.Errorf("master key %s: %w", keyPath, err)
	}
	if len(unreadable) > 0 {
		fmt.Fprintf(os.Stderr, "gpusla: the secrets of nodes %s cannot be opened with master key %s (damaged records); their pushes will be refused\n", strings.Join(unreadable, ", "), keyPath)
	}
	return nil
}

// OpenStore opens the data folder's embedded store, or the DynamoDB table
// named by $GPUSLA_TABLE (creating it when a local endpoint is given in
// $GPUSLA_DYNAMODB_ENDPOINT and the table does not exist yet): the same
// table layout the Lambdas use, so the local process can run against
// DynamoDB Local or dynalite (the end-to-end tests do). The master key stays
// in the data folder either way. It returns where the store is, for the log.
func (e Env) OpenStore(ctx context.Context, dir string) (LocalStore, app.SecretBox, string, error) {
	if e.Table == "" {
		path := filepath.Join(dir, StoreFile)
		_, serr := os.Stat(path)
		st, box, err := openData(ctx, dir, e.MasterKeyPath(dir), true)
		if err != nil {
			return nil, nil, "", err
		}
		if errors.Is(serr, fs.ErrNotExist) {
			// A mistyped --data, or serve started in another directory,
			// starts an empty store: the log says so where it can be seen.
			abs, _ := filepath.Abs(path)
			return st, box, "embedded " + path + ", created now: there was none (" + abs + ")", nil
		}
		return st, box, "embedded " + path, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, "", fmt.Errorf("data folder: %w", err)
	}
	box, err := LoadMasterKey(e.MasterKeyPath(dir), true)
	if err != nil {
		return nil, nil, "", err
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, nil, "", fmt.Errorf("aws config: %w", err)
	}
	db := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		if e.DynamoEndpoint != "" {
			o.BaseEndpoint = aws.String(e.DynamoEndpoint)
		}
	})
	if e.DynamoEndpoint != "" {
		_, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(e.Table)})
		var nf *types.ResourceNotFoundException
		if errors.As(err, &nf) {
			err = dynamo.CreateTable(ctx, db, e.Table)
		}
		if err != nil {
			return nil, nil, "", fmt.Errorf("%s %s at %s: %w", EnvTable, e.Table, e.DynamoEndpoint, err)
		}
	}
	st, err := dynamo.New(db, e.Table)
	if err != nil {
		return nil, nil, "", err
	}
	if err := checkKey(ctx, st, box, e.MasterKeyPath(dir)); err != nil {
		return nil, nil, "", err
	}
	return st, box, "DynamoDB table " + e.Table, nil
}

// OpenExisting opens the store a read or update command works on: the
// DynamoDB table when $GPUSLA_TABLE is set (as serve does), else the data
// folder's embedded store, which must exist already.
func (e Env) OpenExisting(ctx context.Context, dir string) (LocalStore, app.SecretBox, error) {
	if e.Table == "" {
		st, box, err := openData(ctx, dir, e.MasterKeyPath(dir), false)
		if err != nil {
			return nil, nil, err
		}
		return st, box, nil
	}
	st, box, _, err := e.OpenStore(ctx, dir)
	return st, box, err
}

// LoadMasterKey reads the 0600 key file, creating it (32 random bytes, hex)
// when create is set and it does not exist.
func LoadMasterKey(path string, create bool) (app.SecretBox, error) {
	key, err := readMasterKey(path, create)
	if err != nil {
		return nil, err
	}
	return app.NewAESGCMBox(key)
}

// readMasterKey is the one reader of master key files (the data folder's,
// and the Lambda's outside AWS). A key readable by others is refused: it
// unseals every node's secret.
func readMasterKey(path string, create bool) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && create {
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		if err := atomicfile.WriteFile(path, []byte(hex.EncodeToString(key)+"\n"), 0o600); err != nil {
			return nil, fmt.Errorf("master key: %w", err)
		}
		return key, nil
	}
	if err != nil {
		return nil, fmt.Errorf("master key: %w", err)
	}
	if err := CheckPrivateFile("master key", path); err != nil {
		return nil, err
	}
	key, err := parseMasterKey(strings.TrimSpace(string(raw)))
	if err != nil {
		return nil, fmt.Errorf("master key %s: %w", path, err)
	}
	return key, nil
}

// LocalStatusToken is the local status page's token: $GPUSLA_STATUS_TOKEN, else
// <data>/status.token, created (0600, 48 hex digits) on first start. from
// says which, for serve's log. Either is held to CheckStatusToken, and the
// file to CheckPrivateFile.
func (e Env) LocalStatusToken(dir string) (tok, from string, err error) {
	if e.StatusToken != "" {
		from = "$" + EnvStatusToken
		if err := CheckStatusToken(from, e.StatusToken); err != nil {
			return "", "", err
		}
		return e.StatusToken, from, nil
	}
	path := filepath.Join(dir, StatusTokenFile)
	if tok, err = readOrCreateSecret("status token", path, 24); err != nil {
		return "", "", err
	}
	if err := CheckStatusToken(path, tok); err != nil {
		return "", "", err
	}
	return tok, path, nil
}

// LocalSlack is c with the Slack settings of the environment laid over it
// ($GPUSLA_SLACK_WEBHOOK_URL, _BOT_TOKEN, _CHANNEL when set; the API URL
// always, as tests point it at a slacktest server).
func (e Env) LocalSlack(c slack.Config) slack.Config {
	if e.SlackWebhookURL != "" {
		c.WebhookURL = e.SlackWebhookURL
	}
	if e.SlackBotToken != "" {
		c.BotToken = e.SlackBotToken
	}
	if e.SlackChannel != "" {
		c.Channel = e.SlackChannel
	}
	c.APIURL = e.SlackAPIURL
	return c
}

// readOrCreateSecret reads a secret file of the data folder (trimmed),
// creating it (0600, n random bytes as hex) when it does not exist.
func readOrCreateSecret(what, path string, n int) (string, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		b := make([]byte, n)
		if _, err := rand.Read(b); err != nil {
			return "", err
		}
		s := hex.EncodeToString(b)
		if err := atomicfile.WriteFile(path, []byte(s+"\n"), 0o600); err != nil {
			return "", fmt.Errorf("%s: %w", what, err)
		}
		return s, nil
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	if err := CheckPrivateFile(what, path); err != nil {
		return "", err
	}
	return strings.TrimSpace(string(raw)), nil
}
