package classify

import (
	"strings"
	"testing"
)

// handRoutesOf is routesOf by the hand rules (before the field model), for
// the story rules of en_story.go.
func handRoutesOf(t *testing.T, md string) map[string]string {
	t.Helper()
	return explainRoutes(t, md, func(r Route) string { return r.Hand })
}

func checkHandRoutes(t *testing.T, name, md string, want []routeWant) {
	t.Helper()
	got := handRoutesOf(t, md)
	for _, w := range want {
		f, ok := got[w.sentence]
		if !ok {
			t.Errorf("%s: sentence %q not found; sentences: %v", name, w.sentence, got)
			continue
		}
		if f != w.field {
			t.Errorf("%s: %q went to %q, want %q", name, w.sentence, f, w.field)
		}
	}
}

// The order of an English story without field headings: what was seen, the
// cause as found and its explanation, the steps taken after it, advice.
func TestStoryEN(t *testing.T) {
	cases := []struct {
		name string
		md   string
		want []routeWant
	}{
		{"cause runs on in its paragraph", "# Slow exports\n\n" +
			"Our nightly export job got slower every week.\n\n" +
			"It turned out that the export table had no index on the date column. Every run read the whole table from disk.\n\n" +
			"Someone mentioned it at lunch.\n",
			[]routeWant{
				{"It turned out that the export table had no index on the date column.", "root_cause"},
				{"Every run read the whole table from disk.", "root_cause"},
				{"Someone mentioned it at lunch.", ""},
			}},
		{"a cause named among others runs on to nothing", "# Two outages\n\n" +
			"The same outage happened on Monday, but for a different root cause. The queue was full that day.\n",
			[]routeWant{{"The queue was full that day.", ""}}},
		{"found it hands the cause to what follows", "# The missing metrics\n\n" +
			"Our dashboards went blank on Sunday.\n\n" +
			"After an hour of digging, I found it.\n\n" +
			"A new agent version had renamed the metrics endpoint, so the collector scraped a page that no longer existed.\n\n" +
			"I pointed the collector at the new endpoint.\n",
			[]routeWant{
				{"A new agent version had renamed the metrics endpoint, so the collector scraped a page that no longer existed.", "root_cause"},
				{"I pointed the collector at the new endpoint.", "remediation"},
			}},
		{"a rollout after the cause is the trigger", "# Cold caches\n\n" +
			"Page loads doubled overnight.\n\n" +
			"The problem was a cache key that now held the build number. A new image had been rolled out the evening before.\n",
			[]routeWant{{"A new image had been rolled out the evening before.", "trigger"}}},
		{"steps after the cause", "# Stuck uploads\n\n" +
			"Uploads hung for some users.\n\n" +
			"The root cause was a proxy buffer that was too small for large files.\n\n" +
			"We raised the buffer to 64 MB and redeployed the proxies. We then wrote a test that uploads a 1 GB file.\n",
			[]routeWant{
				{"We raised the buffer to 64 MB and redeployed the proxies.", "remediation"},
				{"We then wrote a test that uploads a 1 GB file.", "remediation"},
			}},
		{"no step before the cause is known", "# Stuck uploads\n\n" +
			"Uploads hung for some users. We raised the proxy log level first.\n",
			[]routeWant{{"We raised the proxy log level first.", ""}}},
		{"a step of the search is no symptom", "# Slow pages\n\n" +
			"Our pages became slow on Monday. I started by comparing a slow request with a fast one. We then lined up the slow requests with the deploy log.\n",
			[]routeWant{
				{"Our pages became slow on Monday.", "symptoms"},
				{"I started by comparing a slow request with a fast one.", ""},
				{"We then lined up the slow requests with the deploy log.", ""},
			}},
		{"a step that saw a failure is", "# Slow pages\n\n" +
			"Our pages became slow on Monday. We checked the logs and saw timeouts from the search service.\n",
			[]routeWant{{"We checked the logs and saw timeouts from the search service.", "symptoms"}}},
		{"a failure told before the cause", "# Stuck uploads\n\n" +
			"We run the upload service behind two proxies and a load balancer, in three regions and on two clouds.\n\n" +
			"Some context about the setup first, since it matters for the story.\n\n" +
			"Most of our users never noticed anything.\n\n" +
			"Then uploads from the mobile app failed.\n\n" +
			"The root cause was a proxy buffer that was too small.\n\n" +
			"Later on, some uploads failed again in the office.\n",
			[]routeWant{
				{"Then uploads from the mobile app failed.", "symptoms"},
			}},
		{"recovered and unaffected are no symptoms", "# Search outage\n\n" +
			"Search returned errors for an hour. Indexing was not affected. Error rates returned to normal at noon.\n",
			[]routeWant{
				{"Search returned errors for an hour.", "symptoms"},
				{"Indexing was not affected.", ""},
				{"Error rates returned to normal at noon.", ""},
			}},
		{"how often is no lesson", "# Flaky tests\n\n" +
			"Our end-to-end tests failed at random. It was never more than one test a run, and it always happened on the same runner.\n",
			[]routeWant{{"It was never more than one test a run, and it always happened on the same runner.", ""}}},
		{"advice to the reader", "# Flaky tests\n\n" +
			"Our end-to-end tests failed at random because one runner had a wrong clock.\n\n" +
			"Always check the clock of a machine before you blame the code. If you run tests on shared runners, make sure they sync their time.\n",
			[]routeWant{
				{"Always check the clock of a machine before you blame the code.", "lessons"},
				{"If you run tests on shared runners, make sure they sync their time.", "lessons"},
			}},
		{"a sentence about the post", "# Flaky tests\n\n" +
			"This post explains what went wrong and what we are changing.\n",
			[]routeWant{{"This post explains what went wrong and what we are changing.", ""}}},
		{"the paragraph before the fix explains it", "# The office network\n\n" +
			"On Monday the office could not reach the file server.\n\n" +
			"I walked over to the storage room to have a look.\n\n" +
			"Someone had plugged both ends of one cable into the same switch, so the switch forwarded its own broadcasts forever.\n\n" +
			"I unplugged the cable, and the network came back at once. Afterwards we labelled every free port.\n",
			[]routeWant{
				{"Someone had plugged both ends of one cable into the same switch, so the switch forwarded its own broadcasts forever.", "root_cause"},
				{"I unplugged the cable, and the network came back at once.", "remediation"},
				{"Afterwards we labelled every free port.", "remediation"},
			}},
		{"a story that tells what happened is no finding", "# API outage\n\n" +
			"Our API returned errors all afternoon. Here is what happened.\n\n" +
			"The load balancer sends traffic to three regions.\n",
			[]routeWant{{"The load balancer sends traffic to three regions.", ""}}},
		{"steps in the passive and by engineers, what had happened before", "# Network outage\n\n" +
			"Our servers were unreachable for an hour.\n\n" +
			"The standby switch had rebooted after a power fault, and nobody had saved its configuration.\n\n" +
			"Engineers restored the configuration from a backup, and traffic was flowing again at noon. The power supply was replaced in the evening.\n",
			[]routeWant{
				{"The standby switch had rebooted after a power fault, and nobody had saved its configuration.", "root_cause"},
				{"Engineers restored the configuration from a backup, and traffic was flowing again at noon.", "remediation"},
				{"The power supply was replaced in the evening.", "remediation"},
			}},
		{"a status page's set sentence", "# API errors\n\n**Resolved** - This incident has been resolved.\n",
			[]routeWant{{"This incident has been resolved.", ""}}},
		{"a team as the subject, a problem that started when", "# Tracking outage\n\n" +
			"The tracking page showed no data all afternoon.\n\n" +
			"The problem started when a supplier changed its data format. Our importer could not read the new files.\n\n" +
			"Our IT team adapted the importer to the new format in the evening.\n",
			[]routeWant{
				{"The problem started when a supplier changed its data format.", "root_cause"},
				{"Our importer could not read the new files.", "root_cause"},
				{"Our IT team adapted the importer to the new format in the evening.", "remediation"},
			}},
		{"a story told in the present", "# Full disk\n\nThe pager goes off: the database stopped accepting writes.\n\n" +
			"The root cause is an old replication slot that keeps every log segment.\n\nI drop the slot.\n",
			[]routeWant{{"I drop the slot.", "remediation"}}},
		{"changes announced for the rest of a paragraph", "# Queue outage\n\nSends to the queue failed for an hour.\n\n" +
			"We are making several changes as a result of this event. The scaling tool now refuses to remove more than a tenth of the fleet.\n",
			[]routeWant{{"The scaling tool now refuses to remove more than a tenth of the fleet.", "action_items"}}},
		{"a finding seen while searching, a guess sets nothing off", "# Broken DNS\n\n" +
			"After the upgrade every call between services failed.\n\n" +
			"My first thought was that the DNS pods had not come back after the upgrade.\n\n" +
			"With a debug pod I noticed that lookups of cluster names timed out.\n",
			[]routeWant{
				{"My first thought was that the DNS pods had not come back after the upgrade.", ""},
				{"With a debug pod I noticed that lookups of cluster names timed out.", "symptoms"},
			}},
		{"status updates as headings", "# Slow builds\n\n### Identified\n\nThe cause is a broken autoscaling policy.\n\n" +
			"Posted 2 hours ago.\n\n### Investigating\n\nBuilds are waiting up to 40 minutes before they start.\n",
			[]routeWant{
				{"The cause is a broken autoscaling policy.", "root_cause"},
				{"Posted 2 hours ago.", ""},
				{"Builds are waiting up to 40 minutes before they start.", "symptoms"},
			}},
		{"a quoted message users saw", "# Login outage\n\n" +
			"Some customers saw the message \"Please try again later\" on the login page.\n",
			[]routeWant{{"Some customers saw the message \"Please try again later\" on the login page.", "symptoms"}}},
	}
	for _, c := range cases {
		checkHandRoutes(t, c.name, c.md, c.want)
	}
}

