package crawl

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/fetch"
	"github.com/nats-io/nats.go/jetstream"
)

// Politeness state shared by every fetch worker, in any process, lives in
// NATS key-value buckets, never in process memory:
//
//	kv casebook_hosts   "h_<host>" -> hostState (next allowed time, concurrency
//	                    slot leases with their own expiry), "_policy" -> Politeness
//	kv casebook_robots  "r_<origin>" -> fetch.RobotsEntry, bucket TTL 24 h
//	casebook.seen.claim  core NATS request/reply: fetch workers ask the store
//	                    process whether a crawled page's content or rel=canonical
//	                    URL was already seen (the seen-set is in bbolt)
const (
	HostsBucket  = "casebook_hosts"
	RobotsBucket = "casebook_robots"
	policyKey    = "_policy"
)

// Politeness is the per-host policy. `casebook serve` writes it to the hosts
// bucket at start, so every worker process follows the same one.
type Politeness struct {
	// Concurrency is how many requests one host may have in flight, default 1.
	Concurrency int `json:"concurrency"`
	// MinDelay is the least time between the starts of two requests to one
	// host, default 2 s; a longer robots.txt Crawl-delay wins.
	MinDelay time.Duration `json:"min_delay"`
	// LeaseTTL bounds how long a slot is held: a worker that crashed
	// mid-fetch frees its slot when the lease expires. Default 2 min (above
	// the fetcher's total timeout).
	LeaseTTL time.Duration `json:"lease_ttl"`
	// MaxWait is how long a fetch waits in-process (the message kept alive
	// with InProgress) for its host; a longer wait re-publishes the task
	// with a not-before time instead. Default 20 s.
	MaxWait time.Duration `json:"max_wait"`
	// MaxDefer is the longest a host may hold a fetch back (Retry-After);
	// beyond it the submission fails with the reason and a later crawl
	// retries it. Default 1 h.
	MaxDefer time.Duration `json:"max_defer"`
}

// Politeness defaults.
const (
	DefaultHostConcurrency = 1
	DefaultHostDelay       = 2 * time.Second
	DefaultLeaseTTL        = 2 * time.Minute
	DefaultMaxWait         = 20 * time.Second
	DefaultMaxDefer        = time.Hour
	// DefaultBackoff429 is how long a host is left alone after a 429 or 503
	// without a usable Retry-After.
	DefaultBackoff429 = 30 * time.Second
)

func (p Politeness) withDefaults() Politeness {
	if p.Concurrency <= 0 {
		p.Concurrency = DefaultHostConcurrency
	}
	if p.MinDelay <= 0 {
		p.MinDelay = DefaultHostDelay
	}
	if p.LeaseTTL <= 0 {
		p.LeaseTTL = DefaultLeaseTTL
	}
	if p.MaxWait <= 0 {
		p.MaxWait = DefaultMaxWait
	}
	if p.MaxDefer <= 0 {
		p.MaxDefer = DefaultMaxDefer
	}
	return p
}

// hostState is one host's entry in the hosts bucket.
//
// The host's requests are served in turns: a request that cannot start at
// once books the next free turn (a ticket: Booked, in order) and waits for
// it, in-process or, past the in-process wait, with its message handed back
// to come again at that time. A deferred fetch thus keeps its place in its
// host's queue instead of going to the back, and the host serves its queue
// oldest first across every worker.
type hostState struct {
	Next   time.Time `json:"next"`          // the next turn free for booking; no unbooked request starts before it
	Last   time.Time `json:"last,omitzero"` // start of the latest request: the next waits the delay after it
	Hold   time.Time `json:"hold,omitzero"` // no request starts before this (Retry-After, robots.txt)
	Slots  []slot    `json:"slots,omitempty"`
	Booked []booking `json:"booked,omitempty"`
	Reason string    `json:"reason,omitempty"` // why Hold was pushed out (Retry-After)
}

type slot struct {
	ID    string    `json:"id"`
	Until time.Time `json:"until"`
}

// booking is a turn taken by a request that waits for it.
type booking struct {
	ID    string    `json:"id"`
	At    time.Time `json:"at"`
	Order uint64    `json:"order,omitempty"` // the ticket's place in the queue; 0: none, at the back
}

