package api

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/sinks"
)

// storeSubmitter records submissions in the store without a pipeline.
type storeSubmitter struct{ store *sinks.Store }

func (s storeSubmitter) Redraft(ctx context.Context, id, by string) (sinks.SubmissionRecord, error) {
	return s.store.RedraftSkipped(id, by)
}

func (s storeSubmitter) Submit(ctx context.Context, raw, origin, source string) (sinks.SubmissionRecord, bool, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return sinks.SubmissionRecord{}, false, casebook.Permanentf("only http and https URLs can be submitted")
	}
	return s.store.CreateSubmission(raw, u.String(), origin, source)
}

type fixture struct {
	t        *testing.T
	store    *sinks.Store
	srv      *httptest.Server
	admin    *Client
	reviewer *Client
	public   *Client
	adminTok string
	revTok   string
	drafts   map[string]string // name -> draft id
}

func newFixture(t *testing.T, cfg Config) *fixture {
	t.Helper()
	st, err := sinks.Open(filepath.Join(t.TempDir(), "casebook.db"), sinks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cfg.Store = st
	cfg.Submitter = storeSubmitter{st}
	cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := httptest.NewServer(New(cfg))
	t.Cleanup(srv.Close)
	adminTok, _, _ := st.AddToken("admin", sinks.RoleAdmin)
	revTok, _, _ := st.AddToken("rita", sinks.RoleReviewer)
	f := &fixture{t: t, store: st, srv: srv, adminTok: adminTok, revTok: revTok, drafts: map[string]string{},
		admin:    &Client{BaseURL: srv.URL, Token: adminTok},
		reviewer: &Client{BaseURL: srv.URL, Token: revTok},
		public:   &Client{BaseURL: srv.URL},
	}
	return f
}

func pub(title, org, lang, cat string, year int, comps, tags []string, summary string) *casebook.Case {
	slug := strings.NewReplacer(" ", "-", "/", "-").Replace(strings.ToLower(title))
	return &casebook.Case{
		Title: title, Organization: org, Language: lang, Published: fmt.Sprintf("%d-05-01", year), Summary: summary,
		Components: comps, Tags: tags, Symptoms: summary,
		RootCause:   casebook.RootCause{Category: cat, Description: summary},
		Remediation: []string{"Rolled back", "Added an alert"},
		Sources:     []casebook.Source{{URL: "https://blog.example/" + slug, Title: title, Site: "Blog", Language: lang, SHA256: "sha-" + slug}},
	}
}

// seedCases publishes three cases, one per language.
func (f *fixture) seedCases() []string {
	ids, err := f.store.Import([]*casebook.Case{
		pub("Kafka brokers ran out of disk", "Acme", "en", "capacity", 2021, []string{"message-queue", "storage"}, []string{"kafka", "kubernetes"},
			"Kafka brokers filled their disks with retained segments and stopped accepting writes; consumers lagged for an hour."),
		pub("Отказ базы данных из-за переполнения диска", "Рога и копыта", "ru", "capacity", 2022, []string{"database", "storage"}, []string{"postgresql"},
			"Диски сервера базы данных переполнились журналами, и запись остановилась на сорок минут."),
		pub("DNS解析超时导致服务不可用", "美团", "zh", "network", 2023, []string{"dns"}, []string{"kubernetes"},
			"集群内DNS解析超时，导致大量请求失败，数据库连接也受到影响。"),
	}, "seed")
	if err != nil {
		f.t.Fatal(err)
	}
	return ids
}

// addDraft makes a submission and its draft the way the sink stage does.
func (f *fixture) addDraft(name string, c *casebook.Case, text string) string {
	f.t.Helper()
	u := c.Sources[0].URL
	rec, _, err := f.store.CreateSubmission(u, u, "manual", "")
	if err != nil {
		f.t.Fatal(err)
	}
	res, err := f.store.SaveDraft(sinks.DraftInput{SubmissionID: rec.ID, CanonicalURL: u, ContentHash: c.Sources[0].SHA256, Case: c, Text: text})
	if err != nil || res.DraftID == "" {
		f.t.Fatalf("draft %s: %v %+v", name, err, res)
	}
	f.drafts[name] = res.DraftID
	return res.DraftID
}

const draftText = "We saw elevated error rates on checkout. The root cause was an expired TLS certificate on the load balancer. We renewed the certificate and added expiry alerts."

func (f *fixture) seedDrafts() {
	a := pub("Expired certificate broke checkout", "Shop", "en", "expiry", 2024, []string{"load-balancer", "certificates"}, []string{"tls"}, "An expired certificate on the load balancer broke checkout.")
	a.Sources[0].URL = "https://shop.example/postmortem"
	a.Relevance = casebook.Relevance{IsPostmortem: true, Score: 0.9}
	a.Extraction = casebook.Extraction{Method: "heuristic", Version: "1",
		Confidence:  map[string]float64{"root_cause": 0.8, "symptoms": 0.6},
		Suggestions: map[string][]string{"lessons": {"Certificates need an owner and an expiry alert."}},
		Evidence: map[string][]casebook.Span{
			"symptoms":    {spanOf(draftText, "We saw elevated error rates on checkout.")},
			"root_cause":  {spanOf(draftText, "The root cause was an expired TLS certificate on the load balancer.")},
			"remediation": {spanOf(draftText, "We renewed the certificate and added expiry alerts.")},
		}}
	f.addDraft("cert", a, draftText)
	b := pub("Наш опыт с Kubernetes", "Блог", "ru", "unknown", 2024, nil, []string{"kubernetes"}, "Заметки о переходе на Kubernetes.")
	b.Sources[0].URL = "https://habr.example/post/1"
	b.Relevance = casebook.Relevance{Score: 0.2, Flagged: true, Band: "uncertain", Reason: "guide: second person, no dated event"}
	f.addDraft("flagged", b, "")
	c := pub("数据库主从切换失败", "某公司", "zh", "database", 2024, []string{"database"}, nil, "主库故障后切换失败。")
	c.RootCause.Category = "software-defect"
	c.Sources[0].URL = "https://zh.example/p/2"
	c.Relevance = casebook.Relevance{IsPostmortem: true, Score: 0.7}
	f.addDraft("zh", c, "")
}

// do sends a raw request and returns the response with its body read.
func do(t *testing.T, method, u, token string, body io.Reader, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, string(raw)
}

func spanOf(text, sentence string) casebook.Span {
	i := strings.Index(text, sentence)
	if i < 0 {
		panic("fixture sentence not in text: " + sentence)
	}
	return casebook.Span{Start: i, End: i + len(sentence)}
}
