// Package config reads the service configuration from environment variables.
// Every value has a default that points at the local stack `make run` starts,
// so the binary works in a second terminal without any setup.
package config

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Config is the whole configuration shared by every subcommand.
type Config struct {
	HTTPAddr    string
	DatabaseURL string
	// DatabaseListenURL is a direct (session) connection for LISTEN, which
	// transaction-pooling proxies such as PgBouncer do not pass through.
	DatabaseListenURL string
	TemporalAddress   string
	TemporalNamespace string
	TemporalTaskQueue string
	TemporalUIURL     string // where people open a run in the Temporal UI (temporalclient.UILink)
	// TemporalTLS secures the connection to Temporal, nil for plain gRPC;
	// TemporalAPIKey, when set, authenticates every call (temporalTLS).
	TemporalTLS        *tls.Config
	TemporalAPIKey     string
	S3Endpoint         string
	S3Bucket           string
	S3Region           string
	AWSAccessKeyID     string
	AWSSecretAccessKey string
	SMTPURL            string
	MailFrom           string
	MailReplyAddress   string
	PublicBaseURL      string
	ClamdAddress       string
	// TrustedProxies lists the CIDRs whose X-Forwarded-For is believed when
	// the organization IP allow-list is evaluated; empty means the socket peer.
	TrustedProxies []string
	// RateLimitPerMinute and RecommendationRateLimitPerMinute are the spec's
	// limits (120 and 10); they are configurable only so that load tests can
	// exercise the full pipeline without being throttled.
	RateLimitPerMinute               int
	RecommendationRateLimitPerMinute int
	// WebhookAllowHTTPLoopback lets endpoints use plain http to a loopback
	// address (development and tests); production receivers need https.
	WebhookAllowHTTPLoopback bool
	// WebhookRetryInitial and WebhookRetryFor shape the delivery retries:
	// exponential backoff from the initial interval, given up after the
	// total time.
	WebhookRetryInitial time.Duration
	WebhookRetryFor     time.Duration
	// ReservationTimerCap, when set, shortens the wait of reservation
	// expiry workflows to at most this long (tests only); 0 is off.
	ReservationTimerCap time.Duration
	// DocumentMaxBytes bounds an uploaded document.
	DocumentMaxBytes int64
	// InboundSMTPAddr is where supplier replies arrive; InboundMaxBytes
	// bounds one message.
	InboundSMTPAddr string
	InboundMaxBytes int64
	// S3Timeout and DatabaseTimeout bound each wait of a request on the
	// object store and on PostgreSQL (internal/bound): past them the
	// request answers 503 service_unavailable rather than hang.
	S3Timeout       time.Duration
	DatabaseTimeout time.Duration
	// WorkerHealthAddr is where `ppwr worker` answers /healthz and
	// /readyz, the API's being on its own engine.
	WorkerHealthAddr string
	// MetricsAddr is where /metrics listens; empty means the process's
	// own default (MetricsDefault), "off" serves none.
	MetricsAddr string
	// SupportAddr is where the support console (`ppwr support`) listens.
	SupportAddr string
	// SupportTrustedHeader, when set, is the request header an SSO proxy
	// in front of the console names the signed-in person in; empty, the
	// console trusts no header and asks for a support token.
	SupportTrustedHeader string
}

// Default metrics listeners: serve and dev on one port, the worker on the
// next, so an API and a worker on one host do not collide.
const (
	MetricsDefaultAPI    = "127.0.0.1:9464"
	MetricsDefaultWorker = "127.0.0.1:9465"
	MetricsOff           = "off"
)

// Variable documents one environment variable; README and `ppwr help` are
// generated from this list so they cannot drift from the code.
type Variable struct {
	Name        string
	Default     string
	Description string
}

