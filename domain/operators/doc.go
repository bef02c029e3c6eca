// Package operators holds who may use the support console (`ppwr
// support`): the support tokens operators issue to support staff, and the
// console's sessions signed in with them or by a trusted SSO proxy. It
// knows no HTTP: the console turns cookies and forms into these calls.
package operators
