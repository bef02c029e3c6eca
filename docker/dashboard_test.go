package docker_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"ppwr/api/apitest"
	"ppwr/domain/webhooks"
	"ppwr/internal/config"
	"ppwr/internal/telemetry"
	"ppwr/internal/temporalclient"
	"ppwr/internal/testenv"
	"ppwr/worker"
)

// targetLabels are the labels Prometheus adds to every series it scrapes.
var targetLabels = []string{"job", "instance"}

// Every series a dashboard query selects, and every label it matches on
// or groups by, is exposed by a process Prometheus scrapes, on the path it
// scrapes: each scraped service's registry, composed as its command
// composes it (openApp's pool for all, runWorker's relay gauges and the
// Temporal SDK's series for the worker), after the work each panel
// shows: requests answered and refused, a webhook delivered, an import
// applied and a workflow failed.
func TestDashboardQueriesSeriesTheProcessesExpose(t *testing.T) {
	services := readCompose(t)
	all := queries(t, provisionedDashboards(t, services))
	targets := scrapeTargets(t, services)

	db := testenv.DB(t)
	registries := map[string]*telemetry.Metrics{} // by target
	var workerMetrics *telemetry.Metrics
	for target := range targets {
		name, _, err := net.SplitHostPort(target)
		require.NoError(t, err)
		require.Contains(t, services, name, "%s is a compose service", target)
		m, err := telemetry.NewMetrics()
		require.NoError(t, err)
		t.Cleanup(m.Close)
		require.NoError(t, m.WatchDB(db))
		if services[name].command() == "worker" {
			require.NoError(t, m.WatchRelay(db))
			workerMetrics = m
		}
		registries[target] = m
	}
	require.NotNil(t, workerMetrics, "Prometheus scrapes the worker")

	tc, err := temporalclient.Dial(config.Config{TemporalAddress: testenv.TemporalAddress(t), TemporalNamespace: "default"}, func(o *client.Options) error {
		o.MetricsHandler = workerMetrics.Temporal
		return nil
	})
	require.NoError(t, err)
	t.Cleanup(tc.Close)
	queue := "ppwr-dashboard-" + uuid.NewString()
	w := worker.New(worker.Deps{DB: db, Temporal: tc, TaskQueue: queue, Storage: testenv.Storage(t), WebhookAllowHTTPLoopback: true})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	ctx, cancel := context.WithCancel(context.Background())
	relayed := make(chan struct{})
	go func() {
		defer close(relayed)
		relay := &worker.Relay{DB: db, Temporal: tc, TaskQueue: queue, RetryInitial: time.Second, RetryFor: time.Minute, Interval: 50 * time.Millisecond}
		relay.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-relayed
	})

	a := apitest.New(t, apitest.WithServices(), apitest.WithConfig(func(c *config.Config) { c.WebhookAllowHTTPLoopback = true }))
	tn := a.NewTenant(apitest.TenantSpec{})
	post := func(path string, body any, headers map[string]string) *apitest.Response {
		h := map[string]string{"Idempotency-Key": apitest.IdemKey()}
		for k, v := range headers {
			h[k] = v
		}
		return a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path(path), Token: tn.Token, Body: body, Headers: h})
	}
	get := func(path string) *apitest.Response {
		return a.Do(apitest.Req{Path: tn.Path(path), Token: tn.Token})
	}
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(receiver.Close)
	res := post("/webhook-endpoints", map[string]any{"url": receiver.URL}, nil)
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	res = post("/catalog-items", map[string]any{"internalCode": "DASHBOARD-1", "name": "Dashboard", "sourcingType": "purchased", "massG": "1",
		"mainMaterialCode": "PAPER", "stockUnit": "piece", "foodContactStatus": "unknown", "reuseType": "single_use"}, nil)
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	require.Equal(t, http.StatusOK, get("/catalog-items/"+res.JSON["id"].(string)).Code)
	require.Equal(t, http.StatusNotFound, get("/catalog-items/"+uuid.NewString()).Code)

	form, contentType := apitest.Form(t, map[string]string{"type": "catalog"}, "dashboard.csv", []byte(
		"internalCode,name,sourcingType,massG,mainMaterialCode,stockUnit,stockTracked,foodContactStatus,reuseType\n"+
			"DASHBOARD-2,Imported,purchased,10,PLASTIC_PET,piece,false,not_food_contact,single_use\n"))
	res = post("/imports", form, map[string]string{"Content-Type": contentType})
	require.Equal(t, http.StatusAccepted, res.Code, res.Body.String())
	imp := "/imports/" + res.JSON["id"].(string)
	importIs := func(status string) func() bool {
		return func() bool { return get(imp).JSON["status"] == status }
	}
	await(t, "the import's preview", importIs("ready"))
	res = post(imp+"/apply", nil, nil)
	require.Equal(t, http.StatusAccepted, res.Code, res.Body.String())
	await(t, "the import's apply", importIs("completed"))
	await(t, "a webhook delivered", func() bool {
		var delivered int64
		require.NoError(t, db.Model(&webhooks.WebhookDelivery{}).Where("status = ?", webhooks.DeliverySucceeded).Count(&delivered).Error)
		return delivered > 0
	})

	// A run that fails, as any workflow returning an error does: this one
	// cannot read its input.
	wctx, wcancel := context.WithTimeout(ctx, time.Minute)
	defer wcancel()
	run, err := tc.ExecuteWorkflow(wctx, client.StartWorkflowOptions{ID: "dashboard/" + uuid.NewString(), TaskQueue: queue},
		webhooks.DeliveryWorkflow.Type, "not a delivery")
	require.NoError(t, err)
	require.Error(t, run.Get(wctx, nil), "the run failed")

	exposed := map[string]map[string]bool{} // series → its labels
	for target, m := range registries {
		scrape(t, m, targets[target].metricsPath(), exposed)
	}
	for _, q := range all {
		for _, s := range q.selectors {
			labels, ok := exposed[s.metric]
			if !assert.True(t, ok, "%s: %s selects %s, which no scraped process exposes", q.panel, q.expr, s.metric) {
				continue
			}
			for l := range s.matchers {
				assert.True(t, labels[l] || isTargetLabel(l), "%s: %s matches on %s, which %s has not", q.panel, q.expr, l, s.metric)
			}
			for _, l := range q.by {
				assert.True(t, labels[l] || isTargetLabel(l), "%s: %s groups by %s, which %s has not", q.panel, q.expr, l, s.metric)
			}
		}
	}
}

