// Package smtpsink is an SMTP server that accepts every message and keeps it,
// so that mail sent by ppwr can be inspected during development (as files)
// and asserted on in tests (in memory). It never relays anything.
package smtpsink

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"ppwr/internal/mailin"
)

// maxMessageBytes is generous on purpose: the sink must not reject what a real
// relay would accept, or a test would fail for the wrong reason.
const maxMessageBytes = 64 << 20

// Message is one accepted mail transaction. To holds the envelope recipients,
// which include Bcc addresses that never appear in Data.
type Message struct {
	From       string
	To         []string
	Data       []byte
	ReceivedAt time.Time
}

// Sink is a running SMTP server. It is safe for concurrent use.
type Sink struct {
	server *mailin.Server
	dir    string

	mu       sync.Mutex
	messages []Message
	// arrived is closed (and replaced) whenever a message is stored, so that
	// any number of WaitFor callers wake up without polling.
	arrived chan struct{}
	seq     int
}

// Start listens on addr (use "127.0.0.1:0" for a free port) and serves until
// Close. When dir is not empty each message is also written there as an .eml
// file, which any mail client can open.
func Start(addr, dir string) (*Sink, error) {
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("smtpsink: create %s: %w", dir, err)
		}
	}
	s := &Sink{dir: dir, arrived: make(chan struct{})}
	// Applications are configured with credentials for real relays; the
	// sink accepts any, so the same configuration keeps working.
	srv, err := mailin.Listen(addr, s, mailin.Options{Domain: "localhost", MaxBytes: maxMessageBytes, AnyAuth: true})
	if err != nil {
		return nil, err
	}
	s.server = srv
	return s, nil
}

// Addr is the address actually listened on, in host:port form.
func (s *Sink) Addr() string { return s.server.Addr() }

// Messages returns a copy of everything received so far, oldest first.
func (s *Sink) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snapshotLocked()
}

// WaitFor blocks until at least n messages have arrived and returns them all,
// or returns ctx's error together with what has arrived so far.
func (s *Sink) WaitFor(ctx context.Context, n int) ([]Message, error) {
	for {
		s.mu.Lock()
		if len(s.messages) >= n {
			msgs := s.snapshotLocked()
			s.mu.Unlock()
			return msgs, nil
		}
		arrived := s.arrived
		s.mu.Unlock()

		select {
		case <-arrived:
		case <-ctx.Done():
			return s.Messages(), fmt.Errorf("smtpsink: waiting for %d messages: %w", n, ctx.Err())
		}
	}
}

// Close stops the server; the port is free when it returns.
func (s *Sink) Close() error { return s.server.Close() }

// Recipient accepts every address: the sink keeps everything.
func (s *Sink) Recipient(context.Context, string) error { return nil }

// Deliver keeps the message.
func (s *Sink) Deliver(_ context.Context, env mailin.Envelope, r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	return s.store(Message{From: env.From, To: env.To, Data: data, ReceivedAt: time.Now()})
}

func (s *Sink) snapshotLocked() []Message {
	out := make([]Message, len(s.messages))
	for i, m := range s.messages {
		m.To = append([]string(nil), m.To...)
		m.Data = append([]byte(nil), m.Data...)
		out[i] = m
	}
	return out
}

func (s *Sink) store(m Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	if s.dir != "" {
		if err := s.writeFile(m, s.seq); err != nil {
			return err
		}
	}
	s.messages = append(s.messages, m)
	close(s.arrived)
	s.arrived = make(chan struct{})
	return nil
}

// writeFile names files by arrival time so a directory listing is in order and
// names stay unique across restarts of the sink; the rename makes a file
// appear only once it is complete.
func (s *Sink) writeFile(m Message, seq int) error {
	name := fmt.Sprintf("%s-%06d.eml", m.ReceivedAt.UTC().Format("20060102T150405.000000000Z"), seq)
	tmp, err := os.CreateTemp(s.dir, ".incoming-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(m.Data); err != nil {
		_ = tmp.Close()
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(s.dir, name))
}
