package support

import "net/http"

// attention will list the work that needs a person across organizations;
// until it does, the page only says so.
func (s *Server) attention(w http.ResponseWriter, r *http.Request) {
	s.Render(w, r, http.StatusOK, "attention", nil)
}
