// Package clamav scans streams for malware with ClamAV's clamd, over its
// INSTREAM protocol.
package clamav

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// chunkSize is how much of a stream is sent per INSTREAM chunk, and so
// about how much of it is held in memory at once.
const chunkSize = 64 << 10

// maxReply bounds what is read of a reply; clamd's are one short line.
const maxReply = 4 << 10

var (
	// ErrStreamTooLarge means the stream is longer than clamd's
	// StreamMaxLength; sending it again cannot succeed.
	ErrStreamTooLarge = errors.New("clamav: stream exceeds clamd's StreamMaxLength")
	// ErrUnexpectedReply means clamd answered something this client does
	// not understand (or the address is not a clamd at all).
	ErrUnexpectedReply = errors.New("clamav: unexpected reply from clamd")
)

// IsPermanent reports whether err will recur however often the scan is
// retried. Everything else (connection refused, timeouts, a connection
// lost mid-stream, clamd's own scan errors, a failing source reader) may
// succeed on a later attempt.
func IsPermanent(err error) bool {
	return errors.Is(err, ErrStreamTooLarge) || errors.Is(err, ErrUnexpectedReply)
}

// Verdict is clamd's answer about one stream.
type Verdict struct {
	Infected bool
	// Signature is the name of the signature that matched, as clamd
	// reports it; empty when clean.
	Signature string
}

// Client talks to one clamd. It holds no connection: each call dials its
// own, so a Client is safe for concurrent use.
type Client struct {
	network, address string
	dialer           net.Dialer
}

// New returns a client of the clamd at address: "host:port" for TCP or
// "unix:/path/to/clamd.ctl" for a Unix socket.
func New(address string) *Client {
	if path, ok := strings.CutPrefix(address, "unix:"); ok {
		return &Client{network: "unix", address: path}
	}
	return &Client{network: "tcp", address: address}
}

// Ping checks that clamd answers. Like Scan it waits as long as ctx
// allows: give ctx a deadline, or a stalled clamd is waited for forever.
func (c *Client) Ping(ctx context.Context) error {
	reply, err := c.roundTrip(ctx, "zPING\x00", nil)
	if err != nil {
		return err
	}
	if reply != "PONG" {
		return fmt.Errorf("%w: %q to PING", ErrUnexpectedReply, reply)
	}
	return nil
}

// Scan streams r to clamd and returns its verdict. r is read in chunks and
// never held whole; the scan stops when ctx is done. ctx needs a deadline
// that leaves room for clamd to read and scan the whole stream.
func (c *Client) Scan(ctx context.Context, r io.Reader) (Verdict, error) {
	reply, err := c.roundTrip(ctx, "zINSTREAM\x00", r)
	if err != nil {
		return Verdict{}, err
	}
	return parseScanReply(reply)
}

func parseScanReply(reply string) (Verdict, error) {
	if strings.HasPrefix(reply, "INSTREAM size limit exceeded") {
		return Verdict{}, ErrStreamTooLarge
	}
	result, ok := strings.CutPrefix(reply, "stream: ")
	switch {
	case !ok:
	case result == "OK":
		return Verdict{}, nil
	case strings.HasSuffix(result, " FOUND"):
		return Verdict{Infected: true, Signature: strings.TrimSuffix(result, " FOUND")}, nil
	case strings.HasSuffix(result, " ERROR"):
		// clamd could not scan (out of memory, temporary files, ...):
		// its problem, not the stream's, so worth another try.
		return Verdict{}, fmt.Errorf("clamav: clamd failed to scan: %s", strings.TrimSuffix(result, " ERROR"))
	}
	return Verdict{}, fmt.Errorf("%w: %q", ErrUnexpectedReply, reply)
}

