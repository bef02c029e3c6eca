package api_test

import (
	"os"
	"testing"

	"ppwr/api/apitest"
	"ppwr/internal/i18n"
)

func TestZZDump(t *testing.T) {
	p := os.Getenv("DUMP_DOC")
	if p == "" {
		t.Skip()
	}
	a := apitest.New(t)
	os.WriteFile(p+"-en.json", a.Server.OpenAPIDocument(i18n.EN), 0o644)
	os.WriteFile(p+"-pl.json", a.Server.OpenAPIDocument(i18n.PL), 0o644)
}