// Variables is every environment variable the service reads, with its default.
var Variables = []Variable{
	{"HTTP_ADDR", "127.0.0.1:8080", "address the HTTP API listens on"},
	{"DATABASE_URL", "postgres://postgres@127.0.0.1:5432/ppwr?sslmode=disable", "PostgreSQL connection URL"},
	{"DATABASE_LISTEN_URL", "", "direct PostgreSQL connection for the LISTEN of the credential cache and the workflow start relay (default: DATABASE_URL; set it when DATABASE_URL goes through a transaction-pooling proxy)"},
	{"TEMPORAL_ADDRESS", "127.0.0.1:7233", "Temporal frontend host:port"},
	{"TEMPORAL_NAMESPACE", "default", "Temporal namespace"},
	{"TEMPORAL_TASK_QUEUE", "ppwr", "task queue of the worker"},
	{"TEMPORAL_TLS_CLIENT_CERT_PATH", "", "file of the PEM client certificate for mTLS to Temporal (Temporal Cloud, or a cluster that requires it), with TEMPORAL_TLS_CLIENT_KEY_PATH; any TEMPORAL_TLS_* setting turns TLS on"},
	{"TEMPORAL_TLS_CLIENT_KEY_PATH", "", "file of the PEM private key of TEMPORAL_TLS_CLIENT_CERT_PATH"},
	{"TEMPORAL_TLS_SERVER_CA_CERT_PATH", "", "file of the PEM CA certificates that sign the Temporal server's certificate (default: the system's roots, which Temporal Cloud needs)"},
	{"TEMPORAL_TLS_SERVER_NAME", "", "name the Temporal server's certificate is checked against (default: the host of TEMPORAL_ADDRESS)"},
	{"TEMPORAL_API_KEY", "", "Temporal Cloud API key, sent as a bearer token with every call instead of (or besides) a client certificate; turns TLS on"},
	{"TEMPORAL_UI_URL", "http://127.0.0.1:8233", "base URL of the Temporal UI, where the support console links each workflow run (Temporal Cloud: https://cloud.temporal.io)"},
	{"S3_ENDPOINT", "http://127.0.0.1:7070", "S3-compatible endpoint (empty for AWS S3)"},
	{"S3_BUCKET", "ppwr", "bucket holding uploaded and generated files"},
	{"S3_REGION", "us-east-1", "S3 region"},
	{"AWS_ACCESS_KEY_ID", "ppwr-local", "S3 access key"},
	{"AWS_SECRET_ACCESS_KEY", "ppwr-local-secret", "S3 secret key"},
	{"SMTP_URL", "smtp://127.0.0.1:1025", "SMTP server for outgoing mail (smtp:// plain, smtp+starttls:// or smtps://; user:password@ optional)"},
	{"MAIL_FROM", "ppwr@localhost", "sender address of outgoing mail"},
	{"MAIL_REPLY_ADDRESS", "replies@ppwr.localhost", "base address supplier replies go to; each request's Reply-To is local+token@domain of it"},
	{"INBOUND_SMTP_ADDR", "127.0.0.1:2525", "address `ppwr mailin` (and `ppwr dev`) receives supplier replies on over SMTP; the MTA of MAIL_REPLY_ADDRESS's domain relays mail for it here"},
	{"INBOUND_MAX_BYTES", "73400320", "largest reply message in bytes (SMTP SIZE); a larger one is refused with 552. Attachments are base64-encoded, a third larger than the files: keep it above 4/3 of DOCUMENT_MAX_BYTES"},
	{"PUBLIC_BASE_URL", "http://127.0.0.1:8080", "external base URL, used in pagination links and mails"},
	{"CLAMD_ADDRESS", "127.0.0.1:3310", "ClamAV clamd address (host:port or unix:/path); production points it at a clamd with the official signatures"},
	{"TRUSTED_PROXIES", "", "comma-separated CIDRs of reverse proxies whose X-Forwarded-For is trusted"},
	{"RATE_LIMIT_PER_MINUTE", "120", "requests per minute per user (spec: 120)"},
	{"RECOMMENDATION_RATE_LIMIT_PER_MINUTE", "10", "extra limit on /packing-recommendations (spec: 10)"},
	{"DOCUMENT_MAX_BYTES", "52428800", "largest document upload in bytes; a larger one is refused with 413 and nothing is kept"},
	{"WEBHOOK_ALLOW_HTTP_LOOPBACK", "false", "allow plain-http webhook endpoints on loopback addresses (development only)"},
	{"WEBHOOK_RETRY_INITIAL_INTERVAL", "30s", "first retry delay of a failed webhook delivery (doubles up to 6h)"},
	{"WEBHOOK_RETRY_FOR", "72h", "how long a webhook delivery is retried before it is marked failed"},
	{"WORKER_HEALTH_ADDR", "127.0.0.1:8081", "address `ppwr worker` answers /healthz and /readyz on (readiness names each dependency that does not answer: postgres, temporal, s3, clamd, smtp); empty: no listener"},
	{"S3_TIMEOUT", "20s", "longest wait on the object store in one call or one stalled stretch of a transfer; past it the request answers 503 service_unavailable and keeps nothing"},
	{"DATABASE_TIMEOUT", "10s", "longest wait on PostgreSQL for one statement, begin or commit; past it the request answers 503 service_unavailable and keeps nothing"},
	{"SUPPORT_ADDR", "127.0.0.1:8090", "address the support console (`ppwr support`, and `ppwr dev`) listens on; its session cookie is Secure unless this is a loopback address"},
	{"SUPPORT_TRUSTED_HEADER", "", "header (such as X-Forwarded-User) naming the person an SSO proxy signed in, trusted by the support console; only for a proxy that strips the clients' own copies of it. Empty: off, support tokens only"},
	{"METRICS_ADDR", "", "address of the Prometheus /metrics listener, apart from the API (default: 127.0.0.1:9464 for serve and dev, 127.0.0.1:9465 for worker; off: none)"},
	{"RESERVATION_TIMER_CAP", "", "TEST ONLY: caps the wait of a reservation's expiry timer (a Go duration such as 2s), so a reservation expires before its expires_at; empty: off"},
}

