package sinks

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// Roles.
const (
	RoleAdmin    = "admin"
	RoleReviewer = "reviewer"
)

// Reviewer is a token holder. Only the token's hash is stored.
type Reviewer struct {
	ID        string `json:"id"` // first 12 hex of the hash: safe to show, names the token
	Name      string `json:"name"`
	Role      string `json:"role"`
	CreatedAt string `json:"created_at"`
	RevokedAt string `json:"revoked_at,omitempty"`
}

func hashToken(tok string) string {
	h := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(h[:])
}

func newToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "cbk_" + hex.EncodeToString(b), nil
}

// AddToken issues a token for name with role and returns it; it is never stored.
func (s *Store) AddToken(name, role string) (token string, r Reviewer, err error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 100 {
		return "", r, fmt.Errorf("reviewer name must be 1..100 characters: %w", ErrInvalid)
	}
	if role != RoleAdmin && role != RoleReviewer {
		return "", r, fmt.Errorf("role must be admin or reviewer: %w", ErrInvalid)
	}
	token, err = newToken()
	if err != nil {
		return "", r, err
	}
	h := hashToken(token)
	r = Reviewer{ID: h[:12], Name: name, Role: role, CreatedAt: s.stamp()}
	err = s.db.Update(func(tx *bolt.Tx) error { return putJSON(tx.Bucket(bTokens), []byte(h), r) })
	return token, r, err
}

// HasAdmin reports whether any unrevoked admin token exists.
func (s *Store) HasAdmin() bool {
	found := false
	_ = s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bTokens).ForEach(func(k, v []byte) error {
			var r Reviewer
			if jsonUnmarshal(v, &r) == nil && r.Role == RoleAdmin && r.RevokedAt == "" {
				found = true
			}
			return nil
		})
	})
	return found
}

// Authenticate returns the reviewer holding token.
func (s *Store) Authenticate(token string) (Reviewer, bool) {
	if token == "" {
		return Reviewer{}, false
	}
	h := hashToken(token)
	var r Reviewer
	ok := false
	_ = s.db.View(func(tx *bolt.Tx) error {
		// Keys are hashes, so a map lookup leaks nothing useful about the token;
		// the constant-time compare guards the value anyway.
		k, v := tx.Bucket(bTokens).Cursor().Seek([]byte(h))
		if k != nil && subtle.ConstantTimeCompare(k, []byte(h)) == 1 && jsonUnmarshal(v, &r) == nil && r.RevokedAt == "" {
			ok = true
		}
		return nil
	})
	return r, ok
}

// ListTokens lists token holders (never the tokens).
func (s *Store) ListTokens() ([]Reviewer, error) {
	out := []Reviewer{}
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bTokens).ForEach(func(k, v []byte) error {
			var r Reviewer
			if err := jsonUnmarshal(v, &r); err != nil {
				return err
			}
			out = append(out, r)
			return nil
		})
	})
	return out, err
}

// RevokeToken revokes the token whose ID (hash prefix) is id.
func (s *Store) RevokeToken(id string) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bTokens)
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			var r Reviewer
			if err := jsonUnmarshal(v, &r); err != nil {
				return err
			}
			if r.ID == id {
				if r.RevokedAt != "" {
					return nil
				}
				r.RevokedAt = s.stamp()
				return putJSON(b, append([]byte(nil), k...), r)
			}
		}
		return fmt.Errorf("token %s: %w", id, ErrNotFound)
	})
}
