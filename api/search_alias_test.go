package api

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/casebook/casebook"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSearchMultiWordAliasHTTP: a multi-word tag alias, plain or quoted,
// finds the tag's cases through GET /api/v1/search, the home page and MCP
// alike (the store's parse is tested in sinks).
func TestSearchMultiWordAliasHTTP(t *testing.T) {
	f := newFixture(t, Config{})
	if _, err := f.store.Import([]*casebook.Case{
		pub("Memory limits killed workers", "Acme", "en", "configuration", 2022, []string{"container-runtime"}, []string{"cgroups"}, "Workers were killed by their memory limits after the upgrade."),
		pub("Лимиты памяти убили процессы", "Рога и копыта", "ru", "configuration", 2023, nil, []string{"cgroups"}, "Процессы завершались из-за лимитов памяти."),
		pub("Sidecar upgrade dropped requests", "Shop", "en", "software-defect", 2024, nil, []string{"service-mesh"}, "Requests failed while the sidecars restarted."),
	}, "seed"); err != nil {
		t.Fatal(err)
	}
	ctx, cs := mcpSession(t, f)
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"контрольные группы", []string{"CB-0001", "CB-0002"}},
		{`"контрольные группы"`, []string{"CB-0001", "CB-0002"}},
		{"контрольные группы workers", []string{"CB-0001"}},
		{"service mesh", []string{"CB-0003"}},
		{"сервис-меш", []string{"CB-0003"}},
		{"服务网格", []string{"CB-0003"}},
		{"контрольных групп", []string{"CB-0001", "CB-0002"}},
	} {
		resp, body := do(t, "GET", f.srv.URL+"/api/v1/search?"+url.Values{"q": {tc.q}}.Encode(), "", nil)
		var page struct {
			Items []struct{ ID string } `json:"items"`
		}
		if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &page) != nil {
			t.Fatalf("%q: %d %s", tc.q, resp.StatusCode, body)
		}
		var got []string
		for _, it := range page.Items {
			got = append(got, it.ID)
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("HTTP search %q = %v, want %v", tc.q, got, tc.want)
		}
		_, home := do(t, "GET", f.srv.URL+"/?"+url.Values{"q": {tc.q}}.Encode(), "", nil)
		for _, id := range []string{"CB-0001", "CB-0002", "CB-0003"} {
			if strings.Contains(home, `href="/cases/`+id+`"`) != slices.Contains(tc.want, id) {
				t.Errorf("home page for %q: %s listed %v, want %v", tc.q, id, !slices.Contains(tc.want, id), slices.Contains(tc.want, id))
			}
		}
		if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_incidents", Arguments: map[string]any{"query": tc.q}}); err != nil || res.IsError {
			t.Errorf("MCP %q: %v %+v", tc.q, err, res)
		} else if raw, _ := json.Marshal(res.StructuredContent); strings.Count(string(raw), `"resource"`) != len(tc.want) {
			t.Errorf("MCP %q: %s, want %v", tc.q, raw, tc.want)
		}
	}
}
