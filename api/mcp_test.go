package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpSession connects the Go SDK's client to the fixture's /mcp.
func mcpSession(t *testing.T, f *fixture) (context.Context, *mcp.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	client := mcp.NewClient(&mcp.Implementation{Name: "casebook-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: f.srv.URL + "/mcp", DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return ctx, cs
}

func TestMCP(t *testing.T) {
	f := newFixture(t, Config{})
	f.seedCases()
	ctx, cs := mcpSession(t, f)

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		schema, _ := json.Marshal(tl.InputSchema)
		if !strings.Contains(string(schema), `"type":"object"`) {
			t.Errorf("%s: input schema %s", tl.Name, schema)
		}
		switch tl.Name {
		case "search_incidents":
			if !strings.Contains(string(schema), `"query"`) || !strings.Contains(string(schema), `"required":["query"]`) {
				t.Errorf("search schema %s", schema)
			}
			// Every parameter of GET /api/v1/search (q is the query).
			for _, p := range []string{"tag", "component", "category", "organization", "language", "year", "sort", "limit", "cursor"} {
				if !strings.Contains(string(schema), `"`+p+`"`) {
					t.Errorf("search schema lacks %s: %s", p, schema)
				}
			}
		case "list_incidents":
			for _, p := range []string{"tag", "component", "category", "organization", "language", "year", "sort", "limit", "cursor"} {
				if !strings.Contains(string(schema), `"`+p+`"`) {
					t.Errorf("list schema lacks %s: %s", p, schema)
				}
			}
		}
	}
	slices.Sort(names)
	if want := []string{"get_incident", "get_topic", "list_incidents", "search_incidents", "vocab"}; !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}

	call := func(name string, args map[string]any) (*mcp.CallToolResult, string, string) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		text := ""
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		structured, _ := json.Marshal(res.StructuredContent)
		return res, text, string(structured)
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
		ids  []string // every one named in both the text and the structured content
	}{
		{"search_incidents", map[string]any{"query": "kafka disk"}, []string{"CB-0001"}},
		{"search_incidents", map[string]any{"query": "数据库", "limit": 5}, []string{"CB-0003"}},
		{"get_incident", map[string]any{"id": "CB-0002"}, []string{"CB-0002", "CB-0001"}}, // related case named too
		{"list_incidents", map[string]any{"tag": "k8s"}, []string{"CB-0003", "CB-0001"}},
		{"list_incidents", map[string]any{"category": "capacity", "year": 2022}, []string{"CB-0002"}},
		{"list_incidents", map[string]any{"language": "ru", "limit": 1}, []string{"CB-0002"}},
		{"get_topic", map[string]any{"tag": "kubernetes"}, []string{"CB-0003", "CB-0001"}},
	} {
		res, text, structured := call(tc.tool, tc.args)
		if res.IsError {
			t.Errorf("%s %v: error %s", tc.tool, tc.args, text)
			continue
		}
		for _, id := range tc.ids {
			if !strings.Contains(text, id) || !strings.Contains(structured, `"`+id+`"`) {
				t.Errorf("%s %v: %s missing from text %q or structured %s", tc.tool, tc.args, id, text, structured)
			}
		}
	}
	if _, text, structured := call("list_incidents", map[string]any{"organization": "acme"}); !strings.Contains(text, "CB-0001") || strings.Contains(structured, "CB-0002") {
		t.Errorf("organization filter: %s", structured)
	}
	if _, text, structured := call("vocab", map[string]any{}); !strings.Contains(text, "software-defect") || !strings.Contains(structured, `"components"`) {
		t.Errorf("vocab: %s", text)
	}
	// Tool errors come back as results the model can read.
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"get_incident", map[string]any{"id": "CB-9999"}},
		{"search_incidents", map[string]any{"query": " "}},
		{"list_incidents", map[string]any{"category": "gremlins"}},
		{"get_topic", map[string]any{"tag": "zzz-none"}},
	} {
		if res, _, _ := call(tc.tool, tc.args); !res.IsError {
			t.Errorf("%s %v: want IsError", tc.tool, tc.args)
		}
	}
	// Arguments outside the schema are refused by the SDK.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_incident", Arguments: map[string]any{"id": 7}}); err == nil {
		if res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_incident", Arguments: map[string]any{"id": 7}}); res != nil && !res.IsError {
			t.Errorf("a numeric id was accepted")
		}
	}
}

