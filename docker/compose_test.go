// The tests of this package read the deployment's monitoring files as
// Prometheus and Grafana read them in the containers compose.yaml makes:
// every file is found through the mount compose gives it, so a file that
// is not mounted where the image looks for it is as good as missing. No
// test runs Docker; the series the dashboard queries are exposed for real
// by the processes' registries (dashboard_test.go).
package docker_test

import (
	"bytes"
	"encoding/json"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"ppwr/internal/config"
	"ppwr/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// Where the images look for their configuration, none of which
// compose.yaml overrides.
const (
	// prometheusConfigPath is the prom/prometheus image's --config.file.
	prometheusConfigPath = "/etc/prometheus/prometheus.yml"
	// prometheusPort is Prometheus's default --web.listen-address port.
	prometheusPort = "9090"
	// grafanaProvisioning is the grafana image's GF_PATHS_PROVISIONING.
	grafanaProvisioning = "/etc/grafana/provisioning"
	// ppwrDockerfile builds the image every ppwr process runs.
	ppwrDockerfile = "docker/Dockerfile"
)

// service is what the tests read of a compose service.
type service struct {
	Image string `yaml:"image"`
	Build struct {
		Dockerfile string `yaml:"dockerfile"`
	} `yaml:"build"`
	Command     []string          `yaml:"command"`
	Environment map[string]string `yaml:"environment"`
	Volumes     []string          `yaml:"volumes"`
	Restart     string            `yaml:"restart"`
}

// command is the ppwr command a service of the ppwr image runs: the
// image's CMD when compose names none.
func (s service) command() string {
	if len(s.Command) == 0 {
		return "serve"
	}
	return s.Command[0]
}

// readCompose reads compose.yaml, its anchors and merge keys resolved.
func readCompose(t *testing.T) map[string]service {
	t.Helper()
	var compose struct {
		Services map[string]service `yaml:"services"`
	}
	require.NoError(t, yaml.Unmarshal(readFile(t, "compose.yaml"), &compose))
	require.NotEmpty(t, compose.Services)
	return compose.Services
}

// only is the one service whose image starts with image.
func only(t *testing.T, services map[string]service, image string) (string, service) {
	t.Helper()
	var names []string
	for name, s := range services {
		if strings.HasPrefix(s.Image, image) {
			names = append(names, name)
		}
	}
	require.Len(t, names, 1, "services of %s", image)
	return names[0], services[names[0]]
}

// mounted is the file or directory of docker/ that the service has at
// target, through a bind mount.
func (s service) mounted(t *testing.T, target string) string {
	t.Helper()
	for _, v := range s.Volumes {
		parts := strings.Split(v, ":")
		if len(parts) >= 2 && parts[1] == target {
			require.True(t, strings.HasPrefix(parts[0], "./"), "%s is a bind mount of a file of docker/: %s", target, v)
			return filepath.Clean(parts[0])
		}
	}
	t.Fatalf("nothing is mounted at %s (volumes %v)", target, s.Volumes)
	return ""
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	return raw
}

// decodeStrict decodes a YAML file into v, refusing keys v does not
// declare: a misspelt key would otherwise be ignored by the test and by
// the program alike.
func decodeStrict(t *testing.T, path string, v any) {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(readFile(t, path)))
	dec.KnownFields(true)
	require.NoError(t, dec.Decode(v), path)
}

// metricsListeners are the long-running ppwr processes of compose.yaml
// (its one-shot commands run with restart "no") and the port of each
// one's metrics listener, by service.
func metricsListeners(t *testing.T, services map[string]service) map[string]string {
	t.Helper()
	ports := map[string]string{}
	for name, s := range services {
		if s.Build.Dockerfile != ppwrDockerfile || s.Restart == "no" {
			continue
		}
		addr := s.Environment["METRICS_ADDR"]
		require.NotEmpty(t, addr, "%s: without METRICS_ADDR a process listens on loopback or not at all", name)
		if addr == config.MetricsOff {
			continue
		}
		host, port, err := net.SplitHostPort(addr)
		require.NoError(t, err, "%s: METRICS_ADDR", name)
		assert.Contains(t, []string{"", "0.0.0.0", "::"}, host, "%s: METRICS_ADDR must listen where Prometheus's container reaches it", name)
		ports[name] = port
	}
	return ports
}

// scrapeConfig is one job of prometheus.yml.
type scrapeConfig struct {
	JobName       string `yaml:"job_name"`
	Scheme        string `yaml:"scheme"`
	MetricsPath   string `yaml:"metrics_path"`
	StaticConfigs []struct {
		Targets []string `yaml:"targets"`
	} `yaml:"static_configs"`
}

