package main

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	"gorm.io/gorm"

	"ppwr/internal/telemetry"
)

// telemetryScenario measures what metrics and tracing cost a request:
// the item read of itemReadScenario through the same API, once as ppwr
// serve runs without a collector (no OTEL_EXPORTER_OTLP_ENDPOINT, nobody
// scraping), once with its metrics registry scraped and its traces
// exported to an OTLP sink in this process. The request counters of the
// pipeline count in both: they are package series, moved whether or not a
// registry serves them. Tracing samples as ppwr serve does (one request in
// ten by default); OTEL_TRACES_SAMPLER=always_on measures every request.
const telemetryScenario = "telemetry GET /catalog-items/{id}"

// telemetryMinRatio is the target: at most 5 % fewer requests per
// second with metrics and tracing on.
const telemetryMinRatio = 0.95

// scrapeEvery is far more often than Prometheus scrapes (15 s to 1 min),
// so the scrapes' share is an upper bound.
const scrapeEvery = time.Second

func runTelemetry(o options, db *gorm.DB, base string, read scenario) error {
	sink := &otlpSink{}
	sinkURL, stopSink, err := listen(sink)
	if err != nil {
		return err
	}
	defer stopSink()
	// The traces-only variable would win over the one the scenario sets.
	if err := os.Unsetenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); err != nil {
		return err
	}
	slice, warmup := o.duration/measureRounds, o.warmup/measureRounds
	var off, on telemetryTally
	var scrapes scrapeCount
	runOff := func() error {
		cpu := processCPU()
		off.add(measure(o.conns, slice, warmup, off.counted(read, base)), processCPU()-cpu)
		return nil
	}
	runOn := func() error {
		cpu := processCPU()
		r, err := withTelemetry(db, sinkURL, &scrapes, func() result { return measure(o.conns, slice, warmup, on.counted(read, base)) })
		on.add(r, processCPU()-cpu)
		return err
	}
	for round := range measureRounds {
		// Each goes first in every other round, so neither always
		// follows the other.
		order := []func() error{runOff, runOn}
		if round%2 == 1 {
			slices.Reverse(order)
		}
		for _, run := range order {
			if err := run(); err != nil {
				return err
			}
		}
	}
	off.result.print(telemetryScenario, "off")
	on.result.print(telemetryScenario, "metrics+traces")
	ratio := on.result.rps() / off.result.rps()
	verdict := "met"
	if ratio < telemetryMinRatio {
		verdict = "NOT met"
	}
	fmt.Printf("%-34s %-16s %4s %9.1f%% of off req/s  (target >= %.0f%%: %s)\n", telemetryScenario, "on/off", "", 100*ratio, 100*telemetryMinRatio, verdict)
	fmt.Printf("%-34s %-16s %4s off %s, metrics+traces %s (%+.1f%%): this process's CPU time (API, load, sink; not PostgreSQL's) per request sent\n",
		telemetryScenario, "CPU/request", "", off.cpuPerRequest(), on.cpuPerRequest(), 100*(float64(on.cpuPerRequest())/float64(off.cpuPerRequest())-1))
	s := sink.counts()
	fmt.Printf("%-34s %-16s %4s %d request spans for %d requests sent, %d SQL spans (%.1f per request), %d spans in all; %d POSTs, %.1f MB to the OTLP sink; %d scrapes of /metrics, %.1f MB\n\n",
		telemetryScenario, "exported", "", s.requests, on.requests.Load(), s.sql, float64(s.sql)/float64(max(s.requests, 1)), s.spans,
		s.posts, float64(s.bytes)/1e6, scrapes.n.Load(), float64(scrapes.bytes.Load())/1e6)
	return nil
}

// telemetryTally sums the slices of one of the runs.
type telemetryTally struct {
	result result
	// requests counts the requests sent, warm-up included, as cpu does.
	requests atomic.Int64
	cpu      time.Duration
}

// counted is read's request, counted.
func (t *telemetryTally) counted(read scenario, base string) func(int) (*http.Request, error) {
	return func(i int) (*http.Request, error) {
		t.requests.Add(1)
		return read.fullRequest(base, i)
	}
}

func (t *telemetryTally) add(r result, cpu time.Duration) {
	t.result.add(r)
	t.cpu += cpu
}

func (t *telemetryTally) cpuPerRequest() time.Duration {
	return (t.cpu / time.Duration(max(t.requests.Load(), 1))).Round(100 * time.Nanosecond)
}

