package measure

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// number is a non-negative numeral of the text at text[start:end].
type number struct {
	start, end int
	value      decimal.Decimal
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

func digitsEnd(text string, i int) int {
	for i < len(text) && isDigit(text[i]) {
		i++
	}
	return i
}

// groupSeparator returns the byte length of a thousands separator at
// text[i:] (space, NBSP, narrow NBSP), or 0.
func groupSeparator(text string, i int) int {
	for _, sep := range []string{" ", "\u00a0", "\u202f"} {
		if strings.HasPrefix(text[i:], sep) {
			return len(sep)
		}
	}
	return 0
}

// numbers lists the numerals that can be values. A numeral glued to another
// separator-and-digit run (dates, versions, mixed separators), to a letter
// (codes such as "A4", "EN13432"), to a slash (fractions, "1/2") or carrying a
// minus sign is left out whole.
func numbers(text string) []number {
	var out []number
	for i := 0; i < len(text); {
		if !isDigit(text[i]) {
			i++
			continue
		}
		start := i
		end := digitsEnd(text, i)
		if end-start <= 3 {
			for {
				k := groupSeparator(text, end)
				g := end + k
				if k == 0 || digitsEnd(text, g)-g != 3 {
					break
				}
				end = g + 3
			}
		}
		if end+1 < len(text) && (text[end] == '.' || text[end] == ',') && isDigit(text[end+1]) {
			end = digitsEnd(text, end+1)
		}
		if end+1 < len(text) && (text[end] == '.' || text[end] == ',') && isDigit(text[end+1]) {
			// A third part: skip the whole run so its tail is not read either.
			for end < len(text) && (isDigit(text[end]) || text[end] == '.' || text[end] == ',') {
				end++
			}
			i = end
			continue
		}
		i = end
		if !cleanStart(text, start) {
			continue
		}
		v, err := decimal.NewFromString(normalise(text[start:end]))
		if err != nil {
			continue
		}
		out = append(out, number{start: start, end: end, value: v})
	}
	return out
}

// cleanStart says whether a numeral starting at pos stands on its own.
func cleanStart(text string, pos int) bool {
	if pos == 0 {
		return true
	}
	prev, size := utf8.DecodeLastRuneInString(text[:pos])
	switch {
	case (prev == 'x' || prev == 'X') && pos-size > 0 && isDigit(text[pos-size-1]):
		return true // "30x20": a factor of a product, not a code
	case unicode.IsLetter(prev), prev == '/', prev == '_':
		return false
	case prev == '.' || prev == ',':
		before, _ := utf8.DecodeLastRuneInString(text[:pos-size])
		return !unicode.IsDigit(before)
	case prev == '-' || prev == '\u2212':
		// "-12" is negative; "10-12" is a range, whose end is left to the
		// gap rule (a digit before a value hides its label).
		before, _ := utf8.DecodeLastRuneInString(text[:pos-size])
		return pos-size > 0 && unicode.IsDigit(before)
	}
	return true
}

func normalise(s string) string {
	return strings.NewReplacer(" ", "", "\u00a0", "", "\u202f", "", ",", ".").Replace(s)
}
