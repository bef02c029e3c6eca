// Package passports holds product passports, their published versions
// and the grants that share them with other organizations.
package passports
