package api

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/sinks"
)

// seedSkipped records n crawled posts of source src that the gate skipped.
func seedSkipped(t *testing.T, st *sinks.Store, src string, n int) []string {
	t.Helper()
	return seedSkippedFrom(t, st, src, 0, n)
}

func TestSkippedListAPI(t *testing.T) {
	f := newFixture(t, Config{})
	a := seedSkipped(t, f.store, "blog-a", 3)
	seedSkipped(t, f.store, "blog-b", 2)

	type page struct {
		Items []struct {
			ID, URL, State, Reason, Source string
			Score                          float64
		} `json:"items"`
		NextCursor string `json:"next_cursor"`
	}
	resp, _ := do(t, "GET", f.srv.URL+"/api/v1/review/skipped", "", nil)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("anonymous: %d, want 401", resp.StatusCode)
	}
	seen, cursor := 0, ""
	for i := 0; ; i++ {
		resp, body := do(t, "GET", f.srv.URL+"/api/v1/review/skipped?limit=2&cursor="+url.QueryEscape(cursor), f.revTok, nil)
		var p page
		if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &p) != nil {
			t.Fatalf("page %d: %d %s", i, resp.StatusCode, body)
		}
		for _, it := range p.Items {
			if it.State != casebook.StateSkipped || !strings.Contains(it.Reason, "second person") || it.Source == "" {
				t.Errorf("item %+v", it)
			}
		}
		seen += len(p.Items)
		if p.NextCursor == "" || i > 5 {
			break
		}
		cursor = p.NextCursor
	}
	if seen != 5 {
		t.Fatalf("%d skipped posts over the pages, want 5", seen)
	}
	_, body := do(t, "GET", f.srv.URL+"/api/v1/review/skipped?source=blog-a", f.revTok, nil)
	var onlyA page
	if json.Unmarshal([]byte(body), &onlyA); len(onlyA.Items) != 3 {
		t.Fatalf("source=blog-a: %s", body)
	}
	if resp, _ := do(t, "GET", f.srv.URL+"/api/v1/review/skipped?bogus=1", f.revTok, nil); resp.StatusCode != 400 {
		t.Errorf("unknown parameter: %d", resp.StatusCode)
	}

	// Draft one: 202, queued as a reviewer's request, off the list; twice is 409.
	resp, body = do(t, "POST", f.srv.URL+"/api/v1/review/skipped/"+a[0]+"/draft", f.revTok, nil)
	var sub casebook.Submission
	if resp.StatusCode != http.StatusAccepted || json.Unmarshal([]byte(body), &sub) != nil || sub.State != casebook.StateQueued || sub.Origin != sinks.OriginReview {
		t.Fatalf("draft: %d %s", resp.StatusCode, body)
	}
	if resp, _ := do(t, "POST", f.srv.URL+"/api/v1/review/skipped/"+a[0]+"/draft", f.revTok, nil); resp.StatusCode != http.StatusConflict {
		t.Errorf("second draft: %d, want 409", resp.StatusCode)
	}
	if resp, _ := do(t, "POST", f.srv.URL+"/api/v1/review/skipped/sub-99999999/draft", f.revTok, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown: %d, want 404", resp.StatusCode)
	}
	_, body = do(t, "GET", f.srv.URL+"/api/v1/review/skipped?source=blog-a", f.revTok, nil)
	if json.Unmarshal([]byte(body), &onlyA); len(onlyA.Items) != 2 {
		t.Fatalf("after drafting one: %s", body)
	}
}

