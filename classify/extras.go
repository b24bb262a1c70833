package classify

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/extract"
)

// componentCues name the kinds of system, in English, Russian and Chinese.
var componentCues = map[string]cueSet{
	"application": cues("application", "service code", "our code", "the app", "microservice", "backend", "monolith",
		"приложени", "сервис", "микросервис", "бэкенд", "бекенд", "монолит", "应用", "程序", "业务", "微服务", "后端"),
	"database": cues("database", "mysql", "postgres", "db ", "rds", "sql", "база данных", "базы данных", "базе данных", "базу данных",
		"базой данных", "баз данных", "бд", "数据库"),
	"cache": cues("cache", "redis", "memcache", "elasticache", "valkey", "кеш", "кэш", "редис", "缓存"),
	"message-queue": cues("message queue", "queue", "kafka", "rabbitmq", "sqs", "pubsub", "очередь сообщений",
		"очереди сообщений", "брокер сообщений", "消息队列", "队列"),
	"search":        cues("elasticsearch", "opensearch", "search cluster", "solr", "поиск", "搜索"),
	"storage":       cues("disk", "volume", "ebs", "s3", "storage", "filesystem", "file system", "диск", "хранилищ", "磁盘", "存储", "挂载"),
	"compute":       cues("ec2", "instance", "virtual machine", "vm ", "compute", "инстанс", "виртуальн", "实例", "虚拟机"),
	"kubernetes":    cues("kubernetes", "k8s", "pod", "kubelet", "cluster", "eks", "gke", "кубер", "поды", "подов", "подами", "集群"),
	"linux-kernel":  cues("kernel", "cgroup", "ядро linux", "ядра linux", "ядре linux", "linux-ядр", "内核"),
	"node-os-image": cues("ami", "os image", "node image", "image", "cloud-init", "centos", "ubuntu", "образ", "镜像", "系统"),
	"network":       cues("network", "cni", "ip address", "subnet", "vpc", "tcp", "packet", "сеть", "сети", "сетью", "сетев", "网络", "网卡"),
	"dns":           cues("dns", "coredns", "resolver", "name resolution", "днс", "域名解析"),
	"load-balancer": cues("load balancer", "load-balancer", "alb", "elb", "nlb", "traefik", "ingress", "nginx", "haproxy", "балансировщик", "负载均衡"),
	"cdn":           cues("cdn", "cloudflare", "akamai", "fastly", "边缘节点"),
	"auth":          cues("authentication", "login", "oauth", "sso", "iam", "авторизац", "аутентификац", "认证", "登录", "鉴权"),
	"certificates":  cues("certificate", "tls", "ssl", "сертификат", "证书"),
	"ci-cd":         cues("pipeline", "ci ", "ci/cd", "argocd", "jenkins", "github actions", "deploy", "пайплайн", "депло", "流水线"),
	"configuration-management": cues("terraform", "ansible", "puppet", "chef", "infrastructure as code", "iac",
		"терраформ", "配置管理"),
	"monitoring":          cues("monitoring", "metric", "cloudwatch", "prometheus", "grafana", "alerting", "мониторинг", "метрик", "监控"),
	"cloud-control-plane": cues("control plane", "api server", "aws console", "control-plane", "管控"),
	"third-party-api":     cues("third-party", "third party", "github support", "external api", "vendor", "сторонн", "第三方"),
	// "клиент" alone is as often a customer or a connection as client software
	"client": cues("client", "browser", "cli", "sdk", "клиентск", "браузер", "фронтенд", "мобильн", "客户端"),
}

// Component selection: mentioned in the root cause, or recurring in the
// article, at most maxComponents.
const (
	maxComponents   = 5
	componentMinHit = 4
)

var componentIndex = mergeLabels(componentCues)