// roundTrip sends command, then body as INSTREAM chunks when it is not
// nil, and returns clamd's NUL-terminated reply without the NUL.
func (c *Client) roundTrip(ctx context.Context, command string, body io.Reader) (reply string, err error) {
	conn, err := c.dialer.DialContext(ctx, c.network, c.address)
	if err != nil {
		return "", fmt.Errorf("clamav: connecting to clamd at %s: %w", c.address, err)
	}
	defer conn.Close()
	if deadline, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(deadline)
	}
	// A cancel without a deadline still has to unblock a read or write in
	// progress; an expired deadline does that.
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer func() {
		stop()
		// The timeout or reset the deadline caused says less than why.
		if err != nil && ctx.Err() != nil {
			err = fmt.Errorf("clamav: talking to clamd: %w", context.Cause(ctx))
		}
	}()

	if _, err := io.WriteString(conn, command); err != nil {
		return "", fmt.Errorf("clamav: sending %s to clamd: %w", strings.TrimRight(command, "\x00"), err)
	}
	if body != nil {
		if err := sendChunks(conn, body); err != nil {
			var wErr *writeError
			if !errors.As(err, &wErr) {
				return "", err
			}
			// clamd stops reading when it refuses the stream (size limit)
			// but says why first; that reason beats the broken pipe. The
			// read cannot block: the connection is broken or past its
			// deadline.
			if reply, rErr := readReply(conn); rErr == nil {
				return reply, nil
			}
			return "", err
		}
	}
	return readReply(conn)
}

// writeError is a failure to send to clamd, as opposed to one reading the
// stream being scanned.
type writeError struct{ err error }

func (e *writeError) Error() string { return "clamav: sending the stream to clamd: " + e.err.Error() }
func (e *writeError) Unwrap() error { return e.err }

// sendChunks writes body as INSTREAM chunks (a 4-byte big-endian length,
// then the bytes) and the zero-length chunk that ends the stream.
func sendChunks(conn net.Conn, body io.Reader) error {
	buf := make([]byte, 4+chunkSize)
	for {
		n, end, err := fill(body, buf[4:])
		if err != nil {
			return fmt.Errorf("clamav: reading the stream to scan: %w", err)
		}
		if n > 0 {
			binary.BigEndian.PutUint32(buf, uint32(n))
			if _, err := conn.Write(buf[:4+n]); err != nil {
				return &writeError{err}
			}
		}
		if end {
			break
		}
	}
	if _, err := conn.Write(make([]byte, 4)); err != nil {
		return &writeError{err}
	}
	return nil
}

// fill reads into p until it is full or r ends. Unlike io.ReadFull it
// tells io.EOF apart from a source's own io.ErrUnexpectedEOF (a download
// cut short), which must fail the scan, not pass a truncated stream.
func fill(r io.Reader, p []byte) (n int, end bool, err error) {
	for n < len(p) {
		m, err := r.Read(p[n:])
		n += m
		if err == io.EOF {
			return n, true, nil
		}
		if err != nil {
			return n, false, err
		}
	}
	return n, false, nil
}

// readReply reads up to the NUL that ends a reply to a z-command. clamd
// never puts a newline in one, so a newline (or a NUL that never comes)
// marks a server that is not clamd, such as a line protocol's greeting.
func readReply(conn net.Conn) (string, error) {
	r := bufio.NewReader(io.LimitReader(conn, maxReply))
	var reply []byte
	for {
		b, err := r.ReadByte()
		switch {
		case err == nil && b == 0:
			return string(reply), nil
		case err == nil && b == '\n':
			return "", fmt.Errorf("%w: %q is a line, not a NUL-terminated reply", ErrUnexpectedReply, reply)
		case err == nil:
			reply = append(reply, b)
		case errors.Is(err, io.EOF) && len(reply) == 0:
			// Closed without a word: clamd went away (a restart, a crash).
			return "", fmt.Errorf("clamav: reading clamd's reply: %w", io.ErrUnexpectedEOF)
		case errors.Is(err, io.EOF):
			return "", fmt.Errorf("%w: %q without the terminating NUL", ErrUnexpectedReply, reply)
		default:
			return "", fmt.Errorf("clamav: reading clamd's reply: %w", err)
		}
	}
}