func TestSkippedListWeb(t *testing.T) {
	f := newFixture(t, Config{})
	ids := seedSkipped(t, f.store, "blog-c", 2)
	c := browser(t)
	if resp, _ := get(t, c, f.srv.URL+"/review/skipped"); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("anonymous: %d, want a redirect to log in", resp.StatusCode)
	}
	login(t, c, f.srv.URL, f.revTok)
	_, queue := get(t, c, f.srv.URL+"/review")
	if !strings.Contains(queue, `href="/review/skipped"`) || !strings.Contains(queue, `href="/review?flagged=true"`) {
		t.Fatal("the queue does not link the flagged lane and the skipped list")
	}
	resp, page := get(t, c, f.srv.URL+"/review/skipped")
	if resp.StatusCode != 200 || !strings.Contains(page, "blog-c.example/guide-1") || !strings.Contains(page, "second person") ||
		!strings.Contains(page, `action="/review/skipped/`+ids[1]+`/draft"`) {
		t.Fatalf("skipped page: %d\n%.1500s", resp.StatusCode, page)
	}
	if resp, _ := post(t, c, f.srv.URL+"/review/skipped/"+ids[1]+"/draft", url.Values{"csrf": {"00"}}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("draft without the CSRF token: %d, want 403", resp.StatusCode)
	}
	resp, _ = post(t, c, f.srv.URL+"/review/skipped/"+ids[1]+"/draft", url.Values{"csrf": {csrfOf(t, page)}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("draft: %d", resp.StatusCode)
	}
	rec, err := f.store.GetSubmission(ids[1])
	if err != nil || rec.State != casebook.StateQueued || rec.Origin != sinks.OriginReview || !strings.Contains(rec.Reason, "rita") {
		t.Fatalf("after the button: %+v %v", rec, err)
	}
	_, page = get(t, c, f.srv.URL+"/review/skipped")
	if strings.Contains(page, "guide-1") || !strings.Contains(page, "guide-0") {
		t.Fatal("the drafted post is still listed, or the other one is gone")
	}
	// Pressed again (a stale tab, or another reviewer was first), or on an
	// id that is gone: the list again, with the error above it.
	for _, tc := range []struct {
		id     string
		status int
		says   string
	}{
		{ids[1], http.StatusConflict, "is not a skipped crawled post any more (it is queued"},
		{"sub-99999999", http.StatusNotFound, "There is no submission sub-99999999."},
	} {
		resp, page := post(t, c, f.srv.URL+"/review/skipped/"+tc.id+"/draft", url.Values{"csrf": {csrfOf(t, page)}, "source": {"blog-c"}})
		if resp.StatusCode != tc.status || !strings.Contains(page, tc.says) || !strings.Contains(page, `role="alert"`) ||
			!strings.Contains(page, `data-source="blog-c"`) || !strings.Contains(page, "guide-0") {
			t.Errorf("draft %s: %d, want %d with %q above the blog-c list\n%.1500s", tc.id, resp.StatusCode, tc.status, tc.says, page)
		}
	}
}

// TestDraftPageShowsRelevanceReason: a flagged draft's page says which
// signals made the gate unsure.
func TestDraftPageShowsRelevanceReason(t *testing.T) {
	f := newFixture(t, Config{})
	f.seedDrafts()
	c := browser(t)
	login(t, c, f.srv.URL, f.revTok)
	resp, page := get(t, c, f.srv.URL+"/review/drafts/"+f.drafts["flagged"])
	if resp.StatusCode != 200 || !strings.Contains(page, "(uncertain)") || !strings.Contains(page, "guide: second person, no dated event") {
		t.Fatalf("draft page: %d\n%.1200s", resp.StatusCode, page)
	}
}

