// Package mailin receives mail over SMTP and reads the files out of it.
// The server asks its Handler about each recipient and hands it each
// message as a stream; Attachments walks a message's MIME tree. What the
// mail means is the Handler's business.
package mailin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Envelope is who a message is from and for, as the SMTP client said:
// To holds only the recipients the Handler accepted.
type Envelope struct {
	From string
	To   []string
}

// Handler decides who mail is accepted for and takes each message.
type Handler interface {
	// Recipient accepts an address (nil) or refuses it; an *smtp.SMTPError
	// is answered as it is, any other error as a transient failure.
	Recipient(ctx context.Context, address string) error
	// Deliver takes the message for the envelope's recipients. The data
	// fails with smtp.ErrDataTooLarge past the server's limit, which is
	// then the answer. Any other error is answered as a transient failure
	// (451), so that the sending server tries again later.
	Deliver(ctx context.Context, env Envelope, data io.Reader) error
}

// Options shape the server.
type Options struct {
	// Domain is the name the server greets with.
	Domain string
	// MaxBytes bounds a message; larger ones are refused with 552.
	MaxBytes int64
	// AnyAuth offers AUTH and accepts any credentials: for a sink that
	// stands in for a relay, never for a server that guards anything.
	AnyAuth bool
}

// Server is a running SMTP server.
type Server struct {
	server   *smtp.Server
	listener net.Listener
	served   chan struct{}
}

// Listen listens on addr (use "127.0.0.1:0" for a free port) and serves
// until Close. Addr is final once it returns, so a client may connect at
// once.
func Listen(addr string, h Handler, o Options) (*Server, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("mailin: listen on %s: %w", addr, err)
	}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) {
		s := &session{handler: h}
		if o.AnyAuth {
			return &authSession{s}, nil
		}
		return s, nil
	}))
	srv.Domain = o.Domain
	srv.AllowInsecureAuth = o.AnyAuth
	srv.MaxMessageBytes = o.MaxBytes
	srv.MaxRecipients = 100
	srv.ReadTimeout = 5 * time.Minute
	srv.WriteTimeout = time.Minute
	s := &Server{server: srv, listener: l, served: make(chan struct{})}
	go func() {
		defer close(s.served)
		_ = srv.Serve(l)
	}()
	return s, nil
}

// Addr is the address actually listened on, in host:port form.
func (s *Server) Addr() string { return s.listener.Addr().String() }

// Close stops listening, drops open connections and waits for the server
// loop to end, so the port is free when it returns.
func (s *Server) Close() error {
	err := s.server.Close()
	// Serve registers the listener only once its goroutine runs; closing
	// it here as well keeps an early Close from hanging.
	if lerr := s.listener.Close(); err == nil && !errors.Is(lerr, net.ErrClosed) {
		err = lerr
	}
	<-s.served
	if errors.Is(err, smtp.ErrServerClosed) {
		return nil
	}
	return err
}

// ErrTransient is the answer to a failure on our side: the sender keeps
// the message and tries again.
var ErrTransient = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "cannot take the message now, try again later"}

// answer turns a Handler's error into the SMTP reply.
func answer(err error) error {
	var reply *smtp.SMTPError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &reply):
		return reply
	}
	return ErrTransient
}

type session struct {
	handler Handler
	env     Envelope
}

func (x *session) Mail(from string, _ *smtp.MailOptions) error {
	x.env = Envelope{From: from}
	return nil
}

func (x *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if err := x.handler.Recipient(context.Background(), to); err != nil {
		return answer(err)
	}
	x.env.To = append(x.env.To, to)
	return nil
}

func (x *session) Data(r io.Reader) error {
	data := &watched{r: r}
	err := x.handler.Deliver(context.Background(), x.env, data)
	if err != nil && data.tooLarge {
		return smtp.ErrDataTooLarge
	}
	return answer(err)
}

func (x *session) Reset() { x.env = Envelope{} }

func (x *session) Logout() error { return nil }

// watched remembers that the data ran over the limit, whatever the
// Handler wrapped that error in.
type watched struct {
	r        io.Reader
	tooLarge bool
}

func (w *watched) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if errors.Is(err, smtp.ErrDataTooLarge) {
		w.tooLarge = true
	}
	return n, err
}

// authSession offers AUTH PLAIN and LOGIN and accepts any credentials.
type authSession struct{ *session }

var _ smtp.AuthSession = (*authSession)(nil)

func (x *authSession) AuthMechanisms() []string { return []string{sasl.Plain, sasl.Login} }

func (x *authSession) Auth(mech string) (sasl.Server, error) {
	switch mech {
	case sasl.Plain:
		return sasl.NewPlainServer(func(string, string, string) error { return nil }), nil
	case sasl.Login:
		return &loginServer{}, nil
	}
	return nil, smtp.ErrAuthUnknownMechanism
}

// loginServer implements the obsolete but still common LOGIN mechanism,
// which go-sasl only provides for clients.
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
