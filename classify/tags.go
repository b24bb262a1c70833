package classify

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/extract"
)

// tagComponentsFrom is how many of the leading tags may add a component.
const tagComponentsFrom = 3

// tagMatcher finds the vocabulary's tags in text.
type tagAlias struct {
	text  string // folded unless exact
	slug  string
	exact bool
}

var (
	tagAliasOnce sync.Once
	tagAliasList []tagAlias
)

func tagAliases() []tagAlias {
	tagAliasOnce.Do(func() {
		for slug, aliases := range casebook.TagAliases {
			tagAliasList = append(tagAliasList, tagAlias{text: slug, slug: slug})
			for _, a := range aliases {
				if strings.HasPrefix(a, "=") {
					tagAliasList = append(tagAliasList, tagAlias{text: a[1:], slug: slug, exact: true})
				} else {
					tagAliasList = append(tagAliasList, tagAlias{text: strings.ToLower(a), slug: slug})
					if strings.Contains(a, "'") {
						// typeset text writes the apostrophe curly ("Let’s Encrypt")
						tagAliasList = append(tagAliasList, tagAlias{text: strings.ToLower(strings.ReplaceAll(a, "'", "’")), slug: slug})
					}
				}
			}
		}
		sort.Slice(tagAliasList, func(i, j int) bool { return tagAliasList[i].text < tagAliasList[j].text })
	})
	return tagAliasList
}

// countWhole counts occurrences of w in s that are whole words (for Latin
// and Cyrillic edges; Han edges need no boundary).
func countWhole(s, w string) int {
	n, from := 0, 0
	for {
		i := strings.Index(s[from:], w)
		if i < 0 {
			return n
		}
		i += from
		from = i + len(w)
		if wholeAt(s, i, w) {
			n++
		}
	}
}

// wholeAt reports whether the occurrence of w at s[i:] is a whole word: no
// word rune joins it on either side (nor a hyphen after it).
func wholeAt(s string, i int, w string) bool {
	if i > 0 {
		p, _ := utf8.DecodeLastRuneInString(s[:i])
		f, _ := utf8.DecodeRuneInString(w)
		if isWordRune(p) && isWordRune(f) {
			return false
		}
	}
	if end := i + len(w); end < len(s) {
		nx, _ := utf8.DecodeRuneInString(s[end:])
		l, _ := utf8.DecodeLastRuneInString(w)
		if isWordRune(nx) && isWordRune(l) || nx == '-' && isWordRune(l) {
			return false
		}
	}
	return true
}

// exactAliases are the aliases matched as written, indexed by their first
// byte: one pass over a sentence finds them all, where a strings.Index per
// alias was 5% of the 50 KB benchmark.
type exactAliases struct {
	list    []tagAlias
	byFirst [256][]int
}

func newExactAliases(list []tagAlias) *exactAliases {
	ex := &exactAliases{list: list}
	for i, al := range list {
		if al.text != "" {
			ex.byFirst[al.text[0]] = append(ex.byFirst[al.text[0]], i)
		}
	}
	return ex
}

// count adds to out, per slug, the whole-word occurrences of every alias
// in text, as countWhole counts them: an alias is looked for again only
// after the end of its last occurrence, whole or not.
func (ex *exactAliases) count(text string, out map[string]int) {
	var buf [128]int
	next := buf[:0]
	if len(ex.list) <= len(buf) {
		next = buf[:len(ex.list)]
	} else {
		next = make([]int, len(ex.list))
	}
	for i := 0; i < len(text); i++ {
		for _, ai := range ex.byFirst[text[i]] {
			w := ex.list[ai].text
			if i < next[ai] || !strings.HasPrefix(text[i:], w) {
				continue
			}
			next[ai] = i + len(w)
			if wholeAt(text, i, w) {
				out[ex.list[ai].slug]++
			}
		}
	}
}

