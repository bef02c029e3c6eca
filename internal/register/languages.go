package register

import (
	"maps"
	"slices"
)

// OfficialLanguages are the languages (ISO 639-1) each Member State's
// constitution or law makes official nationwide; languages official only in
// a region (Catalan, Frisian, Slovene in Carinthia, ...) are not listed.
// Art. 12(5) leaves the labels' languages to each Member State, so these
// are what an item's labels can be shown to cover, not a national
// determination.
var OfficialLanguages = map[string][]string{
	"AT": {"de"}, "BE": {"nl", "fr", "de"}, "BG": {"bg"}, "CY": {"el", "tr"}, "CZ": {"cs"}, "DE": {"de"}, "DK": {"da"},
	"EE": {"et"}, "ES": {"es"}, "FI": {"fi", "sv"}, "FR": {"fr"}, "GR": {"el"}, "HR": {"hr"}, "HU": {"hu"},
	"IE": {"ga", "en"}, "IT": {"it"}, "LT": {"lt"}, "LU": {"lb", "fr", "de"}, "LV": {"lv"}, "MT": {"mt", "en"},
	"NL": {"nl"}, "PL": {"pl"}, "PT": {"pt"}, "RO": {"ro"}, "SE": {"sv"}, "SI": {"sl"}, "SK": {"sk"},
}

// MemberStates are the countries of OfficialLanguages, and LabelLanguages
// every language they list: the vocabulary of a label's languages per
// market.
var (
	MemberStates   = slices.Sorted(maps.Keys(OfficialLanguages))
	LabelLanguages = func() []string {
		var all []string
		for _, l := range OfficialLanguages {
			all = append(all, l...)
		}
		slices.Sort(all)
		return slices.Compact(all)
	}()
)
