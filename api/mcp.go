package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/sinks"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Version is reported by the MCP server.
const Version = "0.1.0"

// IncidentBrief is a case as the MCP list and search tools return it.
type IncidentBrief struct {
	ID           string   `json:"id"`
	Title        string   `json:"title"`
	Organization string   `json:"organization"`
	Year         int      `json:"year"`
	Language     string   `json:"language"`
	Category     string   `json:"root_cause_category"`
	Components   []string `json:"components"`
	Tags         []string `json:"tags"`
	Summary      string   `json:"summary"`
	// URL is the case's page, JSONURL its API answer, both absolute (from
	// Config.PublicURL); Resource the MCP resource URI.
	URL      string `json:"url"`
	JSONURL  string `json:"json_url"`
	Resource string `json:"resource"`
}

// caseResourcePrefix is the URI of a case as an MCP resource, before its id.
const caseResourcePrefix = "casebook://cases/"

func (s *Server) briefOf(c *casebook.Case) IncidentBrief {
	c.Normalize()
	return IncidentBrief{ID: c.ID, Title: c.Title, Organization: c.Organization, Year: c.Year(), Language: c.Language,
		Category: c.RootCause.Category, Components: c.Components, Tags: c.Tags, Summary: c.Summary,
		URL: s.abs("/cases/" + c.ID), JSONURL: s.abs("/api/v1/cases/" + c.ID), Resource: caseResourcePrefix + c.ID}
}

func (s *Server) briefs(cs []casebook.Case) []IncidentBrief {
	out := make([]IncidentBrief, 0, len(cs))
	for i := range cs {
		out = append(out, s.briefOf(&cs[i]))
	}
	return out
}

func briefText(head string, bs []IncidentBrief) string {
	var b strings.Builder
	b.WriteString(head + "\n")
	for _, x := range bs {
		fmt.Fprintf(&b, "- %s: %s (%s, %d) [%s] %s %s\n", x.ID, x.Title, orUnknown(x.Organization), x.Year, x.Category, strings.Join(x.Components, ", "), x.URL)
	}
	return b.String()
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown organization"
	}
	return s
}

// MCP tool inputs; the jsonschema tags describe the fields to the client.
// The filters are those of GET /api/v1/search (and /cases), read by the
// same code, so a tool call and an HTTP request answer alike.
type searchIn struct {
	Query        string `json:"query" jsonschema:"full-text query in English, Russian or Chinese: every word must occur; a tag alias also finds its tag (k8s, \"service mesh\"); -word leaves out; \"quoted phrase\" in that order"`
	Tag          string `json:"tag,omitempty" jsonschema:"only cases with this tag (slug or alias, e.g. kubernetes or k8s)"`
	Component    string `json:"component,omitempty" jsonschema:"only cases with this component slug, see vocab"`
	Category     string `json:"category,omitempty" jsonschema:"only cases with this root-cause category slug, see vocab"`
	Organization string `json:"organization,omitempty" jsonschema:"only cases of this organization"`
	Language     string `json:"language,omitempty" jsonschema:"only cases written in en, ru or zh"`
	Year         int    `json:"year,omitempty" jsonschema:"only incidents of this year"`
	Sort         string `json:"sort,omitempty" jsonschema:"relevance (default), newest or oldest"`
	Limit        int    `json:"limit,omitempty" jsonschema:"at most this many cases, 1..50, default 10"`
	Cursor       string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
}

type searchOut struct {
	Query      string          `json:"query"`
	Total      int             `json:"total"`
	Incidents  []IncidentBrief `json:"incidents"`
	NextCursor string          `json:"next_cursor"`
}

// filterOf reads a tool's filters as the HTTP API reads its query.
func filterOf(tag, component, category, organization, language string, year int) (sinks.Filter, error) {
	q := url.Values{}
	for k, v := range map[string]string{"tag": tag, "component": component, "category": category, "organization": organization, "language": language} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if year != 0 {
		q.Set("year", strconv.Itoa(year))
	}
	return parseFilter(q)
}

// sortOf checks a tool's sort against the orders offered (the first is the
// default).
func sortOf(v string, orders ...string) (string, error) {
	if v == "" {
		return orders[0], nil
	}
	if !slices.Contains(orders, v) {
		return "", fmt.Errorf("sort must be one of %s", strings.Join(orders, ", "))
	}
	return v, nil
}

type getIn struct {
	ID string `json:"id" jsonschema:"case id such as CB-0001"`
}

type getOut struct {
	ID       string        `json:"id"`
	URL      string        `json:"url"`
	JSONURL  string        `json:"json_url"`
	Incident casebook.Case `json:"incident"`
}

