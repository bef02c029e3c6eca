// Package clientgen checks that integrators can generate a Go client from
// the served OpenAPI document: it runs oapi-codegen, the version pinned by
// the tool directive in go.mod, and compiles what it writes.
//
// The generated package is never written into the source tree. It is
// compiled as a package of this module through a go build overlay, so it
// resolves github.com/oapi-codegen/runtime with this module's go.mod and
// go.sum, from the module cache, like any other dependency.
package clientgen

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	// The generated client imports the runtime; importing it here keeps
	// it, at the version the generator expects, in go.mod.
	_ "github.com/oapi-codegen/runtime"
)

// generatedDir is where, relative to the module root, the generated
// package appears to the compiler. It exists only in the overlay.
const generatedDir = "internal/clientgen/testdata/generated"

// CompileGoClient generates a Go client (oapi-codegen -generate
// types,client) from an OpenAPI document and compiles it. The error
// carries oapi-codegen's or the compiler's output. It runs the go command,
// so the working directory must be inside this module (as it is in tests).
func CompileGoClient(ctx context.Context, openapiJSON []byte) error {
	root, err := moduleRoot(ctx)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "clientgen-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	src, err := generate(ctx, root, tmp, openapiJSON)
	if err != nil {
		return err
	}
	return compile(ctx, root, tmp, src)
}

// moduleRoot is the directory of the main module's go.mod.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("clientgen: go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("clientgen: the working directory is not inside the module that pins oapi-codegen")
	}
	return filepath.Dir(gomod), nil
}

// generate runs oapi-codegen on the document and returns the Go source.
func generate(ctx context.Context, root, tmp string, openapiJSON []byte) ([]byte, error) {
	spec := filepath.Join(tmp, "openapi.json")
	if err := os.WriteFile(spec, openapiJSON, 0o600); err != nil {
		return nil, err
	}
	out := filepath.Join(tmp, "client.go")
	if msg, err := run(ctx, root, "go", "tool", "oapi-codegen",
		"-generate", "types,client", "-package", "client", "-o", out, spec); err != nil {
		return nil, fmt.Errorf("clientgen: oapi-codegen: %w\n%s", err, msg)
	}
	return os.ReadFile(out)
}

// compile builds src as the package generatedDir of the module at root.
func compile(ctx context.Context, root, tmp string, src []byte) error {
	file := filepath.Join(tmp, "client.go")
	if err := os.WriteFile(file, src, 0o600); err != nil {
		return err
	}
	overlay, err := json.Marshal(map[string]any{"Replace": map[string]string{
		filepath.Join(root, generatedDir, "client.go"): file,
	}})
	if err != nil {
		return err
	}
	overlayFile := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(overlayFile, overlay, 0o600); err != nil {
		return err
	}
	if msg, err := run(ctx, root, "go", "build", "-overlay", overlayFile, "./"+generatedDir); err != nil {
		return fmt.Errorf("clientgen: the generated client does not compile: %w\n%s%s", err, msg, quoteLines(msg, src))
	}
	return nil
}

// run runs a command in dir and returns its combined output.
func run(ctx context.Context, dir, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.WaitDelay = 10 * time.Second // if ctx ends, do not wait forever for the go command's children
	return cmd.CombinedOutput()
}

var errorPos = regexp.MustCompile(`client\.go:(\d+):`)

// quoteLines appends the generated lines the compiler complains about,
// since the file exists only for the length of the call.
func quoteLines(msg, src []byte) string {
	lines := strings.Split(string(src), "\n")
	var b strings.Builder
	seen := map[int]bool{}
	sc := bufio.NewScanner(bytes.NewReader(msg))
	for sc.Scan() && len(seen) < 10 {
		m := errorPos.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		if seen[n] || n < 1 || n > len(lines) {
			continue
		}
		seen[n] = true
		if b.Len() == 0 {
			b.WriteString("generated source:\n")
		}
		fmt.Fprintf(&b, "%6d\t%s\n", n, lines[n-1])
	}
	return b.String()
}
