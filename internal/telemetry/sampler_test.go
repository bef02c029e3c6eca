package telemetry

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTracingSamplesOneRequestInTenUnlessTheVariableSaysOtherwise(t *testing.T) {
	t.Setenv("OTEL_TRACES_SAMPLER", "")
	require.NotNil(t, defaultSampler())
	assert.Equal(t, "ParentBased{root:TraceIDRatioBased{0.1},remoteParentSampled:AlwaysOnSampler,remoteParentNotSampled:AlwaysOffSampler,localParentSampled:AlwaysOnSampler,localParentNotSampled:AlwaysOffSampler}",
		defaultSampler().Description(), "a sampled caller is always traced")
	t.Setenv("OTEL_TRACES_SAMPLER", "always_on")
	assert.Nil(t, defaultSampler(), "the SDK reads the standard variable itself")
}