func (a *analysis) components(rootCause, category string) []string {
	scores := map[string]float64{}
	inText, inCause := a.componentCounts(), componentIndex.counts(rootCause)
	for slug := range componentCues {
		n, c := inText[slug], inCause[slug]
		if c > 0 || n >= componentMinHit {
			scores[slug] = float64(n) + 3*float64(c)
		}
	}
	out := sortedKeys(scores)
	if len(out) > maxComponents {
		out = out[:maxComponents]
	}
	if rootCause != "" && category == "software-defect" && len(out) < maxComponents && !slices.Contains(out, "application") &&
		!slices.ContainsFunc(out, func(s string) bool { return vendorSoftware[s] }) {
		// a defect in no vendor's software (kernel, OS image, runtime, a
		// third party) is in the team's own code, whatever the post calls it
		// ("the init command", "备份函数", "the node's sync loop")
		out = append(out, "application")
	}
	return out
}

// vendorSoftware are components whose defects are someone else's code.
var vendorSoftware = map[string]bool{"linux-kernel": true, "node-os-image": true, "container-runtime": true,
	"third-party-api": true, "cloud-control-plane": true}

// fillSummary picks up to three sentences, one each for what broke, why and
// what fixed it, in the order of the article.
func (a *analysis) fillSummary(cs *casebook.Case, byField map[field][]*unit) {
	var picked []*unit
	for _, f := range []field{fSymptoms, fRootCause, fRemediation} {
		if us := byField[f]; len(us) > 0 {
			picked = append(picked, us[0])
		}
	}
	if len(picked) == 0 {
		return
	}
	for i := 1; i < len(picked); i++ {
		for j := i; j > 0 && picked[j].start < picked[j-1].start; j-- {
			picked[j], picked[j-1] = picked[j-1], picked[j]
		}
	}
	var parts []string
	var spans []casebook.Span
	for _, u := range picked {
		parts = append(parts, u.text)
		spans = append(spans, casebook.Span{Start: u.start, End: u.end})
	}
	cs.Summary = strings.Join(parts, " ")
	cs.Extraction.Evidence["summary"] = spans
	cs.Extraction.Confidence["summary"] = 0.5
}