func isWordRune(r rune) bool {
	return (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_') && !unicode.Is(unicode.Han, r)
}

// Tag selection: a tag in the title, the front matter or the root cause
// counts outright; elsewhere it must recur. At most maxTags, most-mentioned first.
const (
	maxTags      = 6
	tagMinCount  = 2
	titleWeight  = 3
	causeWeight  = 2
	frontMatterW = 4
)

// foldedTags is the table's case-folded aliases as one cue set, labelled
// by slug; exactTags are the aliases matched as written ("=PG").
var foldedTags, foldedSlugs, exactTags = foldTags(tagAliases())

func foldTags(list []tagAlias) (cs cueSet, slugs []string, exact *exactAliases) {
	var ex []tagAlias
	for _, al := range list {
		if al.exact {
			ex = append(ex, al)
			continue
		}
		cs = append(cs, cue{text: al.text, weight: 1})
		slugs = append(slugs, al.slug)
	}
	return cs, slugs, newExactAliases(ex)
}

// normalizeTag maps an author's tag to a slug of the table (a variable so
// that the held-out test can leave table entries out).
var normalizeTag = casebook.NormalizeTag

// everydayWords are slugs that are also everyday English words ("the site
// go down", "rust on the rack", "a spring release"): in English prose the
// slug counts only as its table alias writes it ("=Go"), not case-folded
// as every other slug does. In Russian or Chinese text a Latin "go" is the
// language; acronyms and commands ("dns", "git", "bash") written in lower
// case are still the technology.
var everydayWords = map[string]bool{"go": true, "rust": true, "ruby": true, "spark": true, "spring": true,
	"hive": true, "oracle": true, "react": true, "rails": true, "flask": true, "pulsar": true, "puma": true, "railway": true}

// latinProse reports text whose letters are mostly Latin.
func latinProse(text string) bool {
	latin, other := 0, 0
	for _, r := range text {
		switch {
		case r < 0x80 && unicode.IsLetter(r):
			latin++
		case unicode.IsLetter(r):
			other++
		}
	}
	return latin > other
}

// tagCounts counts tag mentions in text (and low, its lower-cased form).
func tagCounts(text, low string) map[string]int {
	out := map[string]int{}
	if strings.Contains(text, "://") {
		text, low = blankURLs(text), blankURLs(low)
	}
	// a name that begins a longer product's name counts only as that
	// product: "GitHub Actions" is github-actions, not github too ("AWS
	// Lambda" still names aws and lambda)
	type hit struct{ at, end, ci int }
	var hits []hit
	compiledWith(foldedTags, true).eachAt(low, func(ci, at int) bool {
		hits = append(hits, hit{at, at + len(foldedTags[ci].text), ci})
		return true
	})
	for i, h := range hits {
		inside := false
		for j, o := range hits {
			if j != i && o.at <= h.at && h.end <= o.end && o.end-o.at > h.end-h.at &&
				strings.HasPrefix(foldedSlugs[o.ci], foldedSlugs[h.ci]+"-") {
				inside = true
				break
			}
		}
		if slug := foldedSlugs[h.ci]; !inside && (!everydayWords[slug] || !latinProse(text)) {
			out[slug]++
		}
	}
	// the exact aliases alone: a pass over the whole table for each
	// sentence was 4% of the 50 KB benchmark
	exactTags.count(text, out)
	return out
}

// blankURLs spaces out the addresses in s ("https://github.com/acme/x/pull/9"):
// a link to an issue or a pull request names where the story is kept, not
// a technology the incident ran through.
func blankURLs(s string) string {
	b := []byte(s)
	for i := 0; ; {
		j := strings.Index(s[i:], "://")
		if j < 0 {
			return string(b)
		}
		start := i + j
		for start > 0 && isASCIIWord(s[start-1]) {
			start--
		}
		end := i + j + 3
		for end < len(s) && s[end] > ' ' && s[end] < 0x80 && s[end] != ')' && s[end] != ']' && s[end] != '>' && s[end] != '"' {
			end++
		}
		for k := start; k < end; k++ {
			b[k] = ' '
		}
		i = end
	}
}

// fenceLang maps a code block's language mark to the slug of a programming
// language; marks of shells, configuration and data ("bash", "yaml",
// "json", "sql") name no technology the incident ran through.
var fenceLang = map[string]string{"java": "java", "typescript": "typescript", "ts": "typescript", "tsx": "typescript",
	"javascript": "javascript", "js": "javascript", "jsx": "javascript", "python": "python", "py": "python",
	"python3": "python", "go": "go", "golang": "go", "kotlin": "kotlin", "kt": "kotlin", "rust": "rust", "rs": "rust",
	"ruby": "ruby", "rb": "ruby", "php": "php", "csharp": "csharp", "cs": "csharp", "c#": "csharp", "cpp": "cpp",
	"c++": "cpp", "scala": "scala"}

// A source file's extension names its language ("src/cli/init-files.ts").
var sourceLang = map[string]string{"ts": "typescript", "tsx": "typescript", "go": "go", "py": "python",
	"rs": "rust", "java": "java", "kt": "kotlin", "cpp": "cpp", "cc": "cpp", "hpp": "cpp", "rb": "ruby", "php": "php"}

// sourceFiles returns the language of every file name in low ("name.ext"
// with a word character before the dot and none after the extension).
func sourceFiles(low string) []string {
	var out []string
	for i := 1; i < len(low)-1; i++ {
		if low[i] != '.' || !isASCIIWord(low[i-1]) {
			continue
		}
		j := i + 1
		for j < len(low) && j-i <= 5 && low[j] >= 'a' && low[j] <= 'z' {
			j++
		}
		if j < len(low) && isASCIIWord(low[j]) {
			continue
		}
		if lang, ok := sourceLang[low[i+1:j]]; ok {
			out = append(out, lang)
		}
	}
	return out
}

func isASCIIWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// broadTags are mentioned in passing by most posts; they count only when
// the title, the cause or the front matter names them, or they recur a lot.
var broadTags = []string{"linux", "http", "cli", "slack", "dns", "tcp", "vpc", "iam", "perf", "jira", "confluence", "cron", "chrome", "curl", "ssh", "icmp", "ipv6", "arthas"}

const broadMinCount = 6

// tagParent names the platform a managed service or a distribution runs
// on, from general knowledge: a post that names EKS is about AWS too.
var tagParent = map[string]string{
	"eks": "aws", "ec2": "aws", "ebs": "aws", "s3": "aws", "rds": "aws", "elasticache": "aws", "cloudwatch": "aws",
	"aurora": "aws", "dynamodb": "aws", "lambda": "aws", "fargate": "aws", "ecs": "aws", "route53": "aws",
	"cloudfront": "aws", "sqs": "aws", "sns": "aws", "kinesis": "aws", "efs": "aws", "msk": "aws", "redshift": "aws",
	"cloudtrail": "aws", "aws-vpc-cni": "aws", "amazon-linux": "aws", "eventbridge": "aws", "step-functions": "aws",
	"gke": "gcp", "gce": "gcp", "gcs": "gcp", "bigquery": "gcp", "cloud-run": "gcp", "cloud-sql": "gcp",
	"spanner": "gcp", "memorystore": "gcp", "app-engine": "gcp", "cloud-functions": "gcp", "pubsub": "gcp", "bigtable": "gcp",
	"aks": "azure", "cosmosdb": "azure", "azure-functions": "azure", "azure-devops": "azure", "azure-ad": "azure",
	"azure-blob": "azure", "azure-sql": "azure", "azure-front-door": "azure",
	"tke": "tencent-cloud",
}

// ambiguousServices are the managed services whose names have another
// common sense (a time zone, a function, a social network, a product of
// another vendor); a post about one names its platform (tagParent).
var ambiguousServices = map[string]bool{
	"aurora": true, "lambda": true, "msk": true, "ecs": true, "sns": true, "efs": true,
	"pubsub": true, "gcs": true, "gce": true, "spanner": true,
}

// platformWords are the whole words that name a platform in a post.
var platformWords = map[string][]string{
	"aws": {"aws", "amazon"},
	"gcp": {"gcp", "google cloud", "google compute"},
}

// namesPlatform reports whether the title or the prose names platform, or
// counts holds another of its services, one without a second sense (SQS
// beside Lambda makes it AWS Lambda).
func (a *analysis) namesPlatform(platform string, counts map[string]int) bool {
	for child, parent := range tagParent {
		if parent == platform && !ambiguousServices[child] && counts[child] > 0 {
			return true
		}
	}
	title := strings.ToLower(a.doc.Title)
	for _, w := range platformWords[platform] {
		if wholeWordIn(a.low, w) || wholeWordIn(title, w) {
			return true
		}
	}
	return false
}

func (a *analysis) tagScores(rootCause string, per []map[string]int) map[string]float64 {
	// the article's counts are its sentences' (no alias spans a line)
	counts := map[string]int{}
	for _, c := range per {
		for slug, n := range c {
			counts[slug] += n
		}
	}
	// pods are Kubernetes' (a post about pods is about Kubernetes where it
	// never names it)
	for i := range a.units {
		if n := podMentions(a.units[i].low); n > 0 {
			counts["kubernetes"] += n
		}
	}
	// the team's tools (paging, chat, tickets, monitoring) told only in how
	// the failure was found, in plans or in lessons are not what it ran
	// through
	for i := range a.units {
		u := &a.units[i]
		if u.assigned != fActionItems && u.assigned != fLessons && !u.advice && u.assigned != fDetection {
			continue
		}
		for slug, n := range per[i] {
			if teamTool(slug) {
				if counts[slug] -= n; counts[slug] <= 0 {
					delete(counts, slug)
				}
			}
		}
	}
	for _, u := range a.units {
		for _, lang := range sourceFiles(u.low) {
			counts[lang]++
		}
	}
	// the post's code in a programming language is written in it: each
	// block marked so ("```java") is a mention
	for _, sec := range a.doc.Sections {
		for _, b := range sec.Blocks {
			if slug := fenceLang[b.Lang]; b.Kind == extract.Code && slug != "" {
				counts[slug]++
			}
		}
	}
	for _, slug := range broadTags {
		if counts[slug] < broadMinCount {
			delete(counts, slug) // kept only when the title or the cause names it
		}
	}
	// a service name with another common sense counts only in a post that
	// names its platform: "15:15 MSK" is Moscow time, "ROS/Aurora" a robot's
	// software, a Redis pub/sub channel no Google service
	unplaced := map[string]bool{}
	for slug := range ambiguousServices {
		if _, ok := counts[slug]; ok && !a.namesPlatform(tagParent[slug], counts) {
			unplaced[slug] = true
			delete(counts, slug)
		}
	}
	bonus := map[string]float64{}
	for slug := range tagCounts(a.doc.Title, strings.ToLower(a.doc.Title)) {
		if !unplaced[slug] {
			bonus[slug] = titleWeight
		}
	}
	for slug := range tagCounts(rootCause, strings.ToLower(rootCause)) {
		if !unplaced[slug] {
			bonus[slug] = max(bonus[slug], causeWeight)
		}
	}
	for _, t := range a.doc.Tags {
		if slug, ok := normalizeTag(t); ok {
			bonus[slug] = max(bonus[slug], frontMatterW)
		}
	}
	scores := map[string]float64{}
	// A managed service is its provider's: EKS runs on AWS, GKE on GCP. The
	// provider takes the best of its services, whatever the map's order.
	inherited, floor := map[string]float64{}, map[string]int{}
	for child, parent := range tagParent {
		if b := bonus[child]; b > 0 && bonus[parent] == 0 {
			inherited[parent] = max(inherited[parent], b)
			floor[parent] = max(floor[parent], counts[child])
		} else if counts[child] >= tagMinCount {
			floor[parent] = max(floor[parent], tagMinCount)
		}
	}
	for parent, b := range inherited {
		bonus[parent] = b
	}
	for parent, n := range floor {
		counts[parent] = max(counts[parent], n)
	}
	for slug := range bonus {
		if _, ok := counts[slug]; !ok {
			counts[slug] = 0 // a title mention counts even when the body never repeats it
		}
	}
	for slug, n := range counts {
		if n >= tagMinCount || bonus[slug] > 0 {
			scores[slug] = float64(n) + bonus[slug]
		}
	}
	if len(scores) < tagFillTo {
		// a post that names few technologies: the ones it names once count
		// too, in the order the story names them, up to tagFillTo
		a.fillOnceNamed(scores, counts, per, false)
	}
	if len(scores) == 0 {
		// a post whose fields name none: what the story names at all (not
		// its plans or lessons) is what it ran on
		a.fillOnceNamed(scores, counts, per, true)
	}
	return scores
}

// tagFillTo is how many tags a post that names few should get from names
// it mentions only once (the "3-8 that matter"; 3 until session
// 7, when gold posts held 4-6 and the once-named of their symptoms, cause
// and fixes were most often among them).
const tagFillTo = 5

// fillOnceNamed adds the tags counts holds once, first-named first, with
// scores below every tag that recurs, until scores holds tagFillTo.
func (a *analysis) fillOnceNamed(scores map[string]float64, counts map[string]int, per []map[string]int, story bool) {
	w := 0.9
	for i := range a.units {
		if len(scores) >= tagFillTo {
			return
		}
		u := &a.units[i]
		if story {
			if u.assigned == fActionItems || u.assigned == fLessons || u.advice {
				continue
			}
		} else if u.assigned != fSymptoms && u.assigned != fRootCause && u.assigned != fTrigger && u.assigned != fRemediation {
			continue // background and plans name what the incident did not run through
		}
		for _, slug := range slices.Sorted(maps.Keys(per[i])) {
			if _, ok := scores[slug]; ok || counts[slug] != 1 || len(scores) >= tagFillTo {
				continue
			}
			scores[slug] = w
			w -= 0.01
		}
	}
}

func (a *analysis) fillTags(cs *casebook.Case) {
	per := make([]map[string]int, len(a.units))
	for i := range a.units {
		per[i] = tagCounts(a.units[i].text, a.units[i].low)
	}
	scores := a.tagScores(cs.RootCause.Description, per)
	if names := a.unknownTechNames(scores, cs); len(names) > 0 {
		// vocabulary.md: a tag not in the table is not invented from free
		// text, and a reviewer's edit with one is refused; the names are
		// offered instead, for the table to grow by review
		if cs.Extraction.Suggestions == nil {
			cs.Extraction.Suggestions = map[string][]string{}
		}
		cs.Extraction.Suggestions["tags"] = names
	}
	tags := sortedKeys(scores)
	if len(tags) > maxTags {
		tags = tags[:maxTags]
	}
	cs.Tags = tags
	cs.Components = componentsFromTags(cs.Components, tags, tagComponentsFrom)
	if len(tags) > 0 {
		cs.Extraction.Confidence["tags"] = 0.6
		cs.Extraction.Evidence["tags"] = a.firstMentionsAt(tags, func(i int) map[string]int { return per[i] })
	}
}

// firstMentions returns, for each label in order, the span of the first
// sentence in which count finds it (labels never mentioned get none).
func (a *analysis) firstMentions(labels []string, count func(u *unit) map[string]int) []casebook.Span {
	return a.firstMentionsAt(labels, func(i int) map[string]int { return count(&a.units[i]) })
}

// firstMentionsAt is firstMentions with the counts of unit i.
func (a *analysis) firstMentionsAt(labels []string, count func(i int) map[string]int) []casebook.Span {
	want := map[string]bool{}
	for _, l := range labels {
		want[l] = true
	}
	var out []casebook.Span
	for i := range a.units {
		if len(want) == 0 {
			break
		}
		u := &a.units[i]
		for l := range count(i) {
			if want[l] {
				delete(want, l)
				out = append(out, casebook.Span{Start: u.start, End: u.end})
			}
		}
	}
	return out
}

// unknownTechNames returns the technology names the table does not know
// that the title or the cause names and the body names again, most
// mentioned first.
func (a *analysis) unknownTechNames(scores map[string]float64, cs *casebook.Case) []string {
	counts := a.techNameCounts()
	if len(counts) == 0 {
		return nil
	}
	named := map[string]bool{}
	for _, text := range []string{a.doc.Title, cs.RootCause.Description} {
		for _, w := range techWordRe.FindAllString(text, -1) {
			if w = strings.TrimRight(w, ".-_"); techCandidate(w) {
				named[techSlug(w)] = true
			}
		}
	}
	org := strings.ToLower(strings.ReplaceAll(cs.Organization, " ", "-"))
	found := map[string]float64{}
	for slug, n := range counts {
		if slug == org || scores[slug] > 0 || !named[slug] || n < techMinCount {
			continue
		}
		found[slug] = float64(n)
	}
	names := sortedKeys(found)
	if len(names) > maxTags {
		names = names[:maxTags]
	}
	return names
}

// teamTools are the team's own tools of the trade: chat, tickets, docs and
// paging. Monitoring systems (tagComponent "monitoring") are tools too.
var teamTools = map[string]bool{"slack": true, "jira": true, "confluence": true, "microsoft-teams": true, "mattermost": true,
	"discord": true, "statuspage": true, "incident-io": true, "victorops": true, "opsgenie": true, "pagerduty": true,
	"zendesk": true, "telegram": true, "dingtalk": true, "wecom": true, "feishu": true, "github": true, "gitlab": true, "bitbucket": true, "google-workspace": true, "notion": true}

// teamTool reports a tag that names a tool the team works with rather
// than a system the failure ran through, when the post names it only in
// how the failure was found, plans or lessons.
func teamTool(slug string) bool {
	return teamTools[slug] || tagComponent[slug] == "monitoring"
}

// podWords are Kubernetes' unit of work as posts write it: a post about
// pods is about Kubernetes even where it never names it.
var podWords = cues("pod", "pods", "поды", "подов", "подах", "подами", "подам")

func podMentions(low string) int {
	n := 0
	compiledWith(podWords, true).each(low, func(int) bool { n++; return true })
	return n
}