// processCPU is the CPU time this process has used. It moves less than
// requests per second with what else the machine runs, but counts the
// load generator and the sink beside the API, and not PostgreSQL.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// withTelemetry runs measure with telemetry on as ppwr serve turns it on:
// traces to OTLP through telemetry.StartTracing, read from
// OTEL_EXPORTER_OTLP_ENDPOINT, and the process's metrics registry with the
// pool's series, scraped every scrapeEvery. Afterwards the spans still
// batched are flushed to the sink and tracing is off again.
func withTelemetry(db *gorm.DB, sinkURL string, scrapes *scrapeCount, measure func() result) (result, error) {
	if err := os.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", sinkURL); err != nil {
		return result{}, err
	}
	stopTracing, err := telemetry.StartTracing(context.Background(), "ppwr-bench")
	_ = os.Unsetenv("OTEL_EXPORTER_OTLP_ENDPOINT")
	if err != nil {
		return result{}, err
	}
	metrics, err := telemetry.NewMetrics()
	if err == nil {
		err = metrics.WatchDB(db)
	}
	if err != nil {
		_ = stopTracing(context.Background())
		return result{}, err
	}
	defer metrics.Close()
	metricsURL, stopMetrics, err := listen(metrics.Handler())
	if err != nil {
		_ = stopTracing(context.Background())
		return result{}, err
	}
	defer stopMetrics()
	done := make(chan struct{})
	var scraper sync.WaitGroup
	scraper.Go(func() { scrapes.run(metricsURL, done) })
	r := measure()
	close(done)
	scraper.Wait()
	return r, stopTracing(context.Background())
}

// scrapeCount counts the scrapes of the metrics listener and their bytes.
type scrapeCount struct{ n, bytes atomic.Int64 }

// run scrapes url at once, so that a slice shorter than scrapeEvery has
// its scrape too, and then every scrapeEvery until done.
func (s *scrapeCount) run(url string, done <-chan struct{}) {
	tick := time.NewTicker(scrapeEvery)
	defer tick.Stop()
	for {
		s.scrape(url)
		select {
		case <-done:
			return
		case <-tick.C:
		}
	}
}

func (s *scrapeCount) scrape(url string) {
	res, err := http.Get(url)
	if err != nil {
		return
	}
	n, _ := io.Copy(io.Discard, res.Body)
	_ = res.Body.Close()
	if res.StatusCode == http.StatusOK {
		s.n.Add(1)
		s.bytes.Add(n)
	}
}

// otlpSink is a collector's OTLP/HTTP traces endpoint: it counts each
// export's spans by scope (the API's request spans, the SQL
// spans) and its bytes, so the scenario shows that spans reached it.
type otlpSink struct {
	mu sync.Mutex
	c  sinkCounts
}

type sinkCounts struct {
	posts, bytes, spans, requests, sql int64
}

func (c *sinkCounts) add(d sinkCounts) {
	c.posts += d.posts
	c.bytes += d.bytes
	c.spans += d.spans
	c.requests += d.requests
	c.sql += d.sql
}

func (s *otlpSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" {
		http.NotFound(w, r)
		return
	}
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	raw, err := io.ReadAll(body)
	c := sinkCounts{posts: 1, bytes: int64(len(raw))}
	if err == nil {
		err = countSpans(raw, &c)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.c.add(c)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.WriteHeader(http.StatusOK)
}

// countSpans counts the spans of an ExportTraceServiceRequest by their
// scope's name, walking its wire format rather than decoding it: the sink
// shares the cores with the API, and decoding every span would be charged
// to the run with tracing on.
func countSpans(export []byte, c *sinkCounts) error {
	// Field numbers of opentelemetry/proto/trace/v1/trace.proto (and the
	// collector's request, whose field 1 is the resource spans too).
	const resourceSpans, scopeSpans, scope, spans, scopeName = 1, 2, 1, 2, 1
	return eachBytes(export, func(num protowire.Number, rs []byte) error {
		if num != resourceSpans {
			return nil
		}
		return eachBytes(rs, func(num protowire.Number, ss []byte) error {
			if num != scopeSpans {
				return nil
			}
			var name string
			var n int64
			err := eachBytes(ss, func(num protowire.Number, v []byte) error {
				switch num {
				case scope:
					return eachBytes(v, func(num protowire.Number, v []byte) error {
						if num == scopeName {
							name = string(v)
						}
						return nil
					})
				case spans:
					n++
				}
				return nil
			})
			c.spans += n
			switch name {
			case "ppwr/api":
				c.requests += n
			case "ppwr/sql":
				c.sql += n
			}
			return err
		})
	})
}

// eachBytes calls fn with each length-delimited field of the message msg
// (messages, strings, bytes) and skips the others.
func eachBytes(msg []byte, fn func(protowire.Number, []byte) error) error {
	for len(msg) > 0 {
		num, typ, n := protowire.ConsumeTag(msg)
		if n < 0 {
			return protowire.ParseError(n)
		}
		msg = msg[n:]
		if typ != protowire.BytesType {
			if n = protowire.ConsumeFieldValue(num, typ, msg); n < 0 {
				return protowire.ParseError(n)
			}
			msg = msg[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(msg)
		if n < 0 {
			return protowire.ParseError(n)
		}
		if err := fn(num, v); err != nil {
			return err
		}
		msg = msg[n:]
	}
	return nil
}

func (s *otlpSink) counts() sinkCounts {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c
}
