package classify

import (
	"reflect"
	"strings"
	"sync"

	"github.com/casebook/casebook"
)

// Keyword tables for the controlled labels of vocabulary.md, in English,
// Russian and Chinese. Keywords are matched in the root cause (or trigger,
// or detection) text first; the rest of the article only breaks ties.
//
// Russian cues are stems where the words inflect ("депло" for деплой,
// деплоя, деплое; "не хват" for не хватает, не хватило, не хватит) and list
// their case forms where a stem would catch other words ("сеть", "сети",
// "сетью", "сетей", not "сет").
var rootCauseCues = map[string]cueSet{
	"software-defect": cues("bug", "defect", "regression", "race condition", "deadlock", "null pointer", "panic",
		"exception", "logic", "incorrectly", "mistakenly", "unconditionally", "error handling", "retry logic",
		"edge case", "memory leak", "leak", "kernel issue", "kernel bug", "code", "implementation", "serializ", "busy-wait",
		"library", "function", "handling", "recalled", "unexpected",
		"off-by-one", "infinite loop", "use-after-free", "integer overflow", "unhandled", "uncaught", "did not handle",
		"didn't handle", "not thread-safe", "thread safety", "concurrency bug", "connection leak",
		"баг", "ошибка в коде", "дефект", "безусловно", "логик", "гонк", "утечк", "реализац", "код", "спин",
		"библиотек", "функци",
		"бесконечн", "необработанн", "не обрабатывал", "не обрабатыва", "состояние гонки", "переполнение целого",
		"缺陷", "写错", "代码", "逻辑", "程序", "实现", "序列化", "死锁", "泄漏", "内核", "函数", "框架", "bug",
		"空指针", "竞态", "竞争条件", "死循环", "越界", "边界条件", "未处理", "没有处理", "判空", "并发问题", "线程安全",
		"内存泄露", "连接泄露", "句柄泄露", "异常处理", "未捕获",
		// session 7 probe
		"a race", "race between", "null value", "nil pointer", "nil value", "wrongly assumed", "did not check", "didn't check", "no backoff", "without backoff"),
	"configuration": cues("misconfigur", "configuration", "config", "setting", "parameter", "flag", "rule",
		"policy", "manifest", "terraform", "default", "timeout value", "hardcoded", "provider behavior", "environment variable", "env var",
		"конфиг", "настройк", "переменная окружения", "переменные окружения", "переменной окружения", "настроен", "параметр", "флаг", "правил", "по умолчанию",
		"配置", "参数", "默认值", "默认配置", "默认参数", "默认设置", "设置", "规则", "环境变量",
		// session 7 probe
		"wrong path", "wrong url", "wrong address", "wrong value", "was set to", "ttl of", "the ttl", "a ttl"),
	"capacity": cues("capacity", "exhaust", "ran out", "out of memory", "oom", "starvation", "saturat", "overload",
		"too many", "connection pool", "max connections", "max_connections", "connection limit", "out of connections", "quota", "limit", "disk full", "no space", "disk space", "out of disk", "filled up",
		"too few", "not enough", "insufficient", "backlog", "peak traffic", "traffic peak",
		"high load", "load spike", "ip addresses",
		"out of space", "out of disk space", "filled the disk", "disk filled", "disk was full", "full disk", "no space left",
		"worker", "connections", "fragmentation", "memory pressure", "memory usage", "memory utilization", "too large",
		"bottleneck", "throughput limit", "iops", "exceeded the limit", "overwhelmed", "could not keep up", "couldn't keep up",
		"нагрузк", "исчерпа", "не хват", "лимит", "переполн", "воркер",
		// connections as a resource, not a connection attempt ("не может подключиться")
		"пул соединений", "пула соединений", "число соединений", "количество соединений", "числа соединений",
		"количество подключений", "число подключений", "много соединений", "много подключений",
		"место на диске", "закончилось место", "кончилось место", "нет места", "свободного места",
		"слишком мало", "недостаточно памяти", "недостаточно места", "недостаточно ресурсов", "пиков",
		"узкое место", "пропускной способност", "не справлял", "не выдержал", "не выдержала", "не выдержало", "захлебнул",
		"容量", "耗尽", "不足", "打满", "过载", "连接数", "满了", "并发", "磁盘空间", "磁盘满", "写满",
		"太少", "不够", "排队", "积压", "高峰", "瓶颈", "上限", "吞吐",
		"承受不住", "扛不住", "撑不住", "压垮", "负载过高", "高负载", "负载高", "占满", "爆满", "配额", "超限", "线程池满", "连接池满", "使用率",
		// session 7 probe
		"faster than", "could not drain", "couldn't drain", "was full", "were full", "is full", "got full", "became full", "закончились соединения", "закончились подключения", "кончились соединения", "закончилась память"),
	"dependency": cues("third-party", "third party", "upstream", "provider outage", "github support",
		"supplier", "external service", "cloud provider outage", "vendor outage", "saas", "external api", "outage at our provider", "外部服务", "服务商", "云服务商", "供应商故障",
		"сторонн", "внешн", "провайдер", "поставщик", "第三方", "上游", "供应商", "云厂商",
		"our provider", "provider had", "provider's outage", "regional outage", "had an outage", "experienced an outage",
		"suffered an outage", "cloud provider", "hosting provider", "vendor's", "partner's api",
		"хостер", "подрядчик", "облачного провайдера",
		"运营商", "合作方", "依赖的服务", "依赖服务", "外部接口", "第三方接口",
		// session 7: a named kind of provider ("our CDN provider")
		"cdn provider", "dns provider", "payment provider", "email provider", "sms provider", "identity provider",
		"provider's side", "on the provider side", "upstream provider", "cdn-провайдер", "dns-провайдер", "cdn 服务商", "cdn 厂商",
		"storage provider", "hosting provider", "email service provider", "our vendor",
		// session 7 probe
		"payment gateway", "payment processor"),
	"hardware": cues("hardware", "disk failure", "failed disk", "power", "cooling", "fibre", "fiber", "server failure",
		// A disk named alone is not a failed one: "место на диске" is a full disk (capacity).
		"железо", "железа", "железе", "железом", "отказ диск", "отказал диск", "сбой диск", "вышел из строя", "вышли из строя", "неисправн", "поломк", "отказ оборудования", "сбой оборудования",
		"питани", "硬件", "磁盘损坏", "磁盘故障", "坏盘", "断电", "机房", "硬盘故障", "服务器故障", "网卡故障", "内存条", "主板",
		"failed drive", "drive failed", "power supply", "psu", "bad sector", "ecc error", "overheat", "fiber cut", "fibre cut",
		"перегрев", "блок питания", "обрыв кабеля", "обрыв оптики",
		"硬盘损坏", "坏道", "掉电", "停电", "光纤", "光缆", "电源", "机柜", "宿主机故障", "物理机故障",
		// session 7 probe
		"network card", "faulty nic", "failed nic", "ssd failure", "wore out", "worn out"),
	"network": cues("network", "bgp", "routing", "packet loss", "partition", "mtu", "dns resolution", "latency between",
		"сеть", "сети", "сетью", "сетей", "сетев", "маршрут", "网络", "丢包", "路由",
		"network partition", "split brain", "split-brain", "packet drops", "dropped packets", "потеря пакетов", "网络分区", "网络抖动", "脑裂",
		// session 7 probe
		"packets were dropped", "packets dropped", "dropping packets"),
	"deployment": cues("rollout", "deploy pipeline", "migration", "mid-rollout", "incompatible version", "release process",
		"during the upgrade", "at the time of upgrade", "at the time of the upgrade", "upgrade process", "upgrade procedure", "canary", "bad deploy", "deployment pipeline", "ci/cd pipeline", "раскатк",
		"during the rollout", "during deployment", "rollout process", "при обновлении", "в процессе обновления",
		"升级过程", "发布过程", "部署过程",
		"выкат", "депло", "миграц", "发布", "上线", "部署",
		// session 7 probe
		"deploy script", "deployment script", "rollout script", "all at once", "at once instead", "one by one", "wrong order", "schema change", "schema migration", "表结构变更", "ddl 变更", "执行 ddl", "改表"),
	"human-error": cues("human error", "manual", "accidentally", "by mistake", "wrong command", "operator",
		"mistakenly deleted", "deleted by mistake",
		"вручную", "случайно", "по ошибке", "человеческ", "ошибочно удал",
		"误操作", "手动", "人为", "误删", "误执行", "手误",
		"wrong host", "wrong server", "wrong cluster", "typo", "не на том сервере", "опечатк", "操作失误", "不小心", "错误操作", "误改",
		// session 7: a person's slip told in other words (the wrong target,
		// an accident, a mix-up)
		"accidental", "fat-finger", "fat finger", "mistyped", "wrong port", "wrong environment",
		"wrong database", "wrong account", "wrong machine", "wrong node", "wrong cable", "wrong profile", "wrong region",
		"случайное удаление", "случайно удал", "перепутал", "по невнимательности", "не ту базу", "не в той базе", "не тот сервер",
		"не на тот сервер", "не тот кластер", "ошибка оператора", "ошибка администратора", "ошибку администратора",
		"手滑", "连错", "删错", "改错", "执行错", "误执行了", "人为失误",
		// session 7 probe
		"deleted the wrong", "removed the wrong", "stopped the wrong", "restarted the wrong", "rebooted the wrong", "against the production", "against production", "удалил не", "удалили не", "остановил не", "перезагрузил не"),
	"security": cues("vulnerab", "exploit", "attack", "ddos", "compromise", "cve-", "malicious", "log4shell", "security",
		"malware", "ransomware", "phishing", "hacker", "breach", "backdoor", "trojan", "infosec", "unauthorized access", "credential leak", "leaked credentials", "cve", "ддос", "несанкционирован", "утечка данных", "утечки данных", "未授权", "数据泄露",
		"уязвим", "атак", "взлом", "хакер", "злоумышлен", "вредонос", "шифровальщик", "вирус", "фишинг", "троян",
		"漏洞", "攻击", "入侵", "安全", "黑客", "病毒", "木马", "勒索", "钓鱼",
		// session 7: a leaked secret and who used it
		"leaked api key", "leaked key", "leaked token", "leaked secret", "leaked password", "exposed api key", "exposed secret",
		"exposed credentials", "secret scanning", "утечка ключа", "утечка токена", "утечка пароля", "утёк ключ", "утек ключ",
		"скомпрометирован", "密钥泄露", "凭证泄露", "密码泄露", "token 泄露", "ak 泄露",
		// session 7 probe
		"credential stuffing", "brute force", "brute-force", "подбор паролей", "подобрали пароли", "暴力破解", "撞库"),
	"expiry": cues("certificate", "cert expir", "expired cert", "license expir", "licence expir", "expiry",
		"leap second", "clock skew", "ntp", "tls", "ssl",
		// tokens, domains and licences run out; clocks drift
		"token expired", "expired token", "token has expired", "domain expir", "expired domain", "renewal",
		"clock drift", "time drift", "time skew", "system time", "system clock", "chrony", "timezone", "expired", "expiration", "has expired", "no longer valid",
		"истек", "истёк", "сертификат", "срок действия", "просроч", "продлени", "системное время", "системного времени", "системном времени", "системным временем",
		"рассинхрон", "синхронизац времени", "часовой пояс", "часового пояса", "часовом поясе",
		"过期", "证书", "到期", "时钟", "有效期", "续期", "续费", "系统时间", "时间问题", "时间偏差", "时间偏移", "时间不同步",
		"时间回拨", "时间跳变", "时区",
		// session 7: calendar arithmetic (vocabulary.md's "date arithmetic")
		"daylight saving", "leap year", "date arithmetic", "date calculation", "летнее время", "летнего времени",
		"перевод часов", "перевода часов", "перевод стрелок", "високосн", "夏令时", "闰年", "闰秒", "日期计算",
		// session 7 probe
		"clocks", "drifted", "drift between"),
}