type listIn struct {
	Tag          string `json:"tag,omitempty" jsonschema:"tag slug or alias, e.g. kubernetes or k8s"`
	Component    string `json:"component,omitempty" jsonschema:"component slug, see vocab"`
	Category     string `json:"category,omitempty" jsonschema:"root-cause category slug, see vocab"`
	Organization string `json:"organization,omitempty" jsonschema:"organization that had the incident"`
	Language     string `json:"language,omitempty" jsonschema:"en, ru or zh"`
	Year         int    `json:"year,omitempty" jsonschema:"incident year"`
	Sort         string `json:"sort,omitempty" jsonschema:"newest (default) or oldest"`
	Limit        int    `json:"limit,omitempty" jsonschema:"page size 1..100, default 20"`
	Cursor       string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
}

type listOut struct {
	Incidents  []IncidentBrief `json:"incidents"`
	NextCursor string          `json:"next_cursor"`
}

type topicIn struct {
	Tag string `json:"tag" jsonschema:"tag slug or alias"`
}

type topicOut struct {
	Tag       string          `json:"tag"`
	Aliases   []string        `json:"aliases"`
	Count     int             `json:"count"`
	Incidents []IncidentBrief `json:"incidents"`
}

type vocabIn struct{}

func clampLimit(n, def, max int) int {
	if n <= 0 {
		return def
	}
	return min(n, max)
}

func toolText(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// toolError reports a tool failure: returned as the handler's error, the
// SDK makes it a result with IsError and the message as text, and no
// structured content (an empty output object would not match the schema).
func toolError(format string, args ...any) error { return fmt.Errorf(format, args...) }

// readOnly annotates the tools: they read the published cases and nothing
// else (closed world, no side effects).
func readOnly(title string) *mcp.ToolAnnotations {
	closed := false
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &closed}
}

