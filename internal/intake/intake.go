// Package intake reads files that arrive from outside (an upload, an
// e-mail attachment): the name worth keeping, and the bytes counted,
// hashed and cut off at a limit while they stream to the object store.
package intake

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"path"
	"strings"
	"unicode/utf8"
)

// NameMax bounds a kept file name (it may be part of an object key).
const NameMax = 200

// CleanName keeps the base name a sender gave, bounded; "" when nothing
// usable is left.
func CleanName(sent string) string {
	name := path.Base(strings.ReplaceAll(sent, `\`, "/"))
	if name == "." || name == "/" || name == ".." || !utf8.ValidString(name) {
		return ""
	}
	if r := []rune(name); len(r) > NameMax {
		name = string(r[len(r)-NameMax:])
	}
	return name
}

// ErrTooLarge is what a Measured reader fails with past its limit.
var ErrTooLarge = errors.New("intake: file over the limit")

// Measured counts and hashes what passes through and fails after max
// bytes, so that an oversized file is cut short instead of stored.
type Measured struct {
	r    io.Reader
	max  int64
	n    int64
	over bool
	hash hash.Hash
}

// Measure reads r through a Measured reader limited to max bytes.
func Measure(r io.Reader, max int64) *Measured {
	return &Measured{r: r, max: max, hash: sha256.New()}
}

func (m *Measured) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	m.n += int64(n)
	if m.n > m.max {
		m.over = true
		return n, ErrTooLarge
	}
	m.hash.Write(p[:n])
	return n, err
}

// Size is how many bytes were read.
func (m *Measured) Size() int64 { return m.n }

// Over reports whether the limit was passed.
func (m *Measured) Over() bool { return m.over }

// SHA256 is the hex digest of what was read.
func (m *Measured) SHA256() string { return hex.EncodeToString(m.hash.Sum(nil)) }