// FromEnv reads the configuration, applying defaults for unset variables.
func FromEnv() (Config, error) {
	get := func(name string) string {
		if v, ok := os.LookupEnv(name); ok {
			return v
		}
		for _, v := range Variables {
			if v.Name == name {
				return v.Default
			}
		}
		panic("config: undeclared variable " + name)
	}
	c := Config{
		HTTPAddr:             get("HTTP_ADDR"),
		DatabaseURL:          get("DATABASE_URL"),
		DatabaseListenURL:    get("DATABASE_LISTEN_URL"),
		TemporalAddress:      get("TEMPORAL_ADDRESS"),
		TemporalNamespace:    get("TEMPORAL_NAMESPACE"),
		TemporalTaskQueue:    get("TEMPORAL_TASK_QUEUE"),
		TemporalUIURL:        strings.TrimRight(get("TEMPORAL_UI_URL"), "/"),
		S3Endpoint:           get("S3_ENDPOINT"),
		S3Bucket:             get("S3_BUCKET"),
		S3Region:             get("S3_REGION"),
		AWSAccessKeyID:       get("AWS_ACCESS_KEY_ID"),
		AWSSecretAccessKey:   get("AWS_SECRET_ACCESS_KEY"),
		SMTPURL:              get("SMTP_URL"),
		MailFrom:             get("MAIL_FROM"),
		MailReplyAddress:     get("MAIL_REPLY_ADDRESS"),
		InboundSMTPAddr:      get("INBOUND_SMTP_ADDR"),
		PublicBaseURL:        strings.TrimRight(get("PUBLIC_BASE_URL"), "/"),
		ClamdAddress:         get("CLAMD_ADDRESS"),
		WorkerHealthAddr:     get("WORKER_HEALTH_ADDR"),
		MetricsAddr:          get("METRICS_ADDR"),
		SupportAddr:          get("SUPPORT_ADDR"),
		SupportTrustedHeader: strings.TrimSpace(get("SUPPORT_TRUSTED_HEADER")),
	}
	if c.DatabaseListenURL == "" {
		c.DatabaseListenURL = c.DatabaseURL
	}
	for _, p := range strings.Split(get("TRUSTED_PROXIES"), ",") {
		if p = strings.TrimSpace(p); p != "" {
			c.TrustedProxies = append(c.TrustedProxies, p)
		}
	}
	var err error
	if c.RateLimitPerMinute, err = positiveInt("RATE_LIMIT_PER_MINUTE", get("RATE_LIMIT_PER_MINUTE")); err != nil {
		return c, err
	}
	if c.RecommendationRateLimitPerMinute, err = positiveInt("RECOMMENDATION_RATE_LIMIT_PER_MINUTE", get("RECOMMENDATION_RATE_LIMIT_PER_MINUTE")); err != nil {
		return c, err
	}
	if c.WebhookAllowHTTPLoopback, err = strconv.ParseBool(get("WEBHOOK_ALLOW_HTTP_LOOPBACK")); err != nil {
		return c, fmt.Errorf("config: WEBHOOK_ALLOW_HTTP_LOOPBACK must be true or false")
	}
	if c.WebhookRetryInitial, err = positiveDuration("WEBHOOK_RETRY_INITIAL_INTERVAL", get("WEBHOOK_RETRY_INITIAL_INTERVAL")); err != nil {
		return c, err
	}
	if c.WebhookRetryFor, err = positiveDuration("WEBHOOK_RETRY_FOR", get("WEBHOOK_RETRY_FOR")); err != nil {
		return c, err
	}
	documentMax, err := positiveInt("DOCUMENT_MAX_BYTES", get("DOCUMENT_MAX_BYTES"))
	if err != nil {
		return c, err
	}
	c.DocumentMaxBytes = int64(documentMax)
	inboundMax, err := positiveInt("INBOUND_MAX_BYTES", get("INBOUND_MAX_BYTES"))
	if err != nil {
		return c, err
	}
	c.InboundMaxBytes = int64(inboundMax)
	if c.S3Timeout, err = positiveDuration("S3_TIMEOUT", get("S3_TIMEOUT")); err != nil {
		return c, err
	}
	if c.DatabaseTimeout, err = positiveDuration("DATABASE_TIMEOUT", get("DATABASE_TIMEOUT")); err != nil {
		return c, err
	}
	c.TemporalAPIKey = get("TEMPORAL_API_KEY")
	if c.TemporalTLS, err = temporalTLS(get("TEMPORAL_TLS_CLIENT_CERT_PATH"), get("TEMPORAL_TLS_CLIENT_KEY_PATH"),
		get("TEMPORAL_TLS_SERVER_CA_CERT_PATH"), get("TEMPORAL_TLS_SERVER_NAME"), c.TemporalAPIKey != ""); err != nil {
		return c, err
	}
	if raw := get("RESERVATION_TIMER_CAP"); raw != "" {
		if c.ReservationTimerCap, err = positiveDuration("RESERVATION_TIMER_CAP", raw); err != nil {
			return c, err
		}
	}
	return c, nil
}