// scrapeTargets reads the Prometheus configuration compose mounts and
// returns its jobs by target (host:port).
func scrapeTargets(t *testing.T, services map[string]service) map[string]scrapeConfig {
	t.Helper()
	_, prometheus := only(t, services, "prom/prometheus:")
	var cfg struct {
		Global struct {
			ScrapeInterval string `yaml:"scrape_interval"`
		} `yaml:"global"`
		ScrapeConfigs []scrapeConfig `yaml:"scrape_configs"`
	}
	decodeStrict(t, prometheus.mounted(t, prometheusConfigPath), &cfg)
	targets := map[string]scrapeConfig{}
	var jobs []string
	for _, job := range cfg.ScrapeConfigs {
		require.NotEmpty(t, job.JobName)
		require.NotContains(t, jobs, job.JobName, "job names are unique")
		jobs = append(jobs, job.JobName)
		for _, sc := range job.StaticConfigs {
			for _, target := range sc.Targets {
				require.NotContains(t, targets, target, "%s is scraped once", target)
				targets[target] = job
			}
		}
	}
	return targets
}

// metricsPath is the path Prometheus scrapes for a job.
func (c scrapeConfig) metricsPath() string {
	if c.MetricsPath == "" {
		return "/metrics"
	}
	return c.MetricsPath
}

// Prometheus scrapes the metrics listener of every long-running ppwr
// process, at the port compose gives it, and nothing else.
func TestPrometheusScrapesEveryPpwrProcess(t *testing.T) {
	services := readCompose(t)
	listeners := metricsListeners(t, services)
	var commands, want, got []string
	for name, port := range listeners {
		commands = append(commands, services[name].command())
		want = append(want, net.JoinHostPort(name, port))
	}
	require.Subset(t, commands, []string{"serve", "worker"}, "the API and the worker have listeners")
	for target, job := range scrapeTargets(t, services) {
		got = append(got, target)
		assert.Contains(t, []string{"", "http"}, job.Scheme, "%s: the listener serves plain HTTP", job.JobName)
	}
	assert.ElementsMatch(t, want, got)
}

