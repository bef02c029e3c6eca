package testenv

import (
	"bytes"
	"context"
	"fmt"
	"net"
	neturl "net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gorm.io/gorm"

	"ppwr/internal/database"
	"ppwr/internal/storage"
)

// The tests of a backing service that stops answering freeze the real
// process (SIGSTOP): its sockets stay open and its kernel still accepts
// connections, but nothing answers, as with a hung server or a dropped
// route. A frozen service is thawed at the test's end whatever happens.

// freeze stops p and answers the function that resumes it.
func freeze(t testing.TB, p *os.Process) (thaw func()) {
	t.Helper()
	if err := p.Signal(syscall.SIGSTOP); err != nil {
		t.Fatalf("testenv: freeze %d: %v", p.Pid, err)
	}
	var once sync.Once
	thaw = func() { once.Do(func() { _ = p.Signal(syscall.SIGCONT) }) }
	t.Cleanup(thaw)
	return thaw
}

// FreezeS3 freezes the package's versitygw (start it with Storage first).
func FreezeS3(t testing.TB) (thaw func()) {
	t.Helper()
	Storage(t)
	return freeze(t, s3Process)
}

// FreezeClamd freezes the clamd StartClamd started on address.
func FreezeClamd(t testing.TB, address string) (thaw func()) {
	t.Helper()
	mu.Lock()
	p := clamdProcesses[address]
	mu.Unlock()
	if p == nil {
		t.Fatalf("testenv: no clamd started on %s", address)
	}
	return freeze(t, p)
}

// FreezeTemporal freezes the package's Temporal dev server (started
// with Temporal first): the API's readiness probe, the relay's starts and
// the worker's polls all wait on it.
func FreezeTemporal(t testing.TB) (thaw func()) {
	t.Helper()
	Temporal(t)
	p, err := devServerProcess(devServer.FrontendHostPort())
	if err != nil {
		t.Fatalf("testenv: freeze Temporal: %v", err)
	}
	return freeze(t, p)
}

// devServerProcess finds the dev server listening on hostPort among this
// process's children by its command line ("start-dev ... --port PORT"):
// the SDK's DevServer keeps its process to itself.
func devServerProcess(hostPort string) (*os.Process, error) {
	_, port, err := net.SplitHostPort(hostPort)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || parentOf(pid) != os.Getpid() {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(raw), "\x00")
		i := slices.Index(args, "--port")
		if slices.Contains(args, "start-dev") && i >= 0 && i+1 < len(args) && args[i+1] == port {
			return os.FindProcess(pid)
		}
	}
	return nil, fmt.Errorf("no child process serves the dev server on port %s", port)
}

// parentOf is pid's parent process id, or 0 when it cannot be read: the
// fourth field of /proc/PID/stat, after the command in parentheses (which
// may hold spaces).
func parentOf(pid int) int {
	raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	if len(fields) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(fields[1])
	return ppid
}

// BoundedStorage is a store on the package's versitygw whose waits are
// bounded by limit.
func BoundedStorage(t testing.TB, limit time.Duration) *storage.Store {
	t.Helper()
	Storage(t)
	opts := s3Opts
	opts.Timeout = limit
	return storage.New(opts)
}

// PausableDB is the package's database reached through a proxy that
// pause stops forwarding (both ways, new connections included) until
// resume: PostgreSQL seems frozen to this pool only, while the server,
// which other tests share, runs on.
func PausableDB(t testing.TB) (db *gorm.DB, pause, resume func()) {
	t.Helper()
	u, err := neturl.Parse(DatabaseURL(t))
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &gate{open: make(chan struct{})}
	close(g.open)
	go proxy(l, u.Host, g)
	t.Cleanup(func() { g.resume(); _ = l.Close() })
	u.Host = l.Addr().String()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if db, err = database.Open(ctx, u.String()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if sqlDB, err := db.DB(); err == nil {
			_ = sqlDB.Close()
		}
	})
	return db, g.pause, g.resume
}

// gate holds the proxy's bytes while it is closed.
type gate struct {
	mu   sync.Mutex
	open chan struct{}
}

func (g *gate) pause() {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.open:
		g.open = make(chan struct{})
	default:
	}
}

func (g *gate) resume() {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.open:
	default:
		close(g.open)
	}
}

func (g *gate) wait() {
	g.mu.Lock()
	open := g.open
	g.mu.Unlock()
	<-open
}

func proxy(l net.Listener, upstream string, g *gate) {
	for {
		client, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			g.wait()
			server, err := net.Dial("tcp", upstream)
			if err != nil {
				_ = client.Close()
				return
			}
			go pipe(server, client, g)
			pipe(client, server, g)
		}()
	}
}

// pipe copies src to dst, holding each chunk while the gate is closed.
func pipe(dst, src net.Conn, g *gate) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			g.wait()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
