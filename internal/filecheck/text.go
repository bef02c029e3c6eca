package filecheck

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// Text policy: a file is text when it contains no NUL and no C0 control byte
// other than tab, line feed, form feed and carriage return, and no DEL. It is
// UTF-8 text (Charset "utf-8", an initial BOM allowed) when the bytes are
// valid UTF-8, otherwise legacy 8-bit text (Charset ""): Windows-1250 and
// ISO-8859-2 are both common for Polish and cannot be told apart reliably
// from the bytes, so the consumer picks the code page. UTF-16 text (full of
// NULs) is refused.
//
// CSV: the first csvSample bytes (cut at the last line break) parse with one
// of the delimiters , ; or tab into at least two records that all have the
// same number, at least two, of fields.
const (
	textChunk = 256 << 10
	csvSample = 64 << 10
)

func inspectText(f io.ReaderAt, size int64) (Report, error) {
	validUTF8, bad, err := scanText(io.NewSectionReader(f, 0, size))
	if err != nil {
		return Report{}, fmt.Errorf("filecheck: read text: %w", err)
	}
	if bad >= 0 {
		return refused(ReasonTypeNotAllowed, fmt.Sprintf("binary content (byte 0x%02x)", bad)), nil
	}

	sample := make([]byte, min(size, csvSample))
	if _, err := f.ReadAt(sample, 0); err != nil && !errors.Is(err, io.EOF) {
		return Report{}, fmt.Errorf("filecheck: read text: %w", err)
	}
	if size > int64(len(sample)) {
		if cut := bytes.LastIndexByte(sample, '\n'); cut >= 0 {
			sample = sample[:cut+1]
		}
	}
	r := Report{Outcome: Clean, ContentType: TypeText}
	if validUTF8 {
		r.Charset = "utf-8"
	}
	if looksLikeCSV(bytes.TrimPrefix(sample, []byte("\xef\xbb\xbf"))) {
		r.ContentType = TypeCSV
	}
	return r, nil
}

// scanText streams r once; bad is the first disallowed byte, or -1.
func scanText(r io.Reader) (validUTF8 bool, bad int, err error) {
	validUTF8 = true
	buf := make([]byte, textChunk+utf8.UTFMax)
	carry := 0 // bytes of an incomplete rune kept from the previous chunk
	for {
		n, err := io.ReadFull(r, buf[carry:carry+textChunk])
		chunk := buf[:carry+n]
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !eof {
			return false, -1, err
		}
		for _, c := range chunk[carry:] {
			if (c < 0x20 && c != '\t' && c != '\n' && c != '\f' && c != '\r') || c == 0x7f {
				return false, int(c), nil
			}
		}
		complete := len(chunk)
		if !eof {
			complete = incompleteRuneStart(chunk)
		}
		if validUTF8 && !utf8.Valid(chunk[:complete]) {
			validUTF8 = false
		}
		if eof {
			return validUTF8, -1, nil
		}
		carry = copy(buf, chunk[complete:])
	}
}

// incompleteRuneStart returns where a rune cut off by the end of b starts,
// or len(b) when b ends on a rune boundary.
func incompleteRuneStart(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if utf8.FullRune(b[i:]) {
				return len(b)
			}
			return i
		}
	}
	return len(b)
}

func looksLikeCSV(sample []byte) bool {
	for _, delim := range []rune{',', ';', '\t'} {
		cr := csv.NewReader(bytes.NewReader(sample))
		cr.Comma = delim
		records, err := cr.ReadAll()
		if err == nil && len(records) >= 2 && len(records[0]) >= 2 {
			return true
		}
	}
	return false
}
