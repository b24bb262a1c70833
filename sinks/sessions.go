package sinks

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// bSessions: sha256(session id) hex -> Session. Only hashes are stored, as
// for tokens, so a copy of the file does not hand out logged-in sessions.
var bSessions = []byte("sessions")

func init() { allBuckets = append(allBuckets, bSessions) }

// Session is a web UI login made with a reviewer token.
type Session struct {
	TokenHash string   `json:"token_hash"`
	Reviewer  Reviewer `json:"reviewer"`
	CSRF      string   `json:"csrf"`
	Expires   string   `json:"expires"`
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// CreateSession logs in with token and returns the session id to set as a
// cookie; the session ends after ttl or when the token is revoked.
func (s *Store) CreateSession(token string, ttl time.Duration) (id string, sess Session, err error) {
	rv, ok := s.Authenticate(token)
	if !ok {
		return "", sess, fmt.Errorf("the token is not valid or was revoked: %w", ErrNotFound)
	}
	if id, err = randomHex(32); err != nil {
		return "", sess, err
	}
	csrf, err := randomHex(32)
	if err != nil {
		return "", sess, err
	}
	now := s.now().UTC()
	sess = Session{TokenHash: hashToken(token), Reviewer: rv, CSRF: csrf, Expires: now.Add(ttl).Format(time.RFC3339)}
	err = s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bSessions)
		// Drop expired sessions while here: logins are rare, so this stays cheap.
		var stale [][]byte
		_ = b.ForEach(func(k, v []byte) error {
			var old Session
			if jsonUnmarshal(v, &old) != nil || expired(old.Expires, now) {
				stale = append(stale, append([]byte(nil), k...))
			}
			return nil
		})
		for _, k := range stale {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		return putJSON(b, []byte(hashToken(id)), sess)
	})
	return id, sess, err
}

func expired(ts string, now time.Time) bool {
	t, err := time.Parse(time.RFC3339, ts)
	return err != nil || !now.Before(t)
}

// GetSession returns the live session for id: not expired, token not revoked.
func (s *Store) GetSession(id string) (Session, bool) {
	var sess Session
	ok := false
	if id == "" {
		return sess, false
	}
	_ = s.db.View(func(tx *bolt.Tx) error {
		if getJSON(tx.Bucket(bSessions), []byte(hashToken(id)), &sess) != nil || expired(sess.Expires, s.now().UTC()) {
			return nil
		}
		var rv Reviewer
		if getJSON(tx.Bucket(bTokens), []byte(sess.TokenHash), &rv) != nil || rv.RevokedAt != "" {
			return nil
		}
		sess.Reviewer = rv
		ok = true
		return nil
	})
	return sess, ok
}

// DeleteSession logs a session out.
func (s *Store) DeleteSession(id string) error {
	return s.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bSessions).Delete([]byte(hashToken(id))) })
}
