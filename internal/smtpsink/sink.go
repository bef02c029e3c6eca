// Package smtpsink is an SMTP server that accepts every message and keeps it,
// so that mail sent by ppwr can be inspected during development (as files)
// and asserted on in tests (in memory). It never relays anything.
package smtpsink

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
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
	server   *smtp.Server
	listener net.Listener
	dir      string
	served   chan struct{}

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
	// Listening before returning means Addr is final and a client can connect
	// as soon as Start returns: no race for callers that pass port 0.
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("smtpsink: listen on %s: %w", addr, err)
	}

	s := &Sink{
		listener: l,
		dir:      dir,
		served:   make(chan struct{}),
		arrived:  make(chan struct{}),
	}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) {
		return &session{sink: s}, nil
	}))
	srv.Domain = "localhost"
	// Applications are configured with credentials for real relays; without
	// TLS here, accepting AUTH anyway keeps the same configuration working.
	srv.AllowInsecureAuth = true
	srv.MaxMessageBytes = maxMessageBytes
	srv.MaxRecipients = 1000
	srv.ReadTimeout = time.Minute
	srv.WriteTimeout = time.Minute
	s.server = srv

	go func() {
		defer close(s.served)
		_ = srv.Serve(l)
	}()
	return s, nil
}

// Addr is the address actually listened on, in host:port form.
func (s *Sink) Addr() string { return s.listener.Addr().String() }

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

// Close stops listening, drops open connections and waits for the server
// loop to finish, so a test can rely on the port being released.
func (s *Sink) Close() error {
	err := s.server.Close()
	// Serve registers the listener with the server only once its goroutine
	// runs; closing it here as well keeps an early Close from hanging.
	if lerr := s.listener.Close(); err == nil && !errors.Is(lerr, net.ErrClosed) {
		err = lerr
	}
	<-s.served
	if errors.Is(err, smtp.ErrServerClosed) {
		return nil
	}
	return err
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

type session struct {
	sink *Sink
	from string
	to   []string
}

var _ smtp.AuthSession = (*session)(nil)

func (x *session) AuthMechanisms() []string { return []string{sasl.Plain, sasl.Login} }

// Auth accepts any credentials: the sink stands in for a relay, it guards
// nothing.
func (x *session) Auth(mech string) (sasl.Server, error) {
	switch mech {
	case sasl.Plain:
		return sasl.NewPlainServer(func(string, string, string) error { return nil }), nil
	case sasl.Login:
		return &loginServer{}, nil
	}
	return nil, smtp.ErrAuthUnknownMechanism
}

func (x *session) Mail(from string, _ *smtp.MailOptions) error {
	x.from = from
	x.to = nil
	return nil
}

func (x *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	x.to = append(x.to, to)
	return nil
}

func (x *session) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	err = x.sink.store(Message{
		From:       x.from,
		To:         append([]string(nil), x.to...),
		Data:       data,
		ReceivedAt: time.Now(),
	})
	if err != nil {
		// A transient failure tells the sender the message was not kept.
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "cannot store message: " + err.Error()}
	}
	return nil
}

func (x *session) Reset() {
	x.from = ""
	x.to = nil
}

func (x *session) Logout() error { return nil }

// loginServer implements the obsolete but still common LOGIN mechanism, which
// go-sasl only provides for clients.
type loginServer struct {
	gotUser bool
	done    bool
}

func (l *loginServer) Next(response []byte) ([]byte, bool, error) {
	switch {
	case l.done:
		return nil, true, sasl.ErrUnexpectedClientResponse
	case !l.gotUser && response == nil:
		return []byte("Username:"), false, nil
	case !l.gotUser:
		l.gotUser = true
		return []byte("Password:"), false, nil
	default:
		l.done = true
		return nil, true, nil
	}
}
