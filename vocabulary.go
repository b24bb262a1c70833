package casebook

import "slices"

// The controlled vocabulary of shared/design/vocabulary.md. Slugs are stable:
// filters, /vocab, related cases and the evaluation compare them exactly.

// RootCauseCategories are the root_cause.category slugs.
var RootCauseCategories = []string{
	"software-defect", "configuration", "capacity", "dependency", "hardware",
	"network", "deployment", "human-error", "security", "expiry", "unknown",
}

// TriggerKinds are the trigger.kind slugs.
var TriggerKinds = []string{
	"deploy", "config-change", "upgrade", "maintenance", "traffic-surge",
	"dependency-event", "time", "hardware-event", "failover", "latent", "unknown",
}

// DetectionMethods are the detection.method slugs.
var DetectionMethods = []string{
	"automated-alert", "customer-report", "internal-report", "unknown",
}

// Components are the component slugs.
var Components = []string{
	"application", "database", "cache", "message-queue", "search", "storage",
	"compute", "kubernetes", "container-runtime", "linux-kernel", "node-os-image",
	"network", "dns", "load-balancer", "cdn", "auth", "certificates", "ci-cd",
	"configuration-management", "monitoring", "cloud-control-plane",
	"third-party-api", "client",
}

// Descriptions of the label slugs, served by /vocab.
var SlugMeaning = map[string]string{
	"software-defect": "a bug in code, ours or a vendor's",
	"configuration":   "a wrong or changed setting, flag, rule, policy, manifest or IaC value",
	"capacity":        "resources exhausted or too small for the load",
	"dependency":      "a third-party or upstream service failed",
	"hardware":        "physical failure: servers, disks, power, cooling, fibre, network devices",
	"network":         "connectivity, routing, BGP, DNS resolution, partitions, MTU, packet loss",
	"deployment":      "the change process itself failed",
	"human-error":     "a manual operation went wrong",
	"security":        "an attack, compromise, abuse or exploited vulnerability",
	"expiry":          "time: certificate or licence expiry, leap second, clock skew, date arithmetic",
	"unknown":         "the source names none",
}

// ValidRootCause reports whether s is a root-cause slug.
func ValidRootCause(s string) bool { return slices.Contains(RootCauseCategories, s) }

// ValidTrigger reports whether s is a trigger slug.
func ValidTrigger(s string) bool { return slices.Contains(TriggerKinds, s) }

// ValidDetection reports whether s is a detection slug.
func ValidDetection(s string) bool { return slices.Contains(DetectionMethods, s) }

// ValidComponent reports whether s is a component slug.
func ValidComponent(s string) bool { return slices.Contains(Components, s) }

// Languages casebook drafts cases in; anything else is "und".
var Languages = []string{"en", "ru", "zh"}
