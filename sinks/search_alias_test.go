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
		// An alias inflected is read by its terms.
		{"контрольных групп", []string{"CB-0003"}},
		{"google clouds", []string{"CB-0001", "CB-0002"}},
		// Chinese written without spaces: the alias inside the run.
		{"服务网格故障", []string{"CB-0004"}},
		{"请求失败", []string{"CB-0004"}},
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

func TestHanParts(t *testing.T) {
	for _, tc := range []struct {
		w    string
		want []wordPart
	}{
		{"服务网格故障", []wordPart{{"服务网格", "service-mesh"}, {"故障", ""}}},
		{"数据库服务网格", []wordPart{{"数据库", ""}, {"服务网格", "service-mesh"}}},
		{"linux内核", []wordPart{{"linux内核", "linux-kernel"}}}, // the whole word, not linux and 内核
		{"Linux内核升级", []wordPart{{"Linux内核", "linux-kernel"}, {"升级", ""}}},
		{"阿里云和腾讯云", []wordPart{{"阿里云", "aliyun"}, {"和", ""}, {"腾讯云", "tencent-cloud"}}},
		{"数据库", []wordPart{{"数据库", ""}}},
		{"kafka", []wordPart{{"kafka", "kafka"}}},
		{"postgres", []wordPart{{"postgres", "postgresql"}}},
		{"outage", []wordPart{{"outage", ""}}},
	} {
		if got := hanParts(tc.w); !slices.Equal(got, tc.want) {
			t.Errorf("hanParts(%q) = %v, want %v", tc.w, got, tc.want)
		}
	}
}
