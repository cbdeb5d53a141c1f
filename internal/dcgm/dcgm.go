package dcgm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Metric is the DCGM exporter's GPU utilisation gauge (percent, 0-100).
const Metric = "DCGM_FI_DEV_GPU_UTIL"

// GPU is one device's latest utilisation. Namespace and Pod name the pod
// the exporter saw using it (empty when idle or unattributed).
type GPU struct {
	Node        string `json:"node"`
	Index       int    `json:"index"`
	Model       string `json:"name,omitempty"`
	UtilPercent int    `json:"utilPercent"`
	Namespace   string `json:"namespace,omitempty"`
	Pod         string `json:"pod,omitempty"`
}

// Client queries one Prometheus. The zero HTTP client means a 5-second
// timeout.
type Client struct {
	URL  string // e.g. http://prometheus.monitoring:9090
	HTTP *http.Client
}

// queryResponse is the part of Prometheus's instant-query answer we read.
type queryResponse struct {
	Status    string `json:"status"`
	ErrorType string `json:"errorType"`
	Error     string `json:"error"`
	Data      struct {
		ResultType string `json:"resultType"`
		Result     []struct {
			Metric map[string]string `json:"metric"`
			Value  [2]any            `json:"value"` // [unix seconds, "value"]
		} `json:"result"`
	} `json:"data"`
}

// GPUs returns every GPU's utilisation at time at, sorted as Prometheus
// returns them. An unreachable Prometheus, an error answer or an unexpected
// shape is an error that says which.
func (c *Client) GPUs(ctx context.Context, at time.Time) ([]GPU, error) {
	if c.URL == "" {
		return nil, errors.New("no Prometheus URL is configured")
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 5 * time.Second}
	}
	q := url.Values{"query": {Metric}, "time": {strconv.FormatFloat(float64(at.UnixMilli())/1000, 'f', 3, 64)}}
	// Prometheus's instant-query endpoint (its API, not taskgov's).
	endpoint, err := url.JoinPath(c.URL, "api", "v1", "query")
	if err != nil {
		return nil, fmt.Errorf("prometheus URL %q: %w", c.URL, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+"?"+q.Encode(), nil)
	if err != nil {
		return nil, fmt.Errorf("prometheus URL %q: %w", c.URL, err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("prometheus at %s cannot be reached: %w", c.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return nil, fmt.Errorf("prometheus at %s: reading the answer: %w", c.URL, err)
	}
	var qr queryResponse
	if err := json.Unmarshal(body, &qr); err != nil {
		return nil, fmt.Errorf("prometheus at %s answered %s, not its query API's JSON", c.URL, resp.Status)
	}
	if qr.Status != "success" {
		return nil, fmt.Errorf("prometheus at %s refused the query: %s: %s", c.URL, qr.ErrorType, qr.Error)
	}
	if qr.Data.ResultType != "vector" {
		return nil, fmt.Errorf("prometheus at %s answered a %q, want a vector", c.URL, qr.Data.ResultType)
	}
	out := make([]GPU, 0, len(qr.Data.Result))
	for _, r := range qr.Data.Result {
		g, err := gpuOf(r.Metric, r.Value)
		if err != nil {
			return nil, fmt.Errorf("prometheus at %s: %w", c.URL, err)
		}
		out = append(out, g)
	}
	return out, nil
}

// gpuOf reads one series. The exporter names the workload's pod in pod and
// namespace, or, when Prometheus keeps its own target labels there, in
// exported_pod and exported_namespace.
func gpuOf(m map[string]string, v [2]any) (GPU, error) {
	s, ok := v[1].(string)
	if !ok {
		return GPU{}, fmt.Errorf("%s sample %v has no value", Metric, v)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return GPU{}, fmt.Errorf("%s sample value %q: %w", Metric, s, err)
	}
	idx, err := strconv.Atoi(m["gpu"])
	if err != nil {
		return GPU{}, fmt.Errorf("%s series %v has no gpu index label", Metric, m)
	}
	g := GPU{Node: first(m, "Hostname", "node", "kubernetes_node"), Index: idx, Model: m["modelName"],
		UtilPercent: int(f + 0.5), Namespace: first(m, "exported_namespace", "namespace"), Pod: first(m, "exported_pod", "pod")}
	return g, nil
}

func first(m map[string]string, keys ...string) string {
	for _, k := range keys {
		if v := m[k]; v != "" {
			return v
		}
	}
	return ""
}
