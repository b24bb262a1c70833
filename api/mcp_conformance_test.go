package api

import (
	"context"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// conformanceScenarios are the official MCP conformance suite's server
// scenarios that apply to casebook's server (tools and case resources, no
// prompts, sampling or elicitation). The suite's other tool and resource
// scenarios call the reference server's own test tools (test_simple_text,
// test://static-text), which casebook does not have.
var conformanceScenarios = []string{
	"server-initialize", "ping", "tools-list", "resources-list", "dns-rebinding-protection",
}

// TestMCPConformance runs the official conformance suite
// (@modelcontextprotocol/conformance, which needs Node 22 or later; .ci/run
// installs both from the npm registry) against /mcp on loopback. It skips
// when the suite or a new enough node is not on PATH.
func TestMCPConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	bin, err := exec.LookPath("conformance")
	if err != nil {
		t.Skip("the MCP conformance suite is not installed (npm install -g @modelcontextprotocol/conformance, Node 22+)")
	}
	out, err := exec.Command("node", "--version").Output()
	if m := regexp.MustCompile(`^v(\d+)\.`).FindSubmatch(out); err != nil || m == nil {
		t.Skipf("node --version: %v %q", err, out)
	} else if major, _ := strconv.Atoi(string(m[1])); major < 22 {
		t.Skipf("the conformance suite needs Node 22 or later, PATH has %s", strings.TrimSpace(string(out)))
	}
	f := newFixture(t, Config{PublicURL: testPublicURL})
	f.seedCases()
	passed := regexp.MustCompile(`Passed: (\d+)/(\d+), 0 failed`)
	for _, sc := range conformanceScenarios {
		t.Run(sc, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			out, err := exec.CommandContext(ctx, bin, "server", "--url", f.srv.URL+"/mcp", "--scenario", sc).CombinedOutput()
			m := passed.FindSubmatch(out)
			if err != nil || m == nil || string(m[1]) != string(m[2]) || string(m[1]) == "0" {
				t.Fatalf("scenario %s: %v\n%s", sc, err, out)
			}
		})
	}
}
