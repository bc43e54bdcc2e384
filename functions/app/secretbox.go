package app

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/gpusla/gpusla/infra/store"
)

// aesBox is a SecretBox using AES-256-GCM with the node id as additional
// data, so a sealed secret cannot be moved to another node's record.
type aesBox struct{ aead cipher.AEAD }

// NewAESGCMBox returns a SecretBox keyed by a 32-byte master key (locally a
// 0600 key file in the data folder; in AWS from SSM or Secrets Manager).
func NewAESGCMBox(key []byte) (SecretBox, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("secret box: master key is %d bytes, want 32", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("secret box: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secret box: %w", err)
	}
	return &aesBox{aead: aead}, nil
}

func (b *aesBox) Seal(plain []byte, node string) ([]byte, error) {
	nonce := make([]byte, b.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("seal secret of node %s: %w", node, err)
	}
	return b.aead.Seal(nonce, nonce, plain, []byte(node)), nil
}

// errUnseal hides why opening failed: wrong key and tampering look alike.
var errUnseal = errors.New("cannot open sealed secret (wrong master key or damaged record)")

func (b *aesBox) Open(sealed []byte, node string) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(sealed) < n+b.aead.Overhead() {
		return nil, fmt.Errorf("node %s: %w", node, errUnseal)
	}
	plain, err := b.aead.Open(nil, sealed[:n], sealed[n:], []byte(node))
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", node, errUnseal)
	}
	return plain, nil
}

// ErrWrongMasterKey is a master key that opens none of the stored secrets.
var ErrWrongMasterKey = errors.New("wrong master key")

// NodeLister is what CheckMasterKey reads: the node records (a store, or a
// backup opened to be read before it is restored).
type NodeLister interface {
	ListNodes(ctx context.Context) ([]store.Node, error)
}

// CheckMasterKey tries box on every node secret in st, so that a wrong
// master key stops the backend at start instead of answering every push
// with 500 while its health check says ok. A key that opens none of them is
// ErrWrongMasterKey, naming a node tried; one that opens some returns the
// nodes whose records it cannot open (damaged records, not a wrong key),
// for the caller to report. An empty store has nothing to check.
func CheckMasterKey(ctx context.Context, st NodeLister, box SecretBox) (unreadable []string, err error) {
	nodes, err := st.ListNodes(ctx)
	if err != nil {
		return nil, fmt.Errorf("check master key: %w", err)
	}
	opened := 0
	for _, n := range nodes {
		if len(n.SealedSecret) == 0 {
			continue // nothing sealed (a record written without a secret)
		}
		if _, err := box.Open(n.SealedSecret, n.ID); err != nil {
			unreadable = append(unreadable, n.ID)
		} else {
			opened++
		}
	}
	if opened == 0 && len(unreadable) > 0 {
		return nil, fmt.Errorf("%w: it opens none of the %d node secrets in the store (node %s among them); they were sealed with another key. Start with the key they were sealed with; nothing was changed",
			ErrWrongMasterKey, len(unreadable), unreadable[0])
	}
	return unreadable, nil
}
