// Package suppliers holds supplier requests: their lines, the e-mail
// sent for them, replies by e-mail and uploads filed as a request's
// answer.
package suppliers
