package testenv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The viewport of every tab Browser opens, so that screenshots have a
// known size and layouts do not depend on the machine.
const (
	ViewportWidth  = 1280
	ViewportHeight = 800
)

// BrowserTimeout bounds the chromedp actions of one test: a wait for an
// element that never appears fails the test instead of hanging it until
// go test's own timeout.
const BrowserTimeout = 2 * time.Minute

var (
	browserOnce sync.Once
	browserCtx  context.Context
	browserErr  error

	axeOnce   sync.Once
	axeSource string
	axeErr    error
)

// Browser opens a tab of the package's headless Chromium and answers the
// context to run chromedp actions in. The tab lives in a browser context
// of its own, so it sees no cookie or storage of another test, has a
// ViewportWidth×ViewportHeight viewport, and is closed at the test's end.
// The Chromium binary is PPWR_CHROMIUM_BIN, by default /usr/bin/chromium;
// it starts once per test binary and is stopped by Main.
func Browser(t testing.TB) context.Context {
	t.Helper()
	browserOnce.Do(func() {
		var stop func()
		if browserCtx, stop, browserErr = startBrowser(); browserErr == nil {
			onTeardown(stop)
		}
	})
	if browserErr != nil {
		t.Fatalf("testenv: Chromium: %v", browserErr)
	}
	tab, closeTab := chromedp.NewContext(browserCtx, chromedp.WithNewBrowserContext())
	t.Cleanup(closeTab)
	// The first Run opens the tab and ties it to the context it is given:
	// that must be the tab's own, or the deadline below would close it.
	if err := chromedp.Do(tab, chromedp.EmulateViewport(ViewportWidth, ViewportHeight)); err != nil {
		t.Fatalf("testenv: opening a Chromium tab: %v", err)
	}
	ctx, cancel := context.WithTimeout(tab, BrowserTimeout)
	t.Cleanup(cancel)
	return ctx
}

// startBrowser starts Chromium and answers the context of its first tab,
// from which Browser opens the others; stop ends the process and removes
// its temporary profile.
func startBrowser() (ctx context.Context, stop func(), err error) {
	path := os.Getenv("PPWR_CHROMIUM_BIN")
	if path == "" {
		path = "/usr/bin/chromium"
	}
	if _, err := os.Stat(path); err != nil {
		return nil, nil, fmt.Errorf("chromium not found at %s (apt-get install chromium, or run `make test`, which installs it; PPWR_CHROMIUM_BIN overrides the path)", path)
	}
	// chromedp gives the process a temporary profile, removed when it
	// stops, and --no-sandbox when it runs as root, where Chromium's
	// sandbox refuses to start.
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.WindowSize(ViewportWidth, ViewportHeight),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelBrowser := chromedp.NewContext(allocCtx)
	stop = func() {
		cancelBrowser()
		cancelAlloc()
	}
	if err := chromedp.Do(ctx); err != nil {
		stop()
		return nil, nil, fmt.Errorf("starting %s: %w", path, err)
	}
	return ctx, stop, nil
}

// Screenshot saves a PNG of the tab's viewport (ViewportWidth ×
// ViewportHeight pixels) at path, creating its directory.
func Screenshot(t testing.TB, ctx context.Context, path string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("testenv: screenshot: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// AxeViolation is one rule of axe-core that the page breaks, with the
// elements that break it.
type AxeViolation struct {
	ID      string    `json:"id"`
	Impact  string    `json:"impact"` // minor, moderate, serious or critical
	Help    string    `json:"help"`
	HelpURL string    `json:"helpUrl"`
	Nodes   []AxeNode `json:"nodes"`
}

// AxeNode is an element that breaks a rule.
type AxeNode struct {
	Target         string `json:"target"` // CSS selector
	HTML           string `json:"html"`
	FailureSummary string `json:"failureSummary"`
}

// Serious reports whether the violation blocks or seriously hinders some
// users: the impacts a page must not have.
func (v AxeViolation) Serious() bool { return v.Impact == "serious" || v.Impact == "critical" }

func (v AxeViolation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %s\n  %s\n", v.ID, v.Impact, v.Help, v.HelpURL)
	for _, n := range v.Nodes {
		fmt.Fprintf(&b, "  - %s  %s\n    %s\n", n.Target, n.HTML, strings.ReplaceAll(n.FailureSummary, "\n", "\n    "))
	}
	return b.String()
}

// axeRun runs every rule of axe-core on the document and answers the
// violations in AxeViolation's shape. A selector inside a shadow root or
// frame is a list; it is flattened into one string.
const axeRun = `axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map(v => ({
	id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
	nodes: v.nodes.map(n => ({target: n.target.flat().join(' '), html: n.html, failureSummary: n.failureSummary || ''})),
})))`

// Axe checks the page open in ctx's tab with axe-core and answers every
// violation, whatever its impact. axe.min.js is read from PPWR_AXE_JS, by
// default bin/npm/node_modules/axe-core/axe.min.js, where `make test`
// installs the version scripts/npm/package-lock.json pins.
func Axe(t testing.TB, ctx context.Context) []AxeViolation {
	t.Helper()
	axeOnce.Do(func() { axeSource, axeErr = readAxe() })
	if axeErr != nil {
		t.Fatalf("testenv: axe-core: %v", axeErr)
	}
	// Evaluated through the DevTools protocol, the script is not subject
	// to the page's Content-Security-Policy.
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](axeSource)); err != nil {
		t.Fatalf("testenv: loading axe-core into the page: %v", err)
	}
	violations, err := chromedp.Run(ctx, chromedp.Evaluate[[]AxeViolation](axeRun, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("testenv: running axe-core: %v", err)
	}
	return violations
}

func readAxe() (string, error) {
	path := os.Getenv("PPWR_AXE_JS")
	if path == "" {
		path = filepath.Join(RepoRoot(), "bin", "npm", "node_modules", "axe-core", "axe.min.js")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("axe.min.js not found at %s (run `make test`, which installs axe-core with npm at the version scripts/npm/package-lock.json pins; PPWR_AXE_JS overrides the path): %w", path, err)
	}
	return string(raw), nil
}

// AssertAccessible fails the test when axe-core finds a serious or
// critical violation on the page open in ctx's tab, listing each with the
// elements concerned and how to fix them.
func AssertAccessible(t testing.TB, ctx context.Context) {
	t.Helper()
	var serious []string
	for _, v := range Axe(t, ctx) {
		if v.Serious() {
			serious = append(serious, v.String())
		}
	}
	if len(serious) > 0 {
		url, _ := chromedp.Run(ctx, chromedp.Location())
		t.Errorf("axe-core: %d serious or critical accessibility violations on %s:\n%s", len(serious), url, strings.Join(serious, ""))
	}
}
