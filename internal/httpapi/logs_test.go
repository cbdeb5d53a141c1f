package httpapi

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// getLog reads one logs response: its status, body and placing headers.
func (e *env) getLog(query string) (code int, body []byte, h http.Header) {
	e.t.Helper()
	req, _ := http.NewRequest("GET", e.url+"/api/v1/tasks/big/logs"+query, nil)
	req.Header.Set("Authorization", "Bearer "+e.admin)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp.StatusCode, body, resp.Header
}

func headerInt(t *testing.T, h http.Header, name string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(h.Get(name), 10, 64)
	if err != nil {
		t.Fatalf("header %s: %q", name, h.Get(name))
	}
	return n
}

// TestLargeLogIsSentInCappedParts: a real child process writes a log
// larger than MaxLogBytes (seq 1 2000000: 14.9 MB). One request sends at
// most MaxLogBytes and says so (Taskgov-Log-Truncated, and where the part
// ends); reading on from each part's end gives the whole log, byte for
// byte; ?tail= gives the last lines, cut (and said so) at limitBytes; a bad
// offset, tail or limitBytes is a 400 naming the field. Before, the whole
// log went out in one response, however large.
func TestLargeLogIsSentInCappedParts(t *testing.T) {
	e := newEnv(t, testCluster)
	const lines = 2000000
	e.mustDo("POST", "/api/v1/tasks", e.admin, spec("big", "alpha", "seq", "1", strconv.Itoa(lines)), 201, nil)
	e.waitState("big", model.StateSucceeded, 60*time.Second)

	code, body, h := e.getLog("")
	// The executor's line before each run, then what the task wrote.
	header, _, _ := bytes.Cut(body, []byte("\n"))
	if !bytes.HasPrefix(header, []byte("=== taskgov: run 1 of big, rank 0")) {
		t.Fatalf("the log starts %q", header)
	}
	var want bytes.Buffer
	want.Write(header)
	want.WriteString("\n")
	for i := 1; i <= lines; i++ {
		fmt.Fprintf(&want, "%d\n", i)
	}
	if code != 200 || len(body) != MaxLogBytes || h.Get(headerLogCut) != "true" || headerInt(t, h, headerLogEnd) != MaxLogBytes ||
		headerInt(t, h, headerLogSize) != int64(want.Len()) {
		t.Fatalf("the first part: %d, %d bytes, headers %v; want %d bytes, cut, of %d", code, len(body), h, MaxLogBytes, want.Len())
	}
	var got bytes.Buffer
	got.Write(body)
	for parts := 1; h.Get(headerLogCut) == "true"; parts++ {
		if parts > 10 {
			t.Fatal("the log does not end")
		}
		code, body, h = e.getLog("?offset=" + h.Get(headerLogEnd))
		if code != 200 || len(body) > MaxLogBytes || headerInt(t, h, headerLogStart) != int64(got.Len()) {
			t.Fatalf("a later part: %d, %d bytes, headers %v", code, len(body), h)
		}
		got.Write(body)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("the parts read on make %d bytes that differ from the %d the task wrote", got.Len(), want.Len())
	}

	if code, body, h = e.getLog("?tail=3"); code != 200 || string(body) != "1999998\n1999999\n2000000\n" || h.Get(headerLogCut) != "" {
		t.Fatalf("tail=3: %d %q %v", code, body, h)
	}
	if code, body, h = e.getLog("?tail=100000&limitBytes=20"); code != 200 || string(body) != "998\n1999999\n2000000\n" || h.Get(headerLogCut) != "true" {
		t.Fatalf("tail beyond limitBytes: %d %q %v", code, body, h)
	}
	if code, body, _ = e.getLog("?offset=" + strconv.Itoa(want.Len())); code != 200 || len(body) != 0 {
		t.Fatalf("at the log's end: %d %q, want nothing new", code, body)
	}

	for query, field := range map[string]string{
		"?offset=" + strconv.Itoa(want.Len()+1): "offset",
		"?offset=-1":                            "offset",
		"?tail=0":                               "tail",
		"?tail=x":                               "tail",
		"?tail=2&offset=0":                      "tail",
		"?limitBytes=0":                         "limitBytes",
		"?limitBytes=" + strconv.Itoa(MaxLogBytes+1): "limitBytes",
	} {
		code, body, _ := e.getLog(query)
		if code != 400 || !strings.Contains(string(body), `"field":"`+field+`"`) {
			t.Errorf("%s: %d %s, want a 400 naming %s", query, code, body, field)
		}
	}
}
