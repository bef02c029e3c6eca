// Package carbon holds carbon factors and the carbon calculations of an
// item's composition.
package carbon
