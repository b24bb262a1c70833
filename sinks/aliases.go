package sinks

import (
	"bytes"

	bolt "go.etcd.io/bbolt"
)

// bAliasesOf is the aliases bucket read backwards, so a case's earlier ids
// (its draft id, drafts merged into it) are a prefix scan rather than a walk
// over every alias in the store.
var bAliasesOf = []byte("aliases_of") // current id + 0x00 + old id -> ""

func init() { allBuckets = append(allBuckets, bAliasesOf) }

func aliasOfKey(cur, old string) []byte {
	return append(append([]byte(cur), 0), old...)
}

// putAlias makes old answer as cur.
func putAlias(tx *bolt.Tx, old, cur string) error {
	if err := tx.Bucket(bAliases).Put([]byte(old), []byte(cur)); err != nil {
		return err
	}
	return tx.Bucket(bAliasesOf).Put(aliasOfKey(cur, old), nil)
}

// earlierIDs lists the ids aliased to cur, in id order.
func earlierIDs(tx *bolt.Tx, cur string) []string {
	var out []string
	prefix := aliasOfKey(cur, "")
	c := tx.Bucket(bAliasesOf).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		out = append(out, string(k[len(prefix):]))
	}
	return out
}

var metaAliasesOfVersion = []byte("aliases_of_version")

// upgradeAliasesOf fills the reverse bucket once for a store written
// before it existed.
func upgradeAliasesOf(tx *bolt.Tx) error {
	meta := tx.Bucket(bMeta)
	if string(meta.Get(metaAliasesOfVersion)) == "1" {
		return nil
	}
	rev := tx.Bucket(bAliasesOf)
	if err := tx.Bucket(bAliases).ForEach(func(k, v []byte) error {
		return rev.Put(aliasOfKey(string(v), string(k)), nil)
	}); err != nil {
		return err
	}
	return meta.Put(metaAliasesOfVersion, []byte("1"))
}
