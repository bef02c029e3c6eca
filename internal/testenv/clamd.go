package testenv

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"ppwr/internal/clamav"
)

// ClamdStreamMaxLength is the largest stream the package's clamd accepts:
// room for the 100 MB uploads the spec allows.
const ClamdStreamMaxLength = "200M"

var (
	clamdOnce sync.Once
	clamdAddr string
	clamdErr  error
	// clamdProcesses are the started clamds by address, for FreezeClamd.
	clamdProcesses = map[string]*os.Process{}
)

// Clamd returns the TCP address (host:port) of the package's clamd, which
// runs with the project's own signatures (scripts/clamav).
func Clamd(t testing.TB) string {
	t.Helper()
	clamdOnce.Do(func() {
		var stop func()
		if clamdAddr, stop, clamdErr = StartClamd(""); clamdErr == nil {
			onTeardown(stop)
		}
	})
	if clamdErr != nil {
		t.Fatalf("testenv: clamd: %v", clamdErr)
	}
	return clamdAddr
}

// StartClamd starts a clamd on a free port with the signatures of
// scripts/clamav, refusing streams longer than streamMaxLength (clamd's
// size syntax: "200M", "64K"; empty: ClamdStreamMaxLength), and waits until
// it answers PING; stop ends it and removes its directory. The binary is
// PPWR_CLAMD_BIN, by default /usr/sbin/clamd. Benchmarks use it outside
// tests.
func StartClamd(streamMaxLength string) (address string, stop func(), err error) {
	if streamMaxLength == "" {
		streamMaxLength = ClamdStreamMaxLength
	}
	path := os.Getenv("PPWR_CLAMD_BIN")
	if path == "" {
		path = "/usr/sbin/clamd"
	}
	if _, err := os.Stat(path); err != nil {
		return "", nil, fmt.Errorf("clamd not found at %s (apt-get install clamav-daemon, or run `make test`, which installs it; PPWR_CLAMD_BIN overrides the path)", path)
	}
	dir, err := os.MkdirTemp("", "ppwr-clamd-")
	if err != nil {
		return "", nil, err
	}
	var cmd *exec.Cmd
	exited := make(chan struct{})
	stop = func() {
		if cmd != nil && cmd.Process != nil {
			_ = cmd.Process.Kill()
			<-exited
		}
		_ = os.RemoveAll(dir)
	}
	defer func() {
		if err != nil {
			stop()
		}
	}()

	// A copy, so that a signature edited while tests run cannot change
	// what this clamd knows halfway through.
	db := filepath.Join(dir, "db")
	if err = os.CopyFS(db, os.DirFS(filepath.Join(RepoRoot(), "scripts", "clamav"))); err != nil {
		return "", nil, fmt.Errorf("copying the signatures: %w", err)
	}
	tmp := filepath.Join(dir, "tmp")
	if err = os.Mkdir(tmp, 0o700); err != nil {
		return "", nil, err
	}
	port := FreePort()
	address = "127.0.0.1:" + port
	logPath := filepath.Join(dir, "clamd.log")
	// No User line: clamd stays whoever runs the tests. No LocalSocket:
	// TCP only, so parallel test binaries never share a path.
	conf := strings.Join([]string{
		"Foreground yes",
		"TCPAddr 127.0.0.1",
		"TCPSocket " + port,
		"DatabaseDirectory " + db,
		"TemporaryDirectory " + tmp,
		"LogFile " + logPath,
		"StreamMaxLength " + streamMaxLength,
		"MaxFileSize " + streamMaxLength,
		"MaxScanSize " + streamMaxLength,
	}, "\n") + "\n"
	confPath := filepath.Join(dir, "clamd.conf")
	if err = os.WriteFile(confPath, []byte(conf), 0o600); err != nil {
		return "", nil, err
	}
	// In the foreground clamd repeats its log on stdout, so only stderr
	// (errors from before the log is open) is kept, in the log itself.
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return "", nil, err
	}
	defer logFile.Close()
	cmd = exec.Command(path, "--config-file="+confPath)
	cmd.Stderr = logFile
	if err = cmd.Start(); err != nil {
		return "", nil, err
	}
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()

	client := clamav.New(address)
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err = client.Ping(ctx)
		cancel()
		if err == nil {
			mu.Lock()
			clamdProcesses[address] = cmd.Process
			mu.Unlock()
			return address, stop, nil
		}
		select {
		case <-exited:
			return "", nil, fmt.Errorf("clamd exited during startup (%s); log:\n%s", cmd.ProcessState, logTail(logPath))
		default:
		}
		if time.Now().After(deadline) {
			return "", nil, fmt.Errorf("clamd did not answer PING within 60s: %v; log:\n%s", err, logTail(logPath))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// logTail is the end of a log file, where a failed start says why.
func logTail(path string) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-25):], "\n")
}
