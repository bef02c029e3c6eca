// Package testenv gives tests the real backing services: a fresh, migrated
// PostgreSQL database per test binary (so per package), the Temporal dev
// server started from the locally built CLI, a versitygw S3 server and a
// clamd with the project's signatures.
// Each service starts on first use and is torn down by Main. A missing
// service fails the test with instructions; nothing is skipped silently.
package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"gorm.io/gorm"

	"ppwr/internal/config"
	"ppwr/internal/database"
	"ppwr/internal/storage"
	"ppwr/internal/temporalclient"
	"ppwr/migrations"
)

var (
	mu        sync.Mutex
	teardowns []func()

	dbOnce sync.Once
	dbURL  string
	db     *gorm.DB
	dbErr  error

	temporalOnce sync.Once
	devServer    *testsuite.DevServer
	temporalErr  error

	s3Once    sync.Once
	s3Opts    storage.Options
	s3Store   *storage.Store
	s3Process *os.Process
	s3Err     error
)

// Main runs the package's tests and then stops every service they started
// and drops their database. Use it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	mu.Lock()
	for i := len(teardowns) - 1; i >= 0; i-- {
		teardowns[i]()
	}
	mu.Unlock()
	os.Exit(code)
}

func onTeardown(fn func()) {
	mu.Lock()
	teardowns = append(teardowns, fn)
	mu.Unlock()
}

