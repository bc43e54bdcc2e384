package app

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
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
