package measure

import (
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

type unitKind int

const (
	unitMass unitKind = iota + 1
	unitLength
)

func (k unitKind) baseUnit() string {
	if k == unitMass {
		return "g"
	}
	return "mm"
}

// unit is a recognised unit with its exact factor to g or mm.
type unit struct {
	kind   unitKind
	factor decimal.Decimal
}

// unitWords maps each spelling, lower case, to its unit. Longer spellings
// must win over their prefixes, which unitPattern arranges.
var unitWords = map[string]unit{}

func init() {
	add := func(kind unitKind, factor string, words ...string) {
		for _, w := range words {
			unitWords[w] = unit{kind: kind, factor: decimal.RequireFromString(factor)}
		}
	}
	add(unitMass, "1", "g", "gram", "grams", "gramy", "gramów", "gramow", "grammes", "gramme")
	add(unitMass, "1000", "kg", "kilogram", "kilograms", "kilogramy", "kilogramów", "kilogramow")
	add(unitMass, "0.001", "mg", "miligram", "miligramy", "miligramów", "miligramow", "milligram", "milligrams")
	add(unitLength, "1", "mm", "milimetr", "milimetry", "milimetrów", "milimetrow",
		"millimetre", "millimetres", "millimeter", "millimeters")
	add(unitLength, "10", "cm", "centymetr", "centymetry", "centymetrów", "centymetrow",
		"centimetre", "centimetres", "centimeter", "centimeters")
	add(unitLength, "1000", "m", "metr", "metry", "metrów", "metrow", "metre", "metres", "meter", "meters")
	unitPattern = regexp.MustCompile(`^(?i:` + alternation(unitWords) + `)`)
	bracketPattern = regexp.MustCompile(`[\[(][ \x{00a0}]*(?i:(` + alternation(unitWords) + `))[ \x{00a0}]*[\])]`)
}

var unitPattern, bracketPattern *regexp.Regexp

// alternation joins the keys longest first, so "mm" is tried before "m".
func alternation(words map[string]unit) string {
	keys := make([]string, 0, len(words))
	for w := range words {
		keys = append(keys, regexp.QuoteMeta(w))
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(keys[i]) != len(keys[j]) {
			return len(keys[i]) > len(keys[j])
		}
		return keys[i] < keys[j]
	})
	return strings.Join(keys, "|")
}

// unitAt reads a unit after optional horizontal space at text[pos:] and
// returns it with the end of its spelling. A unit continued by a letter,
// digit, superscript or slash ("g/m²", "mm2", "kg/szt.") is a different
// quantity and is refused.
func unitAt(text string, pos int) (unit, int, bool) {
	start := pos + len(text[pos:]) - len(strings.TrimLeft(text[pos:], " \t\u00a0\u202f"))
	m := unitPattern.FindString(text[start:])
	if m == "" {
		return unit{}, 0, false
	}
	end := start + len(m)
	if !unitEnds(text, end) {
		return unit{}, 0, false
	}
	return unitWords[strings.ToLower(m)], end, true
}

func unitEnds(text string, end int) bool {
	if end == len(text) {
		return true
	}
	next, _ := utf8.DecodeRuneInString(text[end:])
	return !unicode.IsLetter(next) && !unicode.IsDigit(next) && !unicode.Is(unicode.No, next) &&
		next != '/' && next != '^' && next != '_'
}

// bracketUnit finds the last unit in brackets in a label's gap, as in
// "Szerokość [mm]: 300" or "Weight (kg): 0.25".
func bracketUnit(gap string) (unit, bool) {
	ms := bracketPattern.FindAllStringSubmatch(gap, -1)
	if len(ms) == 0 {
		return unit{}, false
	}
	return unitWords[strings.ToLower(ms[len(ms)-1][1])], true
}