// maxBookings bounds a host's queue of turns (and so its entry's size);
// a request beyond it is deferred without a turn and books when it is back.
const maxBookings = 1024

func (h *hostState) prune(now time.Time) {
	keep := h.Slots[:0]
	for _, s := range h.Slots {
		if s.Until.After(now) {
			keep = append(keep, s)
		}
	}
	h.Slots = keep
}

// pruneBookings drops turns long past: their holder died, or came back too
// late to claim them (it books again, at the back).
func (h *hostState) pruneBookings(now time.Time, grace time.Duration) {
	keep := h.Booked[:0]
	for _, b := range h.Booked {
		if now.Sub(b.At) < grace {
			keep = append(keep, b)
		}
	}
	h.Booked = keep
}

// book adds b: at the back (b.At is then the next free turn), or in front
// of the first future turn of a higher order, which with every turn after
// it moves back by delay.
func (h *hostState) book(b booking, now time.Time, delay time.Duration) {
	p := len(h.Booked)
	if b.Order != 0 {
		for i, o := range h.Booked {
			if o.At.After(now) && o.Order > b.Order {
				p = i
				break
			}
		}
	}
	if p == len(h.Booked) {
		h.Booked = append(h.Booked, b)
		h.Next = b.At.Add(delay)
		return
	}
	b.At = h.Booked[p].At // its turn
	for i := p; i < len(h.Booked); i++ {
		h.Booked[i].At = h.Booked[i].At.Add(delay)
	}
	h.Booked = slices.Insert(h.Booked, p, b)
	h.Next = h.Next.Add(delay)
}

func (h *hostState) booking(id string) int {
	for i, b := range h.Booked {
		if b.ID == id {
			return i
		}
	}
	return -1
}

func maxTime(t time.Time, more ...time.Time) time.Time {
	for _, u := range more {
		if u.After(t) {
			t = u
		}
	}
	return t
}

type ticketKey struct{}

type ticket struct {
	id    string
	order uint64
}

// WithTicket names the request in ctx for its host's queue: a request that
// comes back with the same ticket (its message redelivered after a
// deferral, or after a worker died) finds the turn it booked. order is its
// place in the queue (the work stream's sequence: oldest first): a ticket
// that books late, having lost races to others or its turn, is put before
// the future turns of higher order. Without a ticket a request's turn lasts
// only while it waits in-process, at the back.
func WithTicket(ctx context.Context, id string, order uint64) context.Context {
	return context.WithValue(ctx, ticketKey{}, ticket{id: id, order: order})
}

func ticketFrom(ctx context.Context) (ticket, bool) {
	t, ok := ctx.Value(ticketKey{}).(ticket)
	return t, ok && t.id != ""
}

// DeferError says a host will not take a request within the in-process
// wait: the task should come back at Until. The fetch stage's wiring
// (pipelines.WireFetch) re-publishes it.
type DeferError struct {
	Host   string
	Until  time.Time
	Reason string
}

func (e *DeferError) Error() string {
	s := fmt.Sprintf("host %s busy until %s", e.Host, e.Until.UTC().Format(time.RFC3339Nano))
	if e.Reason != "" {
		s += " (" + e.Reason + ")"
	}
	return s
}

// HostLimiter enforces Politeness across processes with compare-and-set on
// the hosts bucket.
type HostLimiter struct {
	kv       jetstream.KeyValue
	fallback Politeness

	mu       sync.Mutex
	policy   Politeness
	policyAt time.Time
}

// EnsureHostsBucket creates (idempotently) the hosts bucket. Entries not
// touched for eight days go: longer than any Retry-After fetch accepts.
//
// The bucket is in memory: politeness is soft state, rewritten on every
// fetch, and a file-backed bucket under sync_always cost three fsyncs per
// fetch (a third of the pipeline's JetStream writes). What a restart of
// every NATS server loses is a host's pending Retry-After (the host answers
// 429 again and is deferred again) and the policy until `serve` republishes it
// (workers fall back to the defaults, which are the strictest).
func EnsureHostsBucket(ctx context.Context, js jetstream.JetStream) (jetstream.KeyValue, error) {
	var kv jetstream.KeyValue
	err := retry(ctx, func() error {
		var err error
		kv, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket: HostsBucket, Description: "casebook per-host politeness", History: 1,
			TTL: 8 * 24 * time.Hour, Storage: jetstream.MemoryStorage,
		})
		if err != nil && strings.Contains(err.Error(), "storage type") {
			// A bucket made file-backed by an older casebook: keep using it.
			kv, err = js.KeyValue(ctx, HostsBucket)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("kv %s: %w", HostsBucket, err)
	}
	return kv, nil
}