var triggerCues = map[string]cueSet{
	"deploy": cues("deploy", "deployment", "release", "rolled out", "rollout", "shipped", "merged", "canary", "раскатк", "выкладк",
		"code change", "hotfix", "pull request",
		"депло", "задеплои", "релиз", "выкат", "выпуск", "发布", "上线", "部署", "发版", "代码变更"),
	"config-change": cues("config change", "configuration change", "changed the", "renamed", "rename", "setting was changed", "config push", "configuration update", "feature flag", "flag flip",
		"modified", "config update", "settings change", "firewall rule", "dns change", "dns record", "toggled",
		"изменени", "переименова", "правк", "修改", "变更", "改为", "开关"),
	"upgrade": cues("upgrade", "upgraded", "update to", "new version", "migrat", "bumped", "kernel update", "version update",
		"обновл", "обнови", "миграц", "апгрейд", "升级", "迁移", "版本更新", "更新版本", "更新了版本", "系统更新", "内核更新", "更新内核"),
	"maintenance": cues("maintenance", "planned work", "copy", "cloned", "snapshot", "housekeeping",
		"cleanup", "clean-up", "decommission", "reboot", "restart of the", "patching",
		"обслуживан", "плановые работы", "плановых работ", "плановых работах", "работы по", "перезагрузк", "чистк",
		"维护", "复制", "快照", "运维操作", "人工操作", "清理", "下线"),
	"traffic-surge": cues("traffic spike", "surge", "spike in traffic", "load spike", "flash crowd", "elevated load", "traffic increase", "load increase", "рост нагрузки", "流量高峰", "流量暴增", "秒杀",
		"наплыв", "всплеск", "рост трафика", "流量激增", "突增", "大量请求", "大促",
		// more load than usual, and what brings it
		"times the usual traffic", "times the normal traffic", "times normal traffic", "times our usual traffic",
		"traffic grew", "traffic rose", "traffic increased", "traffic jumped", "traffic spiked", "traffic surged",
		"requests grew", "requests increased", "load grew", "record traffic", "unusually high traffic", "unexpected traffic", "traffic doubled", "traffic tripled", "load doubled",
		"marketing campaign", "went viral", "black friday", "flood of requests", "burst of traffic", "burst of requests",
		"retry storm", "thundering herd", "bot traffic",
		// a link shared widely: the "hug of death"
		"hug of death", "reddit hug", "slashdotted", "slashdot effect", "front page of hacker news", "front page of reddit",
		"хабраэффект", "хабр-эффект", "上了热搜", "突然火了",
		"пик трафика", "пиковой нагрузк", "распродаж", "чёрная пятница", "черная пятница",
		"массовая рассылка", "массовой рассылк", "поток запросов", "лавина запросов", "рекламн",
		"暴增", "双十一", "双11", "突发流量", "流量洪峰", "请求量暴涨", "请求量激增", "爬虫"),
	"dependency-event": cues("vulnerability disclosed", "was disclosed", "upstream outage", "provider outage", "vendor released",
		"vulnerability was published", "publicly disclosed", "security advisory", "zero-day", "cve-",
		"upstream provider", "outage of", "третьей стороны", "стороннего сервиса", "供应商故障", "云服务商故障",
		// another party's failure
		"our provider", "our cloud provider", "our hosting provider", "our vendor", "third-party service", "third-party api",
		"third party service", "upstream service", "upstream api", "regional outage", "had an outage", "experienced an outage",
		"suffered an outage", "provider's outage", "provider had",
		"у провайдера", "у хостера", "у поставщика", "на стороне провайдера", "сторонний сервис", "стороннем сервисе",
		"внешнего сервиса", "внешний сервис", "внешнем сервисе", "внешнего провайдера", "облачного провайдера",
		"上游服务故障", "上游故障", "第三方服务", "服务商故障", "运营商故障", "运营商", "云厂商", "依赖的服务"),
	"time": cues("expired", "expiry", "leap second", "at midnight",
		"expiration", "expiring", "expires", "daylight saving", "time zone", "timezone", "end of the month", "new year",
		"истек", "истёк", "истечени", "срок действия", "просроч", "летнее время", "перевод часов", "високосн",
		"过期", "到期", "闰秒", "闰年", "时区", "夏令时", "跨年"),
	"hardware-event": cues("disk failed", "power outage", "hardware failure", "node failure", "disk failure", "power failure", "power loss", "hardware fault", "отказ диска", "отказ оборудования", "отключение питания", "断电", "硬盘故障", "磁盘故障", "сбой железа", "сбоя железа", "сбое железа", "硬件故障",
		"drive failed", "failed drive", "failed disk", "lost power", "power cut", "cooling failure", "overheat", "fiber cut", "fibre cut",
		"cable cut", "switch failed", "faulty hardware", "hardware issue", "bad sector", "ecc error", "memory errors",
		"вышел из строя", "вышла из строя", "вышли из строя", "отказ диск", "пропало питание", "отключение электричества",
		"перегрев", "обрыв кабеля", "обрыв оптики", "неисправн",
		"硬盘损坏", "磁盘损坏", "坏盘", "坏道", "掉电", "停电", "光纤", "光缆", "交换机故障", "网卡故障", "内存故障",
		"机器宕机", "服务器宕机", "宿主机宕机", "物理机宕机",
		// session 7
		"блок питания", "блока питания", "сгорел", "сгорела", "breaker tripped", "psu failed", "电源故障", "电源损坏"),
	"failover": cues("failover", "fail over", "failed over", "switchover", "switched over", "leader election", "was promoted", "promoted the replica",
		"promoted a replica", "switched to the standby", "switched to the secondary",
		"переключение на резерв", "переключения на резерв", "переключении на резерв", "переключение на реплик",
		"переключения на реплик", "переключении на реплик", "переключение мастера", "переключения мастера", "переключились на", "переключился на",
		"主从切换", "主备切换", "切主", "故障切换", "自动切换", "切换到备", "选主"),
}