func isTargetLabel(l string) bool { return slices.Contains(targetLabels, l) }

// await calls check until it answers true, for at most a minute.
func await(t *testing.T, what string, check func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !check(); time.Sleep(50 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "waited a minute for %s", what)
	}
}

// scrape serves m on a listener of its own, as the process does on
// METRICS_ADDR, reads path as Prometheus does, and adds to series the
// series Prometheus would store, with their label names: a histogram's
// _bucket (with le), _sum and _count, a summary's quantiles, _sum and
// _count.
func scrape(t *testing.T, m *telemetry.Metrics, path string, series map[string]map[string]bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addr := "127.0.0.1:" + testenv.FreePort()
	served := make(chan error, 1)
	go func() { served <- m.Serve(ctx, addr) }()
	defer func() {
		cancel()
		require.NoError(t, <-served)
	}()
	var res *http.Response
	await(t, "the metrics listener", func() bool {
		var err error
		res, err = http.Get("http://" + addr + path)
		return err == nil
	})
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode, "GET %s", path)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(res.Body)
	require.NoError(t, err)
	add := func(name string, pairs []*dto.LabelPair, extra ...string) {
		if series[name] == nil {
			series[name] = map[string]bool{}
		}
		for _, p := range pairs {
			series[name][p.GetName()] = true
		}
		for _, l := range extra {
			series[name][l] = true
		}
	}
	for name, f := range families {
		for _, metric := range f.GetMetric() {
			switch f.GetType() {
			case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
				add(name+"_bucket", metric.GetLabel(), "le")
				add(name+"_sum", metric.GetLabel())
				add(name+"_count", metric.GetLabel())
			case dto.MetricType_SUMMARY:
				add(name, metric.GetLabel(), "quantile")
				add(name+"_sum", metric.GetLabel())
				add(name+"_count", metric.GetLabel())
			default:
				add(name, metric.GetLabel())
			}
		}
	}
}
