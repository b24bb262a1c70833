package api

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/casebook/casebook"
	"github.com/chromedp/chromedp"
)

// chromiumPath finds Debian's chromium (.ci/run installs it).
func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "/usr/bin/chromium"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// screenshotDir is api/testdata/screenshots (gitignored), so a person can
// look at what the last run showed.
func screenshotDir(t *testing.T) string {
	dir := filepath.Join("testdata", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		dir = t.TempDir()
	}
	return dir
}

// Chrome is a headless Chromium for one test; exported so the browser
// tests of package api_test (which run the real pipeline) share it.
type Chrome struct {
	t     *testing.T
	Ctx   context.Context
	shots string
	axe   string
	width int // the viewport's CSS width
}

// NewChrome starts Chromium at desktop size, or skips the test without it.
func NewChrome(t *testing.T) *Chrome {
	t.Helper()
	bin := chromiumPath()
	if bin == "" {
		t.Skip("no chromium binary; apt-get install chromium")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelA)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	// Generous: under -race on two shared cores a page can take seconds.
	ctx, cancelT := context.WithTimeout(ctx, 180*time.Second)
	t.Cleanup(cancelT)
	c := &Chrome{t: t, Ctx: ctx, shots: screenshotDir(t), axe: axeScript(), width: 1280}
	if c.axe == "" {
		t.Log("no axe-core (npm install -g axe-core); accessibility rules not run")
	}
	return c
}

// Shot saves a full-page screenshot as name.png.
func (c *Chrome) Shot(name string) {
	c.t.Helper()
	png, err := chromedp.Run(c.Ctx, chromedp.FullScreenshot(100))
	if err != nil {
		c.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(c.shots, name+".png"), png, 0o644); err != nil {
		c.t.Fatal(err)
	}
}

