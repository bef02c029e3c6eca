package smtpsink_test

import (
	"context"
	"net"
	netsmtp "net/smtp"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	gosmtp "github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/smtpsink"
)

func start(t *testing.T, dir string) *smtpsink.Sink {
	t.Helper()
	sink, err := smtpsink.Start("127.0.0.1:0", dir)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, sink.Close()) })
	return sink
}

func message(subject, body string) []byte {
	return []byte("From: ppwr@localhost\r\n" +
		"To: buyer@example.com\r\n" +
		"Subject: " + subject + "\r\n" +
		"Content-Type: text/plain; charset=utf-8\r\n" +
		"\r\n" +
		body + "\r\n")
}

func TestStoresMessageInMemoryAndAsFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mail") // must be created by Start
	sink := start(t, dir)
	raw := message("Declaration request", "Zażółć gęślą jaźń.\r\n.leading dot survives")

	before := time.Now()
	require.NoError(t, netsmtp.SendMail(sink.Addr(), nil, "ppwr@localhost",
		[]string{"buyer@example.com", "hidden@example.com"}, raw))

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	msgs, err := sink.WaitFor(ctx, 1)
	require.NoError(t, err)
	require.Len(t, msgs, 1)

	m := msgs[0]
	assert.Equal(t, "ppwr@localhost", m.From)
	assert.Equal(t, []string{"buyer@example.com", "hidden@example.com"}, m.To)
	assert.Equal(t, string(raw), string(m.Data))
	assert.WithinDuration(t, before, m.ReceivedAt, 5*time.Second)

	files, err := filepath.Glob(filepath.Join(dir, "*.eml"))
	require.NoError(t, err)
	require.Len(t, files, 1)
	onDisk, err := os.ReadFile(files[0])
	require.NoError(t, err)
	assert.Equal(t, string(raw), string(onDisk))

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary files may be left behind")
}

func TestAcceptsAnyCredentials(t *testing.T) {
	sink := start(t, "")
	host, _, err := net.SplitHostPort(sink.Addr())
	require.NoError(t, err)

	// net/smtp only sends PLAIN credentials in clear text to a local host,
	// which is exactly the development setup.
	auth := netsmtp.PlainAuth("", "user", "whatever", host)
	require.NoError(t, netsmtp.SendMail(sink.Addr(), auth, "a@example.com", []string{"b@example.com"}, message("plain", "x")))

	// go-smtp's SendMail insists on STARTTLS, so drive the client by hand to
	// show LOGIN works over a plain connection.
	c, err := gosmtp.Dial(sink.Addr())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.Auth(sasl.NewLoginClient("user", "whatever")))
	require.NoError(t, c.SendMail("c@example.com", []string{"d@example.com"}, strings.NewReader(string(message("login", "y")))))
	require.NoError(t, c.Quit())

	msgs := sink.Messages()
	require.Len(t, msgs, 2)
	assert.Equal(t, "a@example.com", msgs[0].From)
	assert.Equal(t, "c@example.com", msgs[1].From)
	assert.Contains(t, string(msgs[1].Data), "Subject: login")
}

func TestWaitForBlocksUntilEnoughArrive(t *testing.T) {
	sink := start(t, "")

	short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	msgs, err := sink.WaitFor(short, 1)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Empty(t, msgs)

	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NoError(t, netsmtp.SendMail(sink.Addr(), nil, "ppwr@localhost",
				[]string{"r@example.com"}, message("n", strings.Repeat("x", i))))
		}()
	}

	ctx, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel2()
	msgs, err = sink.WaitFor(ctx, 3)
	require.NoError(t, err)
	assert.Len(t, msgs, 3)
	wg.Wait()
}

func TestMessagesReturnsACopy(t *testing.T) {
	sink := start(t, "")
	require.NoError(t, netsmtp.SendMail(sink.Addr(), nil, "ppwr@localhost", []string{"r@example.com"}, message("copy", "x")))

	first := sink.Messages()
	require.Len(t, first, 1)
	first[0].Data[0] = 'X'
	first[0].To[0] = "changed"

	again := sink.Messages()
	assert.Equal(t, byte('F'), again[0].Data[0])
	assert.Equal(t, "r@example.com", again[0].To[0])
}

func TestCloseReleasesThePort(t *testing.T) {
	sink, err := smtpsink.Start("127.0.0.1:0", "")
	require.NoError(t, err)
	addr := sink.Addr()
	require.NoError(t, sink.Close())

	again, err := smtpsink.Start(addr, "")
	require.NoError(t, err)
	require.NoError(t, again.Close())
}