var detectionCues = map[string]cueSet{
	"automated-alert": cues("alert", "alarm", "paged", "automated warning", "warning from", "pagerduty", "monitoring", "synthetic", "alertmanager",
		"detected", "automatic", "алерт", "алёрт", "мониторинг", "оповещен", "告警", "报警", "监控"),
	"customer-report": cues("customer", "user reported", "users reported", "a user", "support ticket", "complain",
		"twitter", "клиент", "пользовател", "жалоб", "用户反馈", "用户反映", "客户", "投诉",
		// session 7: reports through support, in more words
		"support chat", "support team", "support received", "support noticed", "tickets", "reported by customers",
		"customers reported", "customers started", "users started reporting", "reports from", "social media",
		"покупател", "обращени", "в поддержку", "чат поддержки", "техподдержк", "тикет", "客服", "工单", "用户报告", "用户反应",
		// someone outside told the team: a researcher, a bounty programme
		"reported this to", "reported it to", "reported to us", "reported to our", "hackerone", "bug bounty",
		"security researcher", "сообщил нам", "сообщили нам", "написал нам", "написали нам", "исследовател",
		"向我们报告", "联系了我们", "白帽", "安全研究员"),
	"internal-report": cues("noticed", "engineer", "we found", "we discovered", "colleague", "team noticed",
		"заметил", "обнаружил", "коллег", "发现", "同事", "开发"),
}

