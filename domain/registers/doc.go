// Package registers holds the entries of the PPWR registers with their
// evidence and their review.
package registers
