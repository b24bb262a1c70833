package sinks

import (
	"slices"
	"testing"

	"github.com/casebook/casebook"
)

// TestSearchMultiWordAlias: words that together are a tag's alias find the
// cases carrying the tag, written plainly as well as quoted, in English,
// Russian and Chinese; the words still find cases holding them, and no
// single word of the alias reaches the tag.
func TestSearchMultiWordAlias(t *testing.T) {
	s := openTemp(t)
	if _, err := s.Import([]*casebook.Case{
		// CB-0001: tagged gcp; its text names neither "google" nor "cloud".
		sample("Control plane outage in one region", "Acme", "en", "dependency", 2023, nil, []string{"gcp"}, "VM creation failed for two hours in one region."),
		// CB-0002: both words, not in that order, no tag.
		sample("Cloud bill from Google rose", "Other Co", "en", "capacity", 2023, nil, nil, "The cloud invoice from Google doubled after autoscaling ran away."),
		// CB-0003: tagged cgroups; the text says "лимиты памяти".
		sample("Лимиты памяти убили процессы", "Рога и копыта", "ru", "configuration", 2022, nil, []string{"cgroups"}, "Процессы завершались из-за лимитов памяти после обновления."),
		// CB-0004: tagged service-mesh; the text says 边车代理 (sidecar proxy).
		sample("边车代理故障导致请求失败", "某公司", "zh", "software-defect", 2024, nil, []string{"service-mesh"}, "边车代理升级后大量请求失败。"),
		// CB-0005: tagged eks; the text says "node group".
		sample("Node group upgrade broke pods", "Acme", "en", "deployment", 2024, nil, []string{"eks"}, "The node group upgrade replaced every node at once."),
	}, "test"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		q    string
		want []string // by relevance, then newest
	}{
		{"google cloud", []string{"CB-0001", "CB-0002"}},
		{`"google cloud"`, []string{"CB-0001"}}, // CB-0002 has the words, not the phrase
		{"google cloud outage", []string{"CB-0001"}},
		{"cloud", []string{"CB-0002"}}, // one word of the alias is not the alias
		{"google", []string{"CB-0002"}},
		{`region -"google cloud"`, []string{}},
		{"контрольные группы", []string{"CB-0003"}},
		{`"контрольные группы"`, []string{"CB-0003"}},
		{"контрольные группы процессы", []string{"CB-0003"}},
		{"服务网格", []string{"CB-0004"}},
		{"elastic kubernetes service", []string{"CB-0005"}},
		{"elastic kubernetes service upgrade", []string{"CB-0005"}},
		{"amazon eks", []string{"CB-0005"}},
		// A word asked plainly as well as in an alias is needed plainly.
		{"google google cloud", []string{"CB-0002"}},
	} {
		res, err := s.SearchWith(tc.q, SearchOptions{}, "", 10)
		if err != nil {
			t.Fatalf("%q: %v", tc.q, err)
		}
		got := ids(res.Items)
		slices.Sort(got)
		want := slices.Clone(tc.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("SearchWith(%q) = %v, want %v (terms %q)", tc.q, ids(res.Items), tc.want, res.Terms)
		}
	}
}