// datasources reads the provisioned datasources and returns their types by
// uid, after checking that each Prometheus one points at compose's
// Prometheus service.
func datasources(t *testing.T, services map[string]service) map[string]string {
	t.Helper()
	_, grafana := only(t, services, "grafana/grafana:")
	prometheus, _ := only(t, services, "prom/prometheus:")
	files, err := filepath.Glob(filepath.Join(grafana.mounted(t, grafanaProvisioning), "datasources", "*.y*ml"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "provisioned datasources")
	types := map[string]string{}
	for _, file := range files {
		var f struct {
			APIVersion  int `yaml:"apiVersion"`
			Datasources []struct {
				Name      string `yaml:"name"`
				UID       string `yaml:"uid"`
				Type      string `yaml:"type"`
				Access    string `yaml:"access"`
				URL       string `yaml:"url"`
				IsDefault bool   `yaml:"isDefault"`
			} `yaml:"datasources"`
		}
		decodeStrict(t, file, &f)
		assert.Equal(t, 1, f.APIVersion, file)
		for _, ds := range f.Datasources {
			require.NotEmpty(t, ds.UID, "%s: %s has a uid the dashboards name", file, ds.Name)
			require.NotContains(t, types, ds.UID, "datasource uids are unique")
			types[ds.UID] = ds.Type
			if ds.Type == "prometheus" {
				u, err := url.Parse(ds.URL)
				require.NoError(t, err)
				assert.Equal(t, "http", u.Scheme, ds.URL)
				assert.Equal(t, net.JoinHostPort(prometheus, prometheusPort), u.Host, "%s: the Prometheus service", ds.Name)
				// Grafana's browser clients cannot reach the compose network.
				assert.Equal(t, "proxy", ds.Access, ds.Name)
			}
		}
	}
	return types
}

// dashboard is what the tests read of a provisioned dashboard.
type dashboard struct {
	file   string
	UID    string  `json:"uid"`
	Title  string  `json:"title"`
	Panels []panel `json:"panels"`
}

type panel struct {
	ID         int            `json:"id"`
	Type       string         `json:"type"`
	Title      string         `json:"title"`
	Datasource *datasourceRef `json:"datasource"`
	Targets    []struct {
		RefID      string         `json:"refId"`
		Expr       string         `json:"expr"`
		Datasource *datasourceRef `json:"datasource"`
	} `json:"targets"`
	// A collapsed row holds its panels.
	Panels []panel `json:"panels"`
}

type datasourceRef struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

// every is the dashboard's panels, those of collapsed rows included.
func (d dashboard) every() []panel {
	var all []panel
	var walk func([]panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			all = append(all, p)
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	return all
}

// panelQuery is one query of a panel, read.
type panelQuery struct {
	panel string
	expr  string
	query
}

// provisionedDashboards reads every dashboard the file providers
// provision, from the directories compose mounts at their paths.
func provisionedDashboards(t *testing.T, services map[string]service) []dashboard {
	t.Helper()
	_, grafana := only(t, services, "grafana/grafana:")
	files, err := filepath.Glob(filepath.Join(grafana.mounted(t, grafanaProvisioning), "dashboards", "*.y*ml"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "dashboard providers")
	var dashboards []dashboard
	for _, file := range files {
		var f struct {
			APIVersion int `yaml:"apiVersion"`
			Providers  []struct {
				Name    string `yaml:"name"`
				Type    string `yaml:"type"`
				Options struct {
					Path string `yaml:"path"`
				} `yaml:"options"`
			} `yaml:"providers"`
		}
		decodeStrict(t, file, &f)
		assert.Equal(t, 1, f.APIVersion, file)
		for _, p := range f.Providers {
			require.Equal(t, "file", p.Type, "%s: provider %s", file, p.Name)
			jsons, err := filepath.Glob(filepath.Join(grafana.mounted(t, p.Options.Path), "*.json"))
			require.NoError(t, err)
			require.NotEmpty(t, jsons, "%s: provider %s finds dashboards at %s", file, p.Name, p.Options.Path)
			for _, j := range jsons {
				d := dashboard{file: j}
				dec := json.NewDecoder(bytes.NewReader(readFile(t, j)))
				require.NoError(t, dec.Decode(&d), j)
				dashboards = append(dashboards, d)
			}
		}
	}
	return dashboards
}

// queries reads every query of the dashboards.
func queries(t *testing.T, dashboards []dashboard) []panelQuery {
	t.Helper()
	var all []panelQuery
	for _, d := range dashboards {
		for _, p := range d.every() {
			for _, target := range p.Targets {
				q, err := parseQuery(target.Expr)
				require.NoError(t, err, "%s: panel %q, query %s: %q", d.file, p.Title, target.RefID, target.Expr)
				all = append(all, panelQuery{panel: d.Title + " / " + p.Title, expr: target.Expr, query: q})
			}
		}
	}
	return all
}

// required are the panels issue 26 asks the dashboard for: each is a
// query selecting metric, matching labels as given and keeping by apart.
var required = []struct {
	what     string
	metric   string
	matchers map[string]string
	by       []string
}{
	{"request rate per operation", "ppwr_http_requests_total", nil, []string{"operation"}},
	{"errors per operation", "ppwr_http_requests_total", map[string]string{"status": `=~"5.."`}, []string{"operation"}},
	{"latency per operation", "ppwr_http_request_duration_seconds_bucket", nil, []string{"operation", "le"}},
	{"relay lag", "ppwr_relay_lag_seconds", nil, nil},
	{"workflow failures by type", "temporal_workflow_failed_total", nil, []string{"workflow_type"}},
	{"webhook deliveries", "ppwr_webhook_attempts_total", nil, []string{"outcome"}},
}

// Grafana's provisioning is valid and consistent with compose.yaml: the
// datasources point at its Prometheus, the providers find the dashboards
// where it mounts them, every panel names a provisioned datasource and
// reads as PromQL, and the dashboard has every panel the issue asks for.
func TestGrafanaProvisionsTheDashboard(t *testing.T) {
	services := readCompose(t)
	types := datasources(t, services)
	dashboards := provisionedDashboards(t, services)
	var uids []string
	for _, d := range dashboards {
		require.NotEmpty(t, d.UID, d.file)
		require.NotEmpty(t, d.Title, d.file)
		require.NotContains(t, uids, d.UID, "dashboard uids are unique")
		uids = append(uids, d.UID)
		var ids []int
		for _, p := range d.every() {
			assert.NotContains(t, ids, p.ID, "%s: panel ids are unique (%q)", d.file, p.Title)
			ids = append(ids, p.ID)
			for _, target := range p.Targets {
				ref := target.Datasource
				if ref == nil {
					ref = p.Datasource
				}
				if assert.NotNil(t, ref, "%s: panel %q names its datasource", d.file, p.Title) {
					assert.Equal(t, types[ref.UID], ref.Type, "%s: panel %q, datasource %q is provisioned with its type", d.file, p.Title, ref.UID)
				}
			}
		}
	}

	all := queries(t, dashboards)
	for _, r := range required {
		found := slices.ContainsFunc(all, func(q panelQuery) bool {
			if !slices.ContainsFunc(q.selectors, func(s selector) bool {
				for label, m := range r.matchers {
					if s.matchers[label] != m {
						return false
					}
				}
				return s.metric == r.metric
			}) {
				return false
			}
			for _, label := range r.by {
				if !slices.Contains(q.by, label) {
					return false
				}
			}
			return true
		})
		assert.True(t, found, "a panel shows %s: %s%v by %v", r.what, r.metric, r.matchers, r.by)
	}
}