// Layouts of English write-ups the story rules read: a list announced by a
// sentence naming a field, a timeline told as a table, the Problem section
// of a problem / cause / fix report, a heading naming two fields, bare
// headings ("Why", "Changes", "Testing") and an impact section's users.
func TestStoryLayoutsEN(t *testing.T) {
	cases := []struct {
		name string
		md   string
		want []routeWant
	}{
		{"announced lists", "# Cart outage\n\n" +
			"Checkout failed for a fifth of orders.\n\n" +
			"Here is what we found:\n\n" +
			"- The session store had reached its memory limit.\n- Guest sessions never expired.\n\n" +
			"We took the following steps to recover:\n\n" +
			"- Deleted guest sessions older than a day.\n- Set an expiry on new guest sessions.\n\n" +
			"Someone mentioned it at lunch.\n",
			[]routeWant{
				{"The session store had reached its memory limit.", "root_cause"},
				{"Guest sessions never expired.", "root_cause"},
				{"We took the following steps to recover:", ""},
				{"Deleted guest sessions older than a day.", "remediation"},
				{"Set an expiry on new guest sessions.", "remediation"},
				{"Someone mentioned it at lunch.", ""},
			}},
		{"a timeline table", "# Search outage\n\n" +
			"Search was down for half an hour.\n\n" +
			"| Time (UTC) | Event |\n|---|---|\n" +
			"| 10:00 | Error rates on the search API climb to 40%. |\n" +
			"| 10:04 | The on-call engineer is paged by the error-rate alert. |\n" +
			"| 10:20 | The previous index is restored. |\n",
			[]routeWant{
				{"Time (UTC) | Event", ""},
				{"Error rates on the search API climb to 40%.", "symptoms"},
				{"The on-call engineer is paged by the error-rate alert.", "detection"},
				{"The previous index is restored.", "remediation"},
			}},
		{"problem, cause, changes, testing", "# Fix duplicate emails\n\n" +
			"## Problem\n\nSome customers have been receiving two copies of every receipt.\n\n" +
			"## Cause\n\nThe worker sends the email before it marks the receipt as sent.\n\n" +
			"## Changes\n\n- Mark the receipt as sent before calling the mail provider.\n\n" +
			"## Testing\n\n- Ran the worker with a failing database and checked the mail catcher.\n",
			[]routeWant{
				{"Some customers have been receiving two copies of every receipt.", "symptoms"},
				{"The worker sends the email before it marks the receipt as sent.", "root_cause"},
				{"Mark the receipt as sent before calling the mail provider.", "remediation"},
				{"Ran the worker with a failing database and checked the mail catcher.", ""},
			}},
		{"why", "# Broken release\n\n" +
			"## What happened\n\nUsers could not install version 2.1.\n\n" +
			"## Why\n\nThe release job read an old configuration file that did not list the native module.\n",
			[]routeWant{{"The release job read an old configuration file that did not list the native module.", "root_cause"}}},
		{"a heading naming two fields", "# Login outage\n\n" +
			"## How we found out and fixed it\n\n" +
			"Our monitoring showed a rise in failed logins. We corrected the limit and restarted the identity service.\n",
			[]routeWant{
				{"Our monitoring showed a rise in failed logins.", "detection"},
				{"We corrected the limit and restarted the identity service.", "remediation"},
			}},
		{"a table's header row", "# Outage\n\n## Action items\n\n" +
			"| Action item | Type | Owner |\n|---|---|---|\n| Alert on a full bucket | detect | storage team |\n",
			[]routeWant{
				{"Action item | Type | Owner", ""},
				{"Alert on a full bucket | detect | storage team", "action_items"},
			}},
		{"fault and moral", "# Outage\n\n## Fault\n\nThe broker dropped messages over 1 MB.\n\n" +
			"## Moral of the story\n\nDefaults change between versions.\n",
			[]routeWant{
				{"The broker dropped messages over 1 MB.", "root_cause"},
				{"Defaults change between versions.", "lessons"},
			}},
		{"what went wrong: the story at the top, a lesson under lessons", "# Outage\n\n## What went wrong\n\n" +
			"At noon the checkout pages started timing out.\n\n## Lessons learned\n\n### What went wrong\n\n" +
			"Nobody owned the database quota.\n",
			[]routeWant{
				{"At noon the checkout pages started timing out.", "symptoms"},
				{"Nobody owned the database quota.", "lessons"},
			}},
		{"question headings", "# Delayed emails\n\n## How did we find out?\n\nA designer asked in the team channel why no email had arrived.\n\n" +
			"## What did we do?\n\n- Moved the stuck messages back to the queue.\n\n## What will we do?\n\n- Test the message format in CI.\n",
			[]routeWant{
				{"A designer asked in the team channel why no email had arrived.", "detection"},
				{"Moved the stuck messages back to the queue.", "remediation"},
				{"Test the message format in CI.", "action_items"},
			}},
		{"an alert added afterwards", "# Expired certificate\n\nOur API failed with TLS errors on Sunday. The certificate had expired.\n\n" +
			"We have since added an alert that fires a month before a certificate expires.\n",
			[]routeWant{{"We have since added an alert that fires a month before a certificate expires.", "action_items"}}},
		{"a browser's warning", "# Expired certificate\n\nBrowsers showed a \"This site is not secure\" warning on our docs.\n",
			[]routeWant{{"Browsers showed a \"This site is not secure\" warning on our docs.", "symptoms"}}},
		{"advice after a fix label", "# Flaky Wi-Fi\n\nMy laptop lost its Wi-Fi every hour.\n\nThe fix was simple:\n\n" +
			"I turned off power saving for the Wi-Fi card.\n\nIf your laptop drops off the network, check power saving first.\n",
			[]routeWant{
				{"I turned off power saving for the Wi-Fi card.", "remediation"},
				{"If your laptop drops off the network, check power saving first.", "lessons"},
			}},
		{"what users met with under impact", "# Card outage\n\n" +
			"## Customer impact\n\nCustomers saw \"Payment declined\" at the till.\n",
			[]routeWant{{"Customers saw \"Payment declined\" at the till.", "symptoms"}}},
	}
	for _, c := range cases {
		checkHandRoutes(t, c.name, c.md, c.want)
	}
}