// TestMCPConventions: titles and read-only annotations on every tool,
// absolute URLs (from PublicURL) in results, each case as a resource, and
// errors as tool errors without structured content.
func TestMCPConventions(t *testing.T) {
	f := newFixture(t, Config{PublicURL: testPublicURL})
	f.seedCases()
	ctx, cs := mcpSession(t, f)
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		a := tl.Annotations
		if tl.Title == "" || a == nil || !a.ReadOnlyHint || !a.IdempotentHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: title %q annotations %+v", tl.Name, tl.Title, a)
		}
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"search_incidents", map[string]any{"query": "kafka"}},
		{"get_incident", map[string]any{"id": "CB-0001"}},
		{"list_incidents", map[string]any{}},
		{"get_topic", map[string]any{"tag": "kubernetes"}},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", tc.tool, err, res)
		}
		structured, _ := json.Marshal(res.StructuredContent)
		text := res.Content[0].(*mcp.TextContent).Text
		if !strings.Contains(string(structured), `"url":"`+testPublicURL+`/cases/CB-000`) || !strings.Contains(text, testPublicURL+"/cases/CB-000") {
			t.Errorf("%s: no absolute URL in %s / %q", tc.tool, structured, text)
		}
		if strings.Contains(string(structured), `"url":"/cases/`) {
			t.Errorf("%s: relative URL in %s", tc.tool, structured)
		}
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
		msg  string
	}{
		{"get_incident", map[string]any{"id": "CB-9999"}, "CB-9999"},
		{"search_incidents", map[string]any{"query": " "}, "query is required"},
		{"list_incidents", map[string]any{"category": "gremlins"}, "gremlins"},
		{"get_topic", map[string]any{"tag": "zzz-none"}, "zzz-none"},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil || !res.IsError || res.StructuredContent != nil || len(res.Content) != 1 || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, tc.msg) {
			t.Errorf("%s %v: %v %+v, want IsError, the message, no structured content", tc.tool, tc.args, err, res)
		}
	}

	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(templates.ResourceTemplates) != 1 || templates.ResourceTemplates[0].URITemplate != "casebook://cases/{id}" {
		t.Fatalf("resource templates: %v %+v", err, templates)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "casebook://cases/CB-0002"})
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].MIMEType != "application/json" {
		t.Fatalf("read resource: %v %+v", err, rr)
	}
	var c struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	if err := json.Unmarshal([]byte(rr.Contents[0].Text), &c); err != nil || c.ID != "CB-0002" || c.Title == "" {
		t.Errorf("resource content: %v %+v", err, c)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "casebook://cases/CB-9999"}); err == nil {
		t.Error("an unknown case read as a resource")
	}
}

