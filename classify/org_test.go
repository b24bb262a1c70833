package classify

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestTextOrganization(t *testing.T) {
	tests := []struct{ name, title, text, want string }{
		{"en at X we", "Cache outage", "At Widgetly, we run two clusters. The cache failed.", "Widgetly"},
		{"en here at", "", "Here at Blue Harbor Labs our pager went off at night.", "Blue Harbor Labs"},
		{"en we at", "", "We at Quillstack learned a lot from this.", "Quillstack"},
		{"en not a name", "", "At first, we thought the disk was full. At 10:00 we restarted it.", ""},
		{"en a technology is no organisation", "", "At Kubernetes scale we see this often.", ""},
		{"ru в компании", "", "В компании Ромашка мы используем два дата-центра.", "Ромашка"},
		{"ru quoted in the title and named again", "Как упал «Лесторг»", "Сайт Лесторга был недоступен. Инженеры Лесторга нашли причину.", "Лесторг"},
		{"ru quoted once only", "Как упал «Лесторг»", "Сайт был недоступен.", ""},
		{"zh 在X公司我们", "", "在青木公司，我们有三个机房。", "青木"},
		{"zh a previous company names nobody", "", "在上家公司，我们也遇到过。", ""},
		{"en at X, clause with we", "", "At Widgetly, reliability is what we sell. The cache failed.", "Widgetly"},
		{"en at a weekday is no name", "", "At Monday's review, we agreed on a fix.", ""},
		{"ru мы в X, named twice", "", "Мы в Quillstack держим два кластера. Quillstack обслуживает магазины.", "Quillstack"},
		{"ru мы в a place names nobody", "", "Мы в Москве держим два кластера.", ""},
		{"ru мы в a tool said once names nobody", "", "Мы в Telegram обсудили откат.", ""},
		{"zh 在X，我们", "", "在Widgetly，我们有三个机房。", "Widgetly"},
		{"zh 我们X团队, named twice", "", "我们Quillstack团队连夜排查。Quillstack的用户很多。", "Quillstack"},
		{"zh 我们技术团队 names nobody", "", "我们技术团队连夜排查。", ""},
		{"zh 我们在 a technology names nobody", "", "我们在Kubernetes团队里讨论过。Kubernetes很复杂。", ""},
	}
	for _, tt := range tests {
		if got := textOrganization(tt.title, tt.text); got != tt.want {
			t.Errorf("%s: textOrganization = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestTeamOrganization: a name the text gives people or customers to, and
// names twice, is who had the incident (made-up posts in testdata/orgs); a
// part of an organisation, a technology or a name said once is not.
func TestTeamOrganization(t *testing.T) {
	for _, tt := range []struct{ file, want string }{
		{"en_team.txt", "Lantern Freight"},
		{"ru_team.txt", "Lantern Freight"},
		{"zh_team.txt", "Lantern Freight"},
		{"en_team_parts.txt", ""},
		{"en_team_once.txt", ""},
	} {
		raw, err := os.ReadFile(filepath.Join("testdata", "orgs", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		if got := textOrganization("", string(raw)); got != tt.want {
			t.Errorf("%s: textOrganization = %q, want %q", tt.file, got, tt.want)
		}
	}
}

// TestTitleOrganization: a status page's or a provider's summary names its
// owner in the title, when the text names it again.
func TestTitleOrganization(t *testing.T) {
	for _, tt := range []struct{ name, title, text, want string }{
		{"en status page title", "Widgetly Status - Elevated API errors", "Widgetly API requests failed for 20 minutes.", "Widgetly"},
		{"en status page suffix", "Elevated API errors | Widgetly Status", "Some Widgetly requests failed.", "Widgetly"},
		{"en summary of the X service event", "Summary of the Widgetly Storage Service Event in the Eastern Region",
			"Widgetly Storage returned errors for two hours.", "Widgetly"},
		{"en a month is no name", "Summary of the June 14 outage", "June 14 was a bad day.", ""},
		{"en a technology is no name", "Summary of the Kubernetes upgrade incident", "Kubernetes nodes restarted.", ""},
		{"en the title only", "Widgetly Status - Elevated API errors", "Requests failed for 20 minutes.", ""},
		{"en an adjective before postmortem", "Blameless postmortem of the cache outage", "Blameless reviews help.", ""},
	} {
		if got := textOrganization(tt.title, tt.text); got != tt.want {
			t.Errorf("%s: textOrganization = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestEventOrganization: a status-page report tells what the company's
// customers went through or that the company had the outage; another
// party's outage that reached "us" names nobody.
func TestEventOrganization(t *testing.T) {
	for _, tt := range []struct{ name, text, want string }{
		{"en customers experienced", "Between 10:00 and 10:40 UTC, Widgetly customers experienced elevated errors. Widgetly rolled back.", "Widgetly"},
		{"en X experienced a partial outage", "On May 3, Widgetly experienced a partial outage of its API. Widgetly engineers rolled back.", "Widgetly"},
		{"en engineers identified", "Quillstack engineers identified a bad index. The Quillstack API was slow.", "Quillstack"},
		{"en apologizes", "Quillstack sincerely apologizes for the disruption. Quillstack takes this seriously.", "Quillstack"},
		{"en third party reached us", "Lumenhost experienced an outage that took down our API. Lumenhost fixed it later.", ""},
		{"en third party upstream", "Lumenhost had a major outage at our upstream provider. Lumenhost said sorry.", ""},
		{"en named once", "Widgetly customers experienced elevated errors.", ""},
		{"en a part of an organisation", "Support engineers identified the ticket. Support was busy.", ""},
		{"en X's API, named twice", "For 40 minutes Widgetly's API returned errors. Widgetly rolled back the release.", "Widgetly"},
		{"en a vendor's API that reached us", "Lumenhost's API returned errors to our checkout. Lumenhost fixed it.", ""},
		{"en a technology's possessive", "Kubernetes's control plane was slow. Kubernetes is hard.", ""},
	} {
		if got := textOrganization("", tt.text); got != tt.want {
			t.Errorf("%s: textOrganization = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestCopyrightOrganization: a copyright line with a legal form names the
// company; a person's name, a theme's credit and a bare name said once do not.
func TestCopyrightOrganization(t *testing.T) {
	long := strings.Repeat("We restarted the cache nodes one by one and watched the error rate. ", 150)
	for _, tt := range []struct{ name, text, want string }{
		{"en legal form", "The cache failed.\n© 2024 Widgetly Inc. All rights reserved.", "Widgetly"},
		{"en range and LLC", "The cache failed.\nCopyright (c) 2019-2023 Blue Harbor Labs, LLC", "Blue Harbor Labs"},
		{"en at the end of a long post", long + "\n© 2024 Widgetly Inc.", "Widgetly"},
		{"en a bare name named again", "Widgetly served errors.\n© 2024 Widgetly", "Widgetly"},
		{"en a person", "The cache failed.\n© 2024 Jane Doe", ""},
		{"en a theme's credit", "The cache failed.\n© 2024 Powered by Hugo", ""},
		{"ru legal form", "Кэш упал.\n© 2024 ООО «Ромашка»", "Ромашка"},
		{"zh company", "缓存挂了。\n© 2024 青木科技有限公司 版权所有", "青木"},
	} {
		if got := textOrganization("", tt.text); got != tt.want {
			t.Errorf("%s: textOrganization = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestStatusHostAndSignOff: the status page "we" keep names the company
// as the text spells it; a sign-off line at the end names its team's
// company; another party's status page, a name the text never spells,
// a part of an organisation sign nobody.
func TestStatusHostAndSignOff(t *testing.T) {
	for _, tt := range []struct{ name, text, want string }{
		{"en we posted on status.x", "We posted updates on status.widgetly.io every 30 minutes. Widgetly API calls failed.", "Widgetly"},
		{"en our status page", "Our status page (widgetlystatus.com) was slow too. Widgetly users saw errors.", "Widgetly"},
		{"en another party's status page", "AWS posted updates on status.aws.amazon.com. Amazon fixed it.", ""},
		{"en the host only", "We posted updates on status.widgetly.io every 30 minutes.", ""},
		{"en sign-off", "The cache failed and we restarted it.\n\n— The Widgetly Team", "Widgetly"},
		{"en engineering sign-off", "The cache failed.\n\nThe Blue Harbor Engineering Team", "Blue Harbor"},
		{"en a part of an organisation signs", "The cache failed.\n\n— The SRE Team", ""},
		{"ru sign-off", "Кэш упал, мы его перезапустили.\n\nКоманда Widgetly", "Widgetly"},
		{"zh sign-off", "缓存挂了，我们重启了它。\n\nWidgetly 技术团队", "Widgetly"},
		{"en all our customers", "We apologise to all Widgetly customers. Widgetly will do better.", "Widgetly"},
	} {
		if got := textOrganization("", tt.text); got != tt.want {
			t.Errorf("%s: textOrganization = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestEventMatchesIsTheWholeTextScan checks that running the event patterns
// line by line, on the lines that hold their words, finds what one scan of
// the whole text finds.
func TestEventMatchesIsTheWholeTextScan(t *testing.T) {
	texts := []string{
		"Acme customers experienced elevated errors. Later, Acme customers were unable to log in.\nAcme experienced a partial outage.",
		"Summary\nAcme experienced a major outage on Tuesday; Acme engineers identified the cause.\n\nAcme sincerely apologizes.",
		"First line.\nThe Acme's API returned errors and Acme’s control plane stalled.\nBeta users saw nothing, Beta users reported it.",
		"no names here at all\n\n",
		"Acme had an incident.Acme had an outage",
	}
	for _, text := range texts {
		for i, re := range eventOrgRes {
			want := re.FindAllStringSubmatchIndex(text, 8)
			got := eventMatches(re, eventOrgNeeds[i], text, 8)
			if len(got) != len(want) {
				t.Errorf("pattern %d on %q: %v, want %v", i, text, got, want)
				continue
			}
			for k := range want {
				if text[got[k][2]:got[k][3]] != text[want[k][2]:want[k][3]] || got[k][1] != want[k][1] {
					t.Errorf("pattern %d on %q: match %d %v, want %v", i, text, k, got[k], want[k])
				}
			}
		}
	}
}

// TestOrgTextMatchesIsTheWholeTextScan checks that the "at Acme, we"
// patterns, run on the lines that hold their words, find the names one
// scan of the whole text finds.
func TestOrgTextMatchesIsTheWholeTextScan(t *testing.T) {
	for _, text := range orgTextSeeds {
		checkOrgTextMatches(t, text)
	}
}

var orgTextSeeds = []string{
	"At Acme, we run everything on Kubernetes.\nHere at Beta Corp we care.\nWe at Gamma Labs saw it.",
	"Intro.  At Acme, reliability is our first concern. What we did at Delta, we\nAt Omega, us",
	"В компании «Ромашка» мы упали. Мы в Acme Cloud видим. У нас в Acme Cloud тоже.",
	"在阿里巴巴公司，我们发现。在 Acme 公司，我们\n我们 Acme 团队。我们是腾讯集团",
	"that we at. At\nAt First, we\nat Acme\n, we",
	"",
}

func checkOrgTextMatches(t *testing.T, text string) {
	t.Helper()
	for i, re := range orgTextRes {
		var want []string
		for _, m := range re.FindAllStringSubmatch(text, 5) {
			want = append(want, m[1])
		}
		var got []string
		for _, m := range orgTextMatches(i, text) {
			got = append(got, m[1])
		}
		if !slices.Equal(got, want) {
			t.Fatalf("pattern %d on %q: names %q, want %q", i, text, got, want)
		}
	}
}

func FuzzOrgTextMatches(f *testing.F) {
	for _, s := range orgTextSeeds {
		f.Add(s)
	}
	f.Fuzz(checkOrgTextMatches)
}

func TestFamilyOrganization(t *testing.T) {
	pir := "What happened? Between 13:40 and 15:05 UTC customers could not sign in to the Cobalt Portal and the Cobalt CLI. How did we respond? We rolled back the change."
	for _, tt := range []struct{ name, title, text, want string }{
		{"PIR", "Post Incident Review (PIR) – Cobalt Portal – Sign-in failures", pir, "Cobalt"},
		{"mini incident report", "Mini Incident Report: Kestrel Kubernetes Engine",
			"From 08:00 to 08:45 Kestrel Kubernetes Engine clusters could not create nodes. Root cause: an expired certificate in the Kestrel control plane.", "Kestrel"},
		{"not a report's title", "Why sign-in failed on the Cobalt Portal", pir, ""},
		{"named before one word only", "Incident Report: Cobalt Portal", "Customers could not sign in to the Cobalt Portal. The Cobalt Portal is back.", ""},
		{"a word of the language", "Incident Report: Partial Outage", "A Partial Outage hit, then Partial Recovery came; the partial fix held.", ""},
		{"an acronym", "Incident Report: EU Sign-in", "EU West and EU Central saw errors.", ""},
		{"the report's own words", "Post Incident Review (PIR) – Sign-in", "This Post Incident Review covers it. Post Mortem follows. We rolled back.", ""},
	} {
		if got := familyOrganization(tt.title, tt.text); got != tt.want {
			t.Errorf("%s: familyOrganization = %q, want %q", tt.name, got, tt.want)
		}
	}
}