// TestSkippedListPaging walks the skipped list page by page, with and
// without a source filter: every skipped crawled post once, newest first,
// nothing else (manual or drafted submissions), and a post drafted from
// the list between two pages does not derail the walk.
func TestSkippedListPaging(t *testing.T) {
	f := newFixture(t, Config{})
	// Oldest of all, not listed: so a full last page has submissions below it.
	old, _, _ := f.store.CreateSubmission("https://blog-b.example/old", "https://blog-b.example/old", "crawl:blog-b", "blog-b")
	if err := f.store.Progress(old.ID, casebook.StateFailed, "", "fetch: 500", ""); err != nil {
		t.Fatal(err)
	}
	a1 := seedSkipped(t, f.store, "blog-a", 3)
	b := seedSkipped(t, f.store, "blog-b", 2)
	// Not listed: a manual submission skipped as a duplicate, a drafted crawl.
	m, _, _ := f.store.CreateSubmission("https://manual.example/p", "https://manual.example/p", "manual", "")
	if err := f.store.Progress(m.ID, casebook.StateSkipped, "duplicate of case CB-0001", "", ""); err != nil {
		t.Fatal(err)
	}
	d, _, _ := f.store.CreateSubmission("https://blog-a.example/incident", "https://blog-a.example/incident", "crawl:blog-a", "blog-a")
	if err := f.store.Progress(d.ID, casebook.StateDrafted, "", "", "draft-000001"); err != nil {
		t.Fatal(err)
	}
	a2 := seedSkippedFrom(t, f.store, "blog-a", 3, 2)
	newestFirst := func(ids ...[]string) []string {
		var all []string
		for _, l := range ids {
			all = append(all, l...)
		}
		slices.Sort(all)
		slices.Reverse(all)
		return all
	}
	// counts are the total and source_total each page gave (-1: absent).
	type counts struct{ total, source int }
	walk := func(t *testing.T, source string, limit int, between func(page int)) ([]string, []counts) {
		t.Helper()
		var got []string
		var seen []counts
		cursor := ""
		for page := 0; ; page++ {
			q := url.Values{"limit": {strconv.Itoa(limit)}, "source": {source}, "cursor": {cursor}}
			resp, body := do(t, "GET", f.srv.URL+"/api/v1/review/skipped?"+q.Encode(), f.revTok, nil)
			var p struct {
				Items []struct {
					ID, Source string
				} `json:"items"`
				NextCursor  string `json:"next_cursor"`
				Total       *int   `json:"total"`
				SourceTotal *int   `json:"source_total"`
			}
			if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &p) != nil || p.Items == nil || p.Total == nil {
				t.Fatalf("page %d: %d %s", page, resp.StatusCode, body)
			}
			if len(p.Items) > limit || (p.NextCursor != "" && len(p.Items) != limit) {
				t.Fatalf("page %d: %d items for limit %d with next_cursor %q", page, len(p.Items), limit, p.NextCursor)
			}
			if cursor != "" && len(p.Items) == 0 {
				t.Fatalf("page %d: the previous page's next_cursor led to an empty page", page)
			}
			c := counts{*p.Total, -1}
			if p.SourceTotal != nil {
				c.source = *p.SourceTotal
			}
			seen = append(seen, c)
			for _, it := range p.Items {
				if source != "" && it.Source != source {
					t.Errorf("source=%s listed %s of %s", source, it.ID, it.Source)
				}
				got = append(got, it.ID)
			}
			if p.NextCursor == "" {
				return got, seen
			}
			if page > 20 {
				t.Fatal("the pages never end")
			}
			if between != nil {
				between(page)
			}
			cursor = p.NextCursor
		}
	}
	for _, tc := range []struct {
		source string
		limit  int
		want   []string
		count  int // source_total, -1 when unfiltered
	}{
		{"", 2, newestFirst(a1, b, a2), -1},
		{"", 200, newestFirst(a1, b, a2), -1},
		{"", 7, newestFirst(a1, b, a2), -1}, // exactly one full page
		{"blog-a", 2, newestFirst(a1, a2), 5},
		{"blog-a", 1, newestFirst(a1, a2), 5},
		{"blog-a", 5, newestFirst(a1, a2), 5},
		{"blog-b", 2, newestFirst(b), 2}, // exactly one full page, older blog-a posts below
		{"blog-b", 1, newestFirst(b), 2},
		{"blog-b", 5, newestFirst(b), 2},
		{"blog-z", 3, nil, 0},
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.source, tc.limit), func(t *testing.T) {
			got, seen := walk(t, tc.source, tc.limit, nil)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			for i, c := range seen {
				if c != (counts{7, tc.count}) {
					t.Errorf("page %d: total %d, source_total %d; want 7, %d", i, c.total, c.source, tc.count)
				}
			}
		})
	}

	// Drafting the first page's posts while paging: the next page goes on
	// below the cursor, the rest are all still seen once.
	var drafted []string
	got, seen := walk(t, "blog-a", 2, func(page int) {
		if page > 0 {
			return
		}
		for _, id := range newestFirst(a1, a2)[:2] {
			if resp, body := do(t, "POST", f.srv.URL+"/api/v1/review/skipped/"+id+"/draft", f.revTok, nil); resp.StatusCode != http.StatusAccepted {
				t.Fatalf("draft %s: %d %s", id, resp.StatusCode, body)
			}
			drafted = append(drafted, id)
		}
	})
	if want := newestFirst(a1, a2); !slices.Equal(got, want) || len(drafted) != 2 {
		t.Errorf("walk while drafting: %v, want %v", got, want)
	}
	// The counts follow the drafts at once: two fewer from the second page on.
	for i, c := range seen {
		want := counts{7, 5}
		if i > 0 {
			want = counts{5, 3}
		}
		if c != want {
			t.Errorf("walk while drafting, page %d: counts %+v, want %+v", i, c, want)
		}
	}

	for _, tc := range []struct{ query, why string }{
		{"cursor=bogus", "a cursor the server never gave out"},
		{"cursor=42", "a bare number"},
		{"limit=0", "limit below 1"},
		{"limit=201", "limit above 200"},
		{"limit=two", "limit not a number"},
		{"page=2", "an unknown parameter"},
	} {
		if resp, body := do(t, "GET", f.srv.URL+"/api/v1/review/skipped?"+tc.query, f.revTok, nil); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "bad_parameter") {
			t.Errorf("%s (%s): %d %s, want 400 bad_parameter", tc.query, tc.why, resp.StatusCode, body)
		}
	}
}

