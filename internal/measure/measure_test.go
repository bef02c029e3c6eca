package measure

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// want is a finding in short form: code, value as a decimal string, quotation.
type want struct {
	code, value, source string
}

func check(t *testing.T, text string, expected []want) {
	t.Helper()
	got := Find(7, text)
	require.Len(t, got, len(expected), "findings: %+v", got)
	for i, w := range expected {
		f := got[i]
		assert.Equal(t, w.code, f.Code, "finding %d", i)
		assert.Truef(t, decimal.RequireFromString(w.value).Equal(f.Value), "finding %d: value %s, want %s", i, f.Value, w.value)
		assert.Equal(t, w.source, f.SourceText, "finding %d", i)
		assert.Equal(t, 7, f.Page)
		assert.Contains(t, text, f.SourceText)
		if f.Code == MassG {
			assert.Equal(t, "g", f.Unit)
		} else {
			assert.Equal(t, "mm", f.Unit)
		}
	}
}

func TestFindSingleValues(t *testing.T) {
	cases := []struct {
		name, text string
		want       []want
	}{
		{"polish mass with comma", "Masa opakowania: 12,5 g", []want{{MassG, "12.5", "Masa opakowania: 12,5 g"}}},
		{"polish mass without diacritics in upper case", "MASA NETTO: 250 G", []want{{MassG, "250", "MASA NETTO: 250 G"}}},
		{"waga in kg with point", "Waga 0.25 kg", []want{{MassG, "250", "Waga 0.25 kg"}}},
		{"waga netto in kg with comma", "waga netto 1,5 kg", []want{{MassG, "1500", "waga netto 1,5 kg"}}},
		{"mg to g", "Masa etykiety: 350 mg", []want{{MassG, "0.35", "Masa etykiety: 350 mg"}}},
		{"thousands with space", "Masa: 1 250 g", []want{{MassG, "1250", "Masa: 1 250 g"}}},
		{"thousands with NBSP", "Masa: 1\u00a0250\u00a0g", []want{{MassG, "1250", "Masa: 1\u00a0250\u00a0g"}}},
		{"inflected masie", "Pudełko o masie 38 g i długości 300 mm.", []want{
			{MassG, "38", "masie 38 g"},
			{LengthMM, "300", "długości 300 mm"},
		}},
		{"gramatura with a mass unit is net mass", "Gramatura: 500 g", []want{{MassG, "500", "Gramatura: 500 g"}}},
		{"english net weight", "Net weight: 0.5 kg", []want{{MassG, "500", "Net weight: 0.5 kg"}}},
		{"english weight grams word", "Weight of the empty box: 85 grams", []want{{MassG, "85", "Weight of the empty box: 85 grams"}}},
		{"english mass", "Packaging mass 42.75 g", []want{{MassG, "42.75", "mass 42.75 g"}}},
		{"ciężar", "Ciężar: 3 kg", []want{{MassG, "3000", "Ciężar: 3 kg"}}},
		{"szerokość in cm", "Szerokość: 20 cm", []want{{WidthMM, "200", "Szerokość: 20 cm"}}},
		{"szerokosc without diacritics", "szerokosc 20,5 cm", []want{{WidthMM, "205", "szerokosc 20,5 cm"}}},
		{"szer. abbreviation", "szer. 300mm", []want{{WidthMM, "300", "szer. 300mm"}}},
		{"długość in m", "Długość: 1,2 m", []want{{LengthMM, "1200", "Długość: 1,2 m"}}},
		{"dlugosc without diacritics", "DLUGOSC 450 MM", []want{{LengthMM, "450", "DLUGOSC 450 MM"}}},
		{"dł. abbreviation", "dł. 30 cm", []want{{LengthMM, "300", "dł. 30 cm"}}},
		{"dl. abbreviation", "dl. 30 cm", []want{{LengthMM, "300", "dl. 30 cm"}}},
		{"wysokość", "Wysokość zewnętrzna: 150 mm", []want{{HeightMM, "150", "Wysokość zewnętrzna: 150 mm"}}},
		{"wys. abbreviation", "wys. 15 cm", []want{{HeightMM, "150", "wys. 15 cm"}}},
		{"english width length height", "Width: 200 mm, Length: 0.3 m, Height: 15 cm", []want{
			{WidthMM, "200", "Width: 200 mm"},
			{LengthMM, "300", "Length: 0.3 m"},
			{HeightMM, "150", "Height: 15 cm"},
		}},
		{"unit in brackets after label", "Szerokość [mm]: 300\nWysokość (cm): 15", []want{
			{WidthMM, "300", "Szerokość [mm]: 300"},
			{HeightMM, "150", "Wysokość (cm): 15"},
		}},
		{"table row split over a line break", "Masa opakowania\n12,5 g", []want{{MassG, "12.5", "Masa opakowania\n12,5 g"}}},
		{"tab separated table", "Masa\t12,5\tg", []want{{MassG, "12.5", "Masa\t12,5\tg"}}},
		{"millimetres word", "Height 150 millimetres", []want{{HeightMM, "150", "Height 150 millimetres"}}},
		{"nearest label wins", "Szerokość i wysokość: 150 mm", []want{{HeightMM, "150", "wysokość: 150 mm"}}},
		{"tolerance after a value keeps only the value", "Masa: 12 g ± 0,5 g", []want{{MassG, "12", "Masa: 12 g"}}},
		{"value ends a sentence", "Masa wynosi 12 g. Koniec.", []want{{MassG, "12", "Masa wynosi 12 g"}}},
		{"upper-case polish letters", "SZEROKOŚĆ: 20 CM; DŁ. 35 CM; WYSOKOŚĆ 9 CM", []want{
			{WidthMM, "200", "SZEROKOŚĆ: 20 CM"},
			{LengthMM, "350", "DŁ. 35 CM"},
			{HeightMM, "90", "WYSOKOŚĆ 9 CM"},
		}},
		{"unit in parentheses converted", "Weight (kg): 0.25", []want{{MassG, "250", "Weight (kg): 0.25"}}},
		{"bracket unit in a table column", "Masa [g]   12,5   Szerokość [mm]   300", []want{
			{MassG, "12.5", "Masa [g]   12,5"},
			{WidthMM, "300", "Szerokość [mm]   300"},
		}},
		{"long label gap stays short", "Masa całkowita opakowania jednostkowego wraz z etykietą: 14 g", []want{
			{MassG, "14", "Masa całkowita opakowania jednostkowego wraz z etykietą: 14 g"},
		}},
		{"zero is not proposed", "Masa: 0 g, Szerokość: 0,0 mm", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { check(t, c.text, c.want) })
	}
}

