package measure

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

type labelKind int

const (
	kindMass labelKind = iota + 1
	kindWidth
	kindLength
	kindHeight
	// Depth and the dimension group words only order or introduce a
	// triplet; as the nearest label they block a single value, because
	// "Wymiary: 300 mm" does not say which dimension it is.
	kindDepth
	kindDimensions
)

// labelPattern has one group per labelKind, in the order of the constants.
// Polish words appear inflected and with or without diacritics;
// abbreviations need their dot ("dl" alone is a decilitre).
var labelPattern = regexp.MustCompile(`(?i)` + strings.Join([]string{
	`((?:net|gross)\s+(?:mass|weight)|mass|weight|mas(?:a|y|ie|ę|e)|wag(?:a|i|ę|e)|wadze|ci[eę][zż]ar|gramatur(?:a|y|ze|ę|e))`,
	`(width|szeroko[sś][cć]i?|szer\.)`,
	`(length|d[lł]ugo[sś][cć]i?|d[lł]ug\.|d[lł]\.)`,
	`(height|wysoko[sś][cć]i?|wys\.)`,
	`(depth|g[lł][eę]boko[sś][cć]i?|g[lł][eę]b\.|g[lł]\.)`,
	`(dimensions?|size|wymiar(?:y|ów|ow|ach)?|rozmiar(?:y|ów|ow)?|gabaryt(?:y|ów|ow)?)`,
}, "|"))

type label struct {
	start, end int
	kind       labelKind
}

// labels lists the whole-word labels in text[from:to], offsets into text.
func labels(text string, from, to int) []label {
	var out []label
	for _, m := range labelPattern.FindAllStringSubmatchIndex(text[from:to], -1) {
		l := label{start: from + m[0], end: from + m[1]}
		for g := 1; 2*g < len(m); g++ {
			if m[2*g] >= 0 {
				l.kind = labelKind(g)
				break
			}
		}
		if wholeWord(text, l) {
			out = append(out, l)
		}
	}
	return out
}

func wholeWord(text string, l label) bool {
	if before, _ := utf8.DecodeLastRuneInString(text[:l.start]); l.start > 0 && unicode.IsLetter(before) {
		return false
	}
	if text[l.end-1] == '.' || l.end == len(text) {
		return true
	}
	after, _ := utf8.DecodeRuneInString(text[l.end:])
	return !unicode.IsLetter(after)
}

// lastLabel is the label nearest before to within text[from:to].
func lastLabel(text string, from, to int) (label, bool) {
	ls := labels(text, from, to)
	if len(ls) == 0 {
		return label{}, false
	}
	return ls[len(ls)-1], true
}