// seedSkippedFrom is seedSkipped with URLs numbered from first.
func seedSkippedFrom(t *testing.T, st *sinks.Store, src string, first, n int) []string {
	t.Helper()
	var ids []string
	for i := first; i < first+n; i++ {
		u := fmt.Sprintf("https://%s.example/guide-%d", src, i)
		rec, _, err := st.CreateSubmission(u, u, "crawl:"+src, src)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Progress(rec.ID, casebook.StateSkipped, "not an incident write-up (guide: second person, no dated event)", "", ""); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, rec.ID)
	}
	return ids
}

// TestQueueTabs: the lane tabs carry their counts and mark the current one
// (aria-current), and an empty lane or filter says why it is empty.
func TestQueueTabs(t *testing.T) {
	f := newFixture(t, Config{})
	c := browser(t)
	login(t, c, f.srv.URL, f.revTok)
	_, page := get(t, c, f.srv.URL+"/review")
	if !strings.Contains(page, "The queue is empty.") || !strings.Contains(page, "Skipped crawled posts (0)") {
		t.Errorf("empty queue:\n%.2000s", page)
	}
	_, page = get(t, c, f.srv.URL+"/review/skipped")
	if !strings.Contains(page, "No crawled post has been skipped.") || !strings.Contains(page, `id="tab-skipped" href="/review/skipped" aria-current="page">Skipped crawled posts (0)`) {
		t.Errorf("empty skipped list:\n%.2000s", page)
	}
	f.seedDrafts()
	seedSkipped(t, f.store, "blog-a", 2)
	seedSkipped(t, f.store, "blog-b", 1)
	f.addDraft("plain", pub("Disk full on the build host", "CI", "en", "capacity", 2024, nil, nil, "The build host ran out of disk."), "")
	for _, tc := range []struct {
		path    string
		current string   // the tab marked current
		has     []string // on the page
		status  int      // 0: 200
	}{
		{"/review", "tab-all", []string{"All drafts (4)", "Flagged lane, the gate was unsure (1)", "Skipped crawled posts (3)", "guide: second person, no dated event"}, 0},
		{"/review/skipped", "tab-skipped", []string{"Skipped crawled posts (3)", `id="skipped-total">3 skipped crawled posts`}, 0},
		{"/review/skipped?source=blog-a", "tab-skipped", []string{"Skipped crawled posts (2 of 3)", `id="skipped-source">2 from blog-a`}, 0},
		{"/review/skipped?source=blog-z", "tab-skipped", []string{"Skipped crawled posts (0 of 3)", "No skipped posts from the source blog-z"}, 0},
		// Relevance as the page shows it (percent), or with a decimal comma.
		{"/review?min_relevance=65%25", "tab-all", []string{"Expired certificate broke checkout", "数据库主从切换失败", "2 shown by the filters"}, 0},
		{"/review?min_relevance=0,8", "tab-all", []string{"Expired certificate broke checkout", "1 shown by the filters"}, 0},
		{"/review?min_relevance=lots&flagged=true", "tab-flagged", []string{`role="alert">The minimum relevance must be a number in 0..1 or a percentage such as 45%: change the filter`, `value="lots"`, "The filters above could not be read"}, http.StatusBadRequest},
		{"/review?flagged=true", "tab-flagged", []string{`data-lane="flagged"`, "Наш опыт с Kubernetes"}, 0},
		{"/review?flagged=true&language=zh", "tab-flagged", []string{"No draft matches these filters.", `href="/review?flagged=true">`}, 0},
		{"/review?language=ru&flagged=false", "", []string{"No draft matches these filters."}, 0},
		{"/review?source=nowhere.example", "tab-all", []string{"No draft matches these filters."}, 0},
	} {
		resp, page := get(t, c, f.srv.URL+tc.path)
		if want := max(tc.status, 200); resp.StatusCode != want {
			t.Fatalf("%s: %d, want %d", tc.path, resp.StatusCode, want)
		}
		if n := strings.Count(page, `aria-current="page"`); (tc.current == "" && n != 0) || (tc.current != "" && (n != 1 || !strings.Contains(page, `id="`+tc.current+`"`))) ||
			(tc.current != "" && !regexp.MustCompile(`id="`+tc.current+`" href="[^"]*" aria-current="page"`).MatchString(page)) {
			t.Errorf("%s: current tab should be %q (%d marked)", tc.path, tc.current, n)
		}
		for _, s := range tc.has {
			if !strings.Contains(page, html.EscapeString(s)) && !strings.Contains(page, s) {
				t.Errorf("%s: no %q on the page", tc.path, s)
			}
		}
	}
	// With no flagged draft left, the flagged lane says so.
	if _, err := f.store.Reject(f.drafts["flagged"], "rita", "not an incident"); err != nil {
		t.Fatal(err)
	}
	_, page = get(t, c, f.srv.URL+"/review?flagged=true")
	if !strings.Contains(page, "No flagged drafts: the gate was sure of every draft in the queue.") || !strings.Contains(page, "(0)") {
		t.Errorf("empty flagged lane:\n%.2500s", page)
	}
}

