package api_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goPackage is what go list says of one package.
type goPackage struct {
	ImportPath string
	Imports    []string
	Dir        string
	GoFiles    []string
}

// listPackages runs go list over patterns.
func listPackages(t *testing.T, patterns ...string) []goPackage {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list", "-json=ImportPath,Imports,Dir,GoFiles"}, patterns...)...).Output()
	require.NoError(t, err)
	var pkgs []goPackage
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p goPackage
		require.NoError(t, dec.Decode(&p))
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// domainTiers is the declared order of the domain: a package may import
// the packages of lower tiers only, never one of its own tier or above,
// so no two areas can reach into each other. The kernel (ppwr/domain)
// is the lowest tier; webhooks, which lists every area's events, the
// highest area, and attention, which reads every area's failures for
// support staff, is above them all.
var domainTiers = [][]string{
	{"domain"},
	{"domain/accounts"},
	{"domain/operators"},
	{"domain/catalog"},
	{"domain/stock"},
	{"domain/movements"},
	{"domain/packing"},
	{"domain/documents"},
	{"domain/suppliers"},
	{"domain/registers"},
	{"domain/assessments", "domain/profiles"},
	{"domain/bdo", "domain/carbon", "domain/imports", "domain/reports"},
	{"domain/records", "domain/passports"},
	{"domain/webhooks"},
	{"domain/attention"},
	{"domain/attention/attentiontest"},
}

// within reports whether imp is one of the packages named or below one.
func within(imp string, prefixes ...string) bool {
	for _, p := range prefixes {
		if imp == p || strings.HasPrefix(imp, p+"/") {
			return true
		}
	}
	return false
}

// An API area imports the kernel and the domain, never another area nor
// the api root; the kernel and the harness import no area.
func TestAPILayers(t *testing.T) {
	shared := map[string]bool{"ppwr/api/kit": true, "ppwr/api/apitest": true}
	areas := 0
	for _, p := range listPackages(t, "ppwr/api/...") {
		if p.ImportPath == "ppwr/api" {
			continue
		}
		if !shared[p.ImportPath] {
			areas++
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, "ppwr/api") {
				continue
			}
			switch {
			case p.ImportPath == "ppwr/api/apitest" && (imp == "ppwr/api" || imp == "ppwr/api/kit"):
				// The harness builds the whole engine.
			case shared[imp]:
			default:
				t.Errorf("%s imports %s", p.ImportPath, imp)
			}
		}
	}
	assert.Equal(t, 17, areas, "one package per spec area, and webhooks and the compliance profile beyond the spec")
}

// The domain follows its tiers, and is free of HTTP and of Temporal:
// handlers, activities and the admin CLI all call the same commands.
func TestDomainLayers(t *testing.T) {
	tier := map[string]int{}
	for i, names := range domainTiers {
		for _, n := range names {
			tier["ppwr/"+n] = i
		}
	}
	for _, p := range listPackages(t, "ppwr/domain/...") {
		own, declared := tier[p.ImportPath]
		if !assert.True(t, declared, "%s has no tier in domainTiers", p.ImportPath) {
			continue
		}
		for _, imp := range p.Imports {
			if other, ok := tier[imp]; ok {
				assert.Less(t, other, own, "%s imports %s, which is not below it", p.ImportPath, imp)
				continue
			}
			assert.False(t, within(imp, "ppwr/api", "ppwr/activities", "ppwr/workflows", "ppwr/worker", "ppwr/inbound", "ppwr/cmd",
				"github.com/gin-gonic/gin", "go.temporal.io"), "%s imports %s", p.ImportPath, imp)
		}
	}
}

// Workflows and activities sit above the domain and below the API: they
// never import an API package, and the small shared packages under
// internal/ import neither the domain nor anything above it.
func TestWorkLayers(t *testing.T) {
	for _, p := range listPackages(t, "ppwr/workflows/...", "ppwr/activities/...") {
		for _, imp := range p.Imports {
			assert.False(t, within(imp, "ppwr/api", "ppwr/worker", "ppwr/cmd", "ppwr/inbound"), "%s imports %s", p.ImportPath, imp)
		}
	}
	for _, p := range listPackages(t, "ppwr/internal/...") {
		for _, imp := range p.Imports {
			assert.False(t, within(imp, "ppwr/domain", "ppwr/api", "ppwr/activities", "ppwr/workflows", "ppwr/worker"),
				"%s imports %s", p.ImportPath, imp)
		}
	}
}

// maxShare is the most of the project's non-test lines one package may
// hold: past it, a package is a room with no walls inside.
const maxShare = 0.15

func TestNoPackageHoldsMoreThanItsShare(t *testing.T) {
	lines := map[string]int{}
	total := 0
	for _, p := range listPackages(t, "ppwr/...") {
		for _, f := range p.GoFiles {
			n := countLines(t, p.Dir+"/"+f)
			lines[p.ImportPath] += n
			total += n
		}
	}
	require.Positive(t, total)
	for pkg, n := range lines {
		assert.LessOrEqual(t, float64(n)/float64(total), maxShare, "%s holds %d of %d non-test lines", pkg, n, total)
	}
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return bytes.Count(b, []byte("\n"))
}
