package casecheck

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/casebook/casebook"
)

func TestNulls(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{`{"a":[],"b":{}}`, nil},
		{`{"a":null}`, []string{"$.a"}},
		{`{"e":{"components":null,"x":[{"s":null}]}}`, []string{"$.e.components", "$.e.x[0].s"}},
		{`[1,null]`, []string{"$[1]"}},
	} {
		got, err := Nulls([]byte(tc.in))
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Nulls(%s) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	if _, err := Nulls([]byte(`{`)); err == nil {
		t.Error("bad JSON gave no error")
	}
}

// A zero case, and one whose evidence names a field with no spans (what the
// classifier leaves for labels no sentence names), encode without null.
func TestZeroCaseHasNoNull(t *testing.T) {
	c := casebook.Case{ID: "draft-1"}
	c.Extraction.Evidence = map[string][]casebook.Span{"components": nil, "tags": nil}
	raw, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	NoNulls(t, "zero case", raw)
	if c.Extraction.Evidence["components"] != nil {
		t.Error("MarshalJSON wrote into the caller's evidence map")
	}
	if err := Validate(raw); Absent(err) {
		t.Skip("no ../shared/design/case.schema.json")
	} else if err != nil {
		t.Fatalf("zero case breaks the schema: %v", err)
	}
	// The schema catches what the null check would not.
	bad := []byte(`{"id":"x"}`)
	if err := Validate(bad); err == nil {
		t.Fatal("a case without its required fields passed the schema")
	}
}