var (
	isoDateRe  = regexp.MustCompile(`\b(20\d\d|19\d\d)[-/.](\d{1,2})[-/.](\d{1,2})\b`)
	zhDateRe   = regexp.MustCompile(`(20\d\d|19\d\d)\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]`)
	enDateRe   = regexp.MustCompile(`(?i)\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(20\d\d)\b`)
	enDate2Re  = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th|\.)?\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?,?\s+(20\d\d)\b`)
	ruDateRe   = regexp.MustCompile(`(?i)(\d{1,2})\s+(январ|феврал|март|апрел|ма[йя]|июн|июл|август|сентябр|октябр|ноябр|декабр)[а-я]*\s+(20\d\d)`)
	usShortRe  = regexp.MustCompile(`\b(\d{1,2})[-/](\d{1,2})[-/](\d\d)\b`)
	monthIndex = map[string]int{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
		"январ": 1, "феврал": 2, "март": 3, "апрел": 4, "май": 5, "мая": 5, "июн": 6, "июл": 7, "август": 8, "сентябр": 9, "октябр": 10, "ноябр": 11, "декабр": 12}
)

// incidentDate is the first full date stated in the title, a timeline or a
// sentence about the incident (its symptoms, detection or narrative), not
// the post's own date line.
func (a *analysis) incidentDate() (string, casebook.Span, bool) {
	if d, ok := findDate(a.doc.Title, true); ok {
		return d, casebook.Span{}, true
	}
	// timeline entries keep their stamps in the block text; sentences about
	// the incident are searched as routed
	timeline := map[int]bool{}
	for si, k := range a.secKinds {
		if k != fTimeline {
			continue
		}
		for _, b := range a.doc.Sections[si].Blocks {
			timeline[b.Start] = true
		}
	}
	type found struct {
		date string
		sp   casebook.Span
	}
	var first *found
	consider := func(text string, start, end int) {
		if first != nil && start >= first.sp.Start {
			return
		}
		if d, ok := findDate(text, false); ok {
			first = &found{d, casebook.Span{Start: start, End: end}}
		}
	}
	for _, sec := range a.doc.Sections {
		for _, b := range sec.Blocks {
			if timeline[b.Start] && b.Kind != extract.Code {
				if _, ok := findDate(b.Text, false); ok {
					consider(b.Text, b.Start, b.End)
					break // the first dated entry dates the incident
				}
			}
		}
	}
	for _, u := range a.units {
		switch u.assigned {
		case fSymptoms, fDetection, fRootCause, fTrigger:
			consider(u.text, u.start, u.end)
		}
	}
	if first == nil {
		return "", casebook.Span{}, false
	}
	return first.date, first.sp, true
}

func findDate(s string, short bool) (string, bool) {
	mk := func(y, m, d int) (string, bool) {
		t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
		if t.Month() != time.Month(m) || t.Day() != d || y < 1990 || y > 2100 {
			return "", false
		}
		return t.Format("2006-01-02"), true
	}
	atoi := func(x string) int { n, _ := strconv.Atoi(x); return n }
	type hit struct {
		at   int
		date string
	}
	best := hit{at: -1}
	try := func(at int, d string, ok bool) {
		if ok && (best.at < 0 || at < best.at) {
			best = hit{at, d}
		}
	}
	if m := isoDateRe.FindStringSubmatchIndex(s); m != nil {
		d, ok := mk(atoi(s[m[2]:m[3]]), atoi(s[m[4]:m[5]]), atoi(s[m[6]:m[7]]))
		try(m[0], d, ok)
	}
	if m := zhDateRe.FindStringSubmatchIndex(s); m != nil {
		d, ok := mk(atoi(s[m[2]:m[3]]), atoi(s[m[4]:m[5]]), atoi(s[m[6]:m[7]]))
		try(m[0], d, ok)
	}
	if m := enDateRe.FindStringSubmatchIndex(s); m != nil {
		d, ok := mk(atoi(s[m[6]:m[7]]), monthIndex[strings.ToLower(s[m[2]:m[3]])], atoi(s[m[4]:m[5]]))
		try(m[0], d, ok)
	}
	if m := enDate2Re.FindStringSubmatchIndex(s); m != nil {
		d, ok := mk(atoi(s[m[6]:m[7]]), monthIndex[strings.ToLower(s[m[4]:m[5]])], atoi(s[m[2]:m[3]]))
		try(m[0], d, ok)
	}
	if m := ruDateRe.FindStringSubmatchIndex(s); m != nil {
		d, ok := mk(atoi(s[m[6]:m[7]]), monthIndex[strings.ToLower(s[m[4]:m[5]])], atoi(s[m[2]:m[3]]))
		try(m[0], d, ok)
	}
	if short && best.at < 0 {
		// titles such as "Website Outage 5-26-21" (month-day-year)
		if m := usShortRe.FindStringSubmatch(s); m != nil {
			d, ok := mk(2000+atoi(m[3]), atoi(m[1]), atoi(m[2]))
			try(0, d, ok)
		}
	}
	return best.date, best.at >= 0
}

// timestampPrefix returns how many bytes of a timeline entry are its time
// stamp ("2021-07-02 07:32", "04:49 PM UTC -", "17:25 UTC - ", "7 月 1 日 10:00").
var timestampRe = regexp.MustCompile(`^\s*(?:\*\*)?(?:(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}|\d{4}\s*年\s*\d{1,2}\s*月\s*\d{1,2}\s*日|\d{1,2}\s*月\s*\d{1,2}\s*日)[ T]*)?(?:\d{1,2}:\d{2}(?::\d{2})?(?:\.\d+)?\s*(?:[AaPp]\.?[Mm]\.?)?)?\s*(?:UTC|GMT|PST|PDT|EST|EDT|CET|CEST|MSK|МСК|CST|Z)?\s*(?:\*\*)?\s*(?:[-–—:|：]\s*)?`)

func timestampPrefix(s string) int {
	m := timestampRe.FindStringIndex(s)
	if m == nil || m[1] == 0 {
		return 0
	}
	// only a real stamp counts: the prefix must hold a digit
	if !strings.ContainsAny(s[:m[1]], "0123456789") {
		return 0
	}
	return m[1]
}

// componentCounts counts component cues in the article once.
func (a *analysis) componentCounts() map[string]int {
	if a.compCounts == nil {
		a.compCounts = componentIndex.counts(a.low)
	}
	return a.compCounts
}