func TestFirstPersonAct(t *testing.T) {
	cases := []struct {
		s         string
		act, step bool
	}{
		{"I pointed the cache setting at the new path.", true, true},
		{"We then set the timeout to 30 seconds.", true, true},
		{"To get everyone back in, we temporarily limited the logins.", true, true},
		{"We also rewrote the retry helper.", true, true},
		{"We checked the obvious things first.", true, false},
		{"I noticed that the disk was full.", true, false},
		{"We will add an alert.", false, false},
		{"We need a better dashboard.", false, false},
		{"The team restarted the pods.", true, true},
		{"Our engineers corrected the prefix list.", true, true},
		{"The router had rebooted after a fault.", false, false},
		{"When we deployed, the pods restarted.", false, false},
	}
	for _, c := range cases {
		act, step := firstPersonAct(strings.ToLower(c.s))
		if act != c.act || step != c.step {
			t.Errorf("firstPersonAct(%q) = %v, %v; want %v, %v", c.s, act, step, c.act, c.step)
		}
	}
}

func TestStoryHelpersEN(t *testing.T) {
	if !mostlyLatin("the cache was full and the pods restarted") || mostlyLatin("кэш переполнился, и поды перезапустились") ||
		mostlyLatin("缓存满了，pod 重启了") {
		t.Error("mostlyLatin")
	}
	for _, h := range []string{"time (utc) | event", "| time | what happened |", "date | event", "when | what"} {
		if !timeHeader(h) {
			t.Errorf("timeHeader(%q) = false", h)
		}
	}
	for _, h := range []string{"service | owner", "timeout | value", "10:00 | the job starts"} {
		if timeHeader(h) {
			t.Errorf("timeHeader(%q) = true", h)
		}
	}
	leads := map[string]field{
		"here is what we found:": fRootCause, "we took the following steps to recover:": fRemediation,
		"the lessons we are taking away are as follows:": fLessons, "going forward, we will do the following:": fActionItems,
		"the errors looked like this:": fNone,
	}
	for s, want := range leads {
		if got := leadInField(s); got != want {
			t.Errorf("leadInField(%q) = %v, want %v", s, got, want)
		}
	}
	heads := map[string]field{"Why": fRootCause, "Why?": fRootCause, "Changes": fRemediation, "Testing": fSkip,
		"How to test": fSkip, "What was wrong": fRootCause, "Fault": fRootCause, "What went wrong": fNone, "How did we find out?": fDetection, "What we are doing next": fActionItems, "Why we use Go": fNone}
	checkHeadingKinds(t, heads)
	for _, s := range []string{"this post explains what went wrong.", "in this write-up we describe the outage."} {
		if !metaSentence(s) {
			t.Errorf("metaSentence(%q) = false", s)
		}
	}
}

