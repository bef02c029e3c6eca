// Package filecheck decides whether an uploaded file may be processed: it
// sniffs the real type from the content (never the name) against an
// allow-list and runs structural safety checks on PDFs and OOXML archives.
//
// It reads through an io.ReaderAt so a 100 MB upload on disk is never loaded
// whole; every check reads a bounded window or streams.
package filecheck

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Outcome is the verdict of Inspect.
type Outcome string

const (
	// Clean files may be processed further.
	Clean Outcome = "clean"
	// Unsafe files are of an allowed type but carry active or hostile
	// content; they belong in quarantine.
	Unsafe Outcome = "unsafe"
	// Refused files are of a type outside the allow-list or cannot be read.
	Refused Outcome = "refused"
)

// Reasons: stable snake_case codes explaining a non-clean outcome; callers
// map them to localised messages.
const (
	// Refused.
	ReasonTypeNotAllowed = "type_not_allowed"
	ReasonUnreadable     = "unreadable"
	// Unsafe.
	ReasonPDFEncrypted    = "pdf_encrypted"
	ReasonPDFJavaScript   = "pdf_javascript"
	ReasonPDFLaunchAction = "pdf_launch_action"
	ReasonPDFUnscannable  = "pdf_unscannable" // object streams that cannot be checked
	ReasonImageTooLarge   = "image_too_large" // decompression bomb by dimensions
	ReasonZipBomb         = "zip_bomb"
	ReasonOOXMLMacros     = "ooxml_macros" // a VBA project inside an XLSX/DOCX
)

// Allowed content types.
const (
	TypePDF  = "application/pdf"
	TypePNG  = "image/png"
	TypeJPEG = "image/jpeg"
	TypeTIFF = "image/tiff"
	TypeXLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	TypeDOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
	TypeCSV  = "text/csv"
	TypeText = "text/plain"
)

// AllowedTypes are the content types a file may have, in their order.
var AllowedTypes = []string{TypePDF, TypePNG, TypeJPEG, TypeTIFF, TypeXLSX, TypeDOCX, TypeCSV, TypeText}

// Report is the result of Inspect. ContentType is set whenever the type was
// recognised as one of the allowed types, also for Unsafe files; it is empty
// for Refused ones. Reason and Detail are empty exactly when Outcome is
// Clean.
type Report struct {
	Outcome     Outcome
	ContentType string
	// Charset is "utf-8" for UTF-8 text and empty for legacy 8-bit text,
	// whose code page cannot be told from the bytes; empty for binary types.
	Charset string
	Reason  string // a Reason… constant
	Detail  string // English, for the message's argument, logs and operators
}

// Unsafe reports whether the file belongs in quarantine.
func (r Report) Unsafe() bool { return r.Outcome == Unsafe }

// Refused reports whether the file is of a type not allowed or unreadable.
func (r Report) Refused() bool { return r.Outcome == Refused }

func clean(contentType string) Report {
	return Report{Outcome: Clean, ContentType: contentType}
}

func unsafe(contentType, reason, detail string) Report {
	return Report{Outcome: Unsafe, ContentType: contentType, Reason: reason, Detail: detail}
}

func refused(reason, detail string) Report {
	return Report{Outcome: Refused, Reason: reason, Detail: detail}
}

// headSize is how much of the file the magic-number sniffing looks at; a PDF
// header may legally follow up to 1 KiB of junk.
const headSize = 1024

// Inspect sniffs and checks the size bytes readable from f. A returned error
// means reading failed (worth a retry); every verdict about the content
// itself, unreadable content included, is in the Report.
func Inspect(f io.ReaderAt, size int64) (Report, error) {
	if size <= 0 {
		return refused(ReasonUnreadable, "empty file"), nil
	}
	head := make([]byte, min(size, headSize))
	if _, err := f.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
		return Report{}, fmt.Errorf("filecheck: read header: %w", err)
	}

	// Refused magic numbers come first: a polyglot such as an executable
	// carrying a PDF header in its first kilobyte is an executable.
	for _, m := range binaryMagics {
		if bytes.HasPrefix(head, m.magic) && (!m.binary || bytes.IndexByte(head, 0) >= 0) {
			return refused(ReasonTypeNotAllowed, m.name), nil
		}
	}
	switch {
	case isPDFHeader(head):
		return inspectPDF(f, size)
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return inspectImage(f, size, TypePNG)
	case bytes.HasPrefix(head, []byte("\xff\xd8\xff")):
		return inspectImage(f, size, TypeJPEG)
	case bytes.HasPrefix(head, []byte("II*\x00")), bytes.HasPrefix(head, []byte("MM\x00*")):
		// The standard library has no TIFF decoder; the magic number is
		// all that is checked.
		return clean(TypeTIFF), nil
	case bytes.HasPrefix(head, []byte("PK\x03\x04")), bytes.HasPrefix(head, []byte("PK\x05\x06")):
		return inspectZip(f, size)
	}
	return inspectText(f, size)
}

// isPDFHeader accepts "%PDF-1." or "%PDF-2." anywhere in the head, as
// readers do (some writers put junk first).
func isPDFHeader(head []byte) bool {
	return bytes.Contains(head, []byte("%PDF-1.")) || bytes.Contains(head, []byte("%PDF-2."))
}

// binaryMagics are refused outright; anything else outside the allow-list
// ends up refused by the text check, so this list mainly gives a useful
// detail and stops polyglots early.
var binaryMagics = []struct {
	magic  []byte
	name   string
	binary bool // the magic is printable, so it only counts when NULs follow
}{
	{[]byte("\x7fELF"), "ELF executable", false},
	{[]byte("MZ"), "Windows executable", true},
	{[]byte("\xca\xfe\xba\xbe"), "Mach-O or Java class", false},
	{[]byte("\xcf\xfa\xed\xfe"), "Mach-O executable", false},
	{[]byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"), "legacy Office (OLE) document", false},
	{[]byte("Rar!"), "RAR archive", true},
	{[]byte("7z\xbc\xaf\x27\x1c"), "7-Zip archive", false},
	{[]byte("\x1f\x8b"), "gzip archive", false},
	{[]byte("GIF8"), "GIF image", true},
}