func TestFindTriplets(t *testing.T) {
	cases := []struct {
		name, text string
		want       []want
	}{
		{"x with spaces in mm", "Wymiary: 300 x 200 x 150 mm", []want{
			{LengthMM, "300", "Wymiary: 300 x 200 x 150 mm"},
			{WidthMM, "200", "Wymiary: 300 x 200 x 150 mm"},
			{HeightMM, "150", "Wymiary: 300 x 200 x 150 mm"},
		}},
		{"multiplication sign, no label", "300×200×150 mm", []want{
			{LengthMM, "300", "300×200×150 mm"},
			{WidthMM, "200", "300×200×150 mm"},
			{HeightMM, "150", "300×200×150 mm"},
		}},
		{"cm converted", "Karton 30 x 20 x 15 cm", []want{
			{LengthMM, "300", "30 x 20 x 15 cm"},
			{WidthMM, "200", "30 x 20 x 15 cm"},
			{HeightMM, "150", "30 x 20 x 15 cm"},
		}},
		{"unit after every number, decimals", "Dimensions: 30,5 cm x 20 cm x 155 mm", []want{
			{LengthMM, "305", "Dimensions: 30,5 cm x 20 cm x 155 mm"},
			{WidthMM, "200", "Dimensions: 30,5 cm x 20 cm x 155 mm"},
			{HeightMM, "155", "Dimensions: 30,5 cm x 20 cm x 155 mm"},
		}},
		{"label names another order", "Wymiary (szer. x wys. x dł.): 200 x 150 x 300 mm", []want{
			{WidthMM, "200", "Wymiary (szer. x wys. x dł.): 200 x 150 x 300 mm"},
			{HeightMM, "150", "Wymiary (szer. x wys. x dł.): 200 x 150 x 300 mm"},
			{LengthMM, "300", "Wymiary (szer. x wys. x dł.): 200 x 150 x 300 mm"},
		}},
		{"english W x H x depth", "Size (width x height x depth): 2 x 1,5 x 3 cm", []want{
			{WidthMM, "20", "Size (width x height x depth): 2 x 1,5 x 3 cm"},
			{HeightMM, "15", "Size (width x height x depth): 2 x 1,5 x 3 cm"},
			{LengthMM, "30", "Size (width x height x depth): 2 x 1,5 x 3 cm"},
		}},
		{"thousands inside a triplet", "Paleta 1 200 x 800 x 144 mm", []want{
			{LengthMM, "1200", "1 200 x 800 x 144 mm"},
			{WidthMM, "800", "1 200 x 800 x 144 mm"},
			{HeightMM, "144", "1 200 x 800 x 144 mm"},
		}},
		{"triplet and mass on one page", "Masa 12 g, wymiary 30x20x15 cm", []want{
			{MassG, "12", "Masa 12 g"},
			{LengthMM, "300", "wymiary 30x20x15 cm"},
			{WidthMM, "200", "wymiary 30x20x15 cm"},
			{HeightMM, "150", "wymiary 30x20x15 cm"},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { check(t, c.text, c.want) })
	}
}

func TestFindIgnoresWhatIsNotAValue(t *testing.T) {
	texts := map[string]string{
		"date with dots":               "Data wydania: 12.05.2024 g",
		"date after a label":           "Masa zbadana dnia 12.05.2024",
		"percentage":                   "Masa recyklatu: 12,5 %",
		"percentage without space":     "Waga: 30%",
		"grammage":                     "Gramatura: 120 g/m²",
		"grammage ascii":               "Gramatura papieru 80 g/m2",
		"grammage in brackets":         "Gramatura [g/m²]: 120",
		"english grammage of mass":     "Paper mass 90 g/m2",
		"price":                        "Cena: 12,50 zł",
		"price after mass label":       "Masa 12,50 zł",
		"page number":                  "Strona 3 z 10",
		"page number english":          "Page 3 of 10",
		"area":                         "Powierzchnia szerokość 2 m²",
		"volume":                       "Wysokość 3 m3",
		"no label":                     "Opakowanie 12 g",
		"unit of the wrong kind":       "Szerokość: 12 g",
		"mass in mm":                   "Masa: 300 mm",
		"range":                        "Masa: 10-12 g",
		"range with dash and spaces":   "Masa: 10 – 12 g",
		"negative":                     "Masa: -12 g",
		"unicode minus":                "Szerokość: \u221212 mm",
		"label inside a word":          "Uwaga: 12 mm",
		"label prefix of a word":       "Masażer 12 g",
		"number inside a code":         "Masa EN13432 g",
		"mixed separators":             "Masa: 1,250.5 g",
		"per piece":                    "Masa 12 g/szt.",
		"minutes not metres":           "Długość 12 min",
		"decilitre is not dł.":         "dl 30 cm",
		"pair is ambiguous":            "Wymiary: 300 x 200 mm",
		"four factors":                 "Wymiary: 1 x 2 x 3 x 4 mm",
		"dimensions word alone":        "Wymiary: 300 mm",
		"label in an earlier sentence": "Waga produktu jest istotna. Opakowanie ma 12 g.",
		"label too far":                "Masa " + strings.Repeat("bardzo ", 15) + "12 g",
		"two line breaks":              "Masa\n\n12 g",
		"bare number without unit":     "Masa: 12",
		"empty":                        "",
	}
	for name, text := range texts {
		t.Run(name, func(t *testing.T) {
			assert.Empty(t, Find(1, text), "text %q", text)
		})
	}
}

func TestFindOnASpecificationSheet(t *testing.T) {
	page := `KARTA TECHNICZNA PRODUKTU                       Strona 1 z 2
Nr indeksu: KT-2024/05         Data: 12.05.2024
Pudełko fasonowe F0427, tektura falista E, gramatura 350 g/m²
Wymiary wewnętrzne (dł. x szer. x wys.): 215 x 155 x 60 mm
Wymiary zewnętrzne: 22,1 × 16,1 × 6,6 cm
Masa jednostkowa: 38,5 g ± 2 g
Waga palety: 245 kg
Ilość w kartonie zbiorczym: 50 szt.
Cena netto: 1,25 zł / szt.
Szerokość taśmy: 48 mm, długość rolki 66 m
Recyklat: 85 %
Weight per 1000 pcs: 38.5 kg`
	inner := "Wymiary wewnętrzne (dł. x szer. x wys.): 215 x 155 x 60 mm"
	outer := "Wymiary zewnętrzne: 22,1 × 16,1 × 6,6 cm"
	check(t, page, []want{
		{LengthMM, "215", inner}, {WidthMM, "155", inner}, {HeightMM, "60", inner},
		{LengthMM, "221", outer}, {WidthMM, "161", outer}, {HeightMM, "66", outer},
		{MassG, "38.5", "Masa jednostkowa: 38,5 g"},
		{MassG, "245000", "Waga palety: 245 kg"},
		{WidthMM, "48", "Szerokość taśmy: 48 mm"},
		{LengthMM, "66000", "długość rolki 66 m"},
		// "Weight per 1000 pcs" is left out: a number between label and
		// value hides the label.
	})
}

func TestFindProposesEachValueOncePerPage(t *testing.T) {
	text := "Masa: 12,5 g\nMasa opakowania 12,50 g\nWaga 0,0125 kg\nSzerokość 12,5 mm\nMasa 13 g"
	check(t, text, []want{
		{MassG, "12.5", "Masa: 12,5 g"},
		{WidthMM, "12.5", "Szerokość 12,5 mm"},
		{MassG, "13", "Masa 13 g"},
	})
}

func TestFindQuotesExactBytesOfLongLines(t *testing.T) {
	line := strings.Repeat("Lorem ipsum dolor sit amet. ", 20) + "Masa opakowania: 12,5 g. " + strings.Repeat("Tekst. ", 40)
	got := Find(2, line)
	require.Len(t, got, 1)
	assert.Equal(t, "Masa opakowania: 12,5 g", got[0].SourceText)
	assert.Equal(t, 2, got[0].Page)
}

// checkProperties holds for every input: the quotation is in the text and
// the value is a positive amount of the code's unit.
func checkProperties(t *testing.T, text string, page int) int {
	t.Helper()
	units := map[string]string{MassG: "g", WidthMM: "mm", LengthMM: "mm", HeightMM: "mm"}
	found := Find(page, text)
	for _, got := range found {
		if got.SourceText == "" || !strings.Contains(text, got.SourceText) {
			t.Fatalf("source %q is not in %q", got.SourceText, text)
		}
		if !got.Value.IsPositive() {
			t.Fatalf("value %s from %q", got.Value, text)
		}
		if got.Page != page || len(got.SourceText) > maxSource || units[got.Code] != got.Unit {
			t.Fatalf("bad finding %+v from %q", got, text)
		}
	}
	return len(found)
}

// Fuzzing is not part of "go test"; this sweeps many generated texts built
// from the tokens the finder reacts to, with a fixed seed.
func TestFindPropertiesOnGeneratedText(t *testing.T) {
	tokens := []string{"Masa", "waga", " ", "1", "2", "0", ",", ".", "g", "kg", "mm", "cm", "m", "x", "×", "\n",
		"\t", "wys.", "szer.", "Wymiary", "(mm)", "[g]", ":", "-", "/", "²", "\u00a0", "\xff", "ą", "A", "%"}
	r := rand.New(rand.NewPCG(1, 2))
	found := 0
	for range 50000 {
		var b strings.Builder
		for k := r.IntN(24); k > 0; k-- {
			b.WriteString(tokens[r.IntN(len(tokens))])
		}
		found += checkProperties(t, b.String(), 5)
	}
	assert.Positive(t, found, "the generated texts exercise the finder")
}

func FuzzFind(f *testing.F) {
	for _, s := range []string{
		"Masa opakowania: 12,5 g", "Wymiary: 300 x 200 x 150 mm", "30×20×15 cm", "Gramatura 80 g/m²",
		"Szerokość [mm]: 300", "Waga\u00a01\u00a0250\u00a0g", "12.05.2024", "Masa: -1 g", "dł. 0,0 cm",
		"Masa 1 2 3 4 5 6 g", "wys.\n\n3 m", "\xffMasa 1\xff g",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) { checkProperties(t, text, 3) })
}
