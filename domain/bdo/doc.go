// Package bdo holds the Polish BDO report: the year's sources with their
// classification and the report runs built from them.
package bdo