// A review template's "what went poorly" and "what we're doing to prevent
// this" headings, and how a page or a customer's email tells detection.
func TestReviewHeadingsEN(t *testing.T) {
	heads := map[string]field{
		"What went poorly": fLessons, "What didn't go well": fLessons, "What could have gone better": fLessons,
		"What went badly": fLessons, "What we're doing to prevent this": fActionItems,
		"How we will prevent this in the future": fActionItems, "Where we got lucky": fLessons,
	}
	checkHeadingKinds(t, heads)
	for _, s := range []string{
		"my laptop woke me at 2am with a page: the queue was backing up.",
		"i got a page from the uptime checker at 02:10.",
		"two customers wrote to support that their invoices were missing.",
		"a user emailed support about the blank dashboard.",
	} {
		if sc, _ := sentenceScores(s); sc[fDetection] < 2 {
			t.Errorf("sentenceScores(%q)[detection] = %v, want >= 2", s, sc[fDetection])
		}
	}
}

// The conclusions of an English story: a general statement in the present
// after a lesson says it on; a closing paragraph of general statements, once
// a cause and a fix were told, is a lesson; a closing sentence in the past or
// in the first person is none.
func TestClosingLessonsEN(t *testing.T) {
	story := "# The stuck importer\n\n" +
		"Our importer stopped picking up new files on Friday.\n\n" +
		"It turned out that the lock file from a crashed run was never removed.\n\n" +
		"We deleted the lock file and the importer caught up within an hour.\n\n"
	cases := []struct {
		name string
		md   string
		want []routeWant
	}{
		{"a lesson runs on in the present", story +
			"The lesson for me is that a crashed run leaves state behind. Lock files are state too, and they need an owner.\n",
			[]routeWant{{"Lock files are state too, and they need an owner.", "lessons"}}},
		{"a closing generalisation", story + "Stale locks are easy to miss: they look like a quiet day.\n",
			[]routeWant{{"Stale locks are easy to miss: they look like a quiet day.", "lessons"}}},
		{"a closing sentence in the past is none", story + "The rest of the weekend was quiet.\n",
			[]routeWant{{"The rest of the weekend was quiet.", ""}}},
		{"a closing sentence in the first person is none", story + "We are glad it is over.\n",
			[]routeWant{{"We are glad it is over.", ""}}},
		{"no fix told, no closing lesson", "# The stuck importer\n\n" +
			"Our importer stopped picking up new files on Friday.\n\n" +
			"It turned out that the lock file from a crashed run was never removed.\n\n" +
			"Stale locks are easy to miss.\n",
			[]routeWant{{"Stale locks are easy to miss.", ""}}},
	}
	for _, c := range cases {
		checkHandRoutes(t, c.name, c.md, c.want)
	}
}