// PublishPoliteness stores the cluster-wide policy in the hosts bucket.
func PublishPoliteness(ctx context.Context, js jetstream.JetStream, p Politeness) error {
	kv, err := EnsureHostsBucket(ctx, js)
	if err != nil {
		return err
	}
	raw, _ := json.Marshal(p.withDefaults())
	if _, err := kv.Put(ctx, policyKey, raw); err != nil {
		return fmt.Errorf("store politeness policy: %w", err)
	}
	return nil
}

// NewHostLimiter opens the hosts bucket. The policy is read from it (and
// re-read every few seconds); fallback applies until one is published.
func NewHostLimiter(ctx context.Context, js jetstream.JetStream, fallback Politeness) (*HostLimiter, error) {
	kv, err := EnsureHostsBucket(ctx, js)
	if err != nil {
		return nil, err
	}
	return &HostLimiter{kv: kv, fallback: fallback.withDefaults()}, nil
}

// Policy returns the policy in force.
func (l *HostLimiter) Policy(ctx context.Context) Politeness {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.policyAt.IsZero() && time.Since(l.policyAt) < 5*time.Second {
		return l.policy
	}
	p := l.fallback
	if e, err := l.kv.Get(ctx, policyKey); err == nil {
		var stored Politeness
		if json.Unmarshal(e.Value(), &stored) == nil {
			p = stored.withDefaults()
		}
	}
	l.policy, l.policyAt = p, time.Now()
	return p
}

// HostKey is the bucket key for a host: KV keys allow only [-/_=.A-Za-z0-9]
// with no empty token between dots, so anything else (':' of IPv6, IDN
// bytes, a dot that would leave an empty token) is hex-escaped. A trailing
// dot names the same host ("localhost." is localhost) and is dropped, so the
// host gets one key and its real address reaches the fetch guard.
func HostKey(prefix, host string) string {
	var b strings.Builder
	b.WriteString(prefix)
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case c == '.' && (i == 0 || h[i-1] == '.' || i == len(h)-1):
			fmt.Fprintf(&b, "_%02x", c)
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '.':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "_%02x", c)
		}
	}
	return b.String()
}

func (l *HostLimiter) load(ctx context.Context, key string) (hostState, uint64, error) {
	var st hostState
	e, err := l.kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return st, 0, nil
	}
	if err != nil {
		return st, 0, fmt.Errorf("politeness state %s: %w", key, err)
	}
	if err := json.Unmarshal(e.Value(), &st); err != nil {
		return hostState{}, e.Revision(), nil // a corrupt entry is overwritten
	}
	return st, e.Revision(), nil
}

// store writes st if the entry is still at rev; false on a lost race.
func (l *HostLimiter) store(ctx context.Context, key string, st hostState, rev uint64) (bool, error) {
	_, ok, err := l.storeRev(ctx, key, st, rev)
	return ok, err
}

// storeRev is store that also returns the entry's new revision.
func (l *HostLimiter) storeRev(ctx context.Context, key string, st hostState, rev uint64) (uint64, bool, error) {
	raw, _ := json.Marshal(st)
	var err error
	var next uint64
	if rev == 0 {
		next, err = l.kv.Create(ctx, key, raw)
		if errors.Is(err, jetstream.ErrKeyExists) {
			return 0, false, nil
		}
	} else {
		next, err = l.kv.Update(ctx, key, raw, rev)
		if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			return 0, false, nil
		}
	}
	if err != nil {
		return 0, false, fmt.Errorf("politeness state %s: %w", key, err)
	}
	return next, true, nil
}

// update applies f to the host's state with compare-and-set until it sticks.
func (l *HostLimiter) update(ctx context.Context, key string, f func(*hostState, time.Time) bool) error {
	for {
		st, rev, err := l.load(ctx, key)
		if err != nil {
			return err
		}
		if !f(&st, time.Now()) {
			return nil
		}
		ok, err := l.store(ctx, key, st, rev)
		if err != nil || ok {
			return err
		}
		if err := sleepCtx(ctx, time.Duration(mrand.IntN(2000))*time.Microsecond); err != nil {
			return err
		}
	}
}