// temporalTLS is the TLS of the connection to Temporal: on when any TLS
// setting or an API key is set, as Temporal's own environment
// configuration (CLI and SDKs), whose variable names these are, turns it
// on; nil otherwise. Every file is read here, so a wrong path or a
// certificate without its key stops the process as it starts, not at its
// first call to Temporal.
func temporalTLS(certFile, keyFile, caFile, serverName string, apiKey bool) (*tls.Config, error) {
	switch {
	case certFile != "" && keyFile == "":
		return nil, errors.New("config: TEMPORAL_TLS_CLIENT_CERT_PATH is set without TEMPORAL_TLS_CLIENT_KEY_PATH, its private key")
	case certFile == "" && keyFile != "":
		return nil, errors.New("config: TEMPORAL_TLS_CLIENT_KEY_PATH is set without TEMPORAL_TLS_CLIENT_CERT_PATH, the certificate it belongs to")
	case certFile == "" && caFile == "" && serverName == "" && !apiKey:
		return nil, nil
	}
	c := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: serverName}
	if certFile != "" {
		pair, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("config: TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH: %w", err)
		}
		c.Certificates = []tls.Certificate{pair}
	}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("config: TEMPORAL_TLS_SERVER_CA_CERT_PATH: %w", err)
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("config: TEMPORAL_TLS_SERVER_CA_CERT_PATH: %s holds no PEM certificate", caFile)
		}
	}
	return c, nil
}

func positiveDuration(name, raw string) (time.Duration, error) {
	d, err := time.ParseDuration(raw)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("config: %s must be a positive duration such as 30s, got %q", name, raw)
	}
	return d, nil
}

func positiveInt(name, raw string) (int, error) {
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("config: %s must be a positive integer, got %q", name, raw)
	}
	return n, nil
}