// triggerOrder breaks ties toward the more specific kind: an upgrade or a
// config change is usually rolled out by a deploy.
var triggerOrder = []string{"upgrade", "config-change", "maintenance", "traffic-surge", "failover",
	"hardware-event", "time", "dependency-event", "deploy"}

// triggerMin is the score a trigger named only inside the cause needs.
const triggerMin = 3

// storyTriggerMin is the score a trigger needs from the title and the story
// when no cause is stated: the title's word, or two events the story tells.
const storyTriggerMin = 2

// storyText is the article's sentences but its fixes, plans and lessons,
// lower-cased, one a line: what happened, to read a trigger from.
func (a *analysis) storyText() string {
	var sb strings.Builder
	for i := range a.units {
		u := &a.units[i]
		if u.assigned == fRemediation || u.assigned == fActionItems || u.assigned == fLessons || u.advice {
			continue
		}
		sb.WriteString(u.low)
		sb.WriteByte('\n')
	}
	return sb.String()
}

// bestLabel scores labels by their cues: primary text counts three times,
// the rest of the article once per label found (so a word used everywhere
// does not swamp the cause). It returns "" when nothing matched.
func bestLabel(table map[string]cueSet, order []string, primary, rest string) (string, float64) {
	return bestLabelWeighted(table, order, []weightedText{{primary, 3}, {rest, 0}})
}

