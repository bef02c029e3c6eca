// Package measure finds measurable packaging values (mass, width, length,
// height) in the extracted text of one document page, each with the exact
// quotation it was read from, so a human can accept or reject it as evidence.
//
// Conventions, chosen so a proposal is never a guess a reviewer cannot see:
//
//   - A single value needs a label before it on the same line or the next
//     (English or Polish, any case, with or without diacritics, inflected:
//     "Masa opakowania: 12,5 g", "szer. 300 mm", "Net weight 0.25 kg"), and a
//     unit of the label's kind, written after the number or in brackets after
//     the label ("Szerokość [mm]: 300"). Only digit-free text of at most
//     maxGap bytes may sit between label and number; the nearest label wins.
//   - A triplet "300 x 200 x 150 mm" (x, X, ×, *; one unit at the end or one
//     per number) is read as LENGTH x WIDTH x HEIGHT, unless the words before
//     it name the three dimensions in another order ("szer. x wys. x gł.");
//     depth counts as length. A triplet needs no label. Pairs are ambiguous
//     and ignored.
//   - "gramatura" is accepted as a mass label because Polish labels use it
//     for a product's net mass ("gramatura: 500 g"), but only with a mass unit:
//     a grammage in g/m² (or any unit followed by "/", "²", "2", …) is a mass
//     per area and never becomes MASS_G.
//   - Numbers take a decimal comma or point; thousands may be grouped only by
//     a space, NBSP or narrow NBSP, in groups of exactly three digits after a
//     first group of one to three ("1 250 g"). A number touching another
//     separator-and-digit ("12.05.2024", "1,250.5") is not a value at all.
//   - Values are converted exactly (decimal) to g or mm; zero and negative
//     values, ranges ("10-12 g") and tolerances ("± 0,5 g") are not proposed.
package measure

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// Codes of the values Find proposes.
const (
	MassG    = "MASS_G"
	WidthMM  = "WIDTH_MM"
	LengthMM = "LENGTH_MM"
	HeightMM = "HEIGHT_MM"
)

// Finding is one proposed value. SourceText is a byte-exact substring of the
// page text that holds the label (when there is one) and the value with its
// unit.
type Finding struct {
	Code       string
	Value      decimal.Decimal
	Unit       string
	Page       int
	SourceText string
}

// maxGap bounds the text between a label and its value, and so the length
// of a quotation (label + gap + value stays well under 200 bytes).
const maxGap = 80

// maxSource is the longest quotation proposed; a longer one loses its label.
const maxSource = 200

type located struct {
	start int
	f     Finding
}

// Find returns the values found in text, in the order they appear, each
// code+value at most once.
func Find(page int, text string) []Finding {
	nums := numbers(text)
	var found []located
	inTriplet := make([]bool, len(nums))
	for i := 0; i+2 < len(nums); i++ {
		if t, ok := triplet(text, nums[i:i+3]); ok {
			found = append(found, t...)
			inTriplet[i], inTriplet[i+1], inTriplet[i+2] = true, true, true
			i += 2
		}
	}
	for i, n := range nums {
		if inTriplet[i] {
			continue
		}
		if l, ok := single(text, n); ok {
			found = append(found, l)
		}
	}
	sort.SliceStable(found, func(a, b int) bool { return found[a].start < found[b].start })

	var out []Finding
	for _, l := range found {
		if !l.f.Value.IsPositive() || containsFinding(out, l.f) {
			continue
		}
		l.f.Page = page
		out = append(out, l.f)
	}
	return out
}

func containsFinding(fs []Finding, f Finding) bool {
	for _, g := range fs {
		if g.Code == f.Code && g.Value.Equal(f.Value) {
			return true
		}
	}
	return false
}

// single reads a labelled value: label, gap, number and unit.
func single(text string, n number) (located, bool) {
	ws := windowStart(text, n.start)
	lab, ok := lastLabel(text, ws, n.start)
	if !ok {
		return located{}, false
	}
	end := n.end
	u, uEnd, ok := unitAt(text, n.end)
	if ok {
		end = uEnd
	} else {
		if !bareEnd(text, n.end) {
			return located{}, false
		}
		u, ok = bracketUnit(text[lab.end:n.start])
		if !ok {
			return located{}, false
		}
	}
	code, ok := codeFor(lab.kind, u.kind)
	if !ok {
		return located{}, false
	}
	start := lab.start
	if end-start > maxSource {
		return located{}, false
	}
	return located{start: start, f: Finding{
		Code:       code,
		Value:      n.value.Mul(u.factor),
		Unit:       u.kind.baseUnit(),
		SourceText: text[start:end],
	}}, true
}

func codeFor(l labelKind, u unitKind) (string, bool) {
	switch {
	case l == kindMass && u == unitMass:
		return MassG, true
	case u != unitLength:
		return "", false
	case l == kindWidth:
		return WidthMM, true
	case l == kindLength:
		return LengthMM, true
	case l == kindHeight:
		return HeightMM, true
	}
	return "", false
}

// windowStart walks back from pos over the text a label may stand in before
// its value: at most maxGap bytes, no digit, no ';', at most one line break,
// not across the end of a sentence.
func windowStart(text string, pos int) int {
	i, breaks := pos, 0
	for i > 0 && pos-i < maxGap {
		r, size := utf8.DecodeLastRuneInString(text[:i])
		switch {
		case unicode.IsDigit(r), r == ';':
			return i
		case r == '\n':
			if breaks++; breaks > 1 {
				return i
			}
		case (r == '.' || r == '!' || r == '?') && sentenceEnds(text, i-size, i):
			return i
		}
		i -= size
	}
	return i
}

// sentenceEnds says whether the stop at text[dot:after] ends a sentence: a
// capital follows after white space and the word before is not a short
// abbreviation ("szer.", "wys.", "opak.").
func sentenceEnds(text string, dot, after int) bool {
	rest := text[after:]
	trimmed := strings.TrimLeftFunc(rest, unicode.IsSpace)
	if len(trimmed) == len(rest) || trimmed == "" {
		return false
	}
	if r, _ := utf8.DecodeRuneInString(trimmed); !unicode.IsUpper(r) {
		return false
	}
	word := 0
	for i := dot; i > 0; {
		r, size := utf8.DecodeLastRuneInString(text[:i])
		if !unicode.IsLetter(r) {
			break
		}
		word++
		i -= size
	}
	return word > 4
}

// bareEnd says whether a number without a unit ends its cell: end of text or
// line, a list separator, a column gap, or a capitalised next label.
func bareEnd(text string, pos int) bool {
	rest := text[pos:]
	trimmed := strings.TrimLeft(rest, " \t\u00a0\u202f")
	if trimmed == "" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(trimmed)
	switch {
	case strings.ContainsRune("\r\n,;|", r):
		return true
	case strings.HasPrefix(rest, "\t"), strings.HasPrefix(rest, "  "):
		return true
	case len(trimmed) < len(rest) && unicode.IsUpper(r):
		return true
	}
	return false
}
