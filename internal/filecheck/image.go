package filecheck

import (
	"fmt"
	"image"
	_ "image/jpeg" // registers the decoder DecodeConfig needs
	_ "image/png"  // registers the decoder DecodeConfig needs
	"io"
)

// maxPixels refuses images whose declared dimensions would make any later
// decoding (thumbnails, OCR) allocate absurd amounts of memory.
const maxPixels = 100_000_000

func inspectImage(f io.ReaderAt, size int64, contentType string) (Report, error) {
	cfg, _, err := image.DecodeConfig(io.NewSectionReader(f, 0, size))
	if err != nil {
		return refused(ReasonUnreadable, "image header: "+err.Error()), nil
	}
	if int64(cfg.Width)*int64(cfg.Height) > maxPixels {
		return unsafe(contentType, ReasonImageTooLarge, fmt.Sprintf("%dx%d pixels", cfg.Width, cfg.Height)), nil
	}
	return clean(contentType), nil
}
