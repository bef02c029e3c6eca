// Package clientgen checks that integrators can generate a Go client from
// the served OpenAPI document: it runs oapi-codegen, the version pinned by
// the tool directive in go.mod, and compiles what it writes, alone or with
// a program that calls a server through it.
//
// Neither the generated package nor the program is ever written into the
// source tree. They are compiled as packages of this module through a go
// build overlay, so they resolve github.com/oapi-codegen/runtime with this
// module's go.mod and go.sum, from the module cache, like any other
// dependency.
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
	"path"
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
// package appears to the compiler, and programDir the main package
// RunGoClient builds against it. Both exist only in the overlay.
const (
	generatedDir = "internal/clientgen/testdata/generated"
	programDir   = generatedDir + "/program"
)

// ClientImportPath is the import path of the generated client, for the
// programs RunGoClient runs.
const ClientImportPath = "ppwr/" + generatedDir

// CompileGoClient generates a Go client (oapi-codegen -generate
// types,client) from an OpenAPI document and compiles it. The error
// carries oapi-codegen's or the compiler's output. It runs the go command,
// so the working directory must be inside this module (as it is in tests).
func CompileGoClient(ctx context.Context, openapiJSON []byte) error {
	return withClient(ctx, openapiJSON, func(root, tmp string, client []byte) error {
		return compile(ctx, root, tmp, map[string][]byte{generatedDir + "/client.go": client}, "./"+generatedDir)
	})
}

// RunGoClient generates the client as CompileGoClient does, builds
// program, the source of a main package that imports the client from
// ClientImportPath, in the same overlay, and runs it with args. It
// answers what the program wrote to stdout; the error carries the
// compiler's output, or the program's exit status and its stderr, so a
// program reports by what it prints and fails by exiting non-zero.
func RunGoClient(ctx context.Context, openapiJSON, program []byte, args ...string) ([]byte, error) {
	var out []byte
	err := withClient(ctx, openapiJSON, func(root, tmp string, client []byte) error {
		binary := filepath.Join(tmp, "program")
		files := map[string][]byte{generatedDir + "/client.go": client, programDir + "/main.go": program}
		if err := compile(ctx, root, tmp, files, "-o", binary, "./"+programDir); err != nil {
			return err
		}
		cmd := exec.CommandContext(ctx, binary, args...)
		cmd.Dir = tmp
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		var err error
		if out, err = cmd.Output(); err != nil {
			return fmt.Errorf("clientgen: the program failed: %w\n%s", err, stderr.Bytes())
		}
		return nil
	})
	return out, err
}

// withClient generates the client in a temporary directory and hands its
// source to use, with the module root and the directory.
func withClient(ctx context.Context, openapiJSON []byte, use func(root, tmp string, client []byte) error) error {
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
	return use(root, tmp, src)
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

// compile runs go build with args on the module at root, with files,
// named by their paths relative to the root, laid over its source tree.
func compile(ctx context.Context, root, tmp string, files map[string][]byte, args ...string) error {
	replace := map[string]string{}
	for name, src := range files {
		file := filepath.Join(tmp, "overlay", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(file, src, 0o600); err != nil {
			return err
		}
		replace[filepath.Join(root, filepath.FromSlash(name))] = file
	}
	overlay, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return err
	}
	overlayFile := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(overlayFile, overlay, 0o600); err != nil {
		return err
	}
	if msg, err := run(ctx, root, "go", append([]string{"build", "-overlay", overlayFile}, args...)...); err != nil {
		return fmt.Errorf("clientgen: the generated code does not compile: %w\n%s%s", err, msg, quoteLines(msg, files))
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

var errorPos = regexp.MustCompile(`([^\s:]+\.go):(\d+):`)

// quoteLines appends the lines of files the compiler complains about,
// since the files exist only for the length of the call. The compiler
// names a file by a path of its own; the files' base names tell them
// apart.
func quoteLines(msg []byte, files map[string][]byte) string {
	byBase := map[string][]string{}
	for name, src := range files {
		byBase[path.Base(name)] = strings.Split(string(src), "\n")
	}
	var b strings.Builder
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(msg))
	for sc.Scan() && len(seen) < 10 {
		m := errorPos.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		base := filepath.Base(m[1])
		lines := byBase[base]
		n, _ := strconv.Atoi(m[2])
		if seen[base+":"+m[2]] || n < 1 || n > len(lines) {
			continue
		}
		seen[base+":"+m[2]] = true
		if b.Len() == 0 {
			b.WriteString("generated source:\n")
		}
		fmt.Fprintf(&b, "%s%6d\t%s\n", base, n, lines[n-1])
	}
	return b.String()
}