// RepoRoot is the module root (where go.mod is), found from the working
// directory of the test binary.
func RepoRoot() string {
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func randomName() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// adminURL is the server to create test databases on.
func adminURL() string {
	if v := os.Getenv("TEST_DATABASE_URL"); v != "" {
		return v
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// DB returns the package's migrated database.
func DB(t testing.TB) *gorm.DB {
	t.Helper()
	dbOnce.Do(func() { db, dbURL, dbErr = createDatabase() })
	if dbErr != nil {
		t.Fatalf("testenv: PostgreSQL: %v (run `make test`, which finds or starts a server, or set TEST_DATABASE_URL)", dbErr)
	}
	return db
}

// DatabaseURL is the connection URL of DB's database.
func DatabaseURL(t testing.TB) string {
	DB(t)
	return dbURL
}

func createDatabase() (*gorm.DB, string, error) {
	db, url, drop, err := CreateDatabase("ppwr_test_")
	if err == nil {
		onTeardown(drop)
	}
	return db, url, err
}

// CreateDatabase creates and migrates a database named prefix+random on
// the TEST_DATABASE_URL server; drop closes and removes it. Benchmarks use
// it outside tests.
func CreateDatabase(prefix string) (db *gorm.DB, url string, drop func(), err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := database.Open(ctx, adminURL())
	if err != nil {
		return nil, "", nil, err
	}
	name := prefix + randomName()
	if err := admin.Exec("CREATE DATABASE " + name).Error; err != nil {
		return nil, "", nil, err
	}
	drop = func() {
		if db != nil {
			if sqlDB, err := db.DB(); err == nil {
				_ = sqlDB.Close()
			}
		}
		admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
		if a, err := admin.DB(); err == nil {
			_ = a.Close()
		}
	}
	defer func() {
		if err != nil {
			drop()
		}
	}()
	u, err := neturl.Parse(adminURL())
	if err != nil {
		return nil, "", nil, err
	}
	u.Path = "/" + name
	if db, err = database.Open(ctx, u.String()); err != nil {
		return nil, "", nil, err
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, "", nil, err
	}
	if _, err = migrations.Apply(ctx, sqlDB); err != nil {
		return nil, "", nil, err
	}
	return db, u.String(), drop, nil
}

func binary(envVar, name string) (string, error) {
	path := os.Getenv(envVar)
	if path == "" {
		path = filepath.Join(RepoRoot(), "bin", name)
	}
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("%s not found at %s (run `make tools` or `make test`, which build it)", name, path)
	}
	return path, nil
}

// Temporal returns a client of the package's Temporal dev server, which has
// the OrganizationId, ResourceId and Outcome search attributes registered.
func Temporal(t testing.TB) client.Client {
	t.Helper()
	temporalOnce.Do(func() {
		if devServer, temporalErr = StartTemporal(); temporalErr == nil {
			onTeardown(func() { _ = devServer.Stop() })
		}
	})
	if temporalErr != nil {
		t.Fatalf("testenv: Temporal dev server: %v", temporalErr)
	}
	return devServer.Client()
}

// StartTemporal starts a Temporal dev server from the locally built CLI,
// with the OrganizationId, ResourceId and Outcome search attributes registered, on
// free ports; its Stop ends it. Benchmarks use it outside tests.
func StartTemporal() (*testsuite.DevServer, error) {
	path, err := binary("PPWR_TEMPORAL_BIN", "temporal")
	if err != nil {
		return nil, err
	}
	return testsuite.StartDevServer(context.Background(), testsuite.DevServerOptions{
		ExistingPath: path,
		ClientOptions: &client.Options{
			HostPort:  "127.0.0.1:" + FreePort(),
			Namespace: "default",
		},
		LogLevel: "error",
		SearchAttributes: temporal.NewSearchAttributes(
			temporalclient.OrganizationID.ValueSet(""), temporalclient.ResourceID.ValueSet(""), temporalclient.Outcome.ValueSet(""),
		),
		ExtraArgs: []string{"--http-port", FreePort(), "--metrics-port", FreePort()},
		Stdout:    os.Stderr,
		Stderr:    os.Stderr,
	})
}

// TemporalAddress is the frontend host:port of the dev server.
func TemporalAddress(t testing.TB) string {
	Temporal(t)
	return devServer.FrontendHostPort()
}

// Storage returns a store on the package's versitygw server, with its
// bucket created.
func Storage(t testing.TB) *storage.Store {
	t.Helper()
	s3Once.Do(func() {
		var stop func()
		if s3Opts, s3Store, s3Process, stop, s3Err = startS3(); s3Err == nil {
			onTeardown(stop)
		}
	})
	if s3Err != nil {
		t.Fatalf("testenv: S3 (versitygw): %v", s3Err)
	}
	return s3Store
}

// StartS3 starts a versitygw server on a free port over a temporary
// directory and creates its bucket; stop ends it and removes the
// directory. Benchmarks use it outside tests.
func StartS3() (opts storage.Options, store *storage.Store, stop func(), err error) {
	opts, store, _, stop, err = startS3()
	return opts, store, stop, err
}

// startS3 is StartS3 that also answers versitygw's process.
func startS3() (opts storage.Options, store *storage.Store, process *os.Process, stop func(), err error) {
	path, err := binary("PPWR_VERSITYGW_BIN", "versitygw")
	if err != nil {
		return opts, nil, nil, nil, err
	}
	dir, err := os.MkdirTemp("", "ppwr-s3-")
	if err != nil {
		return opts, nil, nil, nil, err
	}
	var cmd *exec.Cmd
	stop = func() {
		if cmd != nil && cmd.Process != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		_ = os.RemoveAll(dir)
	}
	defer func() {
		if err != nil {
			stop()
		}
	}()
	addr := "127.0.0.1:" + FreePort()
	opts = storage.Options{
		Endpoint: "http://" + addr, Region: "us-east-1", Bucket: "ppwr-test",
		AccessKeyID: "ppwr-test", SecretAccessKey: "ppwr-test-secret",
	}
	// Metadata goes to a sidecar directory rather than extended
	// attributes, so the tests do not depend on the filesystem's xattrs.
	root, meta := filepath.Join(dir, "objects"), filepath.Join(dir, "metadata")
	for _, d := range []string{root, meta} {
		if err = os.Mkdir(d, 0o700); err != nil {
			return opts, nil, nil, nil, err
		}
	}
	cmd = exec.Command(path, "--port", addr, "posix", "--sidecar", meta, root)
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY_ID="+opts.AccessKeyID, "ROOT_SECRET_ACCESS_KEY="+opts.SecretAccessKey)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err = cmd.Start(); err != nil {
		return opts, nil, nil, nil, err
	}
	store = storage.New(opts)
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err = store.EnsureBucket(ctx)
		cancel()
		if err == nil {
			return opts, store, cmd.Process, stop, nil
		}
		if time.Now().After(deadline) {
			err = fmt.Errorf("versitygw did not become ready: %v; output: %s", err, out.String())
			return opts, nil, nil, nil, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Config is a configuration pointing at every service the test touched
// (call DB, Temporal, Storage and Clamd first for the ones it needs).
func Config(t testing.TB) config.Config {
	t.Helper()
	cfg, err := config.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	cfg.PublicBaseURL = "http://ppwr.test"
	if dbURL != "" {
		cfg.DatabaseURL = dbURL
	}
	if devServer != nil {
		// The dev server speaks plain gRPC, whatever the shell sets.
		cfg.TemporalAddress, cfg.TemporalTLS, cfg.TemporalAPIKey = devServer.FrontendHostPort(), nil, ""
	}
	if s3Store != nil {
		cfg.S3Endpoint, cfg.S3Bucket, cfg.S3Region = s3Opts.Endpoint, s3Opts.Bucket, s3Opts.Region
		cfg.AWSAccessKeyID, cfg.AWSSecretAccessKey = s3Opts.AccessKeyID, s3Opts.SecretAccessKey
	}
	if clamdAddr != "" {
		cfg.ClamdAddress = clamdAddr
	}
	return cfg
}

// FreePort asks the kernel for a port that is free right now.
func FreePort() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}
