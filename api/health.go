package api

import (
	"net/http"

	"github.com/gin-gonic/gin"
)

// healthz says the process is up; it touches nothing else so that an
// orchestrator does not restart the API when a dependency is down.
func (s *Server) healthz(c *gin.Context) {
	c.JSON(http.StatusOK, gin.H{"status": "ok"})
}

// readyz says whether Postgres and S3 are reachable, so a load balancer
// only routes to replicas that can serve; it names the failing ones within
// 3 s (internal/health). Temporal is reported but does not make the
// replica unready: requests only record workflow starts.
func (s *Server) readyz(c *gin.Context) {
	report, ready := s.readiness().Run(c.Request.Context())
	status := http.StatusOK
	if !ready {
		status = http.StatusServiceUnavailable
	}
	c.JSON(status, report)
}