// TestMCPSearchFilters: search_incidents takes the HTTP search's filters,
// sort and paging, through the real Streamable HTTP transport, and answers
// exactly what GET /api/v1/search answers for the same parameters.
func TestMCPSearchFilters(t *testing.T) {
	f := newFixture(t, Config{})
	f.seedCases() // CB-0001 en kafka+kubernetes 2021 capacity; CB-0002 ru postgresql 2022 capacity; CB-0003 zh kubernetes 2023 network
	ctx, cs := mcpSession(t, f)
	search := func(args map[string]any) (ids []string, next string, isErr bool, text string) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_incidents", Arguments: args})
		if err != nil {
			t.Fatalf("search %v: %v", args, err)
		}
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		if res.IsError {
			return nil, "", true, text
		}
		raw, _ := json.Marshal(res.StructuredContent)
		var out searchOut
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("structured %s: %v", raw, err)
		}
		for _, b := range out.Incidents {
			ids = append(ids, b.ID)
			if !strings.Contains(text, b.ID) {
				t.Errorf("search %v: %s in the structured content but not the text %q", args, b.ID, text)
			}
		}
		return ids, out.NextCursor, false, text
	}
	// httpIDs is the HTTP search's answer to the same parameters.
	httpIDs := func(args map[string]any) []string {
		t.Helper()
		q := url.Values{}
		for k, v := range args {
			if k == "query" {
				k = "q"
			}
			q.Set(k, fmt.Sprint(v))
		}
		resp, body := do(t, "GET", f.srv.URL+"/api/v1/search?"+q.Encode(), "", nil)
		var page struct {
			Items []struct{ ID string } `json:"items"`
		}
		if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &page) != nil {
			t.Fatalf("HTTP search %s: %d %s", q.Encode(), resp.StatusCode, body)
		}
		var ids []string
		for _, it := range page.Items {
			ids = append(ids, it.ID)
		}
		return ids
	}
	for _, tc := range []struct {
		args map[string]any
		want []string // in order
	}{
		{map[string]any{"query": "k8s", "sort": "newest"}, []string{"CB-0003", "CB-0001"}},
		{map[string]any{"query": "k8s", "sort": "oldest"}, []string{"CB-0001", "CB-0003"}},
		{map[string]any{"query": "k8s", "language": "zh"}, []string{"CB-0003"}},
		{map[string]any{"query": "k8s", "component": "dns"}, []string{"CB-0003"}},
		{map[string]any{"query": "k8s", "category": "capacity"}, []string{"CB-0001"}},
		{map[string]any{"query": "k8s", "year": 2021}, []string{"CB-0001"}},
		{map[string]any{"query": "k8s", "organization": "acme"}, []string{"CB-0001"}},
		{map[string]any{"query": "k8s", "tag": "kafka"}, []string{"CB-0001"}},
		{map[string]any{"query": "k8s", "tag": "postgres"}, nil}, // an alias as the tag filter; no case has both
		{map[string]any{"query": "k8s", "language": "ru"}, nil},
		{map[string]any{"query": "k8s", "category": "network", "year": 2023, "language": "zh", "component": "dns", "tag": "kubernetes"}, []string{"CB-0003"}},
	} {
		got, _, isErr, text := search(tc.args)
		if isErr {
			t.Errorf("search %v: tool error %s", tc.args, text)
			continue
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("search %v = %v, want %v", tc.args, got, tc.want)
		}
		if h := httpIDs(tc.args); !slices.Equal(got, h) {
			t.Errorf("search %v: MCP %v, HTTP %v", tc.args, got, h)
		}
	}

	// Paging: a cursor from one page gives the next, and the pages make
	// the whole answer once.
	p1, next, _, text := search(map[string]any{"query": "k8s", "sort": "newest", "limit": 1})
	if len(p1) != 1 || next == "" || !strings.Contains(text, next) {
		t.Fatalf("page 1: %v next %q text %q", p1, next, text)
	}
	p2, next2, _, _ := search(map[string]any{"query": "k8s", "sort": "newest", "limit": 1, "cursor": next})
	if !slices.Equal(append(p1, p2...), []string{"CB-0003", "CB-0001"}) || next2 != "" {
		t.Errorf("pages %v then %v (next %q)", p1, p2, next2)
	}

	// Bad filters are tool errors naming what is wrong, as HTTP's 400s are.
	for _, tc := range []struct {
		args map[string]any
		says string
	}{
		{map[string]any{"query": "k8s", "category": "gremlins"}, "gremlins"},
		{map[string]any{"query": "k8s", "component": "flux-capacitor"}, "flux-capacitor"},
		{map[string]any{"query": "k8s", "language": "de"}, "language"},
		{map[string]any{"query": "k8s", "year": 12}, "year"},
		{map[string]any{"query": "k8s", "tag": "not a slug!"}, "tag"},
		{map[string]any{"query": "k8s", "sort": "best"}, "sort"},
		{map[string]any{"query": "k8s", "cursor": "x"}, "cursor"},
		{map[string]any{"query": strings.Repeat("a ", 300)}, "500 bytes"},
	} {
		if _, _, isErr, text := search(tc.args); !isErr || !strings.Contains(text, tc.says) {
			t.Errorf("search %v: error %v %q, want a tool error about %s", tc.args, isErr, text, tc.says)
		}
	}

	// list_incidents takes the component and the order too.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_incidents", Arguments: map[string]any{"component": "storage", "sort": "oldest"}})
	if err != nil || res.IsError {
		t.Fatalf("list: %v %+v", err, res)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var lo listOut
	if json.Unmarshal(raw, &lo) != nil || len(lo.Incidents) != 2 || lo.Incidents[0].ID != "CB-0001" || lo.Incidents[1].ID != "CB-0002" {
		t.Errorf("list component=storage sort=oldest: %s", raw)
	}
}