// MCPServer builds the MCP server over the store: the incident-library tools.
func (s *Server) MCPServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "casebook", Version: Version}, nil)
	st := s.cfg.Store
	mcp.AddTool(srv, &mcp.Tool{Name: "search_incidents", Title: "Search incidents", Annotations: readOnly("Search incidents"), Description: "Full-text search over published incident cases (title, summary, symptoms, root cause, remediation) in English, Russian and Chinese, narrowed by tag, component, root-cause category, organization, language and year, ranked by relevance or date; paged by cursor."},
		func(ctx context.Context, req *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, searchOut, error) {
			q := strings.TrimSpace(in.Query)
			if q == "" {
				return nil, searchOut{}, toolError("query is required")
			}
			if len(q) > 500 {
				return nil, searchOut{}, toolError("query is longer than 500 bytes")
			}
			f, err := filterOf(in.Tag, in.Component, in.Category, in.Organization, in.Language, in.Year)
			if err != nil {
				return nil, searchOut{}, toolError("%v", err)
			}
			order, err := sortOf(in.Sort, sinks.SortRelevance, sinks.SortNewest, sinks.SortOldest)
			if err != nil {
				return nil, searchOut{}, toolError("%v", err)
			}
			res, err := st.SearchWith(q, sinks.SearchOptions{Filter: f, Sort: order}, in.Cursor, clampLimit(in.Limit, 10, 50))
			if errors.Is(err, sinks.ErrInvalid) {
				return nil, searchOut{}, toolError("cursor %q is not a next_cursor this server gave out", in.Cursor)
			}
			if err != nil {
				return nil, searchOut{}, err
			}
			out := searchOut{Query: q, Total: res.Total, Incidents: s.briefs(res.Items), NextCursor: res.NextCursor}
			head := fmt.Sprintf("%s %q", countOf(res.Total, "case matches", "cases match"), q)
			if res.NextCursor != "" {
				head += fmt.Sprintf(" (next cursor %q)", res.NextCursor)
			}
			return toolText(briefText(head+":", out.Incidents)), out, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "get_incident", Title: "Get an incident", Annotations: readOnly("Get an incident"), Description: "One published incident case by id, with its related cases."},
		func(ctx context.Context, req *mcp.CallToolRequest, in getIn) (*mcp.CallToolResult, getOut, error) {
			c, _, err := st.GetPublished(strings.TrimSpace(in.ID), relatedCount)
			if err != nil {
				return nil, getOut{}, toolError("no published case %q", in.ID)
			}
			c.Normalize()
			var b strings.Builder
			fmt.Fprintf(&b, "%s: %s\n%s\nOrganization: %s. Year: %d. Root cause: %s.\n\n%s\n\nRoot cause: %s\n", c.ID, c.Title, s.abs("/cases/"+c.ID), orUnknown(c.Organization), c.Year(), c.RootCause.Category, c.Summary, c.RootCause.Description)
			for _, r := range c.Related {
				fmt.Fprintf(&b, "Related: %s %s (%s) %s\n", r.ID, r.Title, r.Relation, s.abs("/cases/"+r.ID))
			}
			return toolText(b.String()), getOut{ID: c.ID, URL: s.abs("/cases/" + c.ID), JSONURL: s.abs("/api/v1/cases/" + c.ID), Incident: *c}, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "list_incidents", Title: "List incidents", Annotations: readOnly("List incidents"), Description: "Published incident cases, newest (or oldest) first, filtered by tag, component, root-cause category, organization, language and year; paged by cursor."},
		func(ctx context.Context, req *mcp.CallToolRequest, in listIn) (*mcp.CallToolResult, listOut, error) {
			f, err := filterOf(in.Tag, in.Component, in.Category, in.Organization, in.Language, in.Year)
			if err != nil {
				return nil, listOut{}, toolError("%v", err)
			}
			order, err := sortOf(in.Sort, sinks.SortNewest, sinks.SortOldest)
			if err != nil {
				return nil, listOut{}, toolError("%v", err)
			}
			items, next, err := st.ListCasesWith(f, sinks.ListOptions{Sort: order}, in.Cursor, clampLimit(in.Limit, 20, 100))
			if err != nil {
				return nil, listOut{}, toolError("list: %v", err)
			}
			out := listOut{Incidents: s.briefs(items), NextCursor: next}
			return toolText(briefText(fmt.Sprintf("%s (next cursor %q):", countOf(len(items), "case", "cases"), next), out.Incidents)), out, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "get_topic", Title: "Get a topic", Annotations: readOnly("Get a topic"), Description: "A technology tag: its aliases, how many cases carry it and the newest of them."},
		func(ctx context.Context, req *mcp.CallToolRequest, in topicIn) (*mcp.CallToolResult, topicOut, error) {
			t, found, err := s.topicOf(in.Tag, "", 20)
			if err != nil {
				return nil, topicOut{}, err
			}
			if !found {
				return nil, topicOut{}, toolError("unknown topic %q", in.Tag)
			}
			out := topicOut{Tag: t.Tag, Aliases: t.Aliases, Count: t.Count, Incidents: s.briefs(t.Items)}
			return toolText(briefText(fmt.Sprintf("Topic %s (aliases: %s): %s.", t.Tag, strings.Join(t.Aliases, ", "), countOf(t.Count, "case", "cases")), out.Incidents)), out, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "vocab", Title: "Vocabulary", Annotations: readOnly("Vocabulary"), Description: "The controlled vocabulary: root-cause categories, triggers, detection methods, components and tags, with counts."},
		func(ctx context.Context, req *mcp.CallToolRequest, in vocabIn) (*mcp.CallToolResult, vocabAnswer, error) {
			v := s.vocabulary()
			var b strings.Builder
			for _, group := range []struct {
				name  string
				terms []vocabTerm
			}{{"root_cause", v.RootCause}, {"trigger", v.Trigger}, {"detection", v.Detection}, {"components", v.Components}} {
				var names []string
				for _, t := range group.terms {
					names = append(names, t.Slug)
				}
				fmt.Fprintf(&b, "%s: %s\n", group.name, strings.Join(names, ", "))
			}
			fmt.Fprintf(&b, "tags: %d slugs\n", len(v.Tags))
			return toolText(b.String()), v, nil
		})
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: caseResourcePrefix + "{id}", Name: "case", Title: "Incident case",
		Description: "A published incident case as JSON (the same as GET /api/v1/cases/{id}), e.g. casebook://cases/CB-0001.",
		MIMEType:    "application/json"}, s.readCaseResource)
	return srv
}

// readCaseResource answers resources/read for casebook://cases/{id}.
func (s *Server) readCaseResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, ok := strings.CutPrefix(uri, caseResourcePrefix)
	if !ok || id == "" || strings.Contains(id, "/") {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	raw, resolved, err := s.cfg.Store.GetPublishedJSON(id, relatedCount)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: caseResourcePrefix + resolved, MIMEType: "application/json", Text: string(raw)}}}, nil
}

func (s *Server) mcpHandler() http.Handler {
	srv := s.MCPServer()
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
}

// countOf says n with the noun phrase that agrees with it: "1 case matches",
// "2 cases match". An agent reads these lines back to a person.
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