// Lease is a held concurrency slot for one host.
type Lease struct {
	l     *HostLimiter
	key   string
	id    string
	Host  string
	Start time.Time
	once  sync.Once
	// What the acquiring write left, so an uncontended release is one
	// compare-and-set without a read first.
	st  hostState
	rev uint64
}

// startLag is how late after its recorded start a request may go out
// before Acquire records the later time as the host's latest request: a
// hundredth of the delay, at least 2 ms, so a cluster's ordinary write
// round trip costs no second write.
func startLag(delay time.Duration) time.Duration { return max(2*time.Millisecond, delay/100) }

// Acquire waits for host to allow a request: its turn come (booked in
// order behind the requests already waiting), the delay passed since the
// host's latest request, and fewer than Concurrency in flight. It then takes
// a slot (delay below the policy's MinDelay is raised to it). When that
// cannot happen within maxWait it returns a *DeferError; with a ticket in
// ctx (WithTicket) the booked turn stays the request's for when it is back.
func (l *HostLimiter) Acquire(ctx context.Context, host string, delay, maxWait time.Duration) (*Lease, error) {
	pol := l.Policy(ctx)
	delay = max(delay, pol.MinDelay)
	key := HostKey("h_", host)
	tk, kept := ticketFrom(ctx)
	id := tk.id
	if !kept {
		id = newLeaseID()
	}
	// A turn is kept for a while after its time: long enough for a
	// deferred message's redelivery, or a dead worker's ack wait.
	grace := max(pol.LeaseTTL, 2*time.Minute)
	deadline := time.Now().Add(maxWait)
	poll := min(max(pol.MinDelay/4, 5*time.Millisecond), 100*time.Millisecond)
	for {
		st, rev, err := l.load(ctx, key)
		if err != nil {
			return nil, err
		}
		now := time.Now()
		st.prune(now)
		st.pruneBookings(now, grace)
		bi := st.booking(id)
		turn := maxTime(now, st.Next)
		if bi >= 0 {
			turn = st.Booked[bi].At
		}
		ready := maxTime(turn, st.Hold)
		if !st.Last.IsZero() {
			ready = maxTime(ready, st.Last.Add(delay))
		}
		slotBlocked := len(st.Slots) >= pol.Concurrency
		if !now.Before(ready) && !slotBlocked {
			if bi >= 0 {
				st.Booked = slices.Delete(st.Booked, bi, bi+1)
				// The turns behind start a delay apart from this start,
				// not from when it was booked: a start a little late moves
				// them back, so they never fall due together and race.
				for i, k := bi, 1; i < len(st.Booked); i, k = i+1, k+1 {
					st.Booked[i].At = maxTime(st.Booked[i].At, now.Add(time.Duration(k)*delay))
				}
				if n := len(st.Booked); n > 0 {
					st.Next = maxTime(st.Next, st.Booked[n-1].At.Add(delay))
				}
			}
			st.Last = now
			st.Next = maxTime(st.Next, now.Add(delay))
			st.Slots = append(st.Slots, slot{ID: id, Until: now.Add(pol.LeaseTTL)})
			next, ok, err := l.storeRev(ctx, key, st, rev)
			if err != nil {
				return nil, err
			}
			if ok {
				// The request goes out only after the write: when the write
				// was slow, the next request's delay should count from
				// then, or the host sees two requests closer than it asked
				// (a 30 ms write, then a 3 ms one, made 0.7 s read 0.67).
				// Best effort: this second write's own time is not
				// counted, and a lost race leaves the earlier start.
				if sent := time.Now(); sent.Sub(now) > startLag(delay) {
					later := st
					later.Last = sent
					later.Next = maxTime(st.Next, sent.Add(delay))
					if again, ok2, err := l.storeRev(ctx, key, later, next); err == nil && ok2 {
						now, st, next = sent, later, again
					}
				}
				return &Lease{l: l, key: key, id: id, Host: host, Start: now, st: st, rev: next}, nil
			}
			// Lost the race to another worker: look again at once, with
			// a little jitter so the losers do not collide again.
			if err := sleepCtx(ctx, time.Duration(mrand.IntN(1000))*time.Microsecond); err != nil {
				return nil, err
			}
			continue
		}
		if bi < 0 && len(st.Booked) < maxBookings {
			// Not our turn yet: book the next free one, behind everyone
			// already waiting for this host, or, for an older ticket, the
			// first future turn of a younger one (those move back a turn).
			st.book(booking{ID: id, At: ready, Order: tk.order}, now, delay)
			if _, ok, err := l.storeRev(ctx, key, st, rev); err != nil {
				return nil, err
			} else if !ok {
				if err := sleepCtx(ctx, time.Duration(mrand.IntN(1000))*time.Microsecond); err != nil {
					return nil, err
				}
			}
			continue // look again, now holding the turn
		}
		var wait time.Duration
		if ready.After(now) {
			wait = ready.Sub(now)
		}
		if slotBlocked {
			// A slot frees when its holder releases it; poll for that.
			wait = max(wait, poll)
		}
		if now.Add(wait).After(deadline) {
			reason := ""
			if !st.Hold.Before(ready) {
				reason = st.Reason // the host itself asked for the wait
			}
			if !kept {
				l.unbook(key, id)
			}
			return nil, &DeferError{Host: host, Until: now.Add(wait), Reason: reason}
		}
		// Wake a hair after the turn, spread over waiters.
		if err := sleepCtx(ctx, wait+time.Duration(mrand.IntN(500))*time.Microsecond); err != nil {
			if !kept {
				l.unbook(key, id)
			}
			return nil, err
		}
	}
}

