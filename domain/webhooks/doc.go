// Package webhooks holds webhook endpoints and deliveries, and the event
// catalogue: every area's event types, which endpoints subscribe to.
package webhooks
