package dcgm

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// prometheus serves a Prometheus-shaped instant-query API over real HTTP:
// the answer for DCGM_FI_DEV_GPU_UTIL, or the given status and body.
func prometheus(t *testing.T, status int, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/query" || r.URL.Query().Get("query") != Metric || r.URL.Query().Get("time") == "" {
			http.Error(w, "unexpected request "+r.URL.String(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

const answer = `{"status":"success","data":{"resultType":"vector","result":[
 {"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"0","UUID":"GPU-a","Hostname":"p5-0","modelName":"NVIDIA H100 80GB HBM3","namespace":"hyperpod-ns-a","pod":"train-0-run0","container":"main"},"value":[1764576000.123,"87"]},
 {"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"1","Hostname":"p5-0","namespace":"monitoring","pod":"dcgm-exporter-x","exported_namespace":"hyperpod-ns-a","exported_pod":"train-0-run0"},"value":[1764576000.123,"12.6"]},
 {"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"2","Hostname":"p5-1"},"value":[1764576000.123,"0"]}]}}`

// TestGPUs reads per-GPU utilisation and the pod on each GPU, preferring
// exported_pod where Prometheus kept its own pod label.
func TestGPUs(t *testing.T) {
	srv := prometheus(t, 200, answer)
	gs, err := (&Client{URL: srv.URL + "/"}).GPUs(context.Background(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	want := []GPU{
		{Node: "p5-0", Index: 0, Model: "NVIDIA H100 80GB HBM3", UtilPercent: 87, Namespace: "hyperpod-ns-a", Pod: "train-0-run0"},
		{Node: "p5-0", Index: 1, UtilPercent: 13, Namespace: "hyperpod-ns-a", Pod: "train-0-run0"},
		{Node: "p5-1", Index: 2},
	}
	if len(gs) != len(want) {
		t.Fatalf("got %+v", gs)
	}
	for i := range want {
		if gs[i] != want[i] {
			t.Errorf("GPU %d: got %+v, want %+v", i, gs[i], want[i])
		}
	}
}

// TestGPUsErrors: each failure says what went wrong and where.
func TestGPUsErrors(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	for name, tc := range map[string]struct {
		url  string
		want string
	}{
		"refused query": {prometheus(t, 400, `{"status":"error","errorType":"bad_data","error":"parse error"}`).URL, "refused the query: bad_data: parse error"},
		"not the API":   {prometheus(t, 502, `<html>bad gateway</html>`).URL, "502 Bad Gateway"},
		"matrix":        {prometheus(t, 200, `{"status":"success","data":{"resultType":"matrix","result":[]}}`).URL, `"matrix"`},
		"bad value":     {prometheus(t, 200, `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"gpu":"0"},"value":[1,"x"]}]}}`).URL, `value "x"`},
		"no gpu label":  {prometheus(t, 200, `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"5"]}]}}`).URL, "no gpu index label"},
		"unreachable":   {closed.URL, "cannot be reached"},
		"unset":         {"", "no Prometheus URL"},
	} {
		_, err := (&Client{URL: tc.url}).GPUs(context.Background(), time.Now())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to say %q", name, err, tc.want)
		}
	}
}