// weightedText is a text whose label cues count w each; w == 0 means the
// rest of the article, where a label counts 0.5 per mention up to 1.5.
type weightedText struct {
	text string
	w    float64
}

func bestLabelWeighted(table map[string]cueSet, order []string, texts []weightedText) (string, float64) {
	return bestLabelBonus(table, order, texts, nil)
}

// triggerCategory is the cause a trigger kind tells of by itself.
var triggerCategory = map[string]string{
	"dependency-event": "dependency", "hardware-event": "hardware", "traffic-surge": "capacity",
}

// triggerCategoryBonus is what that trigger adds to its cause's score: a
// label that some cue named gets it, so it breaks ties and no more.
const triggerCategoryBonus = 0.5

// bestLabelBonus is bestLabelWeighted with bonus added to the labels the
// texts named.
func bestLabelBonus(table map[string]cueSet, order []string, texts []weightedText, bonus map[string]float64) (string, float64) {
	lc := labelIndex(table)
	score := map[string]float64{}
	for _, t := range texts {
		if t.text == "" {
			continue
		}
		for label, n := range labelCounts(lc, t.text) {
			if t.w == 0 {
				score[label] += min(float64(n), 3) * 0.5
			} else {
				score[label] += t.w * float64(n)
			}
		}
	}
	for label, b := range bonus {
		if score[label] > 0 {
			score[label] += b
		}
	}
	best, bestScore := "", 0.0
	for _, label := range order {
		if s := score[label]; s > bestScore {
			best, bestScore = label, s
		}
	}
	return best, bestScore
}

// notALabel marks words that start like a label's cue but are another
// word: "правильно" (correctly) is not "правило" (a rule).
const notALabel = "-"