// Text is the visible text of the first element sel matches.
func (c *Chrome) Text(sel string) string {
	c.t.Helper()
	s, err := chromedp.Run(c.Ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		c.t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

// Step runs actions, failing the test with what on an error.
func (c *Chrome) Step(what string, actions ...chromedp.Action[chromedp.Void]) {
	c.t.Helper()
	if err := chromedp.Do(c.Ctx, actions...); err != nil {
		c.t.Fatalf("%s: %v", what, err)
	}
}

// Phone emulates a phone's screen from now on.
func (c *Chrome) Phone() {
	c.t.Helper()
	c.Step("phone viewport", chromedp.EmulateViewport(phoneWidth, 844, chromedp.EmulateMobile))
	c.width = phoneWidth
}

// obscuredJS focuses each field of the draft form in turn, as Tab would,
// and names those the sticky action bar then hides entirely (WCAG 2.4.11,
// focus not obscured: the field starts under the bar, the rest is off
// screen).
const obscuredJS = `(() => {
  const bar = document.querySelector('#edit-form .actions');
  const out = [];
  for (const e of document.querySelectorAll('#edit-form input:not([type=hidden]), #edit-form textarea, #edit-form select')) {
    e.focus();
    const r = e.getBoundingClientRect(), b = bar.getBoundingClientRect();
    if (r.top >= b.top - 1 && r.top < b.bottom) out.push((e.id || e.name) + " " + Math.round(r.top) + ".." + Math.round(r.bottom) + " under the bar at " + Math.round(b.top));
  }
  return out;
})()`

// Count is how many elements match sel on the current page.
func (c *Chrome) Count(sel string) int {
	c.t.Helper()
	n, err := chromedp.Run(c.Ctx, chromedp.Evaluate[int](`document.querySelectorAll(`+strconv.Quote(sel)+`).length`))
	if err != nil {
		c.t.Fatalf("count %s: %v", sel, err)
	}
	return n
}

// Audit opens u and waits for wait (an element only that page has), then
// checks that nothing is wider than the screen and that axe-core's rules
// find nothing serious or critical; the viewport is the caller's.
func (c *Chrome) Audit(name, u, wait string) {
	t := c.t
	t.Helper()
	start := time.Now()
	defer func() { t.Logf("%s audited in %v", name, time.Since(start).Round(time.Millisecond)) }()
	c.Step(name, chromedp.Navigate(u), chromedp.WaitVisible(chromedp.CSS(wait)))
	c.AuditHere(name)
}

// AuditHere is Audit of the page the browser is on.
func (c *Chrome) AuditHere(name string) {
	t := c.t
	t.Helper()
	loc, _ := chromedp.Run(c.Ctx, chromedp.Location())
	w, err := chromedp.Run(c.Ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth`))
	if err != nil {
		t.Fatal(err)
	}
	// Not innerWidth: on a phone, content too wide widens the layout
	// viewport itself.
	vw := float64(c.width)
	if w > vw {
		wide, _ := chromedp.Run(c.Ctx, chromedp.Evaluate[[]string](widestJS))
		t.Errorf("%s (%s) is %v px wide on a %v px screen; past the edge: %v", name, loc, w, vw, wide)
	}
	if vw <= phoneWidth {
		c.Shot(name + "-phone")
	} else {
		c.Shot(name + "-desktop")
	}
	if c.axe == "" {
		return
	}
	if _, err := chromedp.Run(c.Ctx, chromedp.Evaluate[bool](c.axe+";true")); err != nil {
		t.Fatalf("load axe-core in %s: %v", name, err)
	}
	found, err := chromedp.Run(c.Ctx, chromedp.Evaluate[[]axeFinding](axeRunJS, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("axe-core in %s: %v", name, err)
	}
	for _, v := range found {
		t.Errorf("%s (%s): axe %s %s: %s at %v", name, loc, v.Impact, v.ID, v.Help, v.Nodes)
	}
}

// TestBrowser drives a real headless Chromium through the UI: search, open a
// case, log in, edit and approve a draft, reject one, on desktop and phone
// widths, saving screenshots.
func TestBrowser(t *testing.T) {
	f := newFixture(t, Config{})
	f.seedCases()
	f.seedDrafts()
	br := NewChrome(t)
	ctx := br.Ctx
	shot, text, step := br.Shot, br.Text, br.Step
	base := f.srv.URL

	// Search (a Chinese query without spaces) and open the case.
	step("home", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("input[name=q]")))
	shot("home-desktop")
	step("search", chromedp.SetValue(chromedp.CSS("input[name=q]"), "数据库"), chromedp.Click(chromedp.CSS("#search-go")),
		// The home page has its own ol.cases: wait for the results page's.
		chromedp.WaitVisible(chromedp.CSS("ol.cases[data-query] a.title")))
	if got := text("ol.cases[data-query] a.title"); got != "DNS解析超时导致服务不可用" {
		t.Fatalf("first search hit = %q", got)
	}
	step("open case", chromedp.Click(chromedp.CSS("ol.cases[data-query] a.title")), chromedp.WaitVisible(chromedp.CSS("aside.facts")))
	if got := text("article.case h1"); got != "DNS解析超时导致服务不可用" {
		t.Fatalf("case title = %q", got)
	}
	if facts := text("aside.facts"); !strings.Contains(facts, "network") || !strings.Contains(facts, "美团") {
		t.Fatalf("facts box = %q", facts)
	}
	step("english case", chromedp.Navigate(base+"/cases/CB-0001"), chromedp.WaitVisible(chromedp.CSS("#related")))
	if rel := text("#related"); !strings.Contains(rel, "CB-0002") {
		t.Fatalf("related = %q", rel)
	}
	shot("case-desktop")

	// Log in with the reviewer token; the queue shows the drafts.
	step("login page", chromedp.Navigate(base+"/review"), chromedp.WaitVisible(chromedp.CSS("#token")))
	step("login", chromedp.SetValue(chromedp.CSS("#token"), f.revTok), chromedp.Click(chromedp.CSS("#login")),
		chromedp.WaitVisible(chromedp.CSS("table.queue")))
	if q := text("table.queue"); !strings.Contains(q, "Expired certificate broke checkout") || !strings.Contains(q, "flagged") {
		t.Fatalf("queue = %q", q)
	}
	shot("queue-desktop")
	// The flagged tab (its page alone has data-lane) lists the draft the
	// gate was unsure of, with the signals that decided it.
	step("flagged tab", chromedp.Click(chromedp.CSS("#tab-flagged")), chromedp.WaitVisible(chromedp.CSS(`table#drafts[data-lane="flagged"]`)))
	if got := text("#drafts .relevance-reason"); got != "guide: second person, no dated event" || br.Count("#drafts tbody a.draft-link") != 1 {
		t.Fatalf("flagged lane: reason %q, %d drafts", got, br.Count("#drafts tbody a.draft-link"))
	}

	// Open a draft: the source text has the evidence highlighted.
	step("draft", chromedp.Navigate(base+"/review/drafts/"+f.drafts["cert"]), chromedp.WaitVisible(chromedp.CSS("#source-text mark.f-root_cause")))
	if ev := text("#ev-root_cause"); !strings.Contains(ev, "expired TLS certificate") {
		t.Fatalf("root-cause evidence = %q", ev)
	}
	shot("draft-desktop")
	if hidden, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](obscuredJS)); err != nil || len(hidden) > 0 {
		t.Errorf("desktop: fields hidden by the action bar when focused: %v %v", hidden, err)
	}
	step("edit and approve", chromedp.SetValue(chromedp.CSS("#f-title"), "TLS certificate expiry broke checkout"),
		chromedp.SetValue(chromedp.CSS("#f-tags"), "tls, nginx"),
		chromedp.Click(chromedp.CSS("#approve")), chromedp.WaitVisible(chromedp.CSS("aside.facts")))
	if got := text("article.case h1"); got != "TLS certificate expiry broke checkout" {
		t.Fatalf("published title = %q", got)
	}
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	if !strings.HasSuffix(loc, "/cases/CB-0004") {
		t.Fatalf("after approve at %s", loc)
	}
	c, _, err := f.store.GetCase("CB-0004")
	if err != nil || c.Status != casebook.StatusPublished || strings.Join(c.Tags, ",") != "tls,nginx" || c.Review.DecidedBy != "rita" {
		t.Fatalf("approved case: %v %+v", err, c)
	}

	// Reject the flagged draft with a reason.
	step("reject", chromedp.Navigate(base+"/review/drafts/"+f.drafts["flagged"]), chromedp.WaitVisible(chromedp.CSS("#reason")),
		chromedp.SetValue(chromedp.CSS("#reason"), "not an incident write-up"), chromedp.Click(chromedp.CSS("#reject")),
		chromedp.WaitVisible(chromedp.CSS("p.notice")))
	if d, _, _ := f.store.GetCase(f.drafts["flagged"]); d.Status != casebook.StatusRejected || d.Review.Note != "not an incident write-up" {
		t.Fatalf("rejected draft: %+v", d.Review)
	}

	// Phone width: the same pages stack into one column.
	step("phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Navigate(base+"/cases/CB-0001"), chromedp.WaitVisible(chromedp.CSS("aside.facts")))
	width, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth`))
	if err != nil || width > 400 {
		t.Fatalf("case page scrolls sideways on a phone: width %v %v", width, err)
	}
	shot("case-phone")
	step("phone draft", chromedp.Navigate(base+"/review/drafts/"+f.drafts["zh"]), chromedp.WaitVisible(chromedp.CSS("#edit-form")))
	if hidden, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](obscuredJS)); err != nil || len(hidden) > 0 {
		t.Errorf("phone: fields hidden by the action bar when focused: %v %v", hidden, err)
	}
	shot("draft-phone")
	step("phone home", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("ol.cases")))
	shot("home-phone")

	// Every page, at phone width: nothing wider than the screen, and no
	// serious or critical finding of axe-core's rules run in the page.
	sub, _, err := f.store.CreateSubmission("https://phone.example/post", "https://phone.example/post", "manual", "")
	if err != nil {
		t.Fatal(err)
	}
	audit := func(name, path, wait string) {
		t.Helper()
		br.Audit(name, base+path, wait)
	}
	br.Phone()
	for _, p := range []struct{ name, path, wait string }{
		{"home", "/", "ol.cases"},
		{"search", "/?q=kafka&sort=newest", "ol.cases"},
		{"filtered", "/?category=capacity&language=en", "ol.cases"},
		{"case", "/cases/CB-0001", "aside.facts"},
		{"topic", "/topics/kubernetes", "ol.cases"},
		{"submit", "/submit", "form"},
		{"submission", "/submissions/" + sub.ID, "#state"},
		{"not-found", "/cases/CB-9999", "main"},
		{"queue", "/review", "table#drafts"},
		{"draft", "/review/drafts/" + f.drafts["zh"], "#edit-form"},
		{"draft-evidence", "/review/drafts/CB-0004", "#source-text"},
		{"history", "/review/cases/CB-0004/history", "main"},
	} {
		audit(p.name, p.path, p.wait)
	}
	// The tokens page is an admin's.
	step("admin login", chromedp.Navigate(base+"/login"), chromedp.WaitVisible(chromedp.CSS("#token")),
		chromedp.SetValue(chromedp.CSS("#token"), f.adminTok), chromedp.Click(chromedp.CSS("#login")), chromedp.WaitVisible(chromedp.CSS("table.queue")))
	audit("tokens", "/review/tokens", "main")
	audit("login", "/login", "#token")
}

// phoneWidth is a common phone's CSS width (iPhone 12 to 15).
const phoneWidth = 390

// widestJS names the elements whose right edge is past the viewport.
const widestJS = `Array.from(document.querySelectorAll("body *")).filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1).slice(0, 8).map(e => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className && typeof e.className === "string" ? "." + e.className.split(" ").join(".") : "") + " " + Math.round(e.getBoundingClientRect().right))`

// axeRunJS runs axe-core's rules and keeps the serious and critical findings.
const axeRunJS = `axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations.filter(v => v.impact === "serious" || v.impact === "critical").map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 4).map(n => n.target.join(" ") + ": " + (n.failureSummary || ""))})))`

type axeFinding struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// axeScript is axe-core's browser bundle: $AXE_CORE_JS, else where npm's
// global install (.ci/run) or a Debian package would put it; "" if absent.
func axeScript() string {
	paths := []string{os.Getenv("AXE_CORE_JS"), "/usr/lib/node_modules/axe-core/axe.min.js", "/usr/local/lib/node_modules/axe-core/axe.min.js", "/usr/share/nodejs/axe-core/axe.min.js"}
	if out, err := exec.Command("npm", "root", "-g").Output(); err == nil {
		paths = append(paths, filepath.Join(strings.TrimSpace(string(out)), "axe-core", "axe.min.js"))
	}
	for _, p := range paths {
		if p == "" {
			continue
		}
		if b, err := os.ReadFile(p); err == nil {
			return string(b)
		}
	}
	return ""
}
