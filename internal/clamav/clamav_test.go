package clamav_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/clamav"
	"ppwr/internal/smtpsink"
	"ppwr/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// eicar is the standard anti-virus test file, assembled here so that no
// file in the repository trips a scanner.
var eicar = []byte(`X5O!P%@AP[4\PZX54(P^)7CC)7}$EICAR` + "-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*")

func scan(t *testing.T, c *clamav.Client, r io.Reader) (clamav.Verdict, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return c.Scan(ctx, r)
}

func TestPing(t *testing.T) {
	require.NoError(t, clamav.New(testenv.Clamd(t)).Ping(context.Background()))
}

func TestEICARIsInfected(t *testing.T) {
	require.Len(t, eicar, 68)
	v, err := scan(t, clamav.New(testenv.Clamd(t)), bytes.NewReader(eicar))
	require.NoError(t, err)
	assert.True(t, v.Infected)
	assert.Contains(t, v.Signature, "Eicar-Test-Signature")
}

// The file straddles two INSTREAM chunks inside a larger stream: clamd
// must see the chunks as one stream, and the shipped body signature must
// find EICAR away from offset 0.
func TestEICARInsideALargerStreamIsInfected(t *testing.T) {
	const chunk = 64 << 10
	head := bytes.Repeat([]byte{'a'}, chunk-30)
	v, err := scan(t, clamav.New(testenv.Clamd(t)), io.MultiReader(
		bytes.NewReader(head), bytes.NewReader(eicar), strings.NewReader("trailing bytes\n")))
	require.NoError(t, err)
	assert.True(t, v.Infected)
	assert.Contains(t, v.Signature, "Eicar-Test-Signature")
}

// countingReader yields size pseudo-random bytes and records how much it
// was asked for at once, so the test can tell the stream was not gathered
// in memory first.
type countingReader struct {
	src     io.Reader
	read    int64
	largest int
}

func (r *countingReader) Read(p []byte) (int, error) {
	r.largest = max(r.largest, len(p))
	n, err := r.src.Read(p)
	r.read += int64(n)
	return n, err
}

func TestCleanMultiMegabyteStream(t *testing.T) {
	const size = 12 << 20
	r := &countingReader{src: io.LimitReader(rand.NewChaCha8([32]byte{1}), size)}
	v, err := scan(t, clamav.New(testenv.Clamd(t)), r)
	require.NoError(t, err)
	assert.Equal(t, clamav.Verdict{}, v)
	assert.EqualValues(t, size, r.read, "the whole stream is sent")
	assert.LessOrEqual(t, r.largest, 1<<20, "the stream is read in chunks")
}

func TestEmptyStreamIsClean(t *testing.T) {
	v, err := scan(t, clamav.New(testenv.Clamd(t)), bytes.NewReader(nil))
	require.NoError(t, err)
	assert.False(t, v.Infected)
}

func TestScansRunConcurrently(t *testing.T) {
	c := clamav.New(testenv.Clamd(t))
	errs := make(chan error, 4)
	for i := range 4 {
		go func() {
			body := []byte("clean document ")
			if i%2 == 0 {
				body = eicar
			}
			v, err := scan(t, c, bytes.NewReader(body))
			if err == nil && v.Infected != (i%2 == 0) {
				err = errors.New("wrong verdict")
			}
			errs <- err
		}()
	}
	for range 4 {
		require.NoError(t, <-errs)
	}
}

// A source that fails, even with io.ErrUnexpectedEOF (how a download cut
// short ends), fails the scan rather than passing what arrived as clean.
func TestSourceErrorFailsTheScan(t *testing.T) {
	for _, cause := range []error{io.ErrUnexpectedEOF, errors.New("connection reset by S3")} {
		src := io.MultiReader(bytes.NewReader(make([]byte, 100<<10)), iotest.ErrReader(cause))
		v, err := scan(t, clamav.New(testenv.Clamd(t)), src)
		require.ErrorIs(t, err, cause)
		assert.False(t, clamav.IsPermanent(err), "a new attempt reads the source again")
		assert.Equal(t, clamav.Verdict{}, v)
	}
}

// slowReader gives a chunk every tick forever, like an upload that stalls.
type slowReader struct{ tick time.Duration }

func (r slowReader) Read(p []byte) (int, error) {
	time.Sleep(r.tick)
	return copy(p, bytes.Repeat([]byte{'x'}, min(len(p), 4096))), nil
}

func TestCancelStopsTheScan(t *testing.T) {
	c := clamav.New(testenv.Clamd(t))

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Scan(ctx, bytes.NewReader(eicar))
	require.ErrorIs(t, err, context.Canceled)
	assert.False(t, clamav.IsPermanent(err))

	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err = c.Scan(ctx, slowReader{tick: 10 * time.Millisecond})
	require.ErrorIs(t, err, context.Canceled)
	assert.False(t, clamav.IsPermanent(err))
	assert.Less(t, time.Since(start), 5*time.Second)
}

func TestDeadlineStopsTheScan(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := clamav.New(testenv.Clamd(t)).Scan(ctx, slowReader{tick: 10 * time.Millisecond})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.False(t, clamav.IsPermanent(err))
	assert.Less(t, time.Since(start), 5*time.Second)
}

func TestNothingListeningIsTransient(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())

	for _, address := range []string{addr, "unix:" + filepath.Join(t.TempDir(), "clamd.ctl")} {
		c := clamav.New(address)
		_, err = scan(t, c, bytes.NewReader(eicar))
		require.Error(t, err, address)
		assert.False(t, clamav.IsPermanent(err), "%s: %v", address, err)
		err = c.Ping(context.Background())
		require.Error(t, err, address)
		assert.False(t, clamav.IsPermanent(err), "%s: %v", address, err)
	}
}

// An address that is some other server (here the project's SMTP sink)
// answers, but never as clamd does: retrying cannot help.
func TestAnotherServerIsPermanent(t *testing.T) {
	sink, err := smtpsink.Start("127.0.0.1:0", "")
	require.NoError(t, err)
	defer sink.Close()
	c := clamav.New(sink.Addr())
	err = c.Ping(context.Background())
	require.ErrorIs(t, err, clamav.ErrUnexpectedReply)
	assert.True(t, clamav.IsPermanent(err))
	_, err = scan(t, c, bytes.NewReader(eicar))
	require.ErrorIs(t, err, clamav.ErrUnexpectedReply)
}

func TestStreamOverStreamMaxLengthIsPermanent(t *testing.T) {
	addr, stop, err := testenv.StartClamd("1M")
	require.NoError(t, err)
	t.Cleanup(stop)
	c := clamav.New(addr)

	// Well past the limit, so that clamd closes the connection while the
	// client is still sending.
	_, err = scan(t, c, io.LimitReader(rand.NewChaCha8([32]byte{2}), 32<<20))
	require.ErrorIs(t, err, clamav.ErrStreamTooLarge)
	assert.True(t, clamav.IsPermanent(err))

	v, err := scan(t, c, io.MultiReader(bytes.NewReader(make([]byte, 512<<10)), bytes.NewReader(eicar)))
	require.NoError(t, err, "a stream under the limit is scanned")
	assert.True(t, v.Infected)
}
