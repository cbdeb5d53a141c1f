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

	"github.com/taskgov/taskgov/internal/testwait"
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
// dashboard tests share. step bounds each action batch and each poll of
// until, not the whole test: a test's length grows with the machine's
// load, and one deadline for all of it (150 s) failed at whatever step it
// reached on a loaded machine (the member's login, at load 15), while a
// step that hangs is still caught.
type browser struct {
	t    *testing.T
	ctx  context.Context // the browser's own: no deadline
	step time.Duration
	base string
}

func newBrowser(t *testing.T, base string, step time.Duration) *browser {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("Chromium is not installed; scripts/install-test-deps.sh installs it (CI runs it)")
	}
	// The profile lives outside the test's TempDir: Chromium's helper
	// processes may still write to it for a moment after the browser exits,
	// which made TempDir's strict cleanup fail the test.
	profile, err := os.MkdirTemp("", "taskgov-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true), chromedp.UserDataDir(profile), chromedp.WindowSize(1440, 900))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancelC()
		cancelA()
		for i := 0; i < 20 && os.RemoveAll(profile) != nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	})
	// The first Run starts the browser and its tab, which live as long as
	// its context: start them on the one without a deadline, within a step.
	started := make(chan error, 1)
	go func() { started <- chromedp.Run(ctx) }()
	select {
	case err := <-started:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(step):
		t.Fatalf("Chromium did not start within %v", step)
	}
	return &browser{t: t, ctx: ctx, step: step, base: base}
}

// runStep runs actions within one step's time.
func (b *browser) runStep(actions ...chromedp.Action) error {
	ctx, cancel := context.WithTimeout(b.ctx, b.step)
	defer cancel()
	return chromedp.Run(ctx, actions...)
}

func (b *browser) run(actions ...chromedp.Action) {
	b.t.Helper()
	if err := b.runStep(actions...); err != nil {
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
	err := testwait.Until(within, 100*time.Millisecond, func() bool {
		var ok bool
		_ = b.runStep(chromedp.Evaluate(js, &ok))
		return ok
	})
	if err != nil {
		b.t.Fatalf("%s: never true: %v: %s", what, err, js)
	}
}

// choose sets a select's or input's value and fires change.
func choose(id, value string) chromedp.Action {
	return chromedp.Evaluate(fmt.Sprintf(`{const e = document.getElementById(%q); e.value = %q; e.dispatchEvent(new Event('change', {bubbles: true}));}`, id, value), nil)
}

// exists reports whether a selector matches.
func exists(sel string) string { return fmt.Sprintf(`document.querySelector(%q) !== null`, sel) }

// a11yJS checks the page in the browser and returns its problems: form
// controls without a label, not exactly one h1, and text whose contrast
// with its background is under 4.5:1 (WCAG AA; colours are composited up
// to the first opaque background).
const a11yJS = `(() => {
  const problems = [];
  for (const e of document.querySelectorAll('input, select, textarea')) {
    if (e.type === 'hidden' || e.closest('[hidden]') || e.closest('.uplot')) continue;
    if (!(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.getAttribute('aria-labelledby')) problems.push('no label: ' + (e.id || e.outerHTML.slice(0, 60)));
  }
  const h1 = document.querySelectorAll('main h1').length;
  if (h1 !== 1) problems.push(h1 + ' h1 elements');
  const rgba = s => { const m = s.match(/[\d.]+/g).map(Number); return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; };
  const lum = ([r, g, b]) => { const f = c => (c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const over = (top, bottom) => [0, 1, 2].map(i => top[i] * top[3] + bottom[i] * (1 - top[3])).concat(1);
  const background = el => {
    const layers = [];
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      const c = rgba(getComputedStyle(n).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] >= 1) break;
    }
    return layers.reverse().reduce((acc, c) => over(c, acc), [255, 255, 255, 1]);
  };
  const seen = new Set();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let t; (t = walker.nextNode());) {
    const el = t.parentElement;
    if (!t.nodeValue.trim() || seen.has(el) || el.closest('[hidden], .uplot, svg, template, [aria-hidden="true"]')) continue;
    seen.add(el);
    const st = getComputedStyle(el);
    if (st.visibility === 'hidden' || st.display === 'none') continue;
    const bg = background(el), fg = over(rgba(st.color), bg);
    const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (b + 0.05);
    if (ratio < 4.5) problems.push('contrast ' + ratio.toFixed(2) + ': ' + JSON.stringify(t.nodeValue.trim().slice(0, 40)) + ' ' + st.color + ' on rgb(' + bg.slice(0, 3).join(',') + ')');
  }
  return problems.slice(0, 20);
})()`

// a11y fails the test with the page's accessibility problems.
func (b *browser) a11y(page string) {
	b.t.Helper()
	if ps := eval[[]string](b, a11yJS); len(ps) > 0 {
		b.t.Errorf("%s: accessibility: %s", page, strings.Join(ps, "; "))
	}
}