// TestSkippedListWebPages: past one page the list links the next page and,
// from there, back to the newest, both keeping the source filter.
func TestSkippedListWebPages(t *testing.T) {
	f := newFixture(t, Config{})
	ids := seedSkipped(t, f.store, "blog-p", queuePageSize+1)
	seedSkipped(t, f.store, "blog-q", 1)
	c := browser(t)
	login(t, c, f.srv.URL, f.revTok)
	_, page := get(t, c, f.srv.URL+"/review/skipped?source=blog-p")
	m := regexp.MustCompile(`<a class="more" href="(/review/skipped\?[^"]+)"`).FindStringSubmatch(page)
	if m == nil || strings.Contains(page, `class="newest"`) || strings.Contains(page, `id="`+ids[0]+`"`) {
		t.Fatalf("first page: no More link, a Newest link, or the oldest post already\n%.3000s", page)
	}
	next := html.UnescapeString(m[1])
	if !strings.Contains(next, "source=blog-p") {
		t.Errorf("More link %s drops the source", next)
	}
	_, page = get(t, c, f.srv.URL+next)
	if !strings.Contains(page, `id="`+ids[0]+`"`) || strings.Count(page, `class="draft-skipped"`) != 1 ||
		!strings.Contains(page, `<a class="newest" href="/review/skipped?source=blog-p">`) || strings.Contains(page, `class="more"`) {
		t.Errorf("second page: want the oldest post alone and a Newest link\n%.3000s", page)
	}
}

// TestSkippedScore: a post the gate skipped lists the gate's score (API and
// page), 0.00 included; one skipped before the gate (robots.txt, language)
// has none to show.
func TestSkippedScore(t *testing.T) {
	f := newFixture(t, Config{})
	pre := seedSkipped(t, f.store, "blog-s", 1)[0]
	rec, _, err := f.store.CreateSubmission("https://blog-s.example/howto", "https://blog-s.example/howto", "crawl:blog-s", "blog-s")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.store.ProgressSkipped(rec.ID, "not an incident write-up (relevance 0.12 below 0.45; guide)", 0.12); err != nil {
		t.Fatal(err)
	}
	_, body := do(t, "GET", f.srv.URL+"/api/v1/review/skipped?source=blog-s", f.revTok, nil)
	var p struct {
		Items []struct {
			ID     string
			Score  float64
			Scored bool
		} `json:"items"`
	}
	if json.Unmarshal([]byte(body), &p) != nil || len(p.Items) != 2 || p.Items[0].ID != rec.ID || p.Items[0].Score != 0.12 || !p.Items[0].Scored ||
		p.Items[1].ID != pre || p.Items[1].Score != 0 || p.Items[1].Scored {
		t.Fatalf("API: %s", body)
	}
	zero, _, err := f.store.CreateSubmission("https://blog-s.example/recipes", "https://blog-s.example/recipes", "crawl:blog-s", "blog-s")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.store.ProgressSkipped(zero.ID, "not an incident write-up (relevance 0.00 below 0.20; not about systems)", 0); err != nil {
		t.Fatal(err)
	}
	c := browser(t)
	login(t, c, f.srv.URL, f.revTok)
	_, page := get(t, c, f.srv.URL+"/review/skipped")
	for id, want := range map[string]string{rec.ID: `class="score">12%</td>`, zero.ID: `class="score">0%</td>`, pre: `class="score"><span title="not scored: skipped before the gate">–</span></td>`} {
		i := strings.Index(page, `<tr id="`+id+`">`)
		if i < 0 || !strings.Contains(page[i:i+strings.Index(page[i:], "</tr>")], want) {
			t.Errorf("%s: row without %s\n%.2500s", id, want, page)
		}
	}
}
