package filecheck

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
)

// PDF checks work on name tokens (/JavaScript, /JS, /Launch, /Encrypt), with
// #xx escapes decoded, found anywhere in the file's bytes, and inside every
// Flate-compressed object stream (/Type /ObjStm), where PDF 1.5+ writers hide
// dictionaries from a plain byte scan. A name in an uncompressed content
// stream or string counts too: false positives quarantine, never pass.
//
// Whether PDFium can actually open the file is left to the text extraction
// (pdftext.ErrUnreadable); a file with a PDF header is sniffed as a PDF.
const (
	// maxObjectStreams and maxInflated bound the work on object streams; a
	// file beyond them is reported unscannable instead of being trusted.
	maxObjectStreams = 20_000
	maxInflated      = 256 << 20
	// dictWindow is how far around an /ObjStm name its dictionary and the
	// "stream" keyword are looked for.
	dictWindow = 4096
	maxNameLen = 127 // PDF implementation limit for names
)

type pdfScan struct {
	encrypt, javascript, launch bool
	objStms                     []int64 // offsets just after each /ObjStm name
	tooManyObjStms              bool
}

// name records a name of the file itself.
func (s *pdfScan) name(name string, end int64) {
	if name != "ObjStm" {
		s.flag(name, end)
		return
	}
	if len(s.objStms) == maxObjectStreams {
		s.tooManyObjStms = true
		return
	}
	s.objStms = append(s.objStms, end)
}

// flag records a name of the file or of an inflated object stream, whose
// offsets mean nothing in the file (object streams do not nest).
func (s *pdfScan) flag(name string, _ int64) {
	switch name {
	case "Encrypt":
		s.encrypt = true
	case "JavaScript", "JS":
		s.javascript = true
	case "Launch":
		s.launch = true
	}
}

func inspectPDF(f io.ReaderAt, size int64) (Report, error) {
	var s pdfScan
	if err := scanNames(io.NewSectionReader(f, 0, size), s.name); err != nil {
		return Report{}, fmt.Errorf("filecheck: read pdf: %w", err)
	}
	if s.encrypt {
		return unsafe(TypePDF, ReasonPDFEncrypted, "/Encrypt dictionary"), nil
	}
	if s.tooManyObjStms {
		return unsafe(TypePDF, ReasonPDFUnscannable, "too many object streams"), nil
	}
	budget := int64(maxInflated)
	for _, off := range s.objStms {
		detail, err := scanObjectStream(f, size, off, &budget, s.flag)
		if err != nil {
			return Report{}, err
		}
		if detail != "" {
			return unsafe(TypePDF, ReasonPDFUnscannable, detail), nil
		}
	}
	switch {
	case s.javascript:
		return unsafe(TypePDF, ReasonPDFJavaScript, "/JavaScript or /JS entry"), nil
	case s.launch:
		return unsafe(TypePDF, ReasonPDFLaunchAction, "/Launch action"), nil
	}
	return clean(TypePDF), nil
}

// scanObjectStream inflates the object stream whose /ObjStm name ends at off
// and feeds its names to onName. A non-empty detail means the stream could
// not be scanned; err is an I/O failure.
func scanObjectStream(f io.ReaderAt, size, off int64, budget *int64, onName func(string, int64)) (detail string, err error) {
	from := max(0, off-dictWindow)
	window := make([]byte, min(size, off+dictWindow)-from)
	if _, err := f.ReadAt(window, from); err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("filecheck: read pdf: %w", err)
	}
	at := int(off - from)
	dictStart := bytes.LastIndex(window[:at], []byte("obj"))
	streamAt := bytes.Index(window[at:], []byte("stream"))
	if dictStart < 0 || streamAt < 0 {
		// "/ObjStm" outside an object dictionary, e.g. inside a string.
		return "", nil
	}
	streamAt += at
	var filters []string
	predictor := false
	_ = scanNames(bytes.NewReader(window[dictStart:streamAt]), func(name string, _ int64) {
		switch name {
		case "Predictor":
			predictor = true
		case "FlateDecode", "Fl", "LZWDecode", "LZW", "ASCIIHexDecode", "AHx", "ASCII85Decode", "A85",
			"RunLengthDecode", "RL", "Crypt", "CCITTFaxDecode", "JBIG2Decode", "DCTDecode", "JPXDecode":
			filters = append(filters, name)
		}
	})
	switch {
	case len(filters) == 0:
		return "", nil // stored uncompressed: the byte scan has seen it
	case len(filters) > 1 || (filters[0] != "FlateDecode" && filters[0] != "Fl"):
		return fmt.Sprintf("object stream filter %v", filters), nil
	case predictor:
		return "object stream with a predictor", nil
	}

	data := from + int64(streamAt) + int64(len("stream"))
	eol := make([]byte, 2)
	n, _ := f.ReadAt(eol, data)
	switch {
	case n >= 2 && eol[0] == '\r' && eol[1] == '\n':
		data += 2
	case n >= 1 && eol[0] == '\n':
		data++
	}
	zr, err := zlib.NewReader(io.NewSectionReader(f, data, size-data))
	if err != nil {
		return "object stream: " + err.Error(), nil
	}
	defer zr.Close()
	counted := &countingReader{r: io.LimitReader(zr, *budget+1)}
	err = scanNames(counted, onName)
	*budget -= counted.n
	switch {
	case *budget < 0:
		return "object streams inflate beyond the scan limit", nil
	case err != nil:
		return "object stream: " + err.Error(), nil
	}
	return "", nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// scanNames streams r and calls onName with every PDF name token (without
// the slash, #xx escapes decoded) and the offset just after it.
func scanNames(r io.Reader, onName func(name string, end int64)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		name   []byte
		inName bool
		pos    int64
	)
	flush := func() {
		if inName && len(name) <= maxNameLen {
			onName(decodeName(name), pos)
		}
		inName = false
		name = name[:0]
	}
	for {
		c, err := br.ReadByte()
		if err != nil {
			flush()
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if isPDFDelimiter(c) || isPDFSpace(c) {
			flush()
			if c == '/' {
				inName = true
			}
		} else if inName && len(name) <= maxNameLen {
			name = append(name, c)
		}
		pos++
	}
}

func decodeName(raw []byte) string {
	if bytes.IndexByte(raw, '#') < 0 {
		return string(raw)
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		if raw[i] == '#' && i+2 < len(raw) && isHex(raw[i+1]) && isHex(raw[i+2]) {
			out = append(out, unhex(raw[i+1])<<4|unhex(raw[i+2]))
			i += 2
			continue
		}
		out = append(out, raw[i])
	}
	return string(out)
}

func isPDFSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 0
}

func isPDFDelimiter(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
