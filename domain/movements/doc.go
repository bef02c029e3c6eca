// Package movements records supply events and the reporting flows they
// generate (placed, used), moving stock as they go.
package movements