// labelStops are such words, and phrases whose cues inside them name no
// label: a cache entry or a TTL that expires is how a cache works, not an
// expired certificate or licence (vocabulary.md's expiry).
var labelStops = cues("правильн",
	// a connection pooler is a kind of software (PgBouncer), not a pool's size
	"connection pooler", "пулер соединений", "пулера соединений", "пулером соединений",
	"cache expir", "cache entries expir", "cache entry expir", "cached entries expir", "ttl expir", "expired cache",
	"expired from the cache", "кэш истек", "кэш истёк", "кеш истек", "кеш истёк",
	"缓存过期", "缓存失效", "key过期", "key 过期", "ttl过期", "过期时间", "过期策略", "过期的缓存", "过期淘汰",
	"同时过期", "集中过期", "批量过期")

// labelCounts counts the labels of lc's cues in low, the longest cue at a
// position counting once ("configuration" is not also "config"), and
// nothing where the longest is one of labelStops.
func labelCounts(lc labelledCues, low string) map[string]int {
	type hit struct {
		at, n int
		label string
	}
	var hits []hit
	longest := map[int]int{}
	compiled(lc.cs).eachAt(low, func(ci, at int) bool {
		n := len(lc.cs[ci].text)
		hits = append(hits, hit{at, n, lc.labels[ci]})
		longest[at] = max(longest[at], n)
		return true
	})
	// a stop phrase covers the cues that start inside it ("缓存过期" is no
	// expiry)
	var stops []hit
	for _, h := range hits {
		if h.label == notALabel && h.n == longest[h.at] {
			stops = append(stops, h)
		}
	}
	inStop := func(h hit) bool {
		for _, st := range stops {
			if h.at >= st.at && h.at < st.at+st.n {
				return true
			}
		}
		return false
	}
	out := map[string]int{}
	type key struct {
		at    int
		label string
	}
	seen := map[key]bool{}
	for _, h := range hits {
		if h.n < longest[h.at] || h.label == notALabel || seen[key{h.at, h.label}] || inStop(h) {
			continue
		}
		seen[key{h.at, h.label}] = true
		out[h.label]++
	}
	return out
}

var labelIndexes sync.Map // table pointer -> labelledCues

func labelIndex(table map[string]cueSet) labelledCues {
	k := reflect.ValueOf(table).UnsafePointer()
	if v, ok := labelIndexes.Load(k); ok {
		return v.(labelledCues)
	}
	lc := mergeLabels(table)
	for _, c := range labelStops {
		lc.cs = append(lc.cs, c)
		lc.labels = append(lc.labels, notALabel)
	}
	v, _ := labelIndexes.LoadOrStore(k, lc)
	return v.(labelledCues)
}

