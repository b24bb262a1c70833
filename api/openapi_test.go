package api

import (
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

type openapiOp struct {
	OperationID string                 `json:"operationId"`
	Summary     string                 `json:"summary"`
	Security    *[]map[string][]string `json:"security"`
}

func loadOpenAPI(t *testing.T) map[string]map[string]openapiOp {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(openapiDoc, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]openapiOp{}
	for path, ops := range doc.Paths {
		out[path] = map[string]openapiOp{}
		for method, raw := range ops {
			if method == "parameters" {
				continue
			}
			var op openapiOp
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatalf("%s %s: %v", method, path, err)
			}
			out[path][method] = op
		}
	}
	return out
}

// TestOpenAPIOperations: code generators need a unique operationId on every
// operation, and a client must be able to tell public operations (an
// explicit empty security list) from the reviewers' (bearer).
func TestOpenAPIOperations(t *testing.T) {
	paths := loadOpenAPI(t)
	idRe := regexp.MustCompile(`^[a-z][A-Za-z0-9]+$`)
	seen := map[string]string{}
	for path, ops := range paths {
		for method, op := range ops {
			where := strings.ToUpper(method) + " " + path
			if !idRe.MatchString(op.OperationID) {
				t.Errorf("%s: operationId %q, want lowerCamelCase", where, op.OperationID)
			}
			if prev, dup := seen[op.OperationID]; dup {
				t.Errorf("%s: operationId %q also names %s", where, op.OperationID, prev)
			}
			seen[op.OperationID] = where
			if op.Summary == "" {
				t.Errorf("%s: no summary", where)
			}
			reviewOnly := strings.HasPrefix(path, "/api/v1/review/") || where == "POST /api/v1/sources/{name}/crawl"
			switch {
			case op.Security == nil:
				t.Errorf("%s: declares no security (public operations declare security: [])", where)
			case reviewOnly && (len(*op.Security) != 1 || (*op.Security)[0]["bearer"] == nil):
				t.Errorf("%s: security %v, want bearer", where, *op.Security)
			case !reviewOnly && len(*op.Security) != 0:
				t.Errorf("%s: security %v, want [] (public)", where, *op.Security)
			}
		}
	}
	for _, want := range []string{"GET /healthz", "GET /metrics", "POST /mcp"} {
		method, path, _ := strings.Cut(want, " ")
		if _, ok := paths[path][strings.ToLower(method)]; !ok {
			t.Errorf("%s is not described", want)
		}
	}
}

// TestOpenAPIRedoclyLint runs `redocly lint` (npm package @redocly/cli, which
// .ci/run installs) with its recommended rules; no warning is allowed.
func TestOpenAPIRedoclyLint(t *testing.T) {
	bin, err := exec.LookPath("redocly")
	if err != nil {
		t.Skip("redocly is not installed (npm install -g @redocly/cli)")
	}
	cmd := exec.Command(bin, "lint", "--config", "../redocly.yaml", "--format", "stylish", "openapi.json")
	cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true", "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if err != nil || regexp.MustCompile(`(?m)^\s+\d+:\d+\s+(warning|error)`).Match(out) {
		t.Fatalf("redocly lint: %v\n%s", err, out)
	}
}
