package api_test

import (
	"encoding/json"
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
}

// listPackages runs go list over patterns.
func listPackages(t *testing.T, patterns ...string) []goPackage {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list", "-json=ImportPath,Imports"}, patterns...)...).Output()
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

// An area imports the kernel and the domain, never another area nor the
// api root; the kernel and the harness import no area. Small shared
// packages under internal/ sit below the domain and never import it.
func TestLayers(t *testing.T) {
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
	assert.Equal(t, 15, areas, "one package per spec area")
	for _, p := range listPackages(t, "ppwr/internal/...") {
		for _, imp := range p.Imports {
			assert.False(t, imp == "ppwr/models" || strings.HasPrefix(imp, "ppwr/api"), "%s imports %s", p.ImportPath, imp)
		}
	}
}
