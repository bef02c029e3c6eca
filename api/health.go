package api

import (
	"context"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
)

// healthz says the process is up; it touches nothing else so that an
// orchestrator does not restart the API when a dependency is down.
func (s *Server) healthz(c *gin.Context) {
	c.JSON(http.StatusOK, gin.H{"status": "ok"})
}

// readyz says whether Postgres, Temporal and S3 are reachable, so a load
// balancer only routes to replicas that can serve.
func (s *Server) readyz(c *gin.Context) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), 3*time.Second)
	defer cancel()
	checks := gin.H{}
	status := http.StatusOK
	for name, err := range s.readiness(ctx) {
		if err != nil {
			checks[name] = err.Error()
			status = http.StatusServiceUnavailable
		} else {
			checks[name] = "ok"
		}
	}
	state := "ready"
	if status != http.StatusOK {
		state = "unavailable"
	}
	c.JSON(status, gin.H{"status": state, "checks": checks})
}
