package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultsPointAtTheLocalStack(t *testing.T) {
	for _, v := range Variables {
		t.Setenv(v.Name, v.Default)
		os.Unsetenv(v.Name)
	}
	c, err := FromEnv()
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:8080", c.HTTPAddr)
	assert.Equal(t, "ppwr", c.TemporalTaskQueue)
	assert.Equal(t, "127.0.0.1:3310", c.ClamdAddress, "the clamd make run starts")
	assert.Equal(t, "http://127.0.0.1:8233", c.TemporalUIURL, "the Temporal UI make run starts")
	assert.Equal(t, 120, c.RateLimitPerMinute)
	assert.Equal(t, 10, c.RecommendationRateLimitPerMinute)
	assert.Empty(t, c.TrustedProxies)
	assert.Equal(t, c.DatabaseURL, c.DatabaseListenURL, "LISTEN uses the main database unless told otherwise")
}

func TestFromEnvOverridesAndValidates(t *testing.T) {
	t.Setenv("PUBLIC_BASE_URL", "https://api.example.com/")
	t.Setenv("TEMPORAL_UI_URL", "https://temporal.example.com/ui/")
	t.Setenv("TRUSTED_PROXIES", "10.0.0.0/8, 192.168.0.1/32")
	c, err := FromEnv()
	require.NoError(t, err)
	assert.Equal(t, "https://api.example.com", c.PublicBaseURL, "a trailing slash would double in links")
	assert.Equal(t, "https://temporal.example.com/ui", c.TemporalUIURL, "a trailing slash would double in links")
	assert.Equal(t, []string{"10.0.0.0/8", "192.168.0.1/32"}, c.TrustedProxies)

	t.Setenv("RATE_LIMIT_PER_MINUTE", "0")
	_, err = FromEnv()
	assert.ErrorContains(t, err, "RATE_LIMIT_PER_MINUTE")
}

// The README is the operator's reference: it must list every variable with
// its default.
func TestReadmeListsEveryVariable(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	readme := string(raw)
	for _, v := range Variables {
		row := "| `" + v.Name + "` | "
		require.Contains(t, readme, row, v.Name)
		line := readme[strings.Index(readme, row):]
		line = line[:strings.Index(line, "\n")]
		if v.Default != "" {
			assert.Contains(t, line, "`"+v.Default+"`", "default of %s", v.Name)
		}
	}
}