// unbook gives back a turn nobody will come for.
func (l *HostLimiter) unbook(key, id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = l.update(ctx, key, func(st *hostState, _ time.Time) bool {
		i := st.booking(id)
		if i < 0 {
			return false
		}
		st.Booked = slices.Delete(st.Booked, i, i+1)
		return true
	})
}

// Hold keeps every request to the host from starting before t while the
// lease is held (a robots.txt request just used the host; a Crawl-delay
// applies).
func (le *Lease) Hold(ctx context.Context, t time.Time) error {
	le.rev = 0 // the entry changes: release reads it afresh
	return le.l.update(ctx, le.key, func(st *hostState, _ time.Time) bool {
		if !t.After(st.Hold) && !t.After(st.Next) {
			return false
		}
		if t.After(st.Hold) {
			st.Hold, st.Reason = t, ""
		}
		st.Next = maxTime(st.Next, t)
		return true
	})
}

// holdFromNow holds the host a delay from now, just before the request goes
// out: counted from the lease's start, the robots.txt check and the hold's
// own write came off the delay (a loaded host saw 0.685 s for a Crawl-delay
// of 0.7), and a sleep's overshoot did after a robots.txt fetch. A slow
// write is followed by a second hold from when it ended, as in Acquire.
func holdFromNow(ctx context.Context, le *Lease, delay time.Duration) error {
	t := time.Now()
	if err := le.Hold(ctx, t.Add(delay)); err != nil {
		return err
	}
	if sent := time.Now(); sent.Sub(t) > startLag(delay) {
		return le.Hold(ctx, sent.Add(delay))
	}
	return nil
}

// Release frees the slot. It is safe to call twice.
func (le *Lease) Release() {
	le.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if le.rev != 0 {
			st := le.st
			st.Slots = slicesDeleteFunc(append([]slot(nil), st.Slots...), func(s slot) bool { return s.ID == le.id })
			if ok, err := le.l.store(ctx, le.key, st, le.rev); ok && err == nil {
				return
			}
		}
		_ = le.l.update(ctx, le.key, func(st *hostState, now time.Time) bool {
			n := len(st.Slots)
			st.Slots = slicesDeleteFunc(st.Slots, func(s slot) bool { return s.ID == le.id })
			return len(st.Slots) != n
		})
	})
}

// Defer makes every worker leave host alone until until (a 429 or 503 with
// Retry-After). The turns already booked move back by the same time, so
// the queue keeps its order.
func (l *HostLimiter) Defer(ctx context.Context, host string, until time.Time, reason string) error {
	return l.update(ctx, HostKey("h_", host), func(st *hostState, now time.Time) bool {
		if !until.After(st.Hold) {
			return false
		}
		shift := until.Sub(maxTime(now, st.Hold))
		for i := range st.Booked {
			st.Booked[i].At = st.Booked[i].At.Add(shift)
		}
		if len(st.Booked) > 0 {
			st.Next = st.Next.Add(shift)
		}
		st.Next = maxTime(st.Next, until)
		st.Hold, st.Reason = until, reason
		return true
	})
}

