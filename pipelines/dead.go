package pipelines

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/casebook/casebook/api"
	"github.com/casebook/casebook/sinks"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// DeadLetters reads and retries the dead-letter stream; the API serves it to
// reviewers and `casebook dead` calls that API.
type DeadLetters struct {
	Bus   *Bus
	Store *sinks.Store
}

func (d *DeadLetters) stream(ctx context.Context) (jetstream.Stream, error) {
	return d.Bus.JS.Stream(ctx, StreamDead)
}

// ListDead returns up to limit dead letters, newest first.
func (d *DeadLetters) ListDead(ctx context.Context, limit int) ([]api.DeadEntry, error) {
	st, err := d.stream(ctx)
	if err != nil {
		return nil, err
	}
	info, err := st.Info(ctx)
	if err != nil {
		return nil, err
	}
	var out []api.DeadEntry
	for seq := info.State.LastSeq; seq >= info.State.FirstSeq && seq > 0 && len(out) < limit; seq-- {
		raw, err := st.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue // retried (deleted)
		}
		if err != nil {
			return out, err
		}
		var dl DeadLetter
		if err := json.Unmarshal(raw.Data, &dl); err != nil {
			continue
		}
		out = append(out, entry(seq, dl))
	}
	return out, nil
}

func entry(seq uint64, dl DeadLetter) api.DeadEntry {
	return api.DeadEntry{ID: seq, Stage: dl.Stage, SubmissionID: dl.SubmissionID, Error: dl.Error, Attempts: dl.Attempts, At: dl.At}
}

// RetryDead re-publishes a dead letter's original message to its stage with a
// fresh delivery count, reopens its submission, and removes the dead letter.
func (d *DeadLetters) RetryDead(ctx context.Context, seq uint64) (api.DeadEntry, error) {
	st, err := d.stream(ctx)
	if err != nil {
		return api.DeadEntry{}, err
	}
	raw, err := st.GetMsg(ctx, seq)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return api.DeadEntry{}, fmt.Errorf("dead letter %d: %w", seq, sinks.ErrNotFound)
	}
	if err != nil {
		return api.DeadEntry{}, err
	}
	var dl DeadLetter
	if err := json.Unmarshal(raw.Data, &dl); err != nil {
		return api.DeadEntry{}, fmt.Errorf("dead letter %d: %w", seq, err)
	}
	if dl.SubmissionID != "" && d.Store != nil {
		if err := d.Store.Reopen(dl.SubmissionID, dl.Stage); err != nil && !errors.Is(err, sinks.ErrNotFound) {
			return api.DeadEntry{}, err
		}
	}
	msg := nats.NewMsg(dl.Subject)
	msg.Header.Set(HeaderSubmission, dl.SubmissionID)
	if dl.Blob != "" {
		msg.Header.Set(HeaderBlob, dl.Blob)
	}
	msg.Data = dl.Payload
	id := fmt.Sprintf("%s:%s:retry:%d", dl.SubmissionID, dl.Stage, seq)
	if _, err := d.Bus.JS.PublishMsg(ctx, msg, jetstream.WithMsgID(id)); err != nil {
		return api.DeadEntry{}, fmt.Errorf("republish: %w", err)
	}
	if err := st.DeleteMsg(ctx, seq); err != nil && !errors.Is(err, jetstream.ErrMsgNotFound) {
		return api.DeadEntry{}, fmt.Errorf("remove dead letter: %w", err)
	}
	return entry(seq, dl), nil
}

// ConsumerLag reports, per stage consumer, the messages not yet delivered
// and those delivered but not acknowledged.
func (b *Bus) ConsumerLag(ctx context.Context) (map[string][2]uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	out := map[string][2]uint64{}
	for _, name := range append(append([]string{}, Stages...), ConsumerEvent) {
		stream := StreamWork
		if name == ConsumerEvent {
			stream = StreamEvents
		}
		c, err := b.JS.Consumer(ctx, stream, name)
		if err != nil {
			return out, err
		}
		info, err := c.Info(ctx)
		if err != nil {
			return out, err
		}
		out[name] = [2]uint64{info.NumPending, uint64(info.NumAckPending)}
	}
	return out, nil
}

// DeadCount is the number of dead letters waiting.
func (b *Bus) DeadCount(ctx context.Context) (uint64, error) {
	st, err := b.JS.Stream(ctx, StreamDead)
	if err != nil {
		return 0, err
	}
	info, err := st.Info(ctx)
	if err != nil {
		return 0, err
	}
	return info.State.Msgs, nil
}

// OldestAge is the age of the oldest message waiting on subject in the
// work queue (acknowledged messages are gone from it); 0 when none waits.
func (b *Bus) OldestAge(ctx context.Context, subject string) (time.Duration, error) {
	st, err := b.JS.Stream(ctx, StreamWork)
	if err != nil {
		return 0, err
	}
	msg, err := st.GetMsg(ctx, 1, jetstream.WithGetMsgSubject(subject))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return max(time.Since(msg.Time), 0), nil
}
