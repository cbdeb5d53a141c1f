package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// artifactsDir is where the browser tests leave their screenshots:
// $TASKGOV_ARTIFACTS, or a directory under the system's temp dir.
func artifactsDir(t *testing.T) string {
	dir := os.Getenv("TASKGOV_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "taskgov-ui-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// browser is a headless Chromium driven by chromedp, with helpers the
// dashboard tests share.
type browser struct {
	t    *testing.T
	ctx  context.Context
	base string
}

func newBrowser(t *testing.T, dir, base string, timeout time.Duration) *browser {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("Chromium is not installed; scripts/install-test-deps.sh installs it (CI runs it)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true), chromedp.UserDataDir(filepath.Join(dir, "chromium")), chromedp.WindowSize(1440, 900))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, timeout)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	return &browser{t: t, ctx: ctx, base: base}
}

func (b *browser) run(actions ...chromedp.Action) {
	b.t.Helper()
	if err := chromedp.Run(b.ctx, actions...); err != nil {
		b.t.Fatal(err)
	}
}

// shots takes full-page screenshots at 1440 and 1024 px wide, named
// name-1440.png and name-1024.png, and logs their paths.
func (b *browser) shots(name string) {
	b.t.Helper()
	dir := artifactsDir(b.t)
	for _, w := range []int64{1440, 1024} {
		var buf []byte
		b.run(chromedp.EmulateViewport(w, 900), chromedp.Sleep(150*time.Millisecond), chromedp.FullScreenshot(&buf, 100))
		path := filepath.Join(dir, fmt.Sprintf("%s-%d.png", name, w))
		if err := os.WriteFile(path, buf, 0o644); err != nil {
			b.t.Fatal(err)
		}
		b.t.Logf("screenshot: %s", path)
	}
	b.run(chromedp.EmulateViewport(1440, 900))
}

func (b *browser) login(token string) {
	b.t.Helper()
	b.run(chromedp.Navigate(b.base+"/ui/"),
		chromedp.Evaluate(`sessionStorage.clear()`, nil),
		chromedp.Navigate(b.base+"/ui/#cluster"),
		chromedp.WaitVisible("#token", chromedp.ByID),
		chromedp.SendKeys("#token", token, chromedp.ByID),
		chromedp.Click("#login button", chromedp.ByQuery),
		chromedp.WaitVisible("#kpi-gpus-total", chromedp.ByID))
}

func (b *browser) open(page, waitFor string) {
	b.t.Helper()
	b.run(chromedp.Navigate(b.base+"/ui/#"+page), chromedp.WaitVisible(waitFor, chromedp.ByQuery))
}

func (b *browser) text(sel string) string {
	b.t.Helper()
	var s string
	b.run(chromedp.WaitVisible(sel, chromedp.ByQuery), chromedp.Text(sel, &s, chromedp.ByQuery))
	return strings.TrimSpace(s)
}

// eval returns a JavaScript expression's value.
func eval[T any](b *browser, js string) T {
	b.t.Helper()
	var v T
	b.run(chromedp.Evaluate(js, &v))
	return v
}

// until polls a JavaScript condition until it holds.
func (b *browser) until(what, js string, within time.Duration) {
	b.t.Helper()
	for deadline := time.Now().Add(within); ; time.Sleep(100 * time.Millisecond) {
		var ok bool
		_ = chromedp.Run(b.ctx, chromedp.Evaluate(js, &ok))
		if ok {
			return
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("%s: never true within %v: %s", what, within, js)
		}
	}
}

// choose sets a select's or input's value and fires change.
func choose(id, value string) chromedp.Action {
	return chromedp.Evaluate(fmt.Sprintf(`{const e = document.getElementById(%q); e.value = %q; e.dispatchEvent(new Event('change', {bubbles: true}));}`, id, value), nil)
}

// exists reports whether a selector matches.
func exists(sel string) string { return fmt.Sprintf(`document.querySelector(%q) !== null`, sel) }
