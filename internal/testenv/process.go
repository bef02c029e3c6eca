package testenv

import (
	"os"
	"syscall"
	"time"
)

// Terminate stops a process of the service as a deployment does, with
// SIGTERM, and kills it if it has not exited within grace. exited is
// closed once the process has exited (by whoever waits for it); a process
// that has exited already returns at once.
func Terminate(p *os.Process, exited <-chan struct{}, grace time.Duration) {
	_ = p.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(grace):
		_ = p.Kill()
		<-exited
	}
}