// NextAllowed reports when host next takes a request not yet waiting (zero: now).
func (l *HostLimiter) NextAllowed(ctx context.Context, host string) (time.Time, error) {
	st, _, err := l.load(ctx, HostKey("h_", host))
	return maxTime(st.Next, st.Hold), err
}

func slicesDeleteFunc(s []slot, del func(slot) bool) []slot {
	out := s[:0]
	for _, x := range s {
		if !del(x) {
			out = append(out, x)
		}
	}
	return out
}

func newLeaseID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// KVRobotsCache is a fetch.RobotsCache on the robots bucket, shared by all
// workers. The bucket's TTL (24 h) is the RFC 9309 ceiling on caching.
type KVRobotsCache struct {
	kv jetstream.KeyValue
}

// NewKVRobotsCache creates (idempotently) the robots bucket.
func NewKVRobotsCache(ctx context.Context, js jetstream.JetStream) (*KVRobotsCache, error) {
	var kv jetstream.KeyValue
	err := retry(ctx, func() error {
		var err error
		kv, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket: RobotsBucket, Description: "casebook robots.txt cache", History: 1,
			TTL: 24 * time.Hour, Storage: jetstream.FileStorage, MaxValueSize: fetch.RobotsMaxBytes + 64<<10,
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("kv %s: %w", RobotsBucket, err)
	}
	return &KVRobotsCache{kv: kv}, nil
}

// GetRobots implements fetch.RobotsCache.
func (c *KVRobotsCache) GetRobots(ctx context.Context, origin string) (*fetch.RobotsEntry, error) {
	e, err := c.kv.Get(ctx, HostKey("r_", origin))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("robots cache get %s: %w", origin, err)
	}
	var re fetch.RobotsEntry
	if err := json.Unmarshal(e.Value(), &re); err != nil {
		return nil, nil // unreadable: fetch afresh
	}
	return &re, nil
}

// PutRobots implements fetch.RobotsCache.
func (c *KVRobotsCache) PutRobots(ctx context.Context, origin string, e *fetch.RobotsEntry) error {
	raw, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if _, err := c.kv.Put(ctx, HostKey("r_", origin), raw); err != nil {
		return fmt.Errorf("robots cache put %s: %w", origin, err)
	}
	return nil
}

// robotsFetchedKey marks, in a context, that a robots.txt request went out.
type robotsFetchedKey struct{}

// robotsGetter lets PoliteFetcher see when Robots had to fetch robots.txt,
// so that request counts against the host's spacing.
type robotsGetter struct{ f *fetch.Fetcher }

func (g robotsGetter) Fetch(ctx context.Context, req fetch.Request) (*fetch.Page, error) {
	if flag, ok := ctx.Value(robotsFetchedKey{}).(*atomic.Bool); ok {
		flag.Store(true)
	}
	return g.f.Fetch(ctx, req)
}

// PoliteFetcher fetches with robots.txt (crawls only) and the per-host
// limiter. Nil Limiter or Robots turn those parts off.
type PoliteFetcher struct {
	Fetcher *fetch.Fetcher
	Limiter *HostLimiter
	Robots  *fetch.Robots
}

// NewPoliteFetcher builds one on the JetStream's politeness buckets.
func NewPoliteFetcher(ctx context.Context, js jetstream.JetStream, f *fetch.Fetcher) (*PoliteFetcher, error) {
	lim, err := NewHostLimiter(ctx, js, Politeness{})
	if err != nil {
		return nil, err
	}
	cache, err := NewKVRobotsCache(ctx, js)
	if err != nil {
		return nil, err
	}
	rb := fetch.NewRobots(robotsGetter{f}, cache, f.UserAgent())
	return &PoliteFetcher{Fetcher: f, Limiter: lim, Robots: rb}, nil
}

// ReasonRobots is the skip reason of a URL robots.txt disallows.
const ReasonRobots = "disallowed by robots.txt"

