package casebook

import (
	"errors"
	"strings"
	"testing"
)

func validCase() *Case {
	return &Case{
		Title: "Certificate expiry broke checkout", Organization: "Shop", Published: "2024-02-29", IncidentDate: "2024-02",
		Language: "en", Summary: "An expired certificate.\nChecks failed.", Tags: []string{"k8s", "tls"}, Components: []string{"certificates"},
		Impact:      Impact{Duration: "PT45M", TimeToDetect: "PT5M", TimeToResolve: "P1DT2H"},
		RootCause:   RootCause{Category: "expiry", Description: "The certificate expired."},
		Trigger:     Trigger{Kind: "time"},
		Detection:   Detection{Method: "automated-alert"},
		Remediation: []string{"Renewed the certificate", "Added an expiry alert"},
	}
}

func TestValidateEdit(t *testing.T) {
	if err := ValidateEdit(validCase()); err != nil {
		t.Fatalf("valid case refused: %v", err)
	}
	many := func(n int, s string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = s
		}
		return out
	}
	for _, tc := range []struct {
		name, field string
		edit        func(*Case)
	}{
		{"empty title", "title", func(c *Case) { c.Title = "  " }},
		{"NUL in title", "title", func(c *Case) { c.Title = "a\x00b" }},
		{"ESC in title", "title", func(c *Case) { c.Title = "\x1b[31mred" }},
		{"newline in title", "title", func(c *Case) { c.Title = "a\nb" }},
		{"C1 in title", "title", func(c *Case) { c.Title = "a\u0085b" }},
		{"900 KB title", "title", func(c *Case) { c.Title = strings.Repeat("x", 900<<10) }},
		{"long title", "title", func(c *Case) { c.Title = strings.Repeat("长", MaxTitleBytes/3+1) }},
		{"invalid UTF-8", "summary", func(c *Case) { c.Summary = "a\xffb" }},
		{"NUL in summary", "summary", func(c *Case) { c.Summary = "a\x00b" }},
		{"long summary", "summary", func(c *Case) { c.Summary = strings.Repeat("a", MaxTextBytes+1) }},
		{"long organization", "organization", func(c *Case) { c.Organization = strings.Repeat("a", MaxLineBytes+1) }},
		{"not a date", "published", func(c *Case) { c.Published = "not-a-date" }},
		{"no such day", "published", func(c *Case) { c.Published = "2023-02-29" }},
		{"year only published", "published", func(c *Case) { c.Published = "2023" }},
		{"bad month", "incident_date", func(c *Case) { c.IncidentDate = "2024-13" }},
		{"loose date", "incident_date", func(c *Case) { c.IncidentDate = "May 2024" }},
		{"duration prose", "impact.duration", func(c *Case) { c.Impact.Duration = "45 minutes" }},
		{"bare P", "impact.time_to_detect", func(c *Case) { c.Impact.TimeToDetect = "P" }},
		{"bare T", "impact.time_to_resolve", func(c *Case) { c.Impact.TimeToResolve = "P1DT" }},
		{"ESC in region", "impact.region", func(c *Case) { c.Impact.Region = "eu\x1b" }},
		{"language", "language", func(c *Case) { c.Language = "de" }},
		{"category", "root_cause.category", func(c *Case) { c.RootCause.Category = "gremlins" }},
		{"trigger", "trigger.kind", func(c *Case) { c.Trigger.Kind = "moon" }},
		{"detection", "detection.method", func(c *Case) { c.Detection.Method = "psychic" }},
		{"component", "components[1]", func(c *Case) { c.Components = []string{"dns", "mainframe"} }},
		{"too many components", "components", func(c *Case) { c.Components = many(len(Components)+1, "dns") }},
		{"tag that is no slug", "tags[0]", func(c *Case) { c.Tags = []string{"no such/tag!"} }},
		{"too many tags", "tags", func(c *Case) { c.Tags = many(MaxTags+1, "kafka") }},
		{"100,000 steps", "remediation", func(c *Case) { c.Remediation = many(100000, "step") }},
		{"long step", "action_items[0]", func(c *Case) { c.ActionItems = []string{strings.Repeat("a", MaxListItemBytes+1)} }},
		{"NUL in lesson", "lessons[1]", func(c *Case) { c.Lessons = []string{"ok", "a\x00"} }},
		{"too much text", "case", func(c *Case) {
			c.Remediation, c.ActionItems = many(MaxListItems, strings.Repeat("a", MaxListItemBytes)), many(MaxListItems, strings.Repeat("b", MaxListItemBytes))
		}},
	} {
		c := validCase()
		tc.edit(c)
		err := ValidateEdit(c)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("%s: %v, want a FieldError on %s", tc.name, err, tc.field)
			continue
		}
		if len(err.Error()) > 300 {
			t.Errorf("%s: message of %d bytes", tc.name, len(err.Error()))
		}
	}
	if err := ValidateNote("note", strings.Repeat("n", MaxNoteBytes+1)); err == nil {
		t.Error("long note accepted")
	}
	if err := ValidateNote("note", "fine\nnote"); err != nil {
		t.Errorf("note refused: %v", err)
	}
}

func FuzzValidateEdit(f *testing.F) {
	for _, s := range []string{"2024-02-29", "PT45M", "a\x00", "P1DT", "\xff"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, date, dur string) {
		c := validCase()
		c.Published, c.Impact.Duration, c.Title = date, dur, date+dur+"x"
		if ValidateEdit(c) == nil && (!validDate(date) && date != "" || len(c.Title) > MaxTitleBytes) {
			t.Fatalf("accepted published %q duration %q", date, dur)
		}
	})
}
