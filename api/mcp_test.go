package api

import (
	"context"
	"encoding/json"
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
		case "list_incidents":
			for _, p := range []string{"tag", "category", "organization", "language", "year", "limit", "cursor"} {
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
