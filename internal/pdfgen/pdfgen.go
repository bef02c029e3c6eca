// Package pdfgen renders a generic, area-neutral document (title, notice,
// sections of label/value rows and paragraphs) as an A4 PDF with an embedded
// Unicode font, so Polish text survives; the calling area decides the content.
package pdfgen

import (
	_ "embed"
	"io"
	"strconv"
	"time"

	"github.com/go-pdf/fpdf"
)

// DejaVu Sans covers Latin Extended-A (ą, ę, ł, ż …); the core PDF fonts do
// not, and a reader would substitute glyphs. Licence: fonts/LICENSE.
var (
	//go:embed fonts/DejaVuSans.ttf
	regularTTF []byte
	//go:embed fonts/DejaVuSans-Bold.ttf
	boldTTF []byte
)

// Document is what gets rendered. Empty fields are left out.
type Document struct {
	Title    string
	Subtitle string
	// Notice is shown prominently under the title, e.g. a "DRAFT" banner.
	Notice   string
	Sections []Section
	// Footer is printed on every page beside the page number.
	Footer string
	// Created is stored as the PDF's creation and modification date. A zero
	// value means the time of rendering; a fixed value makes the output
	// byte-stable for the same document.
	Created time.Time
}

// Section is a heading followed by label/value rows, then free paragraphs.
type Section struct {
	Heading    string
	Rows       []Row
	Paragraphs []string
}

// Row is one labelled value; long values wrap within their column.
type Row struct {
	Label, Value string
}

const (
	family      = "DejaVu"
	margin      = 15.0 // mm
	labelWidth  = 60.0 // mm; the value takes the rest of the line
	lineHeight  = 5.0  // mm, for 10 pt body text
	bodySize    = 10.0 // pt
	footerSize  = 8.0  // pt
	pageNbAlias = "{nb}"
)

// Render writes d as a PDF to w.
func Render(w io.Writer, d Document) error {
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.AddUTF8FontFromBytes(family, "", regularTTF)
	pdf.AddUTF8FontFromBytes(family, "B", boldTTF)
	pdf.SetMargins(margin, margin, margin)
	pdf.SetAutoPageBreak(true, margin+5)
	pdf.AliasNbPages(pageNbAlias)
	pdf.SetTitle(d.Title, true)
	pdf.SetProducer("ppwr", true)
	pdf.SetCreator("ppwr", true)
	pdf.SetCreationDate(d.Created)
	pdf.SetModificationDate(d.Created)
	pdf.SetCatalogSort(true)
	pdf.SetFooterFunc(func() { footer(pdf, d.Footer) })

	pdf.AddPage()
	header(pdf, d)
	for _, s := range d.Sections {
		section(pdf, s)
	}
	if err := pdf.Error(); err != nil {
		return err
	}
	return pdf.Output(w)
}

func header(pdf *fpdf.Fpdf, d Document) {
	if d.Title != "" {
		pdf.SetFont(family, "B", 16)
		pdf.MultiCell(0, 8, d.Title, "", "L", false)
	}
	if d.Subtitle != "" {
		pdf.SetFont(family, "", 12)
		pdf.MultiCell(0, 6, d.Subtitle, "", "L", false)
	}
	if d.Notice != "" {
		pdf.Ln(2)
		pdf.SetFont(family, "B", 11)
		pdf.SetTextColor(160, 0, 0)
		pdf.SetDrawColor(160, 0, 0)
		pdf.MultiCell(0, 7, d.Notice, "1", "C", false)
		pdf.SetTextColor(0, 0, 0)
		pdf.SetDrawColor(0, 0, 0)
	}
	pdf.Ln(4)
}

func section(pdf *fpdf.Fpdf, s Section) {
	if s.Heading != "" {
		// Keep a heading with at least its first line of content.
		keepTogether(pdf, 7+lineHeight)
		pdf.SetFont(family, "B", 12)
		pdf.MultiCell(0, 7, s.Heading, "B", "L", false)
		pdf.Ln(1)
	}
	for _, r := range s.Rows {
		row(pdf, r)
	}
	pdf.SetFont(family, "", bodySize)
	for _, p := range s.Paragraphs {
		pdf.MultiCell(0, lineHeight, p, "", "L", false)
		pdf.Ln(1)
	}
	pdf.Ln(3)
}

// row draws the label and value side by side. Both are wrapped first, so the
// row's height is known and a row that fits on a page is never split across
// two; a value longer than a whole page still flows on through MultiCell.
func row(pdf *fpdf.Fpdf, r Row) {
	pageWidth, _ := pdf.GetPageSize()
	valueWidth := pageWidth - 2*margin - labelWidth

	pdf.SetFont(family, "B", bodySize)
	labelLines := len(pdf.SplitText(r.Label, labelWidth))
	pdf.SetFont(family, "", bodySize)
	valueLines := len(pdf.SplitText(r.Value, valueWidth))
	keepTogether(pdf, float64(max(labelLines, valueLines, 1))*lineHeight)

	x, y := pdf.GetXY()
	pdf.SetFont(family, "B", bodySize)
	pdf.MultiCell(labelWidth, lineHeight, r.Label, "", "L", false)
	labelBottom, labelPage := pdf.GetY(), pdf.PageNo()

	pdf.SetXY(x+labelWidth, y)
	pdf.SetFont(family, "", bodySize)
	pdf.MultiCell(valueWidth, lineHeight, r.Value, "", "L", false)
	if pdf.PageNo() == labelPage && labelBottom > pdf.GetY() {
		pdf.SetY(labelBottom)
	}
	pdf.SetX(x)
	pdf.Ln(1)
}

// keepTogether starts a new page when a block of height h would not fit
// above the bottom margin.
func keepTogether(pdf *fpdf.Fpdf, h float64) {
	_, pageHeight := pdf.GetPageSize()
	_, _, _, bottom := pdf.GetMargins()
	_, autoBreakMargin := pdf.GetAutoPageBreak()
	bottom = max(bottom, autoBreakMargin)
	if pdf.GetY()+h > pageHeight-bottom {
		pdf.AddPage()
	}
}

func footer(pdf *fpdf.Fpdf, text string) {
	pdf.SetY(-margin)
	pdf.SetFont(family, "", footerSize)
	pdf.SetTextColor(90, 90, 90)
	pageWidth, _ := pdf.GetPageSize()
	half := (pageWidth - 2*margin) / 2
	pdf.CellFormat(half, 4, text, "", 0, "L", false, 0, "")
	pdf.CellFormat(half, 4, pageNumber(pdf.PageNo()), "", 0, "R", false, 0, "")
	pdf.SetTextColor(0, 0, 0)
}

func pageNumber(n int) string {
	return strconv.Itoa(n) + " / " + pageNbAlias
}