// fillLabels sets root_cause.category, trigger.kind, detection.method and
// components.
func (a *analysis) fillLabels(cs *casebook.Case, byField map[field][]*unit) {
	conf := cs.Extraction.Confidence
	// the story is read by several labels below; built once, when first asked
	var storyDone bool
	var storyLow string
	story := func() string {
		if !storyDone {
			storyLow, storyDone = a.storyText(), true
		}
		return storyLow
	}
	rc := strings.ToLower(cs.RootCause.Description)
	title := strings.ToLower(a.doc.Title)
	// with no cause sentence found, the title and the whole article still
	// say what kind of failure it was, with less confidence
	primary, rest, scale := rc, title, 1.0
	if rc == "" {
		primary, rest, scale = title, a.low, 0.5
	}
	texts := []weightedText{{primary, 1.5}, {rest, 0}}
	if len(a.doc.Tags) > 0 {
		// the author's own tags and categories say what kind of failure it was
		texts = append(texts, weightedText{strings.ToLower(strings.Join(a.doc.Tags[:min(len(a.doc.Tags), 20)], "\n")), 1})
	}
	if rc != "" {
		// the sentences that state the cause outright weigh most
		for _, u := range byField[fRootCause] {
			if u.scores[fRootCause] >= 3 {
				texts = append(texts, weightedText{u.low, 2})
			}
		}
	}
	trig := strings.ToLower(cs.Trigger.Description)
	nothingSetOff := false // latent only because no trigger was found
	if trig != "" {
		if kind, s := bestTrigger([]triggerText{{trig, 3, false}}); kind != "" {
			cs.Trigger.Kind = kind
			conf["trigger.kind"] = round2(min(0.3+s/15, 0.9))
		}
	}
	if cs.Trigger.Kind != "" {
		// the trigger sentences named the kind
	} else if rc == "" {
		// nothing stated as cause or trigger: a trigger the title names, or
		// one the story (not its fixes, plans or lessons) tells as an event
		// more than once; else, in a story of a failure, nothing set it off
		// that the post tells apart
		if kind, s := bestTrigger([]triggerText{{title, 3, false}, {story(), 1, true}}); kind != "" && s >= storyTriggerMin {
			cs.Trigger.Kind = kind
			conf["trigger.kind"] = 0.3
		} else if loadRises(story()) > 0 {
			cs.Trigger.Kind = "traffic-surge"
			conf["trigger.kind"] = 0.3
		} else if len(byField[fSymptoms]) > 0 {
			cs.Trigger.Kind = "latent"
			conf["trigger.kind"] = 0.2
			nothingSetOff = true
		}
	} else {
		// no trigger told apart from the cause: one the title names, or one
		// the cause tells as an event, else the cause was there all along
		if kind, s := bestTrigger([]triggerText{{title, 3, false}, {rc, 3, true}}); kind != "" && s >= triggerMin {
			cs.Trigger.Kind = kind
			conf["trigger.kind"] = 0.4
		} else if kind, s := bestTrigger([]triggerText{{story(), 1, true}}); kind != "" && s >= storyTriggerMin {
			// a trigger the story tells as an event twice, outside the cause
			cs.Trigger.Kind = kind
			conf["trigger.kind"] = 0.3
		} else if loadRises(story()) > 0 {
			// a rise in load the story tells once: load is told as a
			// figure, once, and its words name nothing else
			cs.Trigger.Kind = "traffic-surge"
			conf["trigger.kind"] = 0.3
		} else {
			cs.Trigger.Kind = "latent"
			conf["trigger.kind"] = 0.3
			nothingSetOff = true
		}
	}
	// a trigger of one kind of cause corroborates it: a tie-breaker, since
	// the cause is the deepest one (a provider's outage may expose our bug)
	bonus := map[string]float64{}
	if c := triggerCategory[cs.Trigger.Kind]; c != "" {
		bonus[c] = triggerCategoryBonus
	}
	if cat, s := bestLabelBonus(rootCauseCues, casebook.RootCauseCategories, texts, bonus); cat != "" {
		cs.RootCause.Category = cat
		conf["root_cause.category"] = round2(scale * min(0.3+s/20, 0.9))
	} else if rc != "" {
		// a cause is stated but names no kind: the kind the trigger tells
		// of (another party's outage, a failed disk, a surge), else the
		// kind the story names; most stated causes are defects
		cs.RootCause.Category, conf["root_cause.category"] = "software-defect", 0.3
		if c := triggerCategory[cs.Trigger.Kind]; c != "" {
			cs.RootCause.Category = c
		} else if cat, _ := bestLabelBonus(rootCauseCues, casebook.RootCauseCategories, []weightedText{{story(), 0}}, nil); cat != "" {
			cs.RootCause.Category = cat
		}
	}
	if kind := categoryTrigger[cs.RootCause.Category]; nothingSetOff && kind != "" && conf["root_cause.category"] > 0.3 {
		// a cause whose kind is its own event (vocabulary.md): a bad
		// deployment is set off by the deploy, broken hardware by the
		// hardware failing
		cs.Trigger.Kind = kind
		conf["trigger.kind"] = 0.2
	}
	if nothingSetOff && cs.RootCause.Category == "security" && conf["root_cause.category"] > 0.3 {
		// an attack is someone's act, not a flaw that grew or was always
		// there (vocabulary.md: latent), and the vocabulary has no kind for
		// an attacker: with no trigger told, the kind is unknown
		cs.Trigger.Kind = "unknown"
		conf["trigger.kind"] = 0.2
	}
	// a step written as a plan ("Настроить алерты", "Add an alert") is
	// what the team will do, not how it found out: its alert is no answer
	det := strings.ToLower(cs.Detection.Description)
	for i := range a.units {
		if u := &a.units[i]; u.assigned == fDetection && leadsWithPlanVerb(u.low) {
			det = strings.TrimSpace(strings.ReplaceAll(det, u.low, ""))
		}
	}
	if det == "" {
		// alerts and reports told anywhere in the story
		for _, u := range a.units {
			if u.scores[fDetection] >= 2 && (u.kind == fTimeline || u.kind == fNarrative || u.assigned == fSymptoms) && !leadsWithPlanVerb(u.low) {
				det += u.low + "\n"
			}
		}
	}
	if det != "" {
		if m, s := bestLabel(detectionCues, casebook.DetectionMethods, det, ""); m != "" {
			cs.Detection.Method = m
			conf["detection.method"] = round2(min(0.4+s/15, 0.9))
		}
	}
	if cs.Detection.Method == "" && (rc != "" || cs.Symptoms != "") {
		// a story of a failure that names no alert and no report: the
		// author of a first-person story found it themselves; a team's
		// report that tells nothing of how it was found leaves it unknown
		// (annotation-guide.md: an empty field is a real answer)
		cs.Detection.Method = "internal-report"
		conf["detection.method"] = 0.3
		if det == "" && a.toldAsReport() && !anyWord(discoveryWords, story()) {
			cs.Detection.Method = "unknown"
			conf["detection.method"] = 0.2
		}
	}
	compCat := cs.RootCause.Category
	if conf["root_cause.category"] == 0.3 {
		compCat = "software-defect" // the cause named no kind of failure
	}
	cs.Components = a.components(rc, compCat)
	if len(cs.Components) > 0 {
		conf["components"] = 0.5
		cs.Extraction.Evidence["components"] = a.firstMentions(cs.Components, func(u *unit) map[string]int { return componentIndex.counts(u.low) })
	}
	// a label's evidence is the text it was read from
	for label, from := range map[string]string{"root_cause.category": "root_cause", "trigger.kind": "trigger", "detection.method": "detection"} {
		if _, ok := conf[label]; ok && len(cs.Extraction.Evidence[from]) > 0 {
			cs.Extraction.Evidence[label] = cs.Extraction.Evidence[from]
		}
	}
}