// Fetch fetches req politely. maxWait bounds the in-process wait for the
// host (0: the policy's MaxWait); a longer one returns a *DeferError. crawl
// applies robots.txt: a disallowed URL is a casebook.Skip with ReasonRobots,
// an unreachable robots.txt a permanent failure (a later crawl retries).
// A 429 or 503 pushes the host's next-allowed time out for every worker.
func (p *PoliteFetcher) Fetch(ctx context.Context, req fetch.Request, crawl bool, maxWait time.Duration) (*fetch.Page, error) {
	host := hostOf(req.URL)
	if host == "" {
		return p.Fetcher.Fetch(ctx, req) // the fetcher explains the bad URL
	}
	var lease *Lease
	var pol Politeness
	if p.Limiter != nil {
		pol = p.Limiter.Policy(ctx)
		if maxWait <= 0 {
			maxWait = pol.MaxWait
		}
		var err error
		if lease, err = p.Limiter.Acquire(ctx, host, pol.MinDelay, maxWait); err != nil {
			var de *DeferError
			// Only a wait the host asked for (Retry-After) ends the fetch;
			// a long queue of its own turns is waited out.
			if errors.As(err, &de) && de.Reason != "" && time.Until(de.Until) > pol.MaxDefer {
				return nil, casebook.Permanentf("host %s asked crawlers to wait until %s (%s); a later crawl retries",
					host, de.Until.UTC().Format(time.RFC3339), de.Reason)
			}
			return nil, err
		}
		defer lease.Release()
	}
	if crawl && p.Robots != nil {
		fetched := &atomic.Bool{}
		dec, err := p.Robots.Check(context.WithValue(ctx, robotsFetchedKey{}, fetched), req.URL)
		if err != nil {
			return nil, casebook.Permanent(err)
		}
		if lease != nil {
			delay := max(pol.MinDelay, dec.CrawlDelay)
			if fetched.Load() {
				// robots.txt took this turn: the page waits one delay and
				// the next request one more.
				if err := lease.Hold(ctx, time.Now().Add(2*delay)); err != nil {
					return nil, err
				}
				if err := sleepCtx(ctx, delay); err != nil {
					return nil, err
				}
			}
			if fetched.Load() || dec.CrawlDelay > pol.MinDelay {
				if err := holdFromNow(ctx, lease, delay); err != nil {
					return nil, err
				}
			}
		}
		if !dec.Allowed {
			if dec.Reason == ReasonRobots {
				return nil, casebook.Skip(ReasonRobots)
			}
			return nil, casebook.Permanentf("%s: %s", req.URL, dec.Reason)
		}
	}
	start := time.Now()
	page, err := p.Fetcher.Fetch(ctx, req)
	timeFetch(ctx, start)
	if err != nil && p.Limiter != nil {
		if fe, ok := fetch.AsError(err); ok && (fe.Status == 429 || fe.Status == 503) {
			wait := fe.RetryAfter
			if wait <= 0 {
				wait = DefaultBackoff429
			}
			_ = p.Limiter.Defer(context.WithoutCancel(ctx), host, time.Now().Add(wait), fmt.Sprintf("HTTP %d, retry after %s", fe.Status, wait))
		}
	}
	return page, err
}

// FetchTimer carries the fetch's own duration out of PoliteFetcher.Fetch,
// which also waits for the host: the wait must not count as latency.
type FetchTimer struct {
	D    time.Duration // the request's own time
	Done bool          // a request went out
}

type fetchTimerKey struct{}

// WithFetchTimer returns a context whose fetch PoliteFetcher.Fetch times.
func WithFetchTimer(ctx context.Context) (context.Context, *FetchTimer) {
	ft := &FetchTimer{}
	return context.WithValue(ctx, fetchTimerKey{}, ft), ft
}

// timeFetch records the time since start in the context's timer, if any.
func timeFetch(ctx context.Context, start time.Time) {
	if ft, ok := ctx.Value(fetchTimerKey{}).(*FetchTimer); ok {
		ft.D, ft.Done = time.Since(start), true
	}
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// retry repeats f, each attempt with its own timeout, while a cluster is
// still electing leaders at start-up.
func retry(ctx context.Context, f func() error) error {
	var err error
	for delay := 100 * time.Millisecond; ; delay = min(delay*2, 2*time.Second) {
		err = f()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last error: %v)", ctx.Err(), err)
		case <-time.After(delay):
		}
	}
}
