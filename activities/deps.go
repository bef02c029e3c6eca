package activities

import (
	"go.temporal.io/sdk/client"
	"gorm.io/gorm"

	"ppwr/internal/storage"
)

// Deps are what a worker needs: the Temporal connection and task queue it
// polls, and what its activities are built from (workflows.Definitions
// names, for each workflow, the activities it builds from them).
type Deps struct {
	DB        *gorm.DB
	Temporal  client.Client
	TaskQueue string
	// Storage keeps uploaded files (imports, documents).
	Storage *storage.Store
	// ClamdAddress is the malware scanner documents are checked with.
	ClamdAddress string
	// Mail: the SMTP server, the sender and the base reply address of
	// supplier requests.
	SMTPURL, MailFrom, MailReplyAddress string
	// DocumentMaxBytes bounds a file filed from a supplier's reply, as it
	// bounds an upload.
	DocumentMaxBytes int64
	// WebhookAllowHTTPLoopback admits plain-http receivers on loopback
	// (development and tests).
	WebhookAllowHTTPLoopback bool
}
