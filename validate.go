package casebook

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Limits on the fields of a case a reviewer edits. A case within them is at
// most a few hundred KiB of text, so one edit stays a short write: the store
// has a single writer, and public submissions wait behind it.
const (
	MaxTitleBytes     = 500       // title
	MaxLineBytes      = 500       // organization, impact.* (one line each)
	MaxTextBytes      = 16 << 10  // summary, symptoms, *.description
	MaxListItems      = 100       // remediation, action_items, lessons (each)
	MaxListItemBytes  = 4 << 10   // one item of those lists
	MaxTags           = 50        // tags
	MaxNoteBytes      = 4 << 10   // a reviewer's note or reject reason
	MaxEditTotalBytes = 256 << 10 // all the edited text together
)

// FieldError is a case field that breaks the schema, the vocabulary or a
// limit. Field is its JSON path ("impact.duration", "remediation[3]").
type FieldError struct {
	Field  string
	Reason string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Reason }

func fieldErr(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

var (
	publishedRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	// incident_date is a year, a month or a day.
	incidentRe = regexp.MustCompile(`^\d{4}(-\d{2}(-\d{2})?)?$`)
	// An ISO 8601 duration as case.schema.json has it (RE2 has no
	// lookahead: the "P" / "T" alone cases are refused separately).
	durationRe = regexp.MustCompile(`^P(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$`)
	tagRe      = regexp.MustCompile(`^[a-z0-9][a-z0-9.+-]*$`)
)

// validDate reports whether s is "" or a real calendar date with the given
// precision: YYYY, YYYY-MM or YYYY-MM-DD.
func validDate(s string) bool {
	switch len(s) {
	case 4:
		_, err := time.Parse("2006", s)
		return err == nil
	case 7:
		_, err := time.Parse("2006-01", s)
		return err == nil
	case 10:
		_, err := time.Parse("2006-01-02", s)
		return err == nil
	}
	return false
}

func validDuration(s string) bool {
	return durationRe.MatchString(s) && s != "P" && !strings.HasSuffix(s, "T")
}

// checkText refuses invalid UTF-8, control characters (NUL, ESC, DEL, C1;
// multi-line fields may hold tab and newlines) and text over max bytes.
func checkText(field, s string, max int, multiline bool) error {
	if len(s) > max {
		return fieldErr(field, "is %d bytes, over the limit of %d", len(s), max)
	}
	if !utf8.ValidString(s) {
		return fieldErr(field, "is not valid UTF-8")
	}
	for i, r := range s {
		if !unicode.IsControl(r) {
			continue
		}
		if multiline && (r == '\n' || r == '\r' || r == '\t') {
			continue
		}
		return fieldErr(field, "contains the control character %U at byte %d", r, i)
	}
	return nil
}

// ValidateEdit checks the reviewer-editable fields of c against
// case.schema.json (dates, durations, enums, tag slugs), the vocabulary
// and the limits above, before anything is written. Tags may still be
// aliases ("k8s"): the caller maps them to slugs. The first problem found
// is returned as a *FieldError.
func ValidateEdit(c *Case) error {
	total := 0
	text := func(field, s string, max int, multiline bool) error {
		total += len(s)
		return checkText(field, s, max, multiline)
	}
	if strings.TrimSpace(c.Title) == "" {
		return fieldErr("title", "must not be empty")
	}
	for _, f := range []struct {
		name, v   string
		max       int
		multiline bool
	}{
		{"title", c.Title, MaxTitleBytes, false},
		{"organization", c.Organization, MaxLineBytes, false},
		{"summary", c.Summary, MaxTextBytes, true},
		{"symptoms", c.Symptoms, MaxTextBytes, true},
		{"root_cause.description", c.RootCause.Description, MaxTextBytes, true},
		{"trigger.description", c.Trigger.Description, MaxTextBytes, true},
		{"detection.description", c.Detection.Description, MaxTextBytes, true},
		{"impact.severity", c.Impact.Severity, MaxLineBytes, false},
		{"impact.scope", c.Impact.Scope, MaxLineBytes, false},
		{"impact.users_affected", c.Impact.UsersAffected, MaxLineBytes, false},
		{"impact.region", c.Impact.Region, MaxLineBytes, false},
		{"impact.duration", c.Impact.Duration, MaxLineBytes, false},
		{"impact.time_to_detect", c.Impact.TimeToDetect, MaxLineBytes, false},
		{"impact.time_to_resolve", c.Impact.TimeToResolve, MaxLineBytes, false},
	} {
		if err := text(f.name, f.v, f.max, f.multiline); err != nil {
			return err
		}
	}
	if c.Published != "" && (!publishedRe.MatchString(c.Published) || !validDate(c.Published)) {
		return fieldErr("published", "%q is not a date (YYYY-MM-DD)", clip(c.Published))
	}
	if c.IncidentDate != "" && (!incidentRe.MatchString(c.IncidentDate) || !validDate(c.IncidentDate)) {
		return fieldErr("incident_date", "%q is not a date (YYYY, YYYY-MM or YYYY-MM-DD)", clip(c.IncidentDate))
	}
	for _, d := range []struct{ name, v string }{
		{"impact.duration", c.Impact.Duration}, {"impact.time_to_detect", c.Impact.TimeToDetect}, {"impact.time_to_resolve", c.Impact.TimeToResolve},
	} {
		if d.v != "" && !validDuration(d.v) {
			return fieldErr(d.name, "%q is not an ISO 8601 duration such as PT45M", d.v)
		}
	}
	if c.Language != "" && c.Language != "und" && !slices.Contains(Languages, c.Language) {
		return fieldErr("language", "%q is not en, ru, zh or und", clip(c.Language))
	}
	if v := c.RootCause.Category; v != "" && !ValidRootCause(v) {
		return fieldErr("root_cause.category", "%q is not in the vocabulary", clip(v))
	}
	if v := c.Trigger.Kind; v != "" && !ValidTrigger(v) {
		return fieldErr("trigger.kind", "%q is not in the vocabulary", clip(v))
	}
	if v := c.Detection.Method; v != "" && !ValidDetection(v) {
		return fieldErr("detection.method", "%q is not in the vocabulary", clip(v))
	}
	if len(c.Components) > len(Components) {
		return fieldErr("components", "has %d items; the vocabulary has %d components", len(c.Components), len(Components))
	}
	for i, comp := range c.Components {
		if !ValidComponent(comp) {
			return fieldErr(fmt.Sprintf("components[%d]", i), "%q is not in the vocabulary", clip(comp))
		}
	}
	if len(c.Tags) > MaxTags {
		return fieldErr("tags", "has %d items, over the limit of %d", len(c.Tags), MaxTags)
	}
	for i, t := range c.Tags {
		if slug, ok := TagSlug(t); !ok || !tagRe.MatchString(slug) {
			return fieldErr(fmt.Sprintf("tags[%d]", i), "%q is neither a tag of the table nor a slug (a-z 0-9 . + -)", clip(t))
		}
	}
	for _, l := range []struct {
		name  string
		items []string
	}{{"remediation", c.Remediation}, {"action_items", c.ActionItems}, {"lessons", c.Lessons}} {
		if len(l.items) > MaxListItems {
			return fieldErr(l.name, "has %d items, over the limit of %d", len(l.items), MaxListItems)
		}
		for i, it := range l.items {
			if err := text(fmt.Sprintf("%s[%d]", l.name, i), it, MaxListItemBytes, true); err != nil {
				return err
			}
		}
	}
	if total > MaxEditTotalBytes {
		return fieldErr("case", "carries %d bytes of text, over the limit of %d", total, MaxEditTotalBytes)
	}
	return nil
}

// ValidateLine checks one line of text (a reviewer's name, say).
func ValidateLine(field, s string, max int) error { return checkText(field, s, max, false) }

// ValidateNote checks a reviewer's note or reject reason.
func ValidateNote(field, s string) error { return checkText(field, s, MaxNoteBytes, true) }

// clip shortens a value quoted back in an error message.
func clip(s string) string {
	if len(s) <= 64 {
		return s
	}
	i := 64
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
