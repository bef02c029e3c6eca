package bdo

import (
	"testing"

	"ppwr/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }
