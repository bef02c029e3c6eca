package filecheck

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Zip bomb limits, judged from the central directory's declared sizes without
// decompressing anything. A real XLSX/DOCX has dozens to a few thousand
// entries and compresses XML about 10:1 to 30:1; the ratio limit applies only
// to entries above ratioMinSize because tiny entries compress erratically.
// Declared sizes can lie: whoever decompresses later (the XLSX parser) must
// still cap what it reads, but an honest bomb is stopped here.
const (
	maxZipEntries    = 10_000
	maxZipTotal      = 1 << 30 // uncompressed bytes over all entries
	maxZipRatio      = 100
	ratioMinSize     = 1 << 20
	eocdSize         = 22
	maxEOCDSearch    = eocdSize + 65535 // the archive comment is at most 64 KiB
	zip64LocatorSize = 20
)

func inspectZip(f io.ReaderAt, size int64) (Report, error) {
	entries, err := zipEntryCount(f, size)
	if err != nil {
		return Report{}, err
	}
	if entries < 0 {
		return refused(ReasonUnreadable, "zip without end of central directory"), nil
	}
	// Checked before zip.NewReader, which allocates per entry.
	if entries > maxZipEntries {
		return unsafe("", ReasonZipBomb, fmt.Sprintf("%d entries", entries)), nil
	}
	zr, err := zip.NewReader(f, size)
	if err != nil {
		return refused(ReasonUnreadable, "zip: "+err.Error()), nil
	}

	var contentType string
	var hasTypes, macros bool
	for _, e := range zr.File {
		switch name := strings.ToLower(e.Name); {
		case name == "[content_types].xml":
			hasTypes = true
		case name == "xl/workbook.xml":
			contentType = TypeXLSX
		case name == "word/document.xml":
			contentType = TypeDOCX
		case strings.HasSuffix(name, "vbaproject.bin"):
			macros = true
		}
	}
	if !hasTypes || contentType == "" {
		return refused(ReasonTypeNotAllowed, "zip archive that is not an XLSX or DOCX document"), nil
	}

	var total uint64
	for _, e := range zr.File {
		if e.Method != zip.Store && e.Method != zip.Deflate {
			// Deflate64, bzip2 and the like: no OOXML writer uses them and
			// our parsers cannot read them.
			return refused(ReasonUnreadable, fmt.Sprintf("%s: compression method %d", e.Name, e.Method)), nil
		}
		total += e.UncompressedSize64
		if total > maxZipTotal {
			return unsafe(contentType, ReasonZipBomb, fmt.Sprintf("over %d bytes uncompressed", uint64(maxZipTotal))), nil
		}
		if e.UncompressedSize64 > ratioMinSize && e.UncompressedSize64 > maxZipRatio*max(e.CompressedSize64, 1) {
			return unsafe(contentType, ReasonZipBomb, fmt.Sprintf("%s expands %d to %d bytes", e.Name, e.CompressedSize64, e.UncompressedSize64)), nil
		}
	}
	if macros {
		return unsafe(contentType, ReasonOOXMLMacros, "vbaProject.bin"), nil
	}
	return clean(contentType), nil
}

// zipEntryCount reads the entry count from the end of central directory
// record (zip64 aware), or returns -1 when there is none.
func zipEntryCount(f io.ReaderAt, size int64) (int64, error) {
	tail := make([]byte, min(size, maxEOCDSearch))
	tailStart := size - int64(len(tail))
	if _, err := f.ReadAt(tail, tailStart); err != nil && !errors.Is(err, io.EOF) {
		return 0, fmt.Errorf("filecheck: read zip: %w", err)
	}
	at := bytes.LastIndex(tail, []byte("PK\x05\x06"))
	if at < 0 || len(tail)-at < eocdSize {
		return -1, nil
	}
	count := int64(binary.LittleEndian.Uint16(tail[at+10:]))
	if count != 0xFFFF {
		return count, nil
	}
	// Zip64: the locator right before the record points at the zip64 record.
	locAt := at - zip64LocatorSize
	if locAt < 0 || !bytes.Equal(tail[locAt:locAt+4], []byte("PK\x06\x07")) {
		return count, nil
	}
	recordOff := int64(binary.LittleEndian.Uint64(tail[locAt+8:]))
	record := make([]byte, 56)
	if recordOff < 0 || recordOff > size-int64(len(record)) {
		return -1, nil
	}
	if _, err := f.ReadAt(record, recordOff); err != nil {
		return 0, fmt.Errorf("filecheck: read zip: %w", err)
	}
	if !bytes.Equal(record[:4], []byte("PK\x06\x06")) {
		return -1, nil
	}
	total := binary.LittleEndian.Uint64(record[32:])
	if total > 1<<62 {
		return 1 << 62, nil
	}
	return int64(total), nil
}