// fillTriggerDescription tells the trigger, when no sentence was routed to
// it, by the first sentence that states its kind as an event. It runs after
// the text fields are final.
func (a *analysis) fillTriggerDescription(cs *casebook.Case) {
	if cs.Trigger.Description != "" || cs.Trigger.Kind == "" || cs.Trigger.Kind == "latent" {
		return
	}
	if u := a.eventSentence(cs.Trigger.Kind); u != nil {
		cs.Trigger.Description = u.text
		cs.Extraction.Evidence["trigger"] = []casebook.Span{{Start: u.start, End: u.end}}
		cs.Extraction.Confidence["trigger"] = 0.35
	}
}

// eventSentence is the first sentence of the story that tells a trigger of
// kind as an event by its own words ("traffic jumped from", "was pushed",
// "升级到"), outside fixes, plans and lessons: the trigger as told, when no
// sentence was routed to the trigger.
func (a *analysis) eventSentence(kind string) *unit {
	events := triggerEvents[kind]
	if len(events) == 0 {
		return nil
	}
	for i := range a.units {
		u := &a.units[i]
		if u.assigned == fRemediation || u.assigned == fActionItems || u.assigned == fLessons {
			continue
		}
		hit := false
		compiled(events).eachAt(u.low, func(ci, at int) bool {
			hit = eventEnds(u.low, at, events[ci].text)
			return !hit
		})
		if hit {
			return u
		}
	}
	return nil
}

// discoveryWords tell that someone found or reported the failure, however
// the sentence was routed ("colleagues from sales noticed", "a customer told
// us"): a story that has one does not leave its detection unknown.
var discoveryWords = cues("noticed", "spotted", "reported", "alerted", "paged", "complained", "discovered", "told us",
	"заметил", "заметили", "обнаружил", "обнаружили", "нашли", "сообщил", "сообщили", "пожаловал", "написали")

// Pronouns of the first person, singular and plural.
var (
	singularVoice = cues("i", "i'm", "i've", "my", "me", "я", "мне", "меня", "мной", "мой", "моя", "моё", "мои", "моего", "моей")
	pluralVoice   = cues("we", "we're", "we've", "our", "us", "мы", "нас", "нам", "нами", "наш", "наша", "наше", "наши",
		"нашего", "нашей", "нашим", "наших")
)

// toldAsReport reports a post told by a team, "we" and "our" outnumbering
// "I" and "my", or in no person at all ("Бот перестал отвечать. Причина:
// …"): a report, not someone's story of finding the failure. The pronouns
// are Latin and Cyrillic ones (a blogger's 我们 is as often the reader and
// the author, as in a tutorial, as a team), and Chinese text in no person
// is no report: its stories drop the pronoun.
func (a *analysis) toldAsReport() bool {
	count := func(cs cueSet) int {
		n := 0
		compiledWith(cs, true).each(a.low, func(int) bool { n++; return true })
		return n
	}
	singular, plural := count(singularVoice), count(pluralVoice)
	return plural > singular || singular+plural == 0 && !a.chinese()
}

// categoryTrigger is the trigger kind a root-cause category implies when the
// post tells no trigger apart. (Expiry -> time and dependency ->
// dependency-event were tried too: the first changed a Chinese gold post's
// latent, whose clock drifted, to time, and the second moved nothing.)
var categoryTrigger = map[string]string{"deployment": "deploy", "hardware": "hardware-event"}
