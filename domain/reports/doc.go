// Package reports holds report runs and the rows each kind of report
// reads.
package reports
