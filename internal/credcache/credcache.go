// Package credcache keeps resolved API credentials in memory between
// requests, so that authentication does not query Postgres every time.
//
// Staleness is bounded by Postgres itself: triggers notify channel
// ppwr_auth whenever keys, memberships, users or organizations change
// (migration 0004), and the cache then forgets everything. While it is not
// listening (not started yet, or its connection dropped) it serves nothing
// from memory, so a revocation is never missed; at worst it is seen a
// notification's latency later than the commit.
package credcache

import (
	"context"
	"sync"
	"time"

	"ppwr/internal/access"
	"ppwr/internal/database"
)

// Channel is the notification channel of migration 0004.
const Channel = "ppwr_auth"

// maxAge also expires entries without notifications, which bounds memory
// to the keys used recently.
const maxAge = time.Minute

// Cache maps token hashes to credentials.
type Cache struct {
	mu      sync.RWMutex
	entries map[string]entry
	// generation changes on every invalidation; a lookup that started
	// before one must not store what it read.
	generation uint64
	listening  bool
}

type entry struct {
	cred *access.Credential
	at   time.Time
}

// New returns an empty cache that serves nothing until Listen runs.
func New() *Cache { return &Cache{entries: map[string]entry{}} }

// Lookup returns the credential of tokenHash from memory or, on a miss, from
// load, keeping it when no invalidation happened meanwhile. Credentials are
// shared between requests and must not be modified.
func (c *Cache) Lookup(tokenHash []byte, load func() (*access.Credential, error)) (*access.Credential, error) {
	c.mu.RLock()
	e, hit := c.entries[string(tokenHash)] // indexed by the bytes: no string made
	generation, listening := c.generation, c.listening
	c.mu.RUnlock()
	if hit && listening && time.Since(e.at) < maxAge {
		return e.cred, nil
	}
	cred, err := load()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.listening && c.generation == generation {
		if len(c.entries) > 100_000 { // a flood of distinct keys: start over
			c.entries = map[string]entry{}
		}
		c.entries[string(tokenHash)] = entry{cred: cred, at: time.Now()}
	}
	c.mu.Unlock()
	return cred, nil
}

// Invalidate forgets every credential.
func (c *Cache) Invalidate() {
	c.mu.Lock()
	c.generation++
	c.entries = map[string]entry{}
	c.mu.Unlock()
}

func (c *Cache) setListening(on bool) {
	c.mu.Lock()
	c.listening = on
	c.generation++
	c.entries = map[string]entry{}
	c.mu.Unlock()
}

// Listen follows the invalidation channel until ctx ends, reconnecting
// after failures; the cache serves from memory only while it listens.
func (c *Cache) Listen(ctx context.Context, databaseURL string) {
	database.Listen(ctx, databaseURL, Channel, c.setListening, c.Invalidate)
}

// Listening reports whether the cache currently serves from memory.
func (c *Cache) Listening() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.listening
}