// After a fix is told, "we are <verb>ing …" is a follow-up, unless the verb
// tells a status update or a step under way; before the cause is stated, a
// failure users met, told with its reason, is a symptom.
func TestStoryPlansAndBecauseEN(t *testing.T) {
	cases := []struct {
		name string
		md   string
		want []routeWant
	}{
		{"a progressive plan after the fix", "# Mail delays\n\n" +
			"Outgoing mail was delayed by up to an hour on Monday.\n\n" +
			"It turned out that the relay's disk was full of bounce logs.\n\n" +
			"We deleted the old logs and the queue drained by noon.\n\n" +
			"We are moving the bounce logs to object storage. We are also adding a disk alert on every relay.\n",
			[]routeWant{
				{"We are moving the bounce logs to object storage.", "action_items"},
				{"We are also adding a disk alert on every relay.", "action_items"},
			}},
		{"a status update in the progressive is no plan", "# Mail delays\n\n" +
			"Outgoing mail was delayed by up to an hour on Monday.\n\n" +
			"It turned out that the relay's disk was full of bounce logs.\n\n" +
			"We deleted the old logs and the queue drained by noon.\n\n" +
			"We are monitoring the relays closely.\n",
			[]routeWant{{"We are monitoring the relays closely.", ""}}},
		{"before any fix the progressive is no plan", "# Mail delays\n\n" +
			"We are moving to a new mail relay this month. Outgoing mail was delayed by up to an hour on Monday.\n",
			[]routeWant{{"We are moving to a new mail relay this month.", ""}}},
		{"a failure told with its reason before the cause", "# Stale prices\n\n" +
			"Shoppers could not see the new prices on Monday morning, because the product pages were served from a cache.\n\n" +
			"It turned out that the cache purge job had been disabled during a migration.\n",
			[]routeWant{
				{"Shoppers could not see the new prices on Monday morning, because the product pages were served from a cache.", "symptoms"},
			}},
		{"users who could not, because", "# Stale prices\n\n" +
			"Customers could not see the new prices on Monday morning, because the product pages were served from a cache.\n\n" +
			"It turned out that the cache purge job had been disabled during a migration.\n",
			[]routeWant{
				{"Customers could not see the new prices on Monday morning, because the product pages were served from a cache.", "symptoms"},
			}},
		{"after the cause, because explains it", "# Stale prices\n\n" +
			"It turned out that the cache purge job had been disabled during a migration. " +
			"Customers could not see the new prices, because the product pages were served from that cache.\n",
			[]routeWant{
				{"Customers could not see the new prices, because the product pages were served from that cache.", "root_cause"},
			}},
	}
	for _, c := range cases {
		checkHandRoutes(t, c.name, c.md, c.want)
	}
}

// The writers' "we should…" conclusions in an English story are lessons,
// whatever fix or failure words they name; a question or a plan is not.
func TestStoryShouldEN(t *testing.T) {
	md := "# The slow hotfix\n\n" +
		"Our upload page returned errors for two hours on Friday.\n\n" +
		"It turned out that the upload size limit had been set to one megabyte by a typo.\n\n" +
		"We fixed the limit and redeployed. In the future we should deploy hotfixes from the release branch. " +
		"We should have caught the typo in review. The outage could have been avoided by a test for the limit. " +
		"Should we keep the old limit as a fallback? We will add a test for the limit.\n"
	checkHandRoutes(t, "we should", md, []routeWant{
		{"In the future we should deploy hotfixes from the release branch.", "lessons"},
		{"We should have caught the typo in review.", "lessons"},
		{"The outage could have been avoided by a test for the limit.", "lessons"},
		{"Should we keep the old limit as a fallback?", ""},
		{"We will add a test for the limit.", "action_items"},
	})
	for _, s := range []string{"we fixed the limit.", "the limit should be one megabyte, the docs said.", "customers should see the page now."} {
		if shouldLesson.MatchString(s) {
			t.Errorf("shouldLesson(%q) = true", s)
		}
	}
}
