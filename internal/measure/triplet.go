package measure

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

const horizontalSpace = " \t\u00a0\u202f"

func isTimes(r rune) bool { return r == 'x' || r == 'X' || r == '×' || r == '*' }

// triplet reads ns as "a x b x c unit" (a unit may also follow a and b) and
// returns length, width and height in the order the label names them, L x W
// x H when it does not.
func triplet(text string, ns []number) ([]located, bool) {
	own := make([]*unit, 3)
	for k := 0; k < 2; k++ {
		pos := ns[k].end
		if u, end, ok := unitAt(text, pos); ok {
			own[k], pos = &u, end
		}
		pos = skipSpace(text, pos)
		r, size := utf8.DecodeRuneInString(text[pos:])
		if !isTimes(r) || skipSpace(text, pos+size) != ns[k+1].start {
			return nil, false
		}
	}
	final, end, ok := unitAt(text, ns[2].end)
	if !ok || final.kind != unitLength || chainedAfter(text, end) || chainedBefore(text, ns[0].start) {
		return nil, false
	}

	start := ns[0].start
	ws := windowStart(text, start)
	words := labels(text, ws, start)
	if len(words) > 0 && end-words[0].start <= maxSource {
		start = words[0].start
	}
	codes := dimensionOrder(words)
	out := make([]located, 0, 3)
	for k, n := range ns {
		u := final
		if own[k] != nil {
			u = *own[k]
		}
		if u.kind != unitLength {
			return nil, false
		}
		out = append(out, located{start: start, f: Finding{
			Code:       codes[k],
			Value:      n.value.Mul(u.factor),
			Unit:       unitLength.baseUnit(),
			SourceText: text[start:end],
		}})
	}
	return out, true
}

// dimensionOrder maps the triplet's positions to codes. Words that name all
// three dimensions once ("szer. x wys. x dł.", "W x H x depth") decide;
// anything else leaves the L x W x H convention.
func dimensionOrder(words []label) []string {
	var named []string
	seen := map[string]bool{}
	for _, w := range words {
		var code string
		switch w.kind {
		case kindLength, kindDepth:
			code = LengthMM
		case kindWidth:
			code = WidthMM
		case kindHeight:
			code = HeightMM
		default:
			continue
		}
		if seen[code] {
			return []string{LengthMM, WidthMM, HeightMM}
		}
		seen[code] = true
		named = append(named, code)
	}
	if len(named) != 3 {
		return []string{LengthMM, WidthMM, HeightMM}
	}
	return named
}

func skipSpace(text string, pos int) int {
	return pos + len(text[pos:]) - len(strings.TrimLeft(text[pos:], horizontalSpace))
}

// chainedAfter says whether a fourth factor follows ("… x 4 mm" after a triplet).
func chainedAfter(text string, pos int) bool {
	pos = skipSpace(text, pos)
	r, size := utf8.DecodeRuneInString(text[pos:])
	if !isTimes(r) {
		return false
	}
	pos = skipSpace(text, pos+size)
	return pos < len(text) && isDigit(text[pos])
}

// chainedBefore says whether a factor precedes the first number ("2 x"
// before it); an "x" ending a word ("box 30 x …") does not count.
func chainedBefore(text string, pos int) bool {
	trimmed := strings.TrimRight(text[:pos], horizontalSpace)
	r, size := utf8.DecodeLastRuneInString(trimmed)
	if !isTimes(r) {
		return false
	}
	before, _ := utf8.DecodeLastRuneInString(trimmed[:len(trimmed)-size])
	return !unicode.IsLetter(before)
}
