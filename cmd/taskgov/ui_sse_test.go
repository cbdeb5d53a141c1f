package main

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// TestEventStreamInChromium: a browser reads the event stream as it comes,
// gzip-compressed (Chromium accepts gzip by itself) and not chunked: every
// submission's event arrives while the stream is open, decoded.
func TestEventStreamInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a browser")
	}
	cliServer(t)
	base, admin := os.Getenv("TASKGOV_SERVER"), os.Getenv("TASKGOV_TOKEN")
	b := newBrowser(t, base, 60*time.Second)
	b.open("", "body") // the dashboard's origin, so that its CSP lets fetch reach the API
	_ = eval[bool](b, fmt.Sprintf(`(() => {
		window.sse = {text: '', encoding: null, err: null};
		fetch('/api/v1/events', {headers: {Authorization: 'Bearer %s'}}).then(async r => {
			window.sse.encoding = r.headers.get('content-encoding') || '';
			const rd = r.body.getReader(), dec = new TextDecoder();
			for (;;) {
				const {value, done} = await rd.read();
				if (done) break;
				window.sse.text += dec.decode(value, {stream: true});
			}
		}).catch(e => { window.sse.err = String(e); });
		return true;
	})()`, admin))
	b.until("stream open", `window.sse.text.includes(': taskgov event stream')`, 10*time.Second)
	cl, err := apiClient()
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"sse-a", "sse-b", "sse-c"}
	for i, name := range names {
		if _, err := cl.Submit(context.Background(), model.TaskSpec{Name: name, Team: "product", InstanceType: "ml.p5.48xlarge",
			Command: []string{"sleep", "30"}}); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			time.Sleep(300 * time.Millisecond) // a second batch
		}
	}
	for _, name := range names {
		b.until(name+"'s event", fmt.Sprintf(`window.sse.text.includes('"task":"%s"')`, name), 10*time.Second)
	}
	if enc := eval[string](b, `window.sse.encoding`); enc != "gzip" {
		t.Errorf("the browser got the stream with encoding %q, want gzip", enc)
	}
	if e := eval[any](b, `window.sse.err`); e != nil {
		t.Errorf("the browser's read failed: %v", e)
	}
}
